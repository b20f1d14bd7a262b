//! The only I/O in this crate: HTTP GETs against a serving engine (`/metrics`, `/v1/models`,
//! llama.cpp's `/props` and `/slots`, vLLM's `/version`), with errors that say what happened.
//!
//! The endpoint answers are plain data types with `from_value` constructors, so a recording's
//! stored JSON is re-read by the same code as a live answer.

use crate::{parse_metrics, ParseError, Parsed, PromError};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use thiserror::Error;

/// Bodies larger than this are refused rather than buffered (a /metrics page is kilobytes; even
/// vLLM's huge `vllm_config_info` stays far below).
pub const MAX_BODY_BYTES: usize = 64 << 20;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum ScrapeError {
    #[error("invalid URL {url:?}: {msg}")]
    InvalidUrl { url: String, msg: String },
    #[error("cannot reach {url}: {cause} (is the server running, and are host and port right?)")]
    Unreachable { url: String, cause: String },
    #[error("{url}: no answer within {after_s:.1} s (timeout)")]
    Timeout { url: String, after_s: f64 },
    #[error("{url}: HTTP {status}: {first_line}{}", hint.as_deref().map(|h| format!(" ({h})")).unwrap_or_default())]
    HttpStatus {
        url: String,
        status: u16,
        /// The first line of the response body, cut to 200 characters.
        first_line: String,
        hint: Option<String>,
    },
    #[error("{url}: metrics are disabled on this server: {hint}")]
    MetricsDisabled { url: String, hint: String },
    #[error("{url}: expected a Prometheus text exposition, got {what} (first line: {first_line:?}){}", hint.as_deref().map(|h| format!("; {h}")).unwrap_or_default())]
    NotPrometheus {
        url: String,
        what: String,
        first_line: String,
        hint: Option<String>,
    },
    #[error("{url}: {source}")]
    Parse { url: String, source: ParseError },
    #[error("{url}: the answer is not the JSON expected: {msg}")]
    BadJson { url: String, msg: String },
    #[error("{url}: reading the body failed: {msg}")]
    Body { url: String, msg: String },
}

/// A /metrics body as fetched, not yet parsed (what a recording stores).
#[derive(Debug, Clone, PartialEq)]
pub struct RawScrape {
    /// Unix seconds when the body was fully read.
    pub t: f64,
    pub body: String,
    /// Request to last byte, seconds.
    pub elapsed_s: f64,
}

/// A fetched and parsed /metrics scrape.
#[derive(Debug, Clone, PartialEq)]
pub struct Scrape {
    pub raw: RawScrape,
    pub parsed: Parsed,
}

/// One entry of `GET /v1/models`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelEntry {
    pub id: String,
    /// vLLM's `max_model_len` (null for LoRA entries).
    pub max_model_len: Option<u64>,
    pub owned_by: Option<String>,
    /// vLLM: the base model a served name points at.
    pub root: Option<String>,
    /// llama.cpp `meta`: per-slot context, training context, parameter count, file size.
    pub n_ctx_per_slot: Option<u64>,
    pub n_ctx_train: Option<u64>,
    pub n_params: Option<u64>,
    pub size_bytes: Option<u64>,
}

/// `GET /v1/models`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelsInfo {
    pub models: Vec<ModelEntry>,
}

/// llama.cpp `GET /props`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Props {
    /// Slots (= `--parallel`).
    pub total_slots: Option<i64>,
    /// `default_generation_settings.n_ctx`: the context one slot holds.
    pub n_ctx_per_slot: Option<u64>,
    pub model_path: Option<String>,
    pub model_alias: Option<String>,
    pub build_info: Option<String>,
    pub endpoint_metrics: Option<bool>,
    pub endpoint_slots: Option<bool>,
}

/// One llama.cpp slot from `GET /slots`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlotInfo {
    pub id: i64,
    pub n_ctx: Option<u64>,
    pub is_processing: Option<bool>,
    /// Of the slot's current or last task (absent before its first task).
    pub n_prompt_tokens: Option<u64>,
    pub n_prompt_tokens_processed: Option<u64>,
    pub n_prompt_tokens_cache: Option<u64>,
    pub n_decoded: Option<u64>,
}

