//! The summary NVIDIA AIPerf writes after `aiperf profile` (`profile_export_aiperf.json` in its
//! artifact directory, `--artifact-dir`), read into the fields the judgement uses. The names are
//! AIPerf 0.13.0's own, export schema version 1.4: each metric is an object by its tag
//! (`request_count`, `total_isl`, ... in aiperf/metrics/types) with the aggregate in `avg`
//! for the run's totals, the run's configuration under `input_config`, the errors grouped in
//! `error_summary` (`ErrorDetailsCount` in aiperf/common/models/error_models.py), and checked
//! against real exports (fixtures/aiperf-0.13.0). Fields this crate does not use are ignored.
//!
//! The artifact directory also holds the per-request records (`profile_export.jsonl`), a CSV of
//! the same summary and the inputs sent; check reads the summary alone: it holds the totals,
//! the failed count and the distinct errors.

use serde::Deserialize;

/// The tool and the format version this module reads, as `ClientRun::tool` names it.
pub const TOOL: &str = "AIPerf 0.13";

/// The summary's file name in the artifact directory.
pub const SUMMARY: &str = "profile_export_aiperf.json";

/// An AIPerf `profile_export_aiperf.json`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct AiperfExport {
    pub schema_version: Option<String>,
    pub aiperf_version: String,
    /// Successful requests (`RequestCountMetric`: the valid results the token and latency
    /// figures are computed over).
    pub request_count: Option<Total>,
    /// Failed requests; absent when none failed.
    pub error_request_count: Option<Total>,
    /// Seconds from the first request sent to the last response received.
    pub benchmark_duration: Option<Total>,
    /// Prompt tokens of the successful requests, by the client's tokenizer over the prompt
    /// text (a chat template the server applies is not in it), or the server's `usage` with
    /// `--use-server-token-count`.
    pub total_isl: Option<Total>,
    /// Output tokens (reasoning included) of the successful requests.
    pub total_osl: Option<Total>,
    #[serde(default)]
    pub was_cancelled: bool,
    #[serde(default)]
    pub error_summary: Vec<ErrorCount>,
    pub input_config: Option<InputConfig>,
}

