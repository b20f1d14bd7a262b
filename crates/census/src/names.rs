//! The metric names the census reads. Latency lives under vLLM's compatibility prefix; the
//! cadence (step ledger, tps gauges) may live under the engine's own prefix (`radiance:` in
//! spec §9), so cadence families are matched by suffix under any prefix: a `radiance:`-only
//! reading finds no latency and no preemption, and a `vllm:`-only one finds no ledger.

pub const GENERATION: &str = "vllm:generation_tokens_total";
pub const PROMPT: &str = "vllm:prompt_tokens_total";
pub const RUNNING: &str = "vllm:num_requests_running";
pub const PREEMPTIONS: &str = "vllm:num_preemptions_total";
pub const TTFT_BUCKET: &str = "vllm:time_to_first_token_seconds_bucket";
pub const ITERATION_COUNT: &str = "vllm:iteration_tokens_total_count";
pub const ITERATION_SUM: &str = "vllm:iteration_tokens_total_sum";

/// Cadence suffixes (after `prefix:`).
pub const STEPS: &str = "engine_steps_total";
pub const STEPS_DECODE: &str = "engine_steps_decode_total";
pub const STEP_SECONDS: &str = "engine_step_seconds_total";
pub const STEP_SECONDS_DECODE: &str = "engine_step_seconds_decode_total";
pub const DECODE_TPS: &str = "decode_tokens_per_second";
pub const PREFILL_TPS: &str = "prefill_tokens_per_second";
/// The instant depth of preempted requests: a gauge, not the count (the first trap).
pub const PREEMPTED_DEPTH: &str = "num_requests_preempted";

pub const LEDGER: [&str; 4] = [STEPS, STEPS_DECODE, STEP_SECONDS, STEP_SECONDS_DECODE];
pub const CADENCE: [&str; 7] = [
    STEPS,
    STEPS_DECODE,
    STEP_SECONDS,
    STEP_SECONDS_DECODE,
    DECODE_TPS,
    PREFILL_TPS,
    PREEMPTED_DEPTH,
];
pub const LATENCY: [&str; 7] = [
    GENERATION,
    PROMPT,
    RUNNING,
    PREEMPTIONS,
    TTFT_BUCKET,
    ITERATION_COUNT,
    ITERATION_SUM,
];

/// `(prefix, suffix)` when `name` is `prefix:suffix` with a cadence suffix.
pub fn cadence(name: &str) -> Option<(&str, &'static str)> {
    let (prefix, rest) = name.split_once(':')?;
    CADENCE.iter().find(|s| **s == rest).map(|s| (prefix, *s))
}

/// A regex matching every name the census reads.
pub fn regex() -> String {
    format!(
        "{}|[a-zA-Z_][a-zA-Z0-9_]*:({})",
        LATENCY.join("|"),
        CADENCE.join("|")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cadence_under_any_prefix() {
        assert_eq!(
            cadence("radiance:engine_steps_total"),
            Some(("radiance", STEPS))
        );
        assert_eq!(
            cadence("vllm:engine_step_seconds_decode_total").map(|c| c.0),
            Some("vllm")
        );
        assert_eq!(cadence("vllm:generation_tokens_total"), None);
        assert_eq!(cadence("engine_steps_total"), None);
        assert!(regex().contains("vllm:time_to_first_token_seconds_bucket|"));
    }
}
