//! Every public DCGM capture under fixtures/dcgm/ parses, and its figures are the ones the text
//! prints (fixtures/dcgm/SOURCES.md says where each came from).

use gputel::dcgm::{self, Reading};
use gputel::name::{resolve, NameError};
use gputel::{ClockEvents, GpuSample, PodRef, Source};
use physics::Catalog;
use std::path::PathBuf;

fn fixture(name: &str) -> Reading {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/dcgm")
        .join(name);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let r = dcgm::read(&text, name).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.truncated, None, "{name}");
    r
}

fn catalog_id(samples: &[GpuSample]) -> Result<String, NameError> {
    let c = Catalog::embedded().unwrap();
    resolve(&c, samples).map(|g| {
        assert_eq!(g.provenance, "dcgm");
        g.gpu.id.clone()
    })
}

/// Every fixture file is read by one of the tests below.
#[test]
fn every_fixture_is_tested() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/dcgm");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".prom"))
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "a100-mig-nvidia-docs.prom",
            "h100-mig-issue512.prom",
            "l40s-upcloud-idle.prom",
            "t4-datadog-throttle.prom",
            "t4-eccd-busy.prom",
        ]
    );
}

/// Turing, busy: GPU_UTIL reads 91 % while the engine was active 15.6 % of the time and the
/// memory interface 9.3 %, the gap docs/gpu-telemetry.md describes.
#[test]
fn t4_busy_ericsson() {
    let r = fixture("t4-eccd-busy.prom");
    assert_eq!(r.gpus.len(), 1);
    assert_eq!(r.unlabelled, 0);
    let g = &r.gpus[0];
    assert_eq!(g.source, Some(Source::Dcgm));
    assert_eq!(g.name.as_deref(), Some("Tesla T4"));
    assert_eq!(
        g.uuid.as_deref(),
        Some("GPU-6d5c0ac5-74d7-3130-46f1-e93ed57f469a")
    );
    assert_eq!(g.gpu, Some(0));
    assert_eq!(g.mig_instance, None);
    assert_eq!(g.hostname.as_deref(), Some("cp-bm14r7"));
    assert_eq!(g.sm_clock_mhz, Some(660.0));
    assert_eq!(g.mem_clock_mhz, Some(5000.0));
    assert_eq!(g.temp_c, Some(74.0));
    assert_eq!(g.power_w, Some(68.244));
    assert_eq!(g.gpu_util_pct, Some(91.0));
    assert_eq!(g.mem_copy_util_pct, Some(73.0));
    assert_eq!(g.gr_engine_active, Some(0.156205));
    assert_eq!(g.tensor_active, Some(0.005822));
    assert_eq!(g.dram_active, Some(0.092781));
    assert_eq!(
        g.sm_active, None,
        "the exporter's default list mutes SM_ACTIVE"
    );
    assert_eq!(g.pcie_tx_bytes_per_s, Some(4_791_810.0));
    assert_eq!(g.pcie_rx_bytes_per_s, Some(6_935_930.0));
    assert_eq!(g.fb_used_mib, Some(5120.0));
    assert_eq!(g.fb_free_mib, Some(9791.0));
    assert_eq!(g.sm_clock_max_mhz, None);
    assert_eq!(g.clock_events, None);
    assert_eq!(catalog_id(&r.gpus).unwrap(), "tesla-t4");
}

/// Ada, idle, with HELP/TYPE lines (exporter on driver 595.58.03).
#[test]
fn l40s_idle_upcloud() {
    let r = fixture("l40s-upcloud-idle.prom");
    assert_eq!(r.gpus.len(), 1);
    let g = &r.gpus[0];
    assert_eq!(g.name.as_deref(), Some("NVIDIA L40S"));
    assert_eq!(g.hostname.as_deref(), Some("gpu1-wl8sg"));
    assert_eq!(g.sm_clock_mhz, Some(210.0));
    assert_eq!(g.mem_clock_mhz, Some(405.0));
    assert_eq!(g.temp_c, Some(32.0));
    assert_eq!(g.power_w, Some(35.686));
    assert_eq!(g.gpu_util_pct, Some(0.0));
    assert_eq!(g.gr_engine_active, Some(0.0));
    assert_eq!(g.tensor_active, Some(0.0));
    assert_eq!(g.dram_active, Some(0.000131));
    assert_eq!(g.pcie_tx_bytes_per_s, Some(175_084.0));
    assert_eq!(g.pcie_rx_bytes_per_s, Some(19_831.0));
    assert_eq!(g.fb_free_mib, Some(45459.0));
    assert_eq!(catalog_id(&r.gpus).unwrap(), "l40s");
}

