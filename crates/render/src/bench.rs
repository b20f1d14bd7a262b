//! `headroom bench`'s human form and its one-line summary.

use comfy_table::{Cell, CellAlignment};
use engines::Engine;
use loadgen::bench_doc::BenchDoc;
use loadgen::bench_suite::Clock;

/// One line for `headroom history --bench`: the headline medians and the build.
pub fn summary(doc: &BenchDoc) -> String {
    let mut parts = Vec::new();
    for m in &doc.metrics {
        let Some(med) = m.median else {
            continue;
        };
        let name = m.name.as_str();
        let short = if name == "decode_tps" {
            "decode".to_string()
        } else if name == "ttft_ms" {
            "TTFT".to_string()
        } else if let Some(l) = name.strip_prefix("prefill_tps_p") {
            format!("prefill@{l}")
        } else if let Some(n) = name.strip_prefix("aggregate_decode_tps_n") {
            format!("{n}-stream")
        } else {
            name.to_string()
        };
        parts.push(format!(
            "{short} {} {}",
            physics::provenance::sig(med, 3),
            m.unit
        ));
    }
    if let Some(w) = doc.identity.who() {
        parts.push(w);
    }
    parts.join(" · ")
}

/// The human form of one bench run: what was measured, then the metrics table.
pub fn render(doc: &BenchDoc, verbose: bool) -> String {
    let mut out = String::new();
    let s = &doc.suite;
    let id = &doc.identity;
    out.push_str(&format!(
        "headroom bench · {} · {} suite v{} ({} repeats after {} warm-up, {} generated tokens, {} streams)\n",
        doc.url, s.preset, s.version, s.repeats, s.warmup_repeats, s.gen_tokens, s.streams
    ));
    let who = id.who().unwrap_or_else(|| "version unknown".into());
    out.push_str(&format!(
        "Engine    {} {who}\n",
        id.engine.map(Engine::name).unwrap_or("unknown engine")
    ));
    out.push_str(&format!(
        "Model     {}",
        id.served_model.as_deref().unwrap_or("-")
    ));
    if let Some(f) = &id.model_file {
        let what = match f.format {
            engines::identity::ModelFormat::Gguf => "GGUF header".to_string(),
            engines::identity::ModelFormat::HfSafetensors => format!(
                "config.json + {} safetensors header(s)",
                f.hashed.len().saturating_sub(1)
            ),
        };
        out.push_str(&format!(
            " · {what} fnv1a64 {}, {} bytes",
            f.header_fnv1a64, f.size_bytes
        ));
    }
    out.push('\n');
    out.push_str(&format!(
        "GPU       {}\n",
        id.gpu
            .as_ref()
            .map(|g| format!("{} ({})", g.value, g.source))
            .unwrap_or_else(|| "unknown (pass --gpu)".into())
    ));
    if let Some(p) = &id.process {
        out.push_str(&format!("Process   pid {} · {}\n", p.pid, p.argv.join(" ")));
    }
    if let Some(h) = &id.host {
        out.push_str(&format!(
            "Host      load average (1 min) {:.1} → {:.1} on {} CPUs during the bench\n",
            h.loadavg_1m_start,
            h.loadavg_1m_end,
            h.cpus.map_or("?".into(), |c| c.to_string())
        ));
    }
    let (main, defaults): (Vec<_>, Vec<_>) = id
        .settings
        .iter()
        .partition(|(k, _)| !k.starts_with("default.") && !k.starts_with("chat_template"));
    let show: Vec<String> = main
        .iter()
        .map(|(k, v)| format!("{k} {}", v.value))
        .collect();
    if !show.is_empty() {
        out.push_str(&format!("Settings  {}\n", show.join(" · ")));
    }
    if verbose {
        for (k, v) in &defaults {
            out.push_str(&format!("          {k} = {} ({})\n", v.value, v.source));
        }
    } else if !defaults.is_empty() {
        out.push_str(&format!(
            "          + {} engine defaults recorded (-v lists them)\n",
            defaults.len()
        ));
    }
    let mut t = crate::table([
        "metric",
        "median",
        "min – max",
        "spread",
        "n",
        "clock",
        "warm-up",
    ]);
    let f = |v: Option<f64>| {
        v.map(|x| physics::provenance::sig(x, 3))
            .unwrap_or_else(|| "-".into())
    };
    for m in &doc.metrics {
        let unit = &m.unit;
        let flagged = m.outliers.as_ref().map_or(0, Vec::len);
        t.add_row(vec![
            Cell::new(&m.label),
            Cell::new(format!("{} {unit}", f(m.median))).set_alignment(CellAlignment::Right),
            Cell::new(format!("{} – {}", f(m.min), f(m.max))).set_alignment(CellAlignment::Right),
            Cell::new(numbers::fmt::percent_opt(m.spread_pct.map(|p| p / 100.0)))
                .set_alignment(CellAlignment::Right),
            Cell::new(if flagged > 0 {
                format!("{} ({flagged} outlier)", m.n)
            } else {
                m.n.to_string()
            })
            .set_alignment(CellAlignment::Right),
            Cell::new(match m.clock {
                Some(Clock::Engine) => "engine",
                Some(Clock::Client) | None => "client",
            }),
            Cell::new(
                m.warmup
                    .as_ref()
                    .filter(|w| !w.is_empty())
                    .map(|w| {
                        w.iter().map(|x| f(Some(*x))).collect::<Vec<_>>().join(", ") + " (left out)"
                    })
                    .unwrap_or_else(|| "-".into()),
            ),
        ]);
    }
    out.push_str(&format!("{t}\n"));
    out.push_str(
        "clock: engine = the engine's own per-request timings (llama.cpp timings.prompt_ms, \
predicted_ms; vLLM's histogram sums around each request); client = chunk arrivals on this side \
of the wire\n",
    );
    let c = &doc.engine_counters;
    if let Some(x) = c.speculative_acceptance {
        out.push_str(&format!(
            "Engine's own counters over the bench: speculative acceptance {}\n",
            numbers::fmt::percent(x)
        ));
    }
    for n in doc.notes.iter().chain(&id.notes) {
        out.push_str(&format!("note: {n}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_line() {
        let mut doc: BenchDoc = BenchDoc::read(
            &serde_json::from_str(include_str!("../../loadgen/tests/data/bench-v1.json")).unwrap(),
        )
        .unwrap();
        doc.identity.build = Some("b6500-abc".into());
        doc.metrics[0].median = Some(36.04);
        doc.metrics[2].median = Some(1234.0);
        doc.metrics[3].median = None;
        assert_eq!(
            summary(&doc),
            "decode 36 tok/s · TTFT 274 ms · prefill@96 1230 tok/s · build b6500-abc"
        );
    }
}