fn u64_at(v: &Value, path: &[&str]) -> Option<u64> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_u64().or_else(|| {
        cur.as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0)
            .map(|f| f as u64)
    })
}

fn str_at(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .filter(|s| !s.is_empty())
}

impl ModelsInfo {
    pub fn from_value(v: &Value) -> Result<ModelsInfo, String> {
        let data = v
            .get("data")
            .and_then(Value::as_array)
            .ok_or("no `data` array (an OpenAI-compatible /v1/models answer has one)")?;
        let models = data
            .iter()
            .filter_map(|m| {
                Some(ModelEntry {
                    id: str_at(m, "id")?,
                    max_model_len: u64_at(m, &["max_model_len"]),
                    owned_by: str_at(m, "owned_by"),
                    root: str_at(m, "root"),
                    n_ctx_per_slot: u64_at(m, &["meta", "n_ctx"]),
                    n_ctx_train: u64_at(m, &["meta", "n_ctx_train"]),
                    n_params: u64_at(m, &["meta", "n_params"]),
                    size_bytes: u64_at(m, &["meta", "size"]),
                })
            })
            .collect();
        Ok(ModelsInfo { models })
    }
}

impl Props {
    pub fn from_value(v: &Value) -> Result<Props, String> {
        if !v.is_object() {
            return Err("not a JSON object".into());
        }
        if v.get("total_slots").is_none() && v.get("default_generation_settings").is_none() {
            return Err(
                "neither `total_slots` nor `default_generation_settings` (not llama.cpp's /props)"
                    .into(),
            );
        }
        Ok(Props {
            total_slots: v.get("total_slots").and_then(Value::as_i64),
            n_ctx_per_slot: u64_at(v, &["default_generation_settings", "n_ctx"]),
            model_path: str_at(v, "model_path"),
            model_alias: str_at(v, "model_alias"),
            build_info: str_at(v, "build_info"),
            endpoint_metrics: v.get("endpoint_metrics").and_then(Value::as_bool),
            endpoint_slots: v.get("endpoint_slots").and_then(Value::as_bool),
        })
    }
}

impl SlotInfo {
    pub fn list_from_value(v: &Value) -> Result<Vec<SlotInfo>, String> {
        let arr = v.as_array().ok_or("not a JSON array of slots")?;
        Ok(arr
            .iter()
            .filter_map(|s| {
                // `next_token` is an array in current builds, an object in older ones.
                let next = s.get("next_token").map(|n| n.get(0).unwrap_or(n));
                Some(SlotInfo {
                    id: s.get("id")?.as_i64()?,
                    n_ctx: u64_at(s, &["n_ctx"]),
                    is_processing: s.get("is_processing").and_then(Value::as_bool),
                    n_prompt_tokens: u64_at(s, &["n_prompt_tokens"]),
                    n_prompt_tokens_processed: u64_at(s, &["n_prompt_tokens_processed"]),
                    n_prompt_tokens_cache: u64_at(s, &["n_prompt_tokens_cache"]),
                    n_decoded: next.and_then(|n| u64_at(n, &["n_decoded"])),
                })
            })
            .collect())
    }
}

/// `GET /version` answer: `{"version": "0.9.1"}`.
pub fn version_from_value(v: &Value) -> Result<String, String> {
    v.get("version")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| "no `version` string".to_string())
}

pub(crate) fn now_unix() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

fn first_line(body: &str) -> String {
    let l = body.trim_start().lines().next().unwrap_or("").trim();
    let mut s: String = l.chars().take(200).collect();
    if s.len() < l.len() {
        s.push('…');
    }
    if s.is_empty() {
        s.push_str("(empty body)");
    }
    s
}

