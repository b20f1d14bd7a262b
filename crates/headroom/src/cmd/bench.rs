//! `headroom bench`: a short, fixed, reproducible suite against a live server, recorded with
//! everything that identifies what was measured (engine version and build, model file, GPU,
//! the settings and defaults the engine reports), so `headroom regress` can say both *that* a
//! later run is slower and *what changed* in between (spec 003).

use crate::cmd::progress::Bar;
use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Table};
use engines::{EngineConfig, Scraper};
use loadgen::bench_suite::{run_suite, SuiteConfig, SuiteResult};
use loadgen::probe::Progress;
use loadgen::{Client, ClientConfig, TokenCounter};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(ClapArgs, Debug)]
#[command(after_help = "Examples:
  headroom bench --url http://127.0.0.1:8080 --label \"b6500\"
  headroom bench --url http://gpu-box:8000 --gpu tesla-p40 --label \"after upgrade\"
  headroom bench --url http://127.0.0.1:8080 --quick --no-save --json
  headroom regress                 # the latest bench against the one before it

The suite is fixed: temperature 0, seed 0, ignore_eos, prompts of exact token lengths from a
built-in corpus (only a salt at the front differs, so no cache serves them). Per repeat, in
turn: one decode request (decode tok/s and TTFT), one 1-token request per prefill length
(prompt tokens / TTFT), and N streams at once (aggregate decode tok/s). Standard: 5 repeats,
128 generated tokens, prefill at 128/512/2048, 4 streams. --quick: 5 repeats, 24 tokens,
prefill at 96, 2 streams.

Identity is recorded automatically: llama.cpp /props (build_info, model_path, default
generation settings), /slots, vLLM /version, /v1/models, /metrics; for a server on this
machine the process's own command line (flags such as -t, -ub, -fa) and a hash of the GGUF
header of its model file. The run is saved to the history (see `headroom history --bench`).
The JSON document is described in docs/json/bench.md.")]
pub struct Args {
    /// Base URL of the OpenAI-compatible server.
    #[arg(long)]
    pub url: String,
    /// A name for what is measured (an engine version, \"after upgrade\"); regress groups runs
    /// by it.
    #[arg(long)]
    pub label: Option<String>,
    /// The short preset (CPU boxes, tests).
    #[arg(long)]
    pub quick: bool,
    /// Repeats of each measurement (overrides the preset).
    #[arg(long)]
    pub repeats: Option<u32>,
    /// Tokens generated per decode request (overrides the preset).
    #[arg(long)]
    pub gen_tokens: Option<u32>,
    /// Prefill prompt lengths, comma-separated (overrides the preset): 128,512,2048.
    #[arg(long, value_delimiter = ',')]
    pub prefill_lengths: Option<Vec<u64>>,
    /// Streams of the aggregate decode measurement (overrides the preset).
    #[arg(long)]
    pub streams: Option<u32>,
    /// The model name to send (default: the server's first model).
    #[arg(long)]
    pub model: Option<String>,
    /// The GPU, recorded in the identity (a catalog name, or any name).
    #[arg(long)]
    pub gpu: Option<String>,
    /// The engine's command line, for flags the engine does not report:
    /// "llama-server -m m.gguf -ub 512 -fa on".
    #[arg(long)]
    pub engine_args: Option<String>,
    /// Read the engine's flags from this process (/proc/PID/cmdline). Default: found from the
    /// listening port when the URL is on this machine.
    #[arg(long)]
    pub pid: Option<u32>,
    /// Sent as `Authorization: Bearer`.
    #[arg(long)]
    pub api_key: Option<String>,
    /// Do not save the run to the history.
    #[arg(long)]
    pub no_save: bool,
    /// History database (default: $XDG_DATA_HOME/headroom/history.sqlite).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// One JSON document (schema headroom.bench/1) on stdout.
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// List every recorded setting and default in the table.
    #[arg(long, short)]
    pub verbose: bool,
}

pub const SCHEMA: &str = "headroom.bench/1";

