//! The OpenAI-compatible request and response bodies, as vLLM's server shapes them. Pure: JSON
//! in, typed request out; usage and tokens in, JSON or SSE bytes out.

use serde_json::{json, Value};

use crate::engine::{FinishReason, Usage};
use crate::tokenizer;

/// Largest request body read, bytes (a 128k-token prompt is well under this).
pub const MAX_BODY_BYTES: usize = 32 << 20;

/// Which endpoint a generation request came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Completion,
    Chat,
}

/// A generation request, tokenized.
#[derive(Debug, Clone, PartialEq)]
pub struct GenRequest {
    pub kind: Kind,
    pub model: Option<String>,
    pub tokens: Vec<u32>,
    pub max_tokens: Option<u32>,
    pub stream: bool,
    pub include_usage: bool,
}

/// A 400 with vLLM's error shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadRequest(pub String);

fn bad(m: impl Into<String>) -> BadRequest {
    BadRequest(m.into())
}

/// The error body vLLM returns.
pub fn error_body(message: &str, kind: &str, code: u16) -> Value {
    json!({"object": "error", "message": message, "type": kind, "param": null, "code": code})
}

fn text_of_content(c: &Value, at: &str) -> Result<String, BadRequest> {
    match c {
        Value::String(s) => Ok(s.clone()),
        Value::Null => Ok(String::new()),
        Value::Array(parts) => {
            let mut out = Vec::new();
            for (i, p) in parts.iter().enumerate() {
                match (
                    p.get("type").and_then(Value::as_str),
                    p.get("text").and_then(Value::as_str),
                ) {
                    (Some("text"), Some(t)) => out.push(t.to_string()),
                    _ => {
                        return Err(bad(format!(
                            "{at}.content[{i}]: only text parts are served by the emulator"
                        )))
                    }
                }
            }
            Ok(out.join(" "))
        }
        _ => Err(bad(format!(
            "{at}.content must be a string or a list of parts"
        ))),
    }
}

fn positive_u32(v: &Value, field: &str) -> Result<Option<u32>, BadRequest> {
    match v.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => match x.as_u64() {
            Some(n) if n >= 1 => Ok(Some(u32::try_from(n).unwrap_or(u32::MAX))),
            _ => Err(bad(format!("{field} must be a positive integer, got {x}"))),
        },
    }
}

