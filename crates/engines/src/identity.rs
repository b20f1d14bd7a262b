//! What identifies a measured server, gathered from every source there is: the engine's
//! endpoints (llama.cpp `/props` and `/slots`, vLLM `/version`, `/v1/models`, `/metrics`), for
//! a server on this machine its process's command line and a hash of its GGUF header, the GPU
//! from `nvidia-smi`, and the machine's load while it was measured. `headroom bench` records
//! it so that `headroom regress` can say *what changed* between two runs.
//!
//! The structs are the `identity` and `engine_counters` of the `headroom.bench` document
//! (docs/json/bench.md). Their fields are declared in alphabetical order: the order the
//! documents have always been written in, so the JSON stays byte-identical.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::{read_proc_cmdline, EngineConfig};
use crate::process::{is_local, listening_pid, port_of};
use crate::{Engine, Props, Sample, Scrape, Scraper};

/// A value with where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sourced {
    pub source: String,
    pub value: String,
}

impl Sourced {
    pub fn new(value: impl Into<String>, source: impl Into<String>) -> Self {
        Sourced {
            source: source.into(),
            value: value.into(),
        }
    }
}

/// The model file of a local server: its size and a hash of its header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFile {
    /// What was read: a GGUF file, or a Hugging Face directory's config and safetensors
    /// headers. Written only for a directory, so GGUF documents stay as they always were.
    #[serde(default, skip_serializing_if = "ModelFormat::is_gguf")]
    pub format: ModelFormat,
    /// The files hashed, in order, relative to `path` (a directory's `config.json` and its
    /// `*.safetensors` by name); empty for a GGUF file (the file itself).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hashed: Vec<String>,
    /// Bytes hashed. GGUF: byte 0 up to the tensor data (metadata and tensor infos). A
    /// directory: `config.json` whole, then each safetensors file's 8-byte length and header.
    pub header_bytes: u64,
    /// FNV-1a 64 of those bytes, 16 hex digits (an identity hash, not a security one).
    pub header_fnv1a64: String,
    pub path: String,
    /// The file's size; for a directory, the sum of the hashed files' sizes.
    pub size_bytes: u64,
    pub tensors: u64,
}

/// The layout of a hashed model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelFormat {
    #[default]
    Gguf,
    /// A Hugging Face directory: `config.json` and `*.safetensors` (vLLM, SGLang, TGI).
    HfSafetensors,
}

impl ModelFormat {
    pub fn is_gguf(&self) -> bool {
        *self == ModelFormat::Gguf
    }
}

/// The engine's process on this machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Process {
    pub argv: Vec<String>,
    /// `--pid`, or the process listening on the URL's port.
    pub found: String,
    pub pid: u32,
}

/// This machine's 1-minute load average at the start and the end of a measurement (local
/// servers only: a remote server's machine is not this one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Host {
    pub cpus: Option<usize>,
    pub loadavg_1m_end: f64,
    pub loadavg_1m_start: f64,
    pub source: String,
}

impl Host {
    /// The mean of the start and end load.
    pub fn mean_load(&self) -> f64 {
        (self.loadavg_1m_start + self.loadavg_1m_end) / 2.0
    }
}

/// What was measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    /// Build (llama.cpp `/props` `build_info`); None when the engine gave none or a build
    /// without a version (`b0-unknown`: see `notes`).
    pub build: Option<String>,
    /// None: the engine could not be recognised.
    pub engine: Option<Engine>,
    pub gpu: Option<Sourced>,
    pub host: Option<Host>,
    pub model_file: Option<ModelFile>,
    pub model_path: Option<String>,
    /// What could not be read and why.
    pub notes: Vec<String>,
    pub process: Option<Process>,
    pub served_model: Option<String>,
    /// Setting name → value and source.
    pub settings: BTreeMap<String, Sourced>,
    pub version: Option<String>,
}

