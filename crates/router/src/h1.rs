//! HTTP/1.1 as a proxy needs it, and no more: heads parsed in place (httparse), headers kept as
//! byte ranges of the read buffer and copied out unchanged, and a body's framing followed byte
//! by byte, so a relayed body is forwarded as it arrives and its end is known (the connection
//! can then be reused). No header map is built and nothing is re-encoded: that is where a
//! general-purpose HTTP library spends a proxy's time.
use std::ops::Range;

/// Largest request or response head accepted.
pub const MAX_HEAD: usize = 64 << 10;
/// Most header lines accepted in one head.
pub const MAX_HEADERS: usize = 128;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeadError {
    /// Not HTTP/1.x, or a malformed line.
    Malformed(String),
    /// More than [`MAX_HEAD`] bytes or [`MAX_HEADERS`] lines.
    TooLarge,
    /// A framing the router does not take (a transfer-coding other than chunked, conflicting
    /// lengths).
    Framing(String),
}

impl std::fmt::Display for HeadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeadError::Malformed(why) => write!(f, "malformed HTTP head: {why}"),
            HeadError::TooLarge => write!(
                f,
                "HTTP head larger than {MAX_HEAD} bytes or {MAX_HEADERS} header lines"
            ),
            HeadError::Framing(why) => write!(f, "{why}"),
        }
    }
}

/// How a message body is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Exactly this many bytes (0: no body).
    Length(u64),
    Chunked,
    /// Until the connection closes (a response without length or chunking).
    Close,
}

/// One header line: byte ranges of its name and value in the buffer the head was parsed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub name: Range<usize>,
    pub value: Range<usize>,
}

/// What the proxy needs of any head, request or response.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Common {
    /// Bytes of the head, blank line included.
    pub len: usize,
    /// HTTP/1.x minor version.
    pub minor: u8,
    pub headers: Vec<Header>,
    pub content_length: Option<u64>,
    pub chunked: bool,
    /// `Connection: close` (or HTTP/1.0 without `keep-alive`): no further message on it.
    pub close: bool,
    /// Names listed in `Connection` (hop-by-hop by that listing), lowercased.
    pub connection_listed: Vec<Vec<u8>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestHead {
    pub common: Common,
    pub method: Range<usize>,
    /// The request target in origin form (`/path?query`); an absolute-form target is cut to it.
    pub target: Range<usize>,
    pub expect_continue: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseHead {
    pub common: Common,
    pub status: u16,
    pub reason: Range<usize>,
}

fn offset(buf: &[u8], part: &[u8]) -> Range<usize> {
    let start = part.as_ptr() as usize - buf.as_ptr() as usize;
    start..start + part.len()
}

fn malformed(e: httparse::Error) -> HeadError {
    match e {
        httparse::Error::TooManyHeaders => HeadError::TooLarge,
        e => HeadError::Malformed(e.to_string()),
    }
}

/// Reads the framing and connection headers common to requests and responses.
///
/// A request is held to the strict reading that closes request smuggling (RFC 9112 §6.1, §6.3,
/// §11.2): a second Content-Length (equal or not), Content-Length beside Transfer-Encoding,
/// Transfer-Encoding on HTTP/1.0, and any coding other than a single `chunked` are refused, so
/// the router and a replica can never disagree on where a body ends. A response only has to
/// be unambiguous: chunked wins over a length (which is then dropped), equal lengths collapse.
fn common(
    mut headers: Vec<Header>,
    buf: &[u8],
    len: usize,
    minor: u8,
    raw: &[httparse::Header],
    request: bool,
) -> Result<Common, HeadError> {
    let mut c = Common {
        len,
        minor,
        headers: {
            headers.clear();
            headers
        },
        ..Common::default()
    };
    let mut keep_alive = false;
    let mut transfer_encoding = false;
    for h in raw {
        let name = h.name.as_bytes();
        c.headers.push(Header {
            name: offset(buf, name),
            value: offset(buf, h.value),
        });
        if name.eq_ignore_ascii_case(b"content-length") {
            let v = std::str::from_utf8(h.value)
                .ok()
                .map(str::trim)
                .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| {
                    HeadError::Framing(format!(
                        "Content-Length {:?} is not a number",
                        String::from_utf8_lossy(h.value)
                    ))
                })?;
            if request && c.content_length.is_some() {
                return Err(HeadError::Framing("two Content-Length headers".into()));
            }
            if c.content_length.is_some_and(|old| old != v) {
                return Err(HeadError::Framing(
                    "two different Content-Length headers".into(),
                ));
            }
            c.content_length = Some(v);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            if request && transfer_encoding {
                return Err(HeadError::Framing("two Transfer-Encoding headers".into()));
            }
            if request && !trim(h.value).eq_ignore_ascii_case(b"chunked") {
                return Err(HeadError::Framing(format!(
                    "Transfer-Encoding {:?} is not supported: a request body may only be chunked",
                    String::from_utf8_lossy(h.value)
                )));
            }
            transfer_encoding = true;
            // Only `chunked` as the last coding frames the body; anything else is refused.
            let last = h.value.rsplit(|&b| b == b',').next().unwrap_or(b"");
            c.chunked = trim(last).eq_ignore_ascii_case(b"chunked");
        } else if name.eq_ignore_ascii_case(b"connection") {
            for token in h.value.split(|&b| b == b',').map(trim) {
                if token.eq_ignore_ascii_case(b"close") {
                    c.close = true;
                } else if token.eq_ignore_ascii_case(b"keep-alive") {
                    keep_alive = true;
                } else if !token.is_empty() {
                    c.connection_listed.push(token.to_ascii_lowercase());
                }
            }
        }
    }
    if transfer_encoding && !c.chunked {
        return Err(HeadError::Framing(
            "a Transfer-Encoding other than chunked is not supported".into(),
        ));
    }
    if request && c.chunked && c.content_length.is_some() {
        return Err(HeadError::Framing(
            "both Content-Length and Transfer-Encoding: the body's end would be ambiguous".into(),
        ));
    }
    if request && c.chunked && minor == 0 {
        return Err(HeadError::Framing(
            "Transfer-Encoding in an HTTP/1.0 request".into(),
        ));
    }
    if minor == 0 && !keep_alive {
        c.close = true;
    }
    Ok(c)
}

