//! Hugging Face TGI: `metrics-exporter-prometheus`, counters
//! without `_total`, few labels. Histograms without explicit buckets render as summaries; those
//! still give `_sum` and `_count`, and the [`Histogram`](crate::Histogram) then has no buckets.

use super::{Definition, Launcher};
use crate::flags::{switch, val, Field as F, FlagRow, Knob as K};
use crate::sample::Sample;
use crate::series::{counter, gauge, histogram, read_series, Agg, Series, View};

/// TGI: its metric prefix; no `owned_by` is recorded from a real TGI `/v1/models`, so it is
/// recognised by its metric prefix and process only.
pub const DEF: Definition = Definition {
    engine: crate::Engine::Tgi,
    id: "tgi",
    name: "TGI",
    prefix: "tgi_",
    owned_by: None,
    launchers: &[
        Launcher::Program("text-generation-launcher"),
        Launcher::Program("text-generation-router"),
    ],
    model_positional: false,
    prompt_paths: PROMPT_PATHS,
    series: SERIES,
    flags: FLAGS,
    fill,
    cached_tokens_hint: "TGI's responses carry no cached-token count",
    prompt_tokens_exclude_cached: false,
};

/// TGI's launcher flags (`text-generation-launcher --help`), read in both directions.
pub(crate) const FLAGS: &[FlagRow] = &[
    val(&["--model-id"], F::Model),
    val(&["--max-concurrent-requests"], F::MaxNumSeqs)
        .fix(K::MaxNumSeqs, "--max-concurrent-requests"),
    val(&["--max-total-tokens"], F::MaxModelLen).fix(K::MaxModelLen, "--max-total-tokens"),
    val(&["--max-batch-prefill-tokens"], F::MaxNumBatchedTokens)
        .fix(K::MaxNumBatchedTokens, "--max-batch-prefill-tokens"),
    val(&["--num-shard"], F::TensorParallel).fix(K::TensorParallelSize, "--num-shard"),
    val(&["--quantize"], F::Quantization),
    val(&["--dtype"], F::Dtype),
    // fp8_e5m2 needs no scales from the checkpoint (fp8_e4m3fn does).
    val(&["--kv-cache-dtype"], F::KvCacheDtype).fix(K::KvCache8bit, "--kv-cache-dtype fp8_e5m2"),
    // The share of GPU memory TGI may take (default 1.0): its --gpu-memory-utilization.
    val(&["--cuda-memory-fraction"], F::GpuMemoryUtilization)
        .fix(K::GpuMemoryUtilization, "--cuda-memory-fraction"),
    switch(
        &[
            "--sharded",
            "--trust-remote-code",
            "--disable-custom-kernels",
        ],
        F::Ignore,
        true,
    ),
];

/// Its metrics, read from a scrape and by the store readers.
pub(crate) const SERIES: &[Series] = &[
    gauge("running", &["tgi_batch_current_size"], SUM),
    gauge("waiting", &["tgi_queue_size"], SUM),
    // Tokens reserved by the current batch over the token budget (max_batch_total_tokens).
    gauge("kv_capacity_tokens", &["tgi_batch_max_total_tokens"], SUM).adapter_only(),
    // Successful requests only: tgi_request_failure also counts validation errors that never
    // held a batch seat.
    counter("requests_finished", &["tgi_request_success"], SUM),
    // Token totals are the running sums of the per-request length histograms: they grow when a
    // request finishes, not while it runs.
    gauge("prompt_tokens", &["tgi_request_input_length_sum"], SUM).adapter_only(),
    gauge(
        "generation_tokens",
        &["tgi_request_generated_tokens_sum"],
        SUM,
    )
    .adapter_only(),
    histogram("e2e", &["tgi_request_duration"], SUM),
    histogram("queue_time", &["tgi_request_queue_duration"], SUM),
    // A per-request mean time per token (TPOT), the closest TGI has to inter-token latency.
    histogram("itl", &["tgi_request_mean_time_per_token_duration"], SUM),
    histogram("prompt_len", &["tgi_request_input_length"], SUM),
    histogram("gen_len", &["tgi_request_generated_tokens"], SUM),
];

const SUM: Agg = Agg::Sum;

pub(crate) fn fill(v: &View, s: &mut Sample) {
    read_series(v, s, SERIES);
    s.kv_usage = match (
        v.gauge(&["tgi_batch_current_max_tokens"], SUM),
        s.kv_capacity_tokens,
    ) {
        (Some(used), Some(cap)) if cap > 0.0 => Some(used / cap),
        _ => None,
    };
}

/// Paths whose request body carries a prompt, and its fields (`headroom route` reads them):
/// TGI's router (router/src/server.rs): `/generate` and `/generate_stream` take `inputs`; the OpenAI
/// shapes.
pub const PROMPT_PATHS: &[crate::prompt::PromptPath] = &[
    crate::prompt::at("/generate", &["inputs"]),
    crate::prompt::at("/generate_stream", &["inputs"]),
    crate::prompt::at("/v1/completions", &["prompt"]),
    crate::prompt::at("/v1/chat/completions", &["messages"]),
];

#[cfg(test)]
mod tests {
    use crate::adapters::sample_of;
    use crate::sample::Engine;

    #[test]
    fn tgi_gauges_counters_histograms_and_summaries() {
        let text = r#"# TYPE tgi_queue_size gauge
tgi_queue_size 3
# TYPE tgi_batch_current_size gauge
tgi_batch_current_size 12
# TYPE tgi_batch_current_max_tokens gauge
tgi_batch_current_max_tokens 12000
# TYPE tgi_batch_max_total_tokens gauge
tgi_batch_max_total_tokens 16000
# TYPE tgi_request_count counter
tgi_request_count 60
# TYPE tgi_request_success counter
tgi_request_success 55
# TYPE tgi_request_failure counter
tgi_request_failure{err="validation"} 5
# TYPE tgi_request_input_length histogram
tgi_request_input_length_bucket{le="100"} 20
tgi_request_input_length_bucket{le="+Inf"} 55
tgi_request_input_length_sum 27500
tgi_request_input_length_count 55
# TYPE tgi_request_generated_tokens histogram
tgi_request_generated_tokens_bucket{le="+Inf"} 55
tgi_request_generated_tokens_sum 11000
tgi_request_generated_tokens_count 55
# TYPE tgi_request_queue_duration summary
tgi_request_queue_duration{quantile="0.5"} 0.02
tgi_request_queue_duration{quantile="0.99"} 0.4
tgi_request_queue_duration_sum 3.3
tgi_request_queue_duration_count 55
"#;
        let s = sample_of(text);
        assert_eq!(s.engine, Engine::Tgi);
        assert_eq!((s.running, s.waiting), (Some(12.0), Some(3.0)));
        assert_eq!(
            (s.kv_usage, s.kv_capacity_tokens),
            (Some(0.75), Some(16000.0))
        );
        assert_eq!(s.requests_finished, Some(55.0));
        assert_eq!(
            (s.prompt_tokens, s.generation_tokens),
            (Some(27500.0), Some(11000.0))
        );
        assert_eq!(s.prompt_len.as_ref().map(|h| h.buckets.len()), Some(2));
        let q = s.queue_time.unwrap();
        assert!(q.buckets.is_empty());
        assert_eq!((q.sum, q.count), (3.3, 55.0));
        assert_eq!(s.e2e, None);
    }
}
