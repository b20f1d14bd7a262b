//! Two runs against one server (the same tool twice, or two tools): first whether they measured
//! the same load, and only then how their figures differ, the client's and the server's over
//! each run's window. The input is two `headroom.check/1` documents (what `headroom check
//! --json` printed for each run); the output is one `headroom.check.compare/1` document,
//! [`Comparison`] (docs/json/check.md).
//!
//! The load is the same when the request rate and the concurrency limit match, and the mean
//! prompt length, mean output length and request count are each within [`LOAD_TOLERANCE`]. The
//! lengths are the engine's (its counters over each window ÷ the requests it finished) where
//! both windows have them: both runs are measured by the same server's tokenizer, whatever each
//! client counts with. When the loads differ the figures are not compared.

use crate::{Check, ClientRun, EngineCounts, Verdict};
use serde::{Deserialize, Serialize};

pub const SCHEMA: &str = "headroom.check.compare/1";

/// How far two runs' prompt length, output length, request count and request rate may differ,
/// as a share of the larger, and still be the same load. 10 %: two tools given the same
/// `--random-input-len` draw lengths around it (vllm bench serve's random range, GuideLLM's
/// synthetic data), and the mean of a few hundred draws moves by a few percent.
pub const LOAD_TOLERANCE: f64 = 0.10;
/// A difference in a figure above which the sentence names it. One run each side is not a
/// significance test: this is the size at which tool disagreements are reported (GuideLLM
/// #470: 6 % lower throughput than vllm bench serve on the same load), not a noise bound.
pub const NOTABLE_DIFFERENCE: f64 = 0.05;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Comparison {
    /// Always [`SCHEMA`].
    pub schema: String,
    pub a: Side,
    pub b: Side,
    /// Every load row is within its tolerance.
    pub same_load: bool,
    pub load: Vec<LoadRow>,
    /// The figures set side by side; empty when the loads differ.
    pub figures: Vec<FigureRow>,
    /// One sentence: the loads differ (and in what), or which figures differ and by how much.
    pub summary: String,
}

/// One run as its check document states it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Side {
    /// The check document's file.
    pub file: String,
    /// The tool (null without a result file).
    pub tool: Option<String>,
    pub verdict: Verdict,
}

/// One property of the load, both runs' values and whether they match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadRow {
    pub what: String,
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// |a − b| ÷ the larger; null when either is unknown.
    pub off: Option<f64>,
    /// The tolerance it is held to (0 for the concurrency limit, which must be equal).
    pub tolerance: f64,
    /// Within the tolerance; both unknown counts as the same (both tools sent all at once).
    pub same: bool,
}

/// Who measured a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum By {
    Client,
    Server,
}

/// One figure of both runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureRow {
    pub what: String,
    pub by: By,
    pub unit: String,
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// (b − a) ÷ a; null when either is unknown or a is 0.
    pub change: Option<f64>,
    /// |change| above [`NOTABLE_DIFFERENCE`].
    pub notable: bool,
}

fn off(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    let (a, b) = (a?, b?);
    let larger = a.abs().max(b.abs());
    Some(if larger > 0.0 {
        (a - b).abs() / larger
    } else {
        0.0
    })
}

fn load_row(what: &str, a: Option<f64>, b: Option<f64>, tolerance: f64) -> LoadRow {
    let o = off(a, b);
    let same = match (a, b) {
        (None, None) => true,
        _ => o.is_some_and(|o| o <= tolerance + 1e-12),
    };
    LoadRow {
        what: what.into(),
        a,
        b,
        off: o,
        tolerance,
        same,
    }
}

