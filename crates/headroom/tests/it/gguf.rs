//! `headroom gguf` end to end: its JSON against gguf-py's GGUFReader on the real SmolLM2 file and
//! on split files gguf-py's GGUFWriter writes; hostile files under a memory limit.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::headroom_output as headroom;
use gguf::doc::GgufDoc;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::collections::BTreeMap;

use testpeers::peer;

/// A scratch directory removed when the test ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!("headroom-gguf-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn json_of(path: &Path) -> GgufDoc {
    let out = headroom(&["gguf", path.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is a headroom.gguf/1 document")
}

/// What gguf_py.py's `read` prints for one file: gguf-py's GGUFReader's view.
#[derive(Deserialize)]
struct PyFile {
    data_offset: u64,
    alignment: u64,
    /// Keyed by metadata key; the values are gguf-py's own shapes, and only the keys are read.
    fields: BTreeMap<String, serde::de::IgnoredAny>,
    tensors: Vec<PyTensor>,
}

#[derive(Deserialize)]
struct PyTensor {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    shape: Vec<u64>,
    n_elements: u64,
    n_bytes: u64,
    offset: u64,
}

/// What gguf_py.py's `write` prints: of its fixtures, the split MoE one is read here.
#[derive(Deserialize)]
struct PyManifest {
    split: PySplit,
}

#[derive(Deserialize)]
struct PySplit {
    shards: Vec<String>,
    params: PyParams,
    used: u64,
}

/// gguf-py's `get_total_parameter_count()`.
#[derive(Deserialize)]
struct PyParams {
    total: u64,
    shared: u64,
    per_expert: u64,
    n_experts: u64,
}

fn gguf_py<T: DeserializeOwned>(py: &str, args: &[&str]) -> T {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gguf/tests/gguf_py.py");
    let out = Command::new(py)
        .arg(script)
        .args(args)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "gguf_py.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn align_up(x: u64, a: u64) -> u64 {
    x + (a - x % a) % a
}

/// Our tensors (those of shard `shard`) against gguf-py's reading of that shard's file.
fn same_tensors(ours: &GgufDoc, shard: usize, theirs: &PyFile) {
    let ours: Vec<_> = ours.tensors.iter().filter(|t| t.shard == shard).collect();
    assert_eq!(ours.len(), theirs.tensors.len());
    for (o, t) in ours.iter().zip(&theirs.tensors) {
        let name = &t.name;
        assert_eq!(&o.name, name);
        assert_eq!(o.ty, t.ty, "{name}");
        assert_eq!(o.shape, t.shape, "{name}");
        assert_eq!(o.offset, t.offset, "{name}");
        assert_eq!(o.n_elements, t.n_elements, "{name}");
    }
}

#[test]
fn smollm2_json_agrees_with_gguf_py() {
    let (Some(py), Some(model)) = (peer("HEADROOM_PY"), peer("HEADROOM_MODEL")) else {
        return;
    };
    let ours = json_of(Path::new(&model));
    let theirs: Vec<PyFile> = gguf_py(&py, &["read", &model]);
    let theirs = &theirs[0];
    assert_eq!(ours.schema, gguf::doc::SCHEMA);
    assert_eq!(ours.data_offset, theirs.data_offset);
    assert_eq!(ours.alignment, theirs.alignment);
    same_tensors(&ours, 0, theirs);
    let a = ours.alignment;
    let mut total = 0;
    for (o, t) in ours.tensors.iter().zip(&theirs.tensors) {
        let n_bytes = t.n_bytes;
        assert_eq!(o.type_size, n_bytes);
        assert_eq!(o.size, align_up(n_bytes, a), "{}", t.name);
        assert_eq!(o.padding, align_up(n_bytes, a) - n_bytes);
        total += t.n_elements;
    }
    assert_eq!(ours.params.total, total);
    assert_eq!(ours.params.active, total);
    assert_eq!(ours.params.expert, 0);
    let m = ours.model.as_ref().unwrap();
    assert_eq!(m.architecture, "llama");
    assert_eq!(m.n_layers, Some(30));
    // Metadata: every gguf-py field (a BTreeMap: compared as sets).
    let mut keys: Vec<&str> = ours.metadata.iter().map(|e| e.key.as_str()).collect();
    keys.sort();
    let want: Vec<&str> = theirs.fields.keys().map(String::as_str).collect();
    assert_eq!(keys, want);
    // The vocabulary is counted, not kept.
    let tokens = ours
        .metadata
        .iter()
        .find(|e| e.key == "tokenizer.ggml.tokens")
        .unwrap();
    match &tokens.value {
        gguf::Value::Array(a) => assert_eq!((a.len, a.items.is_none()), (49152, true)),
        other => panic!("tokens are an array, got {other:?}"),
    }
}

#[test]
fn smollm2_human_summary() {
    let Some(model) = peer("HEADROOM_MODEL") else {
        return;
    };
    let out = headroom(&["gguf", &model]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for want in [
        "architecture  llama",
        "layers        30",
        "heads         9 query, 3 kv; head dim 64",
        "134.52 M total (134,515,008)",
        "experts       none (dense)",
        "data starts at byte 1,785,664",
        "Q4_1",
    ] {
        assert!(text.contains(want), "summary lacks '{want}':\n{text}");
    }
    let out = headroom(&["gguf", &model, "--tensors"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("token_embd.weight") && text.contains("output_norm.weight"),
        "{text}"
    );
    assert_eq!(text.lines().filter(|l| l.contains(".weight")).count(), 272);
}

#[test]
fn split_json_has_every_shard() {
    let Some(py) = peer("HEADROOM_PY") else {
        return;
    };
    let dir = Scratch::new("split");
    let manifest: PyManifest = gguf_py(&py, &["write", dir.0.to_str().unwrap()]);
    let shards: Vec<String> = manifest
        .split
        .shards
        .iter()
        .map(|s| dir.0.join(s).display().to_string())
        .collect();
    let mut args = vec!["read"];
    args.extend(shards.iter().map(String::as_str));
    let theirs: Vec<PyFile> = gguf_py(&py, &args);
    let ours = json_of(Path::new(&shards[1]));
    assert_eq!(ours.shards.len(), shards.len());
    for (i, (s, t)) in ours.shards.iter().zip(&theirs).enumerate() {
        assert_eq!(s.path, shards[i]);
        assert_eq!(s.data_offset, t.data_offset, "shard {i}");
        assert_eq!(s.split_no, Some(i as u64));
        same_tensors(&ours, i, t);
    }
    let p = &manifest.split.params;
    assert_eq!(ours.params.total, p.total);
    assert_eq!(ours.params.per_expert, p.per_expert);
    assert_eq!(ours.experts.count, Some(p.n_experts));
    let used = manifest.split.used;
    // The file has its own output.weight: the 100 × 256 input embedding is a row lookup.
    assert_eq!(ours.params.gathered, 100 * 256);
    assert_eq!(
        ours.params.active,
        p.shared - ours.params.gathered + used * p.per_expert
    );
}

fn header(tensors: u64, kvs: u64) -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend(3u32.to_le_bytes());
    b.extend(tensors.to_le_bytes());
    b.extend(kvs.to_le_bytes());
    b
}

fn string(s: &str) -> Vec<u8> {
    let mut b = (s.len() as u64).to_le_bytes().to_vec();
    b.extend(s.as_bytes());
    b
}

fn tensor(name: &str, dims: &[u64], ty: u32, off: u64) -> Vec<u8> {
    let mut b = string(name);
    b.extend((dims.len() as u32).to_le_bytes());
    dims.iter().for_each(|d| b.extend(d.to_le_bytes()));
    b.extend(ty.to_le_bytes());
    b.extend(off.to_le_bytes());
    b
}

#[test]
fn hostile_files_fail_cleanly_in_bounded_memory() {
    let dir = Scratch::new("hostile");
    let mut huge_string = header(0, 1);
    huge_string.extend(string("k"));
    huge_string.extend(8u32.to_le_bytes());
    huge_string.extend((1u64 << 40).to_le_bytes());
    huge_string.extend([0u8; 64]);
    let mut huge_array = header(0, 1);
    huge_array.extend(string("k"));
    huge_array.extend(9u32.to_le_bytes());
    huge_array.extend(8u32.to_le_bytes());
    huge_array.extend((1u64 << 60).to_le_bytes());
    huge_array.extend([0u8; 64]);
    let mut unknown = header(1, 0);
    unknown.extend(tensor("blk.0.w", &[32], 77, 0));
    unknown.resize(128, 0);
    let mut past_end = header(1, 0);
    past_end.extend(tensor("w", &[1024], 0, 0));
    past_end.resize(128, 0);
    let mut many = header(1 << 60, 0);
    many.extend([0u8; 64]);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("many", many, "at byte 8: tensor count 1152921504606846976 cannot fit"),
        ("string", huge_string, "at byte 37: truncated: string of 1099511627776 bytes"),
        ("array", huge_array, "at byte 37: array of 1152921504606846976 string elements cannot fit"),
        ("unknown", unknown, "tensor 'blk.0.w' has unknown ggml type id 77"),
        ("past_end", past_end, "tensor 'w' (F32 [1024], 4096 bytes) at byte 64 runs past the end of the file (128 bytes)"),
        ("notgguf", b"PK\x03\x04 this is a zip".to_vec(), "at byte 0: not a GGUF file"),
    ];
    for (name, bytes, want) in cases {
        let path = dir.0.join(format!("{name}.gguf"));
        std::fs::write(&path, bytes).unwrap();
        // 256 MiB of address space: an allocation driven by a hostile length would abort. The
        // binary runs under a shell of its own for the limit, the one place not through Headroom.
        let out = Command::new("bash")
            .arg("-c")
            .arg("ulimit -v 262144; exec \"$0\" gguf \"$1\"")
            .arg(crate::util::bin())
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.starts_with(&format!("error: {}: ", path.display())),
            "{name}: {err}"
        );
        assert!(err.contains(want), "{name}: '{err}' lacks '{want}'");
        assert!(!err.contains("panicked"), "{name}: {err}");
        assert!(out.stdout.is_empty(), "{name}: nothing on stdout");
    }
}

#[test]
fn help_has_examples() {
    let out = headroom(&["gguf", "--help"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Examples:") && text.contains("--json") && text.contains("docs/json/gguf.md"),
        "{text}"
    );
}
