//! `headroom pcie`'s human form: the link's use against its ceiling, in the spec's words.

use std::fmt::Write as _;

use telemetry::dmon::{Ceiling, Direction, PcieReport};

use crate::Render;

/// A summarized dmon capture in its two forms.
pub struct PcieView(pub PcieReport);

/// 12345.6 → "12,346".
fn mbps(v: f64) -> String {
    let n = v.round() as u64;
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A share of the ceiling, derived from a catalog figure: "~3 %", "~0.4 %", "< 0.1 %".
fn share(x: f64) -> String {
    let p = numbers::fmt::percent(x);
    if x == 0.0 || !x.is_finite() || p.starts_with(['<', '>']) {
        p
    } else {
        format!("~{p}")
    }
}

/// One direction in the spec's words: "peak 230 MB/s against ~7,877 MB/s = ~2.9 %".
fn quote(d: &Direction, ceiling: Option<&Ceiling>) -> String {
    let mut s = format!("peak {} MB/s at {}", mbps(d.peak_mbps), d.peak_at);
    if let (Some(c), Some(p)) = (ceiling, d.peak_of_ceiling) {
        let _ = write!(
            s,
            " against ~{} MB/s = {}",
            mbps(c.per_direction_mbps),
            share(p)
        );
    }
    let _ = write!(s, "; median {} MB/s", mbps(d.median_mbps));
    if let Some(p) = d.median_of_ceiling {
        let _ = write!(s, " ({})", share(p));
    }
    s
}

impl Render for PcieView {
    type Doc = PcieReport;

    fn doc(&self) -> &PcieReport {
        &self.0
    }

    fn human(&self) -> String {
        let r = &self.0;
        let mut o = String::new();
        let _ = writeln!(o, "headroom pcie · {}", r.input);
        match (&r.ceiling, &r.ceiling_unknown) {
            (Some(c), _) => {
                let _ = writeln!(
                    o,
                    "link {}: ~{} MB/s each way (est; line rate after encoding, packets leave \
                     ~80-90 %)",
                    c.link,
                    mbps(c.per_direction_mbps)
                );
            }
            (None, Some(why)) => {
                let _ = writeln!(o, "link ceiling unknown: {why}");
            }
            (None, None) => {}
        }
        let mut t = crate::table([
            "GPU",
            "readings",
            "from … to",
            "rx peak",
            "rx median",
            "tx peak",
            "tx median",
            "idle",
        ]);
        let cell = |d: &Option<Direction>, peak: bool| match d {
            None => "-".to_string(),
            Some(d) => {
                let (v, s) = if peak {
                    (d.peak_mbps, d.peak_of_ceiling)
                } else {
                    (d.median_mbps, d.median_of_ceiling)
                };
                match s {
                    Some(s) => format!("{} MB/s ({})", mbps(v), share(s)),
                    None => format!("{} MB/s", mbps(v)),
                }
            }
        };
        for g in &r.gpus {
            let span = match (&g.first_time, &g.last_time) {
                (Some(a), Some(b)) => format!("{a} … {b}"),
                _ => "-".to_string(),
            };
            t.add_row(vec![
                g.gpu.to_string(),
                g.readings.to_string(),
                span,
                cell(&g.rx, true),
                cell(&g.rx, false),
                cell(&g.tx, true),
                cell(&g.tx, false),
                numbers::fmt::percent(g.idle_share),
            ]);
        }
        let _ = writeln!(o, "{t}");
        for g in &r.gpus {
            for (dir, d) in [("rx (host → GPU)", &g.rx), ("tx (GPU → host)", &g.tx)] {
                match d {
                    Some(d) => {
                        let _ =
                            writeln!(o, "GPU {} {dir}: {}", g.gpu, quote(d, r.ceiling.as_ref()));
                    }
                    None => {
                        let _ = writeln!(o, "GPU {} {dir}: dmon read no value (-)", g.gpu);
                    }
                }
            }
            let _ = writeln!(
                o,
                "GPU {}: idle (rx and tx < {} MB/s) in {} of {} readings",
                g.gpu,
                r.idle_below_mbps,
                numbers::fmt::percent(g.idle_share),
                g.readings
            );
        }
        if r.skipped.rows > 0 {
            let lines: Vec<String> = r.skipped.first_lines.iter().map(u64::to_string).collect();
            let _ = writeln!(
                o,
                "skipped {} row(s) that do not fit their header (line {}{})",
                r.skipped.rows,
                lines.join(", "),
                if r.skipped.rows as usize > lines.len() {
                    ", …"
                } else {
                    ""
                }
            );
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_the_spec_quotes_them() {
        assert_eq!(mbps(7876.9), "7,877");
        assert_eq!(mbps(230.0), "230");
        assert_eq!(mbps(1_234_567.0), "1,234,567");
        assert_eq!(share(230.0 / 7876.9), "~2.9 %");
        assert_eq!(share(0.0), "0 %");
        assert_eq!(share(0.25), "~25 %");
        assert_eq!(share(0.0000001), "< 0.1 %");
    }
}
