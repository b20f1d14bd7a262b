//! The summary kubernetes-sigs inference-perf writes after a run
//! (`summary_lifecycle_metrics.json` in its report folder, `storage.local_storage.path`), read
//! into the fields the judgement uses. The names are inference-perf 0.7.0's own
//! (`ResponsesSummary` in inference_perf/reportgen/base.py): the run's span in
//! `benchmark_time_seconds` (the first request's start to the last one's end), the requests
//! sent in `load_summary`, the successful ones in `successes` with their latency distributions
//! (seconds) and token counts, the failed ones in `failures` with their messages grouped by
//! label; checked against real summaries (fixtures/inference-perf-0.7.0). Fields this crate
//! does not use are ignored.
//!
//! The report folder also holds one such file per stage (`stage_<n>_lifecycle_metrics.json`,
//! the same shape, read the same way), the config after defaults (`config.yaml`) and a
//! validation of the reports (`validation.json`). The tokenizer, load type, rate and concurrency
//! are in `config.yaml` alone, so a run read from the summary states none of them.

use serde::Deserialize;
use std::collections::BTreeMap;

/// The tool and the format version this module reads, as `ClientRun::tool` names it.
pub const TOOL: &str = "inference-perf 0.7";

/// The summary's file name in the report folder.
pub const SUMMARY: &str = "summary_lifecycle_metrics.json";

/// The report folder's files that are not a lifecycle summary, by the names inference-perf
/// gives them.
pub const OTHERS: [&str; 3] = [
    "config.yaml",
    "validation.json",
    "per_request_lifecycle_metrics.json",
];

/// An inference-perf `summary_lifecycle_metrics.json` (or one stage's).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct InferencePerfSummary {
    /// Seconds from the first request's start to the last one's end.
    pub benchmark_time_seconds: f64,
    pub load_summary: LoadSummary,
    pub successes: Successes,
    pub failures: Failures,
}

/// The requests the load generator sent.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LoadSummary {
    pub count: u64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Successes {
    pub count: u64,
    pub latency: Option<Latency>,
    /// Prompt tokens: the server's `usage` where it reported one, the client's tokenizer
    /// otherwise (`client_fallback_requests.prompt` counts those).
    pub prompt_tokens: Option<TokenUsage>,
    /// Output tokens by the client re-tokenizing the response text; what its
    /// `output_tokens_per_sec` divides by.
    pub output_len: Option<Distribution>,
    /// Output tokens as the server's `usage` counted them, the client's count for a request
    /// the server did not count.
    pub output_tokens: Option<TokenUsage>,
}

/// The latency distributions of the successful requests, in seconds. Streamed requests only:
/// null (or absent) for a run without streaming.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Latency {
    pub time_to_first_token: Option<Distribution>,
    /// Per request, (last token time − first token time) / (output tokens − 1): vLLM's TPOT.
    pub time_per_output_token: Option<Distribution>,
    /// Over every gap between streamed chunks of every request: vLLM's ITL.
    pub inter_token_latency: Option<Distribution>,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Distribution {
    pub mean: Option<f64>,
    pub median: Option<f64>,
}

