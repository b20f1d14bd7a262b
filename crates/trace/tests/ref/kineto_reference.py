#!/usr/bin/env python3
"""Independent reference for headroom's trace attribution (used by tests/it/fixtures.rs).

Loads the whole trace with the standard library's json (floats as exact Decimals) and computes,
from first principles, the figures the Rust streaming walker must reproduce. Durations and
timestamps are integer nanoseconds: µs × 1000, rounded half away from zero.

usage:
  kineto_reference.py summary TRACE [FIRST LAST]   one JSON object of totals; with FIRST LAST,
                                                  device events are windowed to the CPU
                                                  ProfilerSteps FIRST..LAST as the spec of
                                                  --steps says: start within [start of step
                                                  FIRST, end of step LAST)
  kineto_reference.py offsets TRACE               byte offsets of each event in traceEvents
                                                  (via raw_decode), with each device event's
                                                  duration: for checking truncated copies
"""
import gzip, json, sys
from decimal import ROUND_HALF_UP, Decimal

DEVICE = ("kernel", "gpu_memcpy", "gpu_memset")
# First-generation Kineto (PyTorch 1.8) names for the same categories.
OLD = {"Kernel": "kernel", "Memcpy": "gpu_memcpy", "memcpy": "gpu_memcpy", "Memset": "gpu_memset",
       "memset": "gpu_memset", "Runtime": "cuda_runtime", "runtime": "cuda_runtime"}


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data


def ns(v):
    return int((Decimal(v) * 1000).to_integral_value(rounding=ROUND_HALF_UP))


def union(intervals):
    total, cur = 0, None
    for s, e in sorted(intervals):
        if cur is None or s > cur[1]:
            if cur:
                total += cur[1] - cur[0]
            cur = [s, e]
        else:
            cur[1] = max(cur[1], e)
    if cur:
        total += cur[1] - cur[0]
    return total


def step_number(name):
    if isinstance(name, str) and name.startswith("ProfilerStep#"):
        try:
            return int(name[len("ProfilerStep#"):])
        except ValueError:
            return None
    return None


def summary(path, first=None, last=None):
    doc = json.loads(read(path), parse_float=Decimal)
    events = doc["traceEvents"]
    window = None
    if first is not None:
        cpu = [e for e in events
               if e.get("ph") == "X" and e.get("cat") in ("user_annotation", "cpu_op", "Operator")]
        starts = [ns(e["ts"]) for e in cpu if step_number(e.get("name")) == first]
        ends = [ns(e["ts"]) + ns(e["dur"]) for e in cpu if step_number(e.get("name")) == last]
        window = (min(starts), max(ends))

    def inside(e):
        return window is None or window[0] <= ns(e["ts"]) < window[1]

    names, streams, intervals, counts = {}, {}, {}, {c: 0 for c in DEVICE}
    census, steps = {}, []
    ann = [0, 0]
    runtime = [0, 0]
    overhead, sync = [0, 0], [0, 0]
    first_ts = last_end = None
    outside = 0
    for e in events:
        ph, cat = e.get("ph"), e.get("cat")
        key = f"{ph or ''}\t{cat or ''}"
        census[key] = census.get(key, 0) + 1
        cat = OLD.get(cat, cat)
        if ph != "X":
            continue
        if cat in DEVICE:
            if not inside(e):
                outside += 1
                continue
            ts, dur = ns(e["ts"]), ns(e["dur"])
            args = e.get("args", {})
            dev = args.get("device", e.get("pid"))
            stream = args.get("stream", e.get("tid"))
            k = f"{cat}\t{e['name']}"  # canonical category, as headroom reports it
            s = names.setdefault(k, [0, 0, None, None])
            s[0] += dur
            s[1] += 1
            s[2] = dur if s[2] is None else min(s[2], dur)
            s[3] = dur if s[3] is None else max(s[3], dur)
            st = streams.setdefault(f"{dev}/{stream}", [0, 0])
            st[0] += dur
            st[1] += 1
            intervals.setdefault(dev, []).append((ts, ts + dur))
            counts[cat] += 1
            first_ts = ts if first_ts is None else min(first_ts, ts)
            last_end = ts + dur if last_end is None else max(last_end, ts + dur)
        elif cat == "gpu_user_annotation":
            n = step_number(e.get("name"))
            if n is not None:
                steps.append([n, ns(e["ts"]), ns(e["dur"]), True])
            if inside(e):
                ann[0] += 1
                ann[1] += ns(e["dur"])
        elif cat in ("user_annotation", "cpu_op", "Operator"):
            n = step_number(e.get("name"))
            if n is not None:
                steps.append([n, ns(e["ts"]), ns(e["dur"]), False])
        elif cat in ("cuda_runtime", "cuda_driver"):
            if inside(e):
                runtime[0] += 1
                runtime[1] += ns(e["dur"])
        elif cat == "overhead" and inside(e):
            overhead[0] += 1
            overhead[1] += ns(e["dur"])
        elif cat == "cuda_sync" and inside(e):
            sync[0] += 1
            sync[1] += ns(e["dur"])
    device_total = sum(v[0] for v in names.values())
    return {
        "events": len(events),
        "names": names,
        "streams": streams,
        "counts": counts,
        "device_total_ns": device_total,
        "busy_ns": sum(union(v) for v in intervals.values()),
        "span": [first_ts, last_end] if first_ts is not None else None,
        "devices": sorted(intervals),
        "annotation": {
            "count": ann[0],
            "total_ns": ann[1],
            # (device sum + annotation sum) / device sum, as a ratio of exact integers.
            "inflation": (device_total + ann[1]) / device_total if device_total else None,
        },
        "runtime": runtime,
        "overhead": overhead,
        "cuda_sync": sync,
        "steps": steps,
        "census": census,
        "window": list(window) if window else None,
        "outside_window": outside,
    }


def offsets(path):
    # latin-1 maps bytes 1:1 to characters, so string indices are byte offsets.
    text = read(path).decode("latin-1")
    dec = json.JSONDecoder()
    i = text.index('"traceEvents"')
    i = text.index("[", i) + 1
    out = []
    while True:
        while text[i] in " \t\r\n,":
            i += 1
        if text[i] == "]":
            break
        e, j = dec.raw_decode(text, i)
        dev = e.get("ph") == "X" and OLD.get(e.get("cat"), e.get("cat")) in DEVICE
        out.append([i, j, ns(e["dur"]) if dev else None])
        i = j
    return {"events": out}


if __name__ == "__main__":
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "summary":
        rng = [int(x) for x in sys.argv[3:5]] or [None, None]
        print(json.dumps(summary(path, *rng)))
    elif mode == "offsets":
        print(json.dumps(offsets(path)))
    else:
        sys.exit(f"unknown mode {mode}")
