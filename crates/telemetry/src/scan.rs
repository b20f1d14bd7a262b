//! A forward-only byte cursor: literal matches and printf-shaped numbers, no regex, no
//! backtracking. Every method either advances past what it matched or leaves the cursor where
//! it was, so a failed optional match costs nothing.

#[derive(Clone, Copy)]
pub(crate) struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    #[inline(always)]
    pub fn new(b: &'a [u8]) -> Self {
        Cur { b, i: 0 }
    }

    #[inline(always)]
    pub fn rest(&self) -> &'a [u8] {
        &self.b[self.i..]
    }

    #[inline(always)]
    pub fn skip_while(&mut self, f: impl Fn(u8) -> bool) {
        // A local index: the compiler keeps it in a register instead of storing each step.
        let mut i = self.i;
        while self.b.get(i).copied().is_some_and(&f) {
            i += 1;
        }
        self.i = i;
    }

    /// Skips spaces and tabs (printf's `%10.2f` pads with spaces).
    #[inline(always)]
    pub fn ws(&mut self) {
        self.skip_while(|b| b == b' ' || b == b'\t');
    }

    /// Matches `s` exactly at the cursor.
    #[inline(always)]
    pub fn lit(&mut self, s: &[u8]) -> bool {
        // The needles are constants: once inlined, the comparison is a few word loads, not a
        // memcmp call.
        if self.b[self.i..].get(..s.len()) == Some(s) {
            self.i += s.len();
            true
        } else {
            false
        }
    }

    /// Skips blanks, then matches `s`.
    #[inline(always)]
    pub fn tok(&mut self, s: &[u8]) -> bool {
        let save = self.i;
        self.ws();
        if self.lit(s) {
            true
        } else {
            self.i = save;
            false
        }
    }

    /// Moves past the first occurrence of `s` at or after the cursor.
    #[inline(always)]
    pub fn find(&mut self, s: &[u8]) -> bool {
        match find(&self.b[self.i..], s) {
            Some(p) => {
                self.i += p + s.len();
                true
            }
            None => false,
        }
    }

    /// Unsigned decimal integer after optional blanks; `None` on no digits or overflow.
    #[inline(always)]
    pub fn uint(&mut self) -> Option<u64> {
        let save = self.i;
        self.ws();
        let start = self.i;
        // One pass, wrapping: up to 19 digits cannot overflow a u64; longer runs are re-read
        // by the checked parser.
        let (end, v) = self.accumulate(start, 0);
        if (1..=19).contains(&(end - start)) {
            self.i = end;
            return Some(v);
        }
        self.uint_rare(save, start, end)
    }

    /// [`Cur::uint`] without digits, or with more than 19 (out of line: the common case stays
    /// small enough to inline).
    #[cold]
    #[inline(never)]
    fn uint_rare(&mut self, save: usize, start: usize, end: usize) -> Option<u64> {
        let v = match end - start {
            0 => None,
            _ => std::str::from_utf8(&self.b[start..end])
                .ok()
                .and_then(|t| t.parse().ok()),
        };
        self.i = if v.is_some() { end } else { save };
        v
    }

    /// Reads digits from `i` into `v` (wrapping); returns where they end and the value.
    #[inline(always)]
    fn accumulate(&self, mut i: usize, mut v: u64) -> (usize, u64) {
        while let Some(c) = self.b.get(i) {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v.wrapping_mul(10).wrapping_add(u64::from(d));
            i += 1;
        }
        (i, v)
    }

    /// Skips a number we do not keep (`%8.2f ms per token`, `inf`, `nan`); false if none.
    #[inline(always)]
    pub fn skip_number(&mut self) -> bool {
        self.ws();
        self.lit(b"-");
        if self.lit(b"inf") || self.lit(b"nan") {
            return true;
        }
        let start = self.i;
        self.skip_while(|b| b.is_ascii_digit() || b == b'.');
        self.i > start
    }

    /// Signed decimal integer (llama.cpp prints `task -1` for a slot without a task).
    #[inline]
    pub fn int(&mut self) -> Option<i64> {
        let save = self.i;
        self.ws();
        let neg = self.lit(b"-");
        match self.uint() {
            Some(v) if v <= i64::MAX as u64 => Some(if neg { -(v as i64) } else { v as i64 }),
            _ => {
                self.i = save;
                None
            }
        }
    }

    /// A `%f`-shaped number after optional blanks: `[-]digits[.digits]`, or printf's `inf` and
    /// `nan` (a zero duration prints `inf tokens per second`).
    pub fn dec(&mut self) -> Option<f64> {
        let save = self.i;
        self.ws();
        let neg = self.lit(b"-");
        let start = self.i;
        let (int_end, mant) = self.accumulate(start, 0);
        let (mut end, mut mant) = (int_end, mant);
        let mut frac = 0;
        if self.b.get(end) == Some(&b'.') {
            (end, mant) = self.accumulate(int_end + 1, mant);
            frac = end - int_end - 1;
        }
        let n = (int_end - start) + frac;
        // Up to 15 digits the mantissa is exact in a double and 10^frac too: one correctly
        // rounded division. Longer numbers take the standard library's exact parser.
        if n.wrapping_sub(1) < 15 {
            // mant < 10^15 fits an i64, whose conversion is one instruction.
            let v = mant as i64 as f64 / POW10[frac];
            self.i = end;
            return Some(if neg { -v } else { v });
        }
        self.dec_rare(save, neg, start, end, n)
    }

    /// [`Cur::dec`] without digits (`inf`, `nan`, or none) or with more than 15 (out of line).
    #[cold]
    #[inline(never)]
    fn dec_rare(
        &mut self,
        save: usize,
        neg: bool,
        start: usize,
        end: usize,
        n: usize,
    ) -> Option<f64> {
        if n == 0 {
            self.i = start;
            if self.lit(b"inf") {
                return Some(if neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                });
            }
            if self.lit(b"nan") {
                return Some(f64::NAN);
            }
            self.i = save;
            return None;
        }
        match std::str::from_utf8(&self.b[start..end])
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
        {
            Some(v) => {
                self.i = end;
                Some(if neg { -v } else { v })
            }
            None => {
                self.i = save;
                None
            }
        }
    }
}

