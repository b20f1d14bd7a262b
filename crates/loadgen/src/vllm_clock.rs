//! vLLM's own clock (issue 14): vLLM times every request itself and exposes the times as
//! Prometheus histograms. The change of a histogram's `_sum` and `_count` across a window that
//! holds only the bench's own request is the engine's time for that request: no HTTP, no client
//! scheduling, no chunk batching on this side of the wire (the engine's ledger
//! outranks a model of it). llama-server says the same in each response's `timings`.

use std::time::{Duration, Instant};

use crate::client::Client;
use crate::error::Result;
use engines::Histogram;

/// What a metric on this clock says, for the record (docs/json/bench.md).
pub const SOURCE: &str = "vLLM /metrics: the change of a histogram's _sum and _count across \
each request (decode: inter_token_latency_seconds count / sum; prefill: prompt tokens / \
request_prefill_time_seconds sum; TTFT: time_to_first_token_seconds sum)";

/// How long to wait for a finished request to reach the histograms: vLLM records a request's
/// times just after it sends the last chunk, so a scrape at once can miss it.
const SETTLE: Duration = Duration::from_secs(3);

/// One histogram's `_sum` and `_count`, summed over every label set (one per engine core).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SumCount {
    pub sum: f64,
    pub count: f64,
}

impl SumCount {
    fn of(h: &Option<Histogram>) -> Option<SumCount> {
        h.as_ref().map(|h| SumCount {
            sum: h.sum,
            count: h.count,
        })
    }

    fn minus(self, before: SumCount) -> SumCount {
        SumCount {
            sum: self.sum - before.sum,
            count: self.count - before.count,
        }
    }
}

/// The four histograms at one scrape.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct VllmTimes {
    pub prefill: SumCount,
    pub decode: SumCount,
    pub ttft: SumCount,
    pub itl: SumCount,
}

impl VllmTimes {
    /// From a `/metrics` body, read by the engines crate's parser and vLLM's definition (V1's
    /// per-request histograms: prefill is scheduled → first token, decode first → last token,
    /// TTFT arrival → first token, and one inter-token latency per token after the first, whose
    /// sum is the decode time); None unless all four histograms are there.
    pub fn from_metrics(text: &str) -> Option<VllmTimes> {
        let s = engines::parse_metrics(text, 0.0).ok()?.sample;
        if s.engine != engines::Engine::Vllm {
            return None;
        }
        Some(VllmTimes {
            prefill: SumCount::of(&s.prefill_time)?,
            decode: SumCount::of(&s.decode_time)?,
            ttft: SumCount::of(&s.ttft)?,
            itl: SumCount::of(&s.itl)?,
        })
    }

    /// The change from `before` to this scrape.
    pub fn since(&self, before: &VllmTimes) -> VllmWindow {
        VllmWindow {
            prefill: self.prefill.minus(before.prefill),
            decode: self.decode.minus(before.decode),
            ttft: self.ttft.minus(before.ttft),
            itl: self.itl.minus(before.itl),
        }
    }
}

/// The histograms' change across a window.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct VllmWindow {
    pub prefill: SumCount,
    pub decode: SumCount,
    pub ttft: SumCount,
    pub itl: SumCount,
}

impl VllmWindow {
    /// Exactly one request finished in the window, by every histogram's count: its sums are that
    /// request's times (any other traffic, or a late record of an earlier request, makes the
    /// window unusable, never a blend).
    fn one(&self) -> bool {
        [self.prefill, self.decode, self.ttft]
            .iter()
            .all(|h| h.count == 1.0)
    }

    /// Decode rate of the window's one request: tokens after the first over their latencies.
    pub fn decode_tps(&self) -> Option<f64> {
        (self.one() && self.itl.count >= 1.0 && self.itl.sum > 0.0)
            .then(|| self.itl.count / self.itl.sum)
    }

    /// Prefill rate of the window's one request, `prompt_tokens` long.
    pub fn prefill_tps(&self, prompt_tokens: u64) -> Option<f64> {
        (self.one() && prompt_tokens > 0 && self.prefill.sum > 0.0)
            .then(|| prompt_tokens as f64 / self.prefill.sum)
    }

    /// The engine's TTFT of the window's one request, in ms (arrival at the engine → first
    /// token).
    pub fn ttft_ms(&self) -> Option<f64> {
        (self.one() && self.ttft.sum > 0.0).then_some(self.ttft.sum * 1e3)
    }
}

