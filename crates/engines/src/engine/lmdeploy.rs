//! LMDeploy (InternLM's server, `lmdeploy serve api_server`): prometheus_client metrics under
//! `lmdeploy:` on `/metrics`, on by default since the metrics module landed (InternLM/lmdeploy#3534;
//! `--disable-metrics` turns them off), named after vLLM V1's. Every series carries `model_name`
//! and `engine` (the data-parallel rank) labels: counts sum over ranks, the KV fraction averages.
//! The names below are those LMDeploy 0.18.0's `lmdeploy/metrics/loggers.py` registers
//! (fixtures/lmdeploy-0.18.0, with the wheel's hash); no public capture of a live server exists
//! yet, so the adapter's tests read a body written from those names and kinds.

use super::{Definition, Launcher};
use crate::flags::{switch, val, Field as F, FlagRow, Knob as K};
use crate::sample::Sample;
use crate::series::{counter, gauge, histogram, read_series, Agg, Series, View};

/// LMDeploy: its metric prefix; its `/v1/models` entries say `owned_by: lmdeploy`
/// (`lmdeploy/serve/openai/protocol.py`, `ModelCard`).
pub const DEF: Definition = Definition {
    engine: crate::Engine::Lmdeploy,
    id: "lmdeploy",
    name: "LMDeploy",
    prefix: "lmdeploy:",
    owned_by: Some("lmdeploy"),
    launchers: &[Launcher::Subcommand("lmdeploy", &["serve", "api_server"])],
    model_positional: true,
    prompt_paths: PROMPT_PATHS,
    series: SERIES,
    flags: FLAGS,
    fill,
    cached_tokens_hint: "LMDeploy's OpenAI responses carry no cached-token count; its \
lmdeploy:cached_tokens_total counter gives the server-wide share",
    prompt_tokens_exclude_cached: false,
};

/// `lmdeploy serve api_server` flags (`lmdeploy/cli/utils.py`, 0.18.0), read in both directions.
/// `--cache-max-entry-count` is the share of the memory left *after the weights* that the KV
/// cache takes (default 0.8), not vLLM's share of the whole GPU, so it is not read as
/// `gpu_memory_utilization`; `--quant-policy` takes 4 or 8 (int4/int8 KV), not a dtype name.
pub(crate) const FLAGS: &[FlagRow] = &[
    val(&["--model-name"], F::ServedModelName),
    val(&["--max-batch-size"], F::MaxNumSeqs).fix(K::MaxNumSeqs, "--max-batch-size"),
    val(&["--session-len"], F::MaxModelLen).fix(K::MaxModelLen, "--session-len"),
    val(&["--max-prefill-token-num"], F::MaxNumBatchedTokens)
        .fix(K::MaxNumBatchedTokens, "--max-prefill-token-num"),
    val(&["--tp"], F::TensorParallel).fix(K::TensorParallelSize, "--tp"),
    val(&["--dp"], F::DataParallel),
    switch(&["--enable-prefix-caching"], F::EnablePrefixCaching, true)
        .fix(K::PrefixCaching, "--enable-prefix-caching"),
    val(&["--cache-block-seq-len"], F::BlockSize),
    val(&["--num-gpu-blocks"], F::NumGpuBlocks).fix(K::KvBlocksOverride, "--num-gpu-blocks"),
    val(&["--dtype"], F::Dtype),
    val(&["--model-format"], F::Quantization),
    val(&["--speculative-draft-model"], F::Speculative),
    switch(
        &[
            "--trust-remote-code",
            "--eager-mode",
            "--disable-metrics",
            "--disable-fastapi-docs",
            "--allow-terminate-by-client",
            "--enable-microbatch",
            "--enable-eplb",
        ],
        F::Ignore,
        true,
    ),
    val(
        &[
            "--server-name",
            "--server-port",
            "--backend",
            "--cache-max-entry-count",
            "--quant-policy",
            "--chat-template",
            "--log-level",
            "--api-keys",
            "--device",
            "--ep",
            "--max-log-len",
            "--tool-call-parser",
            "--reasoning-parser",
        ],
        F::Ignore,
    ),
];

/// Where its API carries a prompt (`lmdeploy/serve/openai/endpoints/`, 0.18.0): `/generate`
/// takes `prompt` (or token ids, which carry no text to key on).
pub const PROMPT_PATHS: &[crate::prompt::PromptPath] = &[
    crate::prompt::at("/generate", &["prompt"]),
    crate::prompt::at("/v1/completions", &["prompt"]),
    crate::prompt::at("/v1/chat/completions", &["messages"]),
];

