"""Writes a day of history for `headroom census`, as OpenMetrics text for
`promtool tsdb create-blocks-from openmetrics` (the approach of fleet_gen.py): one sample every
15 s over SPAN_S seconds ending at END_UNIX, four engines (job="census"), each with a planted
shape and a known answer. Deterministic (seeded), no wall clock.

  10.1.0.1:8000  step-time contention: per-stream decode 0.65x inside each prefill burst, TTFT
                 1.2 s there (0.08 s otherwise). Latency under vllm:, cadence under radiance:
                 (step ledger: decode-only steps of 15.5 ms, chunk steps of 166 ms, chunk steps
                 fill 70 % of a burst's time). The first quarter of the window is an older
                 container: no step ledger, decode collapsing to 0.1x in bursts; then a restart
                 (counters from 0, two missed scrapes) into the current build.
  10.1.0.2:8000  residency churn: decode 0.7x from 3 to 9 min after each burst ends, never
                 during one. Same prefixes and ledger as above.
  10.1.0.3:8000  stock vLLM, preemption stall: no step ledger and no radiance: series; every
                 other burst preempts (3 preemptions at its start) and decode drops to 0.05x
                 through it and one minute after; the other bursts leave decode alone.
                 vllm:iteration_tokens_total counts the steps.
  10.1.0.4:8000  tps gauges only (radiance:decode_tokens_per_second, prefill_tokens_per_second,
                 radiance:num_requests_preempted) plus vllm:num_requests_running; no vLLM
                 token counters; contention as the first.

Bursts: 4-10 scrapes (1-2.5 min) of 3000-3500 prompt tok/s, every 15-45 min. Running: 8.
Per-stream decode at 1x: 50 tok/s, +-3 % noise.
Usage: census_gen.py END_UNIX SPAN_S OUT"""
import random
import sys

end, span, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
TICK = 15
start = end - span
ticks = list(range(start, end + 1, TICK))
N = len(ticks)
TTFT = [0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0]
ITER = [1, 8, 64, 512, 4096, 16384]
DECODE_MS, CHUNK_MS, CHUNK_FRACTION = 0.0155, 0.166, 0.7
RUNNING, PER_STREAM = 8.0, 50.0


def bursts(rng):
    out, k = [], 20
    while k < N:
        n = rng.randint(4, 10)
        out.append((k, min(k + n, N)))
        k += rng.randint(60, 180)
    return out


def engine(idx, shape, restart_at=None):
    """Per-tick state of one engine: a list of dicts (None where the engine was not scraped)."""
    rng = random.Random(1000 + idx)
    bs = bursts(rng)
    in_burst = [None] * N
    for j, (a, b) in enumerate(bs):
        for k in range(a, b):
            in_burst[k] = j
    rows, c = [], None
    for k in range(N):
        if restart_at is not None and restart_at <= k < restart_at + 2:
            rows.append(None)  # the restart: two missed scrapes
            c = None
            continue
        old = restart_at is not None and k < restart_at
        if c is None:
            c = dict(gen=0.0, prompt=0.0, pre=0.0, steps=0.0, steps_d=0.0, sec=0.0, sec_d=0.0,
                     ttft=[0.0] * (len(TTFT) + 1), ttft_sum=0.0, it=[0.0] * (len(ITER) + 1),
                     it_sum=0.0)
        j = in_burst[k]
        prefill = 3000 + 500 * rng.random() if j is not None else (0.0 if rng.random() < 0.7 else 10 + 30 * rng.random())
        factor, preempt = shape(k, j, bs, old)
        decode = RUNNING * PER_STREAM * factor * (0.97 + 0.06 * rng.random())
        c["gen"] += decode * TICK
        c["prompt"] += prefill * TICK
        c["pre"] += preempt
        if j is not None:
            chunk_steps, dec_steps = CHUNK_FRACTION * TICK / CHUNK_MS, (1 - CHUNK_FRACTION) * TICK / DECODE_MS
        else:
            chunk_steps, dec_steps = 0.0, TICK / DECODE_MS
        c["steps"] += chunk_steps + dec_steps
        c["steps_d"] += dec_steps
        c["sec"] += chunk_steps * CHUNK_MS + dec_steps * DECODE_MS
        c["sec_d"] += dec_steps * DECODE_MS
        ttft_v = 1.2 if (j is not None and shape is contention) else 0.08
        firsts = 7.0
        for i, le in enumerate(TTFT):
            if ttft_v <= le:
                c["ttft"][i] += firsts
        c["ttft"][-1] += firsts
        c["ttft_sum"] += firsts * ttft_v
        steps = chunk_steps + dec_steps
        tokens = (decode + prefill) * TICK
        per_step = tokens / steps
        for i, le in enumerate(ITER):
            if per_step <= le:
                c["it"][i] += steps
        c["it"][-1] += steps
        c["it_sum"] += tokens
        rows.append(dict(c, ttft=list(c["ttft"]), it=list(c["it"]), decode=decode, prefill=prefill, old=old,
                         depth=3.0 if preempt else 0.0))
    return rows


