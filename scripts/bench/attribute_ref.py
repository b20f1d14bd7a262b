"""The straightforward Python implementation of the attribution pipeline that
scripts/bench/attribute races `headroom attribute` against (same files, same run), and the
cross-check that both give the same histograms.

  attribute_ref.py gen MODEL MAPS ADDRS N      write a maps file and N perf-script addresses
  attribute_ref.py run MODEL MAPS ADDRS OUT    attribute them; write the histograms as JSON
"""
import bisect
import json
import re
import sys

import numpy as np
import gguf

MAPS_RE = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) (\S+) (\d+)\s*(.*)$")


def extents(model):
    """Tensor extents from consecutive offsets (gguf-py's reader), expert counts from shape."""
    r = gguf.GGUFReader(model)
    ts = sorted(r.tensors, key=lambda t: int(t.data_offset))
    size = len(r.data)
    out = []
    for i, t in enumerate(ts):
        start = int(t.data_offset)
        end = int(ts[i + 1].data_offset) if i + 1 < len(ts) else size
        experts = int(t.shape[-1]) if "_exps." in t.name and len(t.shape) >= 2 else 0
        m = re.match(r"blk\.(\d+)\.", t.name)
        out.append((start, end - start, t.name, int(m.group(1)) if m else None, experts))
    return out


def gen(model, maps, addrs, n):
    size = len(gguf.GGUFReader(model).data)
    half = (size // 2) & ~4095
    lo1, lo2 = 0x7F3A00000000, 0x7F3B00000000
    with open(maps, "w") as f:
        f.write("55d0a0000000-55d0a0100000 r-xp 00000000 fe:00 11 /usr/bin/server\n")
        f.write("55d0a1000000-55d0a9000000 rw-p 00000000 00:00 0 [heap]\n")
        f.write(f"{lo1:x}-{lo1 + half:x} r--s 00000000 fe:00 42 {model}\n")
        f.write(f"{lo2:x}-{lo2 + size - half:x} r--s {half:08x} fe:00 42 {model}\n")
    rng = np.random.default_rng(7)
    k = n * 9 // 10
    foff = rng.integers(0, size, k)
    a = np.where(foff < half, lo1 + foff, lo2 + foff - half).astype(np.uint64)
    heap = rng.integers(0x55D0A1000000, 0x55D0A9000000, n - k).astype(np.uint64)
    allv = np.concatenate([a, heap])
    rng.shuffle(allv)
    with open(addrs, "w") as f:
        for chunk in np.array_split(allv, 100):
            f.write("".join(f"    {int(x):x}\n" for x in chunk))


def run(model, maps, addrs, out):
    vmas = []
    for line in open(maps):
        m = MAPS_RE.match(line.rstrip("\n"))
        if m and m.group(7) == model:
            vmas.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(4), 16)))
    vmas.sort()
    vstarts = [v[0] for v in vmas]
    ext = extents(model)
    tstarts = [e[0] for e in ext]
    tensor = [0] * len(ext)
    per_expert = [[0] * e[4] for e in ext]
    outside = header = gap = 0
    with open(addrs) as f:
        for line in f:
            s = line.strip()
            if not s:
                continue
            addr = int(s, 16)
            i = bisect.bisect_right(vstarts, addr) - 1
            if i < 0 or addr >= vmas[i][1]:
                outside += 1
                continue
            foff = vmas[i][2] + (addr - vmas[i][0])
            t = bisect.bisect_right(tstarts, foff) - 1
            if t < 0:
                header += 1
                continue
            start, span, _, _, n = ext[t]
            lo = foff - start
            if lo >= span:
                gap += 1
                continue
            tensor[t] += 1
            if n:
                per_expert[t][min(lo * n // span, n - 1)] += 1
    layers, experts = {}, {}
    for (start, span, name, layer, n), c, pe in zip(ext, tensor, per_expert):
        if layer is None:
            continue
        layers[layer] = layers.get(layer, 0) + c
        if n:
            b = experts.setdefault(layer, [0] * n)
            for k, v in enumerate(pe):
                b[k] += v
    json.dump({
        "outside": outside, "header": header, "gap": gap,
        "tensors": {e[2]: c for e, c in zip(ext, tensor) if c},
        "layers": {str(k): v for k, v in sorted(layers.items())},
        "experts": {str(k): v for k, v in sorted(experts.items())},
    }, open(out, "w"))


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        run(*sys.argv[2:6])
