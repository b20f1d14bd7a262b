//! Streaming walk over Kineto's Chrome-trace JSON.
//!
//! The top-level object is walked key by key; `traceEvents` is handed out one event at a time,
//! borrowed from a bounded buffer, and every other top-level value is skipped except the small
//! `deviceProperties` list. Memory is one buffer (grown only while a single JSON value does not
//! fit, up to [`MAX_ITEM`]), whatever the size of the file.
//!
//! Each step of the walk is atomic: it parses from the committed position and commits only when
//! the whole item (an event, a top-level key and its value, a separator) is in the buffer. When
//! the buffer runs out mid-item, more is read and the item is parsed again from its start. At the
//! end of the input a partial item becomes a [`Stop`] that says where the complete part ended.

use memchr::memchr2;
use std::io::Read;

/// Bytes requested from the source per read.
const CHUNK: usize = 1 << 20;
/// The largest single JSON value (one event, or one top-level value other than `traceEvents`)
/// that is buffered whole. A larger one stops the walk with a clear error instead of growing
/// memory without bound.
pub const MAX_ITEM: usize = 64 << 20;
/// Deepest nesting accepted inside a skipped value.
const MAX_DEPTH: usize = 256;

/// Why the walk ended before the end of a well-formed trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    /// Byte offset in the (decompressed) JSON where the unread or broken part begins.
    pub offset: u64,
    /// Complete events handed out before the stop.
    pub events: u64,
    pub kind: StopKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopKind {
    /// The input ended (or the decompressor failed, see `io`) inside `what`.
    Truncated { what: String, io: Option<String> },
    /// The bytes at `offset` are not the JSON expected there.
    Invalid { expected: &'static str },
    /// One JSON value is larger than [`MAX_ITEM`].
    TooLarge,
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            StopKind::Truncated { what, io } => {
                write!(f, "input ends inside {what} at byte {}", self.offset)?;
                if let Some(e) = io {
                    write!(f, " (read error: {e})")?;
                }
                Ok(())
            }
            StopKind::Invalid { expected } => {
                write!(
                    f,
                    "invalid JSON at byte {}: expected {expected}",
                    self.offset
                )
            }
            StopKind::TooLarge => write!(
                f,
                "a single JSON value starting at byte {} is larger than {} MiB",
                self.offset,
                MAX_ITEM >> 20
            ),
        }
    }
}

/// A parse failure inside the buffer: need more bytes, or the bytes are wrong at `pos`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum P {
    Incomplete,
    Invalid(usize, &'static str),
}
type Pr<T> = Result<T, P>;

/// One entry of the top-level `deviceProperties` list.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub struct DeviceProperty {
    pub id: i64,
    #[serde(default)]
    pub name: String,
}

/// A value's location inside an event object: `start..end` relative to the object's first byte.
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    start: u32,
    end: u32,
}

/// One event of `traceEvents`, borrowed from the reader's buffer. Fields are located, not
/// decoded: a consumer decodes only what it needs.
pub struct RawEvent<'a> {
    /// Byte offset of the event's `{` in the JSON.
    pub offset: u64,
    /// Position of the event in `traceEvents`, from 0.
    pub index: u64,
    obj: &'a [u8],
    ph: Option<Span>,
    cat: Option<Span>,
    name: Option<Span>,
    pid: Option<Span>,
    tid: Option<Span>,
    ts: Option<Span>,
    dur: Option<Span>,
    args: Option<Span>,
}

