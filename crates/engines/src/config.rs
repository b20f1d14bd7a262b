//! Engine configuration with provenance: every value knows where it was read, and a value nobody
//! could read stays `None` ("unread"), so a rule that needs it stays silent instead of guessing.
//!
//! Sources, from most to least trusted (the merge order of [`EngineConfig::merge`]):
//! 1. what the running engine reports about itself: vLLM's `cache_config_info` labels
//!    ([`Source::MetricsLabels`]), `/v1/models` ([`Source::ModelsEndpoint`]), llama.cpp's
//!    `/props` ([`Source::PropsEndpoint`]);
//! 2. the live process's own command line, `/proc/<pid>/cmdline` ([`Source::ProcessCmdline`]);
//! 3. the command line the user typed into `--engine-args` ([`Source::EngineArgs`]), which may
//!    not be what is running;
//! 4. an engine default, recorded only when a command line was read and lacked the flag
//!    ([`Source::Default`], with a note on the versions it holds for).
//!
//! When two sources disagree the more trusted one is kept and the disagreement is listed in
//! [`EngineConfig::conflicts`].

use crate::sample::Engine;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    EngineArgs,
    ProcessCmdline,
    MetricsLabels,
    ModelsEndpoint,
    PropsEndpoint,
    Default,
}

impl Source {
    /// Trust rank used by the merge (higher wins).
    fn rank(self) -> u8 {
        match self {
            Source::MetricsLabels | Source::ModelsEndpoint | Source::PropsEndpoint => 3,
            Source::ProcessCmdline => 2,
            Source::EngineArgs => 1,
            Source::Default => 0,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Source::EngineArgs => "engine_args",
            Source::ProcessCmdline => "process_cmdline",
            Source::MetricsLabels => "metrics_labels",
            Source::ModelsEndpoint => "models_endpoint",
            Source::PropsEndpoint => "props_endpoint",
            Source::Default => "default",
        }
    }
}

/// A value and where it was read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Known<T> {
    pub value: T,
    pub source: Source,
    /// A caveat (e.g. the versions an engine default holds for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl<T> Known<T> {
    pub fn new(value: T, source: Source) -> Known<T> {
        Known {
            value,
            source,
            note: None,
        }
    }
    pub fn with_note(mut self, note: &str) -> Known<T> {
        self.note = Some(note.to_string());
        self
    }
}

/// Two sources that gave different values for one field; `kept` won the merge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conflict {
    pub field: String,
    pub kept: String,
    pub kept_source: Source,
    pub other: String,
    pub other_source: Source,
}

/// Serving configuration, each field `None` when unread. Fields are in vLLM's words where the
/// concept is shared; SGLang/TGI flags with the same meaning map onto them (see the flag tables).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineConfig {
    /// The engine the command line launches, when one was read.
    pub engine: Option<Engine>,
    /// Model path or id as given (`vllm serve MODEL`, `-m FILE`, `--model-path`, `/v1/models` id).
    pub model: Option<Known<String>>,
    pub served_model_name: Option<Known<String>>,
    /// Most requests running at once (vLLM --max-num-seqs, SGLang --max-running-requests,
    /// TGI --max-concurrent-requests).
    pub max_num_seqs: Option<Known<u64>>,
    /// Longest request (prompt + output) in tokens (vLLM --max-model-len, SGLang
    /// --context-length, TGI --max-total-tokens, llama.cpp per-slot n_ctx from /props).
    pub max_model_len: Option<Known<u64>>,
    /// Token budget of one scheduler step (vLLM --max-num-batched-tokens, SGLang
    /// --chunked-prefill-size, TGI --max-batch-prefill-tokens).
    pub max_num_batched_tokens: Option<Known<u64>>,
    pub gpu_memory_utilization: Option<Known<f64>>,
    /// SGLang --mem-fraction-static (weights + KV pool share of GPU memory); not the same split
    /// as vLLM's gpu_memory_utilization, so kept apart.
    pub mem_fraction_static: Option<Known<f64>>,
    pub enable_prefix_caching: Option<Known<bool>>,
    pub enable_chunked_prefill: Option<Known<bool>>,
    pub kv_cache_dtype: Option<Known<String>>,
    pub kv_offloading_size: Option<Known<f64>>,
    /// vLLM --kv-cache-memory-bytes: a KV pool fixed in bytes, whatever the memory share.
    pub kv_cache_memory_bytes: Option<Known<u64>>,
    /// SGLang --max-total-tokens: a KV pool fixed in tokens, whatever --mem-fraction-static.
    pub max_total_tokens: Option<Known<u64>>,
    /// SGLang --decode-log-interval: its scheduler gauges (running, queued, token usage) are
    /// refreshed once per this many decode steps, not per scrape.
    pub decode_log_interval: Option<Known<u64>>,
    pub tensor_parallel_size: Option<Known<u64>>,
    pub pipeline_parallel_size: Option<Known<u64>>,
    pub data_parallel_size: Option<Known<u64>>,
    pub block_size: Option<Known<u64>>,
    pub num_gpu_blocks: Option<Known<u64>>,
    pub quantization: Option<Known<String>>,
    pub dtype: Option<Known<String>>,
    /// A speculative-decoding config was given (vLLM --speculative-config, SGLang
    /// --speculative-algorithm, llama.cpp -md / --model-draft).
    pub speculative: Option<Known<bool>>,
    /// llama.cpp -np / --parallel (slots; -1 = auto), or /props total_slots.
    pub n_parallel: Option<Known<i64>>,
    /// llama.cpp -c / --ctx-size: the whole context, shared by all slots (0 = from the model).
    pub n_ctx: Option<Known<u64>>,
    /// Context one slot can hold (/props default_generation_settings.n_ctx): n_ctx / slots
    /// unless the KV buffer is unified.
    pub n_ctx_per_slot: Option<Known<u64>>,
    pub cache_reuse: Option<Known<u64>>,
    pub ubatch: Option<Known<u64>>,
    /// llama.cpp -b / --batch-size (logical batch).
    pub n_batch: Option<Known<u64>>,
    pub threads: Option<Known<i64>>,
    /// llama.cpp -ngl (a number, or `auto` / `all` in newer builds).
    pub n_gpu_layers: Option<Known<String>>,
    pub kv_unified: Option<Known<bool>>,
    pub cont_batching: Option<Known<bool>>,
    /// llama.cpp -fa: `on` / `off` / `auto` (older builds: a bare flag, read as `on`).
    pub flash_attn: Option<Known<String>>,
    /// Engine version (vLLM /version, llama.cpp /props build_info).
    pub version: Option<Known<String>>,
    /// Flags on the command line that no field reads, kept for verbose output.
    #[serde(default)]
    pub unknown_flags: Vec<String>,
    #[serde(default)]
    pub conflicts: Vec<Conflict>,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    #[error("command line: unterminated {quote} quote starting at byte {offset}")]
    UnterminatedQuote { quote: char, offset: usize },
    #[error("command line is empty")]
    Empty,
    #[error(
        "cannot tell which engine this command line launches (expected `vllm serve`, \
         `llama-server`, `sglang.launch_server` or `text-generation-launcher`): {0:?}"
    )]
    UnknownLauncher(String),
    #[error("flag {flag} needs a value")]
    MissingValue { flag: String },
    #[error("flag {flag}: {value:?} is not {expected}")]
    BadValue {
        flag: String,
        value: String,
        expected: &'static str,
    },
    #[error("cannot read {path}: {msg}")]
    Proc { path: String, msg: String },
}

