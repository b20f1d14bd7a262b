//! The `headroom.diagnose/1` document: one typed struct, defined once. `judge` fills it, the
//! binary prints it (human form or JSON), the store keeps it, and `remeasure`, `demo` and
//! `history` read it back by deserializing (docs/json/diagnose.md). Unknown fields are refused,
//! so a field the producer adds without documenting it fails the tests that parse real output.
//!
//! The JSON is printed with its keys in sorted order (the order `serde_json::Value` keeps), so
//! the printed form does not depend on the order the fields are declared in.

use crate::arbitrate::{Boundary, Silenced};
use crate::rules::{FixStep, RuleId};
pub use crate::window::TimePoint;
use crate::window::{Dist, GaugeStats, PreemptionsPerRequest};
use engines::Engine;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const SCHEMA: &str = "headroom.diagnose/1";

/// How the window was taken, so a re-measure can take the same shape again.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Shape {
    pub url: Option<String>,
    pub duration_s: f64,
    pub interval_s: f64,
    pub gpu: Option<String>,
    pub model: Option<String>,
    pub gguf: Option<String>,
    pub engine_args: Option<String>,
    pub tp: Option<u32>,
    pub dtype: Option<String>,
    pub quantization: Option<String>,
    pub price_per_hour: Option<f64>,
    pub sub_windows: usize,
}

/// The diagnosis of one window.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// Always [`SCHEMA`].
    pub schema: String,
    pub engine: Engine,
    pub engine_version: Option<String>,
    /// The catalogued model the ceiling used, else the served name.
    pub model: Option<String>,
    pub served_model: Option<String>,
    pub gpu: Option<String>,
    pub shape: Shape,
    pub window: WindowInfo,
    pub scrapes: Scrapes,
    pub ceiling: CeilingInfo,
    pub efficiency: Efficiency,
    pub cost: Cost,
    pub requests: Requests,
    pub latency: Latency,
    pub kv: Kv,
    pub prefix: Prefix,
    pub throughput: Throughput,
    pub traffic: Traffic,
    /// Each config value read, with where it came from.
    pub config: BTreeMap<String, Sourced>,
    pub primary: Option<Fired>,
    pub held: Vec<Fired>,
    pub next: Option<Fired>,
    pub silenced: Vec<Silenced>,
    pub quiet: Vec<Quiet>,
    /// Rules that outrank the primary (or would fire where nothing does) but could not be
    /// judged for a missing fact: what settles each.
    #[serde(default)]
    pub unjudged: Vec<Unjudged>,
    pub fallback: Option<String>,
    pub boundary: Option<Boundary>,
    /// Generation tok/s per sub-window (the spread the re-measure compares).
    pub sub_window_generation_tps: Vec<Option<f64>>,
    /// The history id when the run was saved (filled in when read back from the store).
    #[serde(default)]
    pub saved_run_id: Option<i64>,
    /// The window step by step and sub-window by sub-window, for plots (`headroom report`,
    /// `--html`). Empty in documents saved before it was recorded.
    #[serde(default)]
    pub timeline: Timeline,
    /// The server was headroom's emulator (its /metrics carries the emulator's clock, or its
    /// /version says `"simulated": true`): every figure is simulated, not measured.
    #[serde(default)]
    pub simulated: bool,
    /// The GPU's own telemetry beside the window (`--dcgm`, `--nvidia-smi`) and its findings;
    /// null without it.
    #[serde(default)]
    pub gpu_telemetry: Option<crate::gpu_doc::GpuTelemetry>,
}

/// The window as plotted: one point per scrape step (merged steps past
/// [`crate::window::MAX_TIMELINE_POINTS`]), and the sub-windows the rules were judged over.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Timeline {
    pub points: Vec<TimePoint>,
    pub sub_windows: Vec<SubWindow>,
}

/// One sub-window: its span, its statistics, and the rules that fired on it alone.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SubWindow {
    /// Seconds since the window's first scrape.
    pub start_s: f64,
    pub end_s: f64,
    pub generation_tps: Option<f64>,
    pub prompt_tps: Option<f64>,
    pub preemptions_per_s: Option<f64>,
    pub running: Option<GaugeStats>,
    pub waiting: Option<GaugeStats>,
    pub kv_usage: Option<GaugeStats>,
    /// Rules that fired on this sub-window's statistics, before arbitration.
    pub fired: Vec<RuleId>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WindowInfo {
    /// Unix seconds of the first and last scrape used.
    pub start: Option<f64>,
    pub end: Option<f64>,
    pub duration_s: f64,
    /// Number of sub-windows.
    pub sub_windows: usize,
    /// Counter resets (engine restarts) found in the window.
    pub resets: usize,
    /// Scrapes outside the analysed reset-free run.
    pub cut_by_reset: usize,
    /// Families cut from truncated scrapes, e.g. "vllm:iteration_tokens_total (line 88)".
    pub truncated: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scrapes {
    pub ok: usize,
    pub failed: usize,
    /// The first failure messages (a few).
    pub errors: Vec<String>,
    /// ok ÷ (ok + failed), 0–1: the share of the window's scrapes that answered with an engine's
    /// metrics. Null in documents saved before it was recorded.
    #[serde(default)]
    pub share_ok: Option<f64>,
    /// True when `share_ok` is below [`MIN_SHARE_OK`]: the window is mostly missing, so what
    /// fired is not a verdict (exit code 3).
    #[serde(default)]
    pub incomplete: bool,
    /// The window ended in failed scrapes: when the server stopped answering.
    #[serde(default)]
    pub stopped: Option<Stopped>,
}

/// The share of a window's scrapes that must answer for its findings to be a verdict. Below it
/// the report is marked incomplete: at 4 answers in 13 the sub-windows are judged on a third of
/// the window, and "seen in 100 % of sub-windows" would describe the part that answered only.
pub const MIN_SHARE_OK: f64 = 0.8;

/// A server that stopped answering before the window ended: the window's last scrapes (at
/// least two, so one late answer is not a stop) all failed.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Stopped {
    /// Unix seconds of the first failed scrape of the final run of failures.
    pub at: f64,
    /// Scrapes that answered before it.
    pub after_ok: usize,
    /// Scrapes that failed from then to the window's end.
    pub failed_since: usize,
    /// The error of the first of them.
    pub error: String,
}