fn trim(b: &[u8]) -> &[u8] {
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &b[start..end]
}

/// Parses a request head at the start of `buf`: `Ok(None)` while incomplete. A whole head
/// takes `spare` as its header list (a connection hands back the last head's list: no
/// allocation per request).
pub fn parse_request(
    buf: &[u8],
    spare: &mut Vec<Header>,
) -> Result<Option<RequestHead>, HeadError> {
    let mut raw = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut raw);
    let Some(len) = head_len(req.parse(buf), buf)? else {
        return Ok(None);
    };
    let (Some(method), Some(path), Some(minor)) = (req.method, req.path, req.version) else {
        return Err(HeadError::Malformed("incomplete request line".into()));
    };
    let target = origin_form(path.as_bytes())
        .ok_or_else(|| HeadError::Malformed(format!("request target {path:?}")))?;
    let c = common(std::mem::take(spare), buf, len, minor, req.headers, true)?;
    let expect_continue = c.headers.iter().any(|h| {
        buf[h.name.clone()].eq_ignore_ascii_case(b"expect")
            && trim(&buf[h.value.clone()]).eq_ignore_ascii_case(b"100-continue")
    });
    let target = offset(buf, target);
    Ok(Some(RequestHead {
        common: c,
        method: offset(buf, method.as_bytes()),
        target,
        expect_continue,
    }))
}

/// The head's length once httparse has it whole; `None` while partial.
fn head_len(status: httparse::Result<usize>, buf: &[u8]) -> Result<Option<usize>, HeadError> {
    match status.map_err(malformed)? {
        httparse::Status::Partial if buf.len() > MAX_HEAD => Err(HeadError::TooLarge),
        httparse::Status::Partial => Ok(None),
        httparse::Status::Complete(len) if len > MAX_HEAD => Err(HeadError::TooLarge),
        httparse::Status::Complete(len) => Ok(Some(len)),
    }
}

/// `/path?q` as is; `http://host[:port]/path?q` cut to `/path?q`, `/` when it has neither
/// path nor query (one with a query but no path is refused rather than cut).
fn origin_form(target: &[u8]) -> Option<&[u8]> {
    if target.first() == Some(&b'/') {
        return Some(target);
    }
    let rest = target
        .strip_prefix(b"http://")
        .or_else(|| target.strip_prefix(b"https://"))?;
    match rest.iter().position(|&b| b == b'/' || b == b'?') {
        Some(p) if rest[p] == b'/' => Some(&rest[p..]),
        Some(_) => None,
        None => Some(b"/"),
    }
}