impl<'a> RawEvent<'a> {
    fn slice(&self, s: Option<Span>) -> Option<&'a [u8]> {
        s.map(|s| &self.obj[s.start as usize..s.end as usize])
    }
    /// The raw contents of a string field (between the quotes, escapes not decoded), or None
    /// when the field is absent or not a string.
    fn str_field(&self, s: Option<Span>) -> Option<&'a [u8]> {
        let v = self.slice(s)?;
        (v.len() >= 2 && v[0] == b'"').then(|| &v[1..v.len() - 1])
    }
    pub fn ph(&self) -> Option<&'a [u8]> {
        self.str_field(self.ph)
    }
    pub fn cat(&self) -> Option<&'a [u8]> {
        self.str_field(self.cat)
    }
    /// The raw name bytes (between quotes, escapes not decoded): cheap prefix tests.
    pub fn name_raw(&self) -> Option<&'a [u8]> {
        self.str_field(self.name)
    }
    /// The decoded name.
    pub fn name(&self) -> Option<std::borrow::Cow<'a, str>> {
        decode_string(self.slice(self.name)?)
    }
    pub fn ts_ns(&self) -> Option<i64> {
        parse_us_as_ns(self.slice(self.ts)?)
    }
    pub fn dur_ns(&self) -> Option<i64> {
        parse_us_as_ns(self.slice(self.dur)?)
    }
    pub fn pid(&self) -> Option<i64> {
        parse_id(self.slice(self.pid)?)
    }
    pub fn tid(&self) -> Option<i64> {
        parse_id(self.slice(self.tid)?)
    }
    /// Integer-valued fields of `args` (numbers, or strings holding a decimal or 0x-hex
    /// number, as ROCm writes `"stream": "0x0"`), looked up by key. Calls `f` once per key
    /// found in `keys`, with the key's index.
    pub fn args_ids(&self, keys: &[&[u8]], mut f: impl FnMut(usize, i64)) {
        let Some(args) = self.slice(self.args) else {
            return;
        };
        if args.first() != Some(&b'{') {
            return;
        }
        // The event parsed, so its args object is complete and well-formed.
        let _ = walk_object(args, 0, |key, vs, ve| {
            if let Some(k) = keys.iter().position(|k| *k == key) {
                if let Some(v) = parse_id(&args[vs..ve]) {
                    f(k, v);
                }
            }
        });
    }
}

/// Decodes a JSON string token (with its quotes). Borrowed when it has no escapes.
fn decode_string(tok: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    if tok.len() < 2 || tok[0] != b'"' {
        return None;
    }
    let inner = &tok[1..tok.len() - 1];
    if memchr::memchr(b'\\', inner).is_none() {
        return Some(String::from_utf8_lossy(inner));
    }
    serde_json::from_slice::<String>(tok)
        .ok()
        .map(std::borrow::Cow::Owned)
}

/// An integer id: a JSON integer, or a string holding a decimal or 0x-hex integer.
fn parse_id(tok: &[u8]) -> Option<i64> {
    let s = if tok.first() == Some(&b'"') && tok.len() >= 2 {
        &tok[1..tok.len() - 1]
    } else {
        tok
    };
    let s = std::str::from_utf8(s).ok()?;
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return i64::from_str_radix(h, 16).ok();
    }
    s.parse::<i64>().ok()
}

/// Parses a JSON number of microseconds into integer nanoseconds, exactly when it has at most
/// three decimals (Kineto writes integers or ns-precision decimals), rounded to the nearest ns
/// otherwise. Exact integers keep sums and interval unions free of float drift: at 2024-era
/// epoch timestamps (4.4e12 µs) an f64 resolves only about 1 ns.
pub fn parse_us_as_ns(tok: &[u8]) -> Option<i64> {
    let (neg, digits) = match tok.first()? {
        b'-' => (true, &tok[1..]),
        _ => (false, tok),
    };
    let mut int: i64 = 0;
    let mut i = 0;
    while i < digits.len() && digits[i].is_ascii_digit() {
        int = int
            .checked_mul(10)?
            .checked_add((digits[i] - b'0') as i64)?;
        i += 1;
    }
    if i == 0 {
        return None;
    }
    let mut frac_ns: i64 = 0;
    let mut scale = 100;
    let mut round_up = false;
    if i < digits.len() && digits[i] == b'.' {
        i += 1;
        let start = i;
        while i < digits.len() && digits[i].is_ascii_digit() {
            let d = (digits[i] - b'0') as i64;
            if scale > 0 {
                frac_ns += d * scale;
                scale /= 10;
            } else if i == start + 3 {
                round_up = d >= 5;
            }
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    if i < digits.len() {
        // An exponent: rare enough to take the float path.
        let s = std::str::from_utf8(tok).ok()?;
        let v: f64 = s.parse().ok()?;
        let ns = (v * 1000.0).round();
        return (ns.is_finite() && ns.abs() < 9.0e18).then_some(ns as i64);
    }
    let ns = int
        .checked_mul(1000)?
        .checked_add(frac_ns + round_up as i64)?;
    Some(if neg { -ns } else { ns })
}

#[inline]
fn ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\n' | b'\r' | b'\t') {
        i += 1;
    }
    i
}

