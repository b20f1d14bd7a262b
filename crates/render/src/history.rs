//! `headroom history`'s lines: one saved run each.

use store::history::Entry;

/// One run: id, time (UTC), kind, engine, model, summary, label.
pub fn line(r: &Entry) -> String {
    let label = r
        .label
        .as_deref()
        .map(|l| format!(" [{l}]"))
        .unwrap_or_default();
    format!(
        "{:>5}  {}  {:<8} {:<9} {:<28} {}{label}",
        r.id,
        when(r.created),
        r.kind,
        r.engine.as_deref().unwrap_or("-"),
        r.model.as_deref().unwrap_or("-"),
        r.summary
    )
}

/// Time of day in UTC, to the second ("14:02:31 UTC").
pub(crate) fn clock(t: f64) -> String {
    let rem = (t as i64).rem_euclid(86400);
    format!(
        "{:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn when(t: f64) -> String {
    // UTC, to the minute, without a date library: days since the epoch → civil date.
    let secs = t as i64;
    let (days, rem) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_dates() {
        assert_eq!(super::when(0.0), "1970-01-01 00:00");
        assert_eq!(super::when(1_796_000_000.0), "2026-11-30 00:53");
        assert_eq!(super::when(951_782_400.0), "2000-02-29 00:00");
        assert_eq!(super::clock(1_796_000_000.0), "00:53:20 UTC");
    }
}
