//! Conversation identity, taken from a request body once, before routing.
//!
//! Identity is the model plus the canonical messages (or prompt), hashed over the FIRST N bytes
//!. The trap: when the opening turn is shorter than N, a key over "the first N
//! bytes of this request" covers the later turns too, differs on every turn, and pinning
//! silently never happens. So a request yields several keys, one per place where an earlier
//! turn of the same conversation ended, each truncated to N:
//!
//! - `whole`: the canonical request itself, truncated to N. Recorded against the replica that
//!   serves it.
//! - `history`: the conversation as it stood just before each assistant message, truncated to
//!   N, latest first. The messages before turn k+1's last assistant message are exactly turn
//!   k's messages, so `history[0]` of turn k+1 equals `whole` of turn k, whatever the length of
//!   the opening turn. Once the conversation is longer than N, every later key is the same
//!   N-byte prefix, so long conversations keep one key for life.
//!
//! The canonical form is prefix-preserving: appending messages appends bytes. It ignores JSON
//! whitespace, key order, `null` fields, and the difference between a string content and a
//! single text part, so a client that re-serialises its history still finds its replica.
//! See docs/route.md for the whole design.
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hasher};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// What the routing policy needs from one request body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestFacts {
    /// Chat messages in the request; 0 for a prompt or a body that is not a chat request.
    pub messages: usize,
    /// Key of the whole request (its first N canonical bytes); `None` when the body carries
    /// neither `messages` nor `prompt`.
    pub whole: Option<u64>,
    /// Keys of the conversation just before each assistant message, latest first, no repeats.
    pub history: Vec<u64>,
    /// The body asks for a streamed answer (`"stream": true`).
    pub stream: bool,
}

impl RequestFacts {
    /// The shape rule: more than one message is a continuation (an agent loop re-sending
    /// its context); anything else is a new request.
    pub fn is_continuation(&self) -> bool {
        self.messages > 1
    }
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow)]
    messages: Option<Vec<&'a RawValue>>,
    #[serde(borrow)]
    prompt: Option<&'a RawValue>,
    #[serde(borrow)]
    stream: Option<&'a RawValue>,
}

fn is_true(v: Option<&RawValue>) -> bool {
    v.is_some_and(|v| v.get() == "true")
}

/// A message with a role, a string (or null) content and nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainMessage<'a> {
    #[serde(borrow)]
    role: Cow<'a, str>,
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
}

fn out_plain(m: &PlainMessage, out: &mut Vec<u8>) {
    out.extend_from_slice(m.role.as_bytes());
    out.push(SEP);
    if let Some(text) = &m.content {
        text_part(text, out);
    }
    out.push(END);
}

#[derive(Deserialize)]
struct RoleOnly<'a> {
    #[serde(borrow)]
    role: Option<Cow<'a, str>>,
}

// Separators that cannot occur in the role names and keep fields from running together.
const TEXT: u8 = 0x02;
const PART: u8 = 0x03;
const FIELD: u8 = 0x1d;
const END: u8 = 0x1e;
const SEP: u8 = 0x1f;

/// Takes the routing facts from a request body; `prefix_bytes` is N. The prompt is the body's
/// `messages`, else its `prompt` (the OpenAI shapes). A body that is not JSON, or not an
/// object, yields no keys (the request is spread and the replica answers it).
pub fn facts(body: &[u8], prefix_bytes: usize) -> RequestFacts {
    let Ok(env) = serde_json::from_slice::<Envelope>(body) else {
        return RequestFacts::default();
    };
    let model = env.model.as_deref().unwrap_or("");
    let mut f = if let Some(messages) = env.messages {
        messages_facts(model, &messages, prefix_bytes)
    } else if let Some(prompt) = env.prompt {
        prompt_facts(model, prompt, prefix_bytes)
    } else {
        RequestFacts::default()
    };
    f.stream = is_true(env.stream);
    f
}

/// As [`facts`], for an engine's own API: the prompt is the first of `fields` the body has
/// (`messages` read as chat messages, any other field as a prompt: a string, or an array of
/// strings or tokens). With no fields given, or only OpenAI's, the OpenAI shapes ([`facts`]).
pub fn facts_in<S: AsRef<str>>(body: &[u8], prefix_bytes: usize, fields: &[S]) -> RequestFacts {
    // OpenAI's fields take the typed (faster) path; it reads `messages`, else `prompt`.
    if fields
        .iter()
        .all(|f| matches!(f.as_ref(), "messages" | "prompt"))
    {
        return facts(body, prefix_bytes);
    }
    let Ok(map) = serde_json::from_slice::<HashMap<Cow<str>, &RawValue>>(body) else {
        return RequestFacts::default();
    };
    let model = map
        .get("model")
        .and_then(|m| serde_json::from_str::<Cow<str>>(m.get()).ok());
    let model = model.as_deref().unwrap_or("");
    let found = fields
        .iter()
        .find_map(|f| map.get(f.as_ref()).map(|raw| (f.as_ref(), *raw)));
    let mut f = match found {
        Some(("messages", raw)) => match serde_json::from_str::<Vec<&RawValue>>(raw.get()) {
            Ok(messages) => messages_facts(model, &messages, prefix_bytes),
            Err(_) => RequestFacts::default(),
        },
        Some((_, raw)) => prompt_facts(model, raw, prefix_bytes),
        None => RequestFacts::default(),
    };
    f.stream = is_true(map.get("stream").copied());
    f
}

