#!/usr/bin/env python3
"""Benchmark `headroom gguf` against gguf-py's GGUFReader, in the same run.

    gguf_bench.py HEADROOM_BIN CACHE_DIR [MODEL.gguf ...]

Writes two sparse synthetic MoE files into CACHE_DIR (once): the same header (a 151,936-token
vocabulary, 94 layers, 1,130 tensors) describing ~13 GiB and ~74 GiB of tensor data that is never
written (os.truncate leaves holes). Then times, per file:
  - `headroom gguf FILE --json` as a process (wall time, peak RSS via wait4);
  - gguf-py as a process: `python -c 'GGUFReader(FILE)'` (wall time, peak RSS);
  - gguf-py in process: the GGUFReader(FILE) call alone, interpreter and imports excluded.
Prints the medians, the ratios, and a Markdown table for BENCHMARKS.md.
"""
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from gguf import GGUFReader, GGUFWriter
from gguf.constants import GGMLQuantizationType as T

HEADROOM_RUNS = 15
# gguf-py takes seconds on SmolLM2 and ~40 s on a 152k-token vocabulary: fewer runs there.
PY_RUNS = {"small": 3, "large": 2}
PY_IN_PROCESS_RUNS = {"small": 3, "large": 1}


def synth(path: Path, experts: int) -> Path:
    """A Qwen3-235B-A22B-shaped header (Q2_K experts) whose data is a hole."""
    if path.exists():
        return path
    tmp = path.with_suffix(".part")
    layers, hidden, heads, kv, head_dim, ff, vocab = 94, 4096, 64, 4, 128, 1536, 151936
    w = GGUFWriter(tmp, "qwen3moe")
    w.add_name(f"synthetic qwen3moe {experts} experts")
    w.add_block_count(layers)
    w.add_context_length(40960)
    w.add_embedding_length(hidden)
    w.add_feed_forward_length(12288)
    w.add_head_count(heads)
    w.add_head_count_kv(kv)
    w.add_key_length(head_dim)
    w.add_value_length(head_dim)
    w.add_expert_count(experts)
    w.add_expert_used_count(8)
    w.add_expert_feed_forward_length(ff)
    w.add_string("tokenizer.ggml.model", "gpt2")
    w.add_array("tokenizer.ggml.tokens", [f"tok{i:06d}" for i in range(vocab)])
    w.add_array("tokenizer.ggml.token_type", [1] * vocab)
    w.add_array("tokenizer.ggml.merges", [f"t{i % 997} k{i}" for i in range(vocab - 549)])
    w.add_string("tokenizer.chat_template", "{% for m in messages %}{{ m.content }}{% endfor %}" * 40)

    def t(name, shape, qtype):  # shape in numpy order (slowest first), elements
        from gguf.constants import GGML_QUANT_SIZES
        block, size = GGML_QUANT_SIZES[qtype]
        n = int(np.prod(shape))
        w.add_tensor_info(name, shape, np.dtype(np.float32), n // block * size, raw_dtype=qtype)

    t("token_embd.weight", (vocab, hidden), T.Q4_K)
    for b in range(layers):
        t(f"blk.{b}.attn_norm.weight", (hidden,), T.F32)
        t(f"blk.{b}.attn_q.weight", (heads * head_dim, hidden), T.Q4_K)
        t(f"blk.{b}.attn_k.weight", (kv * head_dim, hidden), T.Q4_K)
        t(f"blk.{b}.attn_v.weight", (kv * head_dim, hidden), T.Q6_K)
        t(f"blk.{b}.attn_output.weight", (hidden, heads * head_dim), T.Q4_K)
        t(f"blk.{b}.attn_q_norm.weight", (head_dim,), T.F32)
        t(f"blk.{b}.attn_k_norm.weight", (head_dim,), T.F32)
        t(f"blk.{b}.ffn_norm.weight", (hidden,), T.F32)
        t(f"blk.{b}.ffn_gate_inp.weight", (experts, hidden), T.F32)
        t(f"blk.{b}.ffn_gate_exps.weight", (experts, ff, hidden), T.Q2_K)
        t(f"blk.{b}.ffn_up_exps.weight", (experts, ff, hidden), T.Q2_K)
        t(f"blk.{b}.ffn_down_exps.weight", (experts, hidden, ff), T.Q2_K)
    t("output_norm.weight", (hidden,), T.F32)
    t("output.weight", (vocab, hidden), T.Q6_K)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    fout = w.fout[0]
    end = fout.tell()
    data_offset = end + (w.data_alignment - end % w.data_alignment) % w.data_alignment
    data = sum(GGUFWriter.ggml_pad(ti.nbytes, w.data_alignment) for ti in w.tensors[0].values())
    w.close()
    os.truncate(tmp, data_offset + data)  # the data section is a hole: no disk, no writes
    tmp.rename(path)
    return path


GNU_TIME = "/usr/bin/time"


def run(cmd):
    """Wall seconds and peak RSS (KiB) of one child process, its output discarded.

    Peak RSS comes from GNU time, not from wait4 on our own child: Linux carries the forking
    process's high-water RSS into the child at exec, so a child of this (large) harness would
    report the harness's memory. GNU time's own child starts small.
    """
    rss_file = Path(os.environ.get("TMPDIR", "/tmp")) / f"gguf-bench-rss-{os.getpid()}"
    start = time.perf_counter()
    p = subprocess.run([GNU_TIME, "-f", "%M", "-o", str(rss_file), *cmd],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed: {p.stderr.decode(errors='replace')}")
    rss = int(rss_file.read_text().split()[-1])
    rss_file.unlink()
    return wall, rss


def in_process(path):
    start = time.perf_counter()
    r = GGUFReader(path)
    took = time.perf_counter() - start
    assert len(r.tensors) > 0
    return took


def fmt_s(s):
    return f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


def main():
    if not os.access(GNU_TIME, os.X_OK):
        raise SystemExit(f"{GNU_TIME} (GNU time) is needed for peak RSS: apt-get install time")
    headroom, cache = sys.argv[1], Path(sys.argv[2])
    cache.mkdir(parents=True, exist_ok=True)
    files = [Path(p) for p in sys.argv[3:]]
    print("bench: writing synthetic headers (once, cached)", file=sys.stderr)
    files.append(synth(cache / "synthetic-qwen3moe-16x.gguf", 16))
    files.append(synth(cache / "synthetic-qwen3moe-128x.gguf", 128))
    py = sys.executable
    reader = "import sys; from gguf import GGUFReader; r = GGUFReader(sys.argv[1]); assert r.tensors"
    rows = []
    for f in files:
        size = f.stat().st_size
        on_disk = f.stat().st_blocks * 512
        print(f"bench: {f.name}", file=sys.stderr)
        run([headroom, "gguf", str(f), "--json"])  # warm the page cache
        kind = "small" if size < 2**30 else "large"
        ours = [run([headroom, "gguf", str(f), "--json"]) for _ in range(HEADROOM_RUNS)]
        theirs = [run([py, "-c", reader, str(f)]) for _ in range(PY_RUNS[kind])]
        inproc = [in_process(str(f)) for _ in range(PY_IN_PROCESS_RUNS[kind])]
        o_t = statistics.median(w for w, _ in ours)
        p_t = statistics.median(w for w, _ in theirs)
        i_t = statistics.median(inproc)
        o_rss = max(r for _, r in ours)
        p_rss = max(r for _, r in theirs)
        row = {
            "file": f.name,
            "size": size,
            "on_disk": on_disk,
            "ours": o_t,
            "ours_range": (min(w for w, _ in ours), max(w for w, _ in ours)),
            "py": p_t,
            "py_in": i_t,
            "ratio": p_t / o_t,
            "ratio_in": i_t / o_t,
            "o_rss": o_rss,
            "p_rss": p_rss,
        }
        rows.append(row)
        print(
            f"{f.name}: {size / 2**30:.2f} GiB ({on_disk / 2**20:.1f} MiB on disk)\n"
            f"  headroom gguf --json  median {fmt_s(o_t)} (min {fmt_s(row['ours_range'][0])}, max {fmt_s(row['ours_range'][1])}, n={HEADROOM_RUNS}), peak RSS {o_rss / 1024:.1f} MiB\n"
            f"  gguf-py process       median {fmt_s(p_t)} (n={len(theirs)}), peak RSS {p_rss / 1024:.1f} MiB\n"
            f"  gguf-py GGUFReader()  median {fmt_s(i_t)} (in process, imports excluded, n={len(inproc)})\n"
            f"  ratio: {row['ratio']:.0f}x faster than the gguf-py process, {row['ratio_in']:.0f}x faster than the GGUFReader() call alone"
        )
    print("\n| file | size | headroom gguf --json | gguf-py process | GGUFReader() alone | speed-up (process / call) | peak RSS headroom | peak RSS gguf-py |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['file']} | {r['size'] / 2**30:.2f} GiB | {fmt_s(r['ours'])} | {fmt_s(r['py'])} | {fmt_s(r['py_in'])} "
            f"| {r['ratio']:.0f}x / {r['ratio_in']:.0f}x | {r['o_rss'] / 1024:.1f} MiB | {r['p_rss'] / 1024:.1f} MiB |"
        )


if __name__ == "__main__":
    main()
