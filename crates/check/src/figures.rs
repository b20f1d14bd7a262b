//! The client's latency figures from its result file, beside the counts [`crate::ClientRun`]
//! holds: what the impossible-figures check and the comparison of two runs read. Kept apart
//! from `ClientRun` so a tool whose latencies are not read yet still gives its counts (its
//! figures are then null and the checks that need them say so).
//!
//! The names are each tool's own: vLLM 0.32's `--save-result` keys (`median_ttft_ms`,
//! `median_tpot_ms`, `median_itl_ms`, `max_concurrent_requests` in
//! vllm/benchmarks/serve.py), GuideLLM 0.8.1's metric distributions (`time_to_first_token_ms`,
//! `inter_token_latency_ms`, `request_concurrency` in guidellm/benchmark/schemas), AIPerf
//! 0.13.0's summary metrics (`time_to_first_token`, `inter_token_latency`,
//! `inter_chunk_latency`, each with its `p50`), inference-perf 0.7.0's lifecycle summary
//! (`time_to_first_token`, `time_per_output_token`, `inter_token_latency`, each with its
//! `median`, in seconds). The
//! per-stream decode time is vLLM's TPOT, (latency − TTFT) / (output tokens − 1) per request,
//! which GuideLLM calls inter-token latency; vLLM's ITL is the gap between stream chunks.

use serde::{Deserialize, Serialize};

/// Latency figures of a run, as its tool states them (milliseconds; medians over requests).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientFigures {
    /// Median time to first token.
    pub ttft_ms: Option<f64>,
    /// Median per-stream decode time per output token after the first (vLLM's TPOT,
    /// GuideLLM's inter-token latency): the figure the bandwidth floor bounds.
    pub tpot_ms: Option<f64>,
    /// Median gap between stream chunks (vLLM's ITL); null where the tool's ITL is the TPOT.
    pub itl_ms: Option<f64>,
    /// Most requests the client had in flight at once, as it measured them.
    pub max_in_flight: Option<u64>,
}

#[derive(Deserialize)]
struct Vllm {
    median_ttft_ms: Option<f64>,
    median_tpot_ms: Option<f64>,
    median_itl_ms: Option<f64>,
    max_concurrent_requests: Option<f64>,
}

#[derive(Deserialize)]
struct Guide {
    benchmarks: Vec<GuideBench>,
}

#[derive(Deserialize)]
struct GuideBench {
    metrics: GuideMetrics,
}

#[derive(Deserialize)]
struct GuideMetrics {
    time_to_first_token_ms: Option<ByStatus>,
    inter_token_latency_ms: Option<ByStatus>,
    request_concurrency: Option<ByStatus>,
}

#[derive(Deserialize)]
struct ByStatus {
    successful: Option<Stats>,
}

/// AIPerf 0.13's summary (`profile_export_aiperf.json`): each metric's percentiles.
#[derive(Deserialize)]
struct Aiperf {
    time_to_first_token: Option<Percentiles>,
    inter_token_latency: Option<Percentiles>,
    inter_chunk_latency: Option<Percentiles>,
}

#[derive(Deserialize)]
struct Percentiles {
    p50: Option<f64>,
}

#[derive(Deserialize)]
struct Stats {
    median: Option<f64>,
    max: Option<f64>,
}

/// A positive finite figure, else none (a run of one-token outputs has a TPOT of 0).
fn positive(x: Option<f64>) -> Option<f64> {
    x.filter(|v| v.is_finite() && *v > 0.0)
}

fn stat(d: &Option<ByStatus>) -> Option<&Stats> {
    d.as_ref().and_then(|d| d.successful.as_ref())
}

fn count(x: Option<f64>) -> Option<u64> {
    positive(x).map(|v| v.round() as u64)
}

