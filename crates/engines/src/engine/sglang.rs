//! SGLang with `--enable-metrics`.
//!
//! Scheduler-side series carry `tp_rank`, `pp_rank`, `moe_ep_rank` and sometimes `dp_rank`.
//! Ranks of one tensor/pipeline/expert-parallel group run the same schedule over the same
//! requests, so their values are replicas of one state: they are **averaged** (summing would
//! multiply the queue by TP). Data-parallel ranks (`dp_rank`) and `engine_type` (prefill vs
//! decode workers) hold different requests and pools, so they are **summed**.
//! Tokenizer-side counters carry `model_name` only and are summed.

use super::{Definition, Launcher};
use crate::flags::{switch, val, Field as F, FlagRow, Knob as K};
use crate::sample::Sample;
use crate::series::{counter, gauge, histogram, read_series, Agg, Series, View};

/// SGLang: its metric prefix; its `/v1/models` entries say `owned_by: sglang`.
pub const DEF: Definition = Definition {
    engine: crate::Engine::Sglang,
    id: "sglang",
    name: "SGLang",
    prefix: "sglang:",
    owned_by: Some("sglang"),
    launchers: &[
        Launcher::Module("sglang.launch_server"),
        Launcher::Subcommand("sglang", &["serve"]),
    ],
    model_positional: false,
    prompt_paths: PROMPT_PATHS,
    series: SERIES,
    flags: FLAGS,
    fill,
    // sglang/srt/arg_groups/fields/serving.py (0.5.23): `enable_cache_report`.
    cached_tokens_hint: "SGLang reports cached tokens per request only when started with \
--enable-cache-report",
    prompt_tokens_exclude_cached: false,
};

/// SGLang's flags (`python -m sglang.launch_server --help`, sglang/srt/server_args.py), read in
/// both directions. Prefix caching is on unless `--disable-radix-cache`: there is no flag to
/// prescribe, only one to remove.
pub(crate) const FLAGS: &[FlagRow] = &[
    val(&["--model-path", "--model"], F::Model),
    val(&["--served-model-name"], F::ServedModelName),
    val(&["--max-running-requests"], F::MaxNumSeqs).fix(K::MaxNumSeqs, "--max-running-requests"),
    val(&["--context-length"], F::MaxModelLen).fix(K::MaxModelLen, "--context-length"),
    val(&["--chunked-prefill-size"], F::MaxNumBatchedTokens)
        .fix(K::MaxNumBatchedTokens, "--chunked-prefill-size"),
    val(&["--mem-fraction-static"], F::MemFractionStatic)
        .fix(K::GpuMemoryUtilization, "--mem-fraction-static"),
    val(&["--max-total-tokens"], F::MaxTotalTokens).fix(K::KvPoolTokens, "--max-total-tokens"),
    val(&["--decode-log-interval"], F::DecodeLogInterval),
    switch(&["--disable-radix-cache"], F::EnablePrefixCaching, false),
    val(&["--kv-cache-dtype"], F::KvCacheDtype).fix(K::KvCache8bit, "--kv-cache-dtype fp8_e5m2"),
    val(
        &["--tp-size", "--tp", "--tensor-parallel-size"],
        F::TensorParallel,
    )
    .fix(K::TensorParallelSize, "--tp"),
    val(
        &["--pp-size", "--pipeline-parallel-size"],
        F::PipelineParallel,
    ),
    val(
        &["--dp-size", "--dp", "--data-parallel-size"],
        F::DataParallel,
    ),
    val(&["--page-size"], F::BlockSize),
    val(&["--quantization"], F::Quantization),
    val(&["--dtype"], F::Dtype),
    val(&["--speculative-algorithm"], F::Speculative),
    val(&["--schedule-conservativeness"], F::Ignore),
    switch(
        &[
            "--trust-remote-code",
            "--enable-metrics",
            "--enable-dp-attention",
            "--disable-cuda-graph",
            "--enable-torch-compile",
        ],
        F::Ignore,
        true,
    ),
];

const REPLICA_LABELS: &[&str] = &["tp_rank", "pp_rank", "moe_ep_rank"];

