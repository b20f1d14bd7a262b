//! The streaming OpenAI-compatible client: one request in, one timed [`StreamRecord`] out.
//!
//! Timing is taken when each network piece arrives, before JSON parsing, so parsing cost never
//! shows up as server latency. Several SSE events in one piece share its arrival time.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio::sync::Semaphore;

use crate::error::{server_message, Error, Result};
use crate::sse::SseDecoder;

/// Limits every request runs under.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// TCP (and TLS) connect.
    pub connect_timeout: Duration,
    /// Send → first streamed token (covers queueing and prefill of a long prompt).
    pub first_token_timeout: Duration,
    /// Longest silence between two pieces of a stream once tokens flow, and the whole of a
    /// non-streaming request.
    pub idle_timeout: Duration,
    /// Streaming requests in flight at once through this client; more wait for a permit.
    pub max_in_flight: usize,
    /// Sent as `Authorization: Bearer`.
    pub api_key: Option<String>,
}

impl Default for ClientConfig {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            first_token_timeout: Duration::from_secs(600),
            idle_timeout: Duration::from_secs(60),
            max_in_flight: 8,
            api_key: None,
        }
    }
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: String,
    pub content: String,
}

impl ChatMessage {
    pub fn new(role: &str, content: impl Into<String>) -> Self {
        Self {
            role: role.to_string(),
            content: content.into(),
        }
    }
}

/// What to send: a raw text prompt (`/v1/completions`) or messages (`/v1/chat/completions`).
#[derive(Debug, Clone)]
pub enum Prompt {
    Text(String),
    Chat(Vec<ChatMessage>),
}

/// A streaming generation request.
#[derive(Debug, Clone)]
pub struct StreamRequest {
    /// `model`; servers that serve one model accept any name, vLLM needs the served name.
    pub model: Option<String>,
    pub prompt: Prompt,
    pub max_tokens: u32,
    /// Sampling temperature; 0 makes runs repeatable.
    pub temperature: f64,
    /// Generate exactly `max_tokens` (llama.cpp, vLLM and SGLang accept `ignore_eos`).
    pub ignore_eos: bool,
    /// llama.cpp's `cache_prompt`; `None` leaves the server default (on in current builds).
    pub cache_prompt: Option<bool>,
    /// Further body fields, sent as given.
    pub extra: Map<String, Value>,
}

impl StreamRequest {
    pub fn text(prompt: impl Into<String>, max_tokens: u32) -> Self {
        Self::new(Prompt::Text(prompt.into()), max_tokens)
    }

    pub fn chat(messages: Vec<ChatMessage>, max_tokens: u32) -> Self {
        Self::new(Prompt::Chat(messages), max_tokens)
    }

    fn new(prompt: Prompt, max_tokens: u32) -> Self {
        Self {
            model: None,
            prompt,
            max_tokens,
            temperature: 0.0,
            ignore_eos: false,
            cache_prompt: None,
            extra: Map::new(),
        }
    }

    /// The endpoint path this request goes to.
    pub fn path(&self) -> &'static str {
        match self.prompt {
            Prompt::Text(_) => "/v1/completions",
            Prompt::Chat(_) => "/v1/chat/completions",
        }
    }

    /// The JSON body, streaming with usage in the last chunk.
    pub fn body(&self) -> Value {
        let mut b = Map::new();
        if let Some(m) = &self.model {
            b.insert("model".into(), json!(m));
        }
        match &self.prompt {
            Prompt::Text(t) => b.insert("prompt".into(), json!(t)),
            Prompt::Chat(m) => b.insert("messages".into(), json!(m)),
        };
        b.insert("max_tokens".into(), json!(self.max_tokens));
        b.insert("temperature".into(), json!(self.temperature));
        b.insert("stream".into(), json!(true));
        b.insert("stream_options".into(), json!({"include_usage": true}));
        if self.ignore_eos {
            b.insert("ignore_eos".into(), json!(true));
        }
        if let Some(c) = self.cache_prompt {
            b.insert("cache_prompt".into(), json!(c));
        }
        for (k, v) in &self.extra {
            b.insert(k.clone(), v.clone());
        }
        Value::Object(b)
    }
}

