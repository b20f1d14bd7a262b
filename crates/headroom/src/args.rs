//! The argument grammar every command shares: durations and sizes as people type them. One
//! grammar, so `--duration 1h30m` and `--drain 1h30m` mean the same thing everywhere.

use std::time::Duration;

const DURATION_EXAMPLES: &str = "examples: 90, 500ms, 2s, 5m, 1h30m";

/// A duration: a bare number of seconds (`90`, `0.5`), or numbers with units `ms`, `s`, `m`
/// (`min`), `h`, summed (`1h30m`, `2m30s`). Must be positive.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let bad = |why: String| format!("duration {text:?}: {why} ({DURATION_EXAMPLES})");
    let s = text.trim();
    if s.is_empty() {
        return Err(bad("empty".into()));
    }
    let secs = if let Ok(secs) = s.parse::<f64>() {
        secs
    } else {
        let mut total = 0.0;
        let mut rest = s;
        while !rest.is_empty() {
            let n_end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            let (num, tail) = rest.split_at(n_end);
            let u_end = tail
                .find(|c: char| !c.is_ascii_alphabetic())
                .unwrap_or(tail.len());
            let (unit, tail) = tail.split_at(u_end);
            if num.is_empty() {
                return Err(bad(format!("expected a number before {unit:?}")));
            }
            if unit.is_empty() {
                return Err(bad("a number without a unit after another part".into()));
            }
            let v: f64 = num
                .parse()
                .map_err(|_| bad(format!("{num:?} is not a number")))?;
            total += v * match unit {
                "ms" => 0.001,
                "s" => 1.0,
                "m" | "min" => 60.0,
                "h" => 3600.0,
                _ => return Err(bad(format!("unknown unit {unit:?} (use ms, s, m, h)"))),
            };
            rest = tail.trim_start();
        }
        total
    };
    if !secs.is_finite() || secs <= 0.0 {
        return Err(bad("must be positive".into()));
    }
    // Past this, Duration::from_secs_f64 would panic; nobody means a window of centuries.
    if secs > 1e12 {
        return Err(bad("too large".into()));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A byte size: a plain number of bytes, or a number with B, KiB, MiB, GiB, TiB (binary; K, M,
/// G, T alone mean the same) or KB, MB, GB, TB (decimal). `4KiB` is 4096.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let bad = |why: &str| format!("size {text:?}: {why} (examples: 4096, 64KiB, 64MiB, 4GiB, 1GB)");
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    if digits.is_empty() {
        return Err(bad("no number"));
    }
    let n: u64 = digits.parse().map_err(|_| bad("number too large"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kib" | "k" => 1 << 10,
        "mib" | "m" => 1 << 20,
        "gib" | "g" => 1 << 30,
        "tib" | "t" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => return Err(bad("unknown unit")),
    };
    n.checked_mul(mult).ok_or_else(|| bad("too large"))
}

/// A token count: a number, or with `k` (×1024) or `M` (×1024²) as context lengths are
/// named (`2k` is 2048, `128k` 131072, `1M` 1048576); 1 to 16M. Every flag that takes a
/// count of tokens parses it here.
pub fn parse_tokens(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mult) = if let Some(n) = t.strip_suffix(['k', 'K']) {
        (n, 1024.0)
    } else if let Some(n) = t.strip_suffix(['m', 'M']) {
        (n, 1024.0 * 1024.0)
    } else {
        (t, 1.0)
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a token count (examples: 512, 2k, 128k, 1M)"))?;
    let n = (v * mult).round();
    if !(1.0..=16_777_216.0).contains(&n) {
        return Err(format!("{s:?} is outside 1..=16M tokens"));
    }
    Ok(n as u64)
}

/// [`parse_tokens`] for flags held as `u32`.
pub fn parse_tokens_u32(s: &str) -> Result<u32, String> {
    parse_tokens(s).map(|n| n as u32)
}

/// `--at`: unix seconds, `now`, or a duration ago (`-1h`), against `now` (unix seconds).
pub fn parse_at(s: &str, now: f64) -> anyhow::Result<f64> {
    let t = s.trim();
    if t == "now" {
        return Ok(now);
    }
    if let Some(ago) = t.strip_prefix('-') {
        let d = parse_duration(ago).map_err(|e| anyhow::anyhow!("--at {s:?}: {e}"))?;
        return Ok(now - d.as_secs_f64());
    }
    match t.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => anyhow::bail!(
            "--at {s:?}: give unix seconds (1767225600), `now`, or a duration ago (-1h)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts_take_k_and_m() {
        assert_eq!(parse_tokens("2k"), Ok(2048));
        assert_eq!(parse_tokens("128K"), Ok(131_072));
        assert_eq!(parse_tokens("1M"), Ok(1_048_576));
        assert_eq!(parse_tokens(" 1500 "), Ok(1500));
        assert_eq!(parse_tokens_u32("32k"), Ok(32_768));
        assert!(parse_tokens("17M").unwrap_err().contains("16M"));
        assert!(parse_tokens("2kb").is_err());
    }

    #[test]
    fn durations() {
        let ms = Duration::from_millis;
        let cases: &[(&str, Option<Duration>)] = &[
            ("90", Some(ms(90_000))),
            ("0.5", Some(ms(500))),
            ("500ms", Some(ms(500))),
            ("2s", Some(ms(2_000))),
            ("5m", Some(ms(300_000))),
            ("5min", Some(ms(300_000))),
            ("1h", Some(ms(3_600_000))),
            ("1h30m", Some(ms(5_400_000))),
            ("2m 30s", Some(ms(150_000))),
            ("1.5s", Some(ms(1_500))),
            ("s", None),
            ("", None),
            ("0", None),
            ("0s", None),
            ("-3", None),
            ("2x", None),
            ("1h30", None),
            ("nan", None),
            ("inf", None),
            ("1e300", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_duration(text).ok(), *want, "{text}");
        }
    }

    #[test]
    fn sizes() {
        let cases: &[(&str, Option<u64>)] = &[
            ("4096", Some(4096)),
            ("4KiB", Some(4096)),
            ("64MiB", Some(64 << 20)),
            ("4GiB", Some(4 << 30)),
            ("1GB", Some(1_000_000_000)),
            ("2 kib", Some(2048)),
            ("10B", Some(10)),
            ("MiB", None),
            ("12XB", None),
            ("99999999999999999999", None),
            ("99999999999999GiB", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_size(text).ok(), *want, "{text}");
        }
    }

    #[test]
    fn at_forms() {
        assert_eq!(parse_at("now", 100.0).unwrap(), 100.0);
        assert_eq!(parse_at("-1m", 100.0).unwrap(), 40.0);
        assert_eq!(parse_at("1767225600", 1.0).unwrap(), 1767225600.0);
        assert!(parse_at("yesterday", 1.0)
            .unwrap_err()
            .to_string()
            .contains("--at \"yesterday\""));
    }
}