/// Applies `$body` to every `Option<Known<_>>` field name.
macro_rules! for_each_field {
    ($m:ident) => {
        $m!(
            model,
            served_model_name,
            max_num_seqs,
            max_model_len,
            max_num_batched_tokens,
            gpu_memory_utilization,
            mem_fraction_static,
            enable_prefix_caching,
            enable_chunked_prefill,
            kv_cache_dtype,
            kv_offloading_size,
            kv_cache_memory_bytes,
            max_total_tokens,
            decode_log_interval,
            tensor_parallel_size,
            pipeline_parallel_size,
            data_parallel_size,
            block_size,
            num_gpu_blocks,
            quantization,
            dtype,
            speculative,
            n_parallel,
            n_ctx,
            n_ctx_per_slot,
            cache_reuse,
            ubatch,
            n_batch,
            threads,
            n_gpu_layers,
            kv_unified,
            cont_batching,
            flash_attn,
            version
        )
    };
}

fn merge_field<T: Clone + PartialEq + std::fmt::Debug>(
    name: &str,
    mine: &mut Option<Known<T>>,
    theirs: Option<Known<T>>,
    conflicts: &mut Vec<Conflict>,
) {
    let Some(t) = theirs else { return };
    match mine {
        None => *mine = Some(t),
        Some(m) => {
            let theirs_wins = t.source.rank() > m.source.rank();
            if m.value != t.value && m.source != Source::Default && t.source != Source::Default {
                let (kept, other) = if theirs_wins { (&t, &*m) } else { (&*m, &t) };
                conflicts.push(Conflict {
                    field: name.to_string(),
                    kept: format!("{:?}", kept.value),
                    kept_source: kept.source,
                    other: format!("{:?}", other.value),
                    other_source: other.source,
                });
            }
            if theirs_wins {
                *mine = Some(t);
            }
        }
    }
}

impl EngineConfig {
    /// Folds `other` in: per field, the more trusted source wins (see the module docs); on a tie
    /// the value already here stays. Disagreements are recorded in `conflicts`.
    pub fn merge(&mut self, other: EngineConfig) {
        let mut conflicts = std::mem::take(&mut self.conflicts);
        macro_rules! m {
            ($($f:ident),*) => { $( merge_field(stringify!($f), &mut self.$f, other.$f, &mut conflicts); )* };
        }
        for_each_field!(m);
        conflicts.extend(other.conflicts);
        self.conflicts = conflicts;
        if self.engine.is_none() {
            self.engine = other.engine;
        }
        for f in other.unknown_flags {
            if !self.unknown_flags.contains(&f) {
                self.unknown_flags.push(f);
            }
        }
    }

    /// Field names and their provenance, for "config" tables (`name`, value as text, source).
    pub fn known_fields(&self) -> Vec<(&'static str, String, Source)> {
        let mut out = Vec::new();
        macro_rules! m {
            ($($f:ident),*) => { $( if let Some(k) = &self.$f { out.push((stringify!($f), show(&k.value), k.source)); } )* };
        }
        for_each_field!(m);
        out
    }

    /// Reads vLLM's `cache_config_info` labels (a [`Sample::config_labels`](crate::Sample)).
    /// `"None"` values stay unread. `generation` ("v0"/"v1") corrects the prefix-caching default.
    pub fn from_cache_config_labels(labels: &BTreeMap<String, String>) -> EngineConfig {
        let src = Source::MetricsLabels;
        let get = |k: &str| {
            labels
                .get(k)
                .map(|s| s.trim())
                .filter(|s| !s.is_empty() && *s != "None")
        };
        let mut c = EngineConfig {
            engine: (!labels.is_empty()).then_some(Engine::Vllm),
            ..Default::default()
        };
        c.block_size = get("block_size")
            .and_then(|v| v.parse().ok())
            .map(|v| Known::new(v, src));
        c.num_gpu_blocks = get("num_gpu_blocks")
            .and_then(|v| v.parse().ok())
            .map(|v| Known::new(v, src));
        c.gpu_memory_utilization = get("gpu_memory_utilization")
            .and_then(|v| v.parse().ok())
            .map(|v| Known::new(v, src));
        c.enable_prefix_caching = get("enable_prefix_caching")
            .and_then(parse_bool)
            .map(|v| Known::new(v, src));
        c.kv_cache_dtype = get("cache_dtype").map(|v| Known::new(v.to_string(), src));
        if let Some(k) = &mut c.block_size {
            // Hybrid models report the smallest group block size here (vLLM issue #51163).
            k.note = Some(
                "for hybrid (attention + mamba) models this is the smallest group block size"
                    .into(),
            );
        }
        c
    }

