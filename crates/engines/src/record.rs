//! Recordings: every scrape of a window as JSON lines, raw bodies included, so a replay re-parses
//! with the current adapter. The format is documented in docs/recording.md.
//!
//! ```text
//! {"format":"headroom.recording/1","url":"http://127.0.0.1:8080","interval_s":1.0,"started":1738217400.1,"models":{...},"props":{...}}
//! {"t":1738217401.12,"ok":true,"elapsed_s":0.004,"body":"# HELP ...\n"}
//! {"t":1738217402.13,"ok":false,"error":"http://127.0.0.1:8080/metrics: no answer within 2.0 s (timeout)"}
//! ```

use crate::config::{ConfigError, EngineConfig, Source};
use crate::scrape::{
    metrics_parse_error, version_from_value, ModelsInfo, Props, RawScrape, ScrapeError,
};
use crate::{Parsed, Sample};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

pub const RECORDING_FORMAT: &str = "headroom.recording/1";

/// The first line of a recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordingHeader {
    /// Always [`RECORDING_FORMAT`].
    pub format: String,
    /// The server root scraped (`/metrics` is appended).
    pub url: String,
    /// Scrape interval asked for, seconds.
    pub interval_s: f64,
    /// Unix seconds when recording began.
    pub started: f64,
    /// `--engine-args` as typed, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_args: Option<String>,
    /// The engine's argv from `/proc/<pid>/cmdline`, when `--pid` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmdline: Option<Vec<String>>,
    /// vLLM runs on its CPU platform (true) or another (false), as vLLM's own platform
    /// detection decides it from the process on this host ([`crate::process::vllm_on_cpu`]);
    /// absent when not read. Some engine defaults differ on CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vllm_on_cpu: Option<bool>,
    /// Raw JSON answers of `GET /v1/models`, `/props`, `/version`, `/slots` (absent when the
    /// endpoint failed; the failure is in `endpoint_errors`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub models: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub props: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<Value>,
    /// Endpoint path → error message, for endpoints that were tried and failed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub endpoint_errors: BTreeMap<String, String>,
    /// Anything else the writer wants kept (flags of the run ...); preserved on read.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl RecordingHeader {
    pub fn new(url: &str, interval_s: f64, started: f64) -> RecordingHeader {
        RecordingHeader {
            format: RECORDING_FORMAT.to_string(),
            url: url.to_string(),
            interval_s,
            started,
            engine_args: None,
            cmdline: None,
            vllm_on_cpu: None,
            models: None,
            props: None,
            version: None,
            slots: None,
            endpoint_errors: BTreeMap::new(),
            extra: BTreeMap::new(),
        }
    }

    pub fn models_info(&self) -> Option<Result<ModelsInfo, String>> {
        self.models.as_ref().map(ModelsInfo::from_value)
    }
    pub fn props_info(&self) -> Option<Result<Props, String>> {
        self.props.as_ref().map(Props::from_value)
    }
    pub fn version_string(&self) -> Option<Result<String, String>> {
        self.version.as_ref().map(version_from_value)
    }

    /// The config every source in the header gives, merged (see [`EngineConfig::gather`]).
    pub fn config(&self, first_sample: Option<&Sample>) -> (EngineConfig, Vec<ConfigError>) {
        let models = self.models_info().and_then(Result::ok);
        let props = self.props_info().and_then(Result::ok);
        let version = self.version_string().and_then(Result::ok);
        EngineConfig::gather(
            self.engine_args.as_deref(),
            self.cmdline.as_deref(),
            first_sample,
            models.as_ref(),
            props.as_ref(),
            version.as_deref(),
        )
    }
}

/// One scrape line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScrapeRecord {
    /// Unix seconds when the scrape completed (or failed).
    pub t: f64,
    /// The HTTP fetch succeeded and `body` holds the /metrics text. Whether the body parses is
    /// decided at replay, by the current parser.
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_s: Option<f64>,
}

