//! Line prefixes that wrap an engine's message: journald/syslog (`Nov 30 05:42:01 host
//! llama-server[1234]: `, its ISO, precise, unix and monotonic variants) and llama.cpp's own
//! `M.SS.mmm.uuu I ` time-and-level prefix. The pid in a journald prefix names the process, so
//! it separates two server instances even when their lines interleave.

/// What the prefixes said, and the engine's message after them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stripped<'a> {
    /// The pid from `ident[pid]:`, when a journald/syslog prefix carried one.
    pub pid: Option<u32>,
    /// The message without any prefix, left-trimmed only of the prefixes' own separators.
    pub body: &'a [u8],
}

#[inline]
pub(crate) fn strip(line: &[u8]) -> Stripped<'_> {
    // Most lines of a llama-server log start with its own prefix, which no journald
    // timestamp shape matches (those need a '-' at byte 4, or one dot then a space).
    if let Some(after) = llama_time(line) {
        return Stripped {
            pid: None,
            body: level(&line[after..]),
        };
    }
    strip_journal(line)
}

/// The other prefixes (out of line: the common case above stays small).
#[inline(never)]
fn strip_journal(line: &[u8]) -> Stripped<'_> {
    let mut pid = None;
    let mut body = line;
    if let Some(after_ts) = journal_timestamp(line) {
        if let Some((p, rest)) = host_and_ident(&line[after_ts..]) {
            pid = p;
            body = rest;
        }
    }
    Stripped {
        pid,
        body: llama_prefix(body),
    }
}

fn is_digit(b: Option<&u8>) -> bool {
    matches!(b, Some(b'0'..=b'9'))
}

/// Length of a journald/syslog timestamp and the space after it, if the line starts with one.
fn journal_timestamp(l: &[u8]) -> Option<usize> {
    let first = *l.first()?;
    if first.is_ascii_uppercase() {
        // `short`/`short-precise`: "Nov 30 05:42:01[.123456] ", day space-padded or not.
        if l.len() > 15
            && l[1].is_ascii_lowercase()
            && l[2].is_ascii_lowercase()
            && l[3] == b' '
            && (l[4] == b' ' || l[4].is_ascii_digit())
            && l[5].is_ascii_digit()
            && l[6] == b' '
            && l[7].is_ascii_digit()
            && l[9] == b':'
        {
            return token_end(l, 7);
        }
        // `short-full`: "Sun 2025-11-30 05:42:01 UTC ".
        if l.len() > 4 && l[3] == b' ' && iso_date_at(l, 4) {
            let t = token_end(l, 4)?; // date
            let t = token_end(l, t)?; // time
            return token_end(l, t); // zone
        }
        return None;
    }
    if first.is_ascii_digit() {
        // `short-iso[-precise]`: "2025-11-30T05:42:01[.123456]+00:00 ".
        if iso_date_at(l, 0) && l.get(10) == Some(&b'T') {
            return token_end(l, 0);
        }
        // `short-unix`: "1732945321.123456 " (exactly one dot: llama.cpp's own prefix has three).
        let mut i = 0;
        while is_digit(l.get(i)) {
            i += 1;
        }
        if l.get(i) == Some(&b'.') && is_digit(l.get(i + 1)) {
            i += 1;
            while is_digit(l.get(i)) {
                i += 1;
            }
            if l.get(i) == Some(&b' ') && i >= 9 {
                return Some(i + 1);
            }
        }
        return None;
    }
    if first == b'[' {
        // `short-monotonic`: "[  123.456789] ".
        let close = l.iter().take(24).position(|&b| b == b']')?;
        if l[1..close]
            .iter()
            .all(|&b| b == b' ' || b == b'.' || b.is_ascii_digit())
            && l.get(close + 1) == Some(&b' ')
        {
            return Some(close + 2);
        }
    }
    None
}

fn iso_date_at(l: &[u8], i: usize) -> bool {
    l.len() >= i + 10
        && l[i..i + 4].iter().all(u8::is_ascii_digit)
        && l[i + 4] == b'-'
        && l[i + 7] == b'-'
        && l[i + 8].is_ascii_digit()
}