/// Parses a response head at the start of `buf`: `Ok(None)` while incomplete. `spare` as for
/// [`parse_request`].
pub fn parse_response(
    buf: &[u8],
    spare: &mut Vec<Header>,
) -> Result<Option<ResponseHead>, HeadError> {
    let mut raw = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut raw);
    let Some(len) = head_len(resp.parse(buf), buf)? else {
        return Ok(None);
    };
    let (Some(minor), Some(status)) = (resp.version, resp.code) else {
        return Err(HeadError::Malformed("incomplete status line".into()));
    };
    let reason = match resp.reason {
        Some(r) if !r.is_empty() => offset(buf, r.as_bytes()),
        _ => 0..0,
    };
    Ok(Some(ResponseHead {
        common: common(std::mem::take(spare), buf, len, minor, resp.headers, false)?,
        status,
        reason,
    }))
}

impl RequestHead {
    /// The request body's framing: chunked wins over a length (RFC 9112 §6.3); neither is none.
    pub fn framing(&self) -> Framing {
        if self.common.chunked {
            Framing::Chunked
        } else {
            Framing::Length(self.common.content_length.unwrap_or(0))
        }
    }
}

impl ResponseHead {
    /// The response body's framing, given the request method (a HEAD answer has no body).
    pub fn framing(&self, head_request: bool) -> Framing {
        if head_request
            || (100..200).contains(&self.status)
            || self.status == 204
            || self.status == 304
        {
            Framing::Length(0)
        } else if self.common.chunked {
            Framing::Chunked
        } else if let Some(n) = self.common.content_length {
            Framing::Length(n)
        } else {
            Framing::Close
        }
    }
}

// Hop-by-hop headers (RFC 9110 §7.6.1), and the ones the router sets itself.
const HOP_BY_HOP: [&[u8]; 10] = [
    b"connection",
    b"keep-alive",
    b"proxy-connection",
    b"proxy-authenticate",
    b"proxy-authorization",
    b"te",
    b"trailer",
    b"transfer-encoding",
    b"upgrade",
    b"host",
];

/// Whether a header stays behind when the message is forwarded: hop-by-hop ones, those the
/// `Connection` header names, and the ones the router rewrites. A request also loses `Expect`
/// (the router answers it) and `Content-Length` (recomputed); a response keeps its length when
/// the body is relayed unchanged.
pub fn dropped(name: &[u8], c: &Common, request: bool, keep_length: bool) -> bool {
    HOP_BY_HOP.iter().any(|h| name.eq_ignore_ascii_case(h))
        || (name.eq_ignore_ascii_case(b"content-length") && !keep_length)
        || (request && name.eq_ignore_ascii_case(b"expect"))
        || name.eq_ignore_ascii_case(b"x-headroom-replica")
        || name.eq_ignore_ascii_case(b"x-headroom-route")
        || c.connection_listed
            .iter()
            .any(|l| name.eq_ignore_ascii_case(l))
}

/// Appends the head's headers that are forwarded, as `name: value\r\n` lines.
pub fn forward_headers(
    out: &mut Vec<u8>,
    buf: &[u8],
    c: &Common,
    request: bool,
    keep_length: bool,
) {
    for h in &c.headers {
        let name = &buf[h.name.clone()];
        if !dropped(name, c, request, keep_length) {
            out.extend_from_slice(name);
            out.extend_from_slice(b": ");
            out.extend_from_slice(&buf[h.value.clone()]);
            out.extend_from_slice(b"\r\n");
        }
    }
}

/// Appends `n` in decimal.
pub fn push_decimal(out: &mut Vec<u8>, n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// The standard reason phrase (for the router's own answers).
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}

/// Follows a chunked body (RFC 9112 §7.1) through any split of its bytes: finds where it ends,
/// and optionally collects the data it carries. Chunk extensions and trailers are skipped.
#[derive(Debug, Clone, Default)]
pub struct Chunked {
    state: ChunkState,
    /// Data bytes left in the current chunk, or the size being read.
    n: u64,
    digits: u8,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum ChunkState {
    #[default]
    Size,
    /// After the size: an extension until the line ends.
    SizeRest,
    Data,
    /// The CRLF after a chunk's data.
    DataEnd,
    /// At the start of a trailer line (an empty one ends the body).
    TrailerStart,
    TrailerLine,
    /// The LF of the final empty line.
    LastLf,
    Done,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkError(pub String);

impl std::fmt::Display for ChunkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bad chunked encoding: {}", self.0)
    }
}