impl ScrapeRecord {
    /// The record of a fetch outcome; a failure is stamped with `t_failed`.
    pub fn from_fetch(r: &Result<RawScrape, ScrapeError>, t_failed: f64) -> ScrapeRecord {
        match r {
            Ok(raw) => ScrapeRecord {
                t: raw.t,
                ok: true,
                error: None,
                body: Some(raw.body.clone()),
                elapsed_s: Some(raw.elapsed_s),
            },
            Err(e) => ScrapeRecord {
                t: t_failed,
                ok: false,
                error: Some(e.to_string()),
                body: None,
                elapsed_s: None,
            },
        }
    }

    /// Re-parses the body with today's parser and adapter.
    pub fn parse(&self, url: &str) -> Result<Parsed, String> {
        match (&self.body, self.ok) {
            (Some(body), true) => crate::parse_metrics(body, self.t).map_err(|e| {
                metrics_parse_error(&format!("{}/metrics", url.trim_end_matches('/')), e)
                    .to_string()
            }),
            _ => Err(self
                .error
                .clone()
                .unwrap_or_else(|| "scrape failed (no error recorded)".to_string())),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RecordError {
    #[error("{path}: {msg}")]
    Io { path: String, msg: String },
    #[error("{path}: empty file, not a recording")]
    Empty { path: String },
    #[error("{path}: line 1 is not a recording header: {msg}")]
    BadHeader { path: String, msg: String },
    #[error("{path}: format {found:?} is not {RECORDING_FORMAT:?}")]
    UnsupportedFormat { path: String, found: String },
    #[error("{path}: line {line} (byte {offset}): {msg}")]
    BadLine {
        path: String,
        line: usize,
        offset: usize,
        msg: String,
    },
}

/// Appends scrapes to a recording, one flushed line each, so a crash loses at most the line
/// being written.
pub struct Recorder {
    file: File,
    path: PathBuf,
    lines: usize,
}

impl Recorder {
    /// Creates (truncates) `path` and writes the header line.
    pub fn create(
        path: impl AsRef<Path>,
        header: &RecordingHeader,
    ) -> Result<Recorder, RecordError> {
        let path = path.as_ref().to_path_buf();
        let io = |e: std::io::Error| RecordError::Io {
            path: path.display().to_string(),
            msg: e.to_string(),
        };
        let file = File::create(&path).map_err(io)?;
        let mut r = Recorder {
            file,
            path,
            lines: 0,
        };
        r.write_line(&serde_json::to_value(header).map_err(|e| RecordError::Io {
            path: r.path.display().to_string(),
            msg: e.to_string(),
        })?)?;
        Ok(r)
    }

    fn write_line(&mut self, v: &Value) -> Result<(), RecordError> {
        let mut line = serde_json::to_string(v).map_err(|e| RecordError::Io {
            path: self.path.display().to_string(),
            msg: e.to_string(),
        })?;
        line.push('\n');
        // One write per line, then flush: a reader never sees half a line unless a crash or a
        // full disk cut it, and then read_recording reports it.
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|e| RecordError::Io {
                path: self.path.display().to_string(),
                msg: e.to_string(),
            })?;
        self.lines += 1;
        Ok(())
    }

    pub fn record(&mut self, rec: &ScrapeRecord) -> Result<(), RecordError> {
        let v = serde_json::to_value(rec).map_err(|e| RecordError::Io {
            path: self.path.display().to_string(),
            msg: e.to_string(),
        })?;
        self.write_line(&v)
    }

    /// Lines written, header included.
    pub fn lines(&self) -> usize {
        self.lines
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A last line that could not be read (a recording cut while a line was being written).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TailCut {
    /// 1-based line number.
    pub line: usize,
    /// Byte offset where the line starts.
    pub offset: usize,
    pub bytes: usize,
    pub msg: String,
}

/// A recording read back.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    pub header: RecordingHeader,
    pub scrapes: Vec<ScrapeRecord>,
    /// Set when the last line was cut and skipped.
    pub truncated_tail: Option<TailCut>,
}

impl Recording {
    /// Every scrape re-parsed with today's parser: (t, sample or why not).
    pub fn replay(&self) -> Vec<(f64, Result<Parsed, String>)> {
        self.scrapes
            .iter()
            .map(|s| (s.t, s.parse(&self.header.url)))
            .collect()
    }
}

/// Reads a recording. Only the last line may be damaged (reported in `truncated_tail`); a bad
/// line anywhere else is an error naming the line and byte offset.
pub fn read_recording(path: impl AsRef<Path>) -> Result<Recording, RecordError> {
    let path = path.as_ref();
    let shown = path.display().to_string();
    let io = |msg: String| RecordError::Io {
        path: shown.clone(),
        msg,
    };
    let mut file = std::fs::File::open(path).map_err(|e| io(e.to_string()))?;
    let bytes = read_lines_bounded(&mut file, MAX_LINE_BYTES).map_err(io)?;
    parse_recording(&bytes, &shown)
}

/// Longest line a recording may hold: a header or one scrape with its `/metrics` body (real
/// bodies are 10-500 KB). A longer line is not a recording; refusing it bounds memory on a
/// file of zeros, a device, or a huge file with no newline.
pub const MAX_LINE_BYTES: usize = 32 << 20;

/// Reads all of `r`, failing at once if it does not start like JSON lines (its first
/// non-blank byte is not `{`) or once any line grows past `max_line` bytes.
fn read_lines_bounded(r: &mut impl std::io::Read, max_line: usize) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut line_start = 0;
    let mut chunk = vec![0u8; 1 << 20];
    let mut checked_start = false;
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.to_string()),
        };
        let from = bytes.len();
        bytes.extend_from_slice(&chunk[..n]);
        if !checked_start {
            if let Some(&b) = bytes.iter().find(|b| !b.is_ascii_whitespace()) {
                if b != b'{' {
                    return Err(format!(
                        "not a recording: it starts with byte {b:#04x}, expected a JSON line ('{{')"
                    ));
                }
                checked_start = true;
            }
        }
        if let Some(nl) = bytes[from..].iter().rposition(|&b| b == b'\n') {
            line_start = from + nl + 1;
        }
        if bytes.len() - line_start > max_line {
            return Err(format!(
                "a line at byte {line_start} is longer than {} MiB: not a recording",
                max_line >> 20
            ));
        }
    }
}