/// Parses a `/v1/completions` or `/v1/chat/completions` body.
pub fn parse(kind: Kind, body: &[u8]) -> Result<GenRequest, BadRequest> {
    let v: Value = serde_json::from_slice(body).map_err(|e| {
        bad(format!(
            "request body is not JSON: {e} (line {}, column {})",
            e.line(),
            e.column()
        ))
    })?;
    if !v.is_object() {
        return Err(bad("request body must be a JSON object"));
    }
    if let Some(n) = v.get("n").and_then(Value::as_u64) {
        if n != 1 {
            return Err(bad(format!("n = {n}: the emulator serves n = 1 only")));
        }
    }
    let tokens = match kind {
        Kind::Completion => match v.get("prompt") {
            Some(Value::String(s)) => tokenizer::encode(s),
            Some(Value::Array(a)) if a.len() == 1 && a[0].is_string() => {
                tokenizer::encode(a[0].as_str().unwrap_or(""))
            }
            Some(Value::Array(a)) if !a.is_empty() && a.iter().all(Value::is_u64) => a
                .iter()
                .map(|t| t.as_u64().map(|t| t as u32).unwrap_or(0))
                .collect(),
            Some(Value::Array(_)) => {
                return Err(bad(
                    "prompt: a list of prompts is not served by the emulator; send one string or one list of token ids",
                ))
            }
            _ => return Err(bad("prompt is required (a string or a list of token ids)")),
        },
        Kind::Chat => {
            let msgs = v
                .get("messages")
                .and_then(Value::as_array)
                .ok_or_else(|| bad("messages is required (a list of {role, content})"))?;
            let mut parts = Vec::with_capacity(msgs.len());
            for (i, m) in msgs.iter().enumerate() {
                let at = format!("messages[{i}]");
                let role = m
                    .get("role")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad(format!("{at}.role is required")))?;
                let content = text_of_content(m.get("content").unwrap_or(&Value::Null), &at)?;
                parts.push((role.to_string(), content));
            }
            tokenizer::encode_chat(parts.iter().map(|(r, c)| (r.as_str(), c.as_str())))
        }
    };
    let mut max_tokens = positive_u32(&v, "max_tokens")?;
    if kind == Kind::Chat {
        if let Some(m) = positive_u32(&v, "max_completion_tokens")? {
            max_tokens = Some(m);
        }
    }
    Ok(GenRequest {
        kind,
        model: v.get("model").and_then(Value::as_str).map(str::to_string),
        tokens,
        max_tokens,
        stream: v.get("stream").and_then(Value::as_bool).unwrap_or(false),
        include_usage: v
            .pointer("/stream_options/include_usage")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

pub fn usage_json(u: &Usage) -> Value {
    json!({
        "prompt_tokens": u.prompt_tokens,
        "total_tokens": u.prompt_tokens + u.completion_tokens,
        "completion_tokens": u.completion_tokens,
        "prompt_tokens_details": {"cached_tokens": u.cached_tokens},
    })
}

/// Identity of one response.
#[derive(Debug, Clone)]
pub struct Meta {
    pub kind: Kind,
    pub id: String,
    pub created: u64,
    pub model: String,
}

impl Meta {
    pub fn new(kind: Kind, seq: u64, created: u64, model: &str) -> Meta {
        let prefix = match kind {
            Kind::Completion => "cmpl",
            Kind::Chat => "chatcmpl",
        };
        Meta {
            kind,
            id: format!("{prefix}-emu{seq:016x}"),
            created,
            model: model.to_string(),
        }
    }
}

/// Generated words joined as the client sees them: each token is " word".
pub fn piece(word: &str) -> String {
    format!(" {word}")
}

/// The non-streaming answer.
pub fn full_response(m: &Meta, text: &str, reason: FinishReason, usage: &Usage) -> Value {
    let choice = match m.kind {
        Kind::Completion => json!({
            "index": 0, "text": text, "logprobs": null,
            "finish_reason": reason.as_str(), "stop_reason": null, "prompt_logprobs": null,
        }),
        Kind::Chat => json!({
            "index": 0,
            "message": {"role": "assistant", "content": text, "tool_calls": []},
            "logprobs": null, "finish_reason": reason.as_str(), "stop_reason": null,
        }),
    };
    json!({
        "id": m.id,
        "object": match m.kind { Kind::Completion => "text_completion", Kind::Chat => "chat.completion" },
        "created": m.created,
        "model": m.model,
        "choices": [choice],
        "usage": usage_json(usage),
    })
}

fn chunk_object(m: &Meta) -> &'static str {
    match m.kind {
        Kind::Completion => "text_completion",
        Kind::Chat => "chat.completion.chunk",
    }
}

fn sse(v: &Value) -> String {
    format!("data: {v}\n\n")
}

/// The first chunk of a chat stream (the assistant role, empty content).
pub fn sse_role(m: &Meta, include_usage: bool) -> String {
    let mut v = json!({
        "id": m.id, "object": chunk_object(m), "created": m.created, "model": m.model,
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "logprobs": null, "finish_reason": null}],
    });
    if include_usage {
        v["usage"] = Value::Null;
    }
    sse(&v)
}

