//! R1 Under-batching: seats free, no queue, decode well below what the walls allow; the
//! client sends too little work. Refused when the engine, not the client, holds the requests.

use super::r6_prefill::{PROMPT_GEN_RATIO, TTFT_QUEUE_SHARE};
use super::{
    flag, gate, pct, Derived, Evidence, Finding, FixStep, Knob, Rank, Rule, RuleId, Suspect,
    Threshold,
};
use crate::inputs::Inputs;
use crate::window::{Dist, WindowStats};

pub const RULE: Rule = Rule {
    id: RuleId::R1,
    name: "R1",
    title: "Under-batching",
    rank: Rank::at(2, 0),
    thresholds: &[
        Threshold {
            what: "waiting below",
            value: NO_QUEUE,
        },
        Threshold {
            what: "occupancy of the binding wall below",
            value: OCCUPANCY,
        },
        Threshold {
            what: "config-relative efficiency below",
            value: CONFIG_EFFICIENCY,
        },
        Threshold {
            what: "occupancy below, with the GPU ceiling unknown or cleared",
            value: OCCUPANCY_UNROOFED,
        },
        Threshold {
            what: "engine-held: queue time share of TTFT at least",
            value: HELD_QUEUE_SHARE,
        },
        Threshold {
            what: "engine-held: prefill share of the time in the engine at least",
            value: PREFILL_TIME_SHARE,
        },
        Threshold {
            what: "engine-held: requests in prefill at once at least",
            value: PREFILL_IN_FLIGHT,
        },
    ],
    reads_gauges: true,
    judge: r1,
    unjudged: &[
        Suspect {
            needs: "--engine-args",
            order: 3,
            hint: |e| r1_suspect(e.inp, e.w, e.d),
        },
        Suspect {
            needs: "--gpu",
            order: 5,
            hint: soft_suspect,
        },
    ],
    withholds: true,
};

/// Waiting below this: no queue.
const NO_QUEUE: f64 = 2.0;
/// Occupancy of the binding wall below this: seats left empty.
const OCCUPANCY: f64 = 0.75;
/// The soft under-fed suspect: KV this far from full leaves room the field does not use.
const SOFT_KV: f64 = 0.8;
/// Config-relative efficiency below this: decode well below what the walls allow.
const CONFIG_EFFICIENCY: f64 = 0.60;
/// With the GPU ceiling unknown or cleared (no efficiency), occupancy must be this low alone.
const OCCUPANCY_UNROOFED: f64 = 0.25;

/// R1's variant when its gates held but the engine holds the requests (see [`engine_held`]).
pub const ENGINE_HELD: &str = "engine-held";

/// Queue time at least this share of TTFT: requests wait before the engine longer than they
/// take to be prefilled (the share R6's inferred path reads as a queue the prefill holds).
const HELD_QUEUE_SHARE: f64 = TTFT_QUEUE_SHARE;
/// Prefill (TTFT less queue time) at least this share of a request's time in the engine (e2e
/// less queue time): requests spend more of it being prefilled than decoded.
const PREFILL_TIME_SHARE: f64 = 0.5;
/// Requests in prefill at once, by Little's law (finished/s × mean prefill time), at least
/// this: on average a prefill is in every step. One client with long prompts on an idle engine
/// stays below it (light-load prefill, which is not the setup wall).
const PREFILL_IN_FLIGHT: f64 = 1.0;

/// Whether the engine, not the client, limits what runs: requests held before the engine
/// (queue time a large share of TTFT), or its steps full of prefill (prefill most of a
/// request's time in the engine, with a prefill in flight on average). From the per-request
/// histograms, which time each request from its own timestamps; vLLM's scheduler gauges are
/// set only when a step returns, so through a long prefill step they hold the step before's
/// count. Each measured figure is an evidence line against its threshold; nothing is claimed
/// where a histogram is missing.
pub struct EngineHeld {
    pub held: bool,
    pub evidence: Vec<String>,
}

pub fn engine_held(w: &WindowStats) -> EngineHeld {
    let mut out = EngineHeld {
        held: false,
        evidence: Vec::new(),
    };
    let seen = |d: Option<Dist>| d.filter(|d| d.count > 0.0).map(|d| d.mean);
    let (Some(ttft), Some(queue)) = (seen(w.ttft), seen(w.queue_time)) else {
        return out;
    };
    if ttft > 0.0 {
        let share = queue / ttft;
        let queued = share >= HELD_QUEUE_SHARE;
        out.evidence.push(gate(
            format!(
                "queue time {queue:.3} s of mean TTFT {ttft:.3} s: the share held before the engine, {},",
                pct(share)
            ),
            queued,
            "at least",
            pct(HELD_QUEUE_SHARE),
        ));
        out.held |= queued;
    }
    if let (Some(e2e), Some(fin)) = (seen(w.e2e), w.finished_per_s) {
        let (prefill, engine) = ((ttft - queue).max(0.0), e2e - queue);
        if engine > 0.0 {
            let share = prefill / engine;
            let in_flight = fin * prefill;
            let busy = share >= PREFILL_TIME_SHARE && in_flight >= PREFILL_IN_FLIGHT;
            out.evidence.push(format!(
                "prefill (TTFT less queue) {prefill:.3} s of {engine:.3} s in the engine ({}, {} at least {}) with {in_flight:.2} requests in prefill at once ({fin:.2}/s × {prefill:.3} s, {} at least {PREFILL_IN_FLIGHT:.0}): {}",
                pct(share),
                if share >= PREFILL_TIME_SHARE { "is" } else { "is not" },
                pct(PREFILL_TIME_SHARE),
                if in_flight >= PREFILL_IN_FLIGHT { "is" } else { "is not" },
                if busy { "the engine's steps are full of prefill" } else { "prefill does not fill the engine's steps" },
            ));
            out.held |= busy;
        }
    }
    out
}