    /// Reads `GET /v1/models`: the served model id and its max_model_len (vLLM), or the
    /// per-slot context (llama.cpp `meta.n_ctx`).
    pub fn from_models(models: &crate::scrape::ModelsInfo) -> EngineConfig {
        let src = Source::ModelsEndpoint;
        let mut c = EngineConfig::default();
        if let Some(m) = models.models.first() {
            c.served_model_name = Some(Known::new(m.id.clone(), src));
            c.max_model_len = m.max_model_len.map(|v| Known::new(v, src));
        }
        c
    }

    /// Reads llama.cpp's `GET /props`.
    pub fn from_props(p: &crate::scrape::Props) -> EngineConfig {
        let src = Source::PropsEndpoint;
        EngineConfig {
            engine: Some(Engine::LlamaCpp),
            model: p.model_path.clone().map(|v| Known::new(v, src)),
            served_model_name: p.model_alias.clone().map(|v| Known::new(v, src)),
            n_parallel: p.total_slots.map(|v| Known::new(v, src)),
            n_ctx_per_slot: p.n_ctx_per_slot.map(|v| Known::new(v, src)),
            max_model_len: p
                .n_ctx_per_slot
                .map(|v| Known::new(v, src).with_note("llama.cpp per-slot context")),
            version: p.build_info.clone().map(|v| Known::new(v, src)),
            ..Default::default()
        }
    }

    /// Records the engine version (vLLM `/version`).
    pub fn from_version(version: &str) -> EngineConfig {
        EngineConfig {
            version: Some(Known::new(version.to_string(), Source::ModelsEndpoint)),
            ..Default::default()
        }
    }

    /// Parses a command line as typed (`--engine-args "vllm serve MODEL --max-num-seqs 64"`),
    /// with shell quoting.
    pub fn from_command_line(cmd: &str, source: Source) -> Result<EngineConfig, ConfigError> {
        let argv = shell_split(cmd)?;
        EngineConfig::from_argv(&argv, source)
    }

    /// Parses `/proc/<pid>/cmdline` of a running engine.
    pub fn from_pid(pid: u32) -> Result<EngineConfig, ConfigError> {
        let argv = read_proc_cmdline(pid)?;
        EngineConfig::from_argv(&argv, Source::ProcessCmdline)
    }