/// Its metrics, read from a scrape and by the store readers. Tensor-parallel ranks of one
/// scheduler report the same state: averaged over the rank labels, then summed over DP
/// schedulers.
pub(crate) const SERIES: &[Series] = &[
    gauge("running", &["sglang:num_running_reqs"], PER_SCHED),
    // `num_queue_reqs` since at least 0.4.1 (fixtures/sglang-0.4.1); a singular
    // `num_queue_req` once read here had no source and was dropped.
    gauge("waiting", &["sglang:num_queue_reqs"], PER_SCHED),
    gauge(
        "kv_capacity_tokens",
        &["sglang:max_total_num_tokens"],
        PER_SCHED,
    )
    .adapter_only(),
    counter("prompt_tokens", &["sglang:prompt_tokens"], PER_SCHED),
    counter(
        "generation_tokens",
        &["sglang:generation_tokens"],
        PER_SCHED,
    ),
    counter("cached_prompt_tokens", &["sglang:cached_tokens"], PER_SCHED),
    counter("requests_finished", &["sglang:num_requests"], PER_SCHED),
    // Retraction is SGLang's preemption (see `fill` for the counter's late creation).
    counter("preemptions", &["sglang:num_retracted_requests"], PER_SCHED),
    histogram("ttft", &["sglang:time_to_first_token_seconds"], PER_SCHED),
    // Its `_count` counts tokens, not intervals (buckets step by num_new_tokens while `_sum`
    // adds the interval), so sum/count is seconds per token. It is observed only when a
    // request's output arrives in several chunks (tokenizer_manager.py), so a non-streaming
    // load has none; then the per-request TPOT histogram ((finish − first token) / (tokens − 1),
    // one observation per request) gives the mean over requests instead. Not given to store
    // readers: which of the three a store holds decides the unit.
    histogram(
        "itl",
        &[
            "sglang:inter_token_latency_seconds",
            "sglang:time_per_output_token_seconds",
            "sglang:request_time_per_output_token_seconds",
        ],
        PER_SCHED,
    )
    .adapter_only(),
    histogram("e2e", &["sglang:e2e_request_latency_seconds"], PER_SCHED),
    histogram("queue_time", &["sglang:queue_time_seconds"], PER_SCHED),
    histogram("prompt_len", &["sglang:prompt_tokens_histogram"], PER_SCHED),
    histogram(
        "gen_len",
        &["sglang:generation_tokens_histogram"],
        PER_SCHED,
    ),
];

const PER_SCHED: Agg = Agg::MeanOverThenSum(REPLICA_LABELS);

pub(crate) fn fill(v: &View, s: &mut Sample) {
    s.model = v.label_of("sglang:", "model_name");
    read_series(v, s, SERIES);
    // Pool usage over all DP pools is used/capacity summed; without both, the per-rank fraction
    // is averaged (a fraction must never be summed).
    let used = v.gauge(&["sglang:num_used_tokens"], PER_SCHED);
    // `token_usage` is rounded to two decimals (0.5.23 pool_stats_observer.py: `round(…, 2)`),
    // so a pool 0.5 % full reads 0.0; `full_token_usage` is the unrounded full-attention pool.
    let fraction = v.gauge(
        &["sglang:full_token_usage", "sglang:token_usage"],
        Agg::Mean,
    );
    s.kv_usage = match (used, s.kv_capacity_tokens) {
        (Some(u), Some(c)) if c > 0.0 => Some(u / c),
        _ => fraction,
    };
    // A gauge over the last log interval; averaged across schedulers (no weights exported).
    s.prefix_hit_rate_gauge = v
        .gauge(&["sglang:cache_hit_rate"], Agg::Mean)
        .filter(|r| (0.0..=1.0).contains(r));
    // 0.5.23 creates the retraction counter on the first retraction; before it, the scheduler's
    // per-interval `num_retracted_reqs` gauge is already exported, so its presence means none
    // yet (counted from zero, the first retractions are not lost to a series that appears
    // mid-window).
    if s.preemptions.is_none() && v.has("sglang:num_retracted_reqs") {
        s.preemptions = Some(0.0);
    }
}

/// Paths whose request body carries a prompt, and its fields (`headroom route` reads them):
/// SGLang's server (python/sglang/srt/entrypoints/http_server.py): its native `/generate` (`text`, or
/// `input_ids` given as tokens) and the OpenAI shapes.
pub const PROMPT_PATHS: &[crate::prompt::PromptPath] = &[
    crate::prompt::at("/generate", &["text", "input_ids"]),
    crate::prompt::at("/v1/completions", &["prompt"]),
    crate::prompt::at("/v1/chat/completions", &["messages"]),
];

#[cfg(test)]
mod tests {
    use crate::adapters::sample_of;
    use crate::sample::Engine;