impl Identity {
    /// "build b6500", "version 0.10.1", or None when neither is known.
    pub fn who(&self) -> Option<String> {
        match (&self.build, &self.version) {
            (Some(b), _) => Some(format!("build {b}")),
            (None, Some(v)) => Some(format!("version {v}")),
            _ => None,
        }
    }
}

/// What the caller knows beyond the server's own endpoints.
#[derive(Debug, Clone, Default)]
pub struct Hints {
    /// The engine as discovered from its endpoints.
    pub engine: Option<Engine>,
    /// The model name the server serves.
    pub served_model: Option<String>,
    /// Read the flags from this process (else: the process listening on a local URL's port).
    pub pid: Option<u32>,
    /// The engine's command line as the user gave it.
    pub engine_args: Option<String>,
    /// The GPU as the user named it (resolved against a catalog by the caller).
    pub gpu: Option<Sourced>,
}

/// A llama.cpp `build_info` that carries no version: builds from a source tree without git
/// (PyPI sdists, tarballs) report `b0-unknown`. Two such builds are not the same build.
pub fn is_versionless_build(build: &str) -> bool {
    let b = build.trim();
    b.is_empty() || b.starts_with("b0-") || b == "unknown" || b.ends_with("-unknown")
}

/// Gathers the identity of the server behind `scraper`; nothing here fails the run: what
/// cannot be read is left out and said in `notes`.
pub async fn identify(scraper: &Scraper, hints: &Hints) -> Identity {
    let base = scraper.base_url().to_string();
    let mut id = Identity {
        engine: hints.engine,
        served_model: hints.served_model.clone(),
        ..Default::default()
    };
    let local = is_local(&base);
    let props_raw = scraper.get_json("/props").await.ok();
    let props = props_raw.as_ref().and_then(|v| Props::from_value(v).ok());
    let models = scraper.models().await.ok();
    let version = scraper.version().await.ok();
    let sample = scraper.scrape_metrics().await.ok().map(|s| s.parsed.sample);
    let slots = scraper.slots().await.ok().flatten();

    // The engine's own process: its argv, when the server runs on this machine.
    let pid = hints.pid.or_else(|| {
        if local {
            port_of(&base).and_then(listening_pid)
        } else {
            None
        }
    });
    let argv = match pid {
        Some(p) => match read_proc_cmdline(p) {
            Ok(v) => {
                id.process = Some(Process {
                    argv: v.clone(),
                    found: if hints.pid.is_some() {
                        "--pid"
                    } else {
                        "the process listening on the URL's port"
                    }
                    .into(),
                    pid: p,
                });
                Some(v)
            }
            Err(e) => {
                id.notes.push(format!("process {p}: {e}"));
                None
            }
        },
        None => None,
    };
    let (config, errors) = EngineConfig::gather(
        hints.engine_args.as_deref(),
        argv.as_deref(),
        sample.as_ref(),
        models.as_ref(),
        props.as_ref(),
        version.as_deref(),
    );
    for e in errors {
        id.notes.push(format!("command line not read: {e}"));
    }
    // Fields that are identity, not settings, are kept apart.
    for (name, value, source) in config.known_fields() {
        match name {
            "model" => {
                id.model_path.get_or_insert(value);
            }
            "served_model_name" | "version" => {}
            _ => {
                id.settings
                    .insert(name.to_string(), Sourced::new(value, source.as_str()));
            }
        }
    }
    for c in &config.conflicts {
        id.notes.push(format!(
            "{}: {} ({}) kept over {} ({})",
            c.field,
            c.kept,
            c.kept_source.as_str(),
            c.other,
            c.other_source.as_str()
        ));
    }
    if let Some(p) = &props {
        match p.build_info.as_deref() {
            Some(b) if is_versionless_build(b) => id.notes.push(format!(
                "the engine reports build_info {b:?}: it was built without a version (a source \
tree without git), so its version is unknown and two such builds cannot be told apart: \
tell them apart with --label"
            )),
            b => id.build = b.map(str::to_string),
        }
        if p.model_path.is_some() {
            id.model_path = p.model_path.clone();
        }
    }
    if let Some(v) = &version {
        id.version = Some(v.clone());
    } else if id.build.is_none() {
        id.version = config
            .version
            .as_ref()
            .map(|k| k.value.clone())
            .filter(|v| !is_versionless_build(v));
    }
    if let Some(raw) = &props_raw {
        props_defaults(raw, &mut id.settings);
    }
    if let Some(n) = slots.as_ref().and_then(|s| s.first()).and_then(|s| s.n_ctx) {
        id.settings.insert(
            "slot.n_ctx".into(),
            Sourced::new(n.to_string(), "slots_endpoint"),
        );
    }
    if let Some(spec) = slots_raw_speculative(scraper).await {
        id.settings.insert(
            "slot.speculative".into(),
            Sourced::new(spec.to_string(), "slots_endpoint"),
        );
    }

    // The model file: hashed only when the server is on this machine (the same path elsewhere
    // may hold another file).
    match (&id.model_path, local) {
        (Some(p), true) => match hash_model(Path::new(p)) {
            Ok(v) => id.model_file = Some(v),
            Err(e) => id.notes.push(format!("model file not hashed: {e}")),
        },
        (Some(_), false) => id
            .notes
            .push("model file not hashed: the server is not on this machine".into()),
        (None, _) => {}
    }

    // The GPU: the caller's name, else what this machine's driver reports for a local server.
    id.gpu = match &hints.gpu {
        Some(g) => Some(g.clone()),
        None if local => nvidia_smi(),
        None => None,
    };
    if id.gpu.is_none() {
        id.notes.push(
            "GPU unknown: pass --gpu (engines do not report it, and no local nvidia-smi answered)"
                .into(),
        );
    }
    id
}

