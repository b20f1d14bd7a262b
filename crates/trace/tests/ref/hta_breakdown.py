#!/usr/bin/env python3
"""HolisticTraceAnalysis's view of device time, for the cross-check in tests/hta.rs.

For each trace path given, prints one JSON object per line:
  {"trace": path, "rounded": bool, "steps": [...], "kernels": {name: {"sum", "min", "max", "count"}}}
from HTA's own pipeline: TraceAnalysis (include_last_profiler_step=True, so HTA does not drop
the last ProfilerStep), then get_gpu_kernel_breakdown with no folding into "others"
(num_kernels huge, duration_ratio 1.0) and memory kernels included. The per-name count, which
the breakdown does not report, comes from the same filtered trace frame the breakdown reads
(rows with stream != -1). HTA's ns rounding (ts = ceil(ts), end = floor(ts + dur)) is on unless
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
        counts = gpu.groupby("name").size()
        out = {}
        for _, row in kernels.iterrows():
            out[row["name"]] = {
                "sum": float(row["sum (us)"]),
                "min": float(row["min (us)"]),
                "max": float(row["max (us)"]),
                "type": row["kernel_type"],
            }
        for sid, n in counts.items():
            name = sym[int(sid)]
            if name in out:
                out[name]["count"] = int(n)
        steps = sorted({sym[int(s)] for s in df["name"].unique() if "ProfilerStep" in sym[int(s)]})
        print(json.dumps({"trace": path, "rounded": rounded, "steps": steps, "kernels": out}))
        sys.stdout.flush()
    finally:
        shutil.rmtree(d, ignore_errors=True)
