//! Every public nvidia-smi capture under fixtures/nvidia-smi/ parses, and its figures are the
//! ones the text prints (fixtures/nvidia-smi/SOURCES.md says where each came from).

use gputel::findings::{throttled, Outcome};
use gputel::name::resolve;
use gputel::smi::{self, Capture};
use gputel::{ClockEvents, Source};
use physics::Catalog;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/nvidia-smi")
}

fn fixture(name: &str) -> Capture {
    let p = dir().join(name);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let c = smi::read(&text, name).unwrap_or_else(|e| panic!("{e}"));
    assert!(!c.truncated_last_row, "{name}");
    c
}

/// Every fixture file is read by one of the tests below.
#[test]
fn every_smi_fixture_is_tested() {
    let mut files: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "h100-sxm-idle.csv",
            "h100-sxm-load.csv",
            "rtx2080super-idle.csv"
        ]
    );
}

/// Hopper under gpu-burn: every documented column read out of a 212-column header, the clocks at
/// their maximum and no power or thermal reason, so throttled cannot fire from it.
#[test]
fn h100_under_load() {
    let c = fixture("h100-sxm-load.csv");
    assert_eq!(c.columns.len(), 212);
    assert_eq!(c.rows.len(), 1);
    let g = &c.rows[0];
    assert_eq!(g.source, Some(Source::NvidiaSmi));
    assert_eq!(g.name.as_deref(), Some("NVIDIA H100 80GB HBM3"));
    assert_eq!(
        g.uuid.as_deref(),
        Some("GPU-00000000-0000-0000-0000-000000000000")
    );
    assert_eq!(g.gpu, Some(0));
    assert_eq!(g.gpu_util_pct, Some(100.0));
    assert_eq!(g.mem_copy_util_pct, Some(11.0));
    assert_eq!(g.sm_clock_mhz, Some(1980.0));
    assert_eq!(g.sm_clock_max_mhz, Some(1980.0));
    assert_eq!(g.clock_share(), Some(1.0));
    assert_eq!(g.mem_clock_mhz, Some(2619.0));
    assert_eq!(g.power_w, Some(631.95), "power.draw, not .instant (625.68)");
    assert_eq!(g.power_limit_w, Some(700.0));
    assert_eq!(g.temp_c, Some(59.0));
    assert_eq!(g.clock_events, Some(ClockEvents(0)));
    assert_eq!(g.fb_used_mib, Some(19818.0));
    assert_eq!(g.fb_free_mib, Some(61263.0));
    assert_eq!(g.dram_active, None, "nvidia-smi has no DRAM activity");
    // 2026-07-14 is 20648 days after 1970-01-01.
    let t = 20_648.0 * 86_400.0 + 8.0 * 3600.0 + 12.0 * 60.0 + 53.353;
    assert!((g.t_s.unwrap() - t).abs() < 1e-6, "{:?}", g.t_s);
    let cat = Catalog::embedded().unwrap();
    let named = resolve(&cat, &c.rows).unwrap();
    assert_eq!(named.gpu.id, "h100-sxm");
    assert_eq!(named.provenance, "nvidia-smi");
}

#[test]
fn h100_idle() {
    let c = fixture("h100-sxm-idle.csv");
    let g = &c.rows[0];
    assert_eq!(g.gpu_util_pct, Some(0.0));
    assert_eq!(g.sm_clock_mhz, Some(345.0));
    assert_eq!(g.power_w, Some(69.85));
    assert_eq!(g.temp_c, Some(41.0));
    assert_eq!(g.clock_events.unwrap().names(), ["gpu_idle"]);
}

/// Turing, idle, with the software power cap bit set: the clock is far below its maximum and a
/// power reason is active, yet the GPU ran nothing, so throttled holds its silence (it reads busy
/// readings only).
#[test]
fn rtx2080super_idle_power_cap_bit_is_not_throttling() {
    let c = fixture("rtx2080super-idle.csv");
    assert_eq!(c.columns.len(), 202);
    let g = &c.rows[0];
    assert_eq!(g.name.as_deref(), Some("NVIDIA GeForce RTX 2080 SUPER"));
    assert_eq!(g.sm_clock_mhz, Some(765.0));
    assert_eq!(g.sm_clock_max_mhz, Some(2145.0));
    assert_eq!(g.power_w, Some(39.32));
    assert_eq!(g.power_limit_w, Some(250.0));
    assert_eq!(g.gpu_util_pct, Some(0.0));
    let ev = g.clock_events.unwrap();
    assert_eq!(ev.names(), ["sw_power_cap"]);
    assert!(ev.power_or_thermal());
    // Three copies of the one idle reading: enough readings, none busy.
    let window = vec![g.clone(), g.clone(), g.clone()];
    match throttled(&window) {
        Outcome::Silent { missing, .. } => {
            assert!(missing.contains("0 busy readings"), "{missing}")
        }
        other => panic!("{other:?}"),
    }
}
