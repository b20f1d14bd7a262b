//! `headroom census`: the ledger, the buckets, the lags and the verdict, as text.

use crate::table::{plain_table, table};
use census::analysis::Quantile;
use census::CensusDoc;
use numbers::fmt::{percent_opt, seconds};

fn num(v: Option<f64>, digits: usize) -> String {
    v.map(|x| format!("{x:.digits$}"))
        .unwrap_or_else(|| "-".into())
}

fn ms(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.1} ms"))
        .unwrap_or_else(|| "-".into())
}

fn quant(q: Option<Quantile>) -> String {
    match q {
        None => "-".into(),
        Some(q) => {
            let sign = q.bound.map(|b| b.sign()).unwrap_or("");
            format!("{sign}{}", seconds(q.seconds))
        }
    }
}

pub fn render(d: &CensusDoc) -> String {
    let mut out = String::new();
    let src = &d.source;
    match &d.window {
        Some(w) => out.push_str(&format!(
            "Census: {}{} at {}  ({} steps of {:.0} s, {} to {}, {} queries)\n",
            src.instance.as_deref().unwrap_or("?"),
            src.selector
                .as_deref()
                .map(|s| format!(" under {s}"))
                .unwrap_or_default(),
            src.url,
            w.points,
            w.step_s,
            w.start as i64,
            w.end as i64,
            src.queries.unwrap_or(0)
        )),
        None => out.push_str(&format!(
            "Census: {} (one scrape: counters since boot)\n",
            src.url
        )),
    }
    out.push_str(&format!(
        "Engine: {}; prefixes: engine {}, cadence {}\n\n",
        d.engine.map(|e| e.name()).unwrap_or("-"),
        d.prefixes.latency.as_deref().unwrap_or("-"),
        d.prefixes.cadence.as_deref().unwrap_or("-")
    ));
    if let Some(l) = &d.ledger {
        out.push_str("Step ledger\n");
        let mut t = plain_table();
        t.add_row(vec![
            "decode-only step".to_string(),
            ms(l.decode_step_ms),
            format!(
                "{} of steps",
                percent_opt(l.chunk_share_of_steps.map(|c| 1.0 - c))
            ),
            format!(
                "{} of step time",
                percent_opt(l.chunk_share_of_time.map(|c| 1.0 - c))
            ),
        ]);
        t.add_row(vec![
            "chunk step".to_string(),
            ms(l.chunk_step_ms),
            format!("{} of steps", percent_opt(l.chunk_share_of_steps)),
            format!("{} of step time", percent_opt(l.chunk_share_of_time)),
        ]);
        t.add_row(vec![
            "mean step (diluted)".to_string(),
            ms(l.mean_step_ms),
            format!("{:.0} steps", l.steps),
            format!("{:.1} s", l.step_seconds),
        ]);
        out.push_str(&t.to_string());
        out.push_str("\n\n");
    }
    if !d.buckets.is_empty() {
        out.push_str("Decode and TTFT by prefill rate\n");
        if d.lags.as_ref().and_then(|l| l.decode_series)
            == Some(::census::analysis::DecodeSeries::DecodeCallsPerS)
        {
            let calls = engines::Engine::LlamaCpp
                .def()
                .exposed("decode_calls")
                .unwrap_or_default();
            out.push_str(&format!("per stream: llama_decode calls/s ({calls}) in steps with a request in process throughout; each call gives every generating stream one token. decode tok/s: - (llama.cpp credits a request's tokens when it ends)\n"));
        }
        let mut t = table([
            "prefill tok/s",
            "steps",
            "decode tok/s",
            "per stream",
            "running",
            "preempt",
            "TTFT p50",
            "TTFT p95",
            "decode step",
            "chunk step",
        ]);
        for b in &d.buckets {
            let range = if b.prefill_hi == 0.0 {
                "0 (idle)".to_string()
            } else {
                format!("{:.0}–{:.0}", b.prefill_lo, b.prefill_hi)
            };
            t.add_row(vec![
                range,
                b.steps.to_string(),
                num(b.decode_tps, 1),
                num(b.decode_tps_per_stream, 2),
                num(b.running, 1),
                num(b.preemptions, 0),
                quant(b.ttft_p50),
                quant(b.ttft_p95),
                ms(b.ledger.as_ref().and_then(|l| l.decode_step_ms)),
                ms(b.ledger.as_ref().and_then(|l| l.chunk_step_ms)),
            ]);
        }
        out.push_str(&t.to_string());
        out.push_str("\n\n");
    }
    if let Some(v) = &d.verdict {
        out.push_str(&format!("Shape: {}: {}\n", v.shape.name(), v.reason));
        for e in &v.evidence {
            out.push_str(&format!("  {e}\n"));
        }
        out.push('\n');
    }
    let tt = &d.totals;
    let mut totals = Vec::new();
    if let Some(g) = tt.generation_tokens {
        totals.push(format!("{g:.0} generated tokens"));
    }
    if let Some(p) = tt.prompt_tokens {
        totals.push(format!("{p:.0} prompt tokens"));
    }
    if let Some(p) = tt.preemptions {
        totals.push(format!("{p:.0} preemptions"));
    }
    if let (Some(s), Some(k)) = (tt.iteration_steps, tt.tokens_per_step) {
        totals.push(format!("{s:.0} engine steps of {k:.1} tokens on average"));
    }
    if let (Some(s), Some(k)) = (tt.decode_calls, tt.tokens_per_decode_call) {
        totals.push(format!(
            "{s:.0} llama_decode calls of {k:.1} tokens on average"
        ));
    }
    if !totals.is_empty() {
        out.push_str(&format!("Totals: {}\n", totals.join(", ")));
    }
    if d.segments.len() > 1 {
        out.push_str("\nPieces of the window:\n");
        for s in &d.segments {
            out.push_str(&format!(
                "  {}–{} ({} steps){}{}\n",
                s.start as i64,
                s.end as i64,
                s.points,
                if s.censused { " censused" } else { "" },
                s.ended_by
                    .as_deref()
                    .map(|w| format!(", ended by {w}"))
                    .unwrap_or_default()
            ));
        }
    }
    for n in &d.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    for u in &d.unavailable {
        out.push_str(&format!("cannot compute: {u}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A llama.cpp scrape's census names its engine and its decode calls, and says what it
    /// cannot compute.
    #[test]
    fn llama_cpp_scrape() {
        let text = "llamacpp:prompt_tokens_total 136\nllamacpp:tokens_predicted_total 240\n\
llamacpp:n_decode_total 217\nllamacpp:requests_processing 0\n";
        let d = census::url::from_exposition("http://h/metrics", text, 0.0).unwrap();
        let r = render(&d);
        assert!(
            r.contains("Engine: llama.cpp; prefixes: engine llamacpp:, cadence -"),
            "{r}"
        );
        assert!(
            r.contains("217 llama_decode calls of 1.7 tokens on average"),
            "{r}"
        );
        assert!(
            r.contains("cannot compute: TTFT: llama.cpp exports no TTFT histogram"),
            "{r}"
        );
        assert!(!r.contains("vllm"), "{r}");
    }
}
