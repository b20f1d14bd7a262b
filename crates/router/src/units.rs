//! Sizes and durations as people type them on a command line: `64MiB`, `500ms`, `2s`.
use std::time::Duration;

use crate::RouteError;

/// Parses a byte size: a plain number of bytes, or a number with B, KiB, MiB, GiB (binary)
/// or KB, MB, GB (decimal). `4KiB` is 4096.
pub fn parse_size(text: &str) -> Result<u64, RouteError> {
    let bad = |why: &str| {
        RouteError::Config(format!(
            "size {text:?}: {why} (examples: 4096, 64KiB, 64MiB, 1GB)"
        ))
    };
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
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        _ => return Err(bad("unknown unit")),
    };
    n.checked_mul(mult).ok_or_else(|| bad("too large"))
}

/// Parses a duration: a number with ms, s or m (`500ms`, `2s`, `5m`); a bare number is seconds.
pub fn parse_duration(text: &str) -> Result<Duration, RouteError> {
    let bad = |why: &str| {
        RouteError::Config(format!(
            "duration {text:?}: {why} (examples: 500ms, 2s, 5m)"
        ))
    };
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    if digits.is_empty() {
        return Err(bad("no number"));
    }
    let n: u64 = digits.parse().map_err(|_| bad("number too large"))?;
    match unit.trim() {
        "ms" => Ok(Duration::from_millis(n)),
        "" | "s" => Ok(Duration::from_secs(n)),
        "m" | "min" => n
            .checked_mul(60)
            .map(Duration::from_secs)
            .ok_or_else(|| bad("too large")),
        _ => Err(bad("unknown unit")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        let cases: &[(&str, Option<u64>)] = &[
            ("4096", Some(4096)),
            ("4KiB", Some(4096)),
            ("64MiB", Some(64 << 20)),
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
    fn durations() {
        let cases: &[(&str, Option<Duration>)] = &[
            ("500ms", Some(Duration::from_millis(500))),
            ("2s", Some(Duration::from_secs(2))),
            ("3", Some(Duration::from_secs(3))),
            ("5m", Some(Duration::from_secs(300))),
            ("1h", None),
            ("s", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_duration(text).ok(), *want, "{text}");
        }
    }
}
