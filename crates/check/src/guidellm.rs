//! The report GuideLLM writes (`guidellm run --output kind=json,path=benchmarks.json`), read
//! into the fields the judgement uses. The names are GuideLLM 0.8.1's own, report schema
//! version 2: `GenerativeBenchmarksReport` in guidellm/benchmark/schemas/report.py and
//! `GenerativeBenchmark`, `GenerativeMetrics` beside it, and checked against a real report
//! (fixtures/guidellm-0.8.1). Fields this crate does not use are ignored.
//!
//! A report may hold several benchmarks (a sweep, or one per `--override` rate). check judges
//! one run against one recorded window, and the window's counters cannot be split between
//! them, so a report of more than one benchmark is refused ([`GuideLlmReport::single`]).

use serde::Deserialize;

/// The tool and the format version this module reads, as `ClientRun::tool` names it.
pub const TOOL: &str = "GuideLLM 0.8";

/// A GuideLLM JSON report.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct GuideLlmReport {
    pub metadata: Metadata,
    #[serde(default)]
    pub config: Option<ReportConfig>,
    pub benchmarks: Vec<Benchmark>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Metadata {
    /// The report schema's version: 2 in GuideLLM 0.8.
    pub version: u64,
    pub guidellm_version: Option<String>,
}

/// The run's arguments (`BenchmarkScenario`), for the tokenizer the client counted with.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ReportConfig {
    pub spec: Option<Spec>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Spec {
    pub tokenizer: Option<Tokenizer>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Tokenizer {
    pub model: Option<String>,
}

/// One benchmark: one scheduling strategy run to its constraint.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Benchmark {
    pub config: BenchmarkConfig,
    /// Seconds of the measured part (warm-up and cool-down left out).
    pub duration: f64,
    #[serde(default)]
    pub warmup_duration: f64,
    #[serde(default)]
    pub cooldown_duration: f64,
    pub metrics: Metrics,
    /// The requests kept per status (all of them unless `--metrics` samples them).
    pub requests: Option<Requests>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct BenchmarkConfig {
    pub strategy: Strategy,
}

/// The scheduling strategy: `synchronous`, `concurrent` (streams), `throughput`, `constant` and
/// `poisson` (rate, requests per second).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Strategy {
    #[serde(rename = "type_")]
    pub kind: String,
    pub rate: Option<f64>,
    pub max_concurrency: Option<u64>,
    pub streams: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Metrics {
    pub request_totals: RequestTotals,
    pub prompt_token_count: ByStatus,
    pub output_token_count: ByStatus,
}

/// Requests by status. `incomplete`: cancelled when a constraint ended the benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct RequestTotals {
    pub successful: u64,
    pub errored: u64,
    pub incomplete: u64,
    pub total: u64,
}

/// A `StatusDistributionSummary`: one distribution per request status.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ByStatus {
    pub successful: Distribution,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Distribution {
    pub count: u64,
    pub total_sum: f64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Requests {
    #[serde(default)]
    pub errored: Option<Vec<RequestStats>>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RequestStats {
    pub info: RequestInfo,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RequestInfo {
    pub error: Option<String>,
}

impl GuideLlmReport {
    pub fn parse(text: &str) -> Result<GuideLlmReport, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The one benchmark the report holds; the sentence why not otherwise.
    pub fn single(&self) -> Result<&Benchmark, String> {
        match self.benchmarks.as_slice() {
            [one] => Ok(one),
            [] => Err("the GuideLLM report holds no benchmark".into()),
            many => Err(format!(
                "the GuideLLM report holds {} benchmarks ({}): check judges one run against the \
                 window recorded over it, and a sweep's benchmarks share that window; run one \
                 profile per check (--profile kind=synchronous, or kind=constant,rate=R)",
                many.len(),
                many.iter()
                    .map(|b| b.config.strategy.kind.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// The tokenizer the run named (`--tokenizer kind=...,model=M`).
    pub fn tokenizer(&self) -> Option<&str> {
        self.config
            .as_ref()?
            .spec
            .as_ref()?
            .tokenizer
            .as_ref()?
            .model
            .as_deref()
    }
}

impl Benchmark {
    /// The distinct errors of the errored requests it kept, in first-seen order.
    pub fn distinct_errors(&self) -> Vec<String> {
        crate::file::distinct_errors(
            self.requests
                .iter()
                .flat_map(|r| r.errored.iter().flatten())
                .filter_map(|r| r.info.error.as_deref()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../../fixtures/guidellm-0.8.1/clean.json");

    #[test]
    fn reads_a_real_report() {
        let r = GuideLlmReport::parse(FIXTURE).expect("the fixture parses");
        assert_eq!(r.metadata.version, 2);
        assert_eq!(r.metadata.guidellm_version.as_deref(), Some("0.8.1"));
        assert_eq!(r.tokenizer(), Some("smollm2-135m-hf"));
        let b = r.single().expect("one benchmark");
        assert_eq!(b.config.strategy.kind, "synchronous");
        assert_eq!(b.config.strategy.max_concurrency, Some(1));
        assert_eq!(b.config.strategy.rate, None);
        let t = b.metrics.request_totals;
        assert_eq!(
            (t.successful, t.errored, t.incomplete, t.total),
            (4, 0, 0, 4)
        );
        // 64 synthetic tokens of text are 64 tokens to the server: 256 = 256 on its counter.
        assert_eq!(b.metrics.prompt_token_count.successful.total_sum, 256.0);
        assert_eq!(b.metrics.prompt_token_count.successful.count, 4);
        assert_eq!(b.metrics.output_token_count.successful.total_sum, 64.0);
        assert!(b.duration > 0.0);
        assert_eq!((b.warmup_duration, b.cooldown_duration), (0.0, 0.0));
        assert!(b.distinct_errors().is_empty());
    }

    fn with_benchmarks(n: usize) -> GuideLlmReport {
        let mut r = GuideLlmReport::parse(FIXTURE).expect("the fixture parses");
        let one = r.benchmarks[0].clone();
        r.benchmarks = vec![one; n];
        r
    }

    #[test]
    fn a_sweep_or_an_empty_report_is_refused() {
        let sweep = with_benchmarks(3).single().map(|_| ()).unwrap_err();
        assert!(
            sweep.contains("3 benchmarks (synchronous, synchronous, synchronous)"),
            "{sweep}"
        );
        assert!(sweep.contains("one profile per check"), "{sweep}");
        let none = with_benchmarks(0).single().map(|_| ()).unwrap_err();
        assert!(none.contains("no benchmark"), "{none}");
    }

    #[test]
    fn errored_requests_give_their_errors() {
        let text = FIXTURE.replacen(
            "\"errored\": []",
            "\"errored\": [{\"info\": {\"error\": \"HTTP 400\"}}, {\"info\": {\"error\": \" HTTP 400\"}}]",
            1,
        );
        assert_ne!(text, FIXTURE, "the fixture spells the empty list so");
        let r = GuideLlmReport::parse(&text).expect("parses");
        assert_eq!(
            r.benchmarks[0].distinct_errors(),
            vec!["HTTP 400".to_string()]
        );
    }

    #[test]
    fn a_field_of_the_wrong_type_is_refused() {
        let wrong = FIXTURE.replacen(
            "\"request_totals\": {\"successful\": 4",
            "\"request_totals\": {\"successful\": \"four\"",
            1,
        );
        assert_ne!(wrong, FIXTURE, "the fixture spells the count so");
        assert!(GuideLlmReport::parse(&wrong).is_err());
    }
}