impl Chunked {
    pub fn is_done(&self) -> bool {
        self.state == ChunkState::Done
    }

    /// Consumes bytes of the body; returns how many belong to it (all of `input` unless the
    /// body ends inside it). Data bytes are appended to `data` when given.
    pub fn feed(
        &mut self,
        input: &[u8],
        mut data: Option<&mut Vec<u8>>,
    ) -> Result<usize, ChunkError> {
        let mut i = 0;
        while i < input.len() {
            let b = input[i];
            match self.state {
                ChunkState::Size => match b {
                    b'0'..=b'9' | b'a'..=b'f' | b'A'..=b'F' => {
                        if self.digits == 15 {
                            return Err(ChunkError("chunk size too large".into()));
                        }
                        let d = (b as char).to_digit(16).unwrap_or(0) as u64;
                        self.n = self.n << 4 | d;
                        self.digits += 1;
                    }
                    _ if self.digits == 0 => {
                        return Err(ChunkError(format!(
                            "expected a chunk size, found byte {b:#04x}"
                        )))
                    }
                    b'\n' => self.end_size(),
                    _ => self.state = ChunkState::SizeRest,
                },
                ChunkState::SizeRest => {
                    if b == b'\n' {
                        self.end_size();
                    }
                }
                ChunkState::Data => {
                    let take = (input.len() - i).min(self.n as usize);
                    if let Some(d) = data.as_deref_mut() {
                        d.extend_from_slice(&input[i..i + take]);
                    }
                    self.n -= take as u64;
                    i += take;
                    if self.n == 0 {
                        self.state = ChunkState::DataEnd;
                    }
                    continue;
                }
                ChunkState::DataEnd => match b {
                    b'\r' => {}
                    b'\n' => self.state = ChunkState::Size,
                    _ => return Err(ChunkError("chunk data longer than its size".into())),
                },
                ChunkState::TrailerStart => match b {
                    b'\r' => self.state = ChunkState::LastLf,
                    b'\n' => {
                        self.state = ChunkState::Done;
                        return Ok(i + 1);
                    }
                    _ => self.state = ChunkState::TrailerLine,
                },
                ChunkState::TrailerLine => {
                    if b == b'\n' {
                        self.state = ChunkState::TrailerStart;
                    }
                }
                ChunkState::LastLf => {
                    if b != b'\n' {
                        return Err(ChunkError("expected LF after the last chunk".into()));
                    }
                    self.state = ChunkState::Done;
                    return Ok(i + 1);
                }
                ChunkState::Done => return Ok(i),
            }
            i += 1;
        }
        Ok(i)
    }