pub fn run(a: Args) -> Result<()> {
    let mut suite = if a.quick {
        SuiteConfig::quick()
    } else {
        SuiteConfig::standard()
    };
    let custom = a.repeats.is_some()
        || a.gen_tokens.is_some()
        || a.prefill_lengths.is_some()
        || a.streams.is_some();
    if let Some(r) = a.repeats {
        suite.repeats = r;
    }
    if let Some(g) = a.gen_tokens {
        suite.gen_tokens = g;
    }
    if let Some(p) = &a.prefill_lengths {
        suite.prefill_lengths = p.clone();
    }
    if let Some(s) = a.streams {
        suite.streams = s;
    }
    if custom {
        suite.preset = format!("custom (from {})", suite.preset);
    }
    suite.model = a.model.clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let mut doc = rt.block_on(measure(&a, &suite))?;
    let saved = if a.no_save {
        None
    } else {
        let path = super::diagnose::db_path(&a.db)?;
        let st = store::Store::open(&path)?;
        let id = st.save(
            &store::NewRun {
                kind: "bench",
                created: doc["created"].as_f64().unwrap_or(0.0),
                label: a.label.as_deref(),
                url: doc["url"].as_str(),
                engine: doc.pointer("/identity/engine").and_then(Value::as_str),
                model: doc
                    .pointer("/identity/served_model")
                    .and_then(Value::as_str),
            },
            &doc,
        )?;
        Some(id)
    };
    doc["saved_run_id"] = json!(saved);
    if a.json {
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", render(&doc, a.verbose));
        if let Some(id) = saved {
            println!(
                "\nSaved as bench run {id}{}. Compare with an earlier run: headroom regress",
                a.label
                    .as_deref()
                    .map(|l| format!(" [{l}]"))
                    .unwrap_or_default()
            );
        }
    }
    Ok(())
}

async fn measure(a: &Args, suite: &SuiteConfig) -> Result<Value> {
    let cfg = ClientConfig {
        max_in_flight: suite.streams.max(1) as usize,
        api_key: a.api_key.clone(),
        ..ClientConfig::default()
    };
    let client = Client::new(&a.url, cfg)?;
    let info = loadgen::discover(&client)
        .await
        .with_context(|| format!("asking {} what it serves", client.base_url()))?;
    let bar = Bar::new(
        a.quiet || (a.json && !std::io::stderr().is_terminal()),
        "",
        "steps",
    );
    bar.note(&format!(
        "{}: {} serving {}",
        client.base_url(),
        info.engine
            .map(loadgen::Engine::name)
            .unwrap_or("unknown engine"),
        info.model.as_deref().unwrap_or("(unnamed model)")
    ));
    let scraper = Scraper::new(client.base_url(), Duration::from_secs(10))?;
    let mut ident = identify(a, &client, &scraper, &info).await;
    // Other traffic would share the measurement: say so when the server is not idle.
    let mut env_notes = Vec::new();
    if let Ok(Some(l)) = loadgen::current_load(&client).await {
        if !l.is_idle() {
            env_notes.push(format!(
                "the server was busy when the bench started ({} running, {} waiting, from {}): \
other traffic shares these numbers",
                l.running, l.waiting, l.source
            ));
        }
    }
    let local = is_local(client.base_url());
    let load_start = if local { loadavg() } else { None };
    let before = scraper.scrape_metrics().await.ok();
    let counter = TokenCounter::detect(&client, &info).await?;
    let result = run_suite(&client, &info, &counter, suite, &bar).await;
    bar.finish();
    let mut result = result?;
    result.notes.extend(env_notes);
    let after = scraper.scrape_metrics().await.ok();
    let load_end = if local { loadavg() } else { None };
    ident.host = match (load_start, load_end) {
        (Some(s), Some(e)) => Some(json!({
            "loadavg_1m_start": s,
            "loadavg_1m_end": e,
            "cpus": std::thread::available_parallelism().map(|n| n.get()).ok(),
            "source": "/proc/loadavg on this machine (the server is local)",
        })),
        _ => None,
    };
    let counters = engine_counters(before.as_ref(), after.as_ref());
    if let Some(active) = counters
        .get("speculative_drafts")
        .and_then(Value::as_f64)
        .map(|d| d > 0.0)
    {
        ident.settings.insert(
            "speculative_active".into(),
            (
                active.to_string(),
                "metrics (draft steps during the bench)".into(),
            ),
        );
    }
    Ok(document(a, client.base_url(), &ident, &result, counters))
}

