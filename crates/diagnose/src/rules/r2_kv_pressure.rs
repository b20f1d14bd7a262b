//! R2 KV cache pressure: the pool near full and requests evicted (or queued) for it.

use super::kv_family::{kv_family_fix, kv_near_full, KV_NEAR_FULL};
use super::{gate, Finding, FixCost, FixStep, Rank, Rule, RuleId, Threshold};
use crate::inputs::Inputs;
use crate::window::WindowStats;
use engines::Engine;

pub const RULE: Rule = Rule {
    id: RuleId::R2,
    name: "R2",
    title: "KV cache pressure",
    rank: Rank::at(1, 0),
    thresholds: &[
        Threshold {
            what: "KV mean or peak at least",
            value: KV_NEAR_FULL,
        },
        Threshold {
            what: "preemptions per second above",
            value: PREEMPTIONS_PER_S,
        },
        Threshold {
            what: "swapped requests at least",
            value: SWAPPED,
        },
        Threshold {
            what: "waiting above",
            value: WAITING,
        },
        Threshold {
            what: "preemptions per finished request at least",
            value: PREEMPTIONS_PER_REQUEST,
        },
    ],
    reads_gauges: true,
    judge: |inp, w, _| r2(inp, w),
    unjudged: &[],
    withholds: true,
};

/// Preemptions (SGLang: retractions) above this rate: the pool evicts running requests.
const PREEMPTIONS_PER_S: f64 = 0.02;
/// Swapped requests at least this many on average: evicted to host memory.
const SWAPPED: f64 = 2.0;
/// Waiting above this with the pool near full: requests queue for KV.
const WAITING: f64 = 2.0;

/// R2's per-request eviction gate: the requests that finished went through at least one
/// preemption per ten of them (the counter's gate, 0.02/s, is a rate and misses requests
/// preempted before the window that finish inside it).
const PREEMPTIONS_PER_REQUEST: f64 = 0.1;

/// R2 KV cache pressure.
pub fn r2(inp: &Inputs, w: &WindowStats) -> Finding {
    let id = RuleId::R2;
    let Some((full, kv_ev)) = kv_near_full(w) else {
        return Finding::silent(id, "KV cache usage not exported");
    };
    let preempt = w.preemptions_per_s.unwrap_or(0.0);
    let swapped = w.swapped.map_or(0.0, |g| g.mean);
    let waiting = w.waiting.map_or(0.0, |g| g.mean);
    // Preemptions the requests finishing in the window went through (vLLM 0.32's per-request
    // histogram): evidence of eviction even where the counter did not move inside the window.
    let per_request = w
        .preemptions_per_request
        .and_then(|p| p.mean.map(|m| (m, p)));
    let per_request_evict = per_request.is_some_and(|(m, _)| m >= PREEMPTIONS_PER_REQUEST);
    let evict = preempt > PREEMPTIONS_PER_S || swapped >= SWAPPED || per_request_evict;
    let fired = full && (evict || waiting > WAITING);
    let is = |b: bool| if b { "is" } else { "is not" };
    // SGLang's word for a preempted request is a retraction, and it never swaps.
    let evicted = match inp.engine {
        Engine::Sglang => format!(
            "retractions {preempt:.3}/s {} above {PREEMPTIONS_PER_S}/s",
            is(preempt > PREEMPTIONS_PER_S)
        ),
        _ => format!(
            "preemptions {preempt:.3}/s {} above {PREEMPTIONS_PER_S}/s, swapped {swapped:.1} {} at least {SWAPPED}",
            is(preempt > PREEMPTIONS_PER_S),
            is(swapped >= SWAPPED)
        ),
    };
    let mut ev = vec![
        kv_ev,
        format!(
            "{evicted}, waiting {waiting:.1} {} above {WAITING}",
            is(waiting > WAITING)
        ),
    ];
    if let Some((mean, p)) = per_request {
        let twice = p
            .at_least_twice
            .map(|t| format!(", {t:.0} preempted twice or more"))
            .unwrap_or_default();
        ev.push(gate(
            format!(
                "preemptions per finished request {mean:.2} ({:.0} over {:.0} finished{twice})",
                p.preemptions, p.finished
            ),
            per_request_evict,
            "at least",
            PREEMPTIONS_PER_REQUEST,
        ));
    }
    let mut f = Finding::judged(id, fired, ev);
    f.fix = kv_family_fix(inp, true);
    // SGLang admits on an estimate of what running requests will still generate; retracting
    // means the estimate ran short, and its own advice is a more conservative schedule.
    if inp.engine == Engine::Sglang && preempt > 0.0 {
        let at = f.fix.len().saturating_sub(1);
        f.fix.insert(
            at,
            FixStep {
                knob: None,
                flag: Some("--schedule-conservativeness".into()),
                value: Some("1.3".into()),
                text: "raise it from its default 1.0 (SGLang's hyperparameter tuning guide suggests 1.3 when requests are retracted): SGLang reserves more of the pool for what running requests have still to generate, so it retracts less and runs fewer at once".into(),
                cost: Some(FixCost::CutsThroughput),
            },
        );
    }
    f
}