    #[test]
    fn tp2_dp2_scheduler_gauges_and_tokenizer_counters() {
        let text = r#"# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{dp_rank="0",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="0"} 8.0
sglang:num_running_reqs{dp_rank="0",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="1"} 8.0
sglang:num_running_reqs{dp_rank="1",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="0"} 6.0
sglang:num_running_reqs{dp_rank="1",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="1"} 6.0
# TYPE sglang:num_queue_reqs gauge
sglang:num_queue_reqs{dp_rank="0",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="0"} 3.0
sglang:num_queue_reqs{dp_rank="0",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="1"} 3.0
sglang:num_queue_reqs{dp_rank="1",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="0"} 0.0
sglang:num_queue_reqs{dp_rank="1",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="1"} 0.0
# TYPE sglang:num_used_tokens gauge
sglang:num_used_tokens{dp_rank="0",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="0"} 9000.0
sglang:num_used_tokens{dp_rank="1",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="0"} 3000.0
# TYPE sglang:max_total_num_tokens gauge
sglang:max_total_num_tokens{dp_rank="0",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="0"} 10000.0
sglang:max_total_num_tokens{dp_rank="1",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="0"} 10000.0
# TYPE sglang:token_usage gauge
sglang:token_usage{dp_rank="0",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="0"} 0.9
sglang:token_usage{dp_rank="1",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="0"} 0.3
# TYPE sglang:cache_hit_rate gauge
sglang:cache_hit_rate{dp_rank="0",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="0"} 0.5
sglang:cache_hit_rate{dp_rank="1",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="0"} 0.3
# TYPE sglang:num_retracted_requests_total counter
sglang:num_retracted_requests_total{dp_rank="0",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="0"} 4.0
sglang:num_retracted_requests_total{dp_rank="0",engine_type="unified",model_name="qwen",pp_rank="0",tp_rank="1"} 4.0
# TYPE sglang:prompt_tokens_total counter
sglang:prompt_tokens_total{model_name="qwen"} 12345.0
# TYPE sglang:generation_tokens_total counter
sglang:generation_tokens_total{model_name="qwen"} 6789.0
# TYPE sglang:cached_tokens_total counter
sglang:cached_tokens_total{model_name="qwen"} 2000.0
# TYPE sglang:num_requests_total counter
sglang:num_requests_total{model_name="qwen"} 77.0
# TYPE sglang:time_to_first_token_seconds histogram
sglang:time_to_first_token_seconds_bucket{le="0.1",model_name="qwen"} 50.0
sglang:time_to_first_token_seconds_bucket{le="+Inf",model_name="qwen"} 77.0
sglang:time_to_first_token_seconds_count{model_name="qwen"} 77.0
sglang:time_to_first_token_seconds_sum{model_name="qwen"} 9.2
# TYPE sglang:queue_time_seconds histogram
sglang:queue_time_seconds_bucket{le="1.0",model_name="qwen",tp_rank="0"} 5.0
sglang:queue_time_seconds_bucket{le="+Inf",model_name="qwen",tp_rank="0"} 6.0
sglang:queue_time_seconds_bucket{le="1.0",model_name="qwen",tp_rank="1"} 5.0
sglang:queue_time_seconds_bucket{le="+Inf",model_name="qwen",tp_rank="1"} 6.0
sglang:queue_time_seconds_count{model_name="qwen",tp_rank="0"} 6.0
sglang:queue_time_seconds_count{model_name="qwen",tp_rank="1"} 6.0
sglang:queue_time_seconds_sum{model_name="qwen",tp_rank="0"} 2.0
sglang:queue_time_seconds_sum{model_name="qwen",tp_rank="1"} 2.0
"#;
        let s = sample_of(text);
        assert_eq!(s.engine, Engine::Sglang);
        assert_eq!(s.model.as_deref(), Some("qwen"));
        // TP replicas averaged, DP ranks summed.
        assert_eq!((s.running, s.waiting), (Some(14.0), Some(3.0)));
        assert_eq!(s.kv_capacity_tokens, Some(20000.0));
        assert_eq!(s.kv_usage, Some(0.6));
        assert!((s.prefix_hit_rate_gauge.unwrap() - 0.4).abs() < 1e-12);
        assert_eq!(s.preemptions, Some(4.0));
        assert_eq!(
            (s.prompt_tokens, s.generation_tokens),
            (Some(12345.0), Some(6789.0))
        );
        assert_eq!(
            (s.cached_prompt_tokens, s.requests_finished),
            (Some(2000.0), Some(77.0))
        );
        // SGLang's prompt counter holds its cached tokens: the cache looked up all of them.
        assert_eq!(s.prefix_cache_tokens(), Some((2000.0, 12345.0)));
        assert_eq!(s.ttft.as_ref().map(|h| (h.count, h.sum)), Some((77.0, 9.2)));
        let q = s.queue_time.unwrap();
        assert_eq!(q.buckets, vec![(1.0, 5.0), (f64::INFINITY, 6.0)]);
        assert_eq!((q.count, q.sum), (6.0, 2.0));
    }

