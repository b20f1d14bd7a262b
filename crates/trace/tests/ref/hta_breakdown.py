#!/usr/bin/env python3
"""HolisticTraceAnalysis's view of device time, for the cross-check in tests/it/hta.rs.

For each trace path given, prints one JSON object per line:
  {"trace": path, "rounded": bool, "steps": [...],
   "kernels": {name: {"sum", "min", "max", "type",          <- HTA's breakdown row
                      "device": {"sum", "min", "max", "count"},  <- its rows of cat kernel /
                                                                    gpu_memcpy / gpu_memset
                      "other": {cat: [count, sum]}}}}        <- rows of any other cat that
                                                                HTA took for device work
from HTA's own pipeline: TraceAnalysis (include_last_profiler_step=True, so HTA does not drop
the last ProfilerStep), then get_gpu_kernel_breakdown with no folding into "others"
(num_kernels huge, duration_ratio 1.0) and memory kernels included. The per-name count, which
the breakdown does not report, comes from the same filtered trace frame the breakdown reads
(rows with stream != -1), split by category: HTA takes every row with an integer `stream` arg,
so a CPU op that carries one (Triton launches do) lands in its kernel table. HTA's ns rounding (ts = ceil(ts), end = floor(ts + dur)) is on unless
HTA_DISABLE_NS_ROUNDING=1 is in the environment; "rounded" says which.

usage: hta_breakdown.py TRACE...
"""
import json, logging, os, shutil, sys, tempfile

logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis  # noqa: E402

rounded = os.environ.get("HTA_DISABLE_NS_ROUNDING", "0") != "1"
for path in sys.argv[1:]:
    # HTA reads every trace file of a directory: give it a directory holding only this one.
    d = tempfile.mkdtemp(prefix="hta-")
    try:
        os.symlink(os.path.abspath(path), os.path.join(d, os.path.basename(path)))
        ta = TraceAnalysis(trace_dir=d, include_last_profiler_step=True)
        _, kernels = ta.get_gpu_kernel_breakdown(
            visualize=False, num_kernels=10**9, duration_ratio=1.0, include_memory_kernels=True
        )
        rank = next(iter(ta.t.traces))
        df = ta.t.get_trace(rank)
        sym = ta.t.symbol_table.get_sym_table()
        gpu = df[df["stream"].ne(-1)]
        device_cats = {sid for sid, c in enumerate(sym) if c in ("kernel", "gpu_memcpy", "gpu_memset")}
        out = {}
        for _, row in kernels.iterrows():
            out[row["name"]] = {
                "sum": float(row["sum (us)"]),
                "min": float(row["min (us)"]),
                "max": float(row["max (us)"]),
                "type": row["kernel_type"],
                "device": None,
                "other": {},
            }
        for (sid, cid), g in gpu.groupby(["name", "cat"]):
            name = sym[int(sid)]
            if name not in out:
                continue
            if int(cid) in device_cats:
                out[name]["device"] = {
                    "sum": float(g["dur"].sum()),
                    "min": float(g["dur"].min()),
                    "max": float(g["dur"].max()),
                    "count": int(len(g)),
                }
            else:
                out[name]["other"][sym[int(cid)]] = [int(len(g)), float(g["dur"].sum())]
        steps = sorted({sym[int(s)] for s in df["name"].unique() if "ProfilerStep" in sym[int(s)]})
        print(json.dumps({"trace": path, "rounded": rounded, "steps": steps, "kernels": out}))
        sys.stdout.flush()
    finally:
        shutil.rmtree(d, ignore_errors=True)
