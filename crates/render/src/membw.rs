//! `headroom membw`'s human form: read and triad bandwidth per thread count, and the plateau.

use std::fmt::Write as _;

use hostmem::Measurement;

use crate::Render;

/// A bandwidth measurement in its two forms.
pub struct MembwView(pub Measurement);

impl Render for MembwView {
    type Doc = Measurement;

    fn doc(&self) -> &Measurement {
        &self.0
    }

    fn human(&self) -> String {
        let m = &self.0;
        let mut o = String::new();
        let _ = writeln!(o, "headroom membw · host RAM bandwidth");
        let llc = match (m.llc_bytes, m.llc_multiple) {
            (Some(c), Some(x)) => format!(" = {x:.0}× the {} MiB last-level cache", c >> 20),
            _ => String::new(),
        };
        let _ = writeln!(
            o,
            "buffer {}{llc} · {} CPUs · best of {} passes (median)",
            size(m.buffer_bytes),
            m.cpus,
            m.passes
        );
        let mut t = crate::table(["threads", "read GB/s", "triad GB/s"]);
        for r in &m.runs {
            t.add_row(vec![
                r.threads.to_string(),
                format!("{:.2} ({:.2})", r.read.best_gbps, r.read.median_gbps),
                format!("{:.2} ({:.2})", r.triad.best_gbps, r.triad.median_gbps),
            ]);
        }
        let _ = writeln!(o, "{t}");
        let _ = writeln!(
            o,
            "read plateau: {:.2} GB/s at {} thread(s); triad {:.2} GB/s at {}",
            m.read_plateau.gbps,
            m.read_plateau.threads,
            m.triad_plateau.gbps,
            m.triad_plateau.threads
        );
        let _ = writeln!(
            o,
            "use it: headroom ceiling ram --bandwidth-gbps {:.1} … (or --measure)",
            m.read_plateau.gbps
        );
        for n in &m.notes {
            let _ = writeln!(o, "note: {n}");
        }
        o
    }
}

fn size(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{} MiB", bytes >> 20)
    }
}