    #[test]
    fn old_names_and_usage_fraction_fallback() {
        let text = "sglang:num_queue_reqs{model_name=\"m\",tp_rank=\"0\"} 7\n\
sglang:token_usage{model_name=\"m\",tp_rank=\"0\"} 0.25\n\
sglang:time_per_output_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 4\n\
sglang:time_per_output_token_seconds_sum{model_name=\"m\"} 0.2\n\
sglang:time_per_output_token_seconds_count{model_name=\"m\"} 4\n";
        let s = sample_of(text);
        assert_eq!((s.waiting, s.kv_usage), (Some(7.0), Some(0.25)));
        assert_eq!(s.itl.map(|h| h.count), Some(4.0));
        assert_eq!(s.kv_capacity_tokens, None);
    }

    /// A real SGLang 0.5.23 (CPU engine) after 40 s of 4 non-streaming clients
    /// (fixtures/sglang-0.5.23/SOURCES.md).
    const REAL_0_5_23: &str =
        include_str!("../../../../fixtures/sglang-0.5.23/metrics-4-clients.prom");

    #[test]
    fn real_sglang_0_5_23_figures_read() {
        let s = sample_of(REAL_0_5_23);
        assert_eq!(s.engine, Engine::Sglang);
        assert_eq!(s.model.as_deref(), Some("smollm2-135m"));
        assert_eq!((s.running, s.waiting), (Some(2.0), Some(0.0)));
        assert_eq!(s.kv_capacity_tokens, Some(16384.0));
        // 79 of 16,384 tokens in use; `token_usage` prints 0.0 (rounded), the fraction does not.
        assert_eq!(s.kv_usage, Some(79.0 / 16384.0));
        assert!(s.prefix_hit_rate_gauge.is_some());
        assert!(s.prompt_tokens.unwrap() > 0.0 && s.generation_tokens.unwrap() > 0.0);
        // No retraction happened: SGLang creates the counter on the first one, and its
        // per-interval gauge says none so far.
        assert_eq!(s.preemptions, Some(0.0));
        // Non-streaming clients: no inter-token histogram, the per-request TPOT stands in.
        let itl = s.itl.expect("request_time_per_output_token_seconds");
        assert!(itl.count > 0.0 && itl.sum / itl.count > 0.0);
        for h in [&s.ttft, &s.e2e, &s.queue_time, &s.prompt_len, &s.gen_len] {
            assert!(h.as_ref().is_some_and(|h| h.count > 0.0));
        }
    }