/// llama.cpp `/props` `default_generation_settings.params`: the sampling and generation
/// defaults a request inherits unless it overrides them (what a new build may change under
/// an unchanged command line). Scalars as text, lists joined; objects skipped. The chat
/// template is recorded as a hash.
pub fn props_defaults(raw: &Value, out: &mut BTreeMap<String, Sourced>) {
    if let Some(params) = raw
        .pointer("/default_generation_settings/params")
        .and_then(Value::as_object)
    {
        for (k, v) in params {
            let text = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Array(items) if items.iter().all(|i| i.is_string()) => items
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(","),
                _ => continue,
            };
            out.insert(
                format!("default.{k}"),
                Sourced::new(text, "props_endpoint default_generation_settings"),
            );
        }
    }
    if let Some(t) = raw.get("chat_template").and_then(Value::as_str) {
        out.insert(
            "chat_template_fnv1a64".into(),
            Sourced::new(
                format!("{:016x}", fnv1a64(t.as_bytes(), FNV_OFFSET)),
                "props_endpoint",
            ),
        );
    }
}

/// `/slots` `speculative` of the first slot (the typed SlotInfo does not carry it).
async fn slots_raw_speculative(scraper: &Scraper) -> Option<bool> {
    scraper
        .get_json("/slots")
        .await
        .ok()?
        .get(0)?
        .get("speculative")?
        .as_bool()
}

/// Engine-side totals over a measurement, from /metrics counter deltas (the engine's own
/// clock). Every field is absent where the engine does not expose its counter.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineCounters {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation_tokens: Option<f64>,
    /// Δ generated tokens / Δ generation seconds. The seconds are the engine's per-request
    /// generation times summed (llama.cpp `tokens_predicted_seconds_total`), so requests that
    /// ran at once count their overlap once each: with several streams this is a per-request
    /// rate, not the server's throughput.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation_tps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speculative_acceptance: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speculative_drafts: Option<f64>,
}

impl EngineCounters {
    /// The deltas between two scrapes; empty when either is missing.
    pub fn between(before: Option<&Scrape>, after: Option<&Scrape>) -> EngineCounters {
        let (Some(b), Some(a)) = (before, after) else {
            return EngineCounters::default();
        };
        Self::between_samples(&b.parsed.sample, &a.parsed.sample)
    }