/// `b[i]` is an opening quote; returns the index after the closing quote.
#[inline]
fn string_end(b: &[u8], i: usize) -> Pr<usize> {
    // Most strings in a trace are short keys and values: a plain loop beats the setup of a
    // vectorised search for them; long names (kernel templates) go to memchr.
    let mut j = i + 1;
    let short_end = b.len().min(j + 24);
    while j < short_end {
        match b[j] {
            b'"' => return Ok(j + 1),
            b'\\' => break,
            _ => j += 1,
        }
    }
    loop {
        match memchr2(b'"', b'\\', &b[j.min(b.len())..]) {
            None => return Err(P::Incomplete),
            Some(k) => {
                j += k;
                if b[j] == b'"' {
                    return Ok(j + 1);
                }
                j += 2;
            }
        }
    }
}

/// Bytes that matter inside a skipped object or array.
static STRUCTURAL: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'{' as usize] = true;
    t[b'}' as usize] = true;
    t[b'[' as usize] = true;
    t[b']' as usize] = true;
    t
};

/// Skips one JSON value starting at `b[i]`; returns the index after it. Nested values are
/// checked for closed strings and matching brackets, which is what a truncated or
/// half-overwritten file breaks.
fn skip_value(b: &[u8], i: usize) -> Pr<usize> {
    match b.get(i) {
        None => Err(P::Incomplete),
        Some(b'"') => string_end(b, i),
        Some(b'{') | Some(b'[') => skip_nested(b, i),
        Some(c) if *c == b'-' || c.is_ascii_digit() => {
            let mut j = i + 1;
            while j < b.len() && matches!(b[j], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
                j += 1;
            }
            if j == b.len() {
                return Err(P::Incomplete);
            }
            Ok(j)
        }
        Some(b't') => literal(b, i, b"true"),
        Some(b'f') => literal(b, i, b"false"),
        Some(b'n') => literal(b, i, b"null"),
        // NaN / Infinity are not JSON, but Python's json writes them; accept as scalars.
        Some(b'N') => literal(b, i, b"NaN"),
        Some(b'I') => literal(b, i, b"Infinity"),
        Some(_) => Err(P::Invalid(i, "a JSON value")),
    }
}

fn literal(b: &[u8], i: usize, lit: &'static [u8]) -> Pr<usize> {
    let have = &b[i..b.len().min(i + lit.len())];
    if !lit.starts_with(have) {
        return Err(P::Invalid(i, "a JSON value"));
    }
    if have.len() < lit.len() {
        return Err(P::Incomplete);
    }
    Ok(i + lit.len())
}

fn skip_nested(b: &[u8], i: usize) -> Pr<usize> {
    let mut stack = [0u8; MAX_DEPTH];
    let mut depth = 0usize;
    let mut j = i;
    while j < b.len() {
        if !STRUCTURAL[b[j] as usize] {
            j += 1;
            continue;
        }
        match b[j] {
            b'"' => {
                j = string_end(b, j)?;
                continue;
            }
            c @ (b'{' | b'[') => {
                if depth == MAX_DEPTH {
                    return Err(P::Invalid(j, "nesting shallower than 256 levels"));
                }
                stack[depth] = if c == b'{' { b'}' } else { b']' };
                depth += 1;
            }
            c @ (b'}' | b']') => {
                if depth == 0 || stack[depth - 1] != c {
                    return Err(P::Invalid(j, "a matching closing bracket"));
                }
                depth -= 1;
                if depth == 0 {
                    return Ok(j + 1);
                }
            }
            _ => {}
        }
        j += 1;
    }
    Err(P::Incomplete)
}

