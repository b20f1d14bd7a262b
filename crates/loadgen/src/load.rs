//! Is the server idle? Read the running/waiting gauges from `/metrics` with the engines crate's
//! parser and engine definitions (or llama.cpp's `/slots` when metrics are off).

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

/// The running and waiting gauges of whichever engine the scrape is from, read by the engines
/// crate's parser and that engine's definition (how its series combine included).
pub fn load_from_metrics(text: &str) -> Option<Load> {
    let s = engines::parse_metrics(text, 0.0).ok()?.sample;
    Some(Load {
        running: s.running?,
        waiting: s.waiting.unwrap_or(0.0),
        source: format!("{} /metrics running and waiting gauges", s.engine.name()),
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
