//! Impossible figures: a client that reports a per-stream decode faster than the hardware can
//! stream the model's weights, or an output throughput above what its concurrency allows.
//!
//! The floor. A decode step reads every active weight once, for all the sequences in the batch
//! together, and gives each sequence one token. So however many streams share the step, one
//! stream's time per output token is at least bytes per token ÷ bandwidth: the inverse of the
//! one-sequence decode ceiling (`headroom ceiling`'s, from the `physics` crate; this module
//! takes it as a figure and re-derives nothing). With B streams the output throughput is at
//! most B × that ceiling. B is the smallest bound the run gives: the concurrency the client
//! measured or was limited to, and never more than the requests it sent. KV reads are left out,
//! which only lowers the floor.
//!
//! Speculative decoding gives a sequence more than one token per step: where the engine counts
//! drafts and accepted draft tokens over the window, the ceiling is multiplied by the tokens per
//! step it measured (1 + accepted ÷ drafts).
//!
//! The margin. A figure is impossible only when it beats the ceiling by [`IMPOSSIBLE_MARGIN`]
//! (2×). An honest run sits above the floor: the ceiling uses the part's peak bandwidth, which
//! engines reach 60-90 % of; the bytes per token count the token-embedding table, which an
//! untied model reads one row of (about 7 % of Qwen2.5-7B's weights); the client's decode time
//! divides by its own token count, which can be a few percent off the engine's (vllm bench serve
//! re-tokenizes llama-server's text: 4.7 % measured). Together these leave an honest run well
//! inside 2×; a figure beyond it is a miscount (a tokenizer counting twice the tokens halves the
//! TPOT, kubernetes-sigs/inference-perf#564), a cache answering instead of the model, or a claim
//! about hardware the run did not use. An engine that drafts speculatively without exporting
//! its draft counters is the one honest way past the floor: the fired sentence names it.

use crate::{increase, judged, silent, CheckKind, ClientFigures, ClientRun, Finding};
use engines::Sample;
use serde::{Deserialize, Serialize};

/// How far a client figure must beat the hardware's ceiling before it is impossible (see the
/// module's comment for why an honest run stays inside it).
pub const IMPOSSIBLE_MARGIN: f64 = 2.0;

/// The one-sequence decode ceiling of the hardware and model a run is judged against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecodeCeiling {
    /// What the ceiling is of, as `headroom ceiling` names it: the GPU (or host RAM), its
    /// bandwidth, the model and its bits per weight.
    pub of: String,
    /// Decode ceiling of one sequence, tok/s: bandwidth ÷ bytes read per token.
    pub per_stream_tps: f64,
}

