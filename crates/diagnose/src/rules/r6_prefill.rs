//! R6 Prefill-bound: prompt tokens dominate the work and decode runs far below the roof, or,
//! with the GPU ceiling unknown, requests queue behind prefill where neither the seats nor the
//! KV pool hold them.

use super::kv_family::KV_NEAR_FULL;
use super::{
    flag, gate, pct, Derived, Evidence, Finding, FixStep, Knob, Rank, RankCase, Rule, RuleId,
    Suspect, Threshold,
};
use crate::inputs::Inputs;
use crate::window::WindowStats;

pub const RULE: Rule = Rule {
    id: RuleId::R6,
    name: "R6",
    title: "Prefill-bound",
    // Light-load prefill is not the setup wall: in a soft field it drops to the tuning layer,
    // below under-batching. Pressed, it is the setup wall after the seats.
    rank: Rank {
        layer: 2,
        place: 1,
        raised: Some((RankCase::Pressed, 1, 3)),
    },
    thresholds: &[
        Threshold {
            what: "effective prompt/gen ratio at least",
            value: PROMPT_GEN_RATIO,
        },
        Threshold {
            what: "decode efficiency below",
            value: DECODE_EFFICIENCY,
        },
        Threshold {
            what: "TPOT at least this many times the decode floor",
            value: TPOT_FLOORS,
        },
        Threshold {
            what: "inferred: waiting at least",
            value: WAITING,
        },
        Threshold {
            what: "inferred: TTFT against waiting correlation at least",
            value: TTFT_QUEUE_CORR,
        },
        Threshold {
            what: "inferred: queue time share of TTFT at least",
            value: TTFT_QUEUE_SHARE,
        },
        Threshold {
            what: "severe: effective prompt/gen ratio at least",
            value: SEVERE_RATIO,
        },
    ],
    reads_gauges: true,
    judge: r6,
    unjudged: &[Suspect {
        needs: "--gpu",
        order: 6,
        hint: suspect,
    }],
    withholds: true,
};

/// Effective prompt tokens (prefix hits removed) at least this many times the generated ones:
/// prefill is most of the engine's work.
pub(super) const PROMPT_GEN_RATIO: f64 = 5.0;
/// Decode efficiency below this: decode runs far below the roof.
const DECODE_EFFICIENCY: f64 = 0.40;
/// TPOT under this many times the one-request decode floor mutes the rule: decode steps are
/// not slowed by the prefill they share.
const TPOT_FLOORS: f64 = 4.0;
/// Waiting at least this on average (the inferred path): a queue the prefill may hold.
const WAITING: f64 = 2.0;
/// Effective prompt/gen ratio at least this: the "severe" variant, past chunking's reach.
const SEVERE_RATIO: f64 = 20.0;

/// R6 Prefill-bound.
pub fn r6(inp: &Inputs, w: &WindowStats, d: &Derived) -> Finding {
    let id = RuleId::R6;
    let Some(ratio) = d.prompt_gen_ratio else {
        return Finding::silent(id, "prompt or generation throughput unknown");
    };
    let Some(p) = &inp.physics else {
        return r6_inferred(inp, w, ratio);
    };
    let Some(eff) = d.efficiency else {
        return Finding::silent(
            id,
            "decode efficiency unknown (speculation suspected: measured decode beats the roof)",
        );
    };
    let mut ev = vec![
        gate(
            format!("effective prompt/gen ratio {ratio:.1}"),
            ratio >= PROMPT_GEN_RATIO,
            "at least",
            PROMPT_GEN_RATIO,
        ),
        gate(
            format!("decode efficiency {}", pct(eff)),
            eff < DECODE_EFFICIENCY,
            "below",
            pct(DECODE_EFFICIENCY),
        ),
    ];
    let floor = 1.0 / p.decode_ceiling_tps;
    let muted = match w.itl.filter(|d| d.count > 0.0) {
        Some(itl) => {
            ev.push(gate(
                format!("TPOT {:.1} ms", itl.mean * 1e3),
                itl.mean >= TPOT_FLOORS * floor,
                "at least",
                format!(
                    "{TPOT_FLOORS} × the floor of {:.1} ms = {:.1} ms",
                    floor * 1e3,
                    TPOT_FLOORS * floor * 1e3
                ),
            ));
            itl.mean < TPOT_FLOORS * floor
        }
        None => false,
    };
    let fired = ratio >= PROMPT_GEN_RATIO && eff < DECODE_EFFICIENCY && !muted;
    let mut f = Finding::judged(id, fired, ev);
    r6_fix(inp, ratio, &mut f);
    f
}

