//! The typed sample every engine adapter produces. Rules read these fields, never metric names.
//! Counters and histograms are cumulative as scraped; rates are taken over a window downstream.
//! A metric the engine does not export is `None`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The serving engine: the one type every crate and document uses. Spelled in documents as
/// `vllm`, `llama.cpp`, `sglang`, `tgi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    Vllm,
    #[serde(rename = "llama.cpp")]
    LlamaCpp,
    Sglang,
    Tgi,
    Lmdeploy,
}

impl Engine {
    /// Every engine headroom reads, in detection order. Every list of engines (the metric
    /// prefixes, the census's and fleet's names, `/v1/models` recognition) is drawn from this
    /// one and from each engine's definition (`engine/<name>.rs`).
    pub const ALL: [Engine; 5] = [
        Engine::Vllm,
        Engine::LlamaCpp,
        Engine::Sglang,
        Engine::Tgi,
        Engine::Lmdeploy,
    ];
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A cumulative histogram: `buckets` are (upper bound `le`, cumulative count), ascending, the
/// last one `+Inf` when the scrape had it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    pub buckets: Vec<(f64, f64)>,
    pub sum: f64,
    pub count: f64,
}

/// One scrape of one server, engine names already mapped to concepts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Unix seconds when the scrape completed.
    pub t: f64,
    pub engine: Engine,
    /// "v1" or "v0" for vLLM (by which names it exports); None elsewhere.
    pub engine_generation: Option<String>,
    /// Served model name from the labels (`model_name`), where present.
    pub model: Option<String>,
    /// The exposition came from headroom's emulator (it carries [`crate::EMULATOR_CLOCK`]):
    /// the figures are simulated.
    #[serde(default)]
    pub simulated: bool,

    // Gauges.
    pub running: Option<f64>,
    pub waiting: Option<f64>,
    /// vLLM V0 swapped requests.
    pub swapped: Option<f64>,
    /// KV cache usage, a 0–1 fraction on every engine.
    pub kv_usage: Option<f64>,
    /// Prefix-cache hit rate where the engine only exports a gauge (vLLM V0, SGLang), 0–1.
    pub prefix_hit_rate_gauge: Option<f64>,
    /// KV pool capacity in tokens, where exported (SGLang max_total_num_tokens, TGI budget).
    pub kv_capacity_tokens: Option<f64>,
    /// Waiting requests held for scheduling capacity (KV blocks or batch seats), as opposed to
    /// deferred by transient constraints (vLLM num_requests_waiting_by_reason{reason="capacity"}).
    #[serde(default)]
    pub waiting_for_capacity: Option<f64>,

    // Counters (cumulative).
    pub prompt_tokens: Option<f64>,
    /// Generated tokens, counted as they are generated. On llama.cpp this is busy slot-steps
    /// (`n_decode_total` × `n_busy_slots_per_decode`, see the adapter), since its own token
    /// counter only moves when a request ends.
    pub generation_tokens: Option<f64>,
    /// llama.cpp `tokens_predicted_total`: a request's generated tokens, credited all at once
    /// when it ends; the pair of [`Sample::generation_seconds`]. None elsewhere.
    #[serde(default)]
    pub generation_tokens_credited: Option<f64>,
    pub preemptions: Option<f64>,
    /// Finished requests, summed over finished_reason.
    pub requests_finished: Option<f64>,
    /// Prefix-cache queried and hit tokens (vLLM ≥ 0.9 tokens; early V1 blocks).
    pub prefix_queries: Option<f64>,
    pub prefix_hits: Option<f64>,
    /// Cached prompt tokens (SGLang cached_tokens_total, vLLM prompt_tokens_cached_total, newer
    /// llama.cpp prompt_tokens_cached_total).
    pub cached_prompt_tokens: Option<f64>,
    /// Prompt tokens whose KV was computed here, not hit in a cache nor transferred (vLLM
    /// prompt_tokens_by_source{source="local_compute"}).
    #[serde(default)]
    pub prompt_tokens_computed: Option<f64>,
    /// Requests refused at admission (vLLM admission_rejections_total).
    #[serde(default)]
    pub admission_rejections: Option<f64>,
    /// llama.cpp's busy seconds counters.
    pub prompt_seconds: Option<f64>,
    pub generation_seconds: Option<f64>,
    /// llama.cpp n_decode_total and the average busy slots per decode.
    pub decode_calls: Option<f64>,
    pub busy_slots_per_decode: Option<f64>,
    /// Step ledger (emulator / engines that export it): steps, decode-only steps, step seconds,
    /// decode-only step seconds, prefill chunks.
    pub steps: Option<f64>,
    pub steps_decode: Option<f64>,
    pub step_seconds: Option<f64>,
    pub step_seconds_decode: Option<f64>,
    pub prefill_chunks: Option<f64>,
    /// Speculative decoding (vLLM and newer llama.cpp spec_decode_*): draft rounds, proposed tokens, accepted tokens.
    /// Acceptance rate = accepted / draft_tokens; mean acceptance length = 1 + accepted / drafts.
    #[serde(default)]
    pub spec_drafts: Option<f64>,
    #[serde(default)]
    pub spec_draft_tokens: Option<f64>,
    #[serde(default)]
    pub spec_accepted_tokens: Option<f64>,

    // Histograms (cumulative).
    pub ttft: Option<Histogram>,
    /// Inter-token latency (V1 inter_token_latency, V0 time_per_output_token).
    pub itl: Option<Histogram>,
    pub e2e: Option<Histogram>,
    pub queue_time: Option<Histogram>,
    pub prompt_len: Option<Histogram>,
    pub gen_len: Option<Histogram>,
    /// Per-request phase times (vLLM V1 request_prefill_time_seconds: scheduled → first token;
    /// request_decode_time_seconds: first → last token), observed as each request finishes.
    #[serde(default)]
    pub prefill_time: Option<Histogram>,
    #[serde(default)]
    pub decode_time: Option<Histogram>,
    /// Preemptions per finished request (vLLM request_num_preemptions): how many requests a
    /// preemption touched, beside the cumulative count.
    #[serde(default)]
    pub preemptions_per_request: Option<Histogram>,

    /// Config read from the metrics themselves (vLLM cache_config_info labels), verbatim.
    pub config_labels: BTreeMap<String, String>,
}