/// End of the non-space token starting at `i`, plus the one space after it.
fn token_end(l: &[u8], i: usize) -> Option<usize> {
    let n = memchr::memchr(b' ', &l[i..])?;
    Some(i + n + 1)
}

/// "host ident[pid]: message" → (pid, message).
fn host_and_ident(l: &[u8]) -> Option<(Option<u32>, &[u8])> {
    let host_end = memchr::memchr(b' ', l)?;
    let rest = &l[host_end + 1..];
    // The identifier has no spaces and ends at the first ':' (journald writes "ident[pid]: ").
    let window = &rest[..rest.len().min(96)];
    let colon = memchr::memchr2(b':', b' ', window)?;
    if window[colon] != b':' || colon == 0 {
        return None;
    }
    let ident = &rest[..colon];
    let mut pid = None;
    if let [head @ .., b']'] = ident {
        if let Some(open) = memchr::memrchr(b'[', head) {
            let digits = &head[open + 1..];
            if !digits.is_empty() && digits.len() <= 10 && digits.iter().all(u8::is_ascii_digit) {
                pid = std::str::from_utf8(digits).ok()?.parse().ok();
            }
        }
    }
    let mut msg = &rest[colon + 1..];
    if let [b' ', m @ ..] = msg {
        msg = m;
    }
    Some((pid, msg))
}

/// llama.cpp's `common_log` prefix: "M.SS.mmm.uuu " (minutes unbounded) then a level letter.
fn llama_prefix(b: &[u8]) -> &[u8] {
    level(llama_time(b).map_or(b, |after| &b[after..]))
}

/// Length of llama.cpp's "M.SS.mmm.uuu " time prefix, if `b` starts with one.
#[inline]
fn llama_time(b: &[u8]) -> Option<usize> {
    use crate::scan::{non_digit_bytes, splat};
    let mut i = 0;
    while is_digit(b.get(i)) {
        i += 1;
    }
    let t: &[u8; 12] = b.get(i..i + 12)?.try_into().ok()?;
    let (head, tail) = t.split_at(8);
    // ".SS.mmm." and "uuu " a word each: the dots and the space compared, the other bytes
    // tested for digits.
    const DOTS: u64 = 0xFF00_0000_FF00_00FF;
    let x = u64::from_le_bytes(head.try_into().ok()?);
    let y = u64::from(u32::from_le_bytes(tail.try_into().ok()?));
    let ok = i > 0
        && x & DOTS == splat(b'.') & DOTS
        && non_digit_bytes(x) & !DOTS == 0
        && y >> 24 == u64::from(b' ')
        && non_digit_bytes(y) & 0x00FF_FFFF == 0;
    ok.then_some(i + 12)
}

/// Drops the level letter (without timestamps it stands alone: "I slot ...").
#[inline]
fn level(body: &[u8]) -> &[u8] {
    match body {
        [b'I' | b'W' | b'E' | b'D', b' ', c, ..] if *c != b' ' => &body[2..],
        _ => body,
    }
}

