//! `headroom pcie` end to end, on real `nvidia-smi dmon` output published by others
//! (fixtures/dmon/SOURCES.md names each source): the figures in the JSON document are checked
//! against the rows by hand, the document is read back as the typed struct, and bad input fails
//! with an error that names the input.

use std::path::PathBuf;

use telemetry::dmon::PcieReport;

use crate::util::{headroom_output as run, Headroom};

fn fixture(name: &str) -> PathBuf {
    testpeers::fixture(&format!("dmon/{name}"))
}

fn report(args: &[&str]) -> (PcieReport, serde_json::Value) {
    let mut a = args.to_vec();
    a.push("--json");
    let out = run(&a);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    (
        serde_json::from_str(&text).unwrap(),
        serde_json::from_str(&text).unwrap(),
    )
}

/// An A10 at idle, `-s mutc -o TD` (16 columns, rx/tx in the middle, a blank line after the
/// first row), against the A10's Gen4 x16 link given as --link.
#[test]
fn a10_mutc_dt_capture() {
    let f = fixture("a10-mutc-DT.txt");
    let (r, v) = report(&["pcie", f.to_str().unwrap(), "--link", "gen4x16"]);
    assert_eq!(r.schema, "headroom.pcie/1");
    assert_eq!(r.columns.len(), 16);
    assert_eq!(r.skipped.rows, 0);
    let c = r.ceiling.as_ref().unwrap();
    assert_eq!(c.link, "Gen4 x16");
    assert!((c.per_direction_mbps - 31_507.7).abs() < 0.1);
    assert_eq!(r.gpus.len(), 1);
    let g = &r.gpus[0];
    assert_eq!(g.readings, 6);
    assert_eq!(g.first_time.as_deref(), Some("20240104 13:54:35"));
    assert_eq!(g.last_time.as_deref(), Some("20240104 13:54:40"));
    // rx 5 217 0 44 30 0, tx 10 677 3 30 40 0: idle (both < 10) at 13:54:37 and 13:54:40.
    assert!((g.idle_share - 2.0 / 6.0).abs() < 1e-9);
    let rx = g.rx.as_ref().unwrap();
    assert_eq!(rx.peak_mbps, 217.0);
    assert_eq!(rx.peak_at, "20240104 13:54:36");
    assert_eq!(rx.median_mbps, 17.5);
    assert!((rx.peak_of_ceiling.unwrap() - 217.0 / 31_507.7).abs() < 1e-6);
    let tx = g.tx.as_ref().unwrap();
    assert_eq!(tx.peak_mbps, 677.0);
    assert_eq!(tx.median_mbps, 20.0);
    let missing = testpeers::schema::undocumented(&v, "pcie.md", &[]);
    assert!(missing.is_empty(), "undocumented keys: {missing:?}");

    let human =
        String::from_utf8(run(&["pcie", f.to_str().unwrap(), "--link", "gen4x16"]).stdout).unwrap();
    assert!(
        human.contains("peak 217 MB/s at 20240104 13:54:36 against ~31,508 MB/s = ~0.7 %"),
        "{human}"
    );
}

/// GPUDirect RDMA into and out of an RTX 3090 (`-s t`), against the catalog's link for the card.
#[test]
fn rtx3090_gpudirect_against_the_catalogued_link() {
    let recv = fixture("rtx3090-gpudirect-receiver-t.txt");
    let (r, _) = report(&["pcie", recv.to_str().unwrap(), "--gpu", "RTX 3090"]);
    let c = r.ceiling.as_ref().unwrap();
    assert_eq!(c.link, "Gen4 x16");
    assert!(
        c.source.contains("catalog GeForce RTX 3090"),
        "{}",
        c.source
    );
    let g = &r.gpus[0];
    assert_eq!((g.readings, g.first_time.clone()), (3, None));
    let rx = g.rx.as_ref().unwrap();
    assert_eq!((rx.peak_mbps, rx.median_mbps), (3225.0, 3225.0));
    assert_eq!(rx.peak_at, "line 3");
    // 3,225 of 31,508 MB/s: ~10 % of the link, over a 25 GbE NIC (~3.1 GB/s).
    assert!((rx.peak_of_ceiling.unwrap() - 0.1024).abs() < 1e-3);
    assert_eq!(g.tx.as_ref().unwrap().peak_mbps, 0.0);
    assert_eq!(g.idle_share, 0.0);

    let send = fixture("rtx3090-gpudirect-sender-t.txt");
    let (r, _) = report(&["pcie", send.to_str().unwrap(), "--gpu", "RTX 3090"]);
    let g = &r.gpus[0];
    assert_eq!(g.tx.as_ref().unwrap().peak_mbps, 3606.0);
    assert_eq!(g.tx.as_ref().unwrap().median_mbps, 3606.0);
    assert_eq!(g.rx.as_ref().unwrap().median_mbps, 759.0);

    // Without a link the figures stand alone and say why there is no ceiling.
    let (r, _) = report(&["pcie", send.to_str().unwrap()]);
    assert!(r.ceiling.is_none());
    assert!(r.ceiling_unknown.unwrap().contains("--link"));
    assert_eq!(r.gpus[0].tx.as_ref().unwrap().peak_of_ceiling, None);
    // A GPU the catalog has without a link (B200: its published host links disagree): the
    // reason names it.
    let (r, _) = report(&["pcie", send.to_str().unwrap(), "--gpu", "B200"]);
    assert!(r.ceiling_unknown.unwrap().contains("no PCIe link"));
}

#[test]
fn reads_stdin() {
    // The spec's example: a 230 MB/s peak against a ~7,900 MB/s (Gen4 x4) link, 0 at idle.
    let r: PcieReport = Headroom::cmd(&["pcie", "-", "--link", "gen4x4", "--json"])
        .stdin_bytes(&b"#Time gpu rxpci txpci\n#HH:MM:SS Idx MB/s MB/s\n10:00:00 0 0 0\n10:00:01 0 230 4\n10:00:02 0 0 0\n"[..])
        .json();
    assert_eq!(r.input, "stdin");
    let rx = r.gpus[0].rx.as_ref().unwrap();
    assert!((rx.peak_of_ceiling.unwrap() - 0.0292).abs() < 1e-3);
    assert!((r.gpus[0].idle_share - 2.0 / 3.0).abs() < 1e-9);
}

#[test]
fn bad_input_fails_naming_it() {
    let d = tempfile::tempdir().unwrap();
    let case = |name: &str, body: &str, want: &str| {
        let p = d.path().join(name);
        std::fs::write(&p, body).unwrap();
        let out = run(&["pcie", p.to_str().unwrap(), "--link", "gen4x16"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(name) && err.contains(want), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    };
    case("empty.txt", "", "empty");
    case(
        "no-pcie.txt",
        "# gpu   pwr  gtemp\n# Idx     W      C\n    0    50     40\n",
        "no rxpci/txpci columns",
    );
    case("garbage.txt", "hello\nworld\n", "no nvidia-smi dmon header");
    case(
        "header-only.txt",
        "# gpu  rxpci  txpci\n# Idx   MB/s   MB/s\n 0 x y\n",
        "no data row",
    );
    let out = run(&["pcie", "/nonexistent/dmon.txt"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/dmon.txt"));
    let out = run(&["pcie", "x", "--link", "gen9x16"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--link gen9x16"));
}
