//! `headroom gguf` end to end: its JSON against gguf-py's GGUFReader on the real SmolLM2 file and
//! on split files gguf-py's GGUFWriter writes; hostile files under a memory limit.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::headroom_output as headroom;
use serde_json::Value as Json;

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

fn json_of(path: &Path) -> Json {
    let out = headroom(&["gguf", path.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

fn gguf_py(py: &str, args: &[&str]) -> Json {
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
fn same_tensors(ours: &Json, shard: u64, theirs: &Json) {
    let ours: Vec<&Json> = ours["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["shard"] == shard)
        .collect();
    let theirs = theirs["tensors"].as_array().unwrap();
    assert_eq!(ours.len(), theirs.len());
    for (o, t) in ours.iter().zip(theirs) {
        let name = t["name"].as_str().unwrap();
        assert_eq!(o["name"], t["name"]);
        assert_eq!(o["type"], t["type"], "{name}");
        assert_eq!(o["shape"], t["shape"], "{name}");
        assert_eq!(o["offset"], t["offset"], "{name}");
        assert_eq!(o["n_elements"], t["n_elements"], "{name}");
    }
}

#[test]
fn smollm2_json_agrees_with_gguf_py() {
    let (Some(py), Some(model)) = (peer("HEADROOM_PY"), peer("HEADROOM_MODEL")) else {
        return;
    };
    let ours = json_of(Path::new(&model));
    let theirs = &gguf_py(&py, &["read", &model])[0];
    assert_eq!(ours["schema"], "headroom.gguf/1");
    assert_eq!(ours["data_offset"], theirs["data_offset"]);
    assert_eq!(ours["alignment"], theirs["alignment"]);
    same_tensors(&ours, 0, theirs);
    let a = ours["alignment"].as_u64().unwrap();
    let mut total = 0;
    for (o, t) in ours["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .zip(theirs["tensors"].as_array().unwrap())
    {
        let n_bytes = t["n_bytes"].as_u64().unwrap();
        assert_eq!(o["type_size"].as_u64(), Some(n_bytes));
        assert_eq!(
            o["size"].as_u64(),
            Some(align_up(n_bytes, a)),
            "{}",
            t["name"]
        );
        assert_eq!(o["padding"].as_u64(), Some(align_up(n_bytes, a) - n_bytes));
        total += t["n_elements"].as_u64().unwrap();
    }
    assert_eq!(ours["params"]["total"].as_u64(), Some(total));
    assert_eq!(ours["params"]["active"].as_u64(), Some(total));
    assert_eq!(ours["params"]["expert"].as_u64(), Some(0));
    assert_eq!(ours["model"]["architecture"], "llama");
    assert_eq!(ours["model"]["n_layers"].as_u64(), Some(30));
    // Metadata: every gguf-py field, in order, with its length.
    let keys: Vec<&str> = ours["metadata"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["key"].as_str().unwrap())
        .collect();
    let mut want: Vec<&str> = theirs["fields"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut sorted_keys = keys.clone();
    // serde_json may sort gguf-py's object keys: compare as sets.
    sorted_keys.sort();
    want.sort();
    assert_eq!(sorted_keys, want);
    let tokens = ours["metadata"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == "tokenizer.ggml.tokens")
        .unwrap();
    assert_eq!(
        (tokens["len"].as_u64(), &tokens["kept"], &tokens["value"]),
        (Some(49152), &Json::Bool(false), &Json::Null)
    );
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
    let manifest = gguf_py(&py, &["write", dir.0.to_str().unwrap()]);
    let shards: Vec<String> = manifest["split"]["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| dir.0.join(s.as_str().unwrap()).display().to_string())
        .collect();
    let mut args = vec!["read"];
    args.extend(shards.iter().map(String::as_str));
    let theirs = gguf_py(&py, &args);
    let ours = json_of(Path::new(&shards[1]));
    let js = ours["shards"].as_array().unwrap();
    assert_eq!(js.len(), shards.len());
    for (i, (s, t)) in js.iter().zip(theirs.as_array().unwrap()).enumerate() {
        assert_eq!(s["path"].as_str(), Some(shards[i].as_str()));
        assert_eq!(s["data_offset"], t["data_offset"], "shard {i}");
        assert_eq!(s["split_no"].as_u64(), Some(i as u64));
        same_tensors(&ours, i as u64, t);
    }
    let p = &manifest["split"]["params"];
    assert_eq!(ours["params"]["total"], p["total"]);
    assert_eq!(ours["params"]["per_expert"], p["per_expert"]);
    assert_eq!(ours["experts"]["count"], p["n_experts"]);
    let used = manifest["split"]["used"].as_u64().unwrap();
    assert_eq!(
        ours["params"]["active"].as_u64(),
        Some(p["shared"].as_u64().unwrap() + used * p["per_expert"].as_u64().unwrap())
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
        // 256 MiB of address space: an allocation driven by a hostile length would abort.
        let out = Command::new("bash")
            .arg("-c")
            .arg("ulimit -v 262144; exec \"$0\" gguf \"$1\"")
            .arg(env!("CARGO_BIN_EXE_headroom"))
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
