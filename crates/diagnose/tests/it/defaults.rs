//! vLLM's defaults through the whole judge, on the real vLLM 0.32.0 capture
//! (fixtures/vllm-0.32/): a command line that leaves --max-num-seqs out runs the default the
//! version and the device (vLLM's CPU platform, or the GPU) make certain, labelled as a default with where it was read.

use diagnose::{judge, Target};
use engines::{RawScrape, Recording, RecordingHeader, ScrapeRecord};

fn recording(cmdline: &str, version: &str) -> Recording {
    let body = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/vllm-0.32/metrics-8-clients.prom"
    ))
    .expect("the real capture");
    let mut header = RecordingHeader::new("http://127.0.0.1:18100", 1.0, 1000.0);
    header.cmdline = Some(cmdline.split_whitespace().map(str::to_string).collect());
    header.version = Some(serde_json::json!({ "version": version }));
    let scrape = |t: f64| {
        ScrapeRecord::from_fetch(
            &Ok(RawScrape {
                t,
                body: body.clone(),
                elapsed_s: 0.01,
            }),
            t,
        )
    };
    Recording {
        header,
        scrapes: vec![scrape(1000.0), scrape(1001.0)],
        truncated_tail: None,
    }
}

fn max_num_seqs(rec: &Recording, gpu: Option<&str>) -> Option<(String, String)> {
    let shape = crate::shape(1.0, gpu);
    let catalog = physics::Catalog::embedded().unwrap();
    let j = judge(
        rec,
        &Target {
            shape,
            replay: None,
        },
        &catalog,
    )
    .unwrap();
    j.report
        .config
        .get("max_num_seqs")
        .map(|s| (format!("{:?}", s.value), s.source.clone()))
}

#[test]
fn a_left_out_max_num_seqs_is_the_default_where_certain() {
    let line = "vllm serve /m --max-model-len 2048";
    let (v, src) = max_num_seqs(&recording(line, "0.32.0"), Some("H100-SXM")).expect("claimed");
    assert_eq!(v, "Int(1024)");
    assert!(src.starts_with("default (vLLM 0.32.0"), "{src}");
    assert!(src.contains("arg_utils.py"), "{src}");
    let (v, _) = max_num_seqs(&recording(line, "0.32.0"), Some("L4")).unwrap();
    assert_eq!(v, "Int(256)");
    // No GPU, another version, or the flag on the line: no default claimed.
    assert!(max_num_seqs(&recording(line, "0.32.0"), None).is_none());
    assert!(max_num_seqs(&recording(line, "0.11.0"), Some("H100-SXM")).is_none());
    let set = "vllm serve /m --max-num-seqs 8";
    let (v, src) = max_num_seqs(&recording(set, "0.32.0"), Some("H100-SXM")).unwrap();
    assert_eq!((v.as_str(), src.as_str()), ("Int(8)", "process_cmdline"));
}

/// The capture's own server: vLLM's CPU platform, read from the process (the header's
/// `vllm_on_cpu`), needs no --gpu: 128 seats × one worker, labelled as the default.
#[test]
fn on_vllms_cpu_platform_the_default_is_128_per_worker() {
    let line = "python -m vllm.entrypoints.openai.api_server --model /m --max-model-len 2048";
    let mut rec = recording(line, "0.32.0");
    rec.header.vllm_on_cpu = Some(true);
    let (v, src) = max_num_seqs(&rec, None).expect("claimed");
    assert_eq!(v, "Int(128)");
    assert!(src.starts_with("default (vLLM 0.32.0"), "{src}");
    assert!(src.contains("CPU platform"), "{src}");
    // Another platform, unread, or the flag on the line: nothing claimed without --gpu.
    rec.header.vllm_on_cpu = Some(false);
    assert!(max_num_seqs(&rec, None).is_none());
    let mut set = recording(&format!("{line} --max-num-seqs 2"), "0.32.0");
    set.header.vllm_on_cpu = Some(true);
    let (v, src) = max_num_seqs(&set, None).unwrap();
    assert_eq!((v.as_str(), src.as_str()), ("Int(2)", "process_cmdline"));
}
