//! vLLM, V1 and V0 engines. Renames are read newest name first.
//! Data parallelism gives one series per `engine` label: counts are summed over it, 0–1
//! fractions are averaged (each DP engine has its own, equally sized, KV pool).

use super::{Definition, Launcher};
use crate::flags::{switch, val, Field as F, FlagRow, Knob as K};
use crate::sample::Sample;
use crate::series::{counter, gauge, histogram, read_series, Agg, Series, View};

/// vLLM: its metric prefix; its `/v1/models` entries say `owned_by: vllm`.
pub const DEF: Definition = Definition {
    engine: crate::Engine::Vllm,
    id: "vllm",
    name: "vLLM",
    prefix: "vllm:",
    owned_by: Some("vllm"),
    launchers: &[
        Launcher::Subcommand("vllm", &["serve"]),
        Launcher::Module("vllm.entrypoints"),
    ],
    model_positional: true,
    prompt_paths: PROMPT_PATHS,
    series: SERIES,
    flags: FLAGS,
    fill,
    // vllm/entrypoints/launchers/cli_args.py (0.32.0): `enable_prompt_tokens_details`, off by
    // default; it fills usage.prompt_tokens_details.cached_tokens.
    cached_tokens_hint: "vLLM reports cached tokens per request only when started with \
--enable-prompt-tokens-details",
    prompt_tokens_exclude_cached: false,
};

/// vLLM's flags (`vllm serve --help`, vllm/engine/arg_utils.py), read in both directions.
pub(crate) const FLAGS: &[FlagRow] = &[
    val(&["--model"], F::Model),
    val(&["--served-model-name"], F::ServedModelName),
    val(&["--max-num-seqs"], F::MaxNumSeqs).fix(K::MaxNumSeqs, "--max-num-seqs"),
    val(&["--max-model-len"], F::MaxModelLen).fix(K::MaxModelLen, "--max-model-len"),
    val(&["--max-num-batched-tokens"], F::MaxNumBatchedTokens)
        .fix(K::MaxNumBatchedTokens, "--max-num-batched-tokens"),
    val(&["--gpu-memory-utilization"], F::GpuMemoryUtilization)
        .fix(K::GpuMemoryUtilization, "--gpu-memory-utilization"),
    switch(&["--enable-prefix-caching"], F::EnablePrefixCaching, true)
        .fix(K::PrefixCaching, "--enable-prefix-caching"),
    switch(
        &["--no-enable-prefix-caching"],
        F::EnablePrefixCaching,
        false,
    ),
    switch(&["--enable-chunked-prefill"], F::EnableChunkedPrefill, true),
    switch(
        &["--no-enable-chunked-prefill"],
        F::EnableChunkedPrefill,
        false,
    ),
    val(&["--kv-cache-dtype"], F::KvCacheDtype).fix(K::KvCache8bit, "--kv-cache-dtype fp8"),
    val(&["--kv-offloading-size"], F::KvOffloadingSize)
        .fix(K::KvOffloading, "--kv-offloading-size"),
    val(&["--kv-cache-memory-bytes"], F::KvCacheMemoryBytes)
        .fix(K::KvCacheMemoryBytes, "--kv-cache-memory-bytes"),
    val(&["--tensor-parallel-size", "-tp"], F::TensorParallel)
        .fix(K::TensorParallelSize, "--tensor-parallel-size"),
    val(&["--pipeline-parallel-size", "-pp"], F::PipelineParallel),
    val(&["--data-parallel-size", "-dp"], F::DataParallel),
    val(&["--block-size"], F::BlockSize),
    val(&["--num-gpu-blocks-override"], F::NumGpuBlocks)
        .fix(K::KvBlocksOverride, "--num-gpu-blocks-override"),
    val(&["--quantization", "-q"], F::Quantization),
    val(&["--dtype"], F::Dtype),
    val(&["--speculative-config"], F::Speculative),
    switch(
        &[
            "--trust-remote-code",
            "--enforce-eager",
            "--disable-log-requests",
            "--disable-log-stats",
            "--enable-lora",
            "--enable-auto-tool-choice",
            "--no-enable-log-requests",
            "--enable-log-requests",
            "--disable-custom-all-reduce",
            "--enable-expert-parallel",
            "--async-scheduling",
            "--enable-sleep-mode",
            "--kv-cache-metrics",
            "--enable-mfu-metrics",
        ],
        F::Ignore,
        true,
    ),
];

