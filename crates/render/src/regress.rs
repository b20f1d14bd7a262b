//! `headroom regress`'s human form (also bench's comparison against the run before): the
//! per-metric table with the interval that decided, the headline, what changed between the two
//! runs' identities, the machine load, and the version series with its first moves.

use ::regress::report::RegressDoc;
use comfy_table::{Cell, CellAlignment};
use numbers::fmt::{percent, percent_signed};

fn fmt(v: f64) -> String {
    physics::provenance::sig(v, 3)
}

fn describe(g: &::regress::runs::GroupRef) -> String {
    let ids: Vec<String> = g.run_ids.iter().map(|i| i.to_string()).collect();
    format!(
        "\"{}\" (run{} {})",
        g.key,
        if ids.len() > 1 { "s" } else { "" },
        ids.join(", ")
    )
}

/// The comparison as text, ending with a newline.
pub fn report(doc: &RegressDoc) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "headroom regress · latest {} against baseline {}\n",
        describe(&doc.latest),
        describe(&doc.baseline)
    ));
    let mut t = crate::table([
        "metric",
        "baseline",
        "latest",
        "change (CI that decided)",
        "p (U)",
        "n",
        "clock",
        "verdict",
    ]);
    for m in &doc.metrics {
        let unit = &m.unit;
        let verdict = match (m.verdict, m.detectable_pct) {
            (::regress::Verdict::Unchanged, Some(d)) => {
                format!(
                    "unchanged (could have detected ≥ {})",
                    percent(d.max(1.0) / 100.0)
                )
            }
            (::regress::Verdict::Unchanged, None) => {
                "unchanged (too few samples to detect any)".into()
            }
            (v, _) => v.as_str().into(),
        };
        t.add_row(vec![
            Cell::new(&m.label),
            Cell::new(format!("{} {unit}", fmt(m.baseline))).set_alignment(CellAlignment::Right),
            Cell::new(format!("{} {unit}", fmt(m.latest))).set_alignment(CellAlignment::Right),
            Cell::new(format!(
                "{} ({} … {}, {} %)",
                percent_signed(m.ratio - 1.0),
                percent_signed(m.low - 1.0),
                percent_signed(m.high - 1.0),
                ::regress::conf_text(m.confidence)
            ))
            .set_alignment(CellAlignment::Right),
            Cell::new(format!("{:.3}", m.test_p)).set_alignment(CellAlignment::Right),
            Cell::new(format!("{} / {}", m.n_baseline, m.n_latest))
                .set_alignment(CellAlignment::Right),
            Cell::new(match m.clock {
                loadgen::bench_suite::Clock::Engine => "engine",
                loadgen::bench_suite::Clock::Client => "client",
            }),
            Cell::new(verdict),
        ]);
    }
    out.push_str(&format!("{t}\n"));
    if doc.headline.is_empty() {
        out.push_str(&format!(
            "No change beyond noise in any of {} metrics ({} vs {} run(s)).\n",
            doc.metrics.len(),
            doc.baseline.run_ids.len(),
            doc.latest.run_ids.len()
        ));
    } else {
        for h in &doc.headline {
            out.push_str(&format!("{h}\n"));
        }
    }
    if doc.changed.is_empty() {
        out.push_str(
            "What changed: nothing recorded differs (same version, build, model file, settings \
and command line): look outside the engine (load, clocks, thermals, drivers).\n",
        );
    } else {
        out.push_str("What changed between the two runs:\n");
        for c in &doc.changed {
            let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(unrecorded)".into());
            out.push_str(&format!(
                "  {:<32} {} → {}\n",
                c.field,
                show(&c.baseline),
                show(&c.latest)
            ));
        }
    }
    let loads = |l: &[::regress::runs::RunLoad]| {
        l.iter()
            .map(|r| {
                format!(
                    "run {} {:.1} → {:.1}",
                    r.run_id, r.loadavg_1m_start, r.loadavg_1m_end
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !doc.host.baseline.is_empty() || !doc.host.latest.is_empty() {
        out.push_str(&format!(
            "Machine load (1-min average, start → end of each bench): baseline {}; latest {}\n",
            loads(&doc.host.baseline),
            loads(&doc.host.latest)
        ));
    }
    if let Some(s) = &doc.series {
        out.push_str(&format!(
            "\nSeries over {} versions (oldest first):\n",
            s.versions.len()
        ));
        let mut header = vec!["version".to_string()];
        header.extend(
            s.metrics
                .iter()
                .map(|m| format!("{} ({})", m.label, m.unit)),
        );
        let mut t = crate::table(header);
        for v in &s.versions {
            let mut row = vec![Cell::new(&v.key)];
            for m in &s.metrics {
                let p = m.points.iter().find(|p| p.version == v.key);
                row.push(
                    Cell::new(match p {
                        Some(p) => {
                            let mark = match p.step_verdict {
                                Some(::regress::Verdict::Regressed) => " ▼",
                                Some(::regress::Verdict::Improved) => " ▲",
                                _ => "",
                            };
                            format!("{}{mark}", fmt(p.median))
                        }
                        None => "-".into(),
                    })
                    .set_alignment(CellAlignment::Right),
                );
            }
            t.add_row(row);
        }
        out.push_str(&format!("{t}\n"));
        for m in &s.metrics {
            match &m.first_move {
                Some(f) => out.push_str(&format!(
                    "{}: first moved at {} (from {}){}: {}\n",
                    m.label,
                    f.to,
                    f.from,
                    if f.gradual { ", gradually" } else { "" },
                    f.sentence
                )),
                None => out.push_str(&format!("{}: no version moved it beyond noise\n", m.label)),
            }
        }
    }
    for n in &doc.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    out
}