// ---------- identity ----------

/// What identifies a run, gathered from every source there is.
#[derive(Debug, Default)]
struct Identity {
    engine: String,
    version: Option<String>,
    build: Option<String>,
    served_model: Option<String>,
    model_path: Option<String>,
    model_file: Option<Value>,
    gpu: Option<(String, String)>,
    process: Option<Value>,
    /// The machine's load while the bench ran (local servers only).
    host: Option<Value>,
    /// name → (value, source)
    settings: BTreeMap<String, (String, String)>,
    notes: Vec<String>,
}

async fn identify(
    a: &Args,
    client: &Client,
    scraper: &Scraper,
    info: &loadgen::ServerInfo,
) -> Identity {
    let mut id = Identity {
        engine: info
            .engine
            .map(loadgen::Engine::name)
            .unwrap_or("unknown engine")
            .to_string(),
        served_model: info.model.clone(),
        ..Default::default()
    };
    let local = is_local(client.base_url());
    let props_raw = scraper.get_json("/props").await.ok();
    let props = props_raw
        .as_ref()
        .and_then(|v| engines::Props::from_value(v).ok());
    let models = scraper.models().await.ok();
    let version = scraper.version().await.ok();
    let sample = scraper.scrape_metrics().await.ok().map(|s| s.parsed.sample);
    let slots = scraper.slots().await.ok().flatten();

    // The engine's own process: its argv, when the server runs on this machine.
    let pid = a.pid.or_else(|| {
        if local {
            port_of(client.base_url()).and_then(listening_pid)
        } else {
            None
        }
    });
    let argv = match pid {
        Some(p) => match engines::config::read_proc_cmdline(p) {
            Ok(v) => {
                id.process = Some(json!({
                    "pid": p,
                    "argv": v,
                    "found": if a.pid.is_some() { "--pid" } else { "the process listening on the URL's port" },
                }));
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
        a.engine_args.as_deref(),
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
                    .insert(name.to_string(), (value, source.as_str().to_string()));
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
        id.build = p.build_info.clone();
        if p.model_path.is_some() {
            id.model_path = p.model_path.clone();
        }
    }
    if let Some(v) = &version {
        id.version = Some(v.clone());
    } else if id.build.is_none() {
        id.version = config.version.as_ref().map(|k| k.value.clone());
    }
    if let Some(raw) = &props_raw {
        props_defaults(raw, &mut id.settings);
    }
    if let Some(s) = slots.as_ref().and_then(|s| s.first()) {
        if let Some(n) = s.n_ctx {
            id.settings.insert(
                "slot.n_ctx".into(),
                (n.to_string(), "slots_endpoint".into()),
            );
        }
    }
    if let Some(spec) = slots_raw_speculative(scraper).await {
        id.settings.insert(
            "slot.speculative".into(),
            (spec.to_string(), "slots_endpoint".into()),
        );
    }

    // The model file: hashed only when the server is on this machine (the same path elsewhere
    // may hold another file).
    match (&id.model_path, local) {
        (Some(p), true) => match hash_gguf_header(Path::new(p)) {
            Ok(v) => id.model_file = Some(v),
            Err(e) => id.notes.push(format!("model file not hashed: {e}")),
        },
        (Some(_), false) => id
            .notes
            .push("model file not hashed: the server is not on this machine".into()),
        (None, _) => {}
    }

    // The GPU: the flag, else what this machine's driver reports for a local server.
    id.gpu = match &a.gpu {
        Some(g) => Some(
            match physics::Catalog::embedded()
                .ok()
                .and_then(|c| c.gpu(g).ok().map(|f| f.entry.name.clone()))
            {
                Some(name) => (name, "--gpu (catalog)".into()),
                None => (g.clone(), "--gpu (not in the catalog)".into()),
            },
        ),
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
fn props_defaults(raw: &Value, out: &mut BTreeMap<String, (String, String)>) {
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
                (text, "props_endpoint default_generation_settings".into()),
            );
        }
    }
    if let Some(t) = raw.get("chat_template").and_then(Value::as_str) {
        out.insert(
            "chat_template_fnv1a64".into(),
            (
                format!("{:016x}", fnv1a64(t.as_bytes(), FNV_OFFSET)),
                "props_endpoint".into(),
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

/// Engine-side rates over the bench, from /metrics counter deltas (the engine's own clock).
fn engine_counters(before: Option<&engines::Scrape>, after: Option<&engines::Scrape>) -> Value {
    let (Some(b), Some(a)) = (before, after) else {
        return json!({});
    };
    let (b, a) = (&b.parsed.sample, &a.parsed.sample);
    let d = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) if y >= x => Some(y - x),
        _ => None,
    };
    let mut m = Map::new();
    let rate = |t: Option<f64>, s: Option<f64>| match (t, s) {
        (Some(t), Some(s)) if s > 0.0 => Some(t / s),
        _ => None,
    };
    let prompt = d(b.prompt_tokens, a.prompt_tokens);
    let prompt_s = d(b.prompt_seconds, a.prompt_seconds);
    let gen = d(b.generation_tokens, a.generation_tokens);
    let gen_s = d(b.generation_seconds, a.generation_seconds);
    if let Some(r) = rate(prompt, prompt_s) {
        m.insert("prompt_tps".into(), json!(r));
    }
    if let Some(r) = rate(gen, gen_s) {
        m.insert("generation_tps".into(), json!(r));
    }
    if let Some(t) = prompt {
        m.insert("prompt_tokens".into(), json!(t));
    }
    if let Some(t) = gen {
        m.insert("generation_tokens".into(), json!(t));
    }
    if let Some(x) = d(b.spec_drafts, a.spec_drafts) {
        m.insert("speculative_drafts".into(), json!(x));
        if let (Some(dt), Some(acc)) = (
            d(b.spec_draft_tokens, a.spec_draft_tokens),
            d(b.spec_accepted_tokens, a.spec_accepted_tokens),
        ) {
            if dt > 0.0 {
                m.insert("speculative_acceptance".into(), json!(acc / dt));
            }
        }
    }
    if !m.is_empty() {
        m.insert(
            "source".into(),
            json!(
                "GET /metrics counter deltas over the bench (warm-up and prompt sizing included)"
            ),
        );
    }
    Value::Object(m)
}

fn is_local(base: &str) -> bool {
    reqwest_host(base).is_some_and(|h| {
        matches!(
            h.as_str(),
            "localhost" | "127.0.0.1" | "::1" | "[::1]" | "0.0.0.0"
        ) || h.starts_with("127.")
    })
}

fn reqwest_host(base: &str) -> Option<String> {
    let rest = base.split_once("://")?.1;
    let hostport = rest.split('/').next()?;
    if let Some(v6) = hostport.strip_prefix('[') {
        return Some(format!("[{}]", v6.split(']').next()?));
    }
    Some(hostport.split(':').next()?.to_ascii_lowercase())
}

fn port_of(base: &str) -> Option<u16> {
    let rest = base.split_once("://")?.1;
    let hostport = rest.split('/').next()?;
    match hostport.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || hostport.starts_with('[') => p.parse().ok(),
        _ => Some(if base.starts_with("https") { 443 } else { 80 }),
    }
}

/// The process listening on this TCP port (Linux: the socket inode from /proc/net/tcp{,6},
/// then the process holding it among those whose fds this user may read).
fn listening_pid(port: u16) -> Option<u32> {
    let mut inodes = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        inodes.extend(listening_inodes(&text, port));
    }
    if inodes.is_empty() {
        return None;
    }
    let wanted: Vec<String> = inodes.iter().map(|i| format!("socket:[{i}]")).collect();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(target) = std::fs::read_link(fd.path()) {
                if wanted.iter().any(|w| target.as_os_str() == w.as_str()) {
                    return Some(pid);
                }
            }
        }
    }
    None
}

