//! Shared helpers: fixture paths and the reference scripts.

use std::path::{Path, PathBuf};
use std::process::Command;

pub const TRACES: [&str; 6] = [
    "hta_mi250_minitoy_train_rocm6.2.json.gz",
    "hta_a100_nccl_data.json.gz",
    "hta_v100_df_index_resolver.json.gz",
    "tracelens_b200_eager_trace.json.gz",
    "tracelens_h100_owlv2.json.gz",
    "tracelens_mi300_owlv2.json.gz",
];

/// A real trace under fixtures/traces.
pub fn fixture(name: &str) -> PathBuf {
    testpeers::fixture(&format!("traces/{name}"))
}

pub fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/ref")
        .join(name)
}

/// Runs a reference script and parses its JSON stdout.
pub fn run_json(py: &Path, args: &[&str], env: &[(&str, &str)]) -> Vec<serde_json::Value> {
    let mut cmd = Command::new(py);
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run the reference python");
    assert!(
        out.status.success(),
        "{:?} failed: {}",
        args,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("reference JSON"))
        .collect()
}

pub fn gunzip(path: &Path) -> Vec<u8> {
    let (mut r, _) = trace::input::open(path).unwrap();
    let mut v = vec![];
    std::io::Read::read_to_end(&mut r, &mut v).unwrap();
    v
}