    /// Parses an argv (program first). The engine is recognised from the launcher
    /// (`vllm serve`, `python -m vllm.entrypoints.openai.api_server`, `llama-server`,
    /// `python -m sglang.launch_server`, `text-generation-launcher`).
    pub fn from_argv(argv: &[String], source: Source) -> Result<EngineConfig, ConfigError> {
        if argv.is_empty() {
            return Err(ConfigError::Empty);
        }
        let (engine, start) = crate::engine::detect_launcher(argv)
            .ok_or_else(|| ConfigError::UnknownLauncher(argv.join(" ")))?;
        let mut c = EngineConfig {
            engine: Some(engine),
            ..Default::default()
        };
        let args = &argv[start..];
        let mut i = 0;
        while i < args.len() {
            let tok = &args[i];
            i += 1;
            if !tok.starts_with('-') || tok == "-" || is_number(tok) {
                // `vllm serve MODEL`: the first positional is the model.
                if engine.def().model_positional && c.model.is_none() {
                    c.model = Some(Known::new(tok.clone(), source));
                }
                continue;
            }
            let (flag, inline) = match tok.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                _ => (tok.clone(), None),
            };
            let flag = if engine == Engine::LlamaCpp {
                flag
            } else {
                flag.replace('_', "-")
            };
            let spec = flag_spec(engine, &flag);
            let value = match spec {
                Some((_, Kind::Flag(_))) => inline,
                Some((_, Kind::OptValue(accepted))) => match inline {
                    Some(v) => Some(v),
                    None => match args.get(i) {
                        Some(n) if accepted.contains(&n.to_ascii_lowercase().as_str()) => {
                            i += 1;
                            Some(n.clone())
                        }
                        _ => None,
                    },
                },
                _ => match inline {
                    Some(v) => Some(v),
                    None => match args.get(i) {
                        Some(n) if !n.starts_with('-') || is_number(n) => {
                            i += 1;
                            Some(n.clone())
                        }
                        _ => None,
                    },
                },
            };
            let Some((field, kind)) = spec else {
                c.unknown_flags.push(flag);
                continue;
            };
            c.set(field, kind, &flag, value, source)?;
        }
        c.apply_launch_defaults();
        Ok(c)
    }

    fn set(
        &mut self,
        field: Field,
        kind: Kind,
        flag: &str,
        value: Option<String>,
        src: Source,
    ) -> Result<(), ConfigError> {
        let need = |v: Option<String>| {
            v.ok_or_else(|| ConfigError::MissingValue {
                flag: flag.to_string(),
            })
        };
        let bad = |v: &str, expected: &'static str| ConfigError::BadValue {
            flag: flag.to_string(),
            value: v.to_string(),
            expected,
        };
        let u64v = |v: String| {
            v.trim()
                .parse::<u64>()
                .map_err(|_| bad(&v, "a whole number"))
        };
        let i64v = |v: String| {
            v.trim()
                .parse::<i64>()
                .map_err(|_| bad(&v, "a whole number"))
        };
        let f64v = |v: String| {
            v.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| bad(&v, "a number"))
        };
        let boolv = |v: Option<String>, when_bare: bool| match v {
            None => Ok(when_bare),
            Some(s) => parse_bool(&s).ok_or_else(|| bad(&s, "true or false")),
        };
        match field {
            Field::Model => self.model = Some(Known::new(need(value)?, src)),
            Field::ServedModelName => self.served_model_name = Some(Known::new(need(value)?, src)),
            Field::MaxNumSeqs => self.max_num_seqs = Some(Known::new(u64v(need(value)?)?, src)),
            Field::MaxModelLen => {
                self.max_model_len = Some(Known::new(parse_len(flag, need(value)?)?, src))
            }
            Field::MaxNumBatchedTokens => {
                self.max_num_batched_tokens = Some(Known::new(u64v(need(value)?)?, src))
            }
            Field::GpuMemoryUtilization => {
                self.gpu_memory_utilization = Some(Known::new(f64v(need(value)?)?, src))
            }
            Field::MemFractionStatic => {
                self.mem_fraction_static = Some(Known::new(f64v(need(value)?)?, src))
            }
            Field::EnablePrefixCaching => {
                let bare = bare_meaning(kind);
                self.enable_prefix_caching = Some(Known::new(boolv(value, bare)?, src));
            }
            Field::EnableChunkedPrefill => {
                let bare = bare_meaning(kind);
                self.enable_chunked_prefill = Some(Known::new(boolv(value, bare)?, src));
            }
            Field::KvCacheDtype => self.kv_cache_dtype = Some(Known::new(need(value)?, src)),
            Field::KvOffloadingSize => {
                self.kv_offloading_size = Some(Known::new(f64v(need(value)?)?, src))
            }
            Field::KvCacheMemoryBytes => {
                self.kv_cache_memory_bytes = Some(Known::new(parse_len(flag, need(value)?)?, src))
            }
            Field::MaxTotalTokens => {
                self.max_total_tokens = Some(Known::new(u64v(need(value)?)?, src))
            }
            Field::DecodeLogInterval => {
                self.decode_log_interval = Some(Known::new(u64v(need(value)?)?, src))
            }
            Field::TensorParallel => {
                self.tensor_parallel_size = Some(Known::new(u64v(need(value)?)?, src))
            }
            Field::PipelineParallel => {
                self.pipeline_parallel_size = Some(Known::new(u64v(need(value)?)?, src))
            }
            Field::DataParallel => {
                self.data_parallel_size = Some(Known::new(u64v(need(value)?)?, src))
            }
            Field::BlockSize => self.block_size = Some(Known::new(u64v(need(value)?)?, src)),
            Field::NumGpuBlocks => self.num_gpu_blocks = Some(Known::new(u64v(need(value)?)?, src)),
            Field::Quantization => self.quantization = Some(Known::new(need(value)?, src)),
            Field::Dtype => self.dtype = Some(Known::new(need(value)?, src)),
            Field::Speculative => {
                need(value)?;
                self.speculative = Some(Known::new(true, src));
            }
            Field::NParallel => self.n_parallel = Some(Known::new(i64v(need(value)?)?, src)),
            Field::NCtx => self.n_ctx = Some(Known::new(u64v(need(value)?)?, src)),
            Field::CacheReuse => self.cache_reuse = Some(Known::new(u64v(need(value)?)?, src)),
            Field::Ubatch => self.ubatch = Some(Known::new(u64v(need(value)?)?, src)),
            Field::NBatch => self.n_batch = Some(Known::new(u64v(need(value)?)?, src)),
            Field::Threads => self.threads = Some(Known::new(i64v(need(value)?)?, src)),
            Field::NGpuLayers => self.n_gpu_layers = Some(Known::new(need(value)?, src)),
            Field::KvUnified => {
                let bare = bare_meaning(kind);
                self.kv_unified = Some(Known::new(boolv(value, bare)?, src));
            }
            Field::ContBatching => {
                let bare = bare_meaning(kind);
                self.cont_batching = Some(Known::new(boolv(value, bare)?, src));
            }
            Field::FlashAttn => {
                let v = value
                    .unwrap_or_else(|| "on".to_string())
                    .to_ascii_lowercase();
                let v = match v.as_str() {
                    "on" | "true" | "1" | "enabled" => "on",
                    "off" | "false" | "0" | "disabled" => "off",
                    "auto" => "auto",
                    _ => return Err(bad(&v, "on, off or auto")),
                };
                self.flash_attn = Some(Known::new(v.to_string(), src));
            }
            Field::Ignore => {}
        }
        Ok(())
    }

    /// Engine defaults that matter to the rules, recorded only when a command line was read and
    /// did not set the flag (then the default is what runs, within the versions noted).
    fn apply_launch_defaults(&mut self) {
        match self.engine {
            Some(Engine::Vllm) if self.enable_prefix_caching.is_none() => {
                self.enable_prefix_caching = Some(Known::new(true, Source::Default).with_note(
                    "vLLM V1 engine default since 0.8 (on unless --no-enable-prefix-caching); \
                     the V0 engine and vLLM < 0.8 default to off",
                ));
            }
            Some(Engine::Sglang) => {
                if self.enable_prefix_caching.is_none() {
                    self.enable_prefix_caching = Some(
                        Known::new(true, Source::Default)
                            .with_note("SGLang radix cache is on unless --disable-radix-cache"),
                    );
                }
                if self.decode_log_interval.is_none() {
                    self.decode_log_interval = Some(
                        Known::new(SGLANG_DECODE_LOG_INTERVAL, Source::Default)
                            .with_note("SGLang 0.5.x server_args.py default"),
                    );
                }
            }
            _ => {}
        }
    }

    /// Corrects engine-generation-dependent defaults once the metrics tell V0 from V1: a V0
    /// engine defaults prefix caching to off.
    pub fn apply_generation(&mut self, generation: Option<&str>) {
        if generation == Some("v0") {
            if let Some(k) = &self.enable_prefix_caching {
                if k.source == Source::Default {
                    self.enable_prefix_caching = Some(
                        Known::new(false, Source::Default)
                            .with_note("vLLM V0 engine default (off)"),
                    );
                }
            }
        }
    }
}