impl ClientFigures {
    /// The figures of a result file's text (vLLM's or GuideLLM's; a GuideLLM report of one
    /// benchmark, as check reads it); none when the text is neither or states none of them.
    pub fn from_text(text: &str) -> Option<ClientFigures> {
        let first = serde_json::Deserializer::from_str(text)
            .into_iter::<serde_json::Value>()
            .next();
        if let Some(Ok(v)) = first {
            if v.get("aiperf_version").is_some() {
                // AIPerf's inter-token latency is vLLM's TPOT, per request; its inter-chunk
                // latency vLLM's ITL. Its in-flight count is not in the summary.
                let a: Aiperf = serde_json::from_value(v).ok()?;
                let p50 = |m: &Option<Percentiles>| positive(m.as_ref().and_then(|m| m.p50));
                return Some(ClientFigures {
                    ttft_ms: p50(&a.time_to_first_token),
                    tpot_ms: p50(&a.inter_token_latency),
                    itl_ms: p50(&a.inter_chunk_latency),
                    max_in_flight: None,
                });
            }
            if v.get("load_summary").is_some() {
                // inference-perf's TPOT is vLLM's, per request; its inter-token latency is
                // over every gap between chunks, vLLM's ITL. Seconds in the file. Its
                // in-flight count is not in the summary.
                let r = crate::InferencePerfSummary::parse(&v.to_string()).ok()?;
                let l = r.successes.latency.as_ref();
                let ms = |f: fn(
                    &crate::inference_perf::Latency,
                )
                    -> Option<&crate::inference_perf::Distribution>| {
                    crate::InferencePerfSummary::median_ms(l.and_then(f))
                };
                return Some(ClientFigures {
                    ttft_ms: ms(|l| l.time_to_first_token.as_ref()),
                    tpot_ms: ms(|l| l.time_per_output_token.as_ref()),
                    itl_ms: ms(|l| l.inter_token_latency.as_ref()),
                    max_in_flight: None,
                });
            }
            if v.get("benchmarks").is_some() {
                let g: Guide = serde_json::from_value(v).ok()?;
                let [b] = g.benchmarks.as_slice() else {
                    return None;
                };
                let m = &b.metrics;
                return Some(ClientFigures {
                    ttft_ms: positive(stat(&m.time_to_first_token_ms).and_then(|s| s.median)),
                    tpot_ms: positive(stat(&m.inter_token_latency_ms).and_then(|s| s.median)),
                    itl_ms: None,
                    max_in_flight: count(stat(&m.request_concurrency).and_then(|s| s.max)),
                });
            }
        }
        // vllm bench serve --append-result: the last run in the file, as its counts are read.
        let last = serde_json::Deserializer::from_str(text)
            .into_iter::<Vllm>()
            .map_while(Result::ok)
            .last()?;
        Some(ClientFigures {
            ttft_ms: positive(last.median_ttft_ms),
            tpot_ms: positive(last.median_tpot_ms),
            itl_ms: positive(last.median_itl_ms),
            max_in_flight: count(last.max_concurrent_requests),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_tools_real_files() {
        let v =
            ClientFigures::from_text(include_str!("../../../fixtures/vllm-bench-0.32/clean.json"))
                .expect("vLLM's figures");
        assert_eq!(v.max_in_flight, Some(4));
        assert!((v.tpot_ms.unwrap_or(0.0) - 56.08).abs() < 0.01, "{v:?}");
        assert!(v.ttft_ms.is_some() && v.itl_ms.is_some());
        let g =
            ClientFigures::from_text(include_str!("../../../fixtures/guidellm-0.8.1/clean.json"))
                .expect("GuideLLM's figures");
        assert_eq!(g.max_in_flight, Some(1));
        assert!((g.tpot_ms.unwrap_or(0.0) - 21.08).abs() < 0.01, "{g:?}");
        assert_eq!(g.itl_ms, None);
        let a =
            ClientFigures::from_text(include_str!("../../../fixtures/aiperf-0.13.0/clean.json"))
                .expect("AIPerf's figures");
        assert!((a.tpot_ms.unwrap_or(0.0) - 162.194).abs() < 0.01, "{a:?}");
        assert!((a.ttft_ms.unwrap_or(0.0) - 2752.042).abs() < 0.01, "{a:?}");
        assert!((a.itl_ms.unwrap_or(0.0) - 156.050).abs() < 0.01, "{a:?}");
        assert_eq!(a.max_in_flight, None);
        // inference-perf's medians, in seconds in the file: TTFT 0.7459580720023951, TPOT
        // 0.026558240749970236, ITL 0.025448110998695483.
        let i = ClientFigures::from_text(include_str!(
            "../../../fixtures/inference-perf-0.7.0/clean.json"
        ))
        .expect("inference-perf's figures");
        assert!(
            (i.ttft_ms.unwrap_or(0.0) - 745.958072).abs() < 1e-3,
            "{i:?}"
        );
        assert!((i.tpot_ms.unwrap_or(0.0) - 26.558241).abs() < 1e-3, "{i:?}");
        assert!((i.itl_ms.unwrap_or(0.0) - 25.448111).abs() < 1e-3, "{i:?}");
        assert_eq!(i.max_in_flight, None);
        assert_eq!(ClientFigures::from_text("not json"), None);
    }
}