/// `b` in every byte of a word.
#[inline(always)]
pub(crate) const fn splat(b: u8) -> u64 {
    u64::from_le_bytes([b; 8])
}

/// 0x80 in each byte of `w` that is not zero, 0 elsewhere (exact: no carry crosses bytes).
#[inline(always)]
pub(crate) const fn nonzero_bytes(w: u64) -> u64 {
    const LOW7: u64 = splat(0x7f);
    (((w & LOW7) + LOW7) | w) & splat(0x80)
}

/// Non-zero in each byte of `w` that is not an ASCII digit, zero in each that is (exact: no
/// carry crosses bytes). Each byte minus '0' (no borrow: XOR) is a digit exactly when its high
/// nibble is then 0 and its low nibble + 6 stays under 16.
#[inline(always)]
pub(crate) const fn non_digit_bytes(w: u64) -> u64 {
    const LOW: u64 = splat(0x0F);
    let a = w ^ splat(b'0');
    (a & !LOW) | (((a & LOW) + splat(0x06)) & splat(0x10))
}

/// The value of eight digits, one per byte (0-9 each, the most significant in the lowest
/// byte): pairs, fours and eights combined by multiplication.
#[inline(always)]
pub(crate) const fn digits_value(v: u64) -> u64 {
    let v = v.wrapping_mul(10).wrapping_add(v >> 8) & 0x00FF_00FF_00FF_00FF;
    let v = v.wrapping_mul(100).wrapping_add(v >> 16) & 0x0000_FFFF_0000_FFFF;
    v.wrapping_mul(10000).wrapping_add(v >> 32) & 0xFFFF_FFFF
}

