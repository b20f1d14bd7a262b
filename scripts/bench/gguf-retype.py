"""Write a copy of a GGUF model with its quantized weights stored at another type (F32, F16 or
Q8_0): the same model, the same tokenizer and metadata, heavier weights. regress-power serves it
beside the original for a slowdown that is intrinsic work (more bytes and wider arithmetic per
token), not thread contention.

    python gguf-retype.py IN.gguf OUT.gguf F16

Uses the reference gguf package (gguf-py): quantized tensors are dequantized with
gguf.quants.dequantize and re-encoded; F32 tensors (norms) stay F32. Writes OUT.gguf.part first
and renames it, so a killed run never leaves a half-written model behind.
"""

import os
import sys

import gguf
import numpy as np


def main() -> None:
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, dst, kind = sys.argv[1], sys.argv[2], sys.argv[3].upper()
    file_types = {
        "F32": gguf.LlamaFileType.ALL_F32,
        "F16": gguf.LlamaFileType.MOSTLY_F16,
        "Q8_0": gguf.LlamaFileType.MOSTLY_Q8_0,
    }
    if kind not in file_types:
        sys.exit(f"{kind}: the target type must be one of {', '.join(file_types)}")
    reader = gguf.GGUFReader(src)
    arch = reader.fields[gguf.Keys.General.ARCHITECTURE].contents()
    part = dst + ".part"
    writer = gguf.GGUFWriter(part, arch)
    for field in reader.fields.values():
        if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
            continue
        if field.name == gguf.Keys.General.FILE_TYPE:
            writer.add_file_type(file_types[kind])
            continue
        val_type = field.types[0]
        sub_type = field.types[-1] if val_type == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, field.contents(), val_type, sub_type=sub_type)
    for t in reader.tensors:
        if t.tensor_type in (gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.F16):
            writer.add_tensor(t.name, np.asarray(t.data), raw_dtype=t.tensor_type)
            continue
        # dequantize gives float32 in the tensor's logical shape (numpy order: reversed dims).
        w = gguf.quants.dequantize(t.data, t.tensor_type)
        if kind == "F32":
            writer.add_tensor(t.name, w.astype(np.float32))
        elif kind == "F16":
            writer.add_tensor(t.name, w.astype(np.float16))
        else:
            q = gguf.quants.quantize(w, gguf.GGMLQuantizationType.Q8_0)
            writer.add_tensor(
                t.name, q, raw_shape=q.shape, raw_dtype=gguf.GGMLQuantizationType.Q8_0
            )
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(part, dst)


if __name__ == "__main__":
    main()