/// Names only the V1 engine exports (V0 never had them).
const V1_ONLY: [&str; 6] = [
    "vllm:kv_cache_usage_perc",
    "vllm:prefix_cache_queries_total",
    "vllm:prefix_cache_queries",
    "vllm:inter_token_latency_seconds_count",
    "vllm:prompt_tokens_cached_total",
    "vllm:num_requests_waiting_by_reason",
];

/// vLLM's config-as-labels gauge: every CacheConfig field as a string label.
pub const CACHE_CONFIG_INFO: &str = "vllm:cache_config_info";

/// Its metrics, one row per concept (renames newest first), read from a scrape and by the store
/// readers. Each DP engine is a series of its own: counts sum, the KV fraction averages.
pub(crate) const SERIES: &[Series] = &[
    gauge("running", &["vllm:num_requests_running"], SUM),
    gauge("waiting", &["vllm:num_requests_waiting"], SUM),
    gauge("swapped", &["vllm:num_requests_swapped"], SUM),
    // A 0–1 fraction despite "perc"; renamed in 0.9 (#18354).
    gauge(
        "kv_usage",
        &["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"],
        Agg::Mean,
    ),
    counter("prompt_tokens", &["vllm:prompt_tokens"], SUM),
    counter("generation_tokens", &["vllm:generation_tokens"], SUM),
    counter("preemptions", &["vllm:num_preemptions"], SUM),
    // One series per finished_reason (stop, length, abort ...), all pre-created at 0.
    counter("requests_finished", &["vllm:request_success"], SUM),
    // 0.9+ counts tokens; early V1 (gpu_ names) counted blocks. The hit rate is a ratio of the
    // two, so the unit cancels.
    counter(
        "prefix_queries",
        &["vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries"],
        SUM,
    ),
    counter(
        "prefix_hits",
        &["vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits"],
        SUM,
    ),
    counter("cached_prompt_tokens", &["vllm:prompt_tokens_cached"], SUM),
    counter("admission_rejections", &["vllm:admission_rejections"], SUM).adapter_only(),
    // Step ledger, exported by headroom's emulator (and any engine that adopts the names).
    counter("steps", &["vllm:engine_steps"], SUM).adapter_only(),
    counter("steps_decode", &["vllm:engine_steps_decode"], SUM).adapter_only(),
    counter("step_seconds", &["vllm:engine_step_seconds"], SUM).adapter_only(),
    counter(
        "step_seconds_decode",
        &["vllm:engine_step_seconds_decode"],
        SUM,
    )
    .adapter_only(),
    counter("prefill_chunks", &["vllm:engine_prefill_chunks"], SUM).adapter_only(),
    counter("spec_drafts", &["vllm:spec_decode_num_drafts"], SUM).adapter_only(),
    counter(
        "spec_draft_tokens",
        &["vllm:spec_decode_num_draft_tokens"],
        SUM,
    )
    .adapter_only(),
    counter(
        "spec_accepted_tokens",
        &["vllm:spec_decode_num_accepted_tokens"],
        SUM,
    )
    .adapter_only(),
    histogram("ttft", &["vllm:time_to_first_token_seconds"], SUM),
    // Renamed in 0.11 (#24110); the same per-iteration quantity.
    histogram(
        "itl",
        &[
            "vllm:inter_token_latency_seconds",
            "vllm:time_per_output_token_seconds",
        ],
        SUM,
    ),
    histogram("e2e", &["vllm:e2e_request_latency_seconds"], SUM),
    histogram("queue_time", &["vllm:request_queue_time_seconds"], SUM),
    histogram("prompt_len", &["vllm:request_prompt_tokens"], SUM),
    histogram("gen_len", &["vllm:request_generation_tokens"], SUM),
    histogram(
        "preemptions_per_request",
        &["vllm:request_num_preemptions"],
        SUM,
    )
    .adapter_only(),
    // V1's per-request phase times: the bench's engine clock (loadgen's vllm_clock).
    histogram("prefill_time", &[PREFILL_TIME], SUM).adapter_only(),
    histogram("decode_time", &[DECODE_TIME], SUM).adapter_only(),
];

/// The name vLLM exports a concept under today: its row's newest name, for writers of vLLM's
/// exposition (headroom's emulator), so a rename moves them too.
pub fn exported(field: &str) -> Option<&'static str> {
    SERIES
        .iter()
        .find(|r| r.field == field)
        .and_then(|r| r.names.first().copied())
}