/// Normalises what a user types: adds `http://` when no scheme is given, drops a trailing
/// `/metrics` and slashes.
pub fn normalize_base_url(url: &str) -> Result<String, ScrapeError> {
    let u = url.trim();
    if u.is_empty() {
        return Err(ScrapeError::InvalidUrl {
            url: url.into(),
            msg: "empty".into(),
        });
    }
    let with_scheme = if u.contains("://") {
        u.to_string()
    } else {
        format!("http://{u}")
    };
    let parsed = reqwest::Url::parse(&with_scheme).map_err(|e| ScrapeError::InvalidUrl {
        url: url.into(),
        msg: e.to_string(),
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(ScrapeError::InvalidUrl {
            url: url.into(),
            msg: format!("scheme {:?} is not http or https", parsed.scheme()),
        });
    }
    let mut s = with_scheme.trim_end_matches('/').to_string();
    if let Some(b) = s.strip_suffix("/metrics") {
        s = b.trim_end_matches('/').to_string();
    }
    Ok(s)
}

/// `url` without its userinfo (`user:password@`), for naming it: in messages, documents,
/// recordings and the history. Unchanged when it has none or does not parse.
pub fn without_credentials(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) if !u.username().is_empty() || u.password().is_some() => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            let s = u.to_string();
            // Url writes a root path ("http://h:1/"); keep the form the user gave.
            if url.trim_end().ends_with('/') {
                s
            } else {
                s.trim_end_matches('/').to_string()
            }
        }
        _ => url.to_string(),
    }
}

/// HTTP client for one server.
#[derive(Debug, Clone)]
pub struct Scraper {
    /// The server root without credentials: what every message and recording names.
    base: String,
    /// The root as given: a `user:password@` in it reaches the server as basic auth (reqwest
    /// takes it out of the request's URL and sends the `Authorization` header).
    given: String,
    timeout: Duration,
    client: reqwest::Client,
}

/// Redirects are followed only on the host they came from (same scheme, host and port), at
/// most 5 hops: a server, or whatever answers on its address, cannot send headroom's requests
/// (with their headers and bodies) to another host. A redirect elsewhere is an error naming
/// both hosts.
pub fn same_host_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().cloned();
        let (to, from) = (attempt.url().clone(), first);
        let origin = |u: &reqwest::Url| {
            (
                u.scheme().to_string(),
                u.host_str().map(str::to_string),
                u.port_or_known_default(),
            )
        };
        match from {
            Some(from) if origin(&from) != origin(&to) => attempt.error(format!(
                "refused a redirect from {} to another host ({})",
                from.origin().ascii_serialization(),
                to.origin().ascii_serialization()
            )),
            _ if attempt.previous().len() > 5 => attempt.error("more than 5 redirects"),
            _ => attempt.follow(),
        }
    })
}

impl Scraper {
    /// `base_url` is the server root (`http://localhost:8000`); a trailing `/metrics` is dropped.
    /// `timeout` bounds each request as a whole, connection included.
    pub fn new(base_url: &str, timeout: Duration) -> Result<Scraper, ScrapeError> {
        let base = normalize_base_url(base_url)?;
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            // A serving engine is reached directly; a proxy from the environment would turn
            // "connection refused" into a proxy's 502.
            .no_proxy()
            .redirect(same_host_redirects())
            .user_agent(concat!("headroom/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ScrapeError::InvalidUrl {
                url: base_url.into(),
                msg: e.to_string(),
            })?;
        Ok(Scraper {
            base: without_credentials(&base),
            given: base,
            timeout,
            client,
        })
    }

