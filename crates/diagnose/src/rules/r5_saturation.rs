//! R5 Concurrency saturation: every seat taken with a queue behind it (or requests refused at
//! the server's queue limit while the seats were full).

use super::seats::{llamacpp_ctx_step, seat_arithmetic};
use super::{
    flag, gate, pct, Derived, Evidence, Finding, FixStep, Knob, Rank, Rule, RuleId, Suspect,
    Threshold,
};
use crate::inputs::Inputs;
use crate::window::WindowStats;

pub const RULE: Rule = Rule {
    id: RuleId::R5,
    name: "R5",
    title: "Concurrency saturation",
    rank: Rank::at(1, 2),
    thresholds: &[
        Threshold {
            what: "waiting at least",
            value: WAITING,
        },
        Threshold {
            what: "queue ratio at least",
            value: QUEUE_RATIO,
        },
        Threshold {
            what: "seats full: running peak within this share of max_num_seqs (at least one seat)",
            value: SEATS_FULL_BAND,
        },
        Threshold {
            what: "KV mean below which raising the seats is prescribed",
            value: KV_ROOM,
        },
    ],
    reads_gauges: true,
    judge: r5,
    unjudged: &[Suspect {
        needs: "--engine-args",
        order: 2,
        hint: suspect,
    }],
    withholds: true,
};

/// Waiting at least this on average: a queue.
pub(super) const WAITING: f64 = 2.0;
/// Queue ratio at least this: requests queue.
const QUEUE_RATIO: f64 = 0.30;
/// Running peak within this share of max_num_seqs (at least one seat): every seat was taken.
pub(super) const SEATS_FULL_BAND: f64 = 0.05;
/// KV mean under this: the pool has room for more seats.
const KV_ROOM: f64 = 0.8;

/// R5 Concurrency saturation.
pub fn r5(inp: &Inputs, w: &WindowStats, d: &Derived) -> Finding {
    let id = RuleId::R5;
    let Some(max_seqs) = inp.config.max_num_seqs else {
        return Finding::silent(id, "max_num_seqs unread");
    };
    let Some(wall) = w.seat_wall_cooccurred else {
        return Finding::silent(id, "waiting requests not exported");
    };
    let (Some(wait), Some(qr)) = (w.waiting, w.queue_ratio) else {
        return Finding::silent(id, "waiting requests not exported");
    };
    let queued = wall && wait.mean >= WAITING && qr >= QUEUE_RATIO;
    // Requests the server refused at its own queue limit (vLLM's --max-num-queued-reqs or
    // --max-num-queued-tokens) while every seat was taken: the queue that would show
    // saturation was cut short, so the refusals are the evidence.
    let band = (SEATS_FULL_BAND * max_seqs).max(1.0);
    let seats_full = w.running.is_some_and(|r| r.peak >= max_seqs - band);
    let rejected = w.admission_rejections.filter(|n| *n > 0.0);
    let refused = rejected.is_some() && seats_full;
    let fired = queued || refused;
    let mut ev = vec![
        format!(
            "a scrape had running at max_num_seqs {max_seqs:.0} with waiting ≥ 2: {}",
            if wall { "yes" } else { "no" }
        ),
        gate(
            format!("waiting {:.1}", wait.mean),
            wait.mean >= WAITING,
            "at least",
            WAITING,
        ),
        gate(
            format!("queue ratio {}", pct(qr)),
            qr >= QUEUE_RATIO,
            "at least",
            pct(QUEUE_RATIO),
        ),
    ];
    if let Some(n) = w.admission_rejections {
        let rate = if w.duration_s > 0.0 {
            n / w.duration_s
        } else {
            0.0
        };
        ev.push(gate(
            format!("admission rejections {n:.0} ({rate:.3}/s, refused with HTTP 503 at the server's queue limit)"),
            n > 0.0,
            "above",
            0,
        ));
        if let (Some(_), Some(r)) = (rejected, w.running) {
            ev.push(gate(
                format!("running peak {:.0}", r.peak),
                seats_full,
                "within",
                format!("{band:.0} of max_num_seqs {max_seqs:.0}"),
            ));
        }
    }
    let mut f = Finding::judged(id, fired, ev);
    let kv = w.kv_usage.map(|k| k.mean);
    let fl = flag(inp.engine, Knob::MaxNumSeqs);
    match (d.seat_target, kv) {
        (Some(t), kv) if kv.is_none_or(|k| k < KV_ROOM) && t > max_seqs => {
            // The final value, once: the seat target R7 would ask for next. Capping it at this
            // window's demand would clear R5 and leave R7 asking for the target after a second
            // restart; the demand is said, so the reader knows the seats past it wait for
            // traffic.
            let demand = w.running.map(|r| r.peak).unwrap_or(0.0) + wait.peak;
            let v = t.floor().max(max_seqs + 1.0);
            if let Some(fl) = fl {
                f.fix.push(FixStep::flagged(
                    Knob::MaxNumSeqs,
                    fl,
                    Some(format!("{v:.0}")),
                    format!(
                        "{}; the traffic peaked at {demand:.0} requests (running + waiting), so seats past that fill as it grows",
                        seat_arithmetic(inp, d).unwrap_or_else(|| format!("the seat target {t:.0}"))
                    ),
                ));
                f.fix.extend(llamacpp_ctx_step(inp, v));
            }
        }
        (Some(_), _) | (None, _) => {
            let step = if kv.is_some_and(|k| k >= KV_ROOM) {
                FixStep::text(format!("seats are at the wall of the KV pool (usage ≥ {}): add a replica or reduce per-request context", pct(KV_ROOM)))
            } else if let Some(bound) = d.seat_target_bound {
                FixStep::text(format!("seats are at the wall of the {bound}: raising them buys nothing; add a replica"))
            } else {
                // No ridge: a seat target would be a guess, so none is named. The
                // step still names the flag, so a re-measure can say whether it moved.
                // Fired on refusals alone, there is no queue: the server turned it away.
                let behind = if queued {
                    "with a queue behind it".to_string()
                } else {
                    format!(
                        "and the server refused {:.0} requests at its queue limit",
                        rejected.unwrap_or(0.0)
                    )
                };
                let text = format!(
                    "every seat ({max_seqs:.0}) is busy {behind}; with the hardware ceiling unknown no seat target is named (pass --gpu): raise {} only if memory allows, else add a replica",
                    fl.unwrap_or("the seat limit")
                );
                match fl {
                    Some(fl) => FixStep::flagged(Knob::MaxNumSeqs, fl, None, text),
                    None => FixStep::text(text),
                }
            };
            f.fix.push(step);
        }
    }
    f
}

/// R5's suspect when it cannot judge (the seat limit unread): a queue with a high queue ratio.
fn suspect(e: &Evidence<'_>) -> Option<String> {
    if !e.silent(RuleId::R5) {
        return None;
    }
    let (wait, qr) = (e.w.waiting?, e.w.queue_ratio?);
    (wait.mean >= WAITING && qr >= QUEUE_RATIO).then(|| {
        format!(
            "waiting {:.1} with {} of requests queued: the seats may be full",
            wait.mean,
            numbers::fmt::percent(qr)
        )
    })
}