/// Where a count of generated tokens came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GenCountSource {
    /// The server's `usage.completion_tokens`.
    Usage,
    /// Counted streamed chunks that carried text (one token each on llama.cpp; an engine that
    /// batches tokens per chunk undercounts).
    Chunks,
}

/// The engine's own count of prompt tokens served from its cache, and which field said so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CachedTokens {
    pub n: u64,
    /// `usage.prompt_tokens_details.cached_tokens` (vLLM, newer llama.cpp) or
    /// `timings.cache_n` (llama.cpp).
    pub field: &'static str,
}

/// llama.cpp's `timings` object from the final chunk (engine-side, for comparison).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineTimings {
    pub cache_n: Option<u64>,
    pub prompt_n: Option<u64>,
    pub prompt_ms: Option<f64>,
    pub predicted_n: Option<u64>,
    pub predicted_ms: Option<f64>,
    pub predicted_per_second: Option<f64>,
}

/// One streamed request, timed on this side of the wire.
#[derive(Debug, Clone)]
pub struct StreamRecord {
    /// Arrival of each text-bearing chunk, measured from the moment the request was sent.
    pub token_times: Vec<Duration>,
    /// Send → end of stream.
    pub total: Duration,
    pub text: String,
    /// Generated tokens, with where the count came from.
    pub completion_tokens: u64,
    pub completion_source: GenCountSource,
    /// The server's `usage.prompt_tokens`.
    pub prompt_tokens: Option<u64>,
    pub cached_tokens: Option<CachedTokens>,
    pub finish_reason: Option<String>,
    pub engine_timings: Option<EngineTimings>,
}

impl StreamRecord {
    /// Time to first token: send → first text-bearing chunk.
    pub fn ttft(&self) -> Option<Duration> {
        self.token_times.first().copied()
    }

    pub fn ttft_ms(&self) -> Option<f64> {
        self.ttft().map(|d| d.as_secs_f64() * 1e3)
    }

    /// Decode rate from the timestamps after the first token: (tokens − 1) / (last − first).
    /// Assumes the first chunk carried one token. None with fewer than 2 tokens or no spread.
    pub fn decode_tps(&self) -> Option<f64> {
        let (first, last) = (self.token_times.first()?, self.token_times.last()?);
        let span = last.checked_sub(*first)?.as_secs_f64();
        if self.completion_tokens < 2 || self.token_times.len() < 2 || span <= 0.0 {
            return None;
        }
        Some((self.completion_tokens - 1) as f64 / span)
    }
}

/// The client. Cheap to clone; clones share the connection pool and the in-flight limit.
#[derive(Clone)]
pub struct Client {
    /// The server root without credentials: what messages and documents name.
    base: String,
    /// The root as given: a `user:password@` in it reaches the server as basic auth.
    given: String,
    http: reqwest::Client,
    cfg: ClientConfig,
    permits: Arc<Semaphore>,
}

/// Most of an error body read back for its message.
const MAX_ERROR_BODY: usize = 64 << 10;
/// Largest non-streaming JSON body accepted (a /tokenize of a long prompt is a few MB).
const MAX_JSON_BODY: usize = 64 << 20;

