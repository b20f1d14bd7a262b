"""Writes OpenMetrics text for N replicas of vLLM V1 (the names headroom's adapters read), one
sample every 15 s over a span ending at END, for `promtool tsdb create-blocks-from openmetrics`.
Deterministic: no randomness. The figures agree with one another: mean prompt 800 and output 160
tokens (the counters and the histograms' sums), Little's law (running = finished/s x e2e), KV
usage = running x resident tokens / pool.
- Healthy replicas: 4 req/s, e2e 10 s, so 40 running of a pool that holds 120 such requests
  (a third of the KV wall: fed well enough that under-batching stays quiet), 70% prefix hits.
- Replica 0: prefix caching off on the same shared-prefix traffic (R3's shape): no hits, every
  prompt prefilled whole, so TTFT 1 s rather than 0.25 s and e2e 11 s (44 running).
- Replica 1: 2.5x the requests of the others at the same latency (imbalance): 100 running.
With a fifth argument `dcgm`, the GPUs too, as NVIDIA's dcgm-exporter writes them (job "dcgm",
scraped at the exporter's own host:9400, one NVIDIA H100 80GB HBM3 per replica host):
- healthy GPUs: clocks at their 1980 MHz maximum, SM active 70 %, DRAM active 10 % (a decode of
  640 tok/s over 40 sequences is 16 steps/s: ~8 % of the H100's bandwidth for an 8B bf16 model);
- replica 2's GPU is power-capped: SM clock 1410 of 1980 MHz, the SW power cap reason (0x4)
  set, busy (engine active 90 %);
- replica 3's GPU waits on the host: SM active 8 %, DRAM active 8 % (what its decode reads), while
  40 requests run;
- replica 5 runs on replica 4's host (port 8001), whose node has two GPUs and no pod labels:
  their join is ambiguous;
- one more node (10.9.9.9) has a GPU and no replica.
Usage: fleet_gen.py N END_UNIX SPAN_S OUT [dcgm]"""
import sys

n, end, span, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
dcgm = len(sys.argv) > 5 and sys.argv[5] == "dcgm"
step = 15
times = list(range(end - span, end + 1, step))
TTFT = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0]
ITL = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0]
LEN = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000]
E2E = [0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 60.0, 120.0]


def host(i):
    if dcgm and i == 5:
        return host(4)
    return f"10.0.{i // 250}.{i % 250 + 1}"


def name(i):
    return f"{host(i)}:{8001 if dcgm and i == 5 else 8000}"


def labels(i, extra=""):
    return f'{{instance="{name(i)}",job="bench",engine="0",model_name="llama"{extra}}}'


def rate(i):
    # finished requests per second
    return 10.0 if i == 1 else 4.0


def e2e(i):
    return 11.0 if i == 0 else 10.0


