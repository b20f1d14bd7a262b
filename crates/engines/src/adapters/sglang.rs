//! SGLang with `--enable-metrics` (shared/research/metrics.md §2).
//!
//! Scheduler-side series carry `tp_rank`, `pp_rank`, `moe_ep_rank` and sometimes `dp_rank`.
//! Ranks of one tensor/pipeline/expert-parallel group run the same schedule over the same
//! requests, so their values are replicas of one state: they are **averaged** (summing would
//! multiply the queue by TP). Data-parallel ranks (`dp_rank`) and `engine_type` (prefill vs
//! decode workers) hold different requests and pools, so they are **summed**.
//! Tokenizer-side counters carry `model_name` only and are summed.

use super::{Agg, View};
use crate::sample::Sample;

const REPLICA_LABELS: &[&str] = &["tp_rank", "pp_rank", "moe_ep_rank"];

pub(crate) fn fill(v: &View, s: &mut Sample) {
    let per_sched = Agg::MeanOverThenSum(REPLICA_LABELS);
    s.model = v.label_of("sglang:", "model_name");
    s.running = v.gauge(&["sglang:num_running_reqs"], per_sched);
    // `num_queue_req` (singular) in 2024–early 2025 builds.
    s.waiting = v.gauge(
        &["sglang:num_queue_reqs", "sglang:num_queue_req"],
        per_sched,
    );
    s.kv_capacity_tokens = v.gauge(&["sglang:max_total_num_tokens"], per_sched);
    // Pool usage over all DP pools is used/capacity summed; without both, the per-rank fraction
    // is averaged (a fraction must never be summed).
    let used = v.gauge(&["sglang:num_used_tokens"], per_sched);
    s.kv_usage = match (used, s.kv_capacity_tokens) {
        (Some(u), Some(c)) if c > 0.0 => Some(u / c),
        _ => v.gauge(&["sglang:token_usage"], Agg::Mean),
    };
    // A gauge over the last log interval; averaged across schedulers (no weights exported).
    s.prefix_hit_rate_gauge = v
        .gauge(&["sglang:cache_hit_rate"], Agg::Mean)
        .filter(|r| (0.0..=1.0).contains(r));

    s.prompt_tokens = v.counter(&["sglang:prompt_tokens"], per_sched);
    s.generation_tokens = v.counter(&["sglang:generation_tokens"], per_sched);
    s.cached_prompt_tokens = v.counter(&["sglang:cached_tokens"], per_sched);
    s.requests_finished = v.counter(&["sglang:num_requests"], per_sched);
    // Retraction is SGLang's preemption.
    s.preemptions = v.counter(&["sglang:num_retracted_requests"], per_sched);

    s.ttft = v.histogram(&["sglang:time_to_first_token_seconds"], per_sched);
    // Its `_count` counts tokens, not intervals (buckets step by num_new_tokens while `_sum`
    // adds the interval), so sum/count is seconds per token.
    s.itl = v.histogram(
        &[
            "sglang:inter_token_latency_seconds",
            "sglang:time_per_output_token_seconds",
        ],
        per_sched,
    );
    s.e2e = v.histogram(&["sglang:e2e_request_latency_seconds"], per_sched);
    s.queue_time = v.histogram(&["sglang:queue_time_seconds"], per_sched);
    s.prompt_len = v.histogram(&["sglang:prompt_tokens_histogram"], per_sched);
    s.gen_len = v.histogram(&["sglang:generation_tokens_histogram"], per_sched);
}

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
        assert_eq!(s.ttft.as_ref().map(|h| (h.count, h.sum)), Some((77.0, 9.2)));
        let q = s.queue_time.unwrap();
        assert_eq!(q.buckets, vec![(1.0, 5.0), (f64::INFINITY, 6.0)]);
        assert_eq!((q.count, q.sum), (6.0, 2.0));
    }

    #[test]
    fn old_names_and_usage_fraction_fallback() {
        let text = "sglang:num_queue_req{model_name=\"m\",tp_rank=\"0\"} 7\n\
sglang:token_usage{model_name=\"m\",tp_rank=\"0\"} 0.25\n\
sglang:time_per_output_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 4\n\
sglang:time_per_output_token_seconds_sum{model_name=\"m\"} 0.2\n\
sglang:time_per_output_token_seconds_count{model_name=\"m\"} 4\n";
        let s = sample_of(text);
        assert_eq!((s.waiting, s.kv_usage), (Some(7.0), Some(0.25)));
        assert_eq!(s.itl.map(|h| h.count), Some(4.0));
        assert_eq!(s.kv_capacity_tokens, None);
    }
}