    pub fn between_samples(b: &Sample, a: &Sample) -> EngineCounters {
        let d = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (Some(x), Some(y)) if y >= x => Some(y - x),
            _ => None,
        };
        let rate = |t: Option<f64>, s: Option<f64>| match (t, s) {
            (Some(t), Some(s)) if s > 0.0 => Some(t / s),
            _ => None,
        };
        let prompt = d(b.prompt_tokens, a.prompt_tokens);
        let gen = d(b.generation_tokens, a.generation_tokens);
        // llama.cpp credits a request's tokens and seconds when it ends: a bench reads its
        // totals after its requests ended, and their speed is the credited tokens over the
        // credited seconds.
        let gen = d(b.generation_tokens_credited, a.generation_tokens_credited).or(gen);
        let mut c = EngineCounters {
            prompt_tps: rate(prompt, d(b.prompt_seconds, a.prompt_seconds)),
            generation_tps: rate(gen, d(b.generation_seconds, a.generation_seconds)),
            prompt_tokens: prompt,
            generation_tokens: gen,
            ..Default::default()
        };
        if let Some(x) = d(b.spec_drafts, a.spec_drafts) {
            c.speculative_drafts = Some(x);
            if let (Some(dt), Some(acc)) = (
                d(b.spec_draft_tokens, a.spec_draft_tokens),
                d(b.spec_accepted_tokens, a.spec_accepted_tokens),
            ) {
                if dt > 0.0 {
                    c.speculative_acceptance = Some(acc / dt);
                }
            }
        }
        if c != EngineCounters::default() {
            c.source = Some(
                "GET /metrics counter deltas over the bench (warm-up and prompt sizing included)"
                    .into(),
            );
        }
        c
    }

    pub fn is_empty(&self) -> bool {
        *self == EngineCounters::default()
    }
}

pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, 64 bit, continuing from `h`: an identity hash (not a security one).
pub fn fnv1a64(bytes: &[u8], mut h: u64) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Why a model file could not be hashed.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    #[error("{path} is not a readable GGUF file: {source}")]
    Gguf {
        path: String,
        source: gguf::GgufError,
    },
    #[error("reading {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: ended at byte {at} inside its header")]
    Truncated { path: String, at: u64 },
    #[error("{path} is a directory without config.json and *.safetensors files (a Hugging Face model directory has both)")]
    NotHfDir { path: String },
    #[error("{path}: the safetensors header {reason}")]
    Safetensors { path: String, reason: String },
}

/// Hashes a model path as it is: a directory as a Hugging Face model directory, a file as
/// GGUF.
pub fn hash_model(path: &Path) -> Result<ModelFile, HashError> {
    if path.is_dir() {
        hash_hf_dir(path)
    } else {
        hash_gguf_header(path)
    }
}

/// The most a safetensors header may claim: the format's own reader refuses headers over
/// 100 MB (safetensors `MAX_HEADER_SIZE`).
const SAFETENSORS_MAX_HEADER: u64 = 100_000_000;

