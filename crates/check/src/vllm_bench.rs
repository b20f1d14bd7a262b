//! The result file `vllm bench serve --save-result` writes, read into the fields the judgement
//! uses. The names are vLLM 0.32.0's own: `result_json` and the `result` dict of `benchmark()`
//! in vllm/benchmarks/serve.py
//! (<https://github.com/vllm-project/vllm/blob/v0.32.0/vllm/benchmarks/serve.py>). Fields this
//! crate does not use are ignored, so a newer vLLM that adds some still reads.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// The tool and the format version this module reads, as `ClientRun::tool` names it.
pub const TOOL: &str = "vllm bench serve 0.32";

/// One `vllm bench serve` run as its result file records it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct VllmBenchResult {
    /// `--backend` (`openai`, `openai-chat`, `vllm` ...).
    pub backend: Option<String>,
    /// The model name the requests carried.
    pub model_id: Option<String>,
    /// The tokenizer the client counted prompt tokens with (`--tokenizer`, else the model).
    pub tokenizer_id: Option<String>,
    pub num_prompts: Option<u64>,
    /// Requests per second, or the string `"inf"` (all at once).
    pub request_rate: Option<RequestRate>,
    pub max_concurrency: Option<u64>,
    /// Seconds from the first request sent to the last answered.
    pub duration: f64,
    /// Requests that succeeded.
    pub completed: u64,
    /// Requests that failed; absent in an embedding run's result.
    #[serde(default)]
    pub failed: Option<u64>,
    /// Prompt tokens of the completed requests, by the client's tokenizer.
    pub total_input_tokens: u64,
    /// Output tokens of the completed requests (the server's `usage` when it sends one, else
    /// the client's tokenizer over the text); absent in an embedding run's result.
    #[serde(default)]
    pub total_output_tokens: Option<u64>,
    /// Each request's error (empty when it succeeded); only with `--save-detailed`.
    #[serde(default)]
    pub errors: Option<Vec<Option<String>>>,
}

/// `request_rate` as vLLM writes it: a number, or `"inf"`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestRate {
    PerSecond(f64),
    Named(Infinite),
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Infinite {
    #[serde(rename = "inf")]
    Inf,
}

pub use crate::file::{ResultError, MAX_RESULT_BYTES};

impl VllmBenchResult {
    /// Reads a result file. `--append-result` appends one JSON object per run, a line each: the
    /// last one is the run just made.
    pub fn read(path: &Path) -> Result<VllmBenchResult, ResultError> {
        let text = crate::file::read_text(path)?;
        Self::parse(&text).map_err(|e| crate::file::parse_error(path, TOOL, e))
    }

    /// The last JSON object of `text`; `Err(None)` when it holds none.
    pub fn parse(text: &str) -> Result<VllmBenchResult, Option<serde_json::Error>> {
        let mut last = None;
        for value in serde_json::Deserializer::from_str(text).into_iter::<VllmBenchResult>() {
            last = Some(value.map_err(Some)?);
        }
        last.ok_or(None)
    }

    /// The distinct errors the detailed result holds, in first-seen order.
    pub fn distinct_errors(&self) -> Vec<String> {
        crate::file::distinct_errors(self.errors.iter().flatten().flatten().map(String::as_str))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../../fixtures/vllm-bench-0.32/clean.json");

    #[test]
    fn reads_a_real_result() {
        let r = VllmBenchResult::parse(FIXTURE).expect("the fixture parses");
        assert_eq!(r.backend.as_deref(), Some("openai"));
        assert_eq!(r.num_prompts, Some(4));
        assert_eq!(r.request_rate, Some(RequestRate::Named(Infinite::Inf)));
        assert_eq!(r.max_concurrency, None);
        assert_eq!((r.completed, r.failed), (4, Some(0)));
        assert_eq!(r.total_input_tokens, 512);
        assert_eq!(r.total_output_tokens, Some(64));
        assert!(r.duration > 0.0);
        assert_eq!(r.errors, None, "no --save-detailed");
    }

    #[test]
    fn appended_results_read_the_last() {
        let two = format!(
            "{}\n{}",
            FIXTURE.trim(),
            FIXTURE
                .trim()
                .replace("\"completed\": 4", "\"completed\": 5")
        );
        assert!(
            two.contains("\"completed\": 5"),
            "the fixture spells the field so"
        );
        assert_eq!(
            VllmBenchResult::parse(&two).map(|r| r.completed).ok(),
            Some(5)
        );
    }

    #[test]
    fn a_numeric_rate_and_detailed_errors() {
        let text = r#"{"request_rate": 4.0, "duration": 2.5, "completed": 1, "failed": 2,
            "total_input_tokens": 10, "total_output_tokens": 3,
            "errors": ["", "Bad Request", "Bad Request"]}"#;
        let r = VllmBenchResult::parse(text).expect("parses");
        assert_eq!(r.request_rate, Some(RequestRate::PerSecond(4.0)));
        assert_eq!(r.distinct_errors(), vec!["Bad Request".to_string()]);
    }

    #[test]
    fn endless_and_wrong_files_are_refused() {
        let zero = VllmBenchResult::read(Path::new("/dev/zero"));
        assert!(
            matches!(zero, Err(ResultError::TooLarge { .. })),
            "{zero:?}"
        );
        let dir = VllmBenchResult::read(Path::new("/"));
        assert!(matches!(dir, Err(ResultError::Io { .. })), "{dir:?}");
    }

    #[test]
    fn bad_input_is_an_error_with_a_position() {
        assert!(matches!(VllmBenchResult::parse(""), Err(None)));
        let e = VllmBenchResult::parse("{\"duration\": 1.0,")
            .err()
            .flatten();
        assert!(e.is_some_and(|e| e.line() == 1));
        // A field of the wrong type is refused, not read as zero.
        let wrong = r#"{"duration": 1, "completed": "six", "total_input_tokens": 1}"#;
        assert!(VllmBenchResult::parse(wrong).is_err());
    }
}
