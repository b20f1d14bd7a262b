"""Writes OpenMetrics text for N replicas of vLLM V1 (the names headroom's adapters read), one
sample every 15 s over a span ending at END, for `promtool tsdb create-blocks-from openmetrics`.
Replica 0 runs with prefix caching off on shared-prefix traffic (R3's shape); replica 1 gets 3x
the requests of the others (imbalance). Deterministic: no randomness.
Usage: fleet_gen.py N END_UNIX SPAN_S OUT"""
import sys

n, end, span, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
step = 15
times = list(range(end - span, end + 1, step))
TTFT = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0]
ITL = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0]
LEN = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000]


def name(i):
    return f"10.0.{i // 250}.{i % 250 + 1}:8000"


def labels(i, extra=""):
    return f'{{instance="{name(i)}",job="bench",engine="0",model_name="llama"{extra}}}'


def rate(i):
    # finished requests per second
    return 6.0 if i == 1 else 2.0


lines = []
w = lines.append


def gauge(fam, f):
    w(f"# TYPE {fam} gauge")
    for i in range(n):
        for t in times:
            w(f"{fam}{labels(i)} {f(i, t)} {t}")


def counter(fam, per_s, extra=""):
    w(f"# TYPE {fam} counter")
    for i in range(n):
        for t in times:
            w(f"{fam}_total{labels(i, extra)} {per_s(i) * (t - times[0] + 3600)} {t}")


def hist(fam, bounds, typical, per_s):
    w(f"# TYPE {fam} histogram")
    for i in range(n):
        for t in times:
            c = per_s(i) * (t - times[0] + 3600)
            for b in bounds:
                share = 1.0 if b >= typical(i) else 0.3 * b / typical(i)
                w(f'{fam}_bucket{labels(i, ",le=" + chr(34) + str(float(b)) + chr(34))} {c * share} {t}')
            w(f'{fam}_bucket{labels(i, ",le=" + chr(34) + "+Inf" + chr(34))} {c} {t}')
            w(f"{fam}_sum{labels(i)} {c * typical(i) * 0.8} {t}")
            w(f"{fam}_count{labels(i)} {c} {t}")


gauge("vllm:num_requests_running", lambda i, t: 24 if i == 1 else 8 + (t // step) % 3)
gauge("vllm:num_requests_waiting", lambda i, t: 0)
gauge("vllm:kv_cache_usage_perc", lambda i, t: 0.35)
counter("vllm:prompt_tokens", lambda i: rate(i) * 800)
counter("vllm:generation_tokens", lambda i: rate(i) * 200)
counter("vllm:num_preemptions", lambda i: 0)
counter("vllm:request_success", rate, ',finished_reason="stop"')
counter("vllm:prefix_cache_queries", lambda i: rate(i) * 800)
counter("vllm:prefix_cache_hits", lambda i: 0 if i == 0 else rate(i) * 560)
hist("vllm:time_to_first_token_seconds", TTFT, lambda i: 0.25, rate)
hist("vllm:inter_token_latency_seconds", ITL, lambda i: 0.05, lambda i: rate(i) * 200)
hist("vllm:e2e_request_latency_seconds", TTFT, lambda i: 10.0, rate)
hist("vllm:request_queue_time_seconds", TTFT, lambda i: 0.01, rate)
hist("vllm:request_prompt_tokens", LEN, lambda i: 1000, rate)
hist("vllm:request_generation_tokens", LEN, lambda i: 200, rate)
w("# TYPE vllm:cache_config_info gauge")
for i in range(n):
    pc = "False" if i == 0 else "True"
    for t in times:
        w(f'vllm:cache_config_info{{instance="{name(i)}",job="bench",engine="0",block_size="16",enable_prefix_caching="{pc}",num_gpu_blocks="20000"}} 1 {t}')
w("# EOF")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
print(f"{len(lines)} lines, {n} replicas, {len(times)} points each", file=sys.stderr)