/// Socket inodes in LISTEN state (st 0A) on `port` in a /proc/net/tcp table.
fn listening_inodes(table: &str, port: u16) -> Vec<u64> {
    table
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let local = f.get(1)?;
            let p = u16::from_str_radix(local.rsplit_once(':')?.1, 16).ok()?;
            (p == port && *f.get(3)? == "0A")
                .then(|| f.get(9)?.parse().ok())
                .flatten()
        })
        .collect()
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, 64 bit, continuing from `h`: an identity hash (not a security one).
fn fnv1a64(bytes: &[u8], mut h: u64) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// FNV-1a 64 of a GGUF file's header (byte 0 up to its tensor data: metadata and tensor infos,
/// so quantization, tokenizer and layout) and the file size. The header length comes from the
/// GGUF reader, which checks every length against the file before trusting it.
fn hash_gguf_header(path: &Path) -> Result<Value> {
    let shard = gguf::read_shard(path, &gguf::ReadOptions::default())
        .with_context(|| format!("{} is not a readable GGUF file", path.display()))?;
    let mut f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut left = shard.data_offset;
    let mut h = FNV_OFFSET;
    let mut buf = vec![0u8; 1 << 16];
    while left > 0 {
        let want = (left as usize).min(buf.len());
        let n = f
            .read(&mut buf[..want])
            .with_context(|| format!("reading {}", path.display()))?;
        if n == 0 {
            bail!(
                "{}: ended at byte {} inside its header",
                path.display(),
                shard.data_offset - left
            );
        }
        h = fnv1a64(&buf[..n], h);
        left -= n as u64;
    }
    Ok(json!({
        "path": path.display().to_string(),
        "size_bytes": shard.file_size,
        "header_bytes": shard.data_offset,
        "header_fnv1a64": format!("{h:016x}"),
        "tensors": shard.tensors.len(),
    }))
}