fn messages_facts(model: &str, messages: &[&RawValue], prefix_bytes: usize) -> RequestFacts {
    let mut hash = PrefixHash::new(prefix_bytes, model);
    let mut history = Vec::new();
    let mut buf = Vec::new();
    for raw in messages {
        if hash.is_full() {
            // Every later boundary has the same (truncated) key: only ask whether one exists.
            let role = serde_json::from_str::<RoleOnly>(raw.get())
                .ok()
                .and_then(|m| m.role);
            if role.as_deref() == Some("assistant") {
                history.push(hash.key());
                break;
            }
            continue;
        }
        buf.clear();
        // Most messages are a role and a string: canonicalise those without building a
        // JSON tree (same bytes as the general path, which the tests check).
        let role_is_assistant = match serde_json::from_str::<PlainMessage>(raw.get()) {
            Ok(m) => {
                out_plain(&m, &mut buf);
                m.role == "assistant"
            }
            Err(_) => {
                let msg: Value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
                canonical_message(&msg, &mut buf);
                msg.get("role").and_then(Value::as_str) == Some("assistant")
            }
        };
        if role_is_assistant && hash.fed > 0 {
            history.push(hash.key());
        }
        hash.feed(&buf);
    }
    history.reverse();
    history.dedup();
    RequestFacts {
        messages: messages.len(),
        whole: Some(hash.key()),
        history,
        stream: false,
    }
}

fn prompt_facts(model: &str, prompt: &RawValue, prefix_bytes: usize) -> RequestFacts {
    let mut hash = PrefixHash::new(prefix_bytes, model);
    let mut buf = Vec::new();
    match serde_json::from_str::<Value>(prompt.get()) {
        Ok(Value::String(s)) => text_part(&s, &mut buf),
        Ok(Value::Array(items)) => {
            for item in &items {
                match item {
                    Value::String(s) => text_part(s, &mut buf),
                    other => canonical_json(other, &mut buf),
                }
                buf.push(END);
            }
        }
        Ok(other) => canonical_json(&other, &mut buf),
        Err(_) => return RequestFacts::default(),
    }
    hash.feed(&buf);
    RequestFacts {
        messages: 0,
        whole: Some(hash.key()),
        history: Vec::new(),
        stream: false,
    }
}

/// A streaming hash over at most `limit` bytes, seeded with the model name.
struct PrefixHash {
    hasher: DefaultHasher,
    left: usize,
    fed: usize,
}

impl PrefixHash {
    fn new(limit: usize, model: &str) -> Self {
        let mut hasher = DefaultHasher::new();
        hasher.write(model.as_bytes());
        hasher.write(&[0]);
        PrefixHash {
            hasher,
            left: limit,
            fed: 0,
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        let n = bytes.len().min(self.left);
        self.hasher.write(&bytes[..n]);
        self.left -= n;
        self.fed += n;
    }

    fn is_full(&self) -> bool {
        self.left == 0
    }

    fn key(&self) -> u64 {
        self.hasher.clone().finish()
    }
}

/// One message: role, content parts, then its other fields (tool calls, tool call id, name)
/// in key order, `null`s dropped, closed by END.
fn canonical_message(msg: &Value, out: &mut Vec<u8>) {
    let Value::Object(map) = msg else {
        canonical_json(msg, out);
        out.push(END);
        return;
    };
    if let Some(Value::String(role)) = map.get("role") {
        out.extend_from_slice(role.as_bytes());
    }
    out.push(SEP);
    match map.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => text_part(s, out),
        Some(Value::Array(parts)) => {
            for part in parts {
                let text = (part.get("type").and_then(Value::as_str) == Some("text"))
                    .then(|| part.get("text").and_then(Value::as_str))
                    .flatten();
                match text {
                    // A lone text part and a string content are the same prompt.
                    Some(t) if part.as_object().is_some_and(|o| o.len() == 2) => text_part(t, out),
                    _ => {
                        out.push(PART);
                        canonical_json(part, out);
                    }
                }
            }
        }
        Some(other) => {
            out.push(PART);
            canonical_json(other, out);
        }
    }
    let mut rest: Vec<(&String, &Value)> = map
        .iter()
        .filter(|(k, v)| k.as_str() != "role" && k.as_str() != "content" && !v.is_null())
        .collect();
    rest.sort_by(|a, b| a.0.cmp(b.0));
    for (k, v) in rest {
        out.push(FIELD);
        out.extend_from_slice(k.as_bytes());
        out.push(SEP);
        canonical_json(v, out);
    }
    out.push(END);
}

