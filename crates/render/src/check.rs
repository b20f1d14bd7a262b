//! `headroom check`: the verdict, one line per validity check, then the server's diagnosis.

use check::{Check, Outcome, Verdict};

pub fn render(c: &Check) -> String {
    let mut out = String::new();
    let tool = c
        .result
        .as_ref()
        .map(|r| format!("{} run ({})", r.tool, r.file))
        .unwrap_or_else(|| "run (no result file)".into());
    let fired = c
        .findings
        .iter()
        .filter(|f| f.outcome == Outcome::Fired)
        .count();
    let verdict = match c.verdict {
        Verdict::Invalid => format!("INVALID: {fired} of {} checks fired", c.findings.len()),
        Verdict::Valid => "valid: every check judged, none fired".into(),
        Verdict::PartlyJudged => "valid where judged: none fired, some could not judge".into(),
    };
    let busy = c
        .window
        .busy_s
        .map(|b| format!(" (server busy {b:.1} s)"))
        .unwrap_or_default();
    out.push_str(&format!(
        "Check of the {tool} against {} at {}, {:.1} s window{busy}, {} scrapes\n{verdict}\n\n",
        c.engine.name(),
        c.url.as_deref().unwrap_or("-"),
        c.window.duration_s,
        c.window.scrapes,
    ));
    for f in &c.findings {
        let mark = match f.outcome {
            Outcome::Fired => "FIRED ",
            Outcome::Clear => "clear ",
            Outcome::Silent => "silent",
        };
        out.push_str(&format!(
            "  {mark}  {:<20} {}\n",
            f.check.title(),
            f.evidence
        ));
    }
    out.push_str("\nThe server's diagnosis of the run:\n");
    if c.diagnosis.incomplete {
        out.push_str("  INCOMPLETE window: under 80 % of the scrapes answered; not a verdict\n");
    }
    match (&c.diagnosis.primary, &c.diagnosis.boundary) {
        (Some(p), _) => {
            out.push_str(&format!("  {} {}\n", p.rule.as_str(), p.title));
            for e in &p.evidence {
                out.push_str(&format!("    {e}\n"));
            }
            if let Some(step) = p.fix.first() {
                out.push_str(&format!("  fix: {}\n", step.text));
            }
        }
        (None, Some(b)) => out.push_str(&format!("  no rule fired: {}\n", b.text)),
        (None, None) => out.push_str("  no rule fired\n"),
    }
    out
}

/// `headroom check --compare`: the load side by side, then the figures (or why not).
pub fn compare(c: &check::compare::Comparison) -> String {
    use check::compare::By;
    let show = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.2}"));
    let side = |s: &check::compare::Side| {
        format!(
            "{} ({}, {:?})",
            s.file,
            s.tool.as_deref().unwrap_or("no result file"),
            s.verdict
        )
    };
    let mut out = format!("A: {}\nB: {}\n\nLoad:\n", side(&c.a), side(&c.b));
    for r in &c.load {
        out.push_str(&format!(
            "  {:<5} {:<42} A {:>10}  B {:>10}{}\n",
            if r.same { "same" } else { "DIFF" },
            r.what,
            show(r.a),
            show(r.b),
            r.off
                .map(|o| format!(
                    "  {:.1} % apart (tolerance {:.0} %)",
                    o * 100.0,
                    r.tolerance * 100.0
                ))
                .unwrap_or_default()
        ));
    }
    if !c.figures.is_empty() {
        out.push_str("\nFigures (B against A):\n");
        for r in &c.figures {
            out.push_str(&format!(
                "  {} {:<6} {:<44} A {:>10}  B {:>10} {:<5} {}\n",
                if r.notable { "*" } else { " " },
                match r.by {
                    By::Client => "client",
                    By::Server => "server",
                },
                r.what,
                show(r.a),
                show(r.b),
                r.unit,
                r.change
                    .map(|x| format!("{:+.1} %", x * 100.0))
                    .unwrap_or_else(|| "-".into())
            ));
        }
    }
    out.push_str(&format!("\n{}\n", c.summary));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use check::{CheckKind, EngineCounts, Finding, Window};

    fn doc(outcomes: &[Outcome], verdict: Verdict) -> Check {
        Check {
            schema: check::SCHEMA.into(),
            engine: engines::Engine::LlamaCpp,
            url: Some("http://127.0.0.1:8080".into()),
            window: Window {
                start: Some(0.0),
                end: Some(12.0),
                duration_s: 12.0,
                scrapes: 13,
                busy_s: Some(10.0),
            },
            command: None,
            result: None,
            figures: None,
            ceiling: None,
            engine_counts: EngineCounts::default(),
            verdict,
            findings: outcomes
                .iter()
                .map(|&outcome| Finding {
                    check: CheckKind::CacheContamination,
                    outcome,
                    evidence: "99.2 % of the prompt tokens".into(),
                    measured: None,
                    threshold: None,
                    threshold_name: None,
                })
                .collect(),
            diagnosis: check::Diagnosis {
                primary: None,
                boundary: None,
                incomplete: true,
            },
        }
    }

    #[test]
    fn the_headline_counts_what_fired_and_each_check_is_one_line() {
        let text = render(&doc(&[Outcome::Fired, Outcome::Clear], Verdict::Invalid));
        assert!(text.contains("INVALID: 1 of 2 checks fired"), "{text}");
        assert!(
            text.contains("  FIRED   cache contamination  99.2 % of"),
            "{text}"
        );
        assert!(
            text.contains("llama.cpp at http://127.0.0.1:8080, 12.0 s window"),
            "{text}"
        );
        assert!(text.contains("INCOMPLETE window"), "{text}");
        let valid = render(&doc(&[Outcome::Clear], Verdict::Valid));
        assert!(
            valid.contains("valid: every check judged, none fired"),
            "{valid}"
        );
    }
}