/// Families vLLM 0.32 exports that no adapter reads (the test below says why each), named for
/// the emulator, which writes them as vLLM does.
pub const ITERATION_TOKENS: &str = "vllm:iteration_tokens_total";
pub const REQUEST_MAX_NUM_GENERATION_TOKENS: &str = "vllm:request_max_num_generation_tokens";
pub const REQUEST_PARAMS_N: &str = "vllm:request_params_n";
pub const REQUEST_PARAMS_MAX_TOKENS: &str = "vllm:request_params_max_tokens";
pub const REQUEST_TIME_PER_OUTPUT_TOKEN: &str = "vllm:request_time_per_output_token_seconds";
pub const REQUEST_INFERENCE_TIME: &str = "vllm:request_inference_time_seconds";

/// The per-iteration token histogram's count and sum (no rule reads it; the census counts
/// engine steps by it).
pub const ITERATION_TOKENS_COUNT: &str = "vllm:iteration_tokens_total_count";
pub const ITERATION_TOKENS_SUM: &str = "vllm:iteration_tokens_total_sum";

/// V1's per-request prefill and decode time histograms (the bench's engine clock).
pub const PREFILL_TIME: &str = "vllm:request_prefill_time_seconds";
pub const DECODE_TIME: &str = "vllm:request_decode_time_seconds";

const SUM: Agg = Agg::Sum;

pub(crate) fn fill(v: &View, s: &mut Sample) {
    // V1 labels every series with `engine`; V0 had `model_name` only.
    let v1 = v
        .any_sample(|x| x.name.starts_with("vllm:") && x.label("engine").is_some())
        .is_some()
        || V1_ONLY.iter().any(|n| v.has(n));
    s.engine_generation = Some(if v1 { "v1" } else { "v0" }.to_string());
    s.model = v.label_of("vllm:", "model_name");
    read_series(v, s, SERIES);

    // 2026+: the waiting split; "capacity" is the queue a bigger pool or more seats would drain.
    s.waiting_for_capacity = v.gauge_where(
        "vllm:num_requests_waiting_by_reason",
        "reason",
        "capacity",
        SUM,
    );
    // V0 gauge, −1 when prefix caching is off: that is "no rate", not a rate.
    s.prefix_hit_rate_gauge = v
        .gauge(&["vllm:gpu_prefix_cache_hit_rate"], Agg::Mean)
        .filter(|r| (0.0..=1.0).contains(r));
    s.prompt_tokens_computed = v.counter_where(
        "vllm:prompt_tokens_by_source",
        "source",
        "local_compute",
        SUM,
    );
    // Every CacheConfig field as a string label; the set changes per release, so keep them all.
    s.config_labels = v.info_labels(CACHE_CONFIG_INFO, &["engine"]);
}

/// Paths whose request body carries a prompt, and its fields (`headroom route` reads them):
/// vLLM's OpenAI server (vllm/entrypoints/openai/api_server.py): completions, chat, responses and the
/// Anthropic messages shape.
pub const PROMPT_PATHS: &[crate::prompt::PromptPath] = &[
    crate::prompt::at("/v1/completions", &["prompt"]),
    crate::prompt::at("/v1/chat/completions", &["messages"]),
    crate::prompt::at("/v1/responses", &["input"]),
    crate::prompt::at("/v1/messages", &["messages"]),
];

#[cfg(test)]
mod tests {
    use crate::adapters::sample_of;
    use crate::sample::{Engine, Histogram};