/// Sub-windows' (waiting, TTFT) pairs rise together: the Pearson correlation over the
/// sub-windows that saw first tokens, when there are at least three and the queue moved.
fn ttft_follows_queue(subs: &[WindowStats]) -> Option<(f64, usize)> {
    let pts: Vec<(f64, f64)> = subs
        .iter()
        .filter_map(|s| Some((s.waiting?.mean, s.ttft.filter(|d| d.count > 0.0)?.mean)))
        .collect();
    let n = pts.len();
    if n < 3 {
        return None;
    }
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / n as f64,
        pts.iter().map(|p| p.1).sum::<f64>() / n as f64,
    );
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let syy: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
    (sxx > 0.0 && syy > 0.0).then(|| (sxy / (sxx * syy).sqrt(), n))
}

/// "TTFT grows with the queue" at or above this correlation over the sub-windows.
const TTFT_QUEUE_CORR: f64 = 0.8;
/// ... or the queue holds at least this share of the mean TTFT.
pub(super) const TTFT_QUEUE_SHARE: f64 = 0.5;

/// R6 with the GPU ceiling unknown: decode efficiency cannot be measured, so prefill-bound is
/// inferred from what the engine says, and fires only where that is strong. Prompt tokens
/// dominate the work (ratio ≥ 5), requests queue (waiting ≥ 2) although the seats never
/// filled and the KV pool stayed below the near-full bar (so neither R5 nor the KV family holds
/// them), and their first token waits on that queue (TTFT rises with it across sub-windows, or
/// is mostly queue time): what admits requests is the step's token budget, spent on prefill.
/// Anything short of that stays silent, and `unjudged` names the GPU that settles it.
fn r6_inferred(inp: &Inputs, w: &WindowStats, ratio: f64) -> Finding {
    let id = RuleId::R6;
    let ratio_ev = gate(
        format!("effective prompt/gen ratio {ratio:.1}"),
        ratio >= PROMPT_GEN_RATIO,
        "at least",
        PROMPT_GEN_RATIO,
    );
    if ratio < PROMPT_GEN_RATIO {
        // The ratio gate fails whatever the efficiency: judged, not fired.
        return Finding::judged(id, false, vec![ratio_ev]);
    }
    let unjudged = |why: String| {
        Finding::silent(
            id,
            format!("hardware ceiling unknown (decode efficiency unmeasured), and prefill-bound is not inferred: {why}"),
        )
    };
    let Some(wait) = w.waiting.map(|g| g.mean) else {
        return unjudged("waiting requests not exported".into());
    };
    if wait < WAITING {
        return unjudged(format!(
            "waiting {wait:.1} is below {WAITING}: no queue the prefill holds"
        ));
    }
    let Some(max_seqs) = inp.config.max_num_seqs else {
        return unjudged("max_num_seqs unread: the queue may be the seats'".into());
    };
    if w.seat_wall_cooccurred != Some(false) {
        return unjudged(format!(
            "running reached max_num_seqs {max_seqs:.0} with a queue: the seats may hold it"
        ));
    }
    let Some(kv) = w.kv_usage else {
        return unjudged("KV cache usage not exported: the queue may be the KV pool's".into());
    };
    if kv.peak >= KV_NEAR_FULL {
        return unjudged(format!(
            "KV peak {} is at or above {}: the queue may be the KV pool's",
            pct(kv.peak),
            pct(KV_NEAR_FULL)
        ));
    }
    if let Some(c) = w.waiting_for_capacity.filter(|c| c.mean >= 1.0) {
        return unjudged(format!(
            "the engine reports {:.1} requests waiting for capacity",
            c.mean
        ));
    }
    let corr = ttft_follows_queue(&inp.sub_windows);
    let share = match (w.queue_time, w.ttft) {
        (Some(q), Some(t)) if q.count > 0.0 && t.count > 0.0 && t.mean > 0.0 => {
            Some((q.mean / t.mean, q.mean, t.mean))
        }
        _ => None,
    };
    let grows = corr.is_some_and(|(r, _)| r >= TTFT_QUEUE_CORR);
    let queued = share.is_some_and(|(s, _, _)| s >= TTFT_QUEUE_SHARE);
    let ttft_ev = match (corr, share) {
        (Some((r, n)), _) if grows => gate(
            format!("TTFT against waiting over {n} sub-windows: correlation {r:.2}"),
            true,
            "at least",
            TTFT_QUEUE_CORR,
        ),
        (_, Some((s, q, t))) => gate(
            format!("queue time {q:.3} s of mean TTFT {t:.3} s ({})", pct(s)),
            queued,
            "at least",
            pct(TTFT_QUEUE_SHARE),
        ),
        (Some((r, n)), None) => gate(
            format!("TTFT against waiting over {n} sub-windows: correlation {r:.2}"),
            false,
            "at least",
            TTFT_QUEUE_CORR,
        ),
        (None, None) => {
            return unjudged("TTFT and queue time not measured".into());
        }
    };
    if !(grows || queued) {
        return unjudged(ttft_ev);
    }
    let run = w.running.map_or(0.0, |r| r.mean);
    let mut f = Finding::judged(
        id,
        true,
        vec![
            "inferred from the engine's own figures (the GPU ceiling is unknown, so decode efficiency is not measured): prompt against generation tokens, and TTFT against the queue".into(),
            ratio_ev,
            gate(format!("waiting {wait:.1}"), true, "at least", WAITING),
            format!(
                "running {run:.1} on average, and no scrape had it within {} of max_num_seqs {max_seqs:.0} while {} or more waited: the seats do not hold the queue",
                pct(super::r5_saturation::SEATS_FULL_BAND),
                super::r5_saturation::WAITING
            ),
            gate(
                format!("KV peak {}", pct(kv.peak)),
                true,
                "below",
                pct(KV_NEAR_FULL),
            ),
            ttft_ev,
        ],
    );
    r6_fix(inp, ratio, &mut f);
    f
}