/// The impossible-figures finding: the client's median TPOT against the floor, its output
/// throughput against B × the ceiling.
pub(crate) fn impossible(
    samples: &[Sample],
    run: Option<&ClientRun>,
    figures: Option<&ClientFigures>,
    ceiling: Option<&DecodeCeiling>,
) -> Finding {
    let kind = CheckKind::ImpossibleFigures;
    let Some(ceiling) = ceiling.filter(|c| c.per_stream_tps.is_finite() && c.per_stream_tps > 0.0)
    else {
        return silent(
            kind,
            "no hardware and model to bound the figures: --gpu NAME (or --gpu none with \
             --ram-bandwidth GBPS) and --model NAME or --gguf FILE set the client's TPOT and \
             output throughput against that decode ceiling"
                .into(),
        );
    };
    let Some(run) = run else {
        return silent(
            kind,
            "no result file (--result) to read the client's TPOT and throughput from".into(),
        );
    };
    // Tokens per step per sequence: 1 without speculative decoding.
    let drafts = increase(samples, |s| s.spec_drafts).filter(|d| *d > 0.0);
    let accepted = increase(samples, |s| s.spec_accepted_tokens);
    let per_step = match (drafts, accepted) {
        (Some(d), Some(a)) => 1.0 + a / d,
        _ => 1.0,
    };
    let stream = ceiling.per_stream_tps * per_step;
    let spec = if per_step > 1.0 {
        format!(" × {per_step:.2} tokens per step (the engine's speculative decoding)")
    } else {
        String::new()
    };
    let mut parts = Vec::new();
    let mut worst: Option<f64> = None;
    let mut impossible = Vec::new();
    if let Some(tpot) = figures.and_then(|f| f.tpot_ms) {
        let floor_ms = 1000.0 / stream;
        let ratio = floor_ms / tpot;
        worst = Some(worst.map_or(ratio, |w: f64| w.max(ratio)));
        if ratio > IMPOSSIBLE_MARGIN {
            impossible.push("the TPOT");
        }
        parts.push(format!(
            "median TPOT {tpot:.2} ms against the floor of {floor_ms:.2} ms per token \
             ({:.1} tok/s{spec}): {ratio:.2}× faster than the floor",
            ceiling.per_stream_tps
        ));
    }
    let sent = run.completed + run.failed.unwrap_or(0) + run.incomplete.unwrap_or(0);
    let streams = [
        figures.and_then(|f| f.max_in_flight),
        run.max_concurrency,
        Some(sent),
    ]
    .into_iter()
    .flatten()
    .filter(|b| *b > 0)
    .min();
    if let (Some(out), Some(b)) = (run.output_tokens, streams) {
        if run.duration_s > 0.0 {
            let tps = out as f64 / run.duration_s;
            let cap = b as f64 * stream;
            let ratio = tps / cap;
            worst = Some(worst.map_or(ratio, |w: f64| w.max(ratio)));
            if ratio > IMPOSSIBLE_MARGIN {
                impossible.push("the output throughput");
            }
            parts.push(format!(
                "output throughput {tps:.1} tok/s against {b} stream(s) × {stream:.1} = \
                 {cap:.1} tok/s: {ratio:.2}× the ceiling"
            ));
        }
    }
    let Some(worst) = worst else {
        return silent(
            kind,
            "the result file states neither a TPOT nor output tokens over a duration".into(),
        );
    };
    let fired = !impossible.is_empty();
    let evidence = format!(
        "on {}: {}; {} IMPOSSIBLE_MARGIN {IMPOSSIBLE_MARGIN}×{}",
        ceiling.of,
        parts.join("; "),
        if fired { "beyond" } else { "within" },
        if fired {
            format!(
                ": {} cannot be, the hardware cannot stream the weights that fast (the client \
                 counts more tokens than were generated, a cache answered, the run was on other \
                 hardware, or the engine drafts speculatively without counting it)",
                impossible.join(" and ")
            )
        } else {
            String::new()
        }
    );
    judged(
        kind,
        fired,
        evidence,
        worst,
        (IMPOSSIBLE_MARGIN, "IMPOSSIBLE_MARGIN"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Outcome;
    use engines::Engine;

    /// A run of 4 requests, 4 × 128 output tokens over `duration_s`.
    fn run(duration_s: f64) -> ClientRun {
        ClientRun {
            tool: "vllm bench serve 0.32".into(),
            file: "r.json".into(),
            duration_s,
            completed: 4,
            failed: Some(0),
            incomplete: None,
            input_tokens: 512,
            output_tokens: Some(512),
            tokenizer: None,
            request_rate: None,
            max_concurrency: None,
            errors: vec![],
        }
    }

    fn figures(tpot_ms: f64, in_flight: u64) -> ClientFigures {
        ClientFigures {
            ttft_ms: Some(20.0),
            tpot_ms: Some(tpot_ms),
            itl_ms: None,
            max_in_flight: Some(in_flight),
        }
    }

    /// Llama-3.1-8B at 16 bits on an H100-SXM: 3350 GB/s ÷ 16.06 GB per token = 208.6 tok/s,
    /// a floor of 4.79 ms per token.
    fn h100() -> DecodeCeiling {
        DecodeCeiling {
            of: "H100-SXM (3350 GB/s) × llama-3.1-8b at 16 bits".into(),
            per_stream_tps: 208.6,
        }
    }

    #[test]
    fn an_honest_run_is_clear() {
        // 7 ms per token (the floor ÷ 0.68, what such a server reaches), 4 streams: 4 × 128 in
        // about 1 s is 512 tok/s against 4 × 208.6.
        let f = impossible(&[], Some(&run(1.0)), Some(&figures(7.0, 4)), Some(&h100()));
        assert_eq!(f.outcome, Outcome::Clear, "{}", f.evidence);
        assert!(f
            .evidence
            .contains("median TPOT 7.00 ms against the floor of 4.79 ms"));
        assert!(
            f.evidence.contains("within IMPOSSIBLE_MARGIN 2×"),
            "{}",
            f.evidence
        );
        // Right at the floor is still possible.
        let f = impossible(&[], Some(&run(1.0)), Some(&figures(4.8, 4)), Some(&h100()));
        assert_eq!(f.outcome, Outcome::Clear, "{}", f.evidence);
    }

    #[test]
    fn a_planted_tpot_under_half_the_floor_fires_and_is_named() {
        // 1.5 ms per token: 3.2× faster than the weights can be read.
        let f = impossible(&[], Some(&run(1.0)), Some(&figures(1.5, 4)), Some(&h100()));
        assert_eq!(f.outcome, Outcome::Fired, "{}", f.evidence);
        assert!((f.measured.unwrap_or(0.0) - 3.19).abs() < 0.01, "{f:?}");
        assert!(f.evidence.contains("the TPOT cannot be"), "{}", f.evidence);
        assert!(
            !f.evidence.contains("output throughput cannot"),
            "{}",
            f.evidence
        );
    }

    #[test]
    fn a_throughput_beyond_the_streams_fires() {
        // 512 tokens in 0.5 s from one stream: 1024 tok/s against 208.6.
        let f = impossible(&[], Some(&run(0.5)), Some(&figures(7.0, 1)), Some(&h100()));
        assert_eq!(f.outcome, Outcome::Fired, "{}", f.evidence);
        assert!(
            f.evidence.contains("the output throughput cannot be"),
            "{}",
            f.evidence
        );
        // Without the client's concurrency, the 4 requests it sent bound the streams.
        let f = impossible(&[], Some(&run(0.5)), None, Some(&h100()));
        assert_eq!(f.outcome, Outcome::Clear, "{}", f.evidence);
        assert!(f.evidence.contains("4 stream(s)"), "{}", f.evidence);
    }

    #[test]
    fn speculative_decoding_raises_the_ceiling_by_its_measured_tokens_per_step() {
        let samples: Vec<Sample> = [(0.0, 0.0), (100.0, 200.0)]
            .iter()
            .enumerate()
            .map(|(i, &(d, a))| {
                let mut s = Sample::empty(i as f64, Engine::Vllm);
                s.spec_drafts = Some(d);
                s.spec_accepted_tokens = Some(a);
                s
            })
            .collect();
        // 3 tokens per step: 1.5 ms per token is 1.07× the raised ceiling, within the margin.
        let f = impossible(
            &samples,
            Some(&run(1.0)),
            Some(&figures(1.5, 4)),
            Some(&h100()),
        );
        assert_eq!(f.outcome, Outcome::Clear, "{}", f.evidence);
        assert!(
            f.evidence.contains("× 3.00 tokens per step"),
            "{}",
            f.evidence
        );
    }

    #[test]
    fn without_hardware_it_says_what_would_make_it_judge() {
        let f = impossible(&[], Some(&run(1.0)), Some(&figures(1.0, 4)), None);
        assert_eq!(f.outcome, Outcome::Silent);
        assert!(f.evidence.contains("--gpu NAME"), "{}", f.evidence);
        assert!(f.evidence.contains("--gguf FILE"), "{}", f.evidence);
        let f = impossible(&[], None, None, Some(&h100()));
        assert_eq!(f.outcome, Outcome::Silent);
    }
}