/// [`read_recording`] on bytes already in memory; `name` is used in errors.
pub fn parse_recording(bytes: &[u8], name: &str) -> Result<Recording, RecordError> {
    let mut lines: Vec<(usize, usize, &[u8])> = Vec::new(); // (line no, offset, bytes)
    let mut offset = 0;
    for (i, l) in bytes.split(|b| *b == b'\n').enumerate() {
        lines.push((i + 1, offset, l));
        offset += l.len() + 1;
    }
    // The final piece after the last '\n' is empty in a whole file.
    let ends_with_newline = bytes.last() == Some(&b'\n');
    if ends_with_newline {
        lines.pop();
    }
    lines.retain(|(_, _, l)| !l.iter().all(u8::is_ascii_whitespace));
    let Some(&(_, _, first)) = lines.first() else {
        return Err(RecordError::Empty { path: name.into() });
    };
    let header: RecordingHeader =
        serde_json::from_slice(first).map_err(|e| RecordError::BadHeader {
            path: name.into(),
            msg: e.to_string(),
        })?;
    if header.format != RECORDING_FORMAT {
        return Err(RecordError::UnsupportedFormat {
            path: name.into(),
            found: header.format,
        });
    }
    let n = lines.len();
    let mut scrapes = Vec::with_capacity(n.saturating_sub(1));
    let mut truncated_tail = None;
    for (k, &(line, off, l)) in lines.iter().enumerate().skip(1) {
        match serde_json::from_slice::<ScrapeRecord>(l) {
            Ok(r) => scrapes.push(r),
            Err(e) if k + 1 == n => {
                truncated_tail = Some(TailCut {
                    line,
                    offset: off,
                    bytes: l.len(),
                    msg: e.to_string(),
                });
            }
            Err(e) => {
                return Err(RecordError::BadLine {
                    path: name.into(),
                    line,
                    offset: off,
                    msg: e.to_string(),
                })
            }
        }
    }
    Ok(Recording {
        header,
        scrapes,
        truncated_tail,
    })
}

