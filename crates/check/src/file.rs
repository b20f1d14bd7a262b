//! Reading a result file, for every tool's parser: the size limit and the errors. A leaf, so the
//! parsers and the module that tells them apart can all use it.

use std::path::Path;

/// Why a result file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ResultError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: not a {tool} file: {source}")]
    Json {
        path: String,
        tool: &'static str,
        source: serde_json::Error,
    },
    #[error("{path}: the file is empty")]
    Empty { path: String },
    #[error("{path}: larger than {limit} bytes, more than a result file holds")]
    TooLarge { path: String, limit: u64 },
    /// A file that parses but that check cannot judge as one run (a GuideLLM sweep).
    #[error("{path}: {why}")]
    Unjudgeable { path: String, why: String },
}

/// The most a result file is read to: a summary is a few kB, and the per-request detail
/// (`vllm bench serve --save-detailed`, GuideLLM's sampled requests) stays far under this for
/// runs of thousands of requests. Past it the file is refused rather than read without end
/// (`/dev/zero`).
pub const MAX_RESULT_BYTES: u64 = 256 << 20;

/// The whole file, refused past [`MAX_RESULT_BYTES`].
pub fn read_text(path: &Path) -> Result<String, ResultError> {
    use std::io::Read;
    let name = path.display().to_string();
    let io = |source| ResultError::Io {
        path: name.clone(),
        source,
    };
    let mut text = String::new();
    std::fs::File::open(path)
        .map_err(io)?
        .take(MAX_RESULT_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(io)?;
    if text.len() as u64 > MAX_RESULT_BYTES {
        return Err(ResultError::TooLarge {
            path: name,
            limit: MAX_RESULT_BYTES,
        });
    }
    Ok(text)
}

/// A parser's `Err(None)` (no JSON value at all) or `Err(Some(e))`, as a [`ResultError`].
pub fn parse_error(path: &Path, tool: &'static str, e: Option<serde_json::Error>) -> ResultError {
    let path = path.display().to_string();
    match e {
        Some(source) => ResultError::Json { path, tool, source },
        None => ResultError::Empty { path },
    }
}

/// The distinct error texts among `errors`, trimmed, in first-seen order (a tool repeats one
/// error per failed request).
pub fn distinct_errors<'a>(errors: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for e in errors {
        let e = e.trim();
        if !e.is_empty() && !seen.iter().any(|s| s == e) {
            seen.push(e.to_string());
        }
    }
    seen
}