/// Ampere with MIG: the whole GPU and MIG instance 13 are two devices; NVIDIA's documentation
/// printed no `modelName` label, so the ceiling cannot be named from it.
#[test]
fn a100_mig_nvidia_docs() {
    let r = fixture("a100-mig-nvidia-docs.prom");
    assert_eq!(r.gpus.len(), 2);
    let (whole, mig) = (&r.gpus[0], &r.gpus[1]);
    for g in [whole, mig] {
        assert_eq!(
            g.uuid.as_deref(),
            Some("GPU-34319582-d595-d1c7-d1d2-179bcfa61660")
        );
        assert_eq!(g.hostname.as_deref(), Some("ub20-a100-k8s"));
        assert_eq!(g.gpu, Some(0));
        assert_eq!(g.name, None);
    }
    assert_eq!(whole.mig_instance, None);
    assert_eq!(whole.sm_clock_mhz, Some(1215.0));
    assert_eq!(whole.power_w, Some(409.692));
    assert_eq!(whole.temp_c, Some(61.0));
    assert_eq!(whole.fb_used_mib, Some(4845.0));
    assert_eq!(whole.gr_engine_active, Some(0.995630));
    assert_eq!(whole.tensor_active, Some(0.929260));
    assert_eq!(whole.dram_active, Some(0.690789));
    assert_eq!(whole.pcie_tx_bytes_per_s, Some(33_011_804.0));
    assert_eq!(whole.pcie_rx_bytes_per_s, Some(97_863_601.0));
    assert_eq!(mig.mig_instance, Some(13));
    assert_eq!(mig.mig_profile.as_deref(), Some("1g.5gb"));
    assert_eq!(mig.gr_engine_active, Some(0.995687));
    assert_eq!(mig.tensor_active, Some(0.930433));
    assert_eq!(mig.dram_active, Some(0.800339));
    assert_eq!(
        mig.sm_clock_mhz, None,
        "per-instance series carry only profiling figures"
    );
    assert_eq!(catalog_id(&r.gpus), Err(NameError::Unnamed));
}

/// Hopper with MIG and Kubernetes attribution: three instances of one GPU, two of them
/// attributed to pods, one not.
#[test]
fn h100_mig_issue512() {
    let r = fixture("h100-mig-issue512.prom");
    assert_eq!(r.gpus.len(), 3);
    let ids: Vec<Option<u32>> = r.gpus.iter().map(|g| g.mig_instance).collect();
    assert_eq!(ids, [Some(7), Some(8), Some(9)]);
    for g in &r.gpus {
        assert_eq!(g.name.as_deref(), Some("NVIDIA H100 80GB HBM3"));
        assert_eq!(g.hostname.as_deref(), Some("gsrh100-074"));
        assert_eq!(g.mig_profile.as_deref(), Some("1g.10gb"));
        assert_eq!(g.gr_engine_active, Some(0.0));
    }
    let pod = |ns: &str, p: &str| PodRef {
        namespace: Some(ns.into()),
        pod: p.into(),
        container: Some("kserve-container".into()),
    };
    assert_eq!(
        r.gpus[0].pods,
        [pod(
            "model-playground-stg",
            "text-embedding-predictor-00008-deployment-57946f6c67-vdtjl"
        )]
    );
    assert!(r.gpus[1].pods.is_empty());
    assert_eq!(
        r.gpus[2].pods,
        [pod(
            "model-playground-stg",
            "tts-predictor-00011-deployment-5554f75554-8j8pl"
        )]
    );
    assert_eq!(catalog_id(&r.gpus).unwrap(), "h100-sxm");
}

/// Turing in Datadog's sandbox: the power limit and the throttle-reasons mask (1: GPU idle, which
/// is not a power or thermal limit).
#[test]
fn t4_throttle_reasons_datadog() {
    let r = fixture("t4-datadog-throttle.prom");
    assert_eq!(r.gpus.len(), 1);
    let g = &r.gpus[0];
    assert_eq!(g.name.as_deref(), Some("Tesla T4"));
    assert_eq!(g.power_limit_w, Some(70.0));
    assert_eq!(g.clock_events, Some(ClockEvents(1)));
    assert_eq!(g.clock_events.unwrap().names(), ["gpu_idle"]);
    assert!(!g.clock_events.unwrap().power_or_thermal());
    assert_eq!(
        g.temp_c, None,
        "SLOWDOWN_TEMP is a threshold, not the temperature"
    );
    assert_eq!(catalog_id(&r.gpus).unwrap(), "tesla-t4");
}

/// A sample serializes with its decoded reasons (the documents carry both the mask and names).
#[test]
fn samples_serialize_with_decoded_reasons() {
    let r = fixture("t4-datadog-throttle.prom");
    let v = serde_json::to_value(&r.gpus[0]).unwrap();
    assert_eq!(v["clock_events"]["mask"], 1);
    assert_eq!(v["clock_events"]["active"][0], "gpu_idle");
    assert_eq!(v["source"], "dcgm");
}
