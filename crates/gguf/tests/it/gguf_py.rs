//! The reader against PyPI's gguf package: files its GGUFWriter writes (dense with every ggml
//! type it knows, MoE, alignments 64 and 8, tensor infos ending on the boundary, split shards)
//! and the real SmolLM2 file. Every tensor's name, type, shape, offset and size, and every
//! metadata field, must agree with what gguf-py's GGUFReader reads.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::Command;

use gguf::{Model, ReadOptions, Shard, Value};
use serde_json::Value as Json;
use testpeers::peer;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gguf_py.py")
}

fn python(py: &str, args: &[&str]) -> Json {
    let out = Command::new(py)
        .arg(script())
        .args(args)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "gguf_py.py {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("gguf_py.py prints JSON")
}

fn reference(py: &str, paths: &[PathBuf]) -> Vec<Json> {
    let mut args = vec!["read"];
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    args.extend(shown.iter().map(String::as_str));
    python(py, &args).as_array().unwrap().clone()
}

fn align_up(x: u64, a: u64) -> u64 {
    x + (a - x % a) % a
}

/// gguf-py's type list, e.g. ["ARRAY", "INT32"], in our label spelling, "array[i32]".
fn label(types: &[Json]) -> String {
    let name = |t: &str| match t {
        "UINT8" => "u8",
        "INT8" => "i8",
        "UINT16" => "u16",
        "INT16" => "i16",
        "UINT32" => "u32",
        "INT32" => "i32",
        "FLOAT32" => "f32",
        "BOOL" => "bool",
        "STRING" => "string",
        "UINT64" => "u64",
        "INT64" => "i64",
        "FLOAT64" => "f64",
        other => panic!("unexpected gguf-py type {other}"),
    };
    match types.split_first() {
        Some((first, rest)) if first == "ARRAY" => format!("array[{}]", label(rest)),
        Some((first, _)) => name(first.as_str().unwrap()).to_string(),
        None => panic!("empty type list"),
    }
}

fn same_value(ours: &Value, theirs: &Json) -> bool {
    match ours {
        Value::F32(v) => theirs.as_f64().is_some_and(|t| t as f32 == *v),
        Value::F64(v) => theirs.as_f64() == Some(*v),
        Value::Bool(v) => theirs.as_bool() == Some(*v),
        Value::String(v) => theirs.as_str() == Some(v.as_str()),
        Value::Array(a) => match (&a.items, theirs.as_array()) {
            (Some(items), Some(t)) => {
                items.len() == t.len() && items.iter().zip(t).all(|(o, t)| same_value(o, t))
            }
            _ => false,
        },
        Value::I8(_) | Value::I16(_) | Value::I32(_) | Value::I64(_) => {
            let v = match *ours {
                Value::I8(v) => i64::from(v),
                Value::I16(v) => i64::from(v),
                Value::I32(v) => i64::from(v),
                Value::I64(v) => v,
                _ => unreachable!(),
            };
            theirs.as_i64() == Some(v)
        }
        other => other.as_u64().is_some() && theirs.as_u64() == other.as_u64(),
    }
}