/// Removes ANSI colour sequences (`--log-colors on`, or a terminal captured by a wrapper).
pub(crate) fn strip_ansi(line: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut i = 0;
    while i < line.len() {
        if line[i] == 0x1b && line.get(i + 1) == Some(&b'[') {
            i += 2;
            while i < line.len() && !(0x40..=0x7e).contains(&line[i]) {
                i += 1;
            }
            i += 1; // the final byte
        } else {
            out.push(line[i]);
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_seen_in_the_field() {
        let cases: &[(&str, Option<u32>, &str)] = &[
            (
                "Nov 30 05:42:01 gpu1 llama-server[1234]: slot print_timing: id  0 | task 5 | x",
                Some(1234),
                "slot print_timing: id  0 | task 5 | x",
            ),
            (
                "Nov  3 05:42:01 gpu1 llama-server[77]: 0.01.234.567 I srv  load_model: done",
                Some(77),
                "srv  load_model: done",
            ),
            (
                "Nov 30 05:42:01.123456 gpu1 halogen[9]: serve_api: mtp 28 tok",
                Some(9),
                "serve_api: mtp 28 tok",
            ),
            (
                "2025-11-30T05:42:01+0000 gpu1 llama-server[1]: main: model loaded",
                Some(1),
                "main: model loaded",
            ),
            (
                "2025-11-30T05:42:01.123456+00:00 gpu1 llama-server[2]: I slot x",
                Some(2),
                "slot x",
            ),
            (
                "1732945321.123456 gpu1 llama-server[3]: srv  stop: cancel task",
                Some(3),
                "srv  stop: cancel task",
            ),
            (
                "[  123.456789] gpu1 llama-server[4]: hello",
                Some(4),
                "hello",
            ),
            (
                "Sun 2025-11-30 05:42:01 UTC gpu1 llama-server[5]: hello",
                Some(5),
                "hello",
            ),
            // A journald line whose identifier has no pid (SyslogIdentifier= set).
            ("Nov 30 05:42:01 gpu1 llama: hello", None, "hello"),
            // llama.cpp's own prefix, without journald.
            (
                "0.05.123.456 I slot print_timing: id  1 | task 2 | a",
                None,
                "slot print_timing: id  1 | task 2 | a",
            ),
            ("123.59.999.001 W srv  stop: x", None, "srv  stop: x"),
            ("I slot release: id 0", None, "slot release: id 0"),
            // Untouched: bare continuation lines of the older multi-line print_timings.
            (
                "prompt eval time =      43.83 ms",
                None,
                "prompt eval time =      43.83 ms",
            ),
            (
                "       eval time =     432.34 ms",
                None,
                "       eval time =     432.34 ms",
            ),
            ("INFO [ print_timings] x", None, "INFO [ print_timings] x"),
            ("", None, ""),
        ];
        for (line, pid, body) in cases {
            let s = strip(line.as_bytes());
            assert_eq!(s.pid, *pid, "{line}");
            assert_eq!(std::str::from_utf8(s.body).unwrap(), *body, "{line}");
        }
    }

    /// The byte-at-a-time reading `llama_time` replaced.
    fn llama_time_bytes(b: &[u8]) -> Option<usize> {
        let mut i = 0;
        while is_digit(b.get(i)) {
            i += 1;
        }
        let t: &[u8; 12] = b.get(i..i + 12)?.try_into().ok()?;
        let d = u8::is_ascii_digit;
        (i > 0
            && t[0] == b'.'
            && d(&t[1])
            && d(&t[2])
            && t[3] == b'.'
            && d(&t[4])
            && d(&t[5])
            && d(&t[6])
            && t[7] == b'.'
            && d(&t[8])
            && d(&t[9])
            && d(&t[10])
            && t[11] == b' ')
            .then_some(i + 12)
    }

    #[test]
    fn time_prefix_read_a_word_at_a_time_reads_as_byte_at_a_time() {
        let mut n = 0;
        for lead in ["", "0", "12", "123456"] {
            let good = format!("{lead}.13.533.887 I slot x");
            assert_eq!(
                llama_time(good.as_bytes()),
                llama_time_bytes(good.as_bytes())
            );
            for at in 0..good.len() {
                for v in 0..=255u8 {
                    let mut l = good.clone().into_bytes();
                    l[at] = v;
                    assert_eq!(llama_time(&l), llama_time_bytes(&l), "{l:?}");
                    n += usize::from(llama_time(&l).is_some());
                }
                assert_eq!(
                    llama_time(&good.as_bytes()[..at]),
                    llama_time_bytes(&good.as_bytes()[..at])
                );
            }
        }
        assert!(n > 1000, "{n}");
    }

    #[test]
    fn ansi_colours_are_removed() {
        let mut out = Vec::new();
        strip_ansi(
            b"\x1b[34m0.00.012.345\x1b[0m \x1b[32mI \x1b[0mslot x",
            &mut out,
        );
        assert_eq!(out, b"0.00.012.345 I slot x");
    }
}