/// A run-level metric: its one value is `avg`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Total {
    pub avg: f64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ErrorCount {
    pub error_details: ErrorDetails,
    pub count: u64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ErrorDetails {
    pub code: Option<i64>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct InputConfig {
    pub tokenizer: Option<TokenizerConfig>,
    #[serde(default)]
    pub phases: Vec<Phase>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TokenizerConfig {
    pub name: Option<String>,
}

/// One phase of the run (`BasePhaseConfig` in aiperf/config/phases.py): `warmup` or
/// `profiling` by `kind`, scheduled by `type` (`concurrency`, `poisson`, `constant`, ...).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Phase {
    pub kind: Option<String>,
    #[serde(rename = "type")]
    pub schedule: Option<String>,
    pub concurrency: Option<u64>,
    /// Requests per second, for the rate-controlled types.
    pub rate: Option<f64>,
}

impl AiperfExport {
    pub fn parse(text: &str) -> Result<AiperfExport, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The profiling phase: the one whose requests the totals count (a warm-up phase's are
    /// left out of them).
    pub fn profiling(&self) -> Option<&Phase> {
        self.input_config
            .as_ref()?
            .phases
            .iter()
            .find(|p| p.kind.as_deref() == Some("profiling"))
    }

    /// Whether a warm-up phase ran before the profiling one.
    pub fn has_warmup(&self) -> bool {
        self.input_config
            .as_ref()
            .is_some_and(|c| c.phases.iter().any(|p| p.kind.as_deref() == Some("warmup")))
    }

    /// The tokenizer the client counted with (`--tokenizer`).
    pub fn tokenizer(&self) -> Option<&str> {
        self.input_config
            .as_ref()?
            .tokenizer
            .as_ref()?
            .name
            .as_deref()
    }

    /// The distinct errors, as `HTTP code type: message`, in the summary's order.
    pub fn distinct_errors(&self) -> Vec<String> {
        let texts: Vec<String> = self
            .error_summary
            .iter()
            .map(|e| {
                let d = &e.error_details;
                let head = [
                    d.code.map(|c| format!("HTTP {c}")),
                    d.kind.clone().filter(|k| !k.is_empty()),
                ]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
                if head.is_empty() {
                    d.message.clone()
                } else {
                    format!("{head}: {}", d.message)
                }
            })
            .collect();
        crate::file::distinct_errors(texts.iter().map(String::as_str))
    }
}

/// A whole count stated as a float (`avg` of a count): rounded, never negative.
pub fn count(t: Option<Total>) -> u64 {
    t.map(|t| t.avg.max(0.0).round() as u64).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLEAN: &str = include_str!("../../../fixtures/aiperf-0.13.0/clean.json");
    const CHAT: &str = include_str!("../../../fixtures/aiperf-0.13.0/chat.json");

    #[test]
    fn reads_a_real_export() {
        let r = AiperfExport::parse(CLEAN).expect("the fixture parses");
        assert_eq!(r.schema_version.as_deref(), Some("1.4"));
        assert_eq!(r.aiperf_version, "0.13.0");
        assert_eq!(r.tokenizer(), Some("smollm2-135m-hf"));
        let p = r.profiling().expect("a profiling phase");
        assert_eq!(p.schedule.as_deref(), Some("concurrency"));
        assert_eq!((p.concurrency, p.rate), (Some(1), None));
        assert!(!r.has_warmup());
        assert_eq!(count(r.request_count), 4);
        assert_eq!(count(r.error_request_count), 0);
        // 64 synthetic tokens of text are 64 tokens to the server: 256 = 256 on its counter.
        assert_eq!(count(r.total_isl), 256);
        // AIPerf counts output by re-tokenizing the streamed text: 63 here, where the server's
        // `usage` and its counter say 64 (one request's 16 tokens re-tokenize as 15).
        assert_eq!(count(r.total_osl), 63);
        assert!(r.benchmark_duration.is_some_and(|d| d.avg > 0.0));
        assert!(!r.was_cancelled);
        assert!(r.distinct_errors().is_empty());
    }

    #[test]
    fn a_chat_export_counts_the_prompt_text_alone() {
        // The chat template adds 30 tokens a prompt on the server (its `usage`: 94 a request);
        // AIPerf's ISL is its own count of the 64 tokens of text.
        let r = AiperfExport::parse(CHAT).expect("the fixture parses");
        assert_eq!(count(r.total_isl), 256);
        let v: serde_json::Value = serde_json::from_str(CHAT).expect("json");
        assert_eq!(v["total_usage_prompt_tokens"]["avg"], 376.0);
    }

    #[test]
    fn errors_are_named_once_each() {
        let text = CLEAN.replacen(
            "\"error_summary\": []",
            "\"error_summary\": [{\"error_details\": {\"code\": 400, \"type\": \"Bad Request\", \
             \"message\": \"context too long\"}, \"count\": 3}, {\"error_details\": {\"message\": \
             \"timeout\"}, \"count\": 1}], \"error_request_count\": {\"unit\": \"requests\", \
             \"avg\": 4.0}",
            1,
        );
        assert_ne!(text, CLEAN, "the fixture spells the empty list so");
        let r = AiperfExport::parse(&text).expect("parses");
        assert_eq!(
            r.distinct_errors(),
            vec![
                "HTTP 400 Bad Request: context too long".to_string(),
                "timeout".to_string()
            ]
        );
        assert_eq!(count(r.error_request_count), 4);
    }

    #[test]
    fn a_field_of_the_wrong_type_is_refused() {
        let wrong = CLEAN.replacen(
            "\"aiperf_version\": \"0.13.0\"",
            "\"aiperf_version\": 13",
            1,
        );
        assert_ne!(wrong, CLEAN, "the fixture spells the version so");
        assert!(AiperfExport::parse(&wrong).is_err());
    }

    #[test]
    fn a_chat_run_is_judged_by_the_template_it_leaves_out() {
        use crate::{findings, CheckKind, ClientRun, Outcome};
        use engines::{Engine, Sample};
        // The chat run's window as llama-server counted it (fixtures/aiperf-0.13.0/SOURCES.md):
        // 304 prompt tokens computed, 72 served from its cache, 64 generated.
        let samples: Vec<Sample> = [(0.0, 0.0, 0.0), (304.0, 72.0, 64.0)]
            .iter()
            .enumerate()
            .map(|(i, &(p, c, g))| {
                let mut s = Sample::empty(i as f64, Engine::LlamaCpp);
                s.prompt_tokens = Some(p);
                s.cached_prompt_tokens = Some(c);
                s.generation_tokens_credited = Some(g);
                s
            })
            .collect();
        let r = AiperfExport::parse(CHAT).expect("the fixture parses");
        let run = ClientRun::from_aiperf(&r, "chat.json");
        let (_, f) = findings(&samples, Engine::LlamaCpp, Some(&run));
        let prompt = f
            .iter()
            .find(|f| f.check == CheckKind::PromptTokens)
            .expect("reported");
        assert_eq!(prompt.outcome, Outcome::Fired, "{}", prompt.evidence);
        assert!(
            prompt.evidence.contains("chat template"),
            "{}",
            prompt.evidence
        );
        let cache = f
            .iter()
            .find(|f| f.check == CheckKind::CacheContamination)
            .expect("reported");
        assert_eq!(cache.outcome, Outcome::Fired, "{}", cache.evidence);
    }
}