/// One shard against gguf-py's reading of the same file.
fn compare(shard: &Shard, r: &Json) {
    let at = &shard.path;
    assert_eq!(
        shard.data_offset,
        r["data_offset"].as_u64().unwrap(),
        "{at}: data_offset"
    );
    assert_eq!(
        shard.alignment,
        r["alignment"].as_u64().unwrap(),
        "{at}: alignment"
    );
    assert_eq!(
        shard.file_size,
        r["file_size"].as_u64().unwrap(),
        "{at}: file size"
    );

    let fields = r["fields"].as_object().unwrap();
    assert_eq!(shard.metadata.len(), fields.len(), "{at}: metadata count");
    for (key, f) in fields {
        let e = shard
            .entry(key)
            .unwrap_or_else(|| panic!("{at}: key {key} missing"));
        assert_eq!(
            e.offset,
            f["offset"].as_u64().unwrap(),
            "{at}: offset of {key}"
        );
        let types = f["types"].as_array().unwrap();
        let kept = !matches!(&e.value, Value::Array(a) if a.items.is_none());
        if kept {
            assert_eq!(e.value.type_label(), label(types), "{at}: type of {key}");
        }
        if let Some(len) = f.get("len") {
            assert_eq!(e.value.array_len(), len.as_u64(), "{at}: length of {key}");
        }
        if let Some(v) = f.get("value") {
            assert!(kept, "{at}: {key} has {} elements and must be kept", v);
            assert!(
                same_value(&e.value, v),
                "{at}: {key}: ours {:?}, gguf-py {v}",
                e.value
            );
        }
    }

    let tensors = r["tensors"].as_array().unwrap();
    assert_eq!(shard.tensors.len(), tensors.len(), "{at}: tensor count");
    for (t, rt) in shard.tensors.iter().zip(tensors) {
        let name = rt["name"].as_str().unwrap();
        assert_eq!(t.name, name, "{at}: tensor order");
        assert_eq!(
            t.ggml_type.name,
            rt["type"].as_str().unwrap(),
            "{at}: {name} type"
        );
        assert_eq!(u64::from(t.ggml_type.id), rt["type_id"].as_u64().unwrap());
        let shape: Vec<u64> = rt["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .collect();
        assert_eq!(t.shape(), shape.as_slice(), "{at}: {name} shape");
        assert_eq!(
            t.n_elements,
            rt["n_elements"].as_u64().unwrap(),
            "{at}: {name} elements"
        );
        assert_eq!(
            t.offset,
            rt["offset"].as_u64().unwrap(),
            "{at}: {name} offset"
        );
        let n_bytes = rt["n_bytes"].as_u64().unwrap();
        if t.ggml_type.name == "Q8_1" {
            // PyPI gguf 0.19.0 says 40 bytes per Q8_1 block; ggml's block_q8_1 is 36.
            assert_eq!(
                (n_bytes, t.type_size),
                (t.n_elements / 32 * 40, t.n_elements / 32 * 36)
            );
        } else {
            assert_eq!(t.type_size, n_bytes, "{at}: {name} type-table size");
        }
        // Writers pad every tensor, the last one too, to the alignment: the extent from
        // consecutive offsets is the reference byte count rounded up, the rest is padding.
        assert_eq!(
            t.size,
            align_up(n_bytes, shard.alignment),
            "{at}: {name} extent"
        );
        assert_eq!(t.padding(), t.size - t.type_size);
        assert!(
            t.padding() < shard.alignment || t.ggml_type.name == "Q8_1",
            "{at}: {name} padding"
        );
    }
    // The extents tile the data section exactly.
    let sum: u64 = shard.tensors.iter().map(|t| t.size).sum();
    assert_eq!(
        sum,
        shard.data_bytes(),
        "{at}: extents cover the data section"
    );
}

fn fixtures(py: &str) -> (tempfile::TempDir, Json) {
    let dir = tempfile::tempdir().unwrap();
    let manifest = python(py, &["write", dir.path().to_str().unwrap()]);
    (dir, manifest)
}

fn open(path: &Path) -> Model {
    Model::open(path, &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn written_files_agree_with_gguf_py() {
    let Some(py) = peer("HEADROOM_PY") else {
        return;
    };
    let (dir, manifest) = fixtures(&py);
    let d = dir.path();

    // Every single-file fixture, tensor by tensor and key by key.
    for case in ["dense", "moe", "align64", "align8", "boundary"] {
        let path = d.join(manifest[case]["file"].as_str().unwrap());
        let model = open(&path);
        assert_eq!(model.shards.len(), 1);
        compare(&model.shards[0], &reference(&py, &[path])[0]);
    }

    // Dense: every type gguf-py knows, and the per-layer KV heads.
    let dense = open(&d.join("dense.gguf"));
    assert_eq!(
        dense.shards[0].tensors.len(),
        34,
        "one tensor per gguf-py type"
    );
    let f = dense.facts().unwrap();
    assert_eq!(f.kv_heads_per_layer, Some(vec![2, 1]));
    assert_eq!(
        (f.n_kv_heads, f.n_heads, f.head_dim, f.vocab_size),
        (Some(2), Some(4), Some(64), Some(3000))
    );

    // Alignments other than 32, and the exact boundary.
    for (case, a) in [("align64", 64), ("align8", 8)] {
        let m = open(&d.join(manifest[case]["file"].as_str().unwrap()));
        assert_eq!(m.shards[0].alignment, a);
        assert_eq!(m.shards[0].data_offset % a, 0);
    }
    let b = open(&d.join("boundary.gguf"));
    assert_eq!(
        b.shards[0].tensor_info_end,
        manifest["boundary"]["tensor_info_end"].as_u64().unwrap()
    );
    assert_eq!(b.shards[0].header_padding(), 0);
    assert_eq!(b.shards[0].data_offset, b.shards[0].tensor_info_end);
}

#[test]
fn moe_params_agree_with_gguf_py() {
    let Some(py) = peer("HEADROOM_PY") else {
        return;
    };
    let (dir, manifest) = fixtures(&py);
    let m = open(&dir.path().join("moe.gguf"));
    let a = m.accounting();
    let want = &manifest["moe"]["params"];
    let used = manifest["moe"]["used"].as_u64().unwrap();
    assert_eq!(a.params.total, want["total"].as_u64().unwrap());
    assert_eq!(a.params.shared, want["shared"].as_u64().unwrap());
    assert_eq!(a.params.per_expert, want["per_expert"].as_u64().unwrap());
    assert_eq!(a.n_experts, want["n_experts"].as_u64());
    // The file has its own output head, so the 100 × 256 input embedding is a row lookup.
    assert_eq!(a.params.gathered, 100 * 256);
    assert_eq!(
        a.params.active,
        a.params.shared - a.params.gathered + used * a.params.per_expert
    );
    assert_eq!(a.expert_tensors, 6);
    // One expert is a contiguous slice of each expert-major tensor.
    for (_, t) in m.tensors().filter(|(_, t)| t.name.contains("_exps.")) {
        assert_eq!(
            t.shape()[2],
            8,
            "{}: experts are the slowest dimension",
            t.name
        );
        assert_eq!(t.type_size % 8, 0);
    }
    let f = m.facts().unwrap();
    assert_eq!(
        (
            f.architecture.as_str(),
            f.n_experts,
            f.n_experts_used,
            f.n_shared_experts
        ),
        ("qwen3moe", Some(8), Some(2), Some(1))
    );
    assert_eq!(
        f.active_bytes,
        a.bytes.weights - 6 * a.bytes.per_expert - a.bytes.gathered
    );
}

#[test]
fn split_files_agree_with_gguf_py() {
    let Some(py) = peer("HEADROOM_PY") else {
        return;
    };
    let (dir, manifest) = fixtures(&py);
    let shards: Vec<PathBuf> = manifest["split"]["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| dir.path().join(s.as_str().unwrap()))
        .collect();
    let refs = reference(&py, &shards);
    // Opened from any shard, the model is every shard in order, each with its own data offset.
    for start in &shards {
        let m = open(start);
        assert_eq!(m.shards.len(), shards.len());
        for (s, r) in m.shards.iter().zip(&refs) {
            compare(s, r);
        }
    }
    // Split or not, the same model: same params, same type-table bytes.
    let split = open(&shards[1]).accounting();
    let whole = open(&dir.path().join("moe.gguf")).accounting();
    assert_eq!(split.params, whole.params);
    assert_eq!(split.bytes.type_table, whole.bytes.type_table);
    assert_eq!(open(&shards[2]).facts().unwrap().architecture, "qwen3moe");
}

#[test]
fn smollm2_agrees_with_gguf_py() {
    let (Some(py), Some(model)) = (peer("HEADROOM_PY"), peer("HEADROOM_MODEL")) else {
        return;
    };
    let path = PathBuf::from(model);
    let m = open(&path);
    let r = &reference(&py, std::slice::from_ref(&path))[0];
    compare(&m.shards[0], r);
    let f = m.facts().unwrap();
    assert_eq!(f.architecture, "llama");
    assert_eq!(
        (
            f.n_layers,
            f.hidden,
            f.n_heads,
            f.n_kv_heads,
            f.head_dim,
            f.context_length,
            f.vocab_size
        ),
        (
            Some(30),
            Some(576),
            Some(9),
            Some(3),
            Some(64),
            Some(8192),
            Some(49152)
        )
    );
    let want: u64 = r["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["n_elements"].as_u64().unwrap())
        .sum();
    assert_eq!(
        (f.params_total, f.params_active, f.params_expert),
        (want, want, 0)
    );
    assert_eq!(f.weight_bytes, m.shards[0].data_bytes());
}

/// The real header, served from memory; the data section reads as zeros and is never asked for.
struct HeaderOnly {
    header: Vec<u8>,
    len: u64,
    pos: u64,
}

impl Read for HeaderOnly {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.len.saturating_sub(self.pos) as usize);
        for (i, b) in buf[..n].iter_mut().enumerate() {
            *b = self.header.get(self.pos as usize + i).copied().unwrap_or(0);
        }
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for HeaderOnly {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.pos = match to {
            SeekFrom::Start(p) => p,
            SeekFrom::Current(d) => self.pos.checked_add_signed(d).unwrap(),
            SeekFrom::End(d) => self.len.checked_add_signed(d).unwrap(),
        };
        Ok(self.pos)
    }
}

#[test]
fn real_header_truncated_and_flipped_fails_cleanly() {
    let Some(model) = peer("HEADROOM_MODEL") else {
        return;
    };
    let path = PathBuf::from(model);
    let full = open(&path).shards.remove(0);
    let mut header = vec![0u8; full.data_offset as usize];
    std::fs::File::open(&path)
        .unwrap()
        .read_exact(&mut header)
        .unwrap();
    let parse = |header: Vec<u8>, len: u64| {
        gguf::read_shard_from(
            HeaderOnly {
                header,
                len,
                pos: 0,
            },
            len,
            "smol",
            &ReadOptions::default(),
        )
    };
    assert_eq!(
        parse(header.clone(), full.file_size).unwrap(),
        Shard {
            path: "smol".into(),
            ..full.clone()
        }
    );

    // Truncations: every byte of the fixed header and the first metadata, then spread out.
    let n = header.len();
    let cuts = (0..600).chain((600..n).step_by(n / 300));
    for cut in cuts {
        let err = parse(header[..cut].to_vec(), cut as u64).expect_err("cut header parsed");
        let at = err
            .offset()
            .unwrap_or_else(|| panic!("cut {cut}: no offset in {err}"));
        assert!(at <= cut as u64, "cut {cut}: {err}");
    }

    // Random bit flips across the header: an error or a consistent parse, never a panic.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut errors, mut parsed) = (0, 0);
    for round in 0..300 {
        let mut h = header.clone();
        // Half the rounds aim at the fixed header, counts and first keys, where flips bite.
        let span = if round % 2 == 0 { 4096 } else { n as u64 };
        for _ in 0..1 + next() % 3 {
            let i = (next() % span) as usize;
            h[i] ^= 1 << (next() % 8);
        }
        match parse(h, full.file_size) {
            Ok(s) => {
                parsed += 1;
                assert!(s
                    .tensors
                    .iter()
                    .all(|t| t.size >= t.type_size && t.offset + t.size <= s.file_size));
            }
            Err(e) => {
                errors += 1;
                assert!(e.to_string().starts_with("smol"), "{e}");
            }
        }
    }
    assert!(
        errors > 0 && parsed > 0,
        "flips gave {errors} errors and {parsed} parses"
    );
}