    /// Every family the real server sends is either read or listed here with the reason it
    /// carries no evidence for the rules; a family a new SGLang adds fails this test until it is
    /// placed. Every family the adapter asks for and this server did not send is listed too.
    #[test]
    fn real_sglang_0_5_23_families_placed() {
        const UNREAD: &[(&str, &str)] = &[
            // GPU-only: CUDA graphs and GPU memory; zero or static on CPU, and not a rate.
            ("sglang:startup_cuda_graph_time_seconds", "gpu-only"),
            ("sglang:graph_memory_usage_gb", "gpu-only"),
            ("sglang:startup_available_gpu_memory_gb", "gpu-only"),
            ("sglang:is_cuda_graph", "gpu-only"),
            ("sglang:cuda_graph_passes", "gpu-only"),
            ("sglang:utilization", "gpu-only"),
            // Speculative decoding: zero unless a draft model is configured.
            ("sglang:spec_accept_length", "speculative"),
            ("sglang:spec_accept_rate", "speculative"),
            ("sglang:spec_cap_length", "speculative"),
            ("sglang:spec_block_accept_length", "speculative"),
            ("sglang:spec_num_steps", "speculative"),
            ("sglang:spec_num_draft_tokens", "speculative"),
            // Prefill/decode disaggregation queues: zero on a unified engine.
            ("sglang:num_prefill_bootstrap_queue_reqs", "disaggregation"),
            ("sglang:num_prefill_inflight_queue_reqs", "disaggregation"),
            ("sglang:num_decode_prealloc_queue_reqs", "disaggregation"),
            ("sglang:num_decode_transfer_queue_reqs", "disaggregation"),
            (
                "sglang:num_decode_host_receive_queue_reqs",
                "disaggregation",
            ),
            (
                "sglang:num_decode_deferred_kv_release_reqs",
                "disaggregation",
            ),
            ("sglang:pending_prealloc_token_usage", "disaggregation"),
            ("sglang:prealloc_full_token_usage", "disaggregation"),
            ("sglang:prealloc_swa_token_usage", "disaggregation"),
            // Data-parallel attention: zero without --enable-dp-attention.
            ("sglang:dp_attention_tokens", "dp-attention"),
            ("sglang:dp_attention_steps", "dp-attention"),
            ("sglang:dp_attention_pairs", "dp-attention"),
            ("sglang:dp_attention_token_imbalance_ratio", "dp-attention"),
            ("sglang:dp_attention_sync_wait_seconds", "dp-attention"),
            // Hybrid models' other pools (sliding window, Mamba state): zero for a dense model.
            ("sglang:swa_token_usage", "hybrid-model"),
            ("sglang:swa_available_tokens", "hybrid-model"),
            ("sglang:swa_evictable_tokens", "hybrid-model"),
            ("sglang:swa_used_tokens", "hybrid-model"),
            ("sglang:mamba_usage", "hybrid-model"),
            ("sglang:mamba_available_tokens", "hybrid-model"),
            ("sglang:mamba_evictable_tokens", "hybrid-model"),
            ("sglang:mamba_used_tokens", "hybrid-model"),
            // Routing-key accounting: zero unless requests carry routing keys.
            ("sglang:num_unique_running_routing_keys", "routing-keys"),
            ("sglang:routing_key_running_req_count", "routing-keys"),
            ("sglang:routing_key_all_req_count", "routing-keys"),
            ("sglang:routing_keys_active", "routing-keys"),
            // Static after start-up: the pool size is read from max_total_num_tokens.
            ("sglang:startup_time_seconds", "static"),
            ("sglang:weight_memory_usage_gb", "static"),
            ("sglang:kv_cache_memory_usage_gb", "static"),
            ("sglang:page_size", "static"),
            ("sglang:num_pages", "static"),
            ("sglang:context_len", "static"),
            // Process and HTTP bookkeeping, not the engine's schedule.
            ("sglang:process_cpu_seconds", "process"),
            ("sglang:scheduler_process_cpu_seconds", "process"),
            ("sglang:http_requests", "process"),
            ("sglang:http_responses", "process"),
            ("sglang:http_requests_active", "process"),
            // The same fact as a family that is read.
            (
                "sglang:gen_throughput",
                "redundant: generation_tokens counter over the window",
            ),
            ("sglang:kv_used_tokens", "redundant: num_used_tokens"),
            (
                "sglang:kv_available_tokens",
                "redundant: max_total_num_tokens - num_used_tokens",
            ),
            (
                "sglang:kv_evictable_tokens",
                "redundant: the prefix cache's share of num_used_tokens",
            ),
            (
                "sglang:uncached_prompt_tokens_histogram",
                "redundant: prompt_tokens - cached_tokens",
            ),
            // Scheduler internals no rule judges yet.
            (
                "sglang:num_grammar_queue_reqs",
                "not judged: structured-output queue",
            ),
            (
                "sglang:num_paused_reqs",
                "not judged: paused for weight updates",
            ),
            (
                "sglang:decode_sum_seq_lens",
                "not judged: context depth of the decode batch",
            ),
            ("sglang:fwd_occupancy", "not judged: NaN on CPU"),
            (
                "sglang:new_token_ratio",
                "not judged: the scheduler's reservation estimate",
            ),
            (
                "sglang:scheduler_idle_seconds",
                "not judged: scheduler idle time",
            ),
            (
                "sglang:scheduler_stage_seconds",
                "not judged: per-stage scheduler time",
            ),
            (
                "sglang:per_stage_req_latency_seconds",
                "not judged: per-stage request latency",
            ),
            (
                "sglang:prefill_effective_tokens",
                "not judged: prefill tokens after cache",
            ),
            ("sglang:realtime_tokens", "not judged: tokens by mode"),
        ];
        // Asked for, absent from this server's body, and why.
        const ABSENT: &[(&str, &str)] = &[
            (
                "sglang:time_per_output_token_seconds",
                "the older name of the TPOT histogram",
            ),
            (
                "sglang:inter_token_latency_seconds",
                "observed only when output arrives in several chunks; these clients did not stream",
            ),
            (
                "sglang:num_retracted_requests",
                "created on the first retraction",
            ),
        ];
        crate::adapters::assert_families_placed(REAL_0_5_23, UNREAD, ABSENT);
    }
}
