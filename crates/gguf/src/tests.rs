//! Tables of cases for the reader: hand-built files, valid and hostile.

use std::io::Cursor;

use crate::*;

/// A GGUF file built byte by byte, so tests can say exactly what is wrong with it.
#[derive(Default, Clone)]
pub(crate) struct Build {
    kvs: Vec<u8>,
    n_kv: u64,
    infos: Vec<u8>,
    n_tensors: u64,
    /// Claimed counts, when a test lies about them.
    claim_kv: Option<u64>,
    claim_tensors: Option<u64>,
    version: u32,
    alignment: u64,
    data_len: u64,
}

pub(crate) fn s(text: &str) -> Vec<u8> {
    let mut b = (text.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(text.as_bytes());
    b
}

impl Build {
    pub fn new() -> Build {
        Build {
            version: 3,
            alignment: 32,
            ..Default::default()
        }
    }

    /// A key with a raw type id and raw value bytes.
    pub fn kv_raw(mut self, key: &str, ty: u32, value: &[u8]) -> Build {
        self.kvs.extend(s(key));
        self.kvs.extend(ty.to_le_bytes());
        self.kvs.extend_from_slice(value);
        self.n_kv += 1;
        self
    }

    pub fn kv_u32(self, key: &str, v: u32) -> Build {
        self.kv_raw(key, 4, &v.to_le_bytes())
    }

    pub fn kv_str(self, key: &str, v: &str) -> Build {
        self.kv_raw(key, 8, &s(v))
    }

    pub fn alignment(mut self, a: u32) -> Build {
        self.alignment = a.into();
        self.kv_u32("general.alignment", a)
    }

    /// A tensor info with a raw type id and relative offset.
    pub fn tensor_raw(mut self, name: &str, dims: &[u64], ty: u32, offset: u64) -> Build {
        self.infos.extend(s(name));
        self.infos.extend((dims.len() as u32).to_le_bytes());
        for d in dims {
            self.infos.extend(d.to_le_bytes());
        }
        self.infos.extend(ty.to_le_bytes());
        self.infos.extend(offset.to_le_bytes());
        self.n_tensors += 1;
        self
    }

    /// Tensors laid out one after the other, each padded to the alignment, as writers do.
    pub fn tensors(mut self, list: &[(&str, &[u64], &str)]) -> Build {
        let mut off = self.data_len;
        for (name, dims, ty) in list {
            let t = GgmlType::from_name(ty).unwrap();
            let n: u64 = dims.iter().product();
            let bytes = n / u64::from(t.block_elems) * u64::from(t.block_bytes);
            self = self.tensor_raw(name, dims, t.id, off);
            off += bytes.div_ceil(self.alignment) * self.alignment;
        }
        self.data_len = off;
        self
    }

    pub fn data_len(mut self, n: u64) -> Build {
        self.data_len = n;
        self
    }

    pub fn claim(mut self, tensors: Option<u64>, kvs: Option<u64>) -> Build {
        self.claim_tensors = tensors;
        self.claim_kv = kvs;
        self
    }

    pub fn version(mut self, v: u32) -> Build {
        self.version = v;
        self
    }

    /// Header and tensor infos only, no padding or data.
    pub fn header(&self) -> Vec<u8> {
        let mut b = b"GGUF".to_vec();
        b.extend(self.version.to_le_bytes());
        b.extend(self.claim_tensors.unwrap_or(self.n_tensors).to_le_bytes());
        b.extend(self.claim_kv.unwrap_or(self.n_kv).to_le_bytes());
        b.extend(&self.kvs);
        b.extend(&self.infos);
        b
    }

    /// The whole file: header, padding to the alignment, zeroed data.
    pub fn bytes(&self) -> Vec<u8> {
        let mut b = self.header();
        let a = self.alignment as usize;
        b.resize(b.len().div_ceil(a) * a, 0);
        b.resize(b.len() + self.data_len as usize, 0);
        b
    }
}

pub(crate) fn parse(bytes: &[u8]) -> Result<Shard, GgufError> {
    read_shard_from(
        Cursor::new(bytes),
        bytes.len() as u64,
        "t.gguf",
        &ReadOptions::default(),
    )
}

#[test]
fn extents_come_from_consecutive_offsets() {
    let b = Build::new()
        .kv_str("general.architecture", "llama")
        .tensors(&[
            ("a", &[64, 10], "Q8_0"), // 20 blocks × 34 = 680 → padded to 704
            ("b", &[3], "F32"),       // 12 → 32
            ("c", &[256, 2], "Q4_K"), // 2 × 144 = 288
        ]);
    let bytes = b.bytes();
    let sh = parse(&bytes).unwrap();
    assert_eq!(sh.data_offset % 32, 0);
    assert_eq!(
        sh.data_offset,
        sh.tensor_info_end + (32 - sh.tensor_info_end % 32) % 32
    );
    let got: Vec<_> = sh
        .tensors
        .iter()
        .map(|t| (t.name.as_str(), t.rel_offset, t.type_size, t.size))
        .collect();
    assert_eq!(
        got,
        vec![("a", 0, 680, 704), ("b", 704, 12, 32), ("c", 736, 288, 288)]
    );
    assert_eq!(sh.tensors[1].offset, sh.data_offset + 704);
    assert_eq!(sh.tensors[1].padding(), 20);
    assert_eq!(sh.padding(), 24 + 20);
    assert_eq!(sh.data_bytes(), 736 + 288);
}

#[test]
fn listing_order_need_not_follow_offsets() {
    let b = Build::new()
        .tensor_raw("late", &[8], 0, 64) // F32 × 8 = 32 bytes
        .tensor_raw("early", &[4], 0, 0) // 16 bytes, extent to 64
        .data_len(96);
    let sh = parse(&b.bytes()).unwrap();
    assert_eq!(
        (sh.tensors[0].name.as_str(), sh.tensors[0].size),
        ("late", 32)
    );
    assert_eq!(
        (
            sh.tensors[1].name.as_str(),
            sh.tensors[1].size,
            sh.tensors[1].padding()
        ),
        ("early", 64, 48)
    );
}

#[test]
fn alignment_key_and_exact_boundary() {
    let b = Build::new()
        .alignment(64)
        .tensors(&[("w", &[32, 4], "Q4_0")]);
    let sh = parse(&b.bytes()).unwrap();
    assert_eq!(sh.alignment, 64);
    assert_eq!(sh.data_offset % 64, 0);
    assert!(sh.data_offset >= sh.tensor_info_end && sh.data_offset - sh.tensor_info_end < 64);

    // Grow a filler string until the tensor infos end exactly on the boundary: padding 0.
    for fill in 0..32 {
        let b = Build::new()
            .kv_str("filler", &"x".repeat(fill))
            .tensors(&[("w", &[32], "F16")]);
        let sh = parse(&b.bytes()).unwrap();
        if sh.header_padding() == 0 {
            assert_eq!(sh.header_padding(), 0);
            assert_eq!(sh.data_offset, sh.tensor_info_end);
            return;
        }
        assert_eq!(sh.header_padding(), 32 - sh.tensor_info_end % 32);
    }
    panic!("no filler length put the tensor infos on the boundary");
}

#[test]
fn every_value_type_and_nested_arrays() {
    let mut nested = 9u32.to_le_bytes().to_vec(); // array of arrays
    nested.extend(2u64.to_le_bytes());
    for inner in [&[1u16, 2][..], &[3u16][..]] {
        nested.extend(2u32.to_le_bytes());
        nested.extend((inner.len() as u64).to_le_bytes());
        for v in inner {
            nested.extend(v.to_le_bytes());
        }
    }
    let mut strs = 8u32.to_le_bytes().to_vec();
    strs.extend(2u64.to_le_bytes());
    strs.extend(s("a"));
    strs.extend(s("βc"));
    let b = Build::new()
        .kv_raw("u8", 0, &[200])
        .kv_raw("i8", 1, &[0xff])
        .kv_raw("u16", 2, &65535u16.to_le_bytes())
        .kv_raw("i16", 3, &(-2i16).to_le_bytes())
        .kv_raw("u32", 4, &7u32.to_le_bytes())
        .kv_raw("i32", 5, &(-7i32).to_le_bytes())
        .kv_raw("f32", 6, &1.5f32.to_le_bytes())
        .kv_raw("bool", 7, &[1])
        .kv_raw("string", 8, &s("hello"))
        .kv_raw("u64", 10, &u64::MAX.to_le_bytes())
        .kv_raw("i64", 11, &i64::MIN.to_le_bytes())
        .kv_raw("f64", 12, &(-0.25f64).to_le_bytes())
        .kv_raw("nested", 9, &nested)
        .kv_raw("strings", 9, &strs);
    let sh = parse(&b.bytes()).unwrap();
    let v = |k: &str| sh.get(k).unwrap().clone();
    assert_eq!(v("u8"), Value::U8(200));
    assert_eq!(v("i8"), Value::I8(-1));
    assert_eq!(v("u16"), Value::U16(65535));
    assert_eq!(v("i16"), Value::I16(-2));
    assert_eq!(v("u32").as_u64(), Some(7));
    assert_eq!(v("i32"), Value::I32(-7));
    assert_eq!(v("i32").as_u64(), None);
    assert_eq!(v("f32"), Value::F32(1.5));
    assert_eq!(v("bool"), Value::Bool(true));
    assert_eq!(v("string").as_str(), Some("hello"));
    assert_eq!(v("u64"), Value::U64(u64::MAX));
    assert_eq!(v("i64"), Value::I64(i64::MIN));
    assert_eq!(v("f64"), Value::F64(-0.25));
    let n = v("nested");
    assert_eq!(n.type_label(), "array[array[u16]]");
    let outer = n.as_array().unwrap().items.as_ref().unwrap();
    assert_eq!(outer[0].as_u64_list(), Some(vec![1, 2]));
    assert_eq!(outer[1].as_u64_list(), Some(vec![3]));
    let st = v("strings");
    let items = st.as_array().unwrap().items.as_ref().unwrap();
    assert_eq!(items[1].as_str(), Some("βc"));
    // Offsets point at each entry.
    assert_eq!(sh.entry("u8").unwrap().offset, 24);
}

#[test]
fn long_arrays_and_strings_are_counted_not_kept() {
    let mut toks = 8u32.to_le_bytes().to_vec();
    toks.extend(3000u64.to_le_bytes());
    for i in 0..3000 {
        toks.extend(s(&format!("t{i}")));
    }
    let mut ids = 5u32.to_le_bytes().to_vec();
    ids.extend(5000u64.to_le_bytes());
    ids.extend(vec![0u8; 5000 * 4]);
    let b = Build::new()
        .kv_raw("tokenizer.ggml.tokens", 9, &toks)
        .kv_raw("ids", 9, &ids)
        .kv_str("big", &"z".repeat(100))
        .kv_u32("after", 5);
    let opts = ReadOptions {
        max_array_items: 1024,
        max_string_bytes: 64,
    };
    let bytes = b.bytes();
    let sh = read_shard_from(Cursor::new(&bytes), bytes.len() as u64, "t", &opts).unwrap();
    let t = sh.get("tokenizer.ggml.tokens").unwrap().as_array().unwrap();
    assert_eq!(
        (t.elem, t.len, t.items.is_none()),
        (ValueType::String, 3000, true)
    );
    assert_eq!(sh.get("ids").unwrap().array_len(), Some(5000));
    assert_eq!(sh.get("big"), Some(&Value::LongString(100)));
    assert_eq!(sh.get("after").unwrap().as_u64(), Some(5)); // walked past them correctly
}

#[test]
fn newest_types_are_read() {
    let b = Build::new().tensors(&[
        ("mx", &[64, 2], "MXFP4"),
        ("nv", &[128], "NVFP4"),
        ("q1", &[128], "Q1_0"),
        ("q2", &[64], "Q2_0"),
        ("tq", &[256], "TQ1_0"),
        ("iq", &[256], "IQ1_M"),
        ("bf", &[3, 3], "BF16"),
    ]);
    let sh = parse(&b.bytes()).unwrap();
    let got: Vec<_> = sh
        .tensors
        .iter()
        .map(|t| (t.ggml_type.name, t.type_size))
        .collect();
    assert_eq!(
        got,
        vec![
            ("MXFP4", 68),
            ("NVFP4", 72),
            ("Q1_0", 18),
            ("Q2_0", 18),
            ("TQ1_0", 54),
            ("IQ1_M", 56),
            ("BF16", 18)
        ]
    );
}

/// (case, file bytes, text the error must hold, byte offset it must name)
fn hostile_cases() -> Vec<(&'static str, Vec<u8>, &'static str, Option<u64>)> {
    let ok = Build::new().kv_str("general.architecture", "llama");
    let mut deep = Vec::new();
    for _ in 0..40 {
        deep.extend(9u32.to_le_bytes());
        deep.extend(1u64.to_le_bytes());
    }
    deep.extend(vec![0u8; 64]);
    let mut huge_array = 10u32.to_le_bytes().to_vec();
    huge_array.extend((1u64 << 60).to_le_bytes());
    let mut bad_elem = 13u32.to_le_bytes().to_vec();
    bad_elem.extend(1u64.to_le_bytes());
    let mut long_key = (1u64 << 20).to_le_bytes().to_vec();
    long_key.extend(vec![b'k'; 64]);
    let mut bad_key_bytes = b"GGUF".to_vec();
    bad_key_bytes.extend(3u32.to_le_bytes());
    bad_key_bytes.extend(0u64.to_le_bytes());
    bad_key_bytes.extend(1u64.to_le_bytes());
    bad_key_bytes.extend(long_key);
    bad_key_bytes.extend(vec![0u8; 64]);
    vec![
        (
            "empty file",
            vec![],
            "truncated: magic needs 4 bytes",
            Some(0),
        ),
        (
            "bad magic",
            b"GGML\x03\0\0\0".to_vec(),
            "not a GGUF file",
            Some(0),
        ),
        (
            "version 1",
            ok.clone().version(1).bytes(),
            "version 1",
            Some(4),
        ),
        (
            "big-endian",
            ok.clone().version(3u32.swap_bytes()).bytes(),
            "big-endian",
            Some(4),
        ),
        (
            "version 9",
            ok.clone().version(9).bytes(),
            "unsupported GGUF version 9",
            Some(4),
        ),
        (
            "2^60 tensors",
            ok.clone().claim(Some(1 << 60), None).bytes(),
            "tensor count 1152921504606846976 cannot fit",
            Some(8),
        ),
        (
            "2^60 kvs",
            ok.clone().claim(None, Some(1 << 60)).bytes(),
            "metadata count 1152921504606846976 cannot fit",
            Some(16),
        ),
        (
            "u64::MAX tensors",
            ok.clone().claim(Some(u64::MAX), None).bytes(),
            "cannot fit",
            Some(8),
        ),
        (
            "2^40-byte string",
            Build::new()
                .kv_raw("k", 8, &(1u64 << 40).to_le_bytes())
                .data_len(64)
                .bytes(),
            "string of 1099511627776 bytes runs past the end",
            Some(37),
        ),
        (
            "2^40-byte key",
            bad_key_bytes,
            "metadata key length 1048576 is implausible",
            Some(24),
        ),
        (
            "2^60-element array",
            Build::new().kv_raw("k", 9, &huge_array).bytes(),
            "array of 1152921504606846976 u64 elements cannot fit",
            Some(37),
        ),
        (
            "deep nesting",
            Build::new().kv_raw("k", 9, &deep).bytes(),
            "nested deeper than 32",
            None,
        ),
        (
            "unknown value type",
            Build::new().kv_raw("k", 13, &[0; 8]).bytes(),
            "unknown metadata value type 13",
            Some(33),
        ),
        (
            "unknown array element type",
            Build::new().kv_raw("k", 9, &bad_elem).bytes(),
            "unknown metadata value type 13",
            Some(37),
        ),
        (
            "duplicate key",
            ok.clone().kv_u32("a", 1).kv_u32("a", 2).bytes(),
            "duplicate metadata key 'a'",
            None,
        ),
        (
            "unknown ggml type 4",
            Build::new()
                .tensor_raw("w", &[32], 4, 0)
                .data_len(64)
                .bytes(),
            "tensor 'w' has unknown ggml type id 4",
            Some(45),
        ),
        (
            "unknown ggml type 77",
            Build::new()
                .tensor_raw("blk.0.x", &[8, 8], 77, 0)
                .data_len(512)
                .bytes(),
            "unknown ggml type id 77",
            Some(59),
        ),
        (
            "5 dims",
            Build::new()
                .tensor_raw("w", &[1, 1, 1, 1, 1], 0, 0)
                .data_len(64)
                .bytes(),
            "5 dimensions",
            Some(33),
        ),
        (
            "shape overflow",
            Build::new()
                .tensor_raw("w", &[1 << 32, 1 << 32], 0, 0)
                .bytes(),
            "overflows",
            Some(33),
        ),
        (
            "row not whole blocks",
            Build::new()
                .tensor_raw("w", &[16], 2, 0)
                .data_len(64)
                .bytes(),
            "not a multiple of its block of 32",
            Some(33),
        ),
        (
            "offset past end",
            Build::new()
                .tensor_raw("w", &[8], 0, 1 << 40)
                .data_len(64)
                .bytes(),
            "runs past the end of the file",
            Some(24),
        ),
        (
            "data cut short",
            Build::new()
                .tensor_raw("w", &[64], 0, 0)
                .data_len(128)
                .bytes(),
            "runs past the end",
            Some(24),
        ),
        (
            "offset + size overflows",
            Build::new().tensor_raw("w", &[8], 0, u64::MAX - 31).bytes(),
            "runs past the end",
            Some(24),
        ),
        (
            "overlap",
            Build::new()
                .tensor_raw("a", &[16], 0, 0)
                .tensor_raw("b", &[8], 0, 32)
                .data_len(96)
                .bytes(),
            "tensor 'a' (64 bytes at data offset 0) overlaps tensor 'b'",
            Some(24),
        ),
        (
            "misaligned offset",
            Build::new()
                .tensor_raw("w", &[8], 0, 8)
                .data_len(64)
                .bytes(),
            "not a multiple of the alignment 32",
            Some(24),
        ),
        (
            "duplicate tensor",
            Build::new()
                .tensor_raw("w", &[8], 0, 0)
                .tensor_raw("w", &[8], 0, 32)
                .data_len(64)
                .bytes(),
            "duplicate tensor name 'w'",
            None,
        ),
        (
            "alignment not u32",
            Build::new()
                .kv_raw("general.alignment", 10, &64u64.to_le_bytes())
                .bytes(),
            "general.alignment must be a u32, found u64",
            Some(24),
        ),
        (
            "alignment 48",
            Build::new().kv_u32("general.alignment", 48).bytes(),
            "48 is not a power of two",
            Some(24),
        ),
        (
            "alignment 0",
            Build::new().kv_u32("general.alignment", 0).bytes(),
            "0 is not a power of two",
            Some(24),
        ),
        (
            "tensor name not utf-8",
            Build::new()
                .tensor_raw("\u{0}", &[8], 0, 0)
                .data_len(64)
                .bytes()
                .iter()
                .enumerate()
                .map(|(i, &b)| if i == 32 { 0xff } else { b })
                .collect(),
            "tensor name is not UTF-8",
            Some(32),
        ),
    ]
}

#[test]
fn hostile_files_give_clear_errors() {
    for (case, bytes, want, at) in hostile_cases() {
        let err = match parse(&bytes) {
            Ok(_) => panic!("{case}: parsed without error"),
            Err(e) => e,
        };
        let text = err.to_string();
        assert!(text.starts_with("t.gguf: "), "{case}: {text}");
        assert!(text.contains(want), "{case}: '{text}' lacks '{want}'");
        if let Some(at) = at {
            assert_eq!(err.offset(), Some(at), "{case}: {text}");
        }
    }
}

#[test]
fn unknown_type_error_names_id_and_tensor() {
    let b = Build::new()
        .tensor_raw("blk.3.ffn_up.weight", &[32], 36, 0)
        .data_len(64);
    match parse(&b.bytes()) {
        Err(GgufError::UnknownType { id, tensor, .. }) => {
            assert_eq!((id, tensor.as_str()), (36, "blk.3.ffn_up.weight"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_truncation_fails_cleanly() {
    let mut toks = 8u32.to_le_bytes().to_vec();
    toks.extend(3u64.to_le_bytes());
    for t in ["a", "bb", "ccc"] {
        toks.extend(s(t));
    }
    let b = Build::new()
        .kv_str("general.architecture", "llama")
        .kv_raw("tokenizer.ggml.tokens", 9, &toks)
        .kv_raw("f", 6, &1f32.to_le_bytes())
        .tensors(&[("a", &[32, 2], "Q8_0"), ("b", &[5], "F32")]);
    let bytes = b.bytes();
    let full = parse(&bytes).unwrap();
    let data_end = full
        .tensors
        .iter()
        .map(|t| t.offset + t.type_size)
        .max()
        .unwrap() as usize;
    assert!(
        data_end < bytes.len(),
        "the builder pads the last tensor too"
    );
    for cut in data_end..bytes.len() {
        // Cutting trailing padding only shortens the last extent.
        let sh = parse(&bytes[..cut]).unwrap();
        assert_eq!(
            sh.tensors[1].size,
            (cut - sh.tensors[1].offset as usize) as u64
        );
    }
    for cut in 0..data_end {
        let err = parse(&bytes[..cut]).expect_err("a cut file must not parse");
        let text = err.to_string();
        if let Some(at) = err.offset() {
            assert!(
                at <= cut as u64,
                "cut {cut}: error points past the cut: {text}"
            );
        }
        assert!(
            ["truncated", "past the end", "cannot fit"]
                .iter()
                .any(|w| text.contains(w)),
            "cut {cut}: {text}"
        );
    }
}

#[test]
fn random_byte_flips_never_panic() {
    let b = Build::new()
        .kv_str("general.architecture", "qwen3moe")
        .kv_u32("qwen3moe.expert_used_count", 2)
        .tensors(&[
            ("blk.0.ffn_up_exps.weight", &[32, 4, 8], "Q8_0"),
            ("n", &[4], "F32"),
        ]);
    let clean = b.bytes();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..5000 {
        let mut bytes = clean.clone();
        for _ in 0..1 + next() % 4 {
            let i = (next() % bytes.len() as u64) as usize;
            bytes[i] ^= 1 << (next() % 8);
        }
        if let Ok(sh) = parse(&bytes) {
            // Whatever parses must still be a consistent layout.
            let m = Model::from_shards(vec![sh]).unwrap();
            let acc = m.accounting();
            assert!(acc.params.active <= acc.params.total);
            assert!(acc.bytes.type_table <= acc.bytes.weights);
        }
    }
}

fn moe() -> Build {
    Build::new()
        .kv_str("general.architecture", "qwen3moe")
        .kv_u32("qwen3moe.block_count", 1)
        .kv_u32("qwen3moe.embedding_length", 64)
        .kv_u32("qwen3moe.attention.head_count", 4)
        .kv_u32("qwen3moe.expert_count", 8)
        .kv_u32("qwen3moe.expert_used_count", 2)
        .tensors(&[
            ("token_embd.weight", &[64, 100], "F16"),
            ("blk.0.ffn_gate_inp.weight", &[64, 8], "F32"),
            ("blk.0.ffn_gate_exps.weight", &[64, 32, 8], "Q8_0"),
            ("blk.0.ffn_down_exps.weight", &[32, 64, 8], "Q8_0"),
            ("blk.0.ffn_down_exps.bias", &[64, 8], "F32"),
            ("blk.0.ffn_up_shexp.weight", &[64, 32], "F16"),
        ])
}

#[test]
fn moe_accounting() {
    let m = Model::from_shards(vec![parse(&moe().bytes()).unwrap()]).unwrap();
    let a = m.accounting();
    let dense = 6400 + 512 + 2048;
    let exps = 16384 + 16384 + 512;
    assert_eq!(a.params.total, dense + exps);
    assert_eq!(a.params.expert, exps);
    assert_eq!(a.params.per_expert, exps / 8);
    assert_eq!(a.params.shared, dense);
    assert_eq!(a.params.active, dense + 2 * exps / 8);
    assert_eq!(
        (a.n_experts, a.n_experts_used, a.expert_tensors),
        (Some(8), Some(2), 3)
    );
    // Q8_0: 16384 elements = 512 blocks × 34 bytes; F32 bias 2048 bytes.
    let exp_bytes = 2 * 512 * 34 + 2048;
    assert_eq!(a.bytes.expert, exp_bytes);
    assert_eq!(a.bytes.per_expert, exp_bytes / 8);
    assert_eq!(a.bytes.active, a.bytes.weights - 6 * exp_bytes / 8);
    assert!(a.notes.is_empty(), "{:?}", a.notes);
    let f = m.facts().unwrap();
    assert_eq!(
        (f.n_experts, f.n_experts_used, f.head_dim, f.n_kv_heads),
        (Some(8), Some(2), Some(16), Some(4))
    );
    assert_eq!(f.params_active, a.params.active);
    assert_eq!(f.params_per_expert, exps / 8);
    // One expert is a contiguous slice: expert e of a tensor starts at offset + e × size/E.
    let t = &m.shards[0].tensors[2];
    assert_eq!(expert_count(t), Some(8));
    assert_eq!(t.type_size % 8, 0);
}

/// An input embedding with its own output head is a row lookup per token, not a stream; a tied
/// one is also the output head and stays in. Per-layer token embeddings are always lookups.
#[test]
fn untied_input_embedding_is_gathered_not_streamed() {
    let dense = |with_head: bool| {
        let mut t: Vec<(&str, &[u64], &str)> = vec![
            ("token_embd.weight", &[64, 100], "F16"),
            ("blk.0.attn_q.weight", &[64, 64], "F16"),
        ];
        if with_head {
            t.push(("output.weight", &[64, 100], "F16"));
        }
        let b = Build::new()
            .kv_str("general.architecture", "llama")
            .tensors(&t);
        Model::from_shards(vec![parse(&b.bytes()).unwrap()])
            .unwrap()
            .accounting()
    };
    let untied = dense(true);
    assert_eq!(untied.params.total, 6400 + 4096 + 6400);
    assert_eq!(untied.params.gathered, 6400);
    assert_eq!(untied.params.active, 4096 + 6400);
    assert_eq!(untied.bytes.gathered, 12800);
    assert_eq!(untied.bytes.active, untied.bytes.weights - 12800);
    let tied = dense(false);
    assert_eq!(tied.params.gathered, 0);
    assert_eq!(tied.params.active, tied.params.total);
    assert_eq!(tied.bytes.active, tied.bytes.weights);

    let b = Build::new()
        .kv_str("general.architecture", "gemma3n")
        .tensors(&[
            ("token_embd.weight", &[64, 100], "F16"),
            ("per_layer_token_embd.weight", &[32, 100], "Q8_0"),
        ]);
    let m = Model::from_shards(vec![parse(&b.bytes()).unwrap()]).unwrap();
    let a = m.accounting();
    assert_eq!((a.params.gathered, a.params.active), (3200, 6400));
    assert_eq!(m.facts().unwrap().params_gathered, 3200);
}

#[test]
fn moe_without_used_count_says_so() {
    let b = Build::new().kv_str("general.architecture", "x").tensors(&[(
        "blk.0.ffn_up_exps.weight",
        &[32, 4, 8],
        "F16",
    )]);
    let m = Model::from_shards(vec![parse(&b.bytes()).unwrap()]).unwrap();
    let a = m.accounting();
    assert_eq!(a.params.active, a.params.total);
    assert!(a.notes[0].contains("no expert_used_count"), "{:?}", a.notes);
}

#[test]
fn per_layer_head_counts() {
    let mut arr = 5u32.to_le_bytes().to_vec();
    arr.extend(3u64.to_le_bytes());
    for v in [2i32, 0, 4] {
        arr.extend(v.to_le_bytes());
    }
    let b = Build::new()
        .kv_str("general.architecture", "openelm")
        .kv_u32("openelm.embedding_length", 64)
        .kv_u32("openelm.attention.head_count", 8)
        .kv_raw("openelm.attention.head_count_kv", 9, &arr);
    let f = Model::from_shards(vec![parse(&b.bytes()).unwrap()])
        .unwrap()
        .facts()
        .unwrap();
    assert_eq!(f.n_kv_heads, Some(4));
    assert_eq!(f.kv_heads_per_layer, Some(vec![2, 0, 4]));
    assert_eq!(f.head_dim, Some(8));
}

fn shard(no: u16, count: u16, total: i32, list: &[(&str, &[u64], &str)]) -> Build {
    let mut b = Build::new();
    if no == 0 {
        b = b.kv_str("general.architecture", "llama");
    }
    b.kv_raw("split.no", 2, &no.to_le_bytes())
        .kv_raw("split.count", 2, &count.to_le_bytes())
        .kv_raw("split.tensors.count", 5, &total.to_le_bytes())
        .tensors(list)
}

#[test]
fn split_files_are_found_from_any_shard() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        shard(0, 3, 3, &[("a", &[64], "F32")]),
        shard(1, 3, 3, &[("b", &[32, 2], "Q8_0")]),
        shard(2, 3, 3, &[("c", &[8], "F16")]),
    ];
    for (i, f) in files.iter().enumerate() {
        std::fs::write(
            dir.path().join(format!("m-{:05}-of-00003.gguf", i + 1)),
            f.bytes(),
        )
        .unwrap();
    }
    for start in 1..=3 {
        let m = Model::open(
            &dir.path().join(format!("m-{start:05}-of-00003.gguf")),
            &ReadOptions::default(),
        )
        .unwrap();
        assert_eq!(m.shards.len(), 3);
        let names: Vec<_> = m.tensors().map(|(i, t)| (i, t.name.as_str())).collect();
        assert_eq!(names, vec![(0, "a"), (1, "b"), (2, "c")]);
        assert_eq!(m.architecture(), Some("llama"));
        assert_eq!(m.accounting().params.total, 64 + 64 + 8);
    }
    std::fs::remove_file(dir.path().join("m-00002-of-00003.gguf")).unwrap();
    let err = Model::open(
        &dir.path().join("m-00001-of-00003.gguf"),
        &ReadOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("shard 2 of 3 is missing"), "{err}");

    let lone = dir.path().join("renamed.gguf");
    std::fs::write(&lone, files[0].bytes()).unwrap();
    let err = Model::open(&lone, &ReadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("does not follow"), "{err}");
}

#[test]
fn split_inconsistencies_are_errors() {
    let a = parse(&shard(0, 2, 2, &[("a", &[8], "F32")]).bytes()).unwrap();
    let b = parse(&shard(1, 2, 2, &[("b", &[8], "F32")]).bytes()).unwrap();
    let b_dup = parse(&shard(1, 2, 2, &[("a", &[8], "F32")]).bytes()).unwrap();
    let b_wrong_no = parse(&shard(0, 2, 2, &[("b", &[8], "F32")]).bytes()).unwrap();
    let a_bad_total = parse(&shard(0, 2, 5, &[("a", &[8], "F32")]).bytes()).unwrap();
    assert!(Model::from_shards(vec![a.clone(), b.clone()]).is_ok());
    let cases = [
        (vec![a.clone(), b_dup], "appears in more than one shard"),
        (vec![a.clone(), b_wrong_no], "expected split.no = 1"),
        (
            vec![a_bad_total, b.clone()],
            "split.tensors.count is 5 but the 2 shards hold 2",
        ),
        (vec![b, a], "expected split.no = 0"),
    ];
    for (shards, want) in cases {
        let err = Model::from_shards(shards).unwrap_err().to_string();
        assert!(err.contains(want), "{err}");
    }
}
