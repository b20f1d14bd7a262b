#!/usr/bin/env python3
"""Reference side of the GGUF tests: PyPI's gguf package writes the fixtures and reads them back.

    gguf_py.py write DIR     write the fixture files into DIR; print a manifest (JSON) on stdout
    gguf_py.py read FILE...  print what gguf-py's GGUFReader sees in each file (JSON) on stdout

The Rust tests compare the headroom reader against both.
"""
import json
import sys
from pathlib import Path

import numpy as np
from gguf import GGUFReader, GGUFWriter, GGUFValueType
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType as T


def blob(rows, row_bytes, experts=None, seed=0):
    """Raw bytes shaped (experts, rows, row_bytes): content is irrelevant to the header."""
    shape = (rows, row_bytes) if experts is None else (experts, rows, row_bytes)
    return np.random.default_rng(seed).integers(0, 256, size=shape, dtype=np.uint8)


def quant(w, name, qtype, rows, cols, experts=None):
    """Add a tensor of `rows` × `cols` elements (per expert) of ggml type `qtype`."""
    block, size = GGML_QUANT_SIZES[qtype]
    assert cols % block == 0, (name, qtype)
    w.add_tensor(name, blob(rows, cols // block * size, experts, seed=len(name)), raw_dtype=qtype)


def finish(w):
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def all_value_types(w):
    w.add_uint8("test.u8", 250)
    w.add_int8("test.i8", -100)
    w.add_uint16("test.u16", 65000)
    w.add_int16("test.i16", -32000)
    w.add_uint32("test.u32", 4_000_000_000)
    w.add_int32("test.i32", -2_000_000_000)
    w.add_float32("test.f32", 0.1)
    w.add_uint64("test.u64", 2**63 + 5)
    w.add_int64("test.i64", -(2**62))
    w.add_float64("test.f64", 1e-300)
    w.add_bool("test.bool", True)
    w.add_string("test.string", "héllo ✓")
    w.add_array("test.array_i32", [1, -2, 3])
    w.add_array("test.array_f32", [0.5, 1.5])
    w.add_array("test.array_bool", [True, False])
    w.add_array("test.array_str", ["a", "βγ", ""])
    w.add_key_value("test.array_u64", [1, 2**40], GGUFValueType.ARRAY, sub_type=GGUFValueType.UINT64)
    w.add_array("test.nested", [[1, 2], [3]])
    w.add_array("test.nested_str", [["x"], ["y", "z"]])
    # A long array and a vocabulary-sized string array: counted, not kept.
    w.add_array("test.long_i32", list(range(5000)))
    w.add_array("tokenizer.ggml.tokens", [f"tok{i}" for i in range(3000)])


def llama_keys(w, layers=2, hidden=256, heads=4, kv=2):
    w.add_name("fixture")
    w.add_block_count(layers)
    w.add_context_length(4096)
    w.add_embedding_length(hidden)
    w.add_feed_forward_length(512)
    w.add_head_count(heads)
    w.add_head_count_kv(kv)
    w.add_rope_dimension_count(hidden // heads)


def dense(d):
    """Every ggml type gguf-py knows, once each, plus every metadata value type."""
    w = GGUFWriter(d / "dense.gguf", "llama")
    llama_keys(w, kv=[2, 1])  # one KV-head count per layer
    all_value_types(w)
    for i, qtype in enumerate(sorted(GGML_QUANT_SIZES, key=int)):
        block, _ = GGML_QUANT_SIZES[qtype]
        quant(w, f"blk.{i}.{qtype.name.lower()}.weight", qtype, 3, block * 2)
    finish(w)
    return {"file": "dense.gguf"}


def moe(d, split_max_tensors=0, name="moe.gguf"):
    """A qwen3moe-shaped model: router, expert-major 3-D experts, shared expert."""
    E, used, hidden, ff = 8, 2, 256, 64
    w = GGUFWriter(d / name, "qwen3moe", split_max_tensors=split_max_tensors)
    llama_keys(w, layers=2, hidden=hidden)
    w.add_expert_count(E)
    w.add_expert_used_count(used)
    w.add_expert_shared_count(1)
    w.add_expert_feed_forward_length(ff)
    quant(w, "token_embd.weight", T.Q8_0, 100, hidden)
    for b in range(2):
        quant(w, f"blk.{b}.attn_q.weight", T.Q4_K, hidden, hidden)
        quant(w, f"blk.{b}.attn_norm.weight", T.F32, 1, hidden)
        quant(w, f"blk.{b}.ffn_gate_inp.weight", T.F32, E, hidden)
        quant(w, f"blk.{b}.ffn_gate_exps.weight", T.Q4_K, ff, hidden, experts=E)
        quant(w, f"blk.{b}.ffn_up_exps.weight", T.Q4_K, ff, hidden, experts=E)
        quant(w, f"blk.{b}.ffn_down_exps.weight", T.Q8_0, hidden, ff, experts=E)
        quant(w, f"blk.{b}.ffn_up_shexp.weight", T.Q6_K, ff, hidden)
    quant(w, "output.weight", T.Q6_K, 100, hidden)
    total, shared, per_expert, n_experts = w.get_total_parameter_count()
    shards = [str(p.name) for p in w.format_shard_names(d / name)]
    finish(w)
    return {
        "file": shards[0],
        "shards": shards,
        "params": {"total": total, "shared": shared, "per_expert": per_expert, "n_experts": n_experts},
        "used": used,
    }


def aligned(d, alignment=64):
    w = GGUFWriter(d / f"align{alignment}.gguf", "llama")
    llama_keys(w)
    w.add_custom_alignment(alignment)
    quant(w, "a.weight", T.F16, 3, 5)       # 30 bytes: padded to the alignment
    quant(w, "b.weight", T.Q5_K, 2, 256)
    quant(w, "c.weight", T.IQ2_XS, 1, 256)
    finish(w)
    return {"file": f"align{alignment}.gguf", "alignment": alignment}


def boundary(d):
    """Tensor infos that end exactly on the alignment boundary: no padding before the data."""
    path = d / "boundary.gguf"
    fill = 1
    for _ in range(2):
        w = GGUFWriter(path, "llama")
        llama_keys(w)
        w.add_string("test.filler", "f" * fill)
        quant(w, "a.weight", T.Q4_0, 2, 64)
        quant(w, "b.weight", T.F32, 1, 7)
        finish(w)
        r = GGUFReader(path)
        last = list(r.tensors)[-1].field
        end = last.offset + sum(int(p.nbytes) for p in last.parts)
        if end % r.alignment == 0:
            return {"file": "boundary.gguf", "tensor_info_end": end}
        fill += r.alignment - end % r.alignment
    raise SystemExit("could not land the tensor infos on the boundary")


def split(d):
    m = moe(d, split_max_tensors=6, name="moesplit.gguf")
    assert len(m["shards"]) > 2, m["shards"]
    return m


def write(d):
    d = Path(d)
    d.mkdir(parents=True, exist_ok=True)
    manifest = {
        "dense": dense(d),
        "moe": moe(d),
        "align64": aligned(d, 64),
        "align8": aligned(d, 8),
        "boundary": boundary(d),
        "split": split(d),
    }
    json.dump(manifest, sys.stdout)


def field_json(f):
    types = [t.name for t in f.types]
    out = {"types": types, "offset": f.offset}
    if f.types[0] == GGUFValueType.ARRAY:
        out["len"] = int(f.parts[4][0])
        if len(f.types) == 2 and out["len"] <= 1024:
            out["value"] = f.contents()
    else:
        v = f.contents()
        out["value"] = v
    return out


def read(paths):
    out = []
    for p in paths:
        r = GGUFReader(p)
        fields = {k: field_json(f) for k, f in r.fields.items() if not k.startswith("GGUF.")}
        tensors = [
            {
                "name": t.name,
                "type": t.tensor_type.name,
                "type_id": int(t.tensor_type),
                "shape": [int(x) for x in t.shape],
                "n_elements": int(t.n_elements),
                "n_bytes": int(t.n_bytes),
                "offset": int(t.data_offset),
            }
            for t in r.tensors
        ]
        out.append({
            "path": str(p),
            "file_size": int(r.data.shape[0]),
            "data_offset": int(r.data_offset),
            "alignment": int(r.alignment),
            "fields": fields,
            "tensors": tensors,
        })
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "write":
        write(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "read":
        read(sys.argv[2:])
    else:
        raise SystemExit(__doc__)