/// Walks the members of the object at `b[i]`, calling `f(key_raw, value_start, value_end)` for
/// each; returns the index after the closing brace.
fn walk_object(b: &[u8], i: usize, mut f: impl FnMut(&[u8], usize, usize)) -> Pr<usize> {
    if b.get(i) != Some(&b'{') {
        return Err(if i >= b.len() {
            P::Incomplete
        } else {
            P::Invalid(i, "'{'")
        });
    }
    let mut j = ws(b, i + 1);
    match b.get(j) {
        None => return Err(P::Incomplete),
        Some(b'}') => return Ok(j + 1),
        _ => {}
    }
    loop {
        match b.get(j) {
            None => return Err(P::Incomplete),
            Some(b'"') => {}
            Some(_) => return Err(P::Invalid(j, "a quoted key")),
        }
        let kend = string_end(b, j)?;
        let key = &b[j + 1..kend - 1];
        j = ws(b, kend);
        match b.get(j) {
            None => return Err(P::Incomplete),
            Some(b':') => {}
            Some(_) => return Err(P::Invalid(j, "':' after a key")),
        }
        let vs = ws(b, j + 1);
        let ve = skip_value(b, vs)?;
        f(key, vs, ve);
        j = ws(b, ve);
        match b.get(j) {
            None => return Err(P::Incomplete),
            Some(b',') => j = ws(b, j + 1),
            Some(b'}') => return Ok(j + 1),
            Some(_) => return Err(P::Invalid(j, "',' or '}' in an object")),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    /// After '{' or ',' at the top level: a key, or '}' (only directly after '{').
    TopKey {
        first: bool,
    },
    /// After a top-level value: ',' or '}'.
    TopAfter,
    /// Directly after `"traceEvents": [`.
    EventsFirst,
    /// After an event: ',' or ']'.
    EventsAfter,
    Done,
}

/// One atomic step of the walk: move to a state at a position, or hand out an event found at
/// `start..end` (its spans are relative to `start`, so they hold no borrow).
enum Step {
    Next((State, usize)),
    Event(RawEvent<'static>, usize, usize),
}

/// Which top-level metadata keys were present (the vendor shows in them).
#[derive(Debug, Clone, Default)]
pub struct TopLevel {
    pub keys: Vec<String>,
    pub device_properties: Vec<DeviceProperty>,
    pub saw_trace_events: bool,
}

/// Hands out the events of a Kineto trace one at a time from any reader.
pub struct EventReader<R> {
    src: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// Absolute offset of `buf[0]` in the input.
    base: u64,
    eof: bool,
    io_error: Option<String>,
    state: State,
    events: u64,
    pub top: TopLevel,
}

/// Where the pending item begins, for a truncation message.
fn describe(state: State, events: u64) -> String {
    match state {
        State::Start => "the opening '{' of the trace".into(),
        State::TopKey { .. } | State::TopAfter => "a top-level key or value".into(),
        State::EventsFirst | State::EventsAfter => format!("traceEvents[{events}]"),
        State::Done => "the end".into(),
    }
}

impl<R: Read> EventReader<R> {
    pub fn new(src: R) -> Self {
        EventReader {
            src,
            buf: vec![0; CHUNK],
            pos: 0,
            end: 0,
            base: 0,
            eof: false,
            io_error: None,
            state: State::Start,
            events: 0,
            top: TopLevel::default(),
        }
    }

    /// Bytes of JSON consumed so far (the committed position).
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    pub fn events_read(&self) -> u64 {
        self.events
    }

    /// Reads more input after the pending item. Returns false at the end of the input.
    /// The amount added is at least the size of the pending part, so an item that straddles many
    /// reads is re-parsed a logarithmic number of times, not once per read.
    fn more(&mut self) -> Result<bool, Stop> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.base += self.pos as u64;
            self.end -= self.pos;
            self.pos = 0;
        }
        let want = self.end.max(CHUNK);
        if self.end >= MAX_ITEM {
            return Err(Stop {
                offset: self.base + ws(&self.buf[..self.end], 0) as u64,
                events: self.events,
                kind: StopKind::TooLarge,
            });
        }
        if self.buf.len() < self.end + want {
            self.buf.resize((self.end + want).min(MAX_ITEM + CHUNK), 0);
        }
        let target = self.end + want.min(self.buf.len() - self.end);
        let start = self.end;
        while self.end < target {
            match self.src.read(&mut self.buf[self.end..target]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.end += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.io_error = Some(e.to_string());
                    self.eof = true;
                    break;
                }
            }
        }
        Ok(self.end > start)
    }

    fn stop_here(&self, p: P) -> Stop {
        match p {
            P::Incomplete => Stop {
                // Where the partial item begins, past any whitespace before it.
                offset: self.base + ws(&self.buf[..self.end], self.pos) as u64,
                events: self.events,
                kind: StopKind::Truncated {
                    what: describe(self.state, self.events),
                    io: self.io_error.clone(),
                },
            },
            P::Invalid(at, expected) => Stop {
                offset: self.base + at as u64,
                events: self.events,
                kind: StopKind::Invalid { expected },
            },
        }
    }

    /// The next event, `Ok(None)` at the well-formed end of the trace, or the stop that ended
    /// the walk early (everything handed out before it was complete).
    pub fn next_event(&mut self) -> Result<Option<RawEvent<'_>>, Stop> {
        loop {
            let b = &self.buf[..self.end];
            let step: Pr<Step> = match self.state {
                State::Done => return Ok(None),
                State::Start => start_step(b, self.pos).map(Step::Next),
                State::TopKey { first } => {
                    top_key_step(b, self.pos, first, &mut self.top).map(Step::Next)
                }
                State::TopAfter => {
                    sep_step(b, self.pos, b'}', "',' or '}' after a top-level value").map(
                        |(close, j)| {
                            Step::Next(if close {
                                (State::Done, j)
                            } else {
                                (State::TopKey { first: false }, j)
                            })
                        },
                    )
                }
                State::EventsFirst => {
                    let j = ws(b, self.pos);
                    match b.get(j) {
                        None => Err(P::Incomplete),
                        Some(b']') => Ok(Step::Next((State::TopAfter, j + 1))),
                        Some(_) => parse_event(b, j).map(|(ev, end)| Step::Event(ev, j, end)),
                    }
                }
                State::EventsAfter => {
                    sep_step(b, self.pos, b']', "',' or ']' after an event").map(|(close, j)| {
                        Step::Next(if close {
                            (State::TopAfter, j)
                        } else {
                            (State::EventsFirst, j)
                        })
                    })
                }
            };
            match step {
                Ok(Step::Event(ev, start, end)) => {
                    let offset = self.base + start as u64;
                    let index = self.events;
                    self.pos = end;
                    self.state = State::EventsAfter;
                    self.events += 1;
                    return Ok(Some(RawEvent {
                        offset,
                        index,
                        obj: &self.buf[start..end],
                        ..ev
                    }));
                }
                Ok(Step::Next((next, j))) => {
                    self.pos = j;
                    self.state = next;
                }
                Err(P::Incomplete) => {
                    if !self.more()? {
                        // At a clean top-level end, trailing bytes do not matter; anywhere else
                        // the input stopped early.
                        if self.state == State::Done {
                            return Ok(None);
                        }
                        return Err(self.stop_here(P::Incomplete));
                    }
                }
                Err(p) => return Err(self.stop_here(p)),
            }
        }
    }
}