/// R6's prescription (the measured and the inferred path share it).
fn r6_fix(inp: &Inputs, ratio: f64, f: &mut Finding) {
    let e = inp.engine;
    if inp.config.prefix_caching == Some(false) {
        if let Some(fl) = flag(e, Knob::PrefixCaching) {
            f.fix.push(FixStep::flagged(
                Knob::PrefixCaching,
                fl,
                None,
                "prefix caching first: cached prompt tokens are not prefilled again",
            ));
        }
    }
    if let Some(fl) = flag(e, Knob::MaxNumBatchedTokens) {
        match inp.config.max_num_batched_tokens {
            Some(m) if m < 2048.0 => f.fix.push(FixStep::flagged(Knob::MaxNumBatchedTokens,
                fl,
                Some("2048".into()),
                format!("chunked prefill budget {m:.0} is small: raise it so prompts finish in fewer steps"),
            )),
            Some(m) => f.fix.push(FixStep::text(format!(
                "chunked prefill budget {fl} is already {m:.0} (≥ 2048): not lowered"
            ))),
            None => f.fix.push(FixStep::text(format!(
                "check {fl} (unread): a chunked-prefill budget of at least 2048 lets prompts share steps with decode"
            ))),
        }
    }
    if ratio >= SEVERE_RATIO {
        f.variant = Some("severe".into());
        f.fix.push(FixStep::text(
            "disaggregate prefill and decode, or add a replica",
        ));
    }
}

/// R6's suspect when it cannot judge: a prompt-heavy window with the GPU (its roof and ridge)
/// unknown. R1 may be named just before it (see R1's soft suspect).
fn suspect(e: &Evidence<'_>) -> Option<String> {
    if !e.silent(RuleId::R6) {
        return None;
    }
    let r = e.d.prompt_gen_ratio.filter(|r| *r >= PROMPT_GEN_RATIO)?;
    Some(format!(
        "effective prompt/gen ratio {r:.1} (≥ {PROMPT_GEN_RATIO}): prefill may fill the steps"
    ))
}
