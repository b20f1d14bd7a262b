//! The step-shape census: on a chunked-prefill engine the unit of interference is
//! the step. From a Prometheus store's series (`census --prometheus`) or one endpoint's
//! cumulative counters (`census --url`): the step ledger (mean decode-only step against mean
//! chunk step), decode bucketed by prefill, TTFT bucketed by the same prefill, the correlation
//! at lag 0 and at 2–14 minutes, and the verdict. The four traps of §9 are handled here:
//! latency and cadence under different prefixes, the 1 s decayed tps gauges, restarts and
//! build changes inside the window, and the mean step that dilutes the chunk.

pub mod analysis;
pub mod ledger;
pub mod names;
pub mod prom;
pub mod series;
pub mod url;

use analysis::{Bucket, Lags, Verdict};
use engines::Engine;
use ledger::Ledger;
use serde::{Deserialize, Serialize};
use series::Segment;

pub const SCHEMA: &str = "headroom.census/1";

/// The name `engine` exposes a concept under, from its definition (for messages).
pub(crate) fn exposed(engine: Engine, field: &str) -> String {
    engine
        .def()
        .exposed(field)
        .unwrap_or_else(|| field.to_string())
}

#[derive(Debug, thiserror::Error)]
pub enum CensusError {
    #[error(transparent)]
    Prometheus(#[from] promapi::PromError),
    #[error(transparent)]
    Selector(#[from] promapi::SelectorError),
    #[error("no engine series under {selector} between {start} and {end} (looked for each engine's token counters, e.g. {}, {}, and the cadence families *:engine_steps_total, *:decode_tokens_per_second ...); check --selector, --at, --since and that the store scrapes the server", exposed(Engine::Vllm, "generation_tokens"), exposed(Engine::LlamaCpp, "generation_tokens_credited"))]
    NoSeries {
        selector: String,
        start: f64,
        end: f64,
    },
    #[error("{selector} matches {} engines ({}); the census reads one engine's steps: pick one, e.g. --selector '{{instance=\"{}\"}}'", .instances.len(), .instances.join(", "), .instances[0])]
    ManyEngines {
        selector: String,
        instances: Vec<String>,
    },
    #[error("--step {step_s} s: rates come from the tps gauges ({gauge}), which are 1 s decayed, batch-pooled windows; a step above 30 s samples a sliver of it (one scrape in eight at a 15 s scrape and a 120 s step). Use --step 30s or less, or a store that has the engine's token counters")]
    GaugeStep { step_s: f64, gauge: String },
    #[error("--rates counters: {why} under {selector}")]
    NoCounters { selector: String, why: String },
    #[error("--rates gauges: no *:decode_tokens_per_second / *:prefill_tokens_per_second under {selector}")]
    NoGauges { selector: String },
    #[error("--since {since_s} s at --step {step_s} s is {points} points per series; Prometheus answers at most 11000: raise --step or shorten --since")]
    Points {
        since_s: f64,
        step_s: f64,
        points: usize,
    },
    #[error("--since {since_s} s / --step {step_s} s: both must be positive, and --since at least 2 steps")]
    Window { since_s: f64, step_s: f64 },
    #[error("the window is not one shape, and its latest piece ({start}–{end}, {points} steps) is too short to census ({min} steps needed): {why}. Census the piece before it with --at, or wait for more of the new one")]
    ShapeTooShort {
        start: f64,
        end: f64,
        points: usize,
        min: usize,
        why: String,
    },
    #[error(transparent)]
    Scrape(#[from] engines::scrape::ScrapeError),
    #[error("{url}: {msg}")]
    Exposition { url: String, msg: String },
}

/// Where the rates come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RatesFrom {
    /// increase() of the engine's token counters per step: exact step means.
    #[serde(rename = "counters")]
    Counters,
    /// The engine's tps gauges, averaged over each step's scrapes.
    #[serde(rename = "gauges")]
    Gauges,
}

/// The `headroom.census/1` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CensusDoc {
    pub schema: String,
    /// The engine whose series were read (by their prefix); absent when none was (a store with
    /// only cadence series, e.g. `radiance:`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<engines::Engine>,
    pub source: Source,
    /// The window read (Prometheus mode).
    pub window: Option<Window>,
    pub prefixes: Prefixes,
    pub rates_from: Option<RatesFrom>,
    /// The window's pieces of one shape each; only the `censused` one is read below.
    pub segments: Vec<Segment>,
    /// The step ledger over the censused piece (or since boot, in --url mode).
    pub ledger: Option<Ledger>,
    /// Decode, TTFT and the ledger bucketed by prefill rate.
    pub buckets: Vec<Bucket>,
    pub lags: Option<Lags>,
    pub verdict: Option<Verdict>,
    /// Totals over the censused piece (or since boot).
    pub totals: Totals,
    /// What could not be computed, each with why.
    pub unavailable: Vec<String>,
    /// The traps met and how they were handled.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// `prometheus` or `url`.
    pub kind: String,
    pub url: String,
    pub selector: Option<String>,
    /// The engine's `instance` label.
    pub instance: Option<String>,
    /// Queries sent to the store.
    pub queries: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Window {
    pub start: f64,
    pub end: f64,
    pub step_s: f64,
    /// Steps in the censused piece.
    pub points: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prefixes {
    /// The engine's prefix, where its token counters, running gauge, preemption counter and
    /// latency histograms were found (`vllm:`, `llamacpp:`).
    pub latency: Option<String>,
    /// Where the step ledger and tps gauges were found (`radiance:`, or `vllm:` on the emulator).
    pub cadence: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Totals {
    pub generation_tokens: Option<f64>,
    pub prompt_tokens: Option<f64>,
    /// The engine's preemption counter (vLLM `num_preemptions_total`; never the instant depth
    /// gauge).
    pub preemptions: Option<f64>,
    /// Engine steps from `vllm:iteration_tokens_total`'s count.
    pub iteration_steps: Option<f64>,
    /// Its sum over its count.
    pub tokens_per_step: Option<f64>,
    /// llama.cpp's llama_decode calls (`llamacpp:n_decode_total`): its step count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_calls: Option<f64>,
    /// (prompt + generated tokens) / decode calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_per_decode_call: Option<f64>,
    /// Seconds the totals cover (the piece, or since the counters were created).
    pub seconds: Option<f64>,
}
