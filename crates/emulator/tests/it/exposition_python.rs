//! An independent parser of the text format reads the emulator's /metrics: Python's
//! `prometheus_client` (the library vLLM itself exposes metrics with). Needs HEADROOM_PY (a
//! python with prometheus_client; `eval "$(bash scripts/peers.sh)"`).

use std::process::Command;

use serde_json::Value;

const PARSE: &str = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1], encoding="utf-8").read()
out = []
for f in text_string_to_metric_families(text):
    out.append({"name": f.name, "type": f.type, "documentation": f.documentation,
                "samples": [{"name": s.name, "labels": s.labels, "value": s.value,
                             "timestamp": None if s.timestamp is None else float(s.timestamp)}
                            for s in f.samples]})
print(json.dumps(out))
"#;

fn python() -> Option<String> {
    match std::env::var("HEADROOM_PY") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            if std::env::var("HEADROOM_REQUIRE_PEERS").as_deref() == Ok("1") {
                panic!("HEADROOM_PY is not set: run `eval \"$(bash scripts/peers.sh)\"` first");
            }
            eprintln!("SKIPPED: python with prometheus_client missing (HEADROOM_PY unset)");
            None
        }
    }
}

#[test]
fn prometheus_client_reads_the_exposition() {
    let Some(py) = python() else { return };
    // A window of the kv-pressure scenario: preemptions, a queue, every histogram populated.
    let s = emulator::scenario::find("kv-pressure").unwrap();
    let d = crate::common::diagnose_scenario(&s);
    let scrape = d.run.scrapes.last().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("metrics.txt");
    std::fs::write(&path, &scrape.text).unwrap();
    let out = Command::new(&py)
        .arg("-c")
        .arg(PARSE)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "prometheus_client refused the body:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fams: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let fam = |name: &str| {
        fams.iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("family {name} not parsed"))
    };
    for (name, kind) in [
        ("vllm:num_requests_running", "gauge"),
        ("vllm:num_requests_waiting", "gauge"),
        ("vllm:kv_cache_usage_perc", "gauge"),
        // Counters: the family drops `_total`, the samples keep it.
        ("vllm:prefix_cache_queries", "counter"),
        ("vllm:prefix_cache_hits", "counter"),
        ("vllm:num_preemptions", "counter"),
        ("vllm:prompt_tokens", "counter"),
        ("vllm:generation_tokens", "counter"),
        ("vllm:request_success", "counter"),
        ("vllm:engine_steps", "counter"),
        ("vllm:engine_steps_decode", "counter"),
        ("vllm:engine_step_seconds", "counter"),
        ("vllm:engine_step_seconds_decode", "counter"),
        ("vllm:engine_prefill_chunks", "counter"),
        ("vllm:time_to_first_token_seconds", "histogram"),
        ("vllm:inter_token_latency_seconds", "histogram"),
        ("vllm:e2e_request_latency_seconds", "histogram"),
        ("vllm:request_prompt_tokens", "histogram"),
        ("vllm:iteration_tokens_total", "histogram"),
        ("vllm:prompt_tokens_created", "gauge"),
        ("vllm:cache_config_info", "gauge"),
    ] {
        assert_eq!(fam(name)["type"], kind, "{name}");
    }
    // Every sample line was read, none with a timestamp (real vLLM sends none, and Prometheus
    // refuses samples stamped ahead of its clock); the simulated clock is a gauge of its own.
    let lines = scrape
        .text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .count();
    let samples: Vec<&Value> = fams
        .iter()
        .flat_map(|f| f["samples"].as_array().unwrap())
        .collect();
    assert_eq!(samples.len(), lines);
    for s in &samples {
        assert!(s["timestamp"].is_null(), "{s}");
    }
    let clock = fam(engines::EMULATOR_CLOCK)["samples"][0]["value"]
        .as_f64()
        .expect("the clock gauge's value");
    assert!(
        (clock - scrape.t_unix).abs() < 0.002,
        "{clock} vs {}",
        scrape.t_unix
    );
    // Values agree with the engines parser.
    let mine = engines::parse_metrics(&scrape.text, 0.0).unwrap().sample;
    let value = |family: &str, sample: &str| {
        fam(family)["samples"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["name"] == sample)
            .map(|s| s["value"].as_f64().unwrap())
            .sum::<f64>()
    };
    assert_eq!(
        Some(value(
            "vllm:generation_tokens",
            "vllm:generation_tokens_total"
        )),
        mine.generation_tokens
    );
    assert_eq!(
        Some(value("vllm:num_preemptions", "vllm:num_preemptions_total")),
        mine.preemptions
    );
    assert!(mine.preemptions.unwrap() > 0.0);
    assert_eq!(
        Some(value("vllm:request_success", "vllm:request_success_total")),
        mine.requests_finished
    );
    let ttft = mine.ttft.unwrap();
    assert_eq!(
        value(
            "vllm:time_to_first_token_seconds",
            "vllm:time_to_first_token_seconds_count"
        ),
        ttft.count
    );
    let buckets: Vec<(String, f64)> = fam("vllm:time_to_first_token_seconds")["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["name"] == "vllm:time_to_first_token_seconds_bucket")
        .map(|s| {
            (
                s["labels"]["le"].as_str().unwrap().to_string(),
                s["value"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(buckets.len(), 23, "22 bounds and +Inf");
    assert_eq!(buckets[0].0, "0.001");
    assert_eq!(buckets.last().unwrap(), &("+Inf".to_string(), ttft.count));
    assert!(buckets.windows(2).all(|w| w[0].1 <= w[1].1), "cumulative");
    // cache_config_info carries the pool, as vLLM's does.
    let info = &fam("vllm:cache_config_info")["samples"][0]["labels"];
    assert_eq!(info["block_size"], "16");
    assert_eq!(info["enable_prefix_caching"], "False");
    assert_eq!(info["engine"], "0");
    assert_eq!(
        info["num_gpu_blocks"]
            .as_str()
            .unwrap()
            .parse::<usize>()
            .unwrap(),
        d.run.engine.layout().num_gpu_blocks
    );
    for l in ["gpu_memory_utilization", "cache_dtype"] {
        assert!(info.get(l).is_some(), "{l}");
    }
}