fn start_step(b: &[u8], pos: usize) -> Pr<(State, usize)> {
    let mut j = pos;
    if b[j..].starts_with(b"\xEF\xBB\xBF") {
        j += 3;
    } else if b.len() - j < 3 && b"\xEF\xBB\xBF".starts_with(&b[j..]) && b.len() > j {
        return Err(P::Incomplete);
    }
    j = ws(b, j);
    match b.get(j) {
        None => Err(P::Incomplete),
        Some(b'{') => Ok((State::TopKey { first: true }, j + 1)),
        Some(_) => Err(P::Invalid(j, "'{' (a Chrome-trace JSON object)")),
    }
}

fn sep_step(b: &[u8], pos: usize, close: u8, expected: &'static str) -> Pr<(bool, usize)> {
    let j = ws(b, pos);
    match b.get(j) {
        None => Err(P::Incomplete),
        Some(b',') => Ok((false, j + 1)),
        Some(c) if *c == close => Ok((true, j + 1)),
        Some(_) => Err(P::Invalid(j, expected)),
    }
}

fn top_key_step(b: &[u8], pos: usize, first: bool, top: &mut TopLevel) -> Pr<(State, usize)> {
    let j = ws(b, pos);
    match b.get(j) {
        None => return Err(P::Incomplete),
        Some(b'}') if first => return Ok((State::Done, j + 1)),
        Some(b'"') => {}
        Some(_) => return Err(P::Invalid(j, "a quoted top-level key")),
    }
    let kend = string_end(b, j)?;
    let key = &b[j + 1..kend - 1];
    let c = ws(b, kend);
    match b.get(c) {
        None => return Err(P::Incomplete),
        Some(b':') => {}
        Some(_) => return Err(P::Invalid(c, "':' after a top-level key")),
    }
    let vs = ws(b, c + 1);
    if key == b"traceEvents" {
        return match b.get(vs) {
            None => Err(P::Incomplete),
            Some(b'[') => {
                top.saw_trace_events = true;
                Ok((State::EventsFirst, vs + 1))
            }
            Some(_) => Err(P::Invalid(vs, "'[' (traceEvents is an array)")),
        };
    }
    let ve = skip_value(b, vs)?;
    if key == b"deviceProperties" {
        // Malformed entries only lose the device names; the walk goes on.
        if let Ok(list) = serde_json::from_slice::<Vec<DeviceProperty>>(&b[vs..ve]) {
            top.device_properties = list;
        }
    }
    if top.keys.len() < 64 {
        top.keys.push(String::from_utf8_lossy(key).into_owned());
    }
    Ok((State::TopAfter, ve))
}