/// vLLM's histograms, read around the bench's requests.
pub struct VllmLedger {
    client: Client,
    last: VllmTimes,
}

impl VllmLedger {
    /// The ledger as it stands; None when `/metrics` lacks the histograms (or cannot be read:
    /// the bench then stays on the client's clock).
    pub async fn open(client: &Client) -> Option<VllmLedger> {
        let text = client.get_text("/metrics").await.ok()?;
        Some(VllmLedger {
            client: client.clone(),
            last: VllmTimes::from_metrics(&text)?,
        })
    }

    /// The window since the last call, once `requests` more finished requests have reached the
    /// histograms (vLLM observes prefill and decode time of every request as it finishes) (or [`SETTLE`] has passed: then the window holds what did arrive, and a late
    /// record makes the next window unusable rather than wrong).
    pub async fn window(&mut self, requests: u32) -> Result<VllmWindow> {
        let deadline = Instant::now() + SETTLE;
        loop {
            let text = self.client.get_text("/metrics").await?;
            let now = VllmTimes::from_metrics(&text).unwrap_or_default();
            let w = now.since(&self.last);
            if w.prefill.count >= f64::from(requests) || Instant::now() >= deadline {
                self.last = now;
                return Ok(w);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PREFILL: &str = "vllm:request_prefill_time_seconds";
    const DECODE: &str = "vllm:request_decode_time_seconds";
    const TTFT: &str = "vllm:time_to_first_token_seconds";
    const ITL: &str = "vllm:inter_token_latency_seconds";

    fn scrape(prefill: f64, decode: f64, ttft: f64, itl: (f64, f64), n: f64) -> String {
        format!(
            "# TYPE {PREFILL} histogram\n\
{PREFILL}_bucket{{engine=\"0\",le=\"+Inf\"}} {n}\n\
{PREFILL}_count{{engine=\"0\",model_name=\"m\"}} {n}\n\
{PREFILL}_sum{{engine=\"0\",model_name=\"m\"}} {prefill}\n\
{DECODE}_count{{engine=\"0\",model_name=\"m\"}} {n}\n\
{DECODE}_sum{{engine=\"0\",model_name=\"m\"}} {decode}\n\
{TTFT}_count{{engine=\"0\",model_name=\"m\"}} {n}\n\
{TTFT}_sum{{engine=\"0\",model_name=\"m\"}} {ttft}\n\
{ITL}_count{{engine=\"0\",model_name=\"m\"}} {}\n\
{ITL}_sum{{engine=\"0\",model_name=\"m\"}} {}\n",
            itl.0, itl.1
        )
    }

    #[test]
    fn one_request_windows_give_its_times() {
        // The real vLLM 0.32 capture: decode sum equals the ITL sum, ITL count = generated −
        // requests.
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/vllm-0.32/metrics-8-clients.prom"
        ))
        .unwrap();
        let t = VllmTimes::from_metrics(&text).unwrap();
        assert_eq!(t.decode.count, 71.0);
        assert_eq!(t.itl.count, 566.0);
        assert!((t.decode.sum - t.itl.sum).abs() < 1e-9);

        let before = VllmTimes::from_metrics(&scrape(1.0, 2.0, 1.5, (90.0, 2.0), 4.0)).unwrap();
        // One request: 0.25 s prefill, 23 tokens after the first over 0.46 s, TTFT 0.3 s.
        let after = VllmTimes::from_metrics(&scrape(1.25, 2.46, 1.8, (113.0, 2.46), 5.0)).unwrap();
        let w = after.since(&before);
        assert!((w.decode_tps().unwrap() - 50.0).abs() < 1e-6);
        assert!((w.prefill_tps(96).unwrap() - 384.0).abs() < 1e-6);
        assert!((w.ttft_ms().unwrap() - 300.0).abs() < 1e-6);

        // Two requests in the window (other traffic, or a late record): no value, never a blend.
        let two = VllmTimes::from_metrics(&scrape(1.5, 2.9, 2.1, (136.0, 2.9), 6.0)).unwrap();
        let w = two.since(&before);
        assert_eq!(
            (w.decode_tps(), w.prefill_tps(96), w.ttft_ms()),
            (None, None, None)
        );
        // Nothing finished: nothing to say.
        let w = before.since(&before);
        assert_eq!(w.decode_tps(), None);

        // Not vLLM (llama.cpp's exposition): no ledger.
        assert_eq!(
            VllmTimes::from_metrics("llamacpp:requests_processing 0\n"),
            None
        );
    }
}
