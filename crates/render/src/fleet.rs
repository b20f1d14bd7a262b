//! `headroom fleet`'s human form: one row per replica with its primary finding and first fix,
//! the fleet median, the outliers and the imbalance with its evidence.

use fleet::FleetDoc;
use numbers::fmt::percent_opt;

fn num(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(x) => format!("{x:.digits$}"),
        None => "-".into(),
    }
}

/// The ceilings the replicas were judged against, one line per distinct one with the replicas
/// it holds for ("" when none was asked for).
fn ceilings(d: &FleetDoc) -> String {
    let mut lines: Vec<(String, Vec<&str>)> = Vec::new();
    for r in &d.replicas {
        let Some(c) = &r.ceiling else { continue };
        let line = match &c.unknown_reason {
            Some(why) => format!("Ceiling unknown: {why}"),
            None => format!(
                "Ceiling: {} on {} (TP {}): {} tok/s per sequence, ridge batch {}, {} tok/s at the ridge",
                c.model.as_deref().unwrap_or("?"),
                c.gpu.as_deref().unwrap_or("?"),
                c.tp,
                num(c.decode_tps, 1),
                num(c.ridge_batch, 0),
                num(c.aggregate_at_ridge_tps, 0)
            ),
        };
        match lines.iter_mut().find(|(l, _)| *l == line) {
            Some((_, rs)) => rs.push(&r.replica),
            None => lines.push((line, vec![&r.replica])),
        }
    }
    let mut out = String::new();
    let all = lines.len() == 1 && lines[0].1.len() == d.replicas.len();
    for (line, rs) in &lines {
        if all {
            out.push_str(&format!("{line} (every replica)\n"));
        } else {
            out.push_str(&format!("{line} ({})\n", rs.join(", ")));
        }
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The fleet as text, ending with a newline.
pub fn report(d: &FleetDoc) -> String {
    let mut out = format!(
        "Fleet: {} replicas by `{}` under {} at {}  (window {:.0} s, step {:.1} s, {} queries)\n\n",
        d.replicas.len(),
        d.by,
        d.selector,
        d.prometheus,
        d.window.duration_s,
        d.window.step_s,
        d.queries
    );
    out.push_str(&ceilings(d));
    // The ceiling column only when a ceiling was asked for (--gpu/--model).
    let with_ceiling = d.replicas.iter().any(|r| r.ceiling.is_some());
    let mut header = vec![
        "replica",
        "engine",
        "gen tok/s",
        "tok/s per seq",
        "running",
        "waiting",
        "KV",
        "req/s",
    ];
    if with_ceiling {
        header.push("of ceiling");
    }
    header.extend(["primary", "fix"]);
    let mut t = crate::table(header);
    let outlier = |r: &str| d.outliers.iter().any(|o| o.replica == r);
    for r in &d.replicas {
        let f = &r.figures;
        let (primary, fix) = match &r.primary {
            Some(p) => (
                format!("{} {}", p.rule.as_str(), p.title),
                p.fix
                    .first()
                    .map(|s| match (&s.flag, &s.value) {
                        (Some(fl), Some(v)) => format!("{fl} {v}"),
                        (Some(fl), None) => format!("{fl} ({})", s.text),
                        _ => s.text.clone(),
                    })
                    .unwrap_or_default(),
            ),
            None if r.idle => ("idle".into(), String::new()),
            None => ("none".into(), String::new()),
        };
        let mut row = vec![
            format!(
                "{}{}",
                r.replica,
                if outlier(&r.replica) { " *" } else { "" }
            ),
            r.engine.name().to_string(),
            num(f.generation_tps, 1),
            num(f.tps_per_running, 1),
            num(f.running, 1),
            num(f.waiting, 1),
            percent_opt(f.kv_usage),
            num(f.finished_per_s, 2),
        ];
        if with_ceiling {
            row.push(percent_opt(f.efficiency));
        }
        row.extend([primary, fix]);
        t.add_row(row);
    }
    let m = &d.median;
    let mut row = vec![
        "fleet median".into(),
        String::new(),
        num(m.generation_tps, 1),
        num(m.tps_per_running, 1),
        num(m.running, 1),
        num(m.waiting, 1),
        percent_opt(m.kv_usage),
        num(m.finished_per_s, 2),
    ];
    if with_ceiling {
        row.push(percent_opt(m.efficiency));
    }
    row.extend([String::new(), String::new()]);
    t.add_row(row);
    out.push_str(&t.to_string());
    out.push('\n');
    if d.outliers.is_empty() {
        out.push_str("\nOutliers: none.\n");
    } else {
        out.push_str("\nOutliers (*):\n");
        for o in &d.outliers {
            out.push_str(&format!("  {}: {}\n", o.replica, o.reason));
        }
    }
    out.push_str(&format!(
        "\nImbalance: {}\n",
        if d.imbalance.fired { "yes" } else { "no" }
    ));
    for e in &d.imbalance.evidence {
        out.push_str(&format!("  {e}\n"));
    }
    for f in &d.imbalance.fix {
        out.push_str(&format!("  fix: {f}\n"));
    }
    out.push_str(&gpus(d));
    out
}

/// Each replica's GPUs from DCGM: how it was joined (or why not), the GPU's figures and
/// findings; "" when DCGM was not read.
fn gpus(d: &FleetDoc) -> String {
    let Some(s) = &d.dcgm else {
        return String::new();
    };
    if s.gpus == 0 {
        return format!(
            "\nGPUs: no DCGM series under {} in the window (--dcgm-selector picks the exporter's job)\n",
            s.selector
        );
    }
    let mut out = format!(
        "\nGPUs (DCGM under {}): {} in the window, {} joined to a replica\n",
        s.selector, s.gpus, s.joined
    );
    for r in &d.replicas {
        let Some(j) = &r.gpu_join else { continue };
        match (&j.by, &j.refused) {
            (Some(by), _) => {
                out.push_str(&format!(
                    "{} (joined by {by}: {})\n",
                    r.replica,
                    j.gpus.join(", ")
                ));
                if let Some(t) = &r.gpu_telemetry {
                    let from = r.ceiling.as_ref().and_then(|c| c.gpu_from.as_deref());
                    out.push_str(&crate::diagnose_gpu::devices(t, from, false));
                }
            }
            (None, Some(why)) => out.push_str(&format!("{}: no GPU joined: {why}\n", r.replica)),
            (None, None) => {}
        }
    }
    if !s.unjoined.is_empty() {
        out.push_str(&format!(
            "GPUs joined to no replica: {}\n",
            s.unjoined.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real `headroom fleet --json` over three emulated vLLM replicas, one an outlier
    /// (crates/report/tests/fixtures/SOURCES.md).
    #[test]
    fn the_outlier_is_marked_and_explained() {
        let text = include_str!("../../report/tests/fixtures/fleet-three-replicas.json");
        let d: FleetDoc = serde_json::from_str(text).unwrap();
        let out = report(&d);
        assert!(!d.outliers.is_empty());
        for o in &d.outliers {
            assert!(out.contains(&format!("{} *", o.replica)), "{out}");
            assert!(
                out.contains(&format!("  {}: {}\n", o.replica, o.reason)),
                "{out}"
            );
        }
        assert!(out.contains("fleet median"), "{out}");
        assert!(out.starts_with(&format!("Fleet: {} replicas by `", d.replicas.len())));
        assert!(out.ends_with('\n'));
    }
}