impl Client {
    /// `base_url` like `http://host:8000`; a trailing `/` or `/v1` is dropped.
    pub fn new(base_url: &str, cfg: ClientConfig) -> Result<Self> {
        let mut base = base_url.trim().trim_end_matches('/').to_string();
        if let Some(b) = base.strip_suffix("/v1") {
            base = b.to_string();
        }
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(Error::Refused(format!(
                "URL {base_url:?} must start with http:// or https://"
            )));
        }
        // No idle-connection reuse: llama-server closes idle keep-alive connections on its own
        // schedule, and a request sent on one it just closed fails with "connection closed
        // before message completed" (seen in the bench tests). A loopback connect costs
        // microseconds; a lost measurement costs a run.
        let http = reqwest::Client::builder()
            .connect_timeout(cfg.connect_timeout)
            .pool_max_idle_per_host(0)
            .redirect(engines::scrape::same_host_redirects())
            .build()
            .map_err(|e| Error::Refused(format!("cannot build an HTTP client: {e}")))?;
        let permits = Arc::new(Semaphore::new(cfg.max_in_flight.max(1)));
        Ok(Self {
            base: engines::scrape::without_credentials(&base),
            given: base,
            http,
            cfg,
            permits,
        })
    }

    pub fn base_url(&self) -> &str {
        &self.base
    }

    pub fn config(&self) -> &ClientConfig {
        &self.cfg
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// A request to `url` (one of [`Client::url`]'s), sent to the root as given.
    fn request(&self, method: reqwest::Method, url: &str) -> reqwest::RequestBuilder {
        let target = match url.strip_prefix(&self.base) {
            Some(path) => format!("{}{path}", self.given),
            None => url.to_string(),
        };
        let rb = self.http.request(method, target);
        match &self.cfg.api_key {
            Some(k) => rb.bearer_auth(k),
            None => rb,
        }
    }

    async fn send(
        &self,
        rb: reqwest::RequestBuilder,
        url: &str,
        limit: Duration,
    ) -> Result<reqwest::Response> {
        match tokio::time::timeout(limit, rb.send()).await {
            Err(_) => Err(Error::Timeout {
                url: url.to_string(),
                what: "waiting for the response",
                after: limit,
            }),
            Ok(Err(e)) => Err(transport_error(url, e, limit)),
            Ok(Ok(resp)) => {
                if resp.status().is_success() {
                    Ok(resp)
                } else {
                    let status = resp.status().as_u16();
                    let body = read_capped(resp, url, MAX_ERROR_BODY, self.cfg.idle_timeout)
                        .await
                        .unwrap_or_default();
                    Err(Error::Http {
                        url: url.to_string(),
                        status,
                        message: server_message(&body),
                    })
                }
            }
        }
    }

    /// GET a path and return its body as text.
    pub async fn get_text(&self, path: &str) -> Result<String> {
        let url = self.url(path);
        let rb = self.request(reqwest::Method::GET, &url);
        let resp = self.send(rb, &url, self.cfg.idle_timeout).await?;
        let body = read_capped(resp, &url, MAX_JSON_BODY, self.cfg.idle_timeout).await?;
        String::from_utf8(body).map_err(|e| Error::Protocol {
            url: url.clone(),
            at: format!("byte {}", e.utf8_error().valid_up_to()),
            detail: "body is not UTF-8".into(),
        })
    }

    /// GET a path and parse its body as JSON.
    pub async fn get_json(&self, path: &str) -> Result<Value> {
        let url = self.url(path);
        let rb = self.request(reqwest::Method::GET, &url);
        let resp = self.send(rb, &url, self.cfg.idle_timeout).await?;
        parse_json(&url, resp, self.cfg.idle_timeout).await
    }

    /// POST a JSON body and parse the JSON answer.
    pub async fn post_json(&self, path: &str, body: &Value) -> Result<Value> {
        let url = self.url(path);
        let rb = self.request(reqwest::Method::POST, &url).json(body);
        let resp = self.send(rb, &url, self.cfg.idle_timeout).await?;
        parse_json(&url, resp, self.cfg.idle_timeout).await
    }

    /// Send one streaming request and time every token. Waits for an in-flight permit first
    /// (the wait is not counted in the timings).
    pub async fn stream(&self, req: &StreamRequest) -> Result<StreamRecord> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| Error::Refused("client closed".into()))?;
        let url = self.url(req.path());
        let body = req.body();
        let rb = self
            .request(reqwest::Method::POST, &url)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .json(&body);
        let sent = Instant::now();
        let mut resp = self.send(rb, &url, self.cfg.first_token_timeout).await?;
        let content_type = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        if !content_type
            .to_ascii_lowercase()
            .starts_with("text/event-stream")
        {
            let body = read_capped(resp, &url, MAX_ERROR_BODY, self.cfg.idle_timeout)
                .await
                .unwrap_or_default();
            let hint = if body.is_empty() {
                String::new()
            } else {
                format!("; body begins: {}", server_message(&body))
            };
            return Err(Error::NotStreaming {
                url,
                content_type,
                hint,
            });
        }

        let mut acc = Accumulator::default();
        let mut decoder = SseDecoder::new();
        let mut done = false;
        while !done {
            let limit = if acc.token_times.is_empty() {
                self.cfg
                    .first_token_timeout
                    .saturating_sub(sent.elapsed())
                    .max(Duration::from_millis(1))
            } else {
                self.cfg.idle_timeout
            };
            let piece = match tokio::time::timeout(limit, resp.chunk()).await {
                Err(_) => {
                    return Err(Error::Timeout {
                        url,
                        what: if acc.token_times.is_empty() {
                            "waiting for the first token"
                        } else {
                            "stream silent between tokens"
                        },
                        after: limit,
                    })
                }
                Ok(Err(e)) => return Err(transport_error(&url, e, limit)),
                Ok(Ok(None)) => break,
                Ok(Ok(Some(p))) => p,
            };
            let at = sent.elapsed();
            let events = decoder.feed(&piece).map_err(|e| Error::Protocol {
                url: url.clone(),
                at: format!("stream byte {}", e.offset),
                detail: e.detail,
            })?;
            for ev in events {
                if ev.data == "[DONE]" {
                    done = true;
                    break;
                }
                let v: Value = serde_json::from_str(&ev.data).map_err(|e| Error::Protocol {
                    url: url.clone(),
                    at: format!("event ending at stream byte {}", ev.end_offset),
                    detail: format!("not JSON ({e}): {}", clip(&ev.data)),
                })?;
                if ev.event.as_deref() == Some("error") || v.get("error").is_some() {
                    return Err(Error::Http {
                        url,
                        status: 200,
                        message: format!(
                            "error inside the stream: {}",
                            server_message(ev.data.as_bytes())
                        ),
                    });
                }
                acc.event(&v, at);
            }
        }
        if !done && decoder.finish() {
            return Err(Error::Protocol {
                url,
                at: format!("stream byte {}", decoder.offset()),
                detail: "stream ended inside an event".into(),
            });
        }
        if acc.token_times.is_empty() && acc.usage_completion.unwrap_or(0) == 0 {
            return Err(Error::Protocol {
                url,
                at: format!("stream byte {}", decoder.offset()),
                detail: format!(
                    "the stream carried no tokens (finish_reason {:?})",
                    acc.finish_reason
                ),
            });
        }
        Ok(acc.finish(sent.elapsed()))
    }
}