impl Scrapes {
    /// Fills `share_ok`, `incomplete` from the counts.
    pub fn judge_coverage(&mut self) {
        let n = self.ok + self.failed;
        self.share_ok = (n > 0).then(|| self.ok as f64 / n as f64);
        self.incomplete = self.share_ok.is_some_and(|s| s < MIN_SHARE_OK);
    }
}

/// The ceiling side of a report. A missing or uncatalogued GPU or model gives
/// `unknown_reason`, never a wrong number.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CeilingInfo {
    /// None when the ceiling is known.
    pub unknown_reason: Option<String>,
    pub gpu: Option<String>,
    /// Where the GPU came from when GPU telemetry was read: `--gpu`, `dcgm` or `nvidia-smi`
    /// (the telemetry named it); null without telemetry.
    #[serde(default)]
    pub gpu_from: Option<String>,
    pub model: Option<String>,
    /// Where the model came from: "--model", "engine" (served name), "model file PATH".
    pub model_from: Option<String>,
    pub decode_tps: Option<f64>,
    pub ridge_batch: Option<f64>,
    pub aggregate_at_ridge_tps: Option<f64>,
    pub prefill_prompts_per_s: Option<f64>,
    pub bits: Option<f64>,
    pub bits_source: Option<String>,
    pub tp: u32,
    pub tp_assumption: Option<String>,
    /// For a llama.cpp server: the share of this decode ceiling llama.cpp's published runs reach
    /// on this class of card (median, range and sample size per backend), to read the measured
    /// efficiency against; null for other engines or a class without published runs.
    #[serde(default)]
    pub published_band: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Efficiency {
    pub efficiency: Option<f64>,
    pub config_relative: Option<f64>,
    pub speculation_suspected: bool,
    pub occupancy: Option<f64>,
    pub occupancy_wall: Option<String>,
    pub soft_field: bool,
    pub seat_target: Option<f64>,
    pub prompt_gen_ratio: Option<f64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Cost {
    pub per_million_output_tokens: Option<f64>,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Requests {
    pub running: Option<GaugeStats>,
    pub waiting: Option<GaugeStats>,
    pub swapped: Option<GaugeStats>,
    pub max_num_seqs: Option<f64>,
    pub queue_ratio: Option<f64>,
    pub finished_per_s: Option<f64>,
    pub finished: Option<f64>,
    /// Preemptions of the requests that finished in the window (vLLM 0.32's per-request
    /// histogram); null where the engine does not export it.
    #[serde(default)]
    pub preemptions_per_request: Option<PreemptionsPerRequest>,
    /// Requests the server refused at admission in the window (vLLM 0.32's queue limits);
    /// null where the engine does not export it.
    #[serde(default)]
    pub admission_rejections: Option<f64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Latency {
    pub ttft_s: Option<Dist>,
    pub tpot_s: Option<Dist>,
    pub e2e_s: Option<Dist>,
    pub queue_s: Option<Dist>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Kv {
    pub usage: Option<GaugeStats>,
    pub capacity_tokens: Option<f64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Prefix {
    pub hit_rate: Option<f64>,
    pub hit_tokens_per_s: Option<f64>,
    /// true, false, or null = unread.
    pub caching: Option<bool>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Throughput {
    pub generation_tokens_per_s: Option<f64>,
    pub prompt_tokens_per_s: Option<f64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Traffic {
    pub mean_prompt_tokens: Option<f64>,
    pub mean_output_tokens: Option<f64>,
}

/// A config value as read: a number, a switch, or a name.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum ConfigValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

impl ConfigValue {
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ConfigValue::Int(i) => Some(*i as f64),
            ConfigValue::Float(f) => Some(*f),
            _ => None,
        }
    }
}

impl std::fmt::Display for ConfigValue {
    /// As JSON writes it (a name in quotes), so listings read the same as the document.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigValue::Bool(b) => write!(f, "{b}"),
            ConfigValue::Int(i) => write!(f, "{i}"),
            ConfigValue::Float(x) => write!(
                f,
                "{}",
                serde_json::Number::from_f64(*x)
                    .map_or_else(|| "null".to_string(), |n| n.to_string())
            ),
            ConfigValue::Text(s) => write!(f, "{s:?}"),
        }
    }
}

/// A config value with where it came from ("engine_args", "metrics_labels", "default (...)").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sourced {
    pub value: ConfigValue,
    pub source: String,
}

/// A rule that fired: the primary, a held rule, or the next one.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Fired {
    pub rule: RuleId,
    pub title: String,
    pub variant: Option<String>,
    pub evidence: Vec<String>,
    pub fix: Vec<FixStep>,
    /// Share of sub-windows in which the rule fired, 0–1.
    pub seen_in: Option<f64>,
}

/// A rule that judged and did not fire, or could not judge (`silent_reason`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Quiet {
    pub rule: RuleId,
    pub silent_reason: Option<String>,
    pub evidence: Vec<String>,
}

pub use crate::rules::Unjudged;

impl Report {
    /// The primary's rule, if any.
    pub fn primary_rule(&self) -> Option<RuleId> {
        self.primary.as_ref().map(|f| f.rule)
    }
}