pub use crate::flags::Knob;
use crate::flags::{Field, Kind};

impl Knob {
    /// The knob an engine's prescribed flag turns (the inverse of [`flag`]), for documents
    /// written before fix steps carried their knob.
    pub fn of_flag(engine: Engine, flag_text: &str) -> Option<Knob> {
        Knob::ALL
            .into_iter()
            .find(|k| flag(engine, *k) == Some(flag_text))
    }
}

/// The flag for a knob in the engine's own words, as a prescription prints it; None where the
/// engine has no such knob. Read from the engine's flag table, the same rows that read its
/// command line.
pub fn flag(engine: Engine, knob: Knob) -> Option<&'static str> {
    engine.def().flags.iter().find_map(|r| {
        r.prescribes
            .filter(|(k, _)| *k == knob)
            .map(|(_, text)| text)
    })
}

/// What a boolean flag means when given without a value.
fn bare_meaning(kind: Kind) -> bool {
    match kind {
        Kind::Flag(b) => b,
        _ => true,
    }
}

fn show<T: std::fmt::Debug>(v: &T) -> String {
    let s = format!("{v:?}");
    s.trim_matches('"').to_string()
}

fn is_number(s: &str) -> bool {
    s.parse::<f64>().is_ok()
}

pub(crate) fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// vLLM reads `--max-model-len` and `--kv-cache-memory-bytes` as human-readable counts
/// (arg_utils.py `human_readable_int`): `32k` = 32 000, `32K` = 32 768, m/M, g/G and t/T
/// likewise (decimal lower case, binary upper case); a plain integer otherwise.
fn parse_len(flag: &str, v: String) -> Result<u64, ConfigError> {
    let t = v.trim();
    let (num, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1e3),
        Some('K') => (&t[..t.len() - 1], 1024.0),
        Some('m') => (&t[..t.len() - 1], 1e6),
        Some('M') => (&t[..t.len() - 1], 1024.0 * 1024.0),
        Some('g') => (&t[..t.len() - 1], 1e9),
        Some('G') => (&t[..t.len() - 1], 1024.0 * 1024.0 * 1024.0),
        Some('t') => (&t[..t.len() - 1], 1e12),
        Some('T') => (&t[..t.len() - 1], 1024.0 * 1024.0 * 1024.0 * 1024.0),
        _ => (t, 1.0),
    };
    num.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 0.0)
        .map(|x| (x * mult).round() as u64)
        .ok_or(ConfigError::BadValue {
            flag: flag.to_string(),
            value: v.clone(),
            expected: "a count (e.g. 32768, 32k or 4G)",
        })
}

/// SGLang's `--decode-log-interval` when not given: 40 decode steps between refreshes of its
/// scheduler gauges (0.5.x `server_args.py`).
pub const SGLANG_DECODE_LOG_INTERVAL: u64 = 40;

fn flag_spec(engine: Engine, flag: &str) -> Option<(Field, Kind)> {
    engine
        .def()
        .flags
        .iter()
        .find(|r| r.names.contains(&flag))
        .map(|r| (r.field, r.kind))
}

/// Splits a command line as a POSIX shell would for words: single quotes literal, double quotes
/// with `\"` `\\` `\$` escapes, backslash outside quotes escapes the next character.
pub fn shell_split(s: &str) -> Result<Vec<String>, ConfigError> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match it.next() {
                        Some((_, '\'')) => break,
                        Some((_, ch)) => cur.push(ch),
                        None => {
                            return Err(ConfigError::UnterminatedQuote {
                                quote: '\'',
                                offset: i,
                            })
                        }
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match it.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match it.next() {
                            Some((_, ch @ ('"' | '\\' | '$' | '`'))) => cur.push(ch),
                            Some((_, '\n')) => {}
                            Some((_, ch)) => {
                                cur.push('\\');
                                cur.push(ch);
                            }
                            None => {
                                return Err(ConfigError::UnterminatedQuote {
                                    quote: '"',
                                    offset: i,
                                })
                            }
                        },
                        Some((_, ch)) => cur.push(ch),
                        None => {
                            return Err(ConfigError::UnterminatedQuote {
                                quote: '"',
                                offset: i,
                            })
                        }
                    }
                }
            }
            '\\' => match it.next() {
                // A line continuation joins lines; it is not a word.
                Some((_, '\n')) => {}
                Some((_, ch)) => {
                    in_word = true;
                    cur.push(ch);
                }
                None => {
                    in_word = true;
                    cur.push('\\');
                }
            },
            _ => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    if out.is_empty() {
        return Err(ConfigError::Empty);
    }
    Ok(out)
}

