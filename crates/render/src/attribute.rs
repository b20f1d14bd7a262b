//! `headroom attribute`'s human form: the parts, the self-checks, then the histograms (withheld
//! when a self-check failed).

use std::fmt::Write as _;

use attribute::{CheckStatus, Report};

use crate::Render;

/// An attribution in its two forms.
pub struct AttributeView {
    pub report: Report,
    /// Tensor rows to show.
    pub top: usize,
    /// Print the histograms even when a self-check failed.
    pub show_anyway: bool,
    pub pid: Option<u32>,
}

impl Render for AttributeView {
    type Doc = Report;

    fn doc(&self) -> &Report {
        &self.report
    }

    fn human(&self) -> String {
        let r = &self.report;
        let mut o = String::new();
        let who = self.pid.map(|p| format!(" · pid {p}")).unwrap_or_default();
        let _ = writeln!(o, "headroom attribute{who} · {}", r.event.name);
        let _ = writeln!(o, "event: {}", r.event.measures);
        let in_model: u64 = r.parts.iter().map(|p| p.samples + p.header + p.gap).sum();
        let _ = writeln!(
            o,
            "addresses: {} read ({} zero, skipped); {in_model} in the model's mappings, {} \
             elsewhere in the process",
            r.addresses.addresses, r.addresses.zero, r.outside
        );
        let mut t = crate::table(["part", "VMAs", "tensors", "samples", "header", "gap"]);
        for p in &r.parts {
            t.add_row(vec![
                p.path.clone(),
                p.vmas.to_string(),
                p.tensors.to_string(),
                p.samples.to_string(),
                p.header.to_string(),
                p.gap.to_string(),
            ]);
        }
        let _ = writeln!(o, "{t}");
        let _ = writeln!(o, "self-checks (before any histogram):");
        for c in &r.checks {
            let mark = match c.status {
                CheckStatus::Pass => "pass",
                CheckStatus::Fail => "FAIL",
                CheckStatus::Unknown => "n/a ",
            };
            let _ = writeln!(
                o,
                "  {mark}  {}: {} (want {}): {}",
                c.name, c.measured, c.threshold, c.says
            );
        }
        if !r.trusted {
            let _ = writeln!(
                o,
                "MIS-ATTRIBUTION: a self-check failed, so the histograms measure the extent \
                 table or the maps, not the model.{}",
                if self.show_anyway {
                    " Shown anyway (--show-anyway)."
                } else {
                    " Withheld (--show-anyway prints them)."
                }
            );
            if !self.show_anyway {
                return o;
            }
        }
        let mut t = crate::table(["tensor", "layer", "samples", "share"]);
        for row in r.tensors.iter().take(self.top) {
            t.add_row(vec![
                row.name.clone(),
                row.layer.map_or("-".into(), |l| l.to_string()),
                row.samples.to_string(),
                numbers::fmt::percent(row.share),
            ]);
        }
        let _ = writeln!(
            o,
            "tensors ({} of {} with samples):\n{t}",
            r.tensors.len().min(self.top),
            r.tensors.len()
        );
        if !r.layers.is_empty() {
            let mut t = crate::table(["layer", "samples", "expert samples"]);
            for l in &r.layers {
                t.add_row(vec![
                    l.layer.to_string(),
                    l.samples.to_string(),
                    l.expert_samples.to_string(),
                ]);
            }
            let _ = writeln!(o, "layers:\n{t}");
        }
        if !r.experts.is_empty() {
            let mut t =
                crate::table(["block", "experts with samples (index: samples, most first)"]);
            for b in &r.experts {
                t.add_row(vec![format!("blk.{}", b.layer), hottest(&b.samples, 8)]);
            }
            t.add_row(vec!["all".to_string(), hottest(&r.expert_totals, 8)]);
            let _ = writeln!(o, "experts per block:\n{t}");
        }
        o
    }
}

/// `3: 120, 1: 40, … (+5 more)`.
fn hottest(samples: &[u64], n: usize) -> String {
    let mut idx: Vec<usize> = (0..samples.len()).filter(|&i| samples[i] > 0).collect();
    idx.sort_by(|&x, &y| samples[y].cmp(&samples[x]).then(x.cmp(&y)));
    let shown: Vec<String> = idx
        .iter()
        .take(n)
        .map(|&i| format!("{i}: {}", samples[i]))
        .collect();
    let more = idx.len().saturating_sub(n);
    let mut s = if shown.is_empty() {
        "none".to_string()
    } else {
        shown.join(", ")
    };
    if more > 0 {
        let _ = write!(s, " (+{more} more)");
    }
    s
}