    /// A V1 (0.11-era) exposition with two data-parallel engines, names as exposed.
    const V1_DP2: &str = r#"# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 12.0
vllm:num_requests_running{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 10.0
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 3.0
vllm:num_requests_waiting{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.0
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.9
vllm:kv_cache_usage_perc{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.7
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1000.0
vllm:prefix_cache_queries_total{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 3000.0
# TYPE vllm:prefix_cache_queries_created gauge
vllm:prefix_cache_queries_created{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.75e+09
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 250.0
vllm:prefix_cache_hits_total{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 750.0
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 2.0
vllm:num_preemptions_total{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 5.0
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 50000.0
vllm:prompt_tokens_total{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 40000.0
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 7000.0
vllm:generation_tokens_total{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 6000.0
# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="stop",model_name="meta-llama/Llama-3.1-8B-Instruct"} 20.0
vllm:request_success_total{engine="0",finished_reason="length",model_name="meta-llama/Llama-3.1-8B-Instruct"} 5.0
vllm:request_success_total{engine="0",finished_reason="abort",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.0
vllm:request_success_total{engine="1",finished_reason="stop",model_name="meta-llama/Llama-3.1-8B-Instruct"} 10.0
vllm:request_success_total{engine="1",finished_reason="length",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.0
vllm:request_success_total{engine="1",finished_reason="abort",model_name="meta-llama/Llama-3.1-8B-Instruct"} 0.0
# TYPE vllm:inter_token_latency_seconds histogram
vllm:inter_token_latency_seconds_bucket{engine="0",le="0.01",model_name="meta-llama/Llama-3.1-8B-Instruct"} 100.0
vllm:inter_token_latency_seconds_bucket{engine="0",le="0.1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 150.0
vllm:inter_token_latency_seconds_bucket{engine="0",le="+Inf",model_name="meta-llama/Llama-3.1-8B-Instruct"} 160.0
vllm:inter_token_latency_seconds_count{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 160.0
vllm:inter_token_latency_seconds_sum{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 3.5
vllm:inter_token_latency_seconds_bucket{engine="1",le="0.01",model_name="meta-llama/Llama-3.1-8B-Instruct"} 50.0
vllm:inter_token_latency_seconds_bucket{engine="1",le="0.1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 60.0
vllm:inter_token_latency_seconds_bucket{engine="1",le="+Inf",model_name="meta-llama/Llama-3.1-8B-Instruct"} 60.0
vllm:inter_token_latency_seconds_count{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 60.0
vllm:inter_token_latency_seconds_sum{engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1.0
# TYPE vllm:iteration_tokens_total histogram
vllm:iteration_tokens_total_bucket{engine="0",le="1.0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 3.0
vllm:iteration_tokens_total_bucket{engine="0",le="+Inf",model_name="meta-llama/Llama-3.1-8B-Instruct"} 9.0
vllm:iteration_tokens_total_count{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 9.0
vllm:iteration_tokens_total_sum{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 900.0
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.9",num_gpu_blocks="27000",prefix_caching_hash_algo="sha256"} 1.0
vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",engine="1",gpu_memory_utilization="0.9",num_gpu_blocks="27000",prefix_caching_hash_algo="sha256"} 1.0
"#;

    #[test]
    fn v1_data_parallel_sums_counts_and_averages_fractions() {
        let s = sample_of(V1_DP2);
        assert_eq!(s.engine, Engine::Vllm);
        assert_eq!(s.engine_generation.as_deref(), Some("v1"));
        assert_eq!(s.model.as_deref(), Some("meta-llama/Llama-3.1-8B-Instruct"));
        assert_eq!(s.running, Some(22.0));
        assert_eq!(s.waiting, Some(4.0));
        assert_eq!(s.swapped, None);
        assert!((s.kv_usage.unwrap() - 0.8).abs() < 1e-12);
        assert_eq!(s.prefix_queries, Some(4000.0));
        assert_eq!(s.prefix_hits, Some(1000.0));
        assert_eq!(s.prefix_hit_rate_gauge, None);
        assert_eq!(s.preemptions, Some(7.0));
        assert_eq!(s.prompt_tokens, Some(90000.0));
        assert_eq!(s.generation_tokens, Some(13000.0));
        assert_eq!(s.requests_finished, Some(36.0));
        assert_eq!(
            s.itl,
            Some(Histogram {
                buckets: vec![(0.01, 150.0), (0.1, 210.0), (f64::INFINITY, 220.0)],
                sum: 4.5,
                count: 220.0
            })
        );
        assert_eq!(s.ttft, None);
        assert_eq!(
            s.config_labels.get("num_gpu_blocks").map(String::as_str),
            Some("27000")
        );
        assert_eq!(
            s.config_labels
                .get("enable_prefix_caching")
                .map(String::as_str),
            Some("True")
        );
        assert!(!s.config_labels.contains_key("engine"));
    }

    #[test]
    fn v0_names_map_to_the_same_fields() {
        let text = r#"# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m"} 3.0
# TYPE vllm:num_requests_swapped gauge
vllm:num_requests_swapped{model_name="m"} 2.0
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{model_name="m"} 5.0
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{model_name="m"} 0.93
# TYPE vllm:gpu_prefix_cache_hit_rate gauge
vllm:gpu_prefix_cache_hit_rate{model_name="m"} 0.42
# TYPE vllm:time_per_output_token_seconds histogram
vllm:time_per_output_token_seconds_bucket{le="0.05",model_name="m"} 7.0
vllm:time_per_output_token_seconds_bucket{le="+Inf",model_name="m"} 8.0
vllm:time_per_output_token_seconds_count{model_name="m"} 8.0
vllm:time_per_output_token_seconds_sum{model_name="m"} 0.3
"#;
        let s = sample_of(text);
        assert_eq!(s.engine_generation.as_deref(), Some("v0"));
        assert_eq!(
            (s.running, s.waiting, s.swapped),
            (Some(3.0), Some(5.0), Some(2.0))
        );
        assert_eq!(s.kv_usage, Some(0.93));
        assert_eq!(s.prefix_hit_rate_gauge, Some(0.42));
        let itl = s.itl.unwrap();
        assert_eq!((itl.count, itl.sum), (8.0, 0.3));
        // −1 means prefix caching off: no rate at all.
        let s = sample_of("vllm:gpu_prefix_cache_hit_rate{model_name=\"m\"} -1.0\n");
        assert_eq!(s.prefix_hit_rate_gauge, None);
    }

    #[test]
    fn early_v1_gpu_prefix_counters_and_unsuffixed_type_lines() {
        // 0.8-era V1: gpu_ names with `engine`, counters whose TYPE line lacks `_total`.
        let text = r#"# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{engine="0",model_name="m"} 0.5
# TYPE vllm:gpu_prefix_cache_queries counter
vllm:gpu_prefix_cache_queries_total{engine="0",model_name="m"} 64.0
# TYPE vllm:gpu_prefix_cache_hits counter
vllm:gpu_prefix_cache_hits_total{engine="0",model_name="m"} 16.0
"#;
        let s = sample_of(text);
        assert_eq!(s.engine_generation.as_deref(), Some("v1"));
        assert_eq!(
            (s.kv_usage, s.prefix_queries, s.prefix_hits),
            (Some(0.5), Some(64.0), Some(16.0))
        );
    }

    #[test]
    fn step_ledger_and_spec_decode_counters() {
        let text = r#"vllm:engine_steps_total{engine="0",model_name="m"} 1000
vllm:engine_steps_decode_total{engine="0",model_name="m"} 900
vllm:engine_step_seconds_total{engine="0",model_name="m"} 25.5
vllm:engine_step_seconds_decode_total{engine="0",model_name="m"} 20.25
vllm:engine_prefill_chunks_total{engine="0",model_name="m"} 130
vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 10
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} 30
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 21
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} 9
"#;
        let s = sample_of(text);
        assert_eq!((s.steps, s.steps_decode), (Some(1000.0), Some(900.0)));
        assert_eq!(
            (s.step_seconds, s.step_seconds_decode),
            (Some(25.5), Some(20.25))
        );
        assert_eq!(s.prefill_chunks, Some(130.0));
        assert_eq!(
            (s.spec_drafts, s.spec_draft_tokens, s.spec_accepted_tokens),
            (Some(10.0), Some(30.0), Some(21.0))
        );
    }

    /// A real vLLM 0.32.0 (CPU build) after 40 s of 8 clients (fixtures/vllm-0.32/SOURCES.md).
    const REAL_0_32: &str = include_str!("../../../../fixtures/vllm-0.32/metrics-8-clients.prom");

    #[test]
    fn real_vllm_0_32_families_read() {
        let s = sample_of(REAL_0_32);
        assert_eq!(s.engine, Engine::Vllm);
        assert_eq!(s.engine_generation.as_deref(), Some("v1"));
        assert_eq!(s.model.as_deref(), Some("smollm2-135m"));
        assert_eq!(s.prompt_tokens, Some(781.0));
        // No prefix hit in that run: every prompt token was computed here.
        assert_eq!(s.prompt_tokens_computed, Some(781.0));
        assert_eq!(s.waiting_for_capacity, Some(0.0));
        // Per-reason series without an `engine` label (rejections happen before an engine).
        assert_eq!(s.admission_rejections, Some(0.0));
        // 66 stop + 5 length (abort, error and repetition pre-created at 0).
        assert_eq!(s.requests_finished, Some(71.0));
        let pre = s.preemptions_per_request.expect("request_num_preemptions");
        assert_eq!(pre.count, 71.0);
        assert_eq!(s.preemptions, Some(0.0));
        assert_eq!(
            s.config_labels.get("num_gpu_blocks").map(String::as_str),
            Some("364")
        );
        assert_eq!(
            s.config_labels
                .get("kv_cache_memory_bytes")
                .map(String::as_str),
            Some("1073741824")
        );
    }

    /// Every family the real vLLM 0.32 sends is either read or listed with the reason it carries
    /// no evidence for the rules yet; every family asked for and not sent is listed with why.
    #[test]
    fn real_vllm_0_32_families_placed() {
        const UNREAD: &[(&str, &str)] = &[
            // The API server's process and HTTP bookkeeping (prometheus_client defaults).
            ("http_request_duration_highr_seconds", "process"),
            ("http_request_duration_seconds", "process"),
            ("http_request_size_bytes", "process"),
            ("http_requests", "process"),
            ("http_response_size_bytes", "process"),
            ("process_cpu_seconds", "process"),
            ("process_max_fds", "process"),
            ("process_open_fds", "process"),
            ("process_resident_memory_bytes", "process"),
            ("process_start_time_seconds", "process"),
            ("process_virtual_memory_bytes", "process"),
            ("python_gc_collections", "process"),
            ("python_gc_objects_collected", "process"),
            ("python_gc_objects_uncollectable", "process"),
            ("python_info", "process"),
            // Zero or absent unless configured: sleep mode, KV connectors, multimodal inputs.
            ("vllm:engine_sleep_state", "sleep mode"),
            ("vllm:external_prefix_cache_hits", "KV connector"),
            ("vllm:external_prefix_cache_queries", "KV connector"),
            ("vllm:mm_cache_hits", "multimodal"),
            ("vllm:mm_cache_queries", "multimodal"),
            // vLLM's own model of the work per GPU; headroom's ceiling comes from physics.
            ("vllm:estimated_flops_per_gpu", "model estimate"),
            ("vllm:estimated_read_bytes_per_gpu", "model estimate"),
            ("vllm:estimated_write_bytes_per_gpu", "model estimate"),
            // The same fact as a family that is read.
            (
                "vllm:prompt_tokens_cached_by_source",
                "redundant: prompt_tokens_by_source",
            ),
            (
                "vllm:request_prefill_kv_computed_tokens",
                "redundant: prompt_tokens_by_source{local_compute}",
            ),
            (
                "vllm:request_time_per_output_token_seconds",
                "redundant: inter_token_latency_seconds",
            ),
            (
                "vllm:request_max_num_generation_tokens",
                "redundant: request_generation_tokens",
            ),
            // Per-request phase times and batch sizes no rule judges yet.
            (
                "vllm:request_inference_time_seconds",
                "not judged: per-request run time",
            ),
            (
                "vllm:iteration_tokens_total",
                "not judged: tokens per engine step",
            ),
            (
                "vllm:request_params_max_tokens",
                "not judged: the clients' max_tokens",
            ),
            ("vllm:request_params_n", "not judged: the clients' n"),
        ];
        const ABSENT: &[(&str, &str)] = &[
            (
                "vllm:gpu_cache_usage_perc",
                "the V0 name of kv_cache_usage_perc",
            ),
            ("vllm:gpu_prefix_cache_hit_rate", "a V0 gauge"),
            (
                "vllm:gpu_prefix_cache_hits",
                "the older name of prefix_cache_hits",
            ),
            (
                "vllm:gpu_prefix_cache_queries",
                "the older name of prefix_cache_queries",
            ),
            ("vllm:num_requests_swapped", "V0 only: V1 does not swap"),
            (
                "vllm:time_per_output_token_seconds",
                "the older name of inter_token_latency_seconds",
            ),
            (
                "vllm:spec_decode_num_drafts",
                "exported only with speculative decoding",
            ),
            (
                "vllm:spec_decode_num_draft_tokens",
                "exported only with speculative decoding",
            ),
            (
                "vllm:spec_decode_num_accepted_tokens",
                "exported only with speculative decoding",
            ),
            // The step ledger: an engine built on vLLM may export it; stock vLLM does not.
            ("vllm:engine_steps", "step ledger, not in stock vLLM"),
            ("vllm:engine_steps_decode", "step ledger, not in stock vLLM"),
            ("vllm:engine_step_seconds", "step ledger, not in stock vLLM"),
            (
                "vllm:engine_step_seconds_decode",
                "step ledger, not in stock vLLM",
            ),
            (
                "vllm:engine_prefill_chunks",
                "step ledger, not in stock vLLM",
            ),
        ];
        crate::adapters::assert_families_placed(REAL_0_32, UNREAD, ABSENT);
    }
}