/// Its metrics, read from a scrape and by the store readers.
pub(crate) const SERIES: &[Series] = &[
    gauge("running", &["lmdeploy:num_requests_running"], SUM),
    gauge("waiting", &["lmdeploy:num_requests_waiting"], SUM),
    // A 0–1 fraction ("1 means 100 percent usage"), as vLLM's.
    gauge("kv_usage", &["lmdeploy:gpu_cache_usage_perc"], Agg::Mean),
    counter("prompt_tokens", &["lmdeploy:prompt_tokens"], SUM),
    counter("generation_tokens", &["lmdeploy:generation_tokens"], SUM),
    counter("requests_finished", &["lmdeploy:request_success"], SUM),
    // Prompt tokens served from the prefix cache.
    counter("cached_prompt_tokens", &["lmdeploy:cached_tokens"], SUM),
    // The engine's own running hit rate, 0–1.
    gauge(
        "prefix_hit_rate_gauge",
        &["lmdeploy:prefix_cache_hit_rate"],
        Agg::Mean,
    )
    .adapter_only(),
    counter("spec_drafts", &["lmdeploy:spec_decode_num_drafts"], SUM).adapter_only(),
    counter(
        "spec_draft_tokens",
        &["lmdeploy:spec_decode_num_draft_tokens"],
        SUM,
    )
    .adapter_only(),
    counter(
        "spec_accepted_tokens",
        &["lmdeploy:spec_decode_num_accepted_tokens"],
        SUM,
    )
    .adapter_only(),
    histogram("ttft", &["lmdeploy:time_to_first_token_seconds"], SUM),
    // "Histogram of inter-token latency" (per iteration), as vLLM's inter_token_latency_seconds;
    // time_per_output_token_seconds is the per-request mean.
    histogram("itl", &["lmdeploy:iter_token_latency"], SUM),
    histogram("e2e", &["lmdeploy:e2e_request_latency_seconds"], SUM),
    histogram("queue_time", &["lmdeploy:request_queue_time_seconds"], SUM),
    histogram("prompt_len", &["lmdeploy:request_prompt_tokens"], SUM),
    histogram("gen_len", &["lmdeploy:request_generation_tokens"], SUM),
    histogram(
        "prefill_time",
        &["lmdeploy:request_prefill_time_seconds"],
        SUM,
    )
    .adapter_only(),
    histogram(
        "decode_time",
        &["lmdeploy:request_decode_time_seconds"],
        SUM,
    )
    .adapter_only(),
];

const SUM: Agg = Agg::Sum;

pub(crate) fn fill(v: &View, s: &mut Sample) {
    read_series(v, s, SERIES);
}

#[cfg(test)]
mod tests {
    use crate::adapters::sample_of;
    use crate::sample::Engine;

    /// A body in LMDeploy 0.18.0's names, kinds and labels (prometheus_client's rendering of
    /// `lmdeploy/metrics/loggers.py`), two DP ranks; written from the source, not captured.
    const BODY: &str = r#"# TYPE lmdeploy:num_requests_running gauge
lmdeploy:num_requests_running{engine="0",model_name="qwen"} 3.0
lmdeploy:num_requests_running{engine="1",model_name="qwen"} 2.0
# TYPE lmdeploy:num_requests_waiting gauge
lmdeploy:num_requests_waiting{engine="0",model_name="qwen"} 4.0
lmdeploy:num_requests_waiting{engine="1",model_name="qwen"} 0.0
# TYPE lmdeploy:gpu_cache_usage_perc gauge
lmdeploy:gpu_cache_usage_perc{engine="0",model_name="qwen"} 0.5
lmdeploy:gpu_cache_usage_perc{engine="1",model_name="qwen"} 0.3
# TYPE lmdeploy:prompt_tokens_total counter
lmdeploy:prompt_tokens_total{engine="0",model_name="qwen"} 1000.0
lmdeploy:prompt_tokens_total{engine="1",model_name="qwen"} 500.0
# TYPE lmdeploy:generation_tokens_total counter
lmdeploy:generation_tokens_total{engine="0",model_name="qwen"} 200.0
# TYPE lmdeploy:cached_tokens_total counter
lmdeploy:cached_tokens_total{engine="0",model_name="qwen"} 600.0
# TYPE lmdeploy:time_to_first_token_seconds histogram
lmdeploy:time_to_first_token_seconds_bucket{engine="0",le="0.1",model_name="qwen"} 1.0
lmdeploy:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="qwen"} 2.0
lmdeploy:time_to_first_token_seconds_count{engine="0",model_name="qwen"} 2.0
lmdeploy:time_to_first_token_seconds_sum{engine="0",model_name="qwen"} 0.35
"#;

    #[test]
    fn lmdeploy_is_read_by_its_own_names() {
        let s = sample_of(BODY);
        assert_eq!(s.engine, Engine::Lmdeploy);
        assert_eq!(s.running, Some(5.0));
        assert_eq!(s.waiting, Some(4.0));
        assert!((s.kv_usage.unwrap() - 0.4).abs() < 1e-12, "mean over ranks");
        assert_eq!(s.prompt_tokens, Some(1500.0));
        assert_eq!(s.generation_tokens, Some(200.0));
        assert_eq!(s.cached_prompt_tokens, Some(600.0));
        let h = s.ttft.unwrap();
        assert_eq!(h.count, 2.0);
    }

    #[test]
    fn its_launcher_and_flags_are_read() {
        let c = crate::EngineConfig::from_argv(
            &"lmdeploy serve api_server internlm/internlm2_5-7b-chat --tp 2 --max-batch-size 128 --session-len 8192 --enable-prefix-caching --cache-max-entry-count 0.5"
                .split(' ')
                .map(str::to_string)
                .collect::<Vec<_>>(),
            crate::config::Source::EngineArgs,
        )
        .unwrap();
        assert_eq!(c.engine, Some(Engine::Lmdeploy));
        assert_eq!(
            c.model.map(|k| k.value).as_deref(),
            Some("internlm/internlm2_5-7b-chat")
        );
        assert_eq!(c.tensor_parallel_size.map(|k| k.value), Some(2));
        assert_eq!(c.max_num_seqs.map(|k| k.value), Some(128));
        assert_eq!(c.max_model_len.map(|k| k.value), Some(8192));
        assert_eq!(c.enable_prefix_caching.map(|k| k.value), Some(true));
        assert!(c.gpu_memory_utilization.is_none(), "not vLLM's share");
    }
}