/// Position of the first `needle` in `hay[..limit]` (a short window at a line's start), one
/// word at a time.
#[inline(always)]
pub(crate) fn find_byte_within(hay: &[u8], needle: u8, limit: usize) -> Option<usize> {
    let window = &hay[..hay.len().min(limit)];
    let mut at = 0;
    while let Some(w) = window.get(at..at + 8) {
        let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
        let other = nonzero_bytes(w ^ splat(needle));
        let hit = !other & splat(0x80);
        if hit != 0 {
            return Some(at + hit.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    window[at..]
        .iter()
        .position(|&b| b == needle)
        .map(|p| at + p)
}

/// The digits of a printf `%Nd`-shaped field of `L` bytes (blanks, then at least one digit),
/// read a word at a time: their value, or `None` for any other shape (a sign, a tab, a wider
/// number that shifted the field). Where this reads a value, [`Cur::uint`] reads the same.
#[inline(always)]
pub(crate) fn fixed_uint<const L: usize>(f: &[u8; L]) -> Option<u64> {
    const LOW: u64 = splat(0x0F);
    // The field right-aligned in a word, blanks before it: its last digit in the top byte, as
    // `event::digits8` has them (the most significant digit in the lowest of them).
    let mut b = [b' '; 8];
    b[8 - L..].copy_from_slice(f);
    let w = u64::from_le_bytes(b);
    let marks = nonzero_bytes(non_digit_bytes(w));
    // Digits at the top, blanks below them.
    let n = marks.leading_zeros() / 8;
    let below = u64::MAX.checked_shr(8 * n).unwrap_or(0);
    if n == 0 || (w ^ splat(b' ')) & below != 0 {
        return None;
    }
    // A blank's low nibble is 0 after the XOR with '0': the digits stand alone in their bytes.
    Some(digits_value((w ^ splat(b'0')) & LOW))
}

/// A printf `%W.2f`-shaped field of `W` bytes (blanks, at least one digit, `.`, two digits;
/// at most 8 bytes before the point): its value as [`Cur::dec`] reads it, or `None` for any
/// other shape.
#[inline(always)]
pub(crate) fn fixed_2f<const W: usize, const L: usize>(f: &[u8; W]) -> Option<f64> {
    let int: &[u8; L] = f.first_chunk()?;
    let int = fixed_uint(int)?;
    let [b'.', d1, d2] = *f.get(L..)? else {
        return None;
    };
    let (d1, d2) = (d1.wrapping_sub(b'0'), d2.wrapping_sub(b'0'));
    if d1 > 9 || d2 > 9 {
        return None;
    }
    // At most 8 + 2 digits: exact in a double, and the same division as `Cur::dec`'s.
    let mant = int * 100 + u64::from(d1) * 10 + u64::from(d2);
    Some(mant as i64 as f64 / POW10[2])
}

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Calls `f` with the position of every newline in `chunk`, in order.
#[inline(always)]
pub(crate) fn each_newline(chunk: &[u8], mut f: impl FnMut(usize)) {
    // The AVX2 searcher held directly: `memchr_iter` dispatches through a function pointer
    // on every line, which costs as much as searching a short line.
    #[cfg(target_arch = "x86_64")]
    if let Some(nl) = memchr::arch::x86_64::avx2::memchr::One::new(b'\n') {
        for p in nl.iter(chunk) {
            f(p);
        }
        return;
    }
    for p in memchr::memchr_iter(b'\n', chunk) {
        f(p);
    }
}

/// Calls `f(nl, esc)` with the position of every newline in `chunk`, in order. `esc` is true
/// when the line ending there may hold an ESC byte (an ANSI colour code): never false when it
/// does, sometimes true when it does not (the caller looks again). One pass finds both, 64
/// bytes at a time with AVX2 where the CPU has it: a bitmask per block instead of a search
/// call per line and a second pass over the chunk for colour codes.
#[inline(always)]
pub(crate) fn each_line_end(chunk: &[u8], mut f: impl FnMut(usize, bool)) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above).
        unsafe { each_line_end_avx2(chunk, f) };
        return;
    }
    let colour = memchr::memchr(0x1b, chunk).is_some();
    each_newline(chunk, |nl| f(nl, colour));
}

/// [`each_line_end`] with AVX2: two 32-byte compares per byte class per 64-byte block.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn each_line_end_avx2(chunk: &[u8], mut f: impl FnMut(usize, bool)) {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_set1_epi8,
    };
    let nl = _mm256_set1_epi8(b'\n' as i8);
    let ec = _mm256_set1_epi8(0x1b);
    // Whether the line in progress may hold an ESC.
    let mut esc = false;
    let mut base = 0;
    while let Some(block) = chunk.get(base..base + 64) {
        let p = block.as_ptr();
        // SAFETY: both 32-byte unaligned loads lie within `block`, 64 bytes long.
        let (lo, hi) = unsafe {
            (
                _mm256_loadu_si256(p.cast::<__m256i>()),
                _mm256_loadu_si256(p.add(32).cast::<__m256i>()),
            )
        };
        let mask = |v| {
            let l = _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, v)) as u32;
            let h = _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, v)) as u32;
            u64::from(l) | (u64::from(h) << 32)
        };
        let block_esc = mask(ec) != 0;
        esc |= block_esc;
        let mut m = mask(nl);
        while m != 0 {
            f(base + m.trailing_zeros() as usize, esc);
            // The next line starts in this block: it may hold this block's ESC.
            esc = block_esc;
            m &= m - 1;
        }
        base += 64;
    }
    for (i, &b) in chunk[base..].iter().enumerate() {
        if b == b'\n' {
            f(base + i, esc);
            esc = false;
        } else if b == 0x1b {
            esc = true;
        }
    }
}

