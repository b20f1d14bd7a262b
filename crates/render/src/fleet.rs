//! `headroom fleet`'s human form: one row per replica with its primary finding and first fix,
//! the fleet median, the outliers and the imbalance with its evidence.

use fleet::FleetDoc;

fn num(v: Option<f64>, digits: usize) -> String {
    match v {
        Some(x) => format!("{x:.digits$}"),
        None => "-".into(),
    }
}

fn pct(v: Option<f64>) -> String {
    v.map(|x| format!("{:.0}%", 100.0 * x))
        .unwrap_or_else(|| "-".into())
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
    let mut t = crate::table([
        "replica",
        "engine",
        "gen tok/s",
        "tok/s per seq",
        "running",
        "waiting",
        "KV",
        "req/s",
        "primary",
        "fix",
    ]);
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
        t.add_row(vec![
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
            pct(f.kv_usage),
            num(f.finished_per_s, 2),
            primary,
            fix,
        ]);
    }
    let m = &d.median;
    t.add_row(vec![
        "fleet median".into(),
        String::new(),
        num(m.generation_tps, 1),
        num(m.tps_per_running, 1),
        num(m.running, 1),
        num(m.waiting, 1),
        pct(m.kv_usage),
        num(m.finished_per_s, 2),
        String::new(),
        String::new(),
    ]);
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