def running(i, t):
    # Little's law, with a ripple of one request either way
    return rate(i) * e2e(i) + (t // step) % 3 - 1


BLOCKS, BLOCK = 7200, 16  # a pool of 115200 tokens: 120 requests of 960 tokens


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


# Histograms put 0.8 x the typical value as the mean (see hist): typical = mean / 0.8.
gauge("vllm:num_requests_running", running)
gauge("vllm:num_requests_waiting", lambda i, t: 0)
# resident tokens per running request: the prompt and half the output on average
gauge("vllm:kv_cache_usage_perc", lambda i, t: round(running(i, t) * 880 / (BLOCKS * BLOCK), 4))
counter("vllm:prompt_tokens", lambda i: rate(i) * 800)
counter("vllm:generation_tokens", lambda i: rate(i) * 160)
counter("vllm:num_preemptions", lambda i: 0)
counter("vllm:request_success", rate, ',finished_reason="stop"')
counter("vllm:prefix_cache_queries", lambda i: rate(i) * 800)
counter("vllm:prefix_cache_hits", lambda i: 0 if i == 0 else rate(i) * 560)
ttft = lambda i: 1.0 if i == 0 else 0.25
hist("vllm:time_to_first_token_seconds", TTFT, lambda i: ttft(i) / 0.8, rate)
hist("vllm:inter_token_latency_seconds", ITL, lambda i: (e2e(i) - ttft(i)) / 160 / 0.8, lambda i: rate(i) * 160)
hist("vllm:e2e_request_latency_seconds", E2E, lambda i: e2e(i) / 0.8, rate)
hist("vllm:request_queue_time_seconds", TTFT, lambda i: 0.01 / 0.8, rate)
hist("vllm:request_prompt_tokens", LEN, lambda i: 1000, rate)
hist("vllm:request_generation_tokens", LEN, lambda i: 200, rate)
w("# TYPE vllm:cache_config_info gauge")
for i in range(n):
    pc = "False" if i == 0 else "True"
    for t in times:
        w(f'vllm:cache_config_info{{instance="{name(i)}",job="bench",engine="0",block_size="16",enable_prefix_caching="{pc}",num_gpu_blocks="{BLOCKS}"}} 1 {t}')
if dcgm:
    # (host, node name, gpu index, kind) per GPU
    gpus = []
    for i in range(n):
        if i == 5:
            continue
        kind = {2: "throttled", 3: "host-bound"}.get(i, "healthy")
        gpus.append((host(i), f"node-{i}", 0, kind))
        if i == 4 and n > 5:
            gpus.append((host(i), f"node-{i}", 1, "healthy"))
    gpus.append(("10.9.9.9", "node-spare", 0, "healthy"))

    def dlabels(h, node, g):
        return (f'{{gpu="{g}",UUID="GPU-{node}-{g}",device="nvidia{g}",'
                f'modelName="NVIDIA H100 80GB HBM3",Hostname="{node}",'
                f'instance="{h}:9400",job="dcgm"}}')

    FIELDS = {
        "DCGM_FI_DEV_SM_CLOCK": {"healthy": 1980, "throttled": 1410, "host-bound": 1980},
        "DCGM_FI_DEV_MAX_SM_CLOCK": {"healthy": 1980, "throttled": 1980, "host-bound": 1980},
        "DCGM_FI_DEV_MEM_CLOCK": {"healthy": 2619, "throttled": 2619, "host-bound": 2619},
        "DCGM_FI_DEV_POWER_USAGE": {"healthy": 520.0, "throttled": 350.0, "host-bound": 160.0},
        "DCGM_FI_DEV_POWER_MGMT_LIMIT": {"healthy": 700.0, "throttled": 350.0, "host-bound": 700.0},
        "DCGM_FI_DEV_GPU_TEMP": {"healthy": 62, "throttled": 71, "host-bound": 41},
        "DCGM_FI_DEV_CLOCKS_EVENT_REASONS": {"healthy": 0, "throttled": 4, "host-bound": 0},
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE": {"healthy": 0.9, "throttled": 0.9, "host-bound": 0.3},
        "DCGM_FI_PROF_SM_ACTIVE": {"healthy": 0.7, "throttled": 0.7, "host-bound": 0.08},
        "DCGM_FI_PROF_DRAM_ACTIVE": {"healthy": 0.1, "throttled": 0.1, "host-bound": 0.08},
        # One busy kernel reads 100 %: high on every GPU, the host-bound one included.
        "DCGM_FI_DEV_GPU_UTIL": {"healthy": 100, "throttled": 100, "host-bound": 97},
    }
    for fam, by_kind in FIELDS.items():
        w(f"# TYPE {fam} gauge")
        for (h, node, g, kind) in gpus:
            for t in times:
                w(f"{fam}{dlabels(h, node, g)} {by_kind[kind]} {t}")
w("# EOF")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
print(f"{len(lines)} lines, {n} replicas, {len(times)} points each", file=sys.stderr)