/// The 1-minute load average of this machine.
fn loadavg() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// GPU names and driver from a local nvidia-smi, bounded to 5 s.
fn nvidia_smi() -> Option<(String, String)> {
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
    let lines: Vec<&str> = out
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.is_empty() {
        return None;
    }
    let names: Vec<&str> = lines
        .iter()
        .map(|l| l.split(',').next().unwrap_or(l).trim())
        .collect();
    let driver = lines[0].split(',').nth(1).map(str::trim).unwrap_or("?");
    let mut name = names[0].to_string();
    if names.len() > 1 {
        name = format!("{} × {name}", names.len());
    }
    Some((
        name,
        format!("nvidia-smi on this machine (driver {driver})"),
    ))
}

// ---------- the document ----------

fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

fn stats(samples: &[f64]) -> (Option<f64>, Option<f64>, Option<f64>) {
    let med = ::regress::median(samples);
    let min = samples.iter().copied().reduce(f64::min);
    let max = samples.iter().copied().reduce(f64::max);
    (med, min, max)
}

fn document(a: &Args, url: &str, id: &Identity, r: &SuiteResult, counters: Value) -> Value {
    let metrics: Vec<Value> = r
        .metrics
        .iter()
        .map(|m| {
            let (med, min, max) = stats(&m.samples);
            let spread = match (med, min, max) {
                (Some(md), Some(lo), Some(hi)) if md > 0.0 => Some((hi - lo) / md * 100.0),
                _ => None,
            };
            json!({
                "name": m.name, "label": m.label, "unit": m.unit, "better": m.better,
                "n": m.samples.len(), "median": med, "min": min, "max": max,
                "spread_pct": spread, "samples": m.samples,
            })
        })
        .collect();
    let settings: Map<String, Value> = id
        .settings
        .iter()
        .map(|(k, (v, s))| (k.clone(), json!({"value": v, "source": s})))
        .collect();
    let identity = json!({
        "engine": id.engine,
        "version": id.version,
        "build": id.build,
        "served_model": id.served_model,
        "model_path": id.model_path,
        "model_file": id.model_file,
        "gpu": id.gpu.as_ref().map(|(v, s)| json!({"value": v, "source": s})),
        "process": id.process,
        "host": id.host,
        "settings": settings,
        "notes": id.notes,
    });
    let mut doc = json!({
        "schema": SCHEMA,
        "created": now(),
        "label": a.label,
        "url": url,
        "suite": r.suite,
        "identity": identity,
        "metrics": metrics,
        "engine_counters": counters,
        "prompt_count": r.prompt_count,
        "all_exact": r.all_exact,
        "notes": r.notes,
        "wall_s": r.wall_s,
    });
    doc["summary"] = json!(summary(&doc));
    doc
}

