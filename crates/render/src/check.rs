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
    out.push_str(&format!(
        "Check of the {tool} against {} at {}, {:.1} s window, {} scrapes\n{verdict}\n\n",
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
