//! R7 Config headroom: the seat limit sits well below what the GPU batches well (the seat
//! target), the seats are half used and nobody waits: the next load would queue for nothing.

use super::seats::{llamacpp_ctx_step, seat_arithmetic};
use super::{
    flag, gate, pct, Derived, Evidence, Finding, FixStep, Knob, Rank, Rule, RuleId, Suspect,
    Threshold,
};
use crate::inputs::Inputs;
use crate::window::WindowStats;
use engines::Engine;

pub const RULE: Rule = Rule {
    id: RuleId::R7,
    name: "R7",
    title: "Config headroom",
    rank: Rank::at(2, 3),
    thresholds: &[
        Threshold {
            what: "max_num_seqs below this share of the seat target",
            value: BELOW_TARGET,
        },
        Threshold {
            what: "seat use (running ÷ max_num_seqs) at least",
            value: SEAT_USE,
        },
        Threshold {
            what: "waiting at most",
            value: NO_QUEUE,
        },
        Threshold {
            what: "suspect: max_num_seqs below this share of the KV bound",
            value: SUSPECT_KV_SHARE,
        },
    ],
    reads_gauges: true,
    judge: r7,
    unjudged: &[Suspect {
        needs: "--gpu",
        order: 4,
        hint: |e: &Evidence<'_>| r7_suspect(e.inp, e.w, e.d),
    }],
    withholds: true,
};

/// max_num_seqs below this share of the seat target: headroom worth a restart.
const BELOW_TARGET: f64 = 0.9;
/// Seat use at least this: the seats are used, so more would be.
const SEAT_USE: f64 = 0.5;
/// Waiting at most this on average: no queue (a queue is R5's).
const NO_QUEUE: f64 = 1.0;
/// [`BELOW_TARGET`] × the seat target's 0.8: with the ridge unknown, max_num_seqs below this
/// share of the KV bound is necessary for R7 to fire.
const SUSPECT_KV_SHARE: f64 = 0.72;

/// R7's suspect when the seat target is unknown (no ridge without the GPU): the seats are at
/// least half full with no queue, and the KV pool holds enough requests of the observed size
/// that the target could clear 90% of it (R7 needs max_num_seqs < 0.9 × 0.8 × min(ridge, KV
/// bound), so below 0.72 × the KV bound is necessary). The hint for `unjudged`.
pub fn r7_suspect(inp: &Inputs, w: &WindowStats, d: &Derived) -> Option<String> {
    if d.seat_target.is_some() {
        return None;
    }
    let max_seqs = inp.config.max_num_seqs?;
    let (run, wait) = (w.running?.mean, w.waiting?.mean);
    let (kv, how) = inp.kv_bound()?;
    let occ = run / max_seqs;
    (occ >= SEAT_USE && wait <= NO_QUEUE && max_seqs < SUSPECT_KV_SHARE * kv).then(|| {
        format!(
            "running {run:.1} on max_num_seqs {max_seqs:.0} ({}) with waiting {wait:.1}, and the KV pool holds {kv:.0} such requests ({how}): the seat limit may sit below what the GPU batches well",
            pct(occ)
        )
    })
}

/// R7 Config headroom.
pub fn r7(inp: &Inputs, w: &WindowStats, d: &Derived) -> Finding {
    let id = RuleId::R7;
    let Some(max_seqs) = inp.config.max_num_seqs else {
        return Finding::silent(id, "max_num_seqs unread");
    };
    let Some(target) = d.seat_target else {
        return Finding::silent(id, "seat target unknown (ridge and KV bound unknown)");
    };
    let (Some(run), Some(wait)) = (w.running, w.waiting) else {
        return Finding::silent(id, "running or waiting not exported");
    };
    // Seat use, running ÷ max_num_seqs: not R1's occupancy, which divides by the lowest wall.
    let seat_use = run.mean / max_seqs;
    // llama-server splits -c across its slots (each gets c/np tokens): a slot nobody waits
    // for costs context, so there R7 needs someone to have waited at least once.
    let slots_split = inp.engine == Engine::LlamaCpp;
    let demand = !slots_split || wait.peak >= 1.0;
    let fired =
        max_seqs < BELOW_TARGET * target && seat_use >= SEAT_USE && wait.mean <= NO_QUEUE && demand;
    let mut ev = vec![
        gate(
            format!("max_num_seqs {max_seqs:.0}"),
            max_seqs < BELOW_TARGET * target,
            "below",
            format!(
                "{} of the seat target {target:.0} ({:.0})",
                pct(BELOW_TARGET),
                BELOW_TARGET * target
            ),
        ),
        gate(
            format!("seat use (running ÷ max_num_seqs) {}", pct(seat_use)),
            seat_use >= SEAT_USE,
            "at least",
            pct(SEAT_USE),
        ),
        gate(
            format!("waiting {:.1}", wait.mean),
            wait.mean <= NO_QUEUE,
            "at most",
            NO_QUEUE,
        ),
    ];
    if slots_split {
        ev.push(gate(
            format!("waiting peak {:.0}", wait.peak),
            demand,
            "at least",
            "1 (llama-server divides -c by -np: a slot nobody waits for only shrinks the others' context)",
        ));
    }
    let mut f = Finding::judged(id, fired, ev);
    if let Some(fl) = flag(inp.engine, Knob::MaxNumSeqs) {
        let v = target.floor();
        f.fix.push(FixStep::flagged(
            Knob::MaxNumSeqs,
            fl,
            Some(format!("{v:.0}")),
            format!(
                "raise it to the seat target: {}",
                seat_arithmetic(inp, d).unwrap_or_else(|| format!(
                    "{target:.0}, bound by {}",
                    d.seat_target_bound.unwrap_or("?")
                ))
            ),
        ));
        f.fix.extend(llamacpp_ctx_step(inp, v));
    }
    f
}
