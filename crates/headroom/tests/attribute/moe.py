"""The MoE peer for `headroom attribute`'s live test, written with gguf-py (the reference).

  moe.py write PATH
      A 4-block MoE GGUF: per block ffn_{gate,up,down}_exps (8 experts, expert-major, f32,
      128 KiB per expert per tensor), a router and an attention weight; token_embd and output.
  moe.py touch PATH EXPERTS
      mmaps PATH read-only, prints `ready`, then for each line `go N` on stdin runs N rounds
      and prints `done`: a round reads one byte per 4 KiB page of the chosen experts
      (comma-separated indices) in every expert tensor of every block, then drops the pages
      (MADV_DONTNEED) so the next round faults again. Rounds run only when asked, so a sampling
      window holds whole rounds. Where each expert lies comes from gguf-py's GGUFReader
      (data_offset, n_bytes), independently of headroom's reader. Exits at end of input.
"""
import mmap
import os
import sys
import time

import numpy as np
import gguf

N_LAYERS, N_EXPERT, N_EMBD, N_FF = 4, 8, 128, 256


def write(path):
    w = gguf.GGUFWriter(path, "qwen2moe")
    w.add_block_count(N_LAYERS)
    w.add_embedding_length(N_EMBD)
    w.add_expert_count(N_EXPERT)
    w.add_expert_used_count(2)
    rng = np.random.default_rng(19)
    w.add_tensor("token_embd.weight", rng.standard_normal((1000, N_EMBD), dtype=np.float32))
    for l in range(N_LAYERS):
        w.add_tensor(f"blk.{l}.attn_q.weight", rng.standard_normal((N_EMBD, N_EMBD), dtype=np.float32))
        w.add_tensor(f"blk.{l}.ffn_gate_inp.weight", rng.standard_normal((N_EXPERT, N_EMBD), dtype=np.float32))
        # numpy shape (experts, rows, cols) = ggml ne [cols, rows, experts]: expert-major.
        for name, shape in (("gate", (N_EXPERT, N_FF, N_EMBD)), ("up", (N_EXPERT, N_FF, N_EMBD)),
                            ("down", (N_EXPERT, N_EMBD, N_FF))):
            w.add_tensor(f"blk.{l}.ffn_{name}_exps.weight", rng.standard_normal(shape, dtype=np.float32))
    w.add_tensor("output.weight", rng.standard_normal((1000, N_EMBD), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def touch(path, experts):
    r = gguf.GGUFReader(path)
    slices = []
    for t in r.tensors:
        if "_exps." in t.name:
            n = int(t.shape[-1])  # ggml order: the last dimension counts the experts
            per = int(t.n_bytes) // n
            for e in experts:
                slices.append((int(t.data_offset) + e * per, per))
    del r
    with open(path, "rb") as f:
        # One fault maps a whole page-cache folio (large folios from the writer, readahead) and
        # fault-around maps cached neighbours: a touch of expert 2 could map expert 5 without a
        # fault of its own. Drop the file's cache and read it randomly (no readahead), so the
        # cache holds only the 4 KiB pages this program touches.
        os.fsync(f.fileno())
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    mm.madvise(mmap.MADV_RANDOM)
    print("ready", flush=True)
    s = 0
    for line in sys.stdin:
        words = line.split()
        if len(words) != 2 or words[0] != "go":
            sys.exit(f"expected `go N`, got {line!r}")
        for _ in range(int(words[1])):
            for start, n in slices:
                for off in range(start, start + n, 4096):
                    s += mm[off]
            mm.madvise(mmap.MADV_DONTNEED)
        print("done", s & 1, flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    elif sys.argv[1] == "touch":
        touch(sys.argv[2], [int(x) for x in sys.argv[3].split(",")])
    else:
        sys.exit(f"unknown command {sys.argv[1]!r}")
