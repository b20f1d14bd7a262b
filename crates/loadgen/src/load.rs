//! Is the server idle? Read just the running/waiting gauges from `/metrics` (or llama.cpp's
//! `/slots` when metrics are off). A full Prometheus parser lives in the engines crate; this
//! one reads only the few gauges a probe needs before it starts.

use serde::Serialize;
use serde_json::Value;

use crate::client::Client;
use crate::error::{Error, Result};

/// Requests in flight on the server, and which series said so.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Load {
    pub running: f64,
    pub waiting: f64,
    pub source: String,
}

impl Load {
    pub fn is_idle(&self) -> bool {
        self.running == 0.0 && self.waiting == 0.0
    }
}

/// (running gauge, waiting gauge, engine) per engine, in the order tried.
const GAUGES: &[(&str, &str, &str)] = &[
    (
        "vllm:num_requests_running",
        "vllm:num_requests_waiting",
        "vLLM",
    ),
    (
        "llamacpp:requests_processing",
        "llamacpp:requests_deferred",
        "llama.cpp",
    ),
    ("sglang:num_running_reqs", "sglang:num_queue_reqs", "SGLang"),
    ("tgi_batch_current_size", "tgi_queue_size", "TGI"),
];

/// Sum of every sample of `name` (all label sets, e.g. one per vLLM engine); None when absent.
/// Lines that do not parse are skipped: this reads gauges, it does not validate the scrape.
pub fn gauge_sum(text: &str, name: &str) -> Option<f64> {
    let mut sum = None;
    for line in text.lines() {
        let line = line.trim_start();
        if line.starts_with('#') {
            continue;
        }
        let Some(rest) = line.strip_prefix(name) else {
            continue;
        };
        let rest = match rest.as_bytes().first() {
            Some(b'{') => match skip_labels(rest) {
                Some(r) => r,
                None => continue,
            },
            Some(b' ') | Some(b'\t') => rest,
            _ => continue, // a longer name with this prefix
        };
        let Some(value) = rest.split_whitespace().next() else {
            continue;
        };
        if let Some(v) = parse_value(value) {
            *sum.get_or_insert(0.0) += v;
        }
    }
    sum
}

/// Past the closing `}` of a label set, honouring quoted values with escapes.
fn skip_labels(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let (mut i, mut in_quote) = (1, false);
    while i < b.len() {
        match (b[i], in_quote) {
            (b'\\', true) => i += 1,
            (b'"', _) => in_quote = !in_quote,
            (b'}', false) => return Some(&s[i + 1..]),
            _ => {}
        }
        i += 1;
    }
    None
}

fn parse_value(s: &str) -> Option<f64> {
    match s {
        "+Inf" | "Inf" => Some(f64::INFINITY),
        "-Inf" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        _ => s.parse().ok(),
    }
}

/// The first engine whose running gauge is present in the scrape.
pub fn load_from_metrics(text: &str) -> Option<Load> {
    GAUGES.iter().find_map(|(run, wait, engine)| {
        let running = gauge_sum(text, run)?;
        Some(Load {
            running,
            waiting: gauge_sum(text, wait).unwrap_or(0.0),
            source: format!("{engine} /metrics {run}, {wait}"),
        })
    })
}

/// llama.cpp `/slots`: slots with `is_processing` true are running; nothing says waiting.
pub fn load_from_slots(v: &Value) -> Option<Load> {
    let slots = v.as_array()?;
    let running = slots
        .iter()
        .filter(|s| s.get("is_processing").and_then(Value::as_bool) == Some(true))
        .count();
    Some(Load {
        running: running as f64,
        waiting: 0.0,
        source: format!(
            "llama.cpp /slots is_processing ({} slots; waiting not reported)",
            slots.len()
        ),
    })
}

/// Current load, or None when the server exposes neither gauges nor slots.
pub async fn current_load(client: &Client) -> Result<Option<Load>> {
    match client.get_text("/metrics").await {
        Ok(text) => {
            if let Some(l) = load_from_metrics(&text) {
                return Ok(Some(l));
            }
        }
        Err(e @ (Error::Unreachable { .. } | Error::Timeout { .. })) => return Err(e),
        Err(_) => {}
    }
    match client.get_json("/slots").await {
        Ok(v) => Ok(load_from_slots(&v)),
        Err(e @ (Error::Unreachable { .. } | Error::Timeout { .. })) => Err(e),
        Err(_) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn gauges_by_engine() {
        let vllm = "# HELP vllm:num_requests_running x\n# TYPE vllm:num_requests_running gauge\n\
vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 2.0\n\
vllm:num_requests_running{engine=\"1\",model_name=\"a}b\\\"c\"} 1.0\n\
vllm:num_requests_waiting_by_reason{reason=\"capacity\"} 9.0\n\
vllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 3.0\n";
        let l = load_from_metrics(vllm).unwrap();
        assert_eq!((l.running, l.waiting), (3.0, 3.0));
        assert!(!l.is_idle());

        let llama = "# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing 0\n\
llamacpp:requests_deferred 0\nllamacpp:n_tokens_max 1.23457e+06\n";
        let l = load_from_metrics(llama).unwrap();
        assert!(l.is_idle());
        assert!(l.source.starts_with("llama.cpp"));

        let sglang = "sglang:num_running_reqs{tp_rank=\"0\"} 1\nsglang:num_queue_reqs{tp_rank=\"0\"} 4 1700000000000\n";
        let l = load_from_metrics(sglang).unwrap();
        assert_eq!((l.running, l.waiting), (1.0, 4.0));

        assert_eq!(load_from_metrics("process_cpu_seconds_total 3\n"), None);
        assert_eq!(gauge_sum("x{unterminated=\"1 2\n", "x"), None);
    }

    #[test]
    fn slots_endpoint() {
        let l =
            load_from_slots(&json!([{"id":0,"is_processing":true},{"id":1,"is_processing":false}]))
                .unwrap();
        assert_eq!(l.running, 1.0);
        assert_eq!(load_from_slots(&json!({"error":"x"})), None);
    }
}