impl Sample {
    /// The prefix cache's running totals (tokens served from it, prompt tokens looked up):
    /// vLLM's hits and queries; else, as SGLang and llama.cpp count, cached prompt tokens against
    /// prompt tokens (the cached ones added back where the engine's prompt counter leaves them
    /// out). `None` where the engine exports neither pair.
    pub fn prefix_cache_tokens(&self) -> Option<(f64, f64)> {
        if let (Some(h), Some(q)) = (self.prefix_hits, self.prefix_queries) {
            return Some((h, q));
        }
        let (cached, prompt) = (self.cached_prompt_tokens?, self.prompt_tokens?);
        let looked_up = if self.engine.def().prompt_tokens_exclude_cached {
            prompt + cached
        } else {
            prompt
        };
        Some((cached, looked_up))
    }

    /// A sample with every metric unread (`None`), to be filled by an adapter.
    pub fn empty(t: f64, engine: Engine) -> Sample {
        Sample {
            t,
            engine,
            engine_generation: None,
            model: None,
            simulated: false,
            running: None,
            waiting: None,
            swapped: None,
            kv_usage: None,
            prefix_hit_rate_gauge: None,
            kv_capacity_tokens: None,
            waiting_for_capacity: None,
            prompt_tokens: None,
            generation_tokens: None,
            generation_tokens_credited: None,
            preemptions: None,
            requests_finished: None,
            prefix_queries: None,
            prefix_hits: None,
            cached_prompt_tokens: None,
            prompt_tokens_computed: None,
            admission_rejections: None,
            prompt_seconds: None,
            generation_seconds: None,
            decode_calls: None,
            busy_slots_per_decode: None,
            steps: None,
            steps_decode: None,
            step_seconds: None,
            step_seconds_decode: None,
            prefill_chunks: None,
            spec_drafts: None,
            spec_draft_tokens: None,
            spec_accepted_tokens: None,
            ttft: None,
            itl: None,
            e2e: None,
            queue_time: None,
            prompt_len: None,
            gen_len: None,
            prefill_time: None,
            decode_time: None,
            preemptions_per_request: None,
            config_labels: BTreeMap::new(),
        }
    }
}