/// One line for `headroom history --bench`: the headline medians and the build.
pub fn summary(doc: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(ms) = doc["metrics"].as_array() {
        for m in ms {
            let (Some(name), Some(med)) = (m["name"].as_str(), m["median"].as_f64()) else {
                continue;
            };
            let short = if name == "decode_tps" {
                "decode".to_string()
            } else if name == "ttft_ms" {
                "TTFT".to_string()
            } else if let Some(l) = name.strip_prefix("prefill_tps_p") {
                format!("prefill@{l}")
            } else if let Some(n) = name.strip_prefix("aggregate_decode_tps_n") {
                format!("{n}-stream")
            } else {
                name.to_string()
            };
            parts.push(format!(
                "{short} {} {}",
                physics::provenance::sig(med, 3),
                m["unit"].as_str().unwrap_or("")
            ));
        }
    }
    let who = doc
        .pointer("/identity/build")
        .and_then(Value::as_str)
        .map(|b| format!("build {b}"))
        .or_else(|| {
            doc.pointer("/identity/version")
                .and_then(Value::as_str)
                .map(|v| format!("version {v}"))
        });
    if let Some(w) = who {
        parts.push(w);
    }
    parts.join(" · ")
}

fn render(doc: &Value, verbose: bool) -> String {
    let mut out = String::new();
    let s = &doc["suite"];
    let id = &doc["identity"];
    let txt = |v: &Value| v.as_str().unwrap_or("-").to_string();
    out.push_str(&format!(
        "headroom bench · {} · {} suite v{} ({} repeats, {} generated tokens, {} streams)\n",
        txt(&doc["url"]),
        txt(&s["preset"]),
        s["version"],
        s["repeats"],
        s["gen_tokens"],
        s["streams"]
    ));
    let who = match (id["build"].as_str(), id["version"].as_str()) {
        (Some(b), _) => format!("build {b}"),
        (None, Some(v)) => format!("version {v}"),
        _ => "version unknown".into(),
    };
    out.push_str(&format!("Engine    {} {who}\n", txt(&id["engine"])));
    out.push_str(&format!("Model     {}", txt(&id["served_model"])));
    if let Some(h) = id
        .pointer("/model_file/header_fnv1a64")
        .and_then(Value::as_str)
    {
        out.push_str(&format!(
            " · GGUF header fnv1a64 {h}, {} bytes",
            id["model_file"]["size_bytes"]
        ));
    }
    out.push('\n');
    out.push_str(&format!(
        "GPU       {}\n",
        id["gpu"]["value"]
            .as_str()
            .map(|g| format!("{g} ({})", txt(&id["gpu"]["source"])))
            .unwrap_or_else(|| "unknown (pass --gpu)".into())
    ));
    if let Some(argv) = id.pointer("/process/argv").and_then(Value::as_array) {
        let line: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
        out.push_str(&format!(
            "Process   pid {} · {}\n",
            id["process"]["pid"],
            line.join(" ")
        ));
    }
    if let (Some(a), Some(b)) = (
        id["host"]["loadavg_1m_start"].as_f64(),
        id["host"]["loadavg_1m_end"].as_f64(),
    ) {
        out.push_str(&format!(
            "Host      load average (1 min) {a:.1} → {b:.1} on {} CPUs during the bench\n",
            id["host"]["cpus"]
        ));
    }
    if let Some(set) = id["settings"].as_object() {
        let (main, defaults): (Vec<_>, Vec<_>) = set
            .iter()
            .partition(|(k, _)| !k.starts_with("default.") && !k.starts_with("chat_template"));
        let show: Vec<String> = main
            .iter()
            .map(|(k, v)| format!("{k} {}", txt(&v["value"])))
            .collect();
        if !show.is_empty() {
            out.push_str(&format!("Settings  {}\n", show.join(" · ")));
        }
        if verbose {
            for (k, v) in &defaults {
                out.push_str(&format!(
                    "          {k} = {} ({})\n",
                    txt(&v["value"]),
                    txt(&v["source"])
                ));
            }
        } else if !defaults.is_empty() {
            out.push_str(&format!(
                "          + {} engine defaults recorded (-v lists them)\n",
                defaults.len()
            ));
        }
    }
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header(vec!["metric", "median", "min – max", "spread", "n"]);
    if let Some(ms) = doc["metrics"].as_array() {
        for m in ms {
            let unit = txt(&m["unit"]);
            let f = |v: &Value| {
                v.as_f64()
                    .map(|x| physics::provenance::sig(x, 3))
                    .unwrap_or_else(|| "-".into())
            };
            t.add_row(vec![
                Cell::new(txt(&m["label"])),
                Cell::new(format!("{} {unit}", f(&m["median"])))
                    .set_alignment(CellAlignment::Right),
                Cell::new(format!("{} – {}", f(&m["min"]), f(&m["max"])))
                    .set_alignment(CellAlignment::Right),
                Cell::new(
                    m["spread_pct"]
                        .as_f64()
                        .map(|p| format!("{p:.0} %"))
                        .unwrap_or_else(|| "-".into()),
                )
                .set_alignment(CellAlignment::Right),
                Cell::new(m["n"].to_string()).set_alignment(CellAlignment::Right),
            ]);
        }
    }
    out.push_str(&format!("{t}\n"));
    if let Some(c) = doc["engine_counters"].as_object().filter(|c| !c.is_empty()) {
        let mut parts = Vec::new();
        if let Some(p) = c.get("prompt_tps").and_then(Value::as_f64) {
            parts.push(format!("prompt {} tok/s", physics::provenance::sig(p, 3)));
        }
        if let Some(g) = c.get("generation_tps").and_then(Value::as_f64) {
            parts.push(format!(
                "generation {} tok/s",
                physics::provenance::sig(g, 3)
            ));
        }
        if let Some(x) = c.get("speculative_acceptance").and_then(Value::as_f64) {
            parts.push(format!("speculative acceptance {:.0} %", x * 100.0));
        }
        if !parts.is_empty() {
            out.push_str(&format!(
                "Engine's own counters over the bench: {}\n",
                parts.join(" · ")
            ));
        }
    }
    let notes: Vec<&str> = doc["notes"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(id["notes"].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .collect();
    for n in notes {
        out.push_str(&format!("note: {n}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_net_tcp_listeners() {
        // Real /proc/net/tcp lines: 127.0.0.1:8080 listening (inode 4242), an established
        // connection on the same port (not a listener), 0.0.0.0:22 listening.
        let t = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 5151 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 77 1 0000000000000000 100 0 0 10 0
";
        assert_eq!(listening_inodes(t, 8080), vec![4242]);
        assert_eq!(listening_inodes(t, 22), vec![77]);
        assert!(listening_inodes(t, 9).is_empty());
        assert!(listening_inodes("garbage\nmore garbage", 80).is_empty());
    }

    #[test]
    fn urls_and_locality() {
        assert!(is_local("http://127.0.0.1:8080"));
        assert!(is_local("http://localhost:8080/v1"));
        assert!(is_local("http://[::1]:8080"));
        assert!(!is_local("http://gpu-box:8000"));
        assert_eq!(port_of("http://127.0.0.1:8080"), Some(8080));
        assert_eq!(port_of("http://[::1]:9000/x"), Some(9000));
        assert_eq!(port_of("https://host"), Some(443));
        assert_eq!(port_of("http://host/x"), Some(80));
    }

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
        assert_eq!(m["default.samplers"].0, "top_k,min_p");
        assert_eq!(m["default.speculative.types"].0, "none");
        assert_eq!(m["default.temperature"].0, "0.8");
        assert_eq!(m["default.ignore_eos"].0, "false");
        assert!(!m.contains_key("default.lora"));
        assert_eq!(m["chat_template_fnv1a64"].0.len(), 16);
    }

    #[test]
    fn summary_line() {
        let doc = json!({"metrics": [
            {"name": "decode_tps", "median": 36.04, "unit": "tok/s"},
            {"name": "ttft_ms", "median": 81.2, "unit": "ms"},
            {"name": "prefill_tps_p512", "median": 1234.0, "unit": "tok/s"},
            {"name": "aggregate_decode_tps_n4", "median": 90.0, "unit": "tok/s"},
            {"name": "x", "median": null}],
            "identity": {"build": "b6500-abc"}});
        assert_eq!(
            summary(&doc),
            "decode 36 tok/s · TTFT 81.2 ms · prefill@512 1230 tok/s · 4-stream 90 tok/s · build b6500-abc"
        );
    }
}