#[derive(Default)]
struct Accumulator {
    token_times: Vec<Duration>,
    text: String,
    usage_completion: Option<u64>,
    usage_prompt: Option<u64>,
    usage_cached: Option<u64>,
    finish_reason: Option<String>,
    timings: Option<EngineTimings>,
}

impl Accumulator {
    fn event(&mut self, v: &Value, at: Duration) {
        if let Some(choice) = v.get("choices").and_then(|c| c.get(0)) {
            // Completions put text in `text`; chat in `delta.content` (or a reasoning field).
            let piece = choice
                .get("text")
                .and_then(Value::as_str)
                .or_else(|| choice.pointer("/delta/content").and_then(Value::as_str))
                .or_else(|| {
                    choice
                        .pointer("/delta/reasoning_content")
                        .and_then(Value::as_str)
                })
                .or_else(|| choice.pointer("/delta/reasoning").and_then(Value::as_str))
                .unwrap_or("");
            if !piece.is_empty() {
                self.token_times.push(at);
                self.text.push_str(piece);
            }
            if let Some(f) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish_reason = Some(f.to_string());
            }
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            self.usage_completion = u.get("completion_tokens").and_then(Value::as_u64);
            self.usage_prompt = u.get("prompt_tokens").and_then(Value::as_u64);
            self.usage_cached = u
                .pointer("/prompt_tokens_details/cached_tokens")
                .and_then(Value::as_u64);
        }
        if let Some(t) = v.get("timings").filter(|t| t.is_object()) {
            if let Ok(t) = serde_json::from_value::<EngineTimings>(t.clone()) {
                self.timings = Some(t);
            }
        }
    }

    fn finish(self, total: Duration) -> StreamRecord {
        let (completion_tokens, completion_source) = match self.usage_completion {
            Some(n) => (n, GenCountSource::Usage),
            None => (self.token_times.len() as u64, GenCountSource::Chunks),
        };
        // llama.cpp's `tokens_cached` is deliberately not read: it is the slot's token count
        // after the request (prompt + generated), not the prompt tokens served from cache.
        let cached_tokens = match (self.usage_cached, &self.timings) {
            (Some(n), _) => Some(CachedTokens {
                n,
                field: "usage.prompt_tokens_details.cached_tokens",
            }),
            (
                None,
                Some(EngineTimings {
                    cache_n: Some(n), ..
                }),
            ) => Some(CachedTokens {
                n: *n,
                field: "timings.cache_n",
            }),
            _ => None,
        };
        StreamRecord {
            token_times: self.token_times,
            total,
            text: self.text,
            completion_tokens,
            completion_source,
            prompt_tokens: self.usage_prompt,
            cached_tokens,
            finish_reason: self.finish_reason,
            engine_timings: self.timings,
        }
    }
}

