//! The client's errors: each names the endpoint and what went wrong there.

use std::time::Duration;

/// Everything the client can fail with. Every variant names the URL it concerns.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No TCP connection (refused, DNS, TLS): the endpoint is not there.
    #[error("cannot reach {url}: {reason}")]
    Unreachable { url: String, reason: String },

    /// The server answered with an HTTP error; `message` is the server's own words.
    #[error("{url} answered HTTP {status}: {message}")]
    Http {
        url: String,
        status: u16,
        message: String,
    },

    /// A streaming request came back as something other than `text/event-stream`.
    #[error(
        "{url} cannot stream: asked for server-sent events, got content-type {content_type:?}{hint}"
    )]
    NotStreaming {
        url: String,
        content_type: String,
        hint: String,
    },

    /// No response, or no bytes on an open stream, within the limit.
    #[error("{url}: {what} timed out after {after:?}")]
    Timeout {
        url: String,
        what: &'static str,
        after: Duration,
    },

    /// The server sent something this client cannot read; `at` says where.
    #[error("{url}: unreadable response at {at}: {detail}")]
    Protocol {
        url: String,
        at: String,
        detail: String,
    },

    /// A request the caller built cannot be sent as asked (e.g. a prompt longer than the server's
    /// context); nothing was sent.
    #[error("{0}")]
    Refused(String),
}

pub type Result<T> = std::result::Result<T, Error>;

/// The server's message from an error body: OpenAI `{"error":{"message"}}`, vLLM/TGI
/// `{"message"}`/`{"error": "..."}`/`{"detail"}`, else the body text, cut to 500 bytes.
pub fn server_message(body: &[u8]) -> String {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
        let candidates = [
            v.pointer("/error/message"),
            v.get("message"),
            v.get("error"),
            v.get("detail"),
        ];
        for c in candidates.into_iter().flatten() {
            match c {
                serde_json::Value::String(s) => return s.clone(),
                serde_json::Value::Null => {}
                other if !other.is_object() => return other.to_string(),
                _ => {}
            }
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return "(empty body)".to_string();
    }
    let mut cut = text.len().min(500);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    if cut < text.len() {
        format!("{}…", &text[..cut])
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::server_message;

    #[test]
    fn server_message_shapes() {
        let cases: &[(&[u8], &str)] = &[
            (
                br#"{"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}}"#,
                "the request exceeds the available context size",
            ),
            (br#"{"object":"error","message":"model not found"}"#, "model not found"),
            (br#"{"error":"Input validation error"}"#, "Input validation error"),
            (br#"{"detail":"Not Found"}"#, "Not Found"),
            (b"Internal Server Error\n", "Internal Server Error"),
            (b"", "(empty body)"),
        ];
        for (body, want) in cases {
            assert_eq!(
                server_message(body),
                *want,
                "body {:?}",
                String::from_utf8_lossy(body)
            );
        }
        let long = vec![b'x'; 2000];
        assert_eq!(server_message(&long).chars().count(), 501);
    }
}