fn text_part(text: &str, out: &mut Vec<u8>) {
    if !text.is_empty() {
        out.push(TEXT);
        out.extend_from_slice(text.as_bytes());
    }
}

/// Compact JSON with object keys sorted at every level, so key order and whitespace do not
/// change the identity.
fn canonical_json(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push(b'{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                // Writing a string into a Vec cannot fail.
                let _ = serde_json::to_writer(&mut *out, k);
                out.push(b':');
                canonical_json(&map[k], out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical_json(item, out);
            }
            out.push(b']');
        }
        scalar => {
            let _ = serde_json::to_writer(&mut *out, scalar);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const N: usize = 4096;

    fn f(body: &Value) -> RequestFacts {
        facts(serde_json::to_vec(body).unwrap().as_slice(), N)
    }

    fn chat(messages: Value) -> Value {
        json!({"model": "m", "stream": true, "messages": messages})
    }

    #[test]
    fn streaming_hash_is_chunking_invariant() {
        let mut a = PrefixHash::new(100, "m");
        a.feed(b"hello world");
        let mut b = PrefixHash::new(100, "m");
        b.feed(b"hel");
        b.feed(b"lo wo");
        b.feed(b"rld");
        assert_eq!(a.key(), b.key());
        let mut c = PrefixHash::new(5, "m");
        c.feed(b"hello world");
        let mut d = PrefixHash::new(5, "m");
        d.feed(b"hello there");
        assert_eq!(c.key(), d.key(), "only the first N bytes count");
    }

    #[test]
    fn not_a_chat_or_prompt_has_no_key() {
        for body in [
            &b"not json"[..],
            b"[1,2]",
            b"{}",
            b"{\"input\":\"embed me\"}",
            b"",
        ] {
            assert_eq!(
                facts(body, N),
                RequestFacts::default(),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn engine_fields_are_read_like_a_prompt_and_stream_is_seen() {
        // SGLang's /generate keeps its prompt in `text`, TGI's in `inputs`: one row for both.
        let fields = ["text", "inputs"];
        let sglang = br#"{"text":"Once upon a time","stream":true,"sampling_params":{}}"#;
        let tgi = br#"{"inputs":"Once upon a time","parameters":{}}"#;
        let (a, b) = (facts_in(sglang, N, &fields), facts_in(tgi, N, &fields));
        assert!(a.whole.is_some() && a.stream);
        assert_eq!(
            (a.whole, b.stream),
            (b.whole, false),
            "same prompt, same key"
        );
        // The same text under `prompt` on /v1/completions: the same identity.
        let openai = br#"{"prompt":"Once upon a time"}"#;
        assert_eq!(facts(openai, N).whole, a.whole);
        // A messages field reads as chat messages.
        let chat = br#"{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":false}"#;
        assert_eq!(facts_in(chat, N, &["messages"]), facts(chat, N));
        // None of the fields: no key; not JSON: nothing.
        assert_eq!(facts_in(br#"{"content":"x"}"#, N, &fields).whole, None);
        assert_eq!(facts_in(b"nope", N, &fields), RequestFacts::default());
        assert!(facts(br#"{"prompt":"x","stream":true}"#, N).stream);
        assert!(!facts(br#"{"prompt":"x","stream":"true"}"#, N).stream);
    }

    #[test]
    fn formatting_does_not_change_identity() {
        let a = br#"{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"},{"role":"user","content":"more"}]}"#;
        let b = br#"{ "messages" : [ {"content":"hi", "role":"user"}, {"role":"assistant","content":[{"type":"text","text":"yo"}],"refusal":null}, {"role":"user","content":"more"} ], "model":"m", "max_tokens": 5 }"#;
        assert_eq!(facts(a, N), facts(b, N));
    }

    #[test]
    fn plain_messages_canonicalise_like_the_general_path() {
        for raw in [
            r#"{"role":"user","content":"hi \"there\" \u00e9"}"#,
            r#"{"role":"assistant","content":null}"#,
            r#"{"role":"assistant","content":""}"#,
            r#"{"role":"system"}"#,
        ] {
            let plain: PlainMessage = serde_json::from_str(raw).unwrap();
            let (mut fast, mut general) = (Vec::new(), Vec::new());
            out_plain(&plain, &mut fast);
            canonical_message(&serde_json::from_str(raw).unwrap(), &mut general);
            assert_eq!(fast, general, "{raw}");
        }
        for other in [
            r#"{"role":"user","content":[{"type":"text","text":"x"}]}"#,
            r#"{"role":"tool","content":"x","tool_call_id":"c"}"#,
        ] {
            assert!(
                serde_json::from_str::<PlainMessage>(other).is_err(),
                "{other} takes the general path"
            );
        }
    }

    #[test]
    fn model_is_part_of_identity() {
        let a = f(&json!({"model": "a", "messages": [{"role": "user", "content": "x"}]}));
        let b = f(&json!({"model": "b", "messages": [{"role": "user", "content": "x"}]}));
        assert_ne!(a.whole, b.whole);
    }

    #[test]
    fn prompt_requests_have_a_whole_key_only() {
        let a = f(&json!({"model": "m", "prompt": "Once upon a time"}));
        assert_eq!(a.messages, 0);
        assert!(a.whole.is_some() && a.history.is_empty());
        assert!(!a.is_continuation());
        let b = f(&json!({"model": "m", "prompt": ["Once upon a time"]}));
        assert!(b.whole.is_some());
    }

    /// Turn k+1's latest history key is turn k's whole key, for short and long openings.
    #[test]
    fn next_turn_finds_previous_turn() {
        let long_system = "You are a careful assistant. ".repeat(400); // ~11.6 KiB > N
        for (label, opening) in [
            ("short opening", "hi".to_string()),
            ("long system prompt", long_system),
        ] {
            let mut msgs = vec![
                json!({"role": "system", "content": opening}),
                json!({"role": "user", "content": "q1"}),
            ];
            let mut prev = f(&chat(json!(msgs.clone())));
            for turn in 2..6 {
                msgs.push(json!({"role": "assistant", "content": format!("answer {turn}")}));
                msgs.push(json!({"role": "user", "content": format!("question {turn}")}));
                let now = f(&chat(json!(msgs.clone())));
                assert!(now.is_continuation());
                assert_eq!(
                    now.history.first().copied(),
                    prev.whole,
                    "{label}: turn {turn}"
                );
                prev = now;
            }
        }
    }

    #[test]
    fn long_conversations_keep_one_key() {
        let big = "x".repeat(N);
        let one = f(&chat(
            json!([{"role": "system", "content": big}, {"role": "user", "content": "a"}]),
        ));
        let two = f(&chat(json!([
            {"role": "system", "content": big}, {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}
        ])));
        assert_eq!(one.whole, two.whole);
        assert_eq!(two.history, vec![one.whole.unwrap()]);
    }

    #[test]
    fn short_conversations_carry_every_earlier_turn() {
        let two = f(&chat(json!([
            {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
            {"role": "user", "content": "c"}, {"role": "assistant", "content": "d"},
            {"role": "user", "content": "e"}
        ])));
        assert_eq!(two.messages, 5);
        assert_eq!(
            two.history.len(),
            2,
            "one key per earlier turn, latest first"
        );
        let first = f(&chat(json!([{"role": "user", "content": "a"}])));
        assert_eq!(two.history[1], first.whole.unwrap());
    }

    #[test]
    fn tool_calls_and_content_arrays_are_identity() {
        let base = json!([
            {"role": "user", "content": [
                {"type": "text", "text": "what is in this image?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
            ]},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "look", "arguments": "{\"zoom\":2}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "a cat"}
        ]);
        let turn1 = f(&chat(json!([base[0].clone()])));
        let turn2 = f(&chat(base.clone()));
        assert_eq!(turn2.history.first().copied(), turn1.whole);
        let mut other_image = base.clone();
        other_image[0]["content"][1]["image_url"]["url"] = json!("data:image/png;base64,BBBB");
        assert_ne!(
            f(&chat(other_image)).whole,
            turn2.whole,
            "the image is part of identity"
        );
        let mut other_args = base.clone();
        other_args[1]["tool_calls"][0]["function"]["arguments"] = json!("{\"zoom\":3}");
        assert_ne!(
            f(&chat(other_args)).whole,
            turn2.whole,
            "tool arguments are part of identity"
        );
    }

    #[test]
    fn assistant_first_has_no_empty_history_key() {
        let a = f(&chat(
            json!([{"role": "assistant", "content": "hello"}, {"role": "user", "content": "x"}]),
        ));
        assert!(a.history.is_empty(), "an empty prefix is no conversation");
    }
}