    fn end_size(&mut self) {
        self.digits = 0;
        self.state = if self.n == 0 {
            ChunkState::TrailerStart
        } else {
            ChunkState::Data
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(buf: &[u8], r: &Range<usize>) -> String {
        String::from_utf8_lossy(&buf[r.clone()]).into_owned()
    }

    #[test]
    fn request_heads() {
        let raw = b"POST http://router:9000/v1/chat/completions?x=1 HTTP/1.1\r\nHost: router\r\nContent-Length: 12\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\nAuthorization: Bearer k\r\nExpect: 100-continue\r\n\r\n{\"a\":1}";
        let h = parse_request(raw, &mut Vec::new()).unwrap().unwrap();
        assert_eq!(text(raw, &h.method), "POST");
        assert_eq!(text(raw, &h.target), "/v1/chat/completions?x=1");
        assert_eq!(h.framing(), Framing::Length(12));
        assert!(h.expect_continue && !h.common.close);
        assert_eq!(&raw[h.common.len..], b"{\"a\":1}");
        let mut out = Vec::new();
        forward_headers(&mut out, raw, &h.common, true, false);
        assert_eq!(out, b"Authorization: Bearer k\r\n");

        assert_eq!(
            parse_request(b"GET / HTTP/1.1\r\nHost: a\r\n", &mut Vec::new()).unwrap(),
            None
        );
        let h = parse_request(b"GET / HTTP/1.0\r\n\r\n", &mut Vec::new())
            .unwrap()
            .unwrap();
        assert!(h.common.close, "HTTP/1.0 closes unless keep-alive");
        let h = parse_request(
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            &mut Vec::new(),
        )
        .unwrap()
        .unwrap();
        assert_eq!(h.framing(), Framing::Chunked);
        for bad in [
            // Smuggling shapes: each would let two parsers disagree on the body's end.
            &b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"[..],
            b"POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
            b"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
            b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
            b"POST / HTTP/1.1\r\nContent-Length: 3\r\n X-Folded: 1\r\n\r\n",
            b"POST / HTTP/1.1\r\nX-A: 1\r\n\tContent-Length: 3\r\n\r\n",
            b"POST / HTTP/1.1\r\nContent-Length : 3\r\n\r\n",
            b"POST / HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\n",
            b"POST / HTTP/1.1\r\nContent-Length: +3\r\n\r\n",
            &b"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n"[..],
            b"POST / HTTP/1.1\r\nContent-Length: -3\r\n\r\n",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
            b"GET * HTTP/1.1\r\n\r\n",
            b"GET http://h?q=1 HTTP/1.1\r\n\r\n",
            b"NOT HTTP\r\n\r\n",
        ] {
            assert!(
                parse_request(bad, &mut Vec::new()).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let mut big = b"GET / HTTP/1.1\r\n".to_vec();
        while big.len() <= MAX_HEAD {
            big.extend_from_slice(b"X-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n");
        }
        assert_eq!(
            parse_request(&big, &mut Vec::new()),
            Err(HeadError::TooLarge)
        );
    }

    #[test]
    fn response_framing() {
        let p = |raw: &[u8], head: bool| {
            parse_response(raw, &mut Vec::new())
                .unwrap()
                .unwrap()
                .framing(head)
        };
        assert_eq!(
            p(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", false),
            Framing::Length(5)
        );
        assert_eq!(
            p(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", true),
            Framing::Length(0)
        );
        assert_eq!(
            p(
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                false
            ),
            Framing::Chunked
        );
        assert_eq!(p(b"HTTP/1.1 200 OK\r\n\r\n", false), Framing::Close);
        assert_eq!(
            p(b"HTTP/1.1 204 No Content\r\n\r\n", false),
            Framing::Length(0)
        );
        let raw = b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n";
        let h = parse_response(raw, &mut Vec::new()).unwrap().unwrap();
        assert_eq!(
            (h.status, text(raw, &h.reason), h.common.close),
            (503, "Service Unavailable".into(), true)
        );
        assert_eq!(
            parse_response(b"HTTP/1.1 200 OK\r\n", &mut Vec::new()).unwrap(),
            None
        );
    }

    #[test]
    fn chunked_bodies_end_where_they_end_in_any_split() {
        let body = b"5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\nNEXT";
        let end = body.len() - 4;
        for cut in 0..=body.len() {
            for cut2 in cut..=body.len() {
                let mut c = Chunked::default();
                let mut data = Vec::new();
                let mut taken = 0;
                for part in [&body[..cut], &body[cut..cut2], &body[cut2..]] {
                    if c.is_done() {
                        break;
                    }
                    taken += c.feed(part, Some(&mut data)).unwrap();
                }
                assert!(c.is_done(), "cuts {cut} {cut2}");
                assert_eq!(taken, end, "cuts {cut} {cut2}");
                assert_eq!(data, b"hello world");
            }
        }
        let mut c = Chunked::default();
        assert_eq!(c.feed(b"0\r\n\r\n", None), Ok(5));
        assert!(c.is_done());
        for bad in [
            &b"x\r\n"[..],
            b"3\r\nabcd\r\n",
            b"ffffffffffffffff\r\n",
            b"0\r\n\rx",
        ] {
            assert!(
                Chunked::default().feed(bad, None).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let mut c = Chunked::default();
        assert_eq!(c.feed(b"4\r\nab", None), Ok(5));
        assert!(!c.is_done(), "a body cut short has not ended");
    }

    #[test]
    fn decimals() {
        for n in [0u64, 7, 10, 1214, u64::MAX] {
            let mut out = Vec::new();
            push_decimal(&mut out, n);
            assert_eq!(out, n.to_string().as_bytes());
        }
    }
}