/// FNV-1a 64 of a Hugging Face model directory's identity: `config.json` whole (architecture,
/// sizes, dtype), then for each `*.safetensors` file in name order its 8-byte little-endian
/// header length and its JSON header (tensor names, dtypes, shapes and offsets). The tensor
/// data is not read: this is as cheap as a GGUF header hash, whatever the model's size.
pub fn hash_hf_dir(dir: &Path) -> Result<ModelFile, HashError> {
    let shown = dir.display().to_string();
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| HashError::Io { path, source }
    };
    let config = dir.join("config.json");
    let mut shards: Vec<String> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".safetensors"))
        .collect();
    shards.sort();
    if !config.is_file() || shards.is_empty() {
        return Err(HashError::NotHfDir { path: shown });
    }
    let bytes = std::fs::read(&config).map_err(io(&config))?;
    let mut h = fnv1a64(&bytes, FNV_OFFSET);
    let mut hashed_bytes = bytes.len() as u64;
    let mut size = bytes.len() as u64;
    let mut tensors = 0u64;
    let mut hashed = vec!["config.json".to_string()];
    for name in shards {
        let path = dir.join(&name);
        let bad = |reason: String| HashError::Safetensors {
            path: path.display().to_string(),
            reason,
        };
        let mut f = std::fs::File::open(&path).map_err(io(&path))?;
        let file_size = f.metadata().map_err(io(&path))?.len();
        let mut len8 = [0u8; 8];
        f.read_exact(&mut len8)
            .map_err(|_| bad(format!("is missing: the file has {file_size} bytes")))?;
        let len = u64::from_le_bytes(len8);
        if len > SAFETENSORS_MAX_HEADER || 8 + len > file_size {
            return Err(bad(format!(
                "claims {len} bytes, in a file of {file_size} bytes (at most {SAFETENSORS_MAX_HEADER})"
            )));
        }
        let mut header = vec![0u8; len as usize];
        f.read_exact(&mut header).map_err(io(&path))?;
        let parsed: serde_json::Map<String, Value> = serde_json::from_slice(&header)
            .map_err(|e| bad(format!("is not a JSON object: {e}")))?;
        tensors += parsed.keys().filter(|k| *k != "__metadata__").count() as u64;
        h = fnv1a64(&len8, h);
        h = fnv1a64(&header, h);
        hashed_bytes += 8 + len;
        size += file_size;
        hashed.push(name);
    }
    Ok(ModelFile {
        format: ModelFormat::HfSafetensors,
        hashed,
        header_bytes: hashed_bytes,
        header_fnv1a64: format!("{h:016x}"),
        path: shown,
        size_bytes: size,
        tensors,
    })
}

