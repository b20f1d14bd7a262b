//! The real vLLM V0 capture in fixtures/metrics (aibrix docs), which stops partway through
//! the `iteration_tokens_total` buckets: everything whole is salvaged and the cut is named.

use engines::{parse_metrics, Engine};

fn fixture(name: &str) -> String {
    let path = testpeers::fixture(&format!("metrics/{name}"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("fixture {}: {e}", path.display()))
}

#[test]
fn the_real_vllm_capture_parses() {
    let text = fixture("vllm-v0-aibrix-docs-1.prom");
    let p = parse_metrics(&text, 1_738_217_400.0).expect("the capture salvages");

    // What was cut: the histogram that the published text stops inside (line 56 of 56).
    let cut = p
        .exposition
        .truncated
        .as_ref()
        .expect("the capture is truncated");
    assert_eq!(cut.family.as_deref(), Some("vllm:iteration_tokens_total"));
    assert_eq!(cut.line, 56);
    assert_eq!(
        cut.dropped_samples, 16,
        "its _sum and 15 buckets were read, then dropped"
    );
    assert!(cut.reason.contains("+Inf"), "{}", cut.reason);
    assert!(p.exposition.family("vllm:iteration_tokens_total").is_none());

    // Everything before it is whole: 13 families, in order.
    let names: Vec<&str> = p
        .exposition
        .families
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(
        names,
        vec![
            "vllm:cache_config_info",
            "vllm:num_requests_running",
            "vllm:num_requests_swapped",
            "vllm:num_requests_waiting",
            "vllm:gpu_cache_usage_perc",
            "vllm:cpu_cache_usage_perc",
            "vllm:cpu_prefix_cache_hit_rate",
            "vllm:gpu_prefix_cache_hit_rate",
            "vllm:lora_requests_info",
            "vllm:num_preemptions_total",
            "vllm:prompt_tokens_total",
            "vllm:generation_tokens_total",
            "vllm:request_success_total",
        ]
    );
    let lora = p
        .exposition
        .series("vllm:lora_requests_info")
        .next()
        .unwrap();
    assert_eq!(lora.value, 1.7382173358407154e9);

    // The values read by eye from the file, through the V0 adapter.
    let s = &p.sample;
    assert_eq!(s.engine, Engine::Vllm);
    assert_eq!(s.engine_generation.as_deref(), Some("v0"));
    assert_eq!(s.model.as_deref(), Some("Qwen/Qwen2.5-Coder-1.5B-Instruct"));
    assert_eq!(s.prompt_tokens, Some(148.0));
    assert_eq!(s.generation_tokens, Some(955.0));
    assert_eq!(s.requests_finished, Some(4.0));
    assert_eq!(s.preemptions, Some(0.0));
    assert_eq!(
        (s.running, s.waiting, s.swapped),
        (Some(0.0), Some(0.0), Some(0.0))
    );
    assert_eq!(s.kv_usage, Some(0.0));
    assert_eq!(
        s.prefix_hit_rate_gauge, None,
        "-1.0 means prefix caching is off"
    );
    assert_eq!(s.prefix_queries, None);
    assert_eq!(s.ttft, None, "this capture has no latency histograms");
    let cfg = &s.config_labels;
    assert_eq!(cfg.get("block_size").map(String::as_str), Some("16"));
    assert_eq!(cfg.get("num_gpu_blocks").map(String::as_str), Some("81767"));
    assert_eq!(
        cfg.get("enable_prefix_caching").map(String::as_str),
        Some("False")
    );
    assert_eq!(
        cfg.get("gpu_memory_utilization").map(String::as_str),
        Some("0.9")
    );
    assert_eq!(
        cfg.get("swap_space_bytes").map(String::as_str),
        Some("4294967296")
    );
    assert_eq!(cfg.len(), 12);
}

#[test]
fn the_real_capture_cut_at_every_byte_never_panics_and_keeps_earlier_families() {
    let text = fixture("vllm-v0-aibrix-docs-1.prom");
    let full = parse_metrics(&text, 0.0).unwrap();
    for cut in 1..text.len() {
        let part = &text[..cut];
        let Ok(p) = engines::prom::parse(part) else {
            continue;
        };
        // Every family in this capture but the cut histogram has a single series, so a family
        // kept from any prefix must equal the same family in the full parse ...
        for f in &p.families {
            let whole = full.exposition.families.iter().find(|g| g.name == f.name);
            if let Some(g) = whole {
                assert_eq!(f, g, "cut at byte {cut}: family {} differs", f.name);
            }
        }
        // ... and a body cut mid-line always reports the cut.
        if !part.ends_with('\n') {
            assert!(p.truncated.is_some(), "cut at byte {cut} not reported");
        }
    }
}
