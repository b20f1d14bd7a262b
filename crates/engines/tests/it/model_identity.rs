//! The run identity of a Hugging Face model directory: `config.json` and the safetensors
//! headers are hashed (the tensor data is not read), and the document names what was hashed.

use engines::identity::{fnv1a64, hash_hf_dir, hash_model, HashError, ModelFormat, FNV_OFFSET};
use std::path::Path;

/// A safetensors file as the format defines it: 8-byte little-endian header length, the JSON
/// header, then the tensor bytes.
fn safetensors(path: &Path, header: &str, data: usize) {
    let mut b = (header.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(header.as_bytes());
    b.extend(std::iter::repeat_n(7u8, data));
    std::fs::write(path, b).unwrap();
}

const H1: &str = r#"{"__metadata__":{"format":"pt"},"a.weight":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]},"b.weight":{"dtype":"BF16","shape":[2],"data_offsets":[8,12]}}"#;
const H2: &str = r#"{"c.weight":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
const CONFIG: &str = r#"{"architectures":["LlamaForCausalLM"],"hidden_size":8}"#;

fn synthetic() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("config.json"), CONFIG).unwrap();
    // Written out of name order: the hash takes them by name.
    safetensors(&d.path().join("model-00002-of-00002.safetensors"), H2, 4);
    safetensors(&d.path().join("model-00001-of-00002.safetensors"), H1, 12);
    std::fs::write(d.path().join("tokenizer.json"), "{}").unwrap();
    d
}

#[test]
fn synthetic_directory_hashes_config_and_headers_in_name_order() {
    let d = synthetic();
    let m = hash_model(d.path()).unwrap();
    assert_eq!(m.format, ModelFormat::HfSafetensors);
    assert_eq!(
        m.hashed,
        [
            "config.json",
            "model-00001-of-00002.safetensors",
            "model-00002-of-00002.safetensors"
        ]
    );
    assert_eq!(m.tensors, 3, "__metadata__ is not a tensor");
    let mut want = FNV_OFFSET;
    want = fnv1a64(CONFIG.as_bytes(), want);
    for h in [H1, H2] {
        want = fnv1a64(&(h.len() as u64).to_le_bytes(), want);
        want = fnv1a64(h.as_bytes(), want);
    }
    assert_eq!(m.header_fnv1a64, format!("{want:016x}"));
    assert_eq!(
        m.header_bytes as usize,
        CONFIG.len() + 16 + H1.len() + H2.len()
    );
    assert_eq!(
        m.size_bytes as usize,
        CONFIG.len() + (8 + H1.len() + 12) + (8 + H2.len() + 4)
    );

    // Tensor data is not identity; a header or the config is.
    safetensors(&d.path().join("model-00002-of-00002.safetensors"), H2, 400);
    assert_eq!(
        hash_model(d.path()).unwrap().header_fnv1a64,
        m.header_fnv1a64
    );
    std::fs::write(d.path().join("config.json"), CONFIG.replace('8', "9")).unwrap();
    assert_ne!(
        hash_model(d.path()).unwrap().header_fnv1a64,
        m.header_fnv1a64
    );
}

#[test]
fn bad_directories_are_named() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("config.json"), CONFIG).unwrap();
    let e = hash_hf_dir(d.path()).unwrap_err();
    assert!(matches!(e, HashError::NotHfDir { .. }), "{e}");
    assert!(
        e.to_string().contains("config.json and *.safetensors"),
        "{e}"
    );

    // A header length past the file's end: refused before allocating it.
    let shard = d.path().join("model.safetensors");
    let mut b = (u64::MAX / 2).to_le_bytes().to_vec();
    b.extend_from_slice(b"{}");
    std::fs::write(&shard, b).unwrap();
    let e = hash_hf_dir(d.path()).unwrap_err().to_string();
    assert!(
        e.contains("model.safetensors") && e.contains("claims"),
        "{e}"
    );

    // A header that is not JSON.
    safetensors(&shard, "not json", 0);
    let e = hash_hf_dir(d.path()).unwrap_err().to_string();
    assert!(e.contains("is not a JSON object"), "{e}");

    // Shorter than the length field.
    std::fs::write(&shard, [1u8, 2]).unwrap();
    let e = hash_hf_dir(d.path()).unwrap_err().to_string();
    assert!(e.contains("missing"), "{e}");
}

#[test]
fn real_converted_model_directory() {
    // The SmolLM2 GGUF converted by transformers (scripts/peers.sh): its safetensors header,
    // counted by the `safetensors` package itself in vLLM's venv.
    let (Some(dir), Some(py)) = (
        testpeers::peer("HEADROOM_VLLM_MODEL"),
        testpeers::peer("HEADROOM_VLLM_PY"),
    ) else {
        return;
    };
    let out = std::process::Command::new(&py)
        .args([
            "-c",
            "import sys, glob, os\n\
             from safetensors import safe_open\n\
             files = sorted(glob.glob(os.path.join(sys.argv[1], '*.safetensors')))\n\
             print(sum(len(list(safe_open(f, 'np').keys())) for f in files))\n\
             print(' '.join(os.path.basename(f) for f in files))",
            &dir,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let tensors: u64 = lines.next().unwrap().parse().unwrap();
    let files: Vec<&str> = lines.next().unwrap().split(' ').collect();

    let m = hash_model(Path::new(&dir)).unwrap();
    assert_eq!(m.format, ModelFormat::HfSafetensors);
    assert_eq!(m.tensors, tensors);
    assert_eq!(m.hashed[0], "config.json");
    assert_eq!(&m.hashed[1..], files.as_slice());
    // Only headers: a few tens of kB out of a 269 MB model.
    assert!(
        m.header_bytes < 1 << 20 && m.size_bytes > 100 << 20,
        "{m:?}"
    );
    // The same directory hashes the same.
    assert_eq!(hash_model(Path::new(&dir)).unwrap(), m);
    // A GGUF path still goes to the GGUF reader, with its own error.
    let e = hash_model(&Path::new(&dir).join("config.json")).unwrap_err();
    assert!(matches!(e, HashError::Gguf { .. }), "{e}");
}