/// FNV-1a 64 of a GGUF file's header (byte 0 up to its tensor data: metadata and tensor infos,
/// so quantization, tokenizer and layout) and the file size. The header length comes from the
/// GGUF reader, which checks every length against the file before trusting it.
pub fn hash_gguf_header(path: &Path) -> Result<ModelFile, HashError> {
    let shown = path.display().to_string();
    let shard = gguf::read_shard(path, &gguf::ReadOptions::default()).map_err(|source| {
        HashError::Gguf {
            path: shown.clone(),
            source,
        }
    })?;
    let io = |source| HashError::Io {
        path: shown.clone(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let mut left = shard.data_offset;
    let mut h = FNV_OFFSET;
    let mut buf = vec![0u8; 1 << 16];
    while left > 0 {
        let want = (left as usize).min(buf.len());
        let n = f.read(&mut buf[..want]).map_err(io)?;
        if n == 0 {
            return Err(HashError::Truncated {
                path: shown,
                at: shard.data_offset - left,
            });
        }
        h = fnv1a64(&buf[..n], h);
        left -= n as u64;
    }
    Ok(ModelFile {
        format: ModelFormat::Gguf,
        hashed: Vec::new(),
        header_bytes: shard.data_offset,
        header_fnv1a64: format!("{h:016x}"),
        path: shown,
        size_bytes: shard.file_size,
        tensors: shard.tensors.len() as u64,
    })
}

/// The 1-minute load average of this machine.
pub fn loadavg() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The load of this machine over a measurement: call [`LoadWatch::start`] before, `finish`
/// after. Only meaningful for a server on this machine.
pub struct LoadWatch(Option<f64>);

impl LoadWatch {
    pub fn start(local: bool) -> Self {
        LoadWatch(if local { loadavg() } else { None })
    }

    pub fn finish(self) -> Option<Host> {
        let (s, e) = (self.0?, loadavg()?);
        Some(Host {
            cpus: std::thread::available_parallelism().map(|n| n.get()).ok(),
            loadavg_1m_end: e,
            loadavg_1m_start: s,
            source: "/proc/loadavg on this machine (the server is local)".into(),
        })
    }
}

/// GPU names and driver from a local nvidia-smi, bounded to 5 s.
pub fn nvidia_smi() -> Option<Sourced> {
    let mut child = std::process::Command::new("nvidia-smi")
        .args(["--query-gpu=name,driver_version", "--format=csv,noheader"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        match child.try_wait() {
            Ok(Some(s)) if s.success() => break,
            Ok(Some(_)) | Err(_) => return None,
            Ok(None) if std::time::Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    parse_nvidia_smi(&out)
}

/// `name, driver` lines → "2 × Tesla P40" with the driver in the source.
fn parse_nvidia_smi(out: &str) -> Option<Sourced> {
    let lines: Vec<&str> = out
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let first = lines.first()?;
    let name = first.split(',').next().unwrap_or(first).trim();
    let driver = first.split(',').nth(1).map(str::trim).unwrap_or("?");
    let name = if lines.len() > 1 {
        format!("{} × {name}", lines.len())
    } else {
        name.to_string()
    };
    Some(Sourced::new(
        name,
        format!("nvidia-smi on this machine (driver {driver})"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fnv_reference_values() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(fnv1a64(b"", FNV_OFFSET), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a", FNV_OFFSET), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar", FNV_OFFSET), 0x8594_4171_f739_67e8);
        // Chunked hashing equals one pass.
        assert_eq!(
            fnv1a64(b"bar", fnv1a64(b"foo", FNV_OFFSET)),
            fnv1a64(b"foobar", FNV_OFFSET)
        );
    }

    #[test]
    fn props_defaults_flatten_scalars_and_lists() {
        let raw = json!({"default_generation_settings": {"params": {
            "temperature": 0.8, "samplers": ["top_k", "min_p"], "speculative.types": "none",
            "lora": [{"id": 0}], "ignore_eos": false}, "n_ctx": 4096},
            "chat_template": "{{ messages }}"});
        let mut m = BTreeMap::new();
        props_defaults(&raw, &mut m);
        assert_eq!(m["default.samplers"].value, "top_k,min_p");
        assert_eq!(m["default.speculative.types"].value, "none");
        assert_eq!(m["default.temperature"].value, "0.8");
        assert_eq!(m["default.ignore_eos"].value, "false");
        assert!(!m.contains_key("default.lora"));
        assert_eq!(m["chat_template_fnv1a64"].value.len(), 16);
    }

    #[test]
    fn versionless_builds() {
        assert!(is_versionless_build("b0-unknown"));
        assert!(is_versionless_build(""));
        assert!(!is_versionless_build("b6500-abc1234"));
        assert!(!is_versionless_build("b11434-0a1b2c3"));
    }

    #[test]
    fn nvidia_smi_lines() {
        let one = parse_nvidia_smi("Tesla P40, 535.104.05\n").unwrap();
        assert_eq!(one.value, "Tesla P40");
        assert!(one.source.contains("535.104.05"));
        let two = parse_nvidia_smi("Tesla P40, 535\nTesla P40, 535\n").unwrap();
        assert_eq!(two.value, "2 × Tesla P40");
        assert!(parse_nvidia_smi("\n").is_none());
    }

    #[test]
    fn counters_are_deltas_with_their_source() {
        let mut b = Sample::empty(0.0, Engine::LlamaCpp);
        let mut a = Sample::empty(1.0, Engine::LlamaCpp);
        assert!(EngineCounters::between_samples(&b, &a).is_empty());
        b.prompt_tokens = Some(100.0);
        a.prompt_tokens = Some(1100.0);
        b.prompt_seconds = Some(1.0);
        a.prompt_seconds = Some(2.0);
        let c = EngineCounters::between_samples(&b, &a);
        assert_eq!(c.prompt_tps, Some(1000.0));
        assert!(c.source.is_some());
        // A counter that went backwards (a restart) gives no delta.
        a.prompt_tokens = Some(50.0);
        assert_eq!(EngineCounters::between_samples(&b, &a).prompt_tps, None);
    }
}
