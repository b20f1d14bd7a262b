//! A load generator's result file, whichever tool wrote it: read with a size limit, the tool
//! recognised from the content (not from the command that ran it), and turned into the
//! [`ClientRun`] the checks judge.

use crate::{aiperf, guidellm, inference_perf, vllm_bench, ClientRun};
use serde::de::IgnoredAny;
use serde::Deserialize;
use std::path::Path;

pub use crate::file::{parse_error, read_text, ResultError, MAX_RESULT_BYTES};

/// Only the keys that tell the formats apart: GuideLLM's report holds `benchmarks`, AIPerf's
/// summary `aiperf_version`, inference-perf's `load_summary`; a vLLM result holds none.
#[derive(Deserialize)]
struct Probe {
    benchmarks: Option<IgnoredAny>,
    aiperf_version: Option<IgnoredAny>,
    load_summary: Option<IgnoredAny>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    VllmBench,
    GuideLlm,
    Aiperf,
    InferencePerf,
}

/// Which tool wrote `text`, from its first JSON value; vLLM's when it is none of the others
/// (so a malformed file is reported against the format it is most often meant to be).
fn format(text: &str) -> Format {
    let probe = serde_json::Deserializer::from_str(text)
        .into_iter::<Probe>()
        .next()
        .and_then(Result::ok);
    match probe {
        Some(p) if p.aiperf_version.is_some() => Format::Aiperf,
        Some(p) if p.load_summary.is_some() => Format::InferencePerf,
        Some(p) if p.benchmarks.is_some() => Format::GuideLlm,
        _ => Format::VllmBench,
    }
}

/// The AIPerf artifacts that are not its summary, by the names `aiperf profile` gives them.
const AIPERF_OTHERS: [&str; 4] = [
    "profile_export.jsonl",
    "profile_export_aiperf.csv",
    "inputs.json",
    "profile_export_console.txt",
];

/// The file to read for `path`: itself, or for a directory the summary in it (AIPerf's
/// artifact directory, inference-perf's report folder); the tools' other files are refused with
/// the file to give.
pub fn resolve(path: &Path) -> Result<std::borrow::Cow<'_, Path>, ResultError> {
    if path.is_dir() {
        for name in [aiperf::SUMMARY, inference_perf::SUMMARY] {
            let summary = path.join(name);
            if summary.is_file() {
                return Ok(summary.into());
            }
        }
        return Err(ResultError::Unjudgeable {
            path: path.display().to_string(),
            why: format!(
                "a directory without {} or {}: check reads a result file (vllm bench serve \
                 --save-result, GuideLLM's --output kind=json, AIPerf's {} or the \
                 --artifact-dir that holds it, inference-perf's {} or the report folder that \
                 holds it)",
                aiperf::SUMMARY,
                inference_perf::SUMMARY,
                aiperf::SUMMARY,
                inference_perf::SUMMARY
            ),
        });
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let inference_perf_other = inference_perf::OTHERS.contains(&name)
        || (name.starts_with("inference-perf") && name.ends_with(".yaml"));
    if inference_perf_other {
        return Err(ResultError::Unjudgeable {
            path: path.display().to_string(),
            why: format!(
                "inference-perf's {name}, not its summary: check reads {} (or the report \
                 folder that holds it), which has the run's span, token totals, failed count \
                 and errors",
                inference_perf::SUMMARY
            ),
        });
    }
    if AIPERF_OTHERS.contains(&name) {
        return Err(ResultError::Unjudgeable {
            path: path.display().to_string(),
            why: format!(
                "AIPerf's {name}, not its summary: check reads {} (or the --artifact-dir \
                 that holds it), which has the run's totals, failed count and errors",
                aiperf::SUMMARY
            ),
        });
    }
    Ok(path.into())
}

/// Reads a result file of any of the tools into the run the checks judge; a directory is read
/// as AIPerf's artifact directory (its `profile_export_aiperf.json`) or inference-perf's report
/// folder (its `summary_lifecycle_metrics.json`).
pub fn read(path: &Path) -> Result<ClientRun, ResultError> {
    let file = resolve(path)?;
    let text = read_text(&file)?;
    from_text(&text, &file)
}