/// One load figure of both runs: the engine's count where both windows have it (two tools'
/// tokenizers then do not enter), else the client's; and which it is.
fn by_engine_else_client(
    a: &Check,
    b: &Check,
    engine: fn(&EngineCounts) -> Option<f64>,
    client: fn(&ClientRun) -> Option<f64>,
) -> (Option<f64>, Option<f64>, &'static str) {
    let (ea, eb) = (engine(&a.engine_counts), engine(&b.engine_counts));
    if ea.is_some() && eb.is_some() {
        return (ea, eb, "engine");
    }
    let c = |x: &Check| x.result.as_ref().and_then(client);
    (c(a), c(b), "client")
}

/// `total` per request of `n`, each side.
fn per_request(
    total: (Option<f64>, Option<f64>),
    n: (Option<f64>, Option<f64>),
) -> (Option<f64>, Option<f64>) {
    let mean = |t: Option<f64>, n: Option<f64>| t.zip(n.filter(|n| *n > 0.0)).map(|(t, n)| t / n);
    (mean(total.0, n.0), mean(total.1, n.1))
}

fn per_s(x: Option<f64>, s: f64) -> Option<f64> {
    x.filter(|_| s > 0.0).map(|x| x / s)
}

fn figures(c: &Check) -> Vec<(&'static str, By, &'static str, Option<f64>)> {
    let r = c.result.as_ref();
    let d = r.map(|r| r.duration_s).unwrap_or(0.0);
    let f = c.figures.as_ref();
    // Per second of the span the server was busy: the whole window would also count each
    // tool's start-up and exit, which differ far more between tools than their loads do.
    let w = c.window.busy_s.unwrap_or(0.0);
    vec![
        (
            "output throughput",
            By::Client,
            "tok/s",
            per_s(r.and_then(|r| r.output_tokens).map(|o| o as f64), d),
        ),
        (
            "request throughput",
            By::Client,
            "req/s",
            per_s(r.map(|r| r.completed as f64), d),
        ),
        ("median TTFT", By::Client, "ms", f.and_then(|f| f.ttft_ms)),
        ("median TPOT", By::Client, "ms", f.and_then(|f| f.tpot_ms)),
        (
            "generated tokens per busy second",
            By::Server,
            "tok/s",
            per_s(c.engine_counts.generation_tokens, w),
        ),
        (
            "prompt tokens per busy second",
            By::Server,
            "tok/s",
            per_s(c.engine_counts.prompt_tokens, w),
        ),
        (
            "requests finished per busy second",
            By::Server,
            "req/s",
            per_s(c.engine_counts.requests_finished, w),
        ),
    ]
}

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