/// Parses the event object at `b[i]`, locating the fields the attribution reads.
fn parse_event(b: &[u8], i: usize) -> Pr<(RawEvent<'static>, usize)> {
    let mut ev = RawEvent {
        offset: 0,
        index: 0,
        obj: &[],
        ph: None,
        cat: None,
        name: None,
        pid: None,
        tid: None,
        ts: None,
        dur: None,
        args: None,
    };
    if b.get(i) != Some(&b'{') {
        return Err(if i >= b.len() {
            P::Incomplete
        } else {
            P::Invalid(i, "an event object '{'")
        });
    }
    let end = walk_object(b, i, |key, vs, ve| {
        let span = Some(Span {
            start: (vs - i) as u32,
            end: (ve - i) as u32,
        });
        match key {
            b"ph" => ev.ph = span,
            b"cat" => ev.cat = span,
            b"name" => ev.name = span,
            b"pid" => ev.pid = span,
            b"tid" => ev.tid = span,
            b"ts" => ev.ts = span,
            b"dur" => ev.dur = span,
            b"args" => ev.args = span,
            _ => {}
        }
    })?;
    Ok((ev, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(json: &[u8]) -> (Vec<(u64, String, String)>, Option<Stop>) {
        let mut r = EventReader::new(json);
        let mut out = vec![];
        loop {
            match r.next_event() {
                Ok(Some(e)) => out.push((
                    e.offset,
                    String::from_utf8_lossy(e.cat().unwrap_or(b"")).into_owned(),
                    e.name().map(|n| n.into_owned()).unwrap_or_default(),
                )),
                Ok(None) => return (out, None),
                Err(s) => return (out, Some(s)),
            }
        }
    }

    #[test]
    fn us_to_ns() {
        let cases: &[(&str, Option<i64>)] = &[
            ("0", Some(0)),
            ("12", Some(12_000)),
            ("4458676522690.655", Some(4_458_676_522_690_655)),
            ("1669783687384669", Some(1_669_783_687_384_669_000)),
            ("1.5", Some(1_500)),
            ("1.0004", Some(1_000)),
            ("1.0005", Some(1_001)),
            ("-2.25", Some(-2_250)),
            ("1e3", Some(1_000_000)),
            ("2.5E-1", Some(250)),
            ("", None),
            ("-", None),
            ("1.", None),
            ("abc", None),
            ("99999999999999999999", None),
        ];
        for (s, want) in cases {
            assert_eq!(parse_us_as_ns(s.as_bytes()), *want, "{s}");
        }
    }

    #[test]
    fn ids() {
        assert_eq!(parse_id(b"7"), Some(7));
        assert_eq!(parse_id(b"\"0x1f\""), Some(31));
        assert_eq!(parse_id(b"\"12\""), Some(12));
        assert_eq!(parse_id(b"\"stream 7\""), None);
        assert_eq!(parse_id(b"-1"), Some(-1));
    }

    #[test]
    fn walks_top_level_and_events() {
        let json = br#"{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "GPU X", "numSms": 2}],
          "traceEvents": [
            {"ph": "X", "cat": "kernel", "name": "k\"q\u00e9", "ts": 1.5, "dur": 2, "args": {"stream": 7, "nested": [1, {"a": "]"}]}},
            {"ph": "M", "name": "process_name", "args": {"name": "GPU 0"}}
          ], "traceName": "x"}"#;
        let (ev, stop) = events(json);
        assert_eq!(stop, None);
        assert_eq!(ev.len(), 2);
        assert_eq!(ev[0].1, "kernel");
        assert_eq!(ev[0].2, "k\"qé");
        assert_eq!(&json[ev[1].0 as usize..ev[1].0 as usize + 1], b"{");
        let mut r = EventReader::new(&json[..]);
        while r.next_event().unwrap().is_some() {}
        assert_eq!(
            r.top.device_properties,
            vec![DeviceProperty {
                id: 0,
                name: "GPU X".into()
            }]
        );
        assert!(r.top.saw_trace_events);
        assert_eq!(
            r.top.keys,
            ["schemaVersion", "deviceProperties", "traceName"]
        );
    }

    #[test]
    fn args_ids_reads_numbers_and_hex_strings() {
        let json =
            br#"{"traceEvents": [{"ph":"X","args":{"device": 2, "stream": "0x3", "x": [1]}}]}"#;
        let mut r = EventReader::new(&json[..]);
        let e = r.next_event().unwrap().unwrap();
        let mut got = vec![];
        e.args_ids(&[b"device", b"stream"], |k, v| got.push((k, v)));
        assert_eq!(got, vec![(0, 2), (1, 3)]);
    }

    #[test]
    fn every_truncation_point_stops_cleanly() {
        let json = br#"{"a": [1, 2, {"b": "x"}], "traceEvents": [{"ph": "X", "cat": "kernel", "name": "n", "ts": 1, "dur": 2}, {"ph": "X", "cat": "kernel", "name": "m\\", "ts": 3, "dur": 4}], "z": null}"#;
        let (full, stop) = events(json);
        assert_eq!(stop, None);
        assert_eq!(full.len(), 2);
        let ev_end = |k: usize| json[k..].iter().position(|&c| c == b'}').unwrap() + k + 1;
        for cut in 0..json.len() {
            let (ev, stop) = events(&json[..cut]);
            let stop = stop.expect("a prefix is never a complete trace");
            assert!(stop.offset <= cut as u64, "cut {cut}: {stop}");
            let complete = full
                .iter()
                .filter(|(off, _, _)| ev_end(*off as usize) <= cut)
                .count();
            assert_eq!(ev.len(), complete, "cut {cut}");
            assert_eq!(stop.events, complete as u64);
            assert!(
                matches!(stop.kind, StopKind::Truncated { .. }),
                "cut {cut}: {stop}"
            );
        }
    }

    #[test]
    fn invalid_bytes_name_the_offset() {
        let json = br#"{"traceEvents": [{"ph": "X"} {"ph": "X"}]}"#;
        let (ev, stop) = events(json);
        assert_eq!(ev.len(), 1);
        let stop = stop.unwrap();
        assert_eq!(stop.offset, 29);
        assert!(matches!(stop.kind, StopKind::Invalid { .. }));
        assert!(stop.to_string().contains("byte 29"), "{stop}");

        let (_, stop) = events(b"[1, 2]");
        assert_eq!(stop.unwrap().offset, 0);
        let (_, stop) = events(br#"{"traceEvents": [{"a": [1}]}"#);
        assert!(matches!(stop.unwrap().kind, StopKind::Invalid { .. }));
        let (_, stop) = events(br#"{"traceEvents": [{"a": tru}]}"#);
        assert!(matches!(stop.unwrap().kind, StopKind::Invalid { .. }));
    }

    #[test]
    fn items_straddling_reads_are_reassembled() {
        // A reader that returns 7 bytes at a time exercises the refill path on every item.
        struct Dribble<'a>(&'a [u8]);
        impl Read for Dribble<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                let n = out.len().min(7).min(self.0.len());
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut json = br#"{"meta": {"k": "v"}, "traceEvents": ["#.to_vec();
        for i in 0..500 {
            if i > 0 {
                json.push(b',');
            }
            json.extend_from_slice(
                format!(r#"{{"ph": "X", "cat": "kernel", "name": "k{i}", "ts": {i}, "dur": 1}}"#)
                    .as_bytes(),
            );
        }
        json.extend_from_slice(b"]}");
        let mut r = EventReader::new(Dribble(&json));
        let mut n = 0;
        while let Some(e) = r.next_event().unwrap() {
            assert_eq!(e.name().unwrap(), format!("k{n}"));
            assert_eq!(e.ts_ns(), Some(n as i64 * 1000));
            n += 1;
        }
        assert_eq!(n, 500);
    }

    #[test]
    fn an_endless_value_stops_at_the_cap_instead_of_growing() {
        // A corrupt file whose string never closes: memory must stop at MAX_ITEM.
        struct Endless(usize);
        impl Read for Endless {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                let head = br#"{"traceEvents": [{"ph": "X"}, {"name": ""#;
                let mut n = 0;
                while n < out.len() {
                    out[n] = head.get(self.0).copied().unwrap_or(b'a');
                    self.0 += 1;
                    n += 1;
                }
                Ok(n)
            }
        }
        let mut r = EventReader::new(Endless(0));
        assert!(r.next_event().unwrap().is_some());
        let stop = match r.next_event() {
            Err(s) => s,
            Ok(_) => panic!("expected a stop"),
        };
        assert_eq!(stop.kind, StopKind::TooLarge);
        assert_eq!(stop.offset, 30);
        assert_eq!(stop.events, 1);
        assert!(r.buf.len() <= MAX_ITEM + CHUNK);
        assert!(stop.to_string().contains("64 MiB"), "{stop}");
    }

    #[test]
    fn read_errors_become_truncation_with_the_cause() {
        struct Fails<'a>(&'a [u8], bool);
        impl Read for Fails<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                if self.1 {
                    return Err(std::io::Error::other("corrupt deflate stream"));
                }
                self.1 = true;
                let n = out.len().min(self.0.len());
                out[..n].copy_from_slice(&self.0[..n]);
                Ok(n)
            }
        }
        let json = br#"{"traceEvents": [{"ph": "X"}, {"ph": "#;
        let mut r = EventReader::new(Fails(json, false));
        assert!(r.next_event().unwrap().is_some());
        let stop = match r.next_event() {
            Err(s) => s,
            Ok(_) => panic!("expected a stop"),
        };
        assert_eq!(stop.offset, 30);
        assert_eq!(stop.events, 1);
        assert!(
            stop.to_string().contains("corrupt deflate stream"),
            "{stop}"
        );
        assert!(stop.to_string().contains("traceEvents[1]"), "{stop}");
    }
}