/// [`read`] on text already read; `path` names the file in the run and in errors.
pub fn from_text(text: &str, path: &Path) -> Result<ClientRun, ResultError> {
    let file = path.display().to_string();
    match format(text) {
        Format::Aiperf => {
            let r = aiperf::AiperfExport::parse(text)
                .map_err(|e| parse_error(path, aiperf::TOOL, Some(e)))?;
            Ok(ClientRun::from_aiperf(&r, &file))
        }
        Format::InferencePerf => {
            let r = inference_perf::InferencePerfSummary::parse(text)
                .map_err(|e| parse_error(path, inference_perf::TOOL, Some(e)))?;
            Ok(ClientRun::from_inference_perf(&r, &file))
        }
        Format::GuideLlm => {
            let report = guidellm::GuideLlmReport::parse(text)
                .map_err(|e| parse_error(path, guidellm::TOOL, Some(e)))?;
            let bench = report.single().map_err(|why| ResultError::Unjudgeable {
                path: file.clone(),
                why,
            })?;
            Ok(ClientRun::from_guidellm(&report, bench, &file))
        }
        Format::VllmBench => {
            let r = vllm_bench::VllmBenchResult::parse(text)
                .map_err(|e| parse_error(path, vllm_bench::TOOL, e))?;
            Ok(ClientRun::from_vllm_bench(&r, &file))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VLLM: &str = include_str!("../../../fixtures/vllm-bench-0.32/clean.json");
    const GUIDELLM: &str = include_str!("../../../fixtures/guidellm-0.8.1/clean.json");
    const AIPERF: &str = include_str!("../../../fixtures/aiperf-0.13.0/clean.json");
    const INFERENCE_PERF: &str = include_str!("../../../fixtures/inference-perf-0.7.0/clean.json");

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

    #[test]
    fn aiperf_is_told_by_the_content() {
        let a = from_text(AIPERF, Path::new("profile_export_aiperf.json")).expect("reads");
        assert_eq!(a.tool, aiperf::TOOL);
        assert_eq!((a.completed, a.failed, a.incomplete), (4, Some(0), None));
        assert_eq!((a.input_tokens, a.output_tokens), (256, Some(63)));
        assert_eq!(a.tokenizer.as_deref(), Some("smollm2-135m-hf"));
        assert_eq!((a.request_rate, a.max_concurrency), (None, Some(1)));
        assert!(a.duration_s > 0.0);
        assert!(a.errors.is_empty());
    }

    #[test]
    fn inference_perf_is_told_by_the_content() {
        let r =
            from_text(INFERENCE_PERF, Path::new("summary_lifecycle_metrics.json")).expect("reads");
        assert_eq!(r.tool, inference_perf::TOOL);
        assert_eq!((r.completed, r.failed, r.incomplete), (4, Some(0), None));
        assert_eq!((r.input_tokens, r.output_tokens), (256, Some(64)));
        // The summary states no tokenizer, rate or concurrency (they are in config.yaml).
        assert_eq!(r.tokenizer, None);
        assert_eq!((r.request_rate, r.max_concurrency), (None, None));
        assert!((r.duration_s - 4.534171569001046).abs() < 1e-12);
        assert!(r.errors.is_empty());
        let d = from_text(
            include_str!("../../../fixtures/inference-perf-0.7.0/disconnect.json"),
            Path::new("d.json"),
        )
        .expect("reads");
        assert_eq!((d.completed, d.failed), (3, Some(1)));
        assert_eq!(d.errors, vec!["Connection Error: Server disconnected"]);
    }

    #[test]
    fn inference_perf_report_folder_is_read_by_its_summary() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join(inference_perf::SUMMARY), INFERENCE_PERF).expect("write");
        let r = read(dir.path()).expect("the folder reads");
        assert_eq!(r.tool, inference_perf::TOOL);
        assert!(r.file.ends_with(inference_perf::SUMMARY), "{}", r.file);
        for other in [
            "config.yaml",
            "validation.json",
            "inference-perf.partial.stage_0.yaml",
        ] {
            let path = dir.path().join(other);
            std::fs::write(&path, "{}").expect("write");
            let e = read(&path).unwrap_err();
            assert!(
                e.to_string()
                    .contains("not its summary: check reads summary_lifecycle_metrics.json"),
                "{e}"
            );
        }
        let broken = INFERENCE_PERF.replacen("\"successes\"", "\"successes_\"", 1);
        let e = from_text(&broken, Path::new("b.json")).unwrap_err();
        assert!(
            e.to_string().contains("inference-perf 0.7") && e.to_string().contains("successes"),
            "{e}"
        );
    }

    #[test]
    fn aiperf_artifact_directory_is_read_by_its_summary() {
        let dir = tempfile::tempdir().expect("temp dir");
        let e = read(dir.path()).unwrap_err();
        assert!(
            e.to_string()
                .contains("a directory without profile_export_aiperf.json"),
            "{e}"
        );
        std::fs::write(dir.path().join(aiperf::SUMMARY), AIPERF).expect("write");
        let a = read(dir.path()).expect("the directory reads");
        assert_eq!(a.tool, aiperf::TOOL);
        assert!(a.file.ends_with(aiperf::SUMMARY), "{}", a.file);
        let jsonl = dir.path().join("profile_export.jsonl");
        std::fs::write(&jsonl, "{}\n").expect("write");
        let e = read(&jsonl).unwrap_err();
        assert!(
            e.to_string()
                .contains("AIPerf's profile_export.jsonl, not its summary: check reads profile_export_aiperf.json"),
            "{e}"
        );
    }

    #[test]
    fn a_broken_aiperf_summary_names_its_format() {
        let broken = AIPERF.replacen(
            "\"aiperf_version\": \"0.13.0\"",
            "\"aiperf_version\": 13",
            1,
        );
        assert_ne!(broken, AIPERF);
        let e = from_text(&broken, Path::new("a.json")).unwrap_err();
        assert!(
            e.to_string().starts_with("a.json: not a AIPerf 0.13 file"),
            "{e}"
        );
    }
}