/// R1 Under-batching.
pub fn r1(inp: &Inputs, w: &WindowStats, d: &Derived) -> Finding {
    let id = RuleId::R1;
    let Some(waiting) = w.waiting.map(|g| g.mean) else {
        return Finding::silent(id, "waiting requests not exported");
    };
    let Some(occ) = d.occupancy else {
        return Finding::silent(
            id,
            "no seat bound read (max_num_seqs, ridge and KV pool all unknown)",
        );
    };
    // Occupancy is taken against the walls that were read. With the seat limit unread, the
    // seats may be the wall that binds (60 running on 64 seats looks, from the metrics, just
    // like 60 on 256): the gate would hold only under the reading that suits it, so R1 does not
    // judge. `r1_suspect` names it when the read walls say under-fed.
    if inp.config.max_num_seqs.is_none() {
        return Finding::silent(
            id,
            "max_num_seqs unread: the seat limit may be the wall the running requests fill",
        );
    }
    let wall_name = d.occupancy_wall.unwrap_or("?");
    let mut ev = vec![gate(
        format!("waiting {waiting:.1}"),
        waiting < NO_QUEUE,
        "below",
        NO_QUEUE,
    )];
    let fired = if let Some(ce) = d.config_efficiency {
        ev.push(gate(
            format!("occupancy {} of the {wall_name} wall", pct(occ)),
            occ < OCCUPANCY,
            "below",
            pct(OCCUPANCY),
        ));
        ev.push(gate(
            format!("config-relative efficiency {}", pct(ce)),
            ce < CONFIG_EFFICIENCY,
            "below",
            pct(CONFIG_EFFICIENCY),
        ));
        waiting < NO_QUEUE && ce < CONFIG_EFFICIENCY && occ < OCCUPANCY
    } else {
        ev.push(gate(
            format!("occupancy {} of the {wall_name} wall", pct(occ)),
            occ < OCCUPANCY_UNROOFED,
            "below",
            format!(
                "{} (the gate with the GPU ceiling unknown or cleared)",
                pct(OCCUPANCY_UNROOFED)
            ),
        ));
        waiting < NO_QUEUE && occ < OCCUPANCY_UNROOFED
    };
    // Free seats say the engine could run more; they do not say the client sends too few. When
    // requests are held before the engine, or its steps are full of prefill, the engine is the
    // limit and more clients only queue longer: R1 does not fire, and says which.
    let held = engine_held(w);
    ev.extend(held.evidence);
    let refused = fired && held.held;
    if refused {
        ev.push("not fired: the engine, not the client, holds the requests; more concurrency would queue longer, not batch more".into());
    }
    let mut f = Finding::judged(id, fired && !refused, ev);
    // Marked whether or not the gates held: the soft under-fed inject must not revive it.
    if held.held {
        f.variant = Some(ENGINE_HELD.into());
    }
    let wall = d.occupancy_wall.unwrap_or("unknown");
    f.fix = vec![FixStep::text(format!(
        "batch more requests or raise client concurrency in steps; the binding wall is {wall}"
    ))];
    if wall.starts_with("config") {
        if let (Some(fl), Some(m)) = (flag(inp.engine, Knob::MaxNumSeqs), inp.config.max_num_seqs) {
            f.fix[0].text = format!(
                "batch more requests or raise client concurrency in steps; the binding wall is the config ({fl} {m:.0})"
            );
        }
    }
    f
}

/// R1's suspect when the seat limit is unread: no queue, and the running requests fill under
/// a quarter of the walls that were read (the gate R1 uses with the GPU ceiling unknown). The
/// hint for `unjudged`.
pub fn r1_suspect(inp: &Inputs, w: &WindowStats, d: &Derived) -> Option<String> {
    if inp.config.max_num_seqs.is_some() {
        return None;
    }
    let waiting = w.waiting?.mean;
    let occ = d.occupancy?;
    (waiting < NO_QUEUE && occ < OCCUPANCY_UNROOFED && !engine_held(w).held).then(|| {
        format!(
            "waiting {waiting:.1} and running {:.1}, {} of the {} wall: under-fed, unless the unread seat limit is lower",
            w.running.map_or(0.0, |r| r.mean),
            pct(occ),
            d.occupancy_wall.unwrap_or("?")
        )
    })
}

/// R1 in a field that may be soft: R6 could not judge a prompt-heavy window for want of the
/// ridge, and with no queue and a cool KV the field may be soft, where under-batching owns the
/// page (the soft under-fed inject), or pressed, where prefill does. The GPU's ridge tells them
/// apart; both are named (R6 right after).
fn soft_suspect(e: &Evidence<'_>) -> Option<String> {
    let w = e.w;
    let r = e.d.prompt_gen_ratio.filter(|r| *r >= PROMPT_GEN_RATIO)?;
    let r1_fired = !e.quiet.iter().any(|f| f.rule == RuleId::R1);
    let soft_possible = e.inp.physics.is_none()
        && w.waiting.is_some_and(|g| g.mean < NO_QUEUE)
        && w.kv_usage.is_none_or(|k| k.mean < SOFT_KV)
        && !engine_held(w).held;
    (e.silent(RuleId::R6)
        && soft_possible
        && !r1_fired
        && !e.named.iter().any(|u| u.rule == RuleId::R1))
    .then(|| format!(
        "no queue and KV mean under {} with prompts {r:.1}× the generated tokens: if running sits well below the ridge the field is soft and under-fed, else prefill-bound",
        pct(SOFT_KV)
    ))
}
