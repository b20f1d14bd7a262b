//! The flat verdict of `headroom probe depth`, against the emulator: a server whose decode is
//! bound by reading its weights (70B at fp8 on an H200, where 4k tokens of KV are under 2 % of
//! the bytes a step reads) must come out "flat", the counterpart of llama-server's
//! context-bound slope in tests/probe.rs.

use crate::util::Headroom;
use loadgen::probe::{DepthVerdict, ProbeDoc, ProbeReport};

#[test]
fn a_weight_bound_server_is_flat() {
    let emu = crate::util::EmulateProc::start(&[
        "--gpu",
        "H200",
        "--model",
        "llama-3.1-70b",
        "--quantization",
        "fp8",
        "--duration",
        "300",
    ]);
    let port = emu.port();
    let out = Headroom::new()
        .args([
            "probe",
            "depth",
            "--url",
            &format!("http://127.0.0.1:{port}"),
        ])
        .args([
            "--depths",
            "256,1k,2k,4k",
            "--gen",
            "48",
            "--repeats",
            "3",
            "--json",
        ])
        .output();
    drop(emu);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = ProbeDoc::read(&String::from_utf8_lossy(&out.stdout)).expect("a probe document");
    let ProbeReport::Depth(d) = doc.report else {
        panic!("probe depth printed another probe's report");
    };
    assert_eq!(d.verdict, DepthVerdict::Flat, "fit {:?}", d.fit);
    assert_eq!(d.samples.len(), 24);
    // Flat means the interval excludes a material drop, not merely a small fitted slope.
    let low = d.fit.low;
    let intercept = d.fit.intercept_tps;
    assert!(
        -low * 4.0 < 0.1 * intercept,
        "the interval allows a drop of {:.1} % over 4k",
        -low * 400.0 / intercept
    );
}