/// A token count's total over the requests, with its distribution.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct TokenUsage {
    pub total: Option<f64>,
    /// Prompt tokens the server's `usage` said it served from its cache.
    pub cached: Option<f64>,
    pub mean: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Failures {
    pub count: u64,
    /// The failures by label (`Connection Error`, an HTTP status, ...), each with its count
    /// and its distinct messages.
    #[serde(default)]
    pub by_label: BTreeMap<String, FailureLabel>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FailureLabel {
    pub count: u64,
    #[serde(default)]
    pub messages: Vec<FailureMessage>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FailureMessage {
    pub message: String,
}

impl InferencePerfSummary {
    pub fn parse(text: &str) -> Result<InferencePerfSummary, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Prompt tokens of the successful requests: the summary's total, or its mean times the
    /// count where the total is absent.
    pub fn input_tokens(&self) -> u64 {
        total(self.successes.prompt_tokens, self.successes.count)
    }

    /// Output tokens of the successful requests, as the server's `usage` counted them (the
    /// client's re-tokenized count where the summary has no such field). The client's own
    /// count (`output_len`) may sit a token a request under the server's: text re-tokenized
    /// does not always split where the model's tokens did.
    pub fn output_tokens(&self) -> Option<u64> {
        let s = &self.successes;
        match s.output_tokens {
            Some(t) => Some(total(Some(t), s.count)),
            None => s
                .output_len
                .and_then(|d| d.mean)
                .map(|m| round(m * s.count as f64)),
        }
    }

    /// The distinct errors, as `label: message`, labels in name order.
    pub fn distinct_errors(&self) -> Vec<String> {
        let texts: Vec<String> = self
            .failures
            .by_label
            .iter()
            .flat_map(|(label, l)| {
                let label = label.clone();
                let mut v: Vec<String> = l
                    .messages
                    .iter()
                    .map(|m| format!("{label}: {}", m.message))
                    .collect();
                if v.is_empty() {
                    v.push(label);
                }
                v
            })
            .collect();
        crate::file::distinct_errors(texts.iter().map(String::as_str))
    }

    /// A latency's median in milliseconds, positive and finite, else none.
    pub fn median_ms(d: Option<&Distribution>) -> Option<f64> {
        d.and_then(|d| d.median)
            .map(|s| s * 1000.0)
            .filter(|v| v.is_finite() && *v > 0.0)
    }
}

fn round(x: f64) -> u64 {
    if x.is_finite() {
        x.max(0.0).round() as u64
    } else {
        0
    }
}

fn total(t: Option<TokenUsage>, count: u64) -> u64 {
    match t {
        Some(TokenUsage { total: Some(x), .. }) => round(x),
        Some(TokenUsage { mean: Some(m), .. }) => round(m * count as f64),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLEAN: &str = include_str!("../../../fixtures/inference-perf-0.7.0/clean.json");
    const WARM: &str = include_str!("../../../fixtures/inference-perf-0.7.0/warm.json");
    const DISCONNECT: &str = include_str!("../../../fixtures/inference-perf-0.7.0/disconnect.json");

    #[test]
    fn reads_a_real_summary() {
        let r = InferencePerfSummary::parse(CLEAN).expect("the fixture parses");
        assert_eq!((r.load_summary.count, r.successes.count), (4, 4));
        assert_eq!(r.failures.count, 0);
        assert!((r.benchmark_time_seconds - 4.534171569001046).abs() < 1e-12);
        // llama-server's counters over the run: 256 prompt tokens, 64 generated
        // (fixtures/inference-perf-0.7.0/SOURCES.md); the summary's totals are its `usage`.
        assert_eq!(r.input_tokens(), 256);
        assert_eq!(r.output_tokens(), Some(64));
        // The client's re-tokenized count is 15 a request.
        assert_eq!(r.successes.output_len.and_then(|d| d.mean), Some(15.0));
        assert!(r.distinct_errors().is_empty());
        let l = r.successes.latency.as_ref().expect("streamed");
        let ms = |d: &Option<Distribution>| InferencePerfSummary::median_ms(d.as_ref());
        assert!((ms(&l.time_to_first_token).unwrap_or(0.0) - 745.958072).abs() < 1e-3);
        assert!((ms(&l.time_per_output_token).unwrap_or(0.0) - 26.558241).abs() < 1e-3);
        assert!((ms(&l.inter_token_latency).unwrap_or(0.0) - 25.448111).abs() < 1e-3);
    }

    #[test]
    fn a_warm_run_states_its_cached_share() {
        // The same seed again: the server served 252 of 256 prompt tokens from its cache, and
        // its `usage` told the client so.
        let r = InferencePerfSummary::parse(WARM).expect("the fixture parses");
        assert_eq!((r.successes.count, r.input_tokens()), (4, 256));
        assert_eq!(
            r.successes.prompt_tokens.and_then(|p| p.cached),
            Some(252.0)
        );
    }

    #[test]
    fn a_failed_request_is_counted_with_its_message() {
        let r = InferencePerfSummary::parse(DISCONNECT).expect("the fixture parses");
        assert_eq!((r.load_summary.count, r.successes.count), (4, 3));
        assert_eq!(r.failures.count, 1);
        // The server counted 192 prompt tokens and 48 generated: the three that succeeded.
        assert_eq!((r.input_tokens(), r.output_tokens()), (192, Some(48)));
        assert_eq!(
            r.distinct_errors(),
            vec!["Connection Error: Server disconnected".to_string()]
        );
    }

    #[test]
    fn a_field_of_the_wrong_type_is_refused() {
        let wrong = CLEAN.replacen("\"count\": 4", "\"count\": \"4\"", 1);
        assert_ne!(wrong, CLEAN, "the fixture spells the count so");
        assert!(InferencePerfSummary::parse(&wrong).is_err());
    }

    /// The window llama-server counted: prompt tokens computed, from its cache, generated.
    fn window(p: f64, c: f64, g: f64) -> Vec<engines::Sample> {
        [(0.0, 0.0, 0.0), (p, c, g)]
            .iter()
            .enumerate()
            .map(|(i, &(p, c, g))| {
                let mut s = engines::Sample::empty(i as f64, engines::Engine::LlamaCpp);
                s.prompt_tokens = Some(p);
                s.cached_prompt_tokens = Some(c);
                s.generation_tokens_credited = Some(g);
                s
            })
            .collect()
    }

    #[test]
    fn the_clean_run_agrees_and_the_warm_one_is_contaminated() {
        use crate::{findings, CheckKind, ClientRun, Outcome};
        let outcome = |text: &str, samples: &[engines::Sample], kind: CheckKind| {
            let r = InferencePerfSummary::parse(text).expect("the fixture parses");
            let run = ClientRun::from_inference_perf(&r, "summary_lifecycle_metrics.json");
            let (_, f) = findings(samples, engines::Engine::LlamaCpp, Some(&run));
            let f = f.into_iter().find(|f| f.check == kind).expect("reported");
            (f.outcome, f.evidence)
        };
        // The counters over each run (fixtures/inference-perf-0.7.0/SOURCES.md).
        let clean = window(256.0, 0.0, 64.0);
        let warm = window(4.0, 252.0, 64.0);
        for kind in [
            CheckKind::PromptTokens,
            CheckKind::OutputTokens,
            CheckKind::CacheContamination,
            CheckKind::FailedRequests,
        ] {
            let (o, e) = outcome(CLEAN, &clean, kind);
            assert_ne!(o, Outcome::Fired, "{kind:?}: {e}");
        }
        let (o, e) = outcome(WARM, &warm, CheckKind::CacheContamination);
        assert_eq!(o, Outcome::Fired, "{e}");
        let (o, e) = outcome(
            DISCONNECT,
            &window(192.0, 0.0, 48.0),
            CheckKind::FailedRequests,
        );
        assert_eq!(o, Outcome::Fired, "{e}");
    }
}