/// The argv of a running process, from `/proc/<pid>/cmdline` (NUL-separated).
pub fn read_proc_cmdline(pid: u32) -> Result<Vec<String>, ConfigError> {
    let path = format!("/proc/{pid}/cmdline");
    let raw = std::fs::read(&path).map_err(|e| ConfigError::Proc {
        path: path.clone(),
        msg: e.to_string(),
    })?;
    let argv: Vec<String> = raw
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    if argv.is_empty() {
        return Err(ConfigError::Proc {
            path,
            msg: "empty command line (a kernel thread, or the process has exited)".into(),
        });
    }
    Ok(argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(cmd: &str) -> EngineConfig {
        EngineConfig::from_command_line(cmd, Source::EngineArgs)
            .unwrap_or_else(|e| panic!("{cmd}: {e}"))
    }

    /// The config fields a knob moves, on any engine.
    fn fields_of(knob: Knob) -> &'static [Field] {
        use Field::*;
        match knob {
            Knob::MaxNumSeqs => &[MaxNumSeqs, NParallel],
            Knob::MaxModelLen => &[MaxModelLen, NCtx],
            Knob::GpuMemoryUtilization => &[GpuMemoryUtilization, MemFractionStatic],
            Knob::PrefixCaching => &[EnablePrefixCaching, CacheReuse],
            Knob::KvCache8bit => &[KvCacheDtype],
            Knob::MaxNumBatchedTokens => &[MaxNumBatchedTokens, Ubatch],
            // llama.cpp's row split is read but not kept (Ignore).
            Knob::TensorParallelSize => &[TensorParallel, Ignore],
            Knob::KvOffloading => &[KvOffloadingSize],
            Knob::KvBlocksOverride => &[NumGpuBlocks],
            Knob::KvCacheMemoryBytes => &[KvCacheMemoryBytes],
            Knob::KvPoolTokens => &[MaxTotalTokens],
        }
    }

    #[test]
    fn every_prescribed_flag_reads_back_as_the_field_its_knob_moves() {
        for engine in Engine::ALL {
            for knob in Knob::ALL {
                let Some(text) = flag(engine, knob) else {
                    continue;
                };
                let first = text.split_whitespace().next().unwrap();
                let (field, _) = flag_spec(engine, first)
                    .unwrap_or_else(|| panic!("{engine:?} prescribes {text:?}, unread"));
                assert!(
                    fields_of(knob).contains(&field),
                    "{engine:?} {knob:?}: {text:?} reads back as {field:?}"
                );
                assert_eq!(Knob::of_flag(engine, text), Some(knob));
            }
        }
    }

    #[test]
    fn every_flag_a_knob_moves_is_also_prescribed() {
        for engine in Engine::ALL {
            for knob in Knob::ALL {
                let read = engine
                    .def()
                    .flags
                    .iter()
                    .any(|r| r.field != Field::Ignore && fields_of(knob).contains(&r.field));
                // SGLang's radix cache is on unless disabled: no flag turns it on.
                let none_to_write = engine == Engine::Sglang && knob == Knob::PrefixCaching;
                if read && !none_to_write {
                    assert!(
                        flag(engine, knob).is_some(),
                        "{engine:?} reads a flag for {knob:?} but never prescribes one"
                    );
                }
            }
        }
        // The defect that made the tables one: TGI read this flag and never wrote it.
        assert_eq!(
            flag(Engine::Tgi, Knob::GpuMemoryUtilization),
            Some("--cuda-memory-fraction")
        );
    }

    #[test]
    fn vllm_serve_flags_both_spellings() {
        let c = args(
            "vllm serve Qwen/Qwen2.5-7B-Instruct --max-num-seqs 64 --gpu-memory-utilization=0.85 \
             --enable-prefix-caching --max_model_len 32k -tp 2 --kv-cache-dtype fp8 \
             --max-num-batched-tokens=8192 --block-size 32 --quantization awq --dtype bfloat16 \
             --served-model-name qwen --trust-remote-code --some-future-flag 3",
        );
        assert_eq!(c.engine, Some(Engine::Vllm));
        assert_eq!(c.model.as_ref().unwrap().value, "Qwen/Qwen2.5-7B-Instruct");
        assert_eq!(c.max_num_seqs, Some(Known::new(64, Source::EngineArgs)));
        assert_eq!(c.gpu_memory_utilization.as_ref().unwrap().value, 0.85);
        assert_eq!(
            c.enable_prefix_caching,
            Some(Known::new(true, Source::EngineArgs))
        );
        assert_eq!(c.max_model_len.as_ref().unwrap().value, 32000);
        assert_eq!(c.tensor_parallel_size.as_ref().unwrap().value, 2);
        assert_eq!(c.kv_cache_dtype.as_ref().unwrap().value, "fp8");
        assert_eq!(c.max_num_batched_tokens.as_ref().unwrap().value, 8192);
        assert_eq!(c.block_size.as_ref().unwrap().value, 32);
        assert_eq!(c.quantization.as_ref().unwrap().value, "awq");
        assert_eq!(c.dtype.as_ref().unwrap().value, "bfloat16");
        assert_eq!(c.served_model_name.as_ref().unwrap().value, "qwen");
        assert_eq!(c.unknown_flags, vec!["--some-future-flag".to_string()]);
        assert_eq!(
            c.max_model_len.as_ref().map(|k| k.source),
            Some(Source::EngineArgs)
        );
        for (len, want) in [
            ("32768", 32768),
            ("32K", 32768),
            ("1m", 1_000_000),
            ("1M", 1_048_576),
        ] {
            let c = args(&format!("vllm serve m --max-model-len {len}"));
            assert_eq!(c.max_model_len.unwrap().value, want, "{len}");
        }
        // The KV byte budget takes the same human-readable counts, G binary and g decimal.
        for (bytes, want) in [
            ("4G", 4u64 << 30),
            ("4g", 4_000_000_000),
            ("1073741824", 1 << 30),
        ] {
            let c = args(&format!("vllm serve m --kv-cache-memory-bytes {bytes}"));
            assert_eq!(c.kv_cache_memory_bytes.unwrap().value, want, "{bytes}");
        }
    }

    #[test]
    fn vllm_prefix_caching_default_off_flag_and_v0() {
        let c = args("vllm serve m --no-enable-prefix-caching");
        assert_eq!(
            c.enable_prefix_caching,
            Some(Known::new(false, Source::EngineArgs))
        );
        let c = args(
            "python3 -m vllm.entrypoints.openai.api_server --model m --enable-prefix-caching=false",
        );
        assert_eq!(
            c.enable_prefix_caching.as_ref().map(|k| k.value),
            Some(false)
        );
        assert_eq!(c.model.as_ref().unwrap().value, "m");
        // Not given: V1's default, with its version caveat.
        let mut c = args("vllm serve m --max-num-seqs 8");
        let d = c.enable_prefix_caching.clone().unwrap();
        assert_eq!((d.value, d.source), (true, Source::Default));
        assert!(d.note.unwrap().contains("0.8"));
        // Metrics say the engine is V0: its default was off.
        c.apply_generation(Some("v0"));
        assert_eq!(
            c.enable_prefix_caching
                .as_ref()
                .map(|k| (k.value, k.source)),
            Some((false, Source::Default))
        );
        // Unread flags stay unread.
        assert_eq!(c.gpu_memory_utilization, None);
        assert_eq!(c.kv_cache_dtype, None);
    }

    #[test]
    fn llama_server_argv() {
        let c = args(
            "/opt/llama.cpp/build/bin/llama-server -m /models/smol.gguf -np 2 -c 4096 --cache-reuse 256 \
             -ub 512 -b 2048 -t 8 --metrics -fa -ngl 99 --host 127.0.0.1 --port 8080 -kvu",
        );
        assert_eq!(c.engine, Some(Engine::LlamaCpp));
        assert_eq!(c.model.as_ref().unwrap().value, "/models/smol.gguf");
        assert_eq!(c.n_parallel.as_ref().unwrap().value, 2);
        assert_eq!(c.n_ctx.as_ref().unwrap().value, 4096);
        assert_eq!(c.cache_reuse.as_ref().unwrap().value, 256);
        assert_eq!(c.ubatch.as_ref().unwrap().value, 512);
        assert_eq!(c.n_batch.as_ref().unwrap().value, 2048);
        assert_eq!(c.threads.as_ref().unwrap().value, 8);
        assert_eq!(c.flash_attn.as_ref().unwrap().value, "on");
        assert_eq!(c.n_gpu_layers.as_ref().unwrap().value, "99");
        assert!(c.kv_unified.as_ref().unwrap().value);
        assert!(c.unknown_flags.is_empty(), "{:?}", c.unknown_flags);
        assert_eq!(
            c.enable_prefix_caching, None,
            "llama.cpp has no such flag; no default is invented"
        );
        let c = args("llama-server --model=m.gguf --parallel=4 --ctx-size=8192 --ubatch-size 256 -fa off --threads -1");
        assert_eq!(c.n_parallel.unwrap().value, 4);
        assert_eq!(c.n_ctx.unwrap().value, 8192);
        assert_eq!(c.ubatch.unwrap().value, 256);
        assert_eq!(c.flash_attn.unwrap().value, "off");
        assert_eq!(c.threads.unwrap().value, -1);
    }

    #[test]
    fn sglang_and_tgi_argv() {
        let c = args(
            "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --max-running-requests 128 \
             --tp-size 2 --mem-fraction-static 0.8 --disable-radix-cache --context-length 8192 --enable-metrics",
        );
        assert_eq!(c.engine, Some(Engine::Sglang));
        assert_eq!(c.max_num_seqs.unwrap().value, 128);
        assert_eq!(c.tensor_parallel_size.unwrap().value, 2);
        assert_eq!(c.mem_fraction_static.unwrap().value, 0.8);
        assert_eq!(c.gpu_memory_utilization, None);
        assert_eq!(
            c.enable_prefix_caching,
            Some(Known::new(false, Source::EngineArgs))
        );
        assert_eq!(c.max_model_len.unwrap().value, 8192);
        let c = args("python -m sglang.launch_server --model-path m");
        assert_eq!(
            c.enable_prefix_caching.map(|k| (k.value, k.source)),
            Some((true, Source::Default))
        );

        let c = args("text-generation-launcher --model-id m --max-concurrent-requests 64 --max-total-tokens 4096 --num-shard 2 --quantize awq");
        assert_eq!(c.engine, Some(Engine::Tgi));
        assert_eq!(c.max_num_seqs.unwrap().value, 64);
        assert_eq!(c.max_model_len.unwrap().value, 4096);
        assert_eq!(c.tensor_parallel_size.unwrap().value, 2);
        assert_eq!(c.quantization.unwrap().value, "awq");
    }

    #[test]
    fn quoting() {
        let c = args(
            r#"vllm serve "/models/my model" --served-model-name 'a b' --speculative-config '{"model": "x", "num_speculative_tokens": 5}' --max-num-seqs \
 16"#,
        );
        assert_eq!(c.model.unwrap().value, "/models/my model");
        assert_eq!(c.served_model_name.unwrap().value, "a b");
        assert!(c.speculative.unwrap().value);
        assert_eq!(c.max_num_seqs.unwrap().value, 16);
        assert_eq!(
            shell_split(r#"a "b \"c\" \$d" e\ f 'g\h'"#).unwrap(),
            vec!["a", "b \"c\" $d", "e f", "g\\h"]
        );
    }

    #[test]
    fn errors_name_the_flag() {
        let cases: &[(&str, &str)] = &[
            (
                "vllm serve m --max-num-seqs abc",
                "--max-num-seqs: \"abc\" is not a whole number",
            ),
            (
                "vllm serve m --max-num-seqs",
                "flag --max-num-seqs needs a value",
            ),
            (
                "vllm serve m --max-num-seqs --enforce-eager",
                "flag --max-num-seqs needs a value",
            ),
            (
                "vllm serve m --gpu-memory-utilization high",
                "is not a number",
            ),
            (
                "vllm serve m --enable-prefix-caching=maybe",
                "is not true or false",
            ),
            ("llama-server -fa sometimes -m x", "flag -m"),
            ("llama-server -np two", "-np: \"two\""),
            (
                "vllm serve 'm --max-num-seqs 3",
                "unterminated ' quote starting at byte 11",
            ),
            ("python train.py --lr 3", "cannot tell which engine"),
            ("   ", "empty"),
        ];
        for (cmd, want) in cases {
            match EngineConfig::from_command_line(cmd, Source::EngineArgs) {
                Err(e) => assert!(e.to_string().contains(want), "{cmd}: {e}"),
                Ok(c) => {
                    // `-fa sometimes`: not an accepted value, so -fa is bare and "sometimes" is a
                    // stray positional; the case then checks -m is still read.
                    assert!(
                        cmd.contains("-fa sometimes"),
                        "{cmd}: expected an error, got {c:?}"
                    );
                    assert_eq!(c.flash_attn.unwrap().value, "on");
                    assert_eq!(c.model.unwrap().value, "x");
                }
            }
        }
    }

    #[test]
    fn merge_order_and_conflicts() {
        let mut c = args("vllm serve m --max-num-seqs 64 --gpu-memory-utilization 0.8");
        let live = EngineConfig::from_command_line(
            "vllm serve m --max-num-seqs 128",
            Source::ProcessCmdline,
        )
        .unwrap();
        let labels: BTreeMap<String, String> = [
            ("block_size", "16"),
            ("num_gpu_blocks", "81767"),
            ("enable_prefix_caching", "False"),
            ("gpu_memory_utilization", "0.9"),
            ("cache_dtype", "auto"),
            ("num_gpu_blocks_override", "None"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        c.merge(live);
        c.merge(EngineConfig::from_cache_config_labels(&labels));
        assert_eq!(
            c.max_num_seqs,
            Some(Known::new(128, Source::ProcessCmdline))
        );
        assert_eq!(
            c.gpu_memory_utilization,
            Some(Known::new(0.9, Source::MetricsLabels))
        );
        // The engine's own labels beat the default without a conflict (a default is no claim).
        assert_eq!(
            c.enable_prefix_caching,
            Some(Known::new(false, Source::MetricsLabels))
        );
        assert_eq!(
            c.num_gpu_blocks.as_ref().map(|k| (k.value, k.source)),
            Some((81767, Source::MetricsLabels))
        );
        assert_eq!(c.block_size.as_ref().map(|k| k.value), Some(16));
        assert_eq!(
            c.kv_cache_dtype.as_ref().map(|k| k.value.as_str()),
            Some("auto")
        );
        let fields: Vec<(&str, Source, Source)> = c
            .conflicts
            .iter()
            .map(|x| (x.field.as_str(), x.kept_source, x.other_source))
            .collect();
        assert_eq!(
            fields,
            vec![
                ("max_num_seqs", Source::ProcessCmdline, Source::EngineArgs),
                (
                    "gpu_memory_utilization",
                    Source::MetricsLabels,
                    Source::EngineArgs
                ),
            ]
        );
        // A lower-ranked source never overwrites.
        let before = c.max_num_seqs.clone();
        c.merge(args("vllm serve m --max-num-seqs 4"));
        assert_eq!(c.max_num_seqs, before);
        let names: Vec<&str> = c.known_fields().iter().map(|(n, _, _)| *n).collect();
        assert!(names.contains(&"num_gpu_blocks") && names.contains(&"model"));
    }

    /// A command line that starts `e` on model `m`, from its definition alone (so a new engine
    /// needs no line here).
    fn launcher_of(e: Engine) -> String {
        use crate::engine::Launcher;
        let d = e.def();
        let mut words: Vec<String> = match d.launchers[0] {
            Launcher::Program(p) | Launcher::Command(p) => vec![p.into()],
            Launcher::Subcommand(p, sub) => std::iter::once(p)
                .chain(sub.iter().copied())
                .map(String::from)
                .collect(),
            Launcher::Module(m) => vec!["python".into(), "-m".into(), m.into()],
        };
        if !d.model_positional {
            let row = d
                .flags
                .iter()
                .find(|r| r.field == crate::flags::Field::Model);
            words.push(row.expect("a model flag or a positional model").names[0].into());
        }
        words.push("m".into());
        words.join(" ")
    }

    #[test]
    fn every_prescribed_flag_is_read_back_by_the_parser() {
        // The prescription table and the parsing table are one knowledge: a flag headroom
        // prescribes, once applied, must be read back from the command line.
        for e in Engine::ALL {
            let launcher = launcher_of(e);
            for k in Knob::ALL {
                let Some(fl) = flag(e, k) else { continue };
                assert_eq!(Knob::of_flag(e, fl), Some(k));
                // -sm row (llama.cpp split mode) has no config field.
                if fl == "-sm row" {
                    continue;
                }
                let value = match (e, k) {
                    (_, Knob::PrefixCaching) if e != Engine::LlamaCpp => "",
                    (_, Knob::KvCache8bit) => "",
                    (_, Knob::GpuMemoryUtilization) => " 0.9",
                    _ => " 64",
                };
                let c = args(&format!("{launcher} {fl}{value}"));
                assert!(
                    c.unknown_flags.is_empty(),
                    "{e:?} {fl}: not parsed ({:?})",
                    c.unknown_flags
                );
                let read = c
                    .known_fields()
                    .into_iter()
                    .filter(|(_, _, s)| *s == Source::EngineArgs)
                    .count();
                assert!(read >= 1, "{e:?} {fl}: no field read");
            }
        }
    }

    #[test]
    fn proc_cmdline_of_this_process() {
        let argv = read_proc_cmdline(std::process::id()).unwrap();
        assert!(!argv.is_empty());
        assert!(matches!(
            EngineConfig::from_pid(std::process::id()),
            Err(ConfigError::UnknownLauncher(_))
        ));
        match read_proc_cmdline(u32::MAX) {
            Err(ConfigError::Proc { path, .. }) => {
                assert_eq!(path, format!("/proc/{}/cmdline", u32::MAX))
            }
            other => panic!("{other:?}"),
        }
    }
}