fn transport_error(url: &str, e: reqwest::Error, limit: Duration) -> Error {
    // The innermost cause says what actually happened (refused, reset, DNS, connect timeout).
    let mut reason = e.to_string();
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(&e);
    while let Some(s) = src {
        reason = s.to_string();
        src = s.source();
    }
    if e.is_connect() {
        Error::Unreachable {
            url: url.to_string(),
            reason,
        }
    } else if e.is_timeout() {
        Error::Timeout {
            url: url.to_string(),
            what: "the request",
            after: limit,
        }
    } else {
        Error::Protocol {
            url: url.to_string(),
            at: "transport".into(),
            detail: reason,
        }
    }
}

async fn read_capped(
    mut resp: reqwest::Response,
    url: &str,
    cap: usize,
    idle: Duration,
) -> Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        match tokio::time::timeout(idle, resp.chunk()).await {
            Err(_) => {
                return Err(Error::Timeout {
                    url: url.to_string(),
                    what: "reading the body",
                    after: idle,
                })
            }
            Ok(Err(e)) => return Err(transport_error(url, e, idle)),
            Ok(Ok(None)) => return Ok(body),
            Ok(Ok(Some(p))) => {
                if body.len() + p.len() > cap {
                    let room = cap - body.len();
                    body.extend_from_slice(&p[..room]);
                    return Ok(body);
                }
                body.extend_from_slice(&p);
            }
        }
    }
}

async fn parse_json(url: &str, resp: reqwest::Response, idle: Duration) -> Result<Value> {
    let body = read_capped(resp, url, MAX_JSON_BODY, idle).await?;
    serde_json::from_slice(&body).map_err(|e| Error::Protocol {
        url: url.to_string(),
        at: format!("line {} column {}", e.line(), e.column()),
        detail: format!("not JSON ({e}): {}", clip(&String::from_utf8_lossy(&body))),
    })
}