impl EngineConfig {
    /// Merges every config source there is, most trusted winning (module docs of
    /// [`crate::config`]): `--engine-args`, a process argv, the sample's `cache_config_info`
    /// labels (with its V0/V1 generation), `/v1/models`, `/props`, `/version`. Command lines
    /// that cannot be parsed are returned as errors beside the config built from the rest.
    pub fn gather(
        engine_args: Option<&str>,
        cmdline: Option<&[String]>,
        sample: Option<&Sample>,
        models: Option<&ModelsInfo>,
        props: Option<&Props>,
        version: Option<&str>,
    ) -> (EngineConfig, Vec<ConfigError>) {
        let mut c = EngineConfig::default();
        let mut errors = Vec::new();
        if let Some(a) = engine_args {
            match EngineConfig::from_command_line(a, Source::EngineArgs) {
                Ok(x) => c.merge(x),
                Err(e) => errors.push(e),
            }
        }
        if let Some(argv) = cmdline {
            match EngineConfig::from_argv(argv, Source::ProcessCmdline) {
                Ok(x) => c.merge(x),
                Err(e) => errors.push(e),
            }
        }
        if let Some(s) = sample {
            if !s.config_labels.is_empty() {
                c.merge(EngineConfig::from_cache_config_labels(&s.config_labels));
            }
            if c.engine.is_none() {
                c.engine = Some(s.engine);
            }
            c.apply_generation(s.engine_generation.as_deref());
            if c.model.is_none() {
                if let Some(m) = &s.model {
                    c.served_model_name
                        .get_or_insert_with(|| crate::Known::new(m.clone(), Source::MetricsLabels));
                }
            }
        }
        if let Some(m) = models {
            c.merge(EngineConfig::from_models(m));
        }
        if let Some(p) = props {
            c.merge(EngineConfig::from_props(p));
        }
        if let Some(v) = version {
            c.merge(EngineConfig::from_version(v));
        }
        (c, errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> RecordingHeader {
        let mut h = RecordingHeader::new("http://127.0.0.1:9", 0.25, 1000.0);
        h.engine_args = Some("vllm serve Qwen/Qwen2.5-Coder-1.5B-Instruct --max-num-seqs 8".into());
        h.models = Some(
            serde_json::json!({"data":[{"id":"Qwen/Qwen2.5-Coder-1.5B-Instruct","max_model_len":32768}]}),
        );
        h.endpoint_errors.insert("/props".into(), "HTTP 404".into());
        h.extra
            .insert("gpu".into(), Value::String("H100-SXM".into()));
        h
    }

    #[test]
    fn write_read_replay_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        let mut r = Recorder::create(&path, &header()).unwrap();
        let body = "vllm:num_requests_running{model_name=\"m\"} 2\nvllm:generation_tokens_total{model_name=\"m\"} 10\n";
        r.record(&ScrapeRecord::from_fetch(
            &Ok(RawScrape {
                t: 1001.0,
                body: body.into(),
                elapsed_s: 0.003,
            }),
            0.0,
        ))
        .unwrap();
        r.record(&ScrapeRecord::from_fetch(
            &Err(ScrapeError::Timeout {
                url: "http://127.0.0.1:9/metrics".into(),
                after_s: 2.0,
            }),
            1002.0,
        ))
        .unwrap();
        r.record(&ScrapeRecord {
            t: 1003.0,
            ok: true,
            error: None,
            body: Some("<html>proxy</html>".into()),
            elapsed_s: None,
        })
        .unwrap();
        assert_eq!(r.lines(), 4);
        drop(r);

        let rec = read_recording(&path).unwrap();
        assert_eq!(rec.header, header());
        assert_eq!(rec.truncated_tail, None);
        assert_eq!(rec.scrapes.len(), 3);
        let replay = rec.replay();
        let s = &replay[0].1.as_ref().unwrap().sample;
        assert_eq!(
            (s.t, s.running, s.generation_tokens),
            (1001.0, Some(2.0), Some(10.0))
        );
        assert!(replay[1].1.as_ref().unwrap_err().contains("timeout"));
        assert!(replay[2].1.as_ref().unwrap_err().contains("HTML"));

        let (cfg, errs) = rec.header.config(Some(s));
        assert!(errs.is_empty());
        assert_eq!(
            cfg.max_num_seqs.map(|k| (k.value, k.source)),
            Some((8, Source::EngineArgs))
        );
        assert_eq!(
            cfg.max_model_len.map(|k| (k.value, k.source)),
            Some((32768, Source::ModelsEndpoint))
        );
    }

    #[test]
    fn hostile_files_are_refused_with_bounded_memory() {
        // Zeros (a sparse file, /dev/zero): refused at the first byte, not read to the end.
        let mut zeros = std::io::Read::take(std::io::repeat(0), 10 << 30);
        let e = read_lines_bounded(&mut zeros, MAX_LINE_BYTES).unwrap_err();
        assert!(e.contains("starts with byte 0x00"), "{e}");
        // A JSON start with no newline, ever: refused once the line passes the limit.
        let mut endless = std::io::Read::chain(&b"{\"format\":\""[..], std::io::repeat(b'a'));
        let e = read_lines_bounded(&mut endless, 1 << 20).unwrap_err();
        assert!(e.contains("longer than 1 MiB"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let e = read_recording(dir.path()).unwrap_err().to_string();
        assert!(e.contains(&dir.path().display().to_string()), "{e}");
    }

    #[test]
    fn a_cut_last_line_is_reported_and_a_bad_middle_line_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut.jsonl");
        let mut r = Recorder::create(&path, &header()).unwrap();
        for t in 0..3 {
            r.record(&ScrapeRecord {
                t: t as f64,
                ok: true,
                error: None,
                body: Some("vllm:num_requests_running 1\n".into()),
                elapsed_s: None,
            })
            .unwrap();
        }
        drop(r);
        let whole = std::fs::read(&path).unwrap();
        // Cut inside the last line.
        let cut = &whole[..whole.len() - 10];
        let rec = parse_recording(cut, "cut.jsonl").unwrap();
        assert_eq!(rec.scrapes.len(), 2);
        let tail = rec.truncated_tail.unwrap();
        assert_eq!(tail.line, 4);
        assert!(tail.msg.contains("EOF"), "{}", tail.msg);
        // Every cut point reads without panicking; whole lines before it survive.
        for k in 0..whole.len() {
            match parse_recording(&whole[..k], "x") {
                Ok(r) => assert!(r.scrapes.len() <= 3),
                Err(RecordError::Empty { .. } | RecordError::BadHeader { .. }) => {}
                Err(e) => panic!("cut at {k}: {e}"),
            }
        }
        // Damage in the middle is an error with its line and offset.
        let text = String::from_utf8(whole.clone()).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines[2] = "{\"t\": 1, \"ok\": tru";
        let bad = lines.join("\n") + "\n";
        match parse_recording(bad.as_bytes(), "bad.jsonl") {
            Err(RecordError::BadLine {
                line: 3, offset, ..
            }) => {
                assert_eq!(
                    offset,
                    text.lines().take(2).map(|l| l.len() + 1).sum::<usize>()
                )
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse_recording(b"", "e"),
            Err(RecordError::Empty { .. })
        ));
        assert!(matches!(
            parse_recording(
                b"{\"format\":\"other/2\",\"url\":\"u\",\"interval_s\":1,\"started\":0}\n",
                "f"
            ),
            Err(RecordError::UnsupportedFormat { .. })
        ));
        assert!(matches!(
            parse_recording(b"hello\n", "h"),
            Err(RecordError::BadHeader { .. })
        ));
        assert!(matches!(
            read_recording(dir.path().join("missing")),
            Err(RecordError::Io { .. })
        ));
    }
}