/// One streamed token; `finish` on the last.
pub fn sse_token(
    m: &Meta,
    piece: &str,
    finish: Option<FinishReason>,
    include_usage: bool,
) -> String {
    let reason = finish.map(FinishReason::as_str);
    let choice = match m.kind {
        Kind::Completion => {
            json!({"index": 0, "text": piece, "logprobs": null, "finish_reason": reason, "stop_reason": null})
        }
        Kind::Chat => {
            json!({"index": 0, "delta": {"content": piece}, "logprobs": null, "finish_reason": reason, "stop_reason": null})
        }
    };
    let mut v = json!({"id": m.id, "object": chunk_object(m), "created": m.created, "model": m.model, "choices": [choice]});
    if include_usage {
        v["usage"] = Value::Null;
    }
    sse(&v)
}

/// The end of a stream: the usage chunk when asked for, then `[DONE]`.
pub fn sse_end(m: &Meta, usage: &Usage, include_usage: bool) -> String {
    let mut s = String::new();
    if include_usage {
        s += &sse(&json!({
            "id": m.id, "object": chunk_object(m), "created": m.created, "model": m.model,
            "choices": [], "usage": usage_json(usage),
        }));
    }
    s += "data: [DONE]\n\n";
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_bodies() {
        let r = parse(
            Kind::Completion,
            br#"{"model":"m","prompt":"a b c","max_tokens":5,"stream":true,"stream_options":{"include_usage":true}}"#,
        )
        .unwrap();
        assert_eq!(
            (r.tokens.len(), r.max_tokens, r.stream, r.include_usage),
            (3, Some(5), true, true)
        );
        assert_eq!(r.model.as_deref(), Some("m"));
        let r = parse(Kind::Completion, br#"{"prompt":[1,2,3,4]}"#).unwrap();
        assert_eq!(
            (r.tokens, r.max_tokens, r.stream),
            (vec![1, 2, 3, 4], None, false)
        );
        for (body, want) in [
            (
                &br#"{"prompt":"x","max_tokens":0}"#[..],
                "max_tokens must be a positive integer",
            ),
            (br#"{"prompt":["a","b"]}"#, "a list of prompts"),
            (br#"{"max_tokens":3}"#, "prompt is required"),
            (br#"{"prompt":"x","n":2}"#, "n = 2"),
            (br#"[1]"#, "JSON object"),
            (b"{\"prompt\":", "not JSON"),
        ] {
            let e = parse(Kind::Completion, body).unwrap_err().0;
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn chat_bodies() {
        let r = parse(
            Kind::Chat,
            br#"{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hi there"}]}],"max_completion_tokens":7}"#,
        )
        .unwrap();
        assert_eq!(r.tokens.len(), 7);
        assert_eq!(r.max_tokens, Some(7));
        let e = parse(Kind::Chat, br#"{"messages":[{"content":"x"}]}"#)
            .unwrap_err()
            .0;
        assert!(e.contains("messages[0].role"), "{e}");
        let e = parse(
            Kind::Chat,
            br#"{"messages":[{"role":"user","content":[{"type":"image_url"}]}]}"#,
        )
        .unwrap_err()
        .0;
        assert!(e.contains("only text parts"), "{e}");
    }

    #[test]
    fn responses_carry_usage_with_cached_tokens() {
        let u = Usage {
            prompt_tokens: 10,
            completion_tokens: 3,
            cached_tokens: 8,
        };
        let m = Meta::new(Kind::Chat, 1, 1_700_000_000, "m");
        let v = full_response(&m, " a b c", FinishReason::Length, &u);
        assert_eq!(v["object"], "chat.completion");
        assert_eq!(v["choices"][0]["message"]["content"], " a b c");
        assert_eq!(v["usage"]["prompt_tokens_details"]["cached_tokens"], 8);
        assert_eq!(v["usage"]["total_tokens"], 13);
        let end = sse_end(&m, &u, true);
        assert!(end.ends_with("data: [DONE]\n\n"));
        assert!(end.contains("\"choices\":[]"));
        let t = sse_token(
            &Meta::new(Kind::Completion, 2, 0, "m"),
            " x",
            Some(FinishReason::Length),
            false,
        );
        assert!(
            t.starts_with("data: {") && t.contains("\"finish_reason\":\"length\""),
            "{t}"
        );
    }
}
