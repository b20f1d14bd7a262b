//! R2b KV admission backlog: the pool near full and requests queued because what is free
//! cannot hold their prompts, with seats left.

use super::kv_family::{kv_family_fix, kv_near_full, KV_NEAR_FULL};
use super::{gate, pct, Evidence, Finding, Rank, Rule, RuleId, Suspect, Threshold};
use crate::inputs::Inputs;
use crate::window::WindowStats;

pub const RULE: Rule = Rule {
    id: RuleId::R2b,
    name: "R2b",
    title: "KV admission backlog",
    rank: Rank::at(1, 1),
    thresholds: &[
        Threshold {
            what: "KV mean or peak at least",
            value: KV_NEAR_FULL,
        },
        Threshold {
            what: "queue ratio at least",
            value: QUEUE_RATIO,
        },
        Threshold {
            what: "suspect: requests waiting for capacity at least",
            value: WAITING_FOR_CAPACITY,
        },
    ],
    reads_gauges: true,
    judge: |inp, w, _| r2b(inp, w),
    unjudged: &[Suspect {
        needs: "--engine-args",
        order: 1,
        hint: suspect,
    }],
    withholds: true,
};

/// Queue ratio at least this: requests queue.
const QUEUE_RATIO: f64 = 0.30;
/// The engine's own count of requests waiting for capacity, at least this many on average.
const WAITING_FOR_CAPACITY: f64 = 1.0;

/// R2b KV admission backlog.
pub fn r2b(inp: &Inputs, w: &WindowStats) -> Finding {
    let id = RuleId::R2b;
    let Some((full, kv_ev)) = kv_near_full(w) else {
        return Finding::silent(id, "KV cache usage not exported");
    };
    let Some(max_seqs) = inp.config.max_num_seqs else {
        return Finding::silent(id, "max_num_seqs unread");
    };
    let Some(cap) = inp.config.kv_capacity_tokens else {
        return Finding::silent(id, "KV pool size unread");
    };
    let Some(mean_prompt) = w.mean_prompt_tokens() else {
        return Finding::silent(id, "mean prompt length unknown");
    };
    let (Some(qr), Some(run), Some(wait), Some(kv)) =
        (w.queue_ratio, w.running, w.waiting, w.kv_usage)
    else {
        return Finding::silent(id, "running or waiting not exported");
    };
    let free = (1.0 - kv.mean).max(0.0) * cap;
    let need = wait.mean * mean_prompt;
    let fired = full && qr >= QUEUE_RATIO && run.mean < max_seqs && free < need;
    let ev = vec![
        kv_ev,
        gate(
            format!("queue ratio {}", pct(qr)),
            qr >= QUEUE_RATIO,
            "at least",
            pct(QUEUE_RATIO),
        ),
        gate(
            format!("running {:.1}", run.mean),
            run.mean < max_seqs,
            "below max_num_seqs",
            format!("{max_seqs:.0}"),
        ),
        gate(
            format!("free KV {free:.0} tokens"),
            free < need,
            "below",
            format!(
                "waiting {:.1} × mean prompt {mean_prompt:.0} = {need:.0}",
                wait.mean
            ),
        ),
    ];
    let mut f = Finding::judged(id, fired, ev);
    f.fix = kv_family_fix(inp, false);
    f
}

/// R2b's suspect when it cannot judge: the engine says requests wait for capacity, or the KV
/// is near full with requests queued.
fn suspect(e: &Evidence<'_>) -> Option<String> {
    if !e.silent(RuleId::R2b) {
        return None;
    }
    let w = e.w;
    let kv_full = w
        .kv_usage
        .is_some_and(|k| k.mean >= KV_NEAR_FULL || k.peak >= KV_NEAR_FULL);
    if let Some(cap) = w
        .waiting_for_capacity
        .filter(|g| g.mean >= WAITING_FOR_CAPACITY)
    {
        Some(format!(
            "the engine reports {:.1} requests waiting for capacity on average",
            cap.mean
        ))
    } else if let (true, Some(qr)) = (kv_full, w.queue_ratio.filter(|q| *q >= QUEUE_RATIO)) {
        Some(format!(
            "KV near full with {} of requests queued",
            numbers::fmt::percent(qr)
        ))
    } else {
        None
    }
}
