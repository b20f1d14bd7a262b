#!/usr/bin/env python3
"""Builds a large Kineto trace by replicating a real trace's events (for scripts/bench/trace).

Each copy's timestamps are shifted past the previous copy's end, its ProfilerStep numbers are
renumbered and its correlation / flow ids are offset, so the result reads as one long profiling
window: HTA's correlation joins stay one-to-one and its step filter sees distinct steps.
Writes plain JSON, one event per line; stdlib only.

usage: trace_replica.py SOURCE(.json[.gz]) OUT.json --mb 1000
"""
import argparse, gzip, json, re, sys

p = argparse.ArgumentParser()
p.add_argument("source")
p.add_argument("out")
p.add_argument("--mb", type=float, default=1000.0, help="target size of OUT in MB (1e6 bytes)")
a = p.parse_args()

opener = gzip.open if open(a.source, "rb").read(2) == b"\x1f\x8b" else open
with opener(a.source, "rb") as f:
    raw = f.read()
src = json.loads(raw)
events = src["traceEvents"]
ts = [e["ts"] for e in events if isinstance(e.get("ts"), (int, float))]
end = max(e["ts"] + e.get("dur", 0) for e in events if isinstance(e.get("ts"), (int, float)))
period = (end - min(ts)) + 1000.0  # 1 ms gap between copies
step_re = re.compile(r"^ProfilerStep#(\d+)$")
steps = [int(m.group(1)) for e in events if (m := step_re.match(str(e.get("name", ""))))]
step_span = (max(steps) - min(steps) + 1) if steps else 0
ID_OFFSET = 10_000_000  # above any correlation / flow id in real traces

with open(a.out, "w") as out:
    head = {k: v for k, v in src.items() if k != "traceEvents"}
    out.write(json.dumps(head)[:-1] + ', "traceEvents": [\n')
    first = True
    k = 0
    # Copies until the target size is reached (at least one).
    while k == 0 or out.tell() < a.mb * 1e6:
        shift = k * period
        for e in events:
            if k:
                e = dict(e)
                if isinstance(e.get("ts"), int) and float(shift).is_integer():
                    e["ts"] = e["ts"] + int(shift)
                elif isinstance(e.get("ts"), (int, float)):
                    # Kineto writes ns precision: keep three decimals, not float noise.
                    e["ts"] = round(e["ts"] + shift, 3)
                if "id" in e and isinstance(e["id"], int):
                    e["id"] += k * ID_OFFSET
                args = e.get("args")
                if isinstance(args, dict) and isinstance(args.get("correlation"), int):
                    e["args"] = dict(args, correlation=args["correlation"] + k * ID_OFFSET)
                m = step_re.match(str(e.get("name", "")))
                if m:
                    e["name"] = f"ProfilerStep#{int(m.group(1)) + k * step_span}"
            out.write(("" if first else ",\n") + json.dumps(e))
            first = False
        k += 1
    out.write("\n]}\n")
print(f"{a.out}: {k} copies of {len(events)} events from {a.source}", file=sys.stderr)
