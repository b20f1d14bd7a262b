//! A forward-only byte cursor: literal matches and printf-shaped numbers, no regex, no
//! backtracking. Every method either advances past what it matched or leaves the cursor where
//! it was, so a failed optional match costs nothing.

#[derive(Clone, Copy)]
pub(crate) struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Cur { b, i: 0 }
    }

    pub fn rest(&self) -> &'a [u8] {
        &self.b[self.i..]
    }

    pub fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    pub fn skip_while(&mut self, f: impl Fn(u8) -> bool) {
        while self.peek().is_some_and(&f) {
            self.i += 1;
        }
    }

    /// Skips spaces and tabs (printf's `%10.2f` pads with spaces).
    pub fn ws(&mut self) {
        while let Some(b' ' | b'\t') = self.peek() {
            self.i += 1;
        }
    }

    /// Matches `s` exactly at the cursor.
    pub fn lit(&mut self, s: &[u8]) -> bool {
        if self.b[self.i..].starts_with(s) {
            self.i += s.len();
            true
        } else {
            false
        }
    }

    /// Skips blanks, then matches `s`.
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
    pub fn find(&mut self, s: &[u8]) -> bool {
        match memchr::memmem::find(&self.b[self.i..], s) {
            Some(p) => {
                self.i += p + s.len();
                true
            }
            None => false,
        }
    }

    /// Unsigned decimal integer after optional blanks; `None` on no digits or overflow.
    pub fn uint(&mut self) -> Option<u64> {
        let save = self.i;
        self.ws();
        let start = self.i;
        let mut v: u64 = 0;
        while let Some(c @ b'0'..=b'9') = self.peek() {
            match v
                .checked_mul(10)
                .and_then(|x| x.checked_add(u64::from(c - b'0')))
            {
                Some(x) => v = x,
                None => {
                    self.i = save;
                    return None;
                }
            }
            self.i += 1;
        }
        if self.i == start {
            self.i = save;
            return None;
        }
        Some(v)
    }

    /// Signed decimal integer (llama.cpp prints `task -1` for a slot without a task).
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
        let start = self.i;
        let mut mant: u64 = 0;
        let mut digits = 0u32;
        let mut frac = 0i32;
        let mut seen_dot = false;
        loop {
            match self.peek() {
                Some(c @ b'0'..=b'9') => {
                    if digits < 19 {
                        mant = mant * 10 + u64::from(c - b'0');
                        digits += 1;
                        if seen_dot {
                            frac += 1;
                        }
                    } else if !seen_dot {
                        // Past 19 significant digits: keep the magnitude, drop precision.
                        frac -= 1;
                    }
                    self.i += 1;
                }
                Some(b'.') if !seen_dot => {
                    seen_dot = true;
                    self.i += 1;
                }
                _ => break,
            }
        }
        let text = &self.b[start..self.i];
        if text.is_empty() || text == b"." {
            self.i = save;
            return None;
        }
        // mant < 2^63 and 10^frac exact for frac <= 22: one correctly rounded division.
        let v = if (0..=22).contains(&frac) && mant < (1u64 << 53) {
            mant as f64 / POW10[frac as usize]
        } else {
            // Rare (very long numbers): the standard library's exact parser.
            std::str::from_utf8(text).ok()?.parse::<f64>().ok()?
        };
        Some(if neg { -v } else { v })
    }
}

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

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
    fn trim_strips_blanks_and_cr() {
        assert_eq!(trim(b"  abc \r"), b"abc");
        assert_eq!(trim(b"\n"), b"");
    }
}