def contention(k, j, bs, old):
    if j is None:
        return 1.0, 0.0
    return (0.1 if old else 0.65), 0.0


def churn(k, j, bs, old):
    after = any(b + 12 <= k < b + 36 for (_, b) in bs)
    return (0.7 if after else 1.0), 0.0


def preemption(k, j, bs, old):
    for n, (a, b) in enumerate(bs):
        if n % 2 == 0 and a <= k < b + 4:
            return 0.05, (3.0 if k == a else 0.0)
    return 1.0, 0.0


ENGINES = [
    ("10.1.0.1:8000", engine(1, contention, restart_at=N // 4), {"vllm", "ledger", "gauges"}),
    ("10.1.0.2:8000", engine(2, churn), {"vllm", "ledger", "gauges"}),
    ("10.1.0.3:8000", engine(3, preemption), {"vllm", "iter"}),
    ("10.1.0.4:8000", engine(4, contention), {"gauges", "running"}),
]

lines = []
w = lines.append


def lab(inst, extra=""):
    return f'{{instance="{inst}",job="census",engine="0",model_name="m"{extra}}}'


def family(name, kind, want, value, suffix="", when=lambda r: True):
    w(f"# TYPE {name} {kind}")
    for inst, rows, has in ENGINES:
        if not (want & has):
            continue
        for t, r in zip(ticks, rows):
            if r is None or not when(r):
                continue
            w(f"{name}{suffix}{lab(inst)} {value(r)} {t}")


def hist(name, want, bounds, key, sum_key):
    w(f"# TYPE {name} histogram")
    for inst, rows, has in ENGINES:
        if not (want & has):
            continue
        for t, r in zip(ticks, rows):
            if r is None:
                continue
            for i, le in enumerate(bounds):
                w(f'{name}_bucket{lab(inst, ",le=" + chr(34) + str(float(le)) + chr(34))} {r[key][i]} {t}')
            w(f'{name}_bucket{lab(inst, ",le=" + chr(34) + "+Inf" + chr(34))} {r[key][-1]} {t}')
            w(f"{name}_sum{lab(inst)} {r[sum_key]} {t}")
            w(f"{name}_count{lab(inst)} {r[key][-1]} {t}")


new = lambda r: not r["old"]
family("vllm:generation_tokens", "counter", {"vllm"}, lambda r: r["gen"], "_total")
family("vllm:prompt_tokens", "counter", {"vllm"}, lambda r: r["prompt"], "_total")
family("vllm:num_preemptions", "counter", {"vllm"}, lambda r: r["pre"], "_total")
family("vllm:num_requests_running", "gauge", {"vllm", "running"}, lambda r: RUNNING)
hist("vllm:time_to_first_token_seconds", {"vllm"}, TTFT, "ttft", "ttft_sum")
hist("vllm:iteration_tokens_total", {"iter"}, ITER, "it", "it_sum")
family("radiance:engine_steps", "counter", {"ledger"}, lambda r: r["steps"], "_total", new)
family("radiance:engine_steps_decode", "counter", {"ledger"}, lambda r: r["steps_d"], "_total", new)
family("radiance:engine_step_seconds", "counter", {"ledger"}, lambda r: r["sec"], "_total", new)
family("radiance:engine_step_seconds_decode", "counter", {"ledger"}, lambda r: r["sec_d"], "_total", new)
family("radiance:decode_tokens_per_second", "gauge", {"gauges"}, lambda r: r["decode"])
family("radiance:prefill_tokens_per_second", "gauge", {"gauges"}, lambda r: r["prefill"])
family("radiance:num_requests_preempted", "gauge", {"gauges"}, lambda r: r["depth"])
w("# EOF")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
print(f"{len(lines)} lines, {len(ENGINES)} engines, {N} scrapes each", file=sys.stderr)