    pub fn base_url(&self) -> &str {
        &self.base
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// GET `path`; returns the status and the body (at most [`MAX_BODY_BYTES`]).
    async fn get(&self, path: &str) -> Result<(u16, String), ScrapeError> {
        let url = self.url(path);
        let mut resp = self
            .client
            .get(format!("{}{path}", self.given))
            .send()
            .await
            .map_err(|e| self.classify(&url, e))?;
        let status = resp.status().as_u16();
        let mut buf: Vec<u8> = Vec::new();
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    if buf.len() + chunk.len() > MAX_BODY_BYTES {
                        return Err(ScrapeError::Body {
                            url,
                            msg: format!("body larger than {} MiB", MAX_BODY_BYTES >> 20),
                        });
                    }
                    buf.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) => return Err(self.classify(&url, e)),
            }
        }
        Ok((status, String::from_utf8_lossy(&buf).into_owned()))
    }

    fn classify(&self, url: &str, e: reqwest::Error) -> ScrapeError {
        if e.is_timeout() {
            return ScrapeError::Timeout {
                url: url.into(),
                after_s: self.timeout.as_secs_f64(),
            };
        }
        // The innermost cause names it: "Connection refused (os error 111)", "failed to lookup
        // address information: Name or service not known" ...
        let mut cause = e.to_string();
        let mut src: Option<&dyn std::error::Error> = std::error::Error::source(&e);
        while let Some(s) = src {
            cause = s.to_string();
            src = s.source();
        }
        if e.is_connect() || e.is_request() {
            let lower = cause.to_ascii_lowercase();
            let what = if lower.contains("refused") {
                format!("connection refused ({cause})")
            } else if lower.contains("lookup")
                || lower.contains("dns")
                || lower.contains("name or service")
            {
                format!("DNS lookup failed ({cause})")
            } else {
                cause
            };
            return ScrapeError::Unreachable {
                url: url.into(),
                cause: what,
            };
        }
        ScrapeError::Body {
            url: url.into(),
            msg: cause,
        }
    }

    /// GET /metrics, HTTP-level checks only (status, engine error pages); the body unparsed.
    pub async fn fetch_metrics(&self) -> Result<RawScrape, ScrapeError> {
        let url = self.url("/metrics");
        let start = Instant::now();
        let (status, body) = self.get("/metrics").await?;
        let elapsed_s = start.elapsed().as_secs_f64();
        if !(200..300).contains(&status) {
            if body.contains("does not support metrics endpoint") {
                return Err(ScrapeError::MetricsDisabled {
                    url,
                    hint: "start llama-server with --metrics".into(),
                });
            }
            let hint = match status {
                404 => Some(
                    "no /metrics here: SGLang needs --enable-metrics, llama-server needs --metrics; \
                     check host and port"
                        .to_string(),
                ),
                // llama-server answers 503 {"error":{"message":"Loading model"...}} until ready.
                503 if body.contains("Loading model") => Some("the model is still loading".to_string()),
                _ => None,
            };
            return Err(ScrapeError::HttpStatus {
                url,
                status,
                first_line: first_line(&body),
                hint,
            });
        }
        Ok(RawScrape {
            t: now_unix(),
            body,
            elapsed_s,
        })
    }

    /// GET /metrics, parsed and mapped to a [`Sample`](crate::Sample).
    pub async fn scrape_metrics(&self) -> Result<Scrape, ScrapeError> {
        let raw = self.fetch_metrics().await?;
        let parsed = parse_metrics(&raw.body, raw.t)
            .map_err(|e| metrics_parse_error(&self.url("/metrics"), e))?;
        Ok(Scrape { raw, parsed })
    }

    /// GET `path` and parse the JSON answer (what a recording header stores).
    pub async fn get_json(&self, path: &str) -> Result<Value, ScrapeError> {
        let url = self.url(path);
        let (status, body) = self.get(path).await?;
        if !(200..300).contains(&status) {
            return Err(ScrapeError::HttpStatus {
                url,
                status,
                first_line: first_line(&body),
                hint: None,
            });
        }
        serde_json::from_str(&body).map_err(|e| ScrapeError::BadJson {
            url,
            msg: format!("{e}; body starts {:?}", first_line(&body)),
        })
    }

    /// GET /v1/models.
    pub async fn models(&self) -> Result<ModelsInfo, ScrapeError> {
        let v = self.get_json("/v1/models").await?;
        ModelsInfo::from_value(&v).map_err(|msg| ScrapeError::BadJson {
            url: self.url("/v1/models"),
            msg,
        })
    }

    /// GET /props (llama.cpp).
    pub async fn props(&self) -> Result<Props, ScrapeError> {
        let v = self.get_json("/props").await?;
        Props::from_value(&v).map_err(|msg| ScrapeError::BadJson {
            url: self.url("/props"),
            msg,
        })
    }

    /// GET /slots (llama.cpp). `Ok(None)` when the endpoint is disabled (`--no-slots`: HTTP 501)
    /// or absent (404: not llama.cpp).
    pub async fn slots(&self) -> Result<Option<Vec<SlotInfo>>, ScrapeError> {
        match self.get_json("/slots").await {
            Ok(v) => SlotInfo::list_from_value(&v)
                .map(Some)
                .map_err(|msg| ScrapeError::BadJson {
                    url: self.url("/slots"),
                    msg,
                }),
            Err(ScrapeError::HttpStatus {
                status: 404 | 501, ..
            }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// GET /version (vLLM): the version string.
    pub async fn version(&self) -> Result<String, ScrapeError> {
        let v = self.get_json("/version").await?;
        version_from_value(&v).map_err(|msg| ScrapeError::BadJson {
            url: self.url("/version"),
            msg,
        })
    }
}

/// Turns a parse failure of a /metrics body into the scrape error a person can act on.
pub fn metrics_parse_error(url: &str, e: ParseError) -> ScrapeError {
    match e {
        ParseError::Prom(PromError::NotPrometheus { what, first_line }) => {
            let hint = if first_line.contains("does not support metrics endpoint") {
                Some("start llama-server with --metrics".to_string())
            } else if what.contains("HTML") {
                Some(
                    "the URL may point at a web UI or a proxy, not the engine's API port"
                        .to_string(),
                )
            } else {
                None
            };
            ScrapeError::NotPrometheus {
                url: url.into(),
                what,
                first_line,
                hint,
            }
        }
        other => ScrapeError::Parse {
            url: url.into(),
            source: other,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loopback server answering every request with `answer(path)`; counts requests.
    fn serve(
        answer: impl Fn(&str) -> String + Send + 'static,
    ) -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
        use std::io::{Read, Write};
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let h = hits.clone();
        std::thread::spawn(move || {
            for mut c in l.incoming().flatten() {
                h.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let mut buf = [0u8; 4096];
                let n = c.read(&mut buf).unwrap_or(0);
                let req = String::from_utf8_lossy(&buf[..n]).into_owned();
                let path = req.split_whitespace().nth(1).unwrap_or("/").to_string();
                let _ = c.write_all(answer(&path).as_bytes());
            }
        });
        (port, hits)
    }

    #[tokio::test]
    async fn redirects_are_followed_on_the_same_host_only() {
        let body = "vllm:num_requests_running 1\n";
        let (other, other_hits) = serve(move |_| {
            format!(
                "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
        });
        let (port, _) = serve(move |path| {
            let to = match path {
                "/metrics" => "/real/metrics".to_string(),
                // Same address, another host name: still another host.
                "/real/metrics" => format!("http://localhost:{other}/metrics"),
                _ => return "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".into(),
            };
            format!("HTTP/1.1 302 Found\r\nlocation: {to}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
        });
        let s = Scraper::new(&format!("http://127.0.0.1:{port}"), Duration::from_secs(5)).unwrap();
        let err = s.fetch_metrics().await.unwrap_err().to_string();
        assert!(err.contains("another host"), "{err}");
        assert_eq!(other_hits.load(std::sync::atomic::Ordering::SeqCst), 0);
        // The same-host hop was followed (the error is about the second one).
        assert!(err.contains(&format!("localhost:{other}")), "{err}");
    }

    #[test]
    fn credentials_reach_the_server_and_nothing_else() {
        assert_eq!(
            without_credentials("http://ops:s3cr%40t@prom.internal:9090/"),
            "http://prom.internal:9090/"
        );
        assert_eq!(without_credentials("http://u:p@h:8000"), "http://h:8000");
        assert_eq!(without_credentials("http://h:8000"), "http://h:8000");
        let s = Scraper::new(
            "http://ops:hunter2@127.0.0.1:9/metrics",
            Duration::from_secs(1),
        )
        .unwrap();
        assert_eq!(s.base_url(), "http://127.0.0.1:9");
        assert_eq!(s.url("/metrics"), "http://127.0.0.1:9/metrics");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let e = rt.block_on(s.fetch_metrics()).unwrap_err().to_string();
        assert!(!e.contains("hunter2") && !e.contains("ops"), "{e}");
    }

    #[test]
    fn base_urls() {
        for (given, want) in [
            ("http://localhost:8000", "http://localhost:8000"),
            ("localhost:8000/", "http://localhost:8000"),
            ("http://h:8000/metrics", "http://h:8000"),
            ("https://h/v/metrics/", "https://h/v"),
        ] {
            assert_eq!(normalize_base_url(given).unwrap(), want, "{given}");
        }
        assert!(matches!(
            normalize_base_url(""),
            Err(ScrapeError::InvalidUrl { .. })
        ));
        assert!(matches!(
            normalize_base_url("ftp://x"),
            Err(ScrapeError::InvalidUrl { .. })
        ));
    }

    #[test]
    fn endpoint_answers() {
        let vllm: Value = serde_json::from_str(
            r#"{"object":"list","data":[{"id":"Qwen/Qwen2.5-Coder-1.5B-Instruct","object":"model","created":1738217335,"owned_by":"vllm","root":"Qwen/Qwen2.5-Coder-1.5B-Instruct","parent":null,"max_model_len":32768,"permission":[]}]}"#,
        )
        .unwrap();
        let m = ModelsInfo::from_value(&vllm).unwrap();
        assert_eq!(m.models[0].id, "Qwen/Qwen2.5-Coder-1.5B-Instruct");
        assert_eq!(m.models[0].max_model_len, Some(32768));
        let llama: Value = serde_json::from_str(
            r#"{"models":[],"object":"list","data":[{"id":"smol","object":"model","owned_by":"llamacpp","meta":{"n_ctx":2048,"n_ctx_train":8192,"n_params":134515008,"size":91905280}}]}"#,
        )
        .unwrap();
        let m = ModelsInfo::from_value(&llama).unwrap();
        assert_eq!(
            (m.models[0].max_model_len, m.models[0].n_ctx_per_slot),
            (None, Some(2048))
        );
        assert!(ModelsInfo::from_value(&serde_json::json!({"error": "x"})).is_err());

        let props: Value = serde_json::from_str(
            r#"{"default_generation_settings":{"params":{},"n_ctx":2048},"total_slots":2,"model_path":"/m/smol.gguf","build_info":"b6500-abc","endpoint_metrics":true,"endpoint_slots":true}"#,
        )
        .unwrap();
        let p = Props::from_value(&props).unwrap();
        assert_eq!((p.total_slots, p.n_ctx_per_slot), (Some(2), Some(2048)));
        assert_eq!(p.build_info.as_deref(), Some("b6500-abc"));
        assert!(Props::from_value(&serde_json::json!({"version": "1"})).is_err());

        let slots: Value = serde_json::from_str(
            r#"[{"id":0,"n_ctx":2048,"is_processing":false,"id_task":5,"n_prompt_tokens":12,"n_prompt_tokens_processed":4,"n_prompt_tokens_cache":8,"next_token":[{"has_next_token":false,"n_decoded":16}]},{"id":1,"n_ctx":2048,"is_processing":true,"next_token":{"n_decoded":3}}]"#,
        )
        .unwrap();
        let s = SlotInfo::list_from_value(&slots).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(
            (s[0].n_prompt_tokens_cache, s[0].n_decoded),
            (Some(8), Some(16))
        );
        assert_eq!(
            (s[1].is_processing, s[1].n_decoded, s[1].n_prompt_tokens),
            (Some(true), Some(3), None)
        );
        assert_eq!(
            version_from_value(&serde_json::json!({"version": "0.7.2"})).unwrap(),
            "0.7.2"
        );
    }
}