/// Compares two judged runs: `a` and `b` with the files they were read from.
pub fn compare(a: &Check, a_file: &str, b: &Check, b_file: &str) -> Comparison {
    // Requests: the engine's finished requests, else the client's completed (the means'
    // denominator) and all it sent (the row).
    let (na, nb, n_by) =
        by_engine_else_client(a, b, |e| e.requests_finished, |r| Some(r.completed as f64));
    let (pa, pb, p_by) =
        by_engine_else_client(a, b, |e| e.prompt_tokens, |r| Some(r.input_tokens as f64));
    let (oa, ob, o_by) = by_engine_else_client(
        a,
        b,
        |e| e.generation_tokens,
        |r| r.output_tokens.map(|o| o as f64),
    );
    let (pa, pb) = per_request((pa, pb), (na, nb));
    let (oa, ob) = per_request((oa, ob), (na, nb));
    let sent = |c: &Check| {
        c.result
            .as_ref()
            .map(|r| (r.completed + r.failed.unwrap_or(0)) as f64)
    };
    let (ra, rb) = if n_by == "engine" {
        (na, nb)
    } else {
        (sent(a), sent(b))
    };
    let rate = |c: &Check| c.result.as_ref().and_then(|r| r.request_rate);
    let conc = |c: &Check| {
        c.result
            .as_ref()
            .and_then(|r| r.max_concurrency)
            .map(|m| m as f64)
    };
    let load = vec![
        load_row(
            "request rate (req/s; null: all at once)",
            rate(a),
            rate(b),
            LOAD_TOLERANCE,
        ),
        load_row("concurrency limit", conc(a), conc(b), 0.0),
        load_row(
            &format!("mean prompt tokens ({p_by})"),
            pa,
            pb,
            LOAD_TOLERANCE,
        ),
        load_row(
            &format!("mean output tokens ({o_by})"),
            oa,
            ob,
            LOAD_TOLERANCE,
        ),
        load_row(&format!("requests ({n_by})"), ra, rb, LOAD_TOLERANCE),
    ];
    let same_load = load.iter().all(|r| r.same);
    let side = |c: &Check, file: &str| Side {
        file: file.into(),
        tool: c.result.as_ref().map(|r| r.tool.clone()),
        verdict: c.verdict,
    };
    let show = |x: Option<f64>| x.map_or("unknown".to_string(), |v| format!("{v:.4}"));
    let (rows, summary) = if !same_load {
        let differ: Vec<String> = load
            .iter()
            .filter(|r| !r.same)
            .map(|r| {
                format!(
                    "{} {} against {}{}",
                    r.what,
                    show(r.a),
                    show(r.b),
                    r.off
                        .map(|o| format!(" ({} apart, tolerance {})", pct(o), pct(r.tolerance)))
                        .unwrap_or_default()
                )
            })
            .collect();
        (
            Vec::new(),
            format!(
                "the runs measured different loads ({}): their figures are not compared",
                differ.join("; ")
            ),
        )
    } else {
        let rows: Vec<FigureRow> = figures(a)
            .into_iter()
            .zip(figures(b))
            .map(|((what, by, unit, x), (_, _, _, y))| {
                let change = x
                    .zip(y)
                    .filter(|(x, _)| *x != 0.0)
                    .map(|(x, y)| (y - x) / x);
                FigureRow {
                    what: what.into(),
                    by,
                    unit: unit.into(),
                    a: x,
                    b: y,
                    change,
                    notable: change.is_some_and(|c| c.abs() > NOTABLE_DIFFERENCE),
                }
            })
            .collect();
        let notable: Vec<String> = rows
            .iter()
            .filter(|r| r.notable)
            .map(|r| {
                format!(
                    "{} ({}) {:+.1} % ({} → {} {})",
                    r.what,
                    match r.by {
                        By::Client => "client",
                        By::Server => "server",
                    },
                    r.change.unwrap_or(0.0) * 100.0,
                    show(r.a),
                    show(r.b),
                    r.unit
                )
            })
            .collect();
        let summary = if notable.is_empty() {
            format!(
                "the same load, and no figure differs by more than NOTABLE_DIFFERENCE {}",
                pct(NOTABLE_DIFFERENCE)
            )
        } else {
            format!(
                "the same load; B against A, beyond NOTABLE_DIFFERENCE {}: {}",
                pct(NOTABLE_DIFFERENCE),
                notable.join("; ")
            )
        };
        (rows, summary)
    };
    Comparison {
        schema: SCHEMA.into(),
        a: side(a, a_file),
        b: side(b, b_file),
        same_load,
        load,
        figures: rows,
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClientFigures, Window};

    /// A judged run: `rate` req/s, 100 requests of `prompt` prompt and 128 output tokens over
    /// `secs`, median TTFT and TPOT as given.
    fn doc(tool: &str, rate: Option<f64>, prompt: u64, secs: f64, ttft: f64) -> Check {
        Check {
            schema: crate::SCHEMA.into(),
            engine: engines::Engine::LlamaCpp,
            url: None,
            window: Window {
                start: Some(0.0),
                end: Some(secs + 1.0),
                duration_s: secs + 1.0,
                scrapes: 10,
                busy_s: Some(secs),
            },
            command: None,
            result: Some(ClientRun {
                tool: tool.into(),
                file: "r.json".into(),
                duration_s: secs,
                completed: 100,
                failed: Some(0),
                incomplete: None,
                input_tokens: 100 * prompt,
                output_tokens: Some(12_800),
                tokenizer: None,
                request_rate: rate,
                max_concurrency: Some(4),
                errors: vec![],
            }),
            figures: Some(ClientFigures {
                ttft_ms: Some(ttft),
                tpot_ms: Some(20.0),
                itl_ms: None,
                max_in_flight: Some(4),
            }),
            ceiling: None,
            engine_counts: EngineCounts {
                prompt_tokens: Some((100 * prompt + 100) as f64),
                generation_tokens: Some(12_800.0),
                requests_finished: Some(100.0),
                ..EngineCounts::default()
            },
            verdict: Verdict::PartlyJudged,
            findings: vec![],
            diagnosis: crate::Diagnosis {
                primary: None,
                boundary: None,
                incomplete: false,
            },
        }
    }

    #[test]
    fn the_same_load_compares_and_names_what_differs() {
        let a = doc("vllm bench serve 0.32", Some(2.0), 256, 50.0, 40.0);
        // GuideLLM's synthetic prompts 4 % longer, its run 10 % longer, TTFT alike.
        let b = doc("GuideLLM 0.8", Some(2.0), 266, 55.0, 41.0);
        let c = compare(&a, "a.json", &b, "b.json");
        assert!(c.same_load, "{c:#?}");
        assert_eq!(c.load[2].what, "mean prompt tokens (engine)");
        let row = |w: &str| c.figures.iter().find(|r| r.what == w).expect(w).clone();
        let out = row("output throughput");
        assert!(
            (out.change.unwrap_or(0.0) + 0.0909).abs() < 0.001,
            "{out:?}"
        );
        assert!(out.notable);
        assert!(!row("median TTFT").notable, "2.5 % is not above 5 %");
        assert!(
            c.summary.contains("output throughput (client) -9.1 %"),
            "{}",
            c.summary
        );
        assert!(!c.summary.contains("TTFT"), "{}", c.summary);
    }

    #[test]
    fn each_load_figure_is_the_engines_where_both_windows_have_it() {
        // llama.cpp-like: no finished-request counter; prompt tokens still the engine's, per
        // the client's completed requests. The client's prompt count (another tokenizer) is 4×
        // off on b and does not enter.
        let mut a = doc("vllm bench serve 0.32", Some(2.0), 256, 50.0, 40.0);
        let mut b = doc("vllm bench serve 0.32", Some(2.0), 256, 50.0, 40.0);
        b.result.as_mut().expect("result").input_tokens *= 4;
        for c in [&mut a, &mut b] {
            c.engine_counts.requests_finished = None;
        }
        let c = compare(&a, "a.json", &b, "b.json");
        let whats: Vec<&str> = c.load.iter().map(|r| r.what.as_str()).collect();
        assert_eq!(
            whats[2..],
            [
                "mean prompt tokens (engine)",
                "mean output tokens (engine)",
                "requests (client)"
            ]
        );
        assert_eq!(c.load[2].a, Some(257.0));
        assert!(c.same_load, "{c:#?}");
    }

    #[test]
    fn different_loads_are_named_and_not_compared() {
        let a = doc("vllm bench serve 0.32", Some(2.0), 256, 50.0, 40.0);
        let b = doc("vllm bench serve 0.32", Some(4.0), 512, 25.0, 90.0);
        let c = compare(&a, "a.json", &b, "b.json");
        assert!(!c.same_load);
        assert!(c.figures.is_empty());
        assert!(
            c.summary
                .starts_with("the runs measured different loads (request rate"),
            "{}",
            c.summary
        );
        assert!(
            c.summary.contains("mean prompt tokens (engine)"),
            "{}",
            c.summary
        );
        assert!(c.summary.contains("not compared"), "{}", c.summary);
        // The document reads back.
        let back: Comparison =
            serde_json::from_str(&serde_json::to_string(&c).expect("json")).expect("reads");
        assert_eq!(back, c);
    }
}
