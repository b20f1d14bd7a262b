//! The re-measure: the same window shape again, compared with the saved run. Throughput moves
//! are judged against the spread across sub-windows (Mann-Whitney U, from the regress crate), so
//! noise is not sold as improvement.

use serde_json::{json, Value};

/// Two-sided Mann-Whitney U p-value of the sub-window rates (the regress crate's test: exact
/// for small samples without ties). None with fewer than 3 values on a side.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() < 3 || b.len() < 3 {
        return None;
    }
    regress::mann_whitney(a, b).ok().map(|m| m.p)
}

use regress::median;

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

/// The config key a prescribed flag moves.
fn config_key(flag: &str) -> Option<&'static str> {
    Some(match flag {
        "--max-num-seqs" | "-np" | "--max-running-requests" | "--max-concurrent-requests" => {
            "max_num_seqs"
        }
        "--gpu-memory-utilization" | "--mem-fraction-static" => "gpu_memory_utilization",
        "--enable-prefix-caching" | "--cache-reuse" => "prefix_caching",
        "--max-num-batched-tokens" | "-ub" | "--chunked-prefill-size" => "max_num_batched_tokens",
        "--tensor-parallel-size" | "--tp" | "--num-shard" => "tensor_parallel_size",
        "--max-model-len" | "-c" | "--context-length" => "max_model_len",
        f if f.starts_with("--kv-cache-dtype") || f.starts_with("-ctk") => "kv_cache_dtype",
        _ => return None,
    })
}

fn rule(doc: &Value) -> Option<String> {
    doc.pointer("/primary/rule")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Compare a saved diagnose document with a new one.
pub fn compare(before: &Value, after: &Value) -> Value {
    let (rb, ra) = (rule(before), rule(after));
    let cleared = match (&rb, &ra) {
        (Some(b), Some(a)) => Some(a != b),
        (Some(_), None) => Some(true),
        (None, _) => None,
    };
    let sb = floats(&before["sub_window_generation_tps"]);
    let sa = floats(&after["sub_window_generation_tps"]);
    let (mb, ma) = (median(&sb), median(&sa));
    let p = mann_whitney(&sb, &sa);
    let ratio = match (mb, ma) {
        (Some(b), Some(a)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let verdict = match (ratio, p) {
        (Some(r), Some(p)) if p < 0.05 && r > 1.0 => "improved",
        (Some(r), Some(p)) if p < 0.05 && r < 1.0 => "worse",
        (Some(_), Some(_)) => "no change beyond noise",
        _ => "not enough sub-windows to judge",
    };
    let spread = |v: &[f64]| {
        let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        (!v.is_empty()).then(|| json!([lo, hi]))
    };
    // Did the config move as prescribed?
    let mut config = Vec::new();
    if let Some(fix) = before.pointer("/primary/fix").and_then(Value::as_array) {
        for step in fix {
            let Some(flag) = step["flag"].as_str() else {
                continue;
            };
            let Some(key) = config_key(flag) else {
                continue;
            };
            let was = before.pointer(&format!("/config/{key}/value")).cloned();
            let now = after.pointer(&format!("/config/{key}/value")).cloned();
            let wanted = step["value"].as_str().map(str::to_string);
            let applied = match (&wanted, &now) {
                (Some(w), Some(n)) => {
                    let n = n
                        .as_f64()
                        .map(|f| physics::provenance::sig(f, 6))
                        .unwrap_or_else(|| n.to_string().trim_matches('"').to_string());
                    let w = w
                        .parse::<f64>()
                        .map(|f| physics::provenance::sig(f, 6))
                        .unwrap_or_else(|_| w.clone());
                    Some(n == w)
                }
                (None, Some(n)) => Some(Some(n) != was.as_ref()),
                (_, None) => None,
            };
            config.push(json!({"flag": flag, "key": key, "prescribed": wanted, "before": was, "after": now, "applied": applied}));
        }
    }
    let surfaced = if rb.is_some() && rb == ra {
        after["held"].clone()
    } else {
        json!([])
    };
    json!({
        "primary_before": rb,
        "primary_after": ra,
        "cleared": cleared,
        "throughput": {
            "generation_tps_before": before.pointer("/throughput/generation_tokens_per_s"),
            "generation_tps_after": after.pointer("/throughput/generation_tokens_per_s"),
            "sub_window_median_before": mb,
            "sub_window_median_after": ma,
            "spread_before": spread(&sb),
            "spread_after": spread(&sa),
            "ratio": ratio,
            "p_value": p,
            "verdict": verdict,
        },
        "efficiency_before": before.pointer("/efficiency/config_relative"),
        "efficiency_after": after.pointer("/efficiency/config_relative"),
        "config": config,
        "next": after["primary"],
        "surfaced": surfaced,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mann_whitney_separates_shifted_samples_and_not_noise() {
        let a = [100.0, 102.0, 98.0, 101.0, 99.0, 100.5];
        let b: Vec<f64> = a.iter().map(|x| x * 1.3).collect();
        assert!(mann_whitney(&a, &b).unwrap() < 0.01);
        let c = [101.0, 99.5, 100.2, 98.5, 102.5, 100.1];
        assert!(mann_whitney(&a, &c).unwrap() > 0.3);
        assert!(mann_whitney(&a[..2], &c).is_none());
    }

    #[test]
    fn compare_reads_cleared_config_and_noise() {
        let before = json!({
            "primary": {"rule": "R5", "fix": [{"flag": "--max-num-seqs", "value": "72"}]},
            "config": {"max_num_seqs": {"value": 64.0, "source": "engine_args"}},
            "sub_window_generation_tps": [100, 101, 99, 100, 102, 98],
            "held": [],
        });
        let after = json!({
            "primary": {"rule": "R7"},
            "config": {"max_num_seqs": {"value": 72.0, "source": "engine_args"}},
            "sub_window_generation_tps": [130, 131, 129, 132, 128, 130],
            "held": [{"rule": "R3"}],
        });
        let c = compare(&before, &after);
        assert_eq!(c["cleared"], json!(true));
        assert_eq!(c["throughput"]["verdict"], json!("improved"));
        assert_eq!(c["config"][0]["applied"], json!(true));
        assert_eq!(c["surfaced"], json!([]));
        let same = compare(&before, &before);
        assert_eq!(
            same["throughput"]["verdict"],
            json!("no change beyond noise")
        );
        assert_eq!(same["cleared"], json!(false));
        assert_eq!(same["config"][0]["applied"], json!(false));
    }
}
