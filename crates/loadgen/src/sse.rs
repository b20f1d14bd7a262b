//! Incremental server-sent-events decoder (the WHATWG rules the engines' streams follow).
//!
//! Bytes arrive in arbitrary TCP-sized pieces: a line, a CRLF pair or a UTF-8 character may be
//! split across two pieces. Lines end in LF, CRLF or a lone CR; `:` starts a comment (llama.cpp
//! sends `: ping` keep-alives); `data:` lines accumulate until a blank line dispatches the event.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, when the server set one (OpenAI streams do not).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// Byte offset in the stream just after the blank line that dispatched this event.
    pub end_offset: u64,
}

/// A stream this decoder cannot read, with the byte offset where it went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("byte {offset}: {detail}")]
pub struct SseError {
    pub offset: u64,
    pub detail: String,
}

/// Longest line accepted; a longer one is an error rather than unbounded growth.
pub const MAX_LINE_BYTES: usize = 16 << 20;

#[derive(Debug, Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    data: String,
    has_data: bool,
    event: Option<String>,
    /// The previous piece ended in CR; an LF that starts the next piece belongs to it.
    after_cr: bool,
    /// Bytes consumed so far.
    offset: u64,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Feed the next piece of the stream; returns the events it completed.
    pub fn feed(&mut self, piece: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut out = Vec::new();
        let mut rest = piece;
        if self.after_cr {
            self.after_cr = false;
            if let Some((&b'\n', tail)) = rest.split_first() {
                self.offset += 1;
                rest = tail;
            }
        }
        while !rest.is_empty() {
            match rest.iter().position(|&b| b == b'\n' || b == b'\r') {
                None => {
                    if self.line.len() + rest.len() > MAX_LINE_BYTES {
                        return Err(SseError {
                            offset: self.offset,
                            detail: format!("line longer than {MAX_LINE_BYTES} bytes"),
                        });
                    }
                    self.line.extend_from_slice(rest);
                    self.offset += rest.len() as u64;
                    rest = &[];
                }
                Some(i) => {
                    if self.line.len() + i > MAX_LINE_BYTES {
                        return Err(SseError {
                            offset: self.offset,
                            detail: format!("line longer than {MAX_LINE_BYTES} bytes"),
                        });
                    }
                    self.line.extend_from_slice(&rest[..i]);
                    let line_start = self.offset - (self.line.len() - i) as u64;
                    self.offset += i as u64 + 1;
                    let mut next = &rest[i + 1..];
                    if rest[i] == b'\r' {
                        match next.split_first() {
                            Some((&b'\n', tail)) => {
                                self.offset += 1;
                                next = tail;
                            }
                            Some(_) => {}
                            None => self.after_cr = true,
                        }
                    }
                    rest = next;
                    let line = std::mem::take(&mut self.line);
                    if let Some(ev) = self.line_done(&line, line_start)? {
                        out.push(ev);
                    }
                }
            }
        }
        Ok(out)
    }

    /// The stream ended: per the standard an unterminated event is discarded. Returns true when
    /// something was pending (a truncated stream).
    pub fn finish(&mut self) -> bool {
        let pending = !self.line.is_empty() || self.has_data;
        self.line.clear();
        self.data.clear();
        self.has_data = false;
        self.event = None;
        pending
    }

    fn line_done(&mut self, line: &[u8], line_start: u64) -> Result<Option<SseEvent>, SseError> {
        if line.is_empty() {
            if !self.has_data {
                self.event = None;
                return Ok(None);
            }
            self.has_data = false;
            return Ok(Some(SseEvent {
                event: self.event.take(),
                data: std::mem::take(&mut self.data),
                end_offset: self.offset,
            }));
        }
        if line[0] == b':' {
            return Ok(None);
        }
        let text = std::str::from_utf8(line).map_err(|e| SseError {
            offset: line_start + e.valid_up_to() as u64,
            detail: "invalid UTF-8 in an event line".to_string(),
        })?;
        let (field, value) = match text.find(':') {
            Some(c) => {
                let v = &text[c + 1..];
                (&text[..c], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (text, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_string()),
            // `id` and `retry` matter to reconnecting browsers, not to a one-shot client.
            _ => {}
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(stream: &[u8], cuts: &[usize]) -> Vec<String> {
        let mut d = SseDecoder::new();
        let mut out = Vec::new();
        let mut prev = 0;
        for &c in cuts.iter().chain(std::iter::once(&stream.len())) {
            out.extend(
                d.feed(&stream[prev..c])
                    .unwrap()
                    .into_iter()
                    .map(|e| e.data),
            );
            prev = c;
        }
        assert!(!d.finish(), "nothing pending at the end");
        out
    }

    #[test]
    fn every_split_point_gives_the_same_events() {
        let stream = "data: {\"a\":1}\r\n\r\n: ping\r\n\r\ndata: {\"b\":\"é\"}\n\ndata: [DONE]\r\r"
            .as_bytes();
        let want = vec!["{\"a\":1}", "{\"b\":\"é\"}", "[DONE]"];
        for i in 0..=stream.len() {
            for j in i..=stream.len() {
                assert_eq!(decode_in_pieces(stream, &[i, j]), want, "cuts at {i},{j}");
            }
        }
    }

    #[test]
    fn fields_comments_and_multiline_data() {
        let cases: &[(&str, &[&str])] = &[
            ("data:x\n\n", &["x"]),
            ("data:  two spaces\n\n", &[" two spaces"]),
            ("data: a\ndata: b\n\n", &["a\nb"]),
            (": comment only\n\n", &[]),
            ("event: ping\n\n", &[]),
            ("id: 7\nretry: 10\ndata: z\n\n", &["z"]),
            ("data\n\n", &[""]),
            ("data: unterminated", &[]),
        ];
        for (stream, want) in cases {
            let mut d = SseDecoder::new();
            let got: Vec<String> = d
                .feed(stream.as_bytes())
                .unwrap()
                .into_iter()
                .map(|e| e.data)
                .collect();
            assert_eq!(got, *want, "stream {stream:?}");
        }
    }

    #[test]
    fn event_field_is_kept_and_reset() {
        let mut d = SseDecoder::new();
        let evs = d.feed(b"event: error\ndata: bad\n\ndata: ok\n\n").unwrap();
        assert_eq!(evs[0].event.as_deref(), Some("error"));
        assert_eq!(evs[1].event, None);
        assert_eq!(evs[1].end_offset, 34);
    }

    #[test]
    fn truncated_stream_is_reported() {
        let mut d = SseDecoder::new();
        assert!(d.feed(b"data: {\"half\":").unwrap().is_empty());
        assert!(d.finish());
    }

    #[test]
    fn invalid_utf8_names_the_offset() {
        let mut d = SseDecoder::new();
        let err = d.feed(b"data: ok\n\ndata: \xff\n\n").unwrap_err();
        assert_eq!(err.offset, 16);
    }

    #[test]
    fn overlong_line_is_refused_not_buffered() {
        let mut d = SseDecoder::new();
        let chunk = vec![b'x'; 1 << 20];
        let mut failed = false;
        for _ in 0..20 {
            if d.feed(&chunk).is_err() {
                failed = true;
                break;
            }
        }
        assert!(failed);
    }
}
