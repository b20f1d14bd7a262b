//! Load for live tests against an OpenAI-compatible server, and a raw reader of Prometheus
//! bodies that does not use the project's parser (so a test can referee it).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// `clients` closed-loop clients sending completions until stopped (at most 10 minutes and
/// 2,000 requests each: bounded whatever happens).
pub struct Load {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Load {
    /// Short prompts, `max_tokens` generated each (`ignore_eos`), served as `model`.
    pub fn start(port: u16, model: &str, clients: usize, max_tokens: u32) -> Load {
        Self::with_prompt(port, model, clients, max_tokens, |i, j| {
            format!("Client {i} request {j}: tell me a long story about a lighthouse keeper and the sea.")
        })
    }

    /// The same with the prompt of client `i`'s request `j` from `prompt` (JSON-escaped here).
    pub fn with_prompt(
        port: u16,
        model: &str,
        clients: usize,
        max_tokens: u32,
        prompt: fn(usize, usize) -> String,
    ) -> Load {
        Self::spawn(port, model, clients, max_tokens, prompt, true)
    }

    /// The same, but each request may stop at the model's end of sequence before `max_tokens`
    /// (no `ignore_eos`): an engine that reserves an `ignore_eos` request's whole output (SGLang)
    /// admits these on its estimate of what they will still generate.
    pub fn until_eos(
        port: u16,
        model: &str,
        clients: usize,
        max_tokens: u32,
        prompt: fn(usize, usize) -> String,
    ) -> Load {
        Self::spawn(port, model, clients, max_tokens, prompt, false)
    }

    fn spawn(
        port: u16,
        model: &str,
        clients: usize,
        max_tokens: u32,
        prompt: fn(usize, usize) -> String,
        ignore_eos: bool,
    ) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..clients)
            .map(|i| {
                let stop = stop.clone();
                let model = model.to_string();
                std::thread::spawn(move || {
                    let deadline = Instant::now() + Duration::from_secs(600);
                    for j in 0..2000 {
                        if stop.load(Ordering::Relaxed) || Instant::now() > deadline {
                            break;
                        }
                        let body = serde_json::json!({
                            "model": model,
                            "prompt": prompt(i, j),
                            "max_tokens": max_tokens,
                            "ignore_eos": ignore_eos,
                        });
                        let _ = crate::post_json(port, "/v1/completions", &body.to_string());
                    }
                })
            })
            .collect();
        Load { stop, threads }
    }

    /// Stops every client after its request in flight.
    pub fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads {
            let _ = t.join();
        }
    }
}

/// The value of a series in a Prometheus body, summed over its label sets, read without the
/// project's parser: `name{...} value` or `name value`.
pub fn series_sum(body: &str, name: &str) -> Option<f64> {
    let mut total = None;
    for l in body.lines().filter(|l| !l.starts_with('#')) {
        let Some(rest) = l.strip_prefix(name) else {
            continue;
        };
        let rest = match rest.strip_prefix('{') {
            Some(r) => r.split_once('}').map(|x| x.1).unwrap_or(""),
            None if rest.starts_with(' ') => rest,
            None => continue,
        };
        if let Some(v) = rest
            .split_whitespace()
            .next()
            .and_then(|v| v.parse::<f64>().ok())
        {
            *total.get_or_insert(0.0) += v;
        }
    }
    total
}