fn clip(s: &str) -> String {
    let mut cut = s.len().min(200);
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    if cut < s.len() {
        format!("{}…", &s[..cut])
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(times_ms: &[u64], usage: Option<u64>) -> StreamRecord {
        let mut acc = Accumulator::default();
        for &t in times_ms {
            acc.event(
                &json!({"choices":[{"text":"x","finish_reason":null}]}),
                Duration::from_millis(t),
            );
        }
        if let Some(n) = usage {
            acc.event(
                &json!({"choices":[],"usage":{"completion_tokens":n,"prompt_tokens":10,
                    "prompt_tokens_details":{"cached_tokens":9}},
                    "timings":{"cache_n":9,"prompt_n":1}}),
                Duration::from_millis(999),
            );
        }
        acc.finish(Duration::from_secs(1))
    }

    #[test]
    fn decode_rate_uses_tokens_after_the_first() {
        // 5 tokens: first at 100 ms, then every 20 ms → 4 tokens in 80 ms = 50 tok/s.
        let r = record(&[100, 120, 140, 160, 180], None);
        assert_eq!(r.ttft_ms(), Some(100.0));
        assert_eq!(r.completion_source, GenCountSource::Chunks);
        assert!((r.decode_tps().unwrap() - 50.0).abs() < 1e-9);
        // Usage says 9 tokens over the same 80 ms (two tokens per chunk after the first).
        let r = record(&[100, 120, 140, 160, 180], Some(9));
        assert_eq!(r.completion_source, GenCountSource::Usage);
        assert!((r.decode_tps().unwrap() - 100.0).abs() < 1e-9);
        assert_eq!(r.prompt_tokens, Some(10));
        let c = r.cached_tokens.unwrap();
        assert_eq!(
            (c.n, c.field),
            (9, "usage.prompt_tokens_details.cached_tokens")
        );
        assert_eq!(record(&[100], None).decode_tps(), None);
        assert_eq!(record(&[100, 100], None).decode_tps(), None);
    }

    #[test]
    fn chat_deltas_and_role_only_chunks() {
        let mut acc = Accumulator::default();
        let t = Duration::from_millis(5);
        acc.event(
            &json!({"choices":[{"delta":{"role":"assistant","content":null}}]}),
            t,
        );
        acc.event(&json!({"choices":[{"delta":{"content":"Hi"}}]}), t);
        acc.event(
            &json!({"choices":[{"delta":{},"finish_reason":"length"}],"timings":{"cache_n":3}}),
            t,
        );
        let r = acc.finish(t);
        assert_eq!(r.token_times.len(), 1);
        assert_eq!(r.text, "Hi");
        assert_eq!(r.finish_reason.as_deref(), Some("length"));
        assert_eq!(r.cached_tokens.unwrap().field, "timings.cache_n");
    }

    #[test]
    fn request_bodies() {
        let mut r = StreamRequest::text("hello", 16);
        r.model = Some("m".into());
        r.ignore_eos = true;
        r.cache_prompt = Some(true);
        let b = r.body();
        assert_eq!(r.path(), "/v1/completions");
        assert_eq!(b["prompt"], "hello");
        assert_eq!(b["stream"], true);
        assert_eq!(b["stream_options"]["include_usage"], true);
        assert_eq!(b["ignore_eos"], true);
        assert_eq!(b["cache_prompt"], true);
        let c = StreamRequest::chat(vec![ChatMessage::new("user", "hi")], 4);
        assert_eq!(c.path(), "/v1/chat/completions");
        let b = c.body();
        assert_eq!(b["messages"][0]["content"], "hi");
        assert!(b.get("ignore_eos").is_none() && b.get("model").is_none());
    }

    #[test]
    fn base_url_normalised() {
        let c = Client::new("http://h:8000/v1/", ClientConfig::default()).unwrap();
        assert_eq!(c.url("/props"), "http://h:8000/props");
        assert!(Client::new("h:8000", ClientConfig::default()).is_err());
    }
}
