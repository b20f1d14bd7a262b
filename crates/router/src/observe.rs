//! What the router tells an observer about each proxied request that carried a prompt
//! (`headroom route --trace` records these). Nothing is copied unless an observer is set.
use std::sync::Arc;
use std::time::Instant;

/// One request a replica answered (or was answering when the client left).
#[derive(Debug, Clone)]
pub struct Exchange {
    /// Index of the replica, in `Config::backends` order.
    pub replica: usize,
    /// The path the client sent, without its query.
    pub path: String,
    /// The request body as received.
    pub body: Vec<u8>,
    /// The router's conversation key: the key of the conversation's opening turn (the oldest
    /// of its history keys, else its own), so every turn of one conversation has the same one.
    pub conversation: Option<u64>,
    pub arrived: Instant,
    /// The replica's first response byte; `None` when the client left before it.
    pub first_byte: Option<Instant>,
    pub ended: Instant,
    /// The replica's status; `None` when the client left before it.
    pub status: Option<u16>,
    /// The response body (de-chunked), whole when it is at most [`Capture::WHOLE`] bytes,
    /// else its last [`Capture::TAIL`] bytes: a stream's final usage chunk is at its end.
    pub response: Capture,
}

/// Receives each [`Exchange`]; called on the worker that served it, so it must not block.
pub type Observer = Arc<dyn Fn(Exchange) + Send + Sync>;

/// A response body kept whole while small, else its tail.
#[derive(Debug, Clone, Default)]
pub struct Capture {
    pub bytes: Vec<u8>,
    /// The front was dropped: `bytes` is the tail only.
    pub truncated: bool,
}

impl Capture {
    /// Bodies up to this size are kept whole (a non-streamed answer is one JSON document).
    pub const WHOLE: usize = 1 << 20;
    /// What is kept of a longer body.
    pub const TAIL: usize = 64 << 10;

    pub fn push(&mut self, data: &[u8]) {
        self.bytes.extend_from_slice(data);
        if self.bytes.len() > Self::WHOLE {
            let cut = self.bytes.len() - Self::TAIL;
            self.bytes.drain(..cut);
            self.truncated = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_body_keeps_its_tail() {
        let mut c = Capture::default();
        c.push(b"{\"a\":1}");
        assert_eq!(
            (c.bytes.as_slice(), c.truncated),
            (&b"{\"a\":1}"[..], false)
        );
        c.push(&vec![b'x'; Capture::WHOLE]);
        c.push(b"end");
        assert!(c.truncated);
        // Cut to the tail when it passed the whole size; what comes after is kept.
        assert_eq!(c.bytes.len(), Capture::TAIL + 3);
        assert!(c.bytes.ends_with(b"xend"));
    }
}
