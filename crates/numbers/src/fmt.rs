//! Numbers as a person reads them, written once, so one figure prints the same in every command.
//!
//! - [`sig`]: three significant figures (the caller picks how many), thousands grouped with a
//!   comma, no trailing zeros: `295`, `61,600`, `3.72`, `0.0123`.
//! - [`percent`]: a share (0..1) as a percentage, **with a space before `%`** as SI and
//!   ISO 80000-1 write it (`12.3 %`), the form the ceiling's figures already used. At most one
//!   decimal and at most three significant figures, trailing zero dropped: `12.3 %`, `12 %`,
//!   `4.2 %`, `100 %`, `250 %`. Two bounds keep the rounding honest: a share that is not zero
//!   never prints as zero (`< 0.1 %`, `> -0.1 %`), and a share below one never prints as the
//!   whole (`> 99.9 %`). A share that was not read (None, NaN, ±inf) prints [`UNREAD`], the `-`
//!   the tables use for every value they lack.
//! - [`seconds`]: a latency in seconds, in milliseconds below one second (`235 ms`, `12.3 ms`)
//!   and in seconds from one up (`1.53 s`), three significant figures.

/// What a figure that was not read prints as: the tables' `-`.
pub const UNREAD: &str = "-";

/// A share (0..1, or beyond for ratios above the whole) as `12.3 %` (see the module docs);
/// [`UNREAD`] when it is not finite.
pub fn percent(share: f64) -> String {
    match percent_figure(share) {
        Some(n) => format!("{n} %"),
        None => UNREAD.to_string(),
    }
}

/// [`percent`] of a share that may be missing.
pub fn percent_opt(share: Option<f64>) -> String {
    share.map_or_else(|| UNREAD.to_string(), percent)
}

/// A change as a share, signed: `+12.3 %`, `-4 %`, `0 %`, `< +0.1 %`; [`UNREAD`] when not finite.
pub fn percent_signed(change: f64) -> String {
    match percent_figure(change) {
        // A bound (`< 0.1`, `> 99.9`) keeps its sign on the number: `< +0.1 %`.
        Some(n) if change > 0.0 => match n.split_once(' ') {
            Some((bound, x)) => format!("{bound} +{x} %"),
            None => format!("+{n} %"),
        },
        Some(n) => format!("{n} %"),
        None => UNREAD.to_string(),
    }
}

/// A duration in seconds as `235 ms` below one second and `1.53 s` from one up (three significant
/// figures); [`UNREAD`] when not finite.
pub fn seconds(s: f64) -> String {
    if !s.is_finite() {
        UNREAD.to_string()
    } else if s.abs() < 0.9995 {
        // Below what rounds to 1000 ms at three figures.
        format!("{} ms", sig(s * 1e3, 3))
    } else {
        format!("{} s", sig(s, 3))
    }
}

/// The number [`percent`] prints, without ` %`: for a table whose header carries the unit.
/// [`UNREAD`] when the share is not finite.
pub fn percent_cell(share: f64) -> String {
    percent_figure(share).unwrap_or_else(|| UNREAD.to_string())
}

fn percent_figure(share: f64) -> Option<String> {
    let p = share * 100.0;
    if !p.is_finite() {
        return None;
    }
    if p == 0.0 {
        return Some("0".into());
    }
    if p.abs() < 0.05 {
        return Some(if p > 0.0 { "< 0.1" } else { "> -0.1" }.into());
    }
    if (99.95..100.0).contains(&p) {
        return Some("> 99.9".into());
    }
    let tenths = (p * 10.0).round() / 10.0;
    if tenths.abs() >= 100.0 {
        return Some(sig(p, 3));
    }
    let s = format!("{tenths:.1}");
    Some(s.strip_suffix(".0").map_or(s.clone(), str::to_string))
}

/// Formats `v` to `digits` significant figures, with thousands separators for large values and
/// no trailing zeros after the point (`295`, `61,600`, `3.72`, `0.0123`).
pub fn sig(v: f64, digits: i32) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v == 0.0 {
        return "0".into();
    }
    let mag = v.abs().log10().floor() as i32;
    let decimals = (digits - 1 - mag).max(0) as usize;
    let scale = 10f64.powi(mag - digits + 1);
    let rounded = if mag >= digits - 1 {
        (v / scale).round() * scale
    } else {
        v
    };
    let s = format!("{rounded:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    group_thousands(&s)
}

fn group_thousands(s: &str) -> String {
    let (sign, rest) = s.strip_prefix('-').map_or(("", s), |r| ("-", r));
    let (int, frac) = rest
        .split_once('.')
        .map_or((rest, None), |(i, f)| (i, Some(f)));
    if int.len() <= 4 {
        return s.to_string();
    }
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{out}.{f}"),
        None => format!("{sign}{out}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_figures() {
        let cases = [
            (208.47, "208"),
            (61_634.0, "61,600"),
            (3.716, "3.72"),
            (11.302, "11.3"),
            (0.012_345, "0.0123"),
            (1_000_000.0, "1,000,000"),
            (26.75, "26.8"),
            (20.0, "20"),
            (0.0, "0"),
            (-1234.5, "-1230"),
            (9999.0, "10,000"),
            (12_345.0, "12,300"),
        ];
        for (v, want) in cases {
            assert_eq!(sig(v, 3), want, "sig({v})");
        }
    }

    #[test]
    fn percent_edges() {
        let cases = [
            (0.0, "0 %"),
            (1.0, "100 %"),
            (0.123, "12.3 %"),
            (0.12, "12 %"),
            (0.042, "4.2 %"),
            (0.0456, "4.6 %"),
            (0.12345, "12.3 %"),
            (0.0004, "< 0.1 %"),
            (0.0006, "0.1 %"),
            (0.9996, "> 99.9 %"),
            (0.999, "99.9 %"),
            (2.5, "250 %"),
            (12.345, "1230 %"),
            (-0.123, "-12.3 %"),
            (-0.0004, "> -0.1 %"),
        ];
        for (share, want) in cases {
            assert_eq!(percent(share), want, "percent({share})");
        }
    }

    #[test]
    fn unread_shares_print_the_mark() {
        assert_eq!(percent(f64::NAN), "-");
        assert_eq!(percent(f64::INFINITY), "-");
        assert_eq!(percent(f64::NEG_INFINITY), "-");
        assert_eq!(percent_opt(None), "-");
        assert_eq!(percent_opt(Some(0.5)), "50 %");
        assert_eq!(percent_cell(0.5), "50");
        assert_eq!(percent_cell(f64::NAN), "-");
        assert_eq!(percent_signed(f64::NAN), "-");
    }

    #[test]
    fn durations_switch_to_seconds_at_one() {
        assert_eq!(seconds(0.2345), "235 ms");
        assert_eq!(seconds(0.0123), "12.3 ms");
        assert_eq!(seconds(0.0), "0 ms");
        assert_eq!(seconds(0.9999), "1 s");
        assert_eq!(seconds(1.0), "1 s");
        assert_eq!(seconds(1.534), "1.53 s");
        assert_eq!(seconds(125.0), "125 s");
        assert_eq!(seconds(f64::NAN), "-");
    }

    #[test]
    fn signed_changes() {
        assert_eq!(percent_signed(0.123), "+12.3 %");
        assert_eq!(percent_signed(-0.04), "-4 %");
        assert_eq!(percent_signed(0.0), "0 %");
        assert_eq!(percent_signed(0.0004), "< +0.1 %");
        assert_eq!(percent_signed(0.9996), "> +99.9 %");
    }
}