/// First position of `needle` in `hay`. The haystacks are single log lines and the needles a
/// few bytes, where building a memmem searcher per call costs more than it saves.
#[inline(always)]
pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    // A plain loop rather than an iterator adapter, so that the comparison inlines with the
    // constant needle.
    let mut from = 0;
    while let Some(q) = memchr::memchr(first, &hay[from..]) {
        let p = from + q;
        if hay[p + 1..].starts_with(rest) {
            return Some(p);
        }
        from = p + 1;
    }
    None
}

/// [`trim`], the leading spaces skipped a word at a time first (printf's field widths pad
/// llama.cpp's timing messages with up to 7).
#[inline(always)]
pub(crate) fn trim_padded(mut b: &[u8]) -> &[u8] {
    while let Some(w) = b.first_chunk::<8>() {
        let other = nonzero_bytes(u64::from_le_bytes(*w) ^ splat(b' '));
        // 8 when all eight are spaces.
        let n = (other.trailing_zeros() / 8) as usize;
        b = &b[n..];
        if n < 8 {
            break;
        }
    }
    trim(b)
}

/// Trims ASCII blanks (and a stray `\r`) from both ends.
pub(crate) fn trim(mut b: &[u8]) -> &[u8] {
    while let [b' ' | b'\t' | b'\r' | b'\n', rest @ ..] = b {
        b = rest;
    }
    while let [rest @ .., b' ' | b'\t' | b'\r' | b'\n'] = b {
        b = rest;
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padded_trim_is_trim() {
        for lead in 0..20 {
            for (body, tail) in [("eval time", ""), ("x", "  "), ("", ""), ("\tx\r", "\n")] {
                for sep in [" ", "\t", "\r\n"] {
                    let s = format!("{}{sep}{body}{tail}", " ".repeat(lead));
                    assert_eq!(trim_padded(s.as_bytes()), trim(s.as_bytes()), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn line_ends_and_their_colour_flags() {
        // Lines of every length around the 64-byte blocks, an ESC placed in some of them.
        let mut text = Vec::new();
        let mut want = Vec::new();
        for n in 0..200usize {
            let start = text.len();
            text.extend((0..n).map(|i| b'a' + (i % 26) as u8));
            let esc = n % 7 == 3;
            if esc {
                let at = start + n / 2;
                text[at] = 0x1b;
            }
            want.push(text.len());
            text.push(b'\n');
        }
        text.extend_from_slice(b"tail without newline \x1b");
        for from in [0, 1, 31, 63, 64, 65] {
            let chunk = &text[from..];
            let mut got = Vec::new();
            each_line_end(chunk, |nl, esc| got.push((nl + from, esc)));
            let ends: Vec<usize> = got.iter().map(|g| g.0).collect();
            let want_ends: Vec<usize> = want.iter().copied().filter(|&e| e >= from).collect();
            assert_eq!(ends, want_ends, "from {from}");
            let mut start = 0;
            for &(nl, esc) in &got {
                // Never false when the line holds an ESC.
                let has = chunk[start..nl - from].contains(&0x1b);
                assert!(esc || !has, "line ending at {nl}, from {from}");
                start = nl - from + 1;
            }
        }
    }

    #[test]
    fn decimals_as_printf_writes_them() {
        let cases: &[(&str, Option<f64>, &str)] = &[
            ("   43.83 ms", Some(43.83), " ms"),
            ("0.66s", Some(0.66), "s"),
            ("12", Some(12.0), ""),
            ("-3.5", Some(-3.5), ""),
            ("     inf tokens", Some(f64::INFINITY), " tokens"),
            ("x", None, "x"),
            (".", None, "."),
            ("1.", Some(1.0), ""),
            (
                "123456789012345678901234.5",
                Some(123456789012345678901234.5),
                "",
            ),
        ];
        for (input, want, rest) in cases {
            let mut c = Cur::new(input.as_bytes());
            let got = c.dec();
            match (got, want) {
                (Some(g), Some(w)) => {
                    assert!(g == *w || (g - w).abs() <= w.abs() * 1e-15, "{input}: {g}")
                }
                (None, None) => {}
                _ => panic!("{input}: got {got:?}, want {want:?}"),
            }
            assert_eq!(std::str::from_utf8(c.rest()).unwrap(), *rest, "{input}");
        }
        let mut c = Cur::new(b"nan");
        assert!(c.dec().unwrap().is_nan());
    }

    #[test]
    fn two_decimals_are_exact_to_the_nearest_double() {
        for cents in [1u64, 7, 4383, 123_456_789, 99_999_999_999] {
            let s = format!("{}.{:02}", cents / 100, cents % 100);
            let mut c = Cur::new(s.as_bytes());
            assert_eq!(c.dec(), Some(s.parse::<f64>().unwrap()), "{s}");
        }
    }

    #[test]
    fn integers_reject_overflow_and_keep_position() {
        let mut c = Cur::new(b"  99999999999999999999999 rest");
        assert_eq!(c.uint(), None);
        assert_eq!(c.rest(), b"  99999999999999999999999 rest");
        let mut c = Cur::new(b" -1 |");
        assert_eq!(c.int(), Some(-1));
        assert!(c.tok(b"|"));
        assert!(c.rest().is_empty());
    }

    #[test]
    fn find_matches_memmem() {
        for (hay, needle) in [
            (&b"a | b | c"[..], &b" | "[..]),
            (b"truncated = 0", b"truncated ="),
            (b"aaab", b"ab"),
            (b"x", b"xy"),
            (b"", b"a"),
            (b"abc", b"c"),
        ] {
            assert_eq!(
                find(hay, needle),
                memchr::memmem::find(hay, needle),
                "{hay:?}"
            );
        }
        assert_eq!(find(b"abc", b""), None);
    }

    #[test]
    fn blanks_of_any_length_are_skipped() {
        for pad in 0..20 {
            for tail in ["", "x", "12 y", "\t"] {
                let blanks: String = (0..pad)
                    .map(|i| if i % 7 == 3 { '\t' } else { ' ' })
                    .collect();
                let s = format!("{blanks}{tail}");
                let mut c = Cur::new(s.as_bytes());
                c.ws();
                let want = s.trim_start_matches([' ', '\t']);
                assert_eq!(c.rest(), want.as_bytes(), "{s:?}");
            }
        }
        // Bytes that differ from a blank in one bit only.
        for b in [0x00u8, 0x21, 0xa0, 0x08, 0x29, 0x60, 0xff] {
            let s = [b' ', b' ', b, b' ', b' ', b' ', b' ', b' ', b' ', b' '];
            let mut c = Cur::new(&s);
            c.ws();
            assert_eq!(c.rest(), &s[2..], "{b:#x}");
        }
    }

    #[test]
    fn digit_runs_of_every_length_and_alignment() {
        for digits in 0..=21usize {
            for pad in 0..9 {
                for tail in ["", " ms", ".5", "x"] {
                    let num: String = (0..digits)
                        .map(|k| char::from(b'0' + ((k * 7 + 3) % 10) as u8))
                        .collect();
                    let s = format!("{}{num}{tail}", " ".repeat(pad));
                    let mut c = Cur::new(s.as_bytes());
                    let want = num.parse::<u64>().ok();
                    assert_eq!(c.uint(), want, "{s:?}");
                    let rest = if want.is_some() {
                        tail.to_string()
                    } else {
                        s.clone()
                    };
                    assert_eq!(c.rest(), rest.as_bytes(), "{s:?}");
                }
            }
        }
        // Bytes next to the digits in ASCII, and high bytes, end a number.
        for b in [b'/', b':', 0x80u8, 0xb0, 0x3a, 0x2f, 0x00] {
            let s = [b'1', b'2', b'3', b, b'4', b'5', b'6', b'7', b'8', b'9'];
            let mut c = Cur::new(&s);
            assert_eq!(c.uint(), Some(123), "{b:#x}");
            assert_eq!(c.rest()[0], b);
        }
        let mut c = Cur::new(b"18446744073709551615 x");
        assert_eq!(c.uint(), Some(u64::MAX));
    }

    #[test]
    fn find_byte_within_matches_a_plain_search() {
        let hay = b"print_timing:a:b:c:d:e:f:g:h:i:j:";
        for limit in 0..hay.len() + 2 {
            for start in 0..hay.len() {
                let h = &hay[start..];
                let want = h.iter().take(limit).position(|&b| b == b':');
                assert_eq!(find_byte_within(h, b':', limit), want, "{start} {limit}");
            }
        }
        assert_eq!(find_byte_within(b"\xba\xbb:x", b':', 24), Some(2));
        assert_eq!(find_byte_within(b"", b':', 24), None);
    }

    #[test]
    fn trim_strips_blanks_and_cr() {
        assert_eq!(trim(b"  abc \r"), b"abc");
        assert_eq!(trim(b"\n"), b"");
    }
}
