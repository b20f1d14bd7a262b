//! A load generator's result file, whichever tool wrote it: read with a size limit, the tool
//! recognised from the content (not from the command that ran it), and turned into the
//! [`ClientRun`] the checks judge.

use crate::{guidellm, vllm_bench, ClientRun};
use serde::de::IgnoredAny;
use serde::Deserialize;
use std::path::Path;

pub use crate::file::{parse_error, read_text, ResultError, MAX_RESULT_BYTES};

/// Only the key that tells the formats apart: GuideLLM's report holds `benchmarks`, a vLLM
/// result never does.
#[derive(Deserialize)]
struct Probe {
    benchmarks: Option<IgnoredAny>,
}

/// Which tool wrote `text`, from its first JSON value; vLLM's when it is not GuideLLM's (so a
/// malformed file is reported against the format it is most often meant to be).
fn is_guidellm(text: &str) -> bool {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Probe>()
        .next()
        .and_then(Result::ok)
        .is_some_and(|p| p.benchmarks.is_some())
}

/// Reads a result file of either tool into the run the checks judge.
pub fn read(path: &Path) -> Result<ClientRun, ResultError> {
    let text = read_text(path)?;
    from_text(&text, path)
}

/// [`read`] on text already read; `path` names the file in the run and in errors.
pub fn from_text(text: &str, path: &Path) -> Result<ClientRun, ResultError> {
    let file = path.display().to_string();
    if is_guidellm(text) {
        let report = guidellm::GuideLlmReport::parse(text)
            .map_err(|e| parse_error(path, guidellm::TOOL, Some(e)))?;
        let bench = report.single().map_err(|why| ResultError::Unjudgeable {
            path: file.clone(),
            why,
        })?;
        Ok(ClientRun::from_guidellm(&report, bench, &file))
    } else {
        let r = vllm_bench::VllmBenchResult::parse(text)
            .map_err(|e| parse_error(path, vllm_bench::TOOL, e))?;
        Ok(ClientRun::from_vllm_bench(&r, &file))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VLLM: &str = include_str!("../../../fixtures/vllm-bench-0.32/clean.json");
    const GUIDELLM: &str = include_str!("../../../fixtures/guidellm-0.8.1/clean.json");

    #[test]
    fn the_tool_is_told_by_the_content() {
        let v = from_text(VLLM, Path::new("run.json")).expect("vLLM's result reads");
        assert_eq!(v.tool, vllm_bench::TOOL);
        assert_eq!((v.completed, v.input_tokens, v.incomplete), (4, 512, None));
        let g = from_text(GUIDELLM, Path::new("benchmarks.json")).expect("GuideLLM's reads");
        assert_eq!(g.tool, guidellm::TOOL);
        assert_eq!(g.file, "benchmarks.json");
        assert_eq!((g.completed, g.failed, g.incomplete), (4, Some(0), Some(0)));
        assert_eq!((g.input_tokens, g.output_tokens), (256, Some(64)));
        assert_eq!(g.tokenizer.as_deref(), Some("smollm2-135m-hf"));
        assert_eq!((g.request_rate, g.max_concurrency), (None, Some(1)));
        assert!(g.duration_s > 0.0);
    }

    #[test]
    fn a_sweep_is_refused_by_name() {
        let mut v: serde_json::Value = serde_json::from_str(GUIDELLM).expect("json");
        if let Some(b) = v.get_mut("benchmarks").and_then(|b| b.as_array_mut()) {
            let one = b[0].clone();
            b.push(one);
        }
        let e = from_text(&v.to_string(), Path::new("sweep.json")).unwrap_err();
        assert!(matches!(e, ResultError::Unjudgeable { .. }), "{e}");
        assert!(
            e.to_string()
                .starts_with("sweep.json: the GuideLLM report holds 2 benchmarks"),
            "{e}"
        );
    }

    #[test]
    fn a_broken_report_names_its_format() {
        let broken = GUIDELLM.replacen("\"request_totals\"", "\"request_totals_\"", 1);
        let e = from_text(&broken, Path::new("b.json")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("b.json: not a GuideLLM 0.8 file: missing field `request_totals`"),
            "{e}"
        );
        let e = from_text("{\"duration\": 1}", Path::new("v.json")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("v.json: not a vllm bench serve 0.32 file"),
            "{e}"
        );
        assert!(matches!(
            from_text(" ", Path::new("e.json")),
            Err(ResultError::Empty { .. })
        ));
    }
}
