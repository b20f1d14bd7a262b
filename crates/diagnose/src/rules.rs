//! The eight rules, each threshold as stated beside its rule. Each rule reads typed
//! window fields and config values; a rule whose input is unread stays silent and says why.
//! Rules fire on evidence of harm, never on heat.

use crate::inputs::{Inputs, PoolCap};
use crate::window::{Dist, WindowStats};
use engines::Engine;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RuleId {
    R1,
    R2,
    R2b,
    R3,
    R4,
    R5,
    R6,
    R7,
}

impl RuleId {
    pub const ALL: [RuleId; 8] = [
        RuleId::R1,
        RuleId::R2,
        RuleId::R2b,
        RuleId::R3,
        RuleId::R4,
        RuleId::R5,
        RuleId::R6,
        RuleId::R7,
    ];

    pub fn title(self) -> &'static str {
        match self {
            RuleId::R1 => "Under-batching",
            RuleId::R2 => "KV cache pressure",
            RuleId::R2b => "KV admission backlog",
            RuleId::R3 => "Low prefix reuse",
            RuleId::R4 => "OOM risk",
            RuleId::R5 => "Concurrency saturation",
            RuleId::R6 => "Prefill-bound",
            RuleId::R7 => "Config headroom",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RuleId::R1 => "R1",
            RuleId::R2 => "R2",
            RuleId::R2b => "R2b",
            RuleId::R3 => "R3",
            RuleId::R4 => "R4",
            RuleId::R5 => "R5",
            RuleId::R6 => "R6",
            RuleId::R7 => "R7",
        }
    }
}

/// What a step of a split prescription costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FixCost {
    #[serde(rename = "safe")]
    Safe,
    #[serde(rename = "cuts throughput")]
    CutsThroughput,
    /// Changes what the model computes (a lower-precision KV cache): not "safe", even where
    /// it costs no throughput.
    #[serde(rename = "trades accuracy")]
    TradesAccuracy,
    #[serde(rename = "dead-end")]
    DeadEnd,
}

impl FixCost {
    pub fn as_str(self) -> &'static str {
        match self {
            FixCost::Safe => "safe",
            FixCost::CutsThroughput => "cuts throughput",
            FixCost::TradesAccuracy => "trades accuracy",
            FixCost::DeadEnd => "dead-end",
        }
    }
}

/// One step of a prescription: a knob to turn (printed as the engine's own flag), or a sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixStep {
    /// The concept the step turns, when the step is a flag.
    #[serde(default)]
    pub knob: Option<Knob>,
    /// The flag as the engine spells it ([`flag`] of the knob), when the step is a flag.
    pub flag: Option<String>,
    /// The value to set, when the spec gives one.
    pub value: Option<String>,
    /// What to do, for a person.
    pub text: String,
    /// Where the rule splits its fix by cost.
    pub cost: Option<FixCost>,
}

impl FixStep {
    pub fn text(t: impl Into<String>) -> Self {
        FixStep {
            knob: None,
            flag: None,
            value: None,
            text: t.into(),
            cost: None,
        }
    }
    /// A step that turns `knob`, or None where the engine has no flag for it.
    pub fn knob(
        engine: Engine,
        knob: Knob,
        value: Option<String>,
        t: impl Into<String>,
    ) -> Option<Self> {
        Some(FixStep {
            knob: Some(knob),
            flag: Some(flag(engine, knob)?.to_string()),
            value,
            text: t.into(),
            cost: None,
        })
    }
    fn flagged(knob: Knob, fl: &str, value: Option<String>, t: impl Into<String>) -> Self {
        FixStep {
            knob: Some(knob),
            flag: Some(fl.to_string()),
            value,
            text: t.into(),
            cost: None,
        }
    }
    fn cost(mut self, c: FixCost) -> Self {
        self.cost = Some(c);
        self
    }
    /// The knob this step turns; for documents written before steps carried it, read back
    /// from the flag through the one flag table.
    pub fn knob_of(&self, engine: Engine) -> Option<Knob> {
        self.knob
            .or_else(|| self.flag.as_deref().and_then(|f| Knob::of_flag(engine, f)))
    }
}

/// A rule's outcome over one window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub rule: RuleId,
    pub fired: bool,
    /// Why the rule could not judge (an input unread); None when it judged.
    pub silent_reason: Option<String>,
    /// The numbers that made it fire, or that kept it quiet.
    pub evidence: Vec<String>,
    pub fix: Vec<FixStep>,
    /// A named sub-case: "weights-overflow", "buffer-squeeze", "soft-underfed", "severe" ...
    pub variant: Option<String>,
    /// Share of sub-windows in which the rule fired, 0–1.
    pub seen_in: Option<f64>,
}

impl Finding {
    pub(crate) fn silent(rule: RuleId, why: impl Into<String>) -> Self {
        Finding {
            rule,
            fired: false,
            silent_reason: Some(why.into()),
            evidence: Vec::new(),
            fix: Vec::new(),
            variant: None,
            seen_in: None,
        }
    }
    fn judged(rule: RuleId, fired: bool, evidence: Vec<String>) -> Self {
        Finding {
            rule,
            fired,
            silent_reason: None,
            evidence,
            fix: Vec::new(),
            variant: None,
            seen_in: None,
        }
    }
}

/// The knobs and the one table from knobs to each engine's flag live with the engine config.
pub use engines::{flag, Knob};

/// An evidence line that is true whichever way the gate went: the measured value, the
/// threshold, and whether the value is on the firing side ("waiting 6.0 is not below 2").
fn gate(
    what: impl std::fmt::Display,
    holds: bool,
    relation: &str,
    threshold: impl std::fmt::Display,
) -> String {
    let is = if holds { "is" } else { "is not" };
    format!("{what} {is} {relation} {threshold}")
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// Shared derived figures the rules and the scoreboard read.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Derived {
    /// Measured decode beats the one-token-per-read roof: efficiencies are cleared.
    pub speculation_suspected: bool,
    /// Generation tok/s over decode ceiling × ridge (None: unknown or cleared).
    pub efficiency: Option<f64>,
    /// Generation tok/s over decode ceiling × min(max_num_seqs, ridge).
    pub config_efficiency: Option<f64>,
    /// Running over min(max_num_seqs, ridge, KV bound), and the name of the binding wall.
    pub occupancy: Option<f64>,
    pub occupancy_wall: Option<&'static str>,
    /// Soft field: no queue, cool KV, running well below the ridge.
    pub soft_field: bool,
    /// R5's seat target: 0.8 × min(ridge, KV bound), and what binds it.
    pub seat_target: Option<f64>,
    pub seat_target_bound: Option<&'static str>,
    /// Effective prompt/gen ratio: prefix hits removed from prompt tok/s.
    pub prompt_gen_ratio: Option<f64>,
}

/// "Running well below ridge": under half of it (or of max_num_seqs when the ridge is unknown).
const WELL_BELOW: f64 = 0.5;

pub fn derive(inp: &Inputs, w: &WindowStats) -> Derived {
    let mut d = Derived::default();
    let running = w.running.map(|g| g.mean);
    let ridge = inp.physics.as_ref().map(|p| p.ridge_batch);
    if let (Some(p), Some(g)) = (&inp.physics, w.generation_tps) {
        let roof = p.decode_ceiling_tps * running.unwrap_or(1.0).max(1.0).min(p.ridge_batch);
        d.speculation_suspected = g > roof;
        if !d.speculation_suspected {
            d.efficiency = Some(g / (p.decode_ceiling_tps * p.ridge_batch));
            let seats = inp
                .config
                .max_num_seqs
                .map_or(p.ridge_batch, |m| m.min(p.ridge_batch));
            d.config_efficiency = Some(g / (p.decode_ceiling_tps * seats));
        }
    }
    let kv_bound = inp.kv_bound().map(|k| k.0);
    let walls = [
        (inp.config.max_num_seqs, "config (max_num_seqs)"),
        (ridge, "compute ridge"),
        (kv_bound, "memory (KV pool)"),
    ];
    if let Some((cap, name)) = walls
        .iter()
        .filter_map(|(v, n)| v.filter(|v| *v > 0.0).map(|v| (v, *n)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
    {
        if let Some(r) = running {
            d.occupancy = Some(r / cap);
            d.occupancy_wall = Some(name);
        }
    }
    let waiting = w.waiting.map(|g| g.mean);
    let kv_cool = w.kv_usage.is_none_or(|k| k.mean < 0.8);
    let below = match (running, ridge.or(inp.config.max_num_seqs)) {
        (Some(r), Some(top)) => r < WELL_BELOW * top,
        _ => false,
    };
    d.soft_field = matches!(waiting, Some(x) if x < 2.0) && kv_cool && below;
    // The seat target needs the ridge: with the compute knee unknown, a memory bound alone
    // could seat far past it. The KV bound lowers it when read.
    let target = ridge.map(|r| match kv_bound {
        Some(k) if k < r => (k, "memory (KV pool)"),
        _ => (r, "compute ridge"),
    });
    d.seat_target = target.map(|t| 0.8 * t.0);
    d.seat_target_bound = target.map(|t| t.1);
    if let (Some(p), Some(g)) = (w.prompt_tps, w.generation_tps) {
        if g > 0.0 {
            d.prompt_gen_ratio = Some((p - w.prefix_hit_tps.unwrap_or(0.0)).max(0.0) / g);
        }
    }
    d
}

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
        waiting < 2.0,
        "below",
        2,
    )];
    let fired = if let Some(ce) = d.config_efficiency {
        ev.push(gate(
            format!("occupancy {} of the {wall_name} wall", pct(occ)),
            occ < 0.75,
            "below",
            "75%",
        ));
        ev.push(gate(
            format!("config-relative efficiency {}", pct(ce)),
            ce < 0.60,
            "below",
            "60%",
        ));
        waiting < 2.0 && ce < 0.60 && occ < 0.75
    } else {
        ev.push(gate(
            format!("occupancy {} of the {wall_name} wall", pct(occ)),
            occ < 0.25,
            "below",
            "25% (the gate with the GPU ceiling unknown or cleared)",
        ));
        waiting < 2.0 && occ < 0.25
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

const KV_NEAR_FULL: f64 = crate::inputs::KV_WALL;

/// R2's per-request eviction gate: the requests that finished went through at least one
/// preemption per ten of them (the counter's gate, 0.02/s, is a rate and misses requests
/// preempted before the window that finish inside it).
const PREEMPTIONS_PER_REQUEST: f64 = 0.1;

fn kv_near_full(w: &WindowStats) -> Option<(bool, String)> {
    let kv = w.kv_usage?;
    let full = kv.mean >= KV_NEAR_FULL || kv.peak >= KV_NEAR_FULL;
    Some((
        full,
        format!(
            "KV mean {} peak {}: {} at least {}",
            pct(kv.mean),
            pct(kv.peak),
            if full { "one is" } else { "neither is" },
            pct(KV_NEAR_FULL)
        ),
    ))
}

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
    let evict = preempt > 0.02 || swapped >= 2.0 || per_request_evict;
    let fired = full && (evict || waiting > 2.0);
    let is = |b: bool| if b { "is" } else { "is not" };
    // SGLang's word for a preempted request is a retraction, and it never swaps.
    let evicted = match inp.engine {
        Engine::Sglang => format!(
            "retractions {preempt:.3}/s {} above 0.02/s",
            is(preempt > 0.02)
        ),
        _ => format!(
            "preemptions {preempt:.3}/s {} above 0.02/s, swapped {swapped:.1} {} at least 2",
            is(preempt > 0.02),
            is(swapped >= 2.0)
        ),
    };
    let mut ev = vec![
        kv_ev,
        format!(
            "{evicted}, waiting {waiting:.1} {} above 2",
            is(waiting > 2.0)
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

/// The KV family's prescription, split by cost. Levers already applied are left out; when none
/// is left, the rule has no fix to offer and a held rule surfaces.
fn kv_family_fix(inp: &Inputs, cutting: bool) -> Vec<FixStep> {
    let e = inp.engine;
    let c = &inp.config;
    let mut fix = Vec::new();
    if c.prefix_caching == Some(false) {
        if let Some(fl) = flag(e, Knob::PrefixCaching) {
            fix.push(
                FixStep::flagged(
                    Knob::PrefixCaching,
                    fl,
                    None,
                    "turn prefix caching on: shared prefixes stop costing KV",
                )
                .cost(FixCost::Safe),
            );
        }
    }
    // A pool fixed by an explicit size does not grow with the memory share: the fix is the size.
    match &c.kv_pool_cap {
        Some(PoolCap::Blocks(n)) => {
            if let Some(fl) = flag(e, Knob::KvBlocksOverride) {
                fix.push(
                    FixStep::flagged(
                        Knob::KvBlocksOverride,
                        fl,
                        None,
                        format!("the pool is fixed at {n} blocks by this override: raise it, or drop it so the memory share sizes the pool"),
                    )
                    .cost(FixCost::Safe),
                );
            }
        }
        Some(PoolCap::Bytes(b)) => {
            if let Some(fl) = flag(e, Knob::KvCacheMemoryBytes) {
                let gib = *b as f64 / (1u64 << 30) as f64;
                fix.push(
                    FixStep::flagged(
                        Knob::KvCacheMemoryBytes,
                        fl,
                        None,
                        format!("the pool is fixed at {gib:.2} GiB by kv_cache_memory_bytes: raise it (on vLLM's CPU build, the VLLM_CPU_KVCACHE_SPACE variable, in GiB)"),
                    )
                    .cost(FixCost::Safe),
                );
            }
        }
        Some(PoolCap::Tokens(n)) => {
            if let Some(fl) = flag(e, Knob::KvPoolTokens) {
                let share = flag(e, Knob::GpuMemoryUtilization).unwrap_or("the memory share");
                fix.push(
                    FixStep::flagged(
                        Knob::KvPoolTokens,
                        fl,
                        None,
                        format!("the pool is fixed at {n} tokens by this flag: raise it, or drop it so {share} sizes the pool"),
                    )
                    .cost(FixCost::Safe),
                );
            }
        }
        None => {}
    }
    if let (Some(fl), Some(u), None) = (
        flag(e, Knob::GpuMemoryUtilization),
        c.gpu_memory_utilization,
        &c.kv_pool_cap,
    ) {
        if u < 0.95 {
            let v = (u + 0.05).min(0.95);
            fix.push(
                FixStep::flagged(
                    Knob::GpuMemoryUtilization,
                    fl,
                    Some(format!("{v:.2}")),
                    "give the KV pool more of the device's memory",
                )
                .cost(FixCost::Safe),
            );
        }
    }
    match c.kv_cache_dtype.as_deref() {
        Some(d) if d.contains("fp8") || d.contains("q8") || d.contains("q4") => {}
        _ => {
            if let Some(fl) = flag(e, Knob::KvCache8bit) {
                fix.push(
                    FixStep::flagged(
                        Knob::KvCache8bit,
                        fl,
                        None,
                        "halve KV bytes per token, at 8-bit precision for keys and values: check your eval's accuracy before and after",
                    )
                    .cost(FixCost::TradesAccuracy),
                );
            }
        }
    }
    if let Some(fl) = flag(e, Knob::KvOffloading) {
        fix.push(
            FixStep::flagged(
                Knob::KvOffloading,
                fl,
                None,
                "offload cold KV blocks to host memory: the value is GiB of host RAM; measure what is free with `free -g` (the \"available\" column) and give at most half of it, divided by the tensor-parallel size",
            )
            .cost(FixCost::Safe),
        );
    }
    if cutting {
        // llama-server's -c is the whole context, split across slots: its per-slot figure is
        // not what the flag takes, so the step is left to the seats below.
        if let (Some(fl), Some(m), false) = (
            flag(e, Knob::MaxModelLen),
            c.max_model_len,
            e == Engine::LlamaCpp,
        ) {
            let mean = match (
                inp.window.mean_prompt_tokens(),
                inp.window.mean_gen_tokens(),
            ) {
                (Some(p), Some(g)) => format!(
                    " (this window's requests averaged {:.0} tokens, prompt and output)",
                    p + g
                ),
                _ => String::new(),
            };
            fix.push(
                FixStep::flagged(
                    Knob::MaxModelLen,
                    fl,
                    None,
                    format!("lower it from {m:.0} to the longest prompt plus max_tokens your clients send{mean}: measure it from their logs; longer requests are refused"),
                )
                .cost(FixCost::CutsThroughput),
            );
        }
        if let (Some(fl), Some(m)) = (flag(e, Knob::MaxNumSeqs), c.max_num_seqs) {
            // Usage scales with the requests running: the seats at which this window's mean
            // usage would sit at 80 %.
            let seats = match (inp.window.running, inp.window.kv_usage) {
                (Some(r), Some(k)) if k.mean > 0.0 && r.mean >= 1.0 => {
                    let v = (r.mean * 0.8 / k.mean).floor().max(1.0);
                    (v < m).then(|| {
                        (
                            v,
                            format!(
                                "running {:.1} × 80 % ÷ KV mean {} = {v:.0}: fewer sequences share the pool",
                                r.mean,
                                pct(k.mean)
                            ),
                        )
                    })
                }
                _ => None,
            };
            let (value, text) = match seats {
                Some((v, t)) => (Some(format!("{v:.0}")), format!("lower it from {m:.0}: {t}")),
                None => (
                    None,
                    format!("lower it from {m:.0} until KV usage stays under 80 % (watch it with `headroom watch`): fewer sequences share the pool"),
                ),
            };
            fix.push(
                FixStep::flagged(Knob::MaxNumSeqs, fl, value, text).cost(FixCost::CutsThroughput),
            );
        }
    }
    if !fix.is_empty() {
        fix.push(
            FixStep::text(
                "if none of these is possible: verify the KV figures, then add a replica",
            )
            .cost(FixCost::DeadEnd),
        );
    }
    fix
}

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
    let fired = full && qr >= 0.30 && run.mean < max_seqs && free < need;
    let ev = vec![
        kv_ev,
        gate(
            format!("queue ratio {}", pct(qr)),
            qr >= 0.30,
            "at least",
            "30%",
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

/// The probe that tells unique prompts from broken sharing.
pub const PROBE_PREFIX: &str = "`headroom probe prefix`";

/// Prompt tokens at least this many times the generated ones: prefill is most of the engine's
/// work (R6's prefill-heavy mark).
const PROMPT_HEAVY: f64 = 5.0;

/// A busy prompt stream (R3's volume gate): running above 0.75, prompts of 20 tokens or more,
/// and at least 1000 prompt tok/s, or prompt tokens at least 5× the generated ones. The
/// absolute volume is a GPU's scale; an engine that prefills slower (a CPU build, a small part)
/// is as busy with prompts at a few hundred tok/s, and the share says so at any speed. The
/// figures for the evidence line too.
fn r3_busy(w: &WindowStats) -> Option<(bool, String)> {
    let (run, mean_prompt) = (w.running?, w.mean_prompt_tokens()?);
    let volume = match w.finished_per_s {
        Some(q) => q * mean_prompt,
        None => w.prompt_tps.unwrap_or(0.0),
    };
    let share = match (w.prompt_tps, w.generation_tps) {
        (Some(p), Some(g)) if g > 0.0 => Some(p / g),
        _ => None,
    };
    let heavy = share.is_some_and(|r| r >= PROMPT_HEAVY);
    let share_ev = share.map_or(String::new(), |r| {
        format!(
            ", {r:.1}× the generated tokens ({} {PROMPT_HEAVY:.0}×)",
            if heavy { "at least" } else { "below" }
        )
    });
    Some((
        run.mean > 0.75 && mean_prompt >= 20.0 && (volume >= 1000.0 || heavy),
        format!(
            "running {:.2}, mean prompt {mean_prompt:.0} tokens, prompt volume {volume:.0} tok/s ({} 1000){share_ev}",
            run.mean,
            if volume >= 1000.0 { "at least" } else { "below" }
        ),
    ))
}

/// R3's suspect it cannot judge from the metrics: a busy prompt stream with caching on (or
/// unread) and a hit rate under the gate. The hint for `unjudged`.
pub fn r3_suspect(inp: &Inputs, w: &WindowStats) -> Option<String> {
    let h = w.prefix_hit_rate?;
    let busy = r3_busy(w)?.0;
    (busy && h < 0.35 && inp.config.prefix_caching != Some(false)).then(|| {
        format!(
            "prefix-cache hit rate {} on a busy prompt stream: nothing to share, or sharing broken",
            pct(h)
        )
    })
}

/// R3 Low prefix reuse.
pub fn r3(inp: &Inputs, w: &WindowStats) -> Finding {
    let id = RuleId::R3;
    let Some((busy, volume_ev)) = r3_busy(w) else {
        return Finding::silent(id, "running or mean prompt length unknown");
    };
    let mut ev = vec![volume_ev];
    let fl = flag(inp.engine, Knob::PrefixCaching);
    let mut f = match (inp.config.prefix_caching, w.prefix_hit_rate) {
        (Some(false), _) => {
            ev.push(
                "prefix caching confirmed off: every repeated prefix is prefilled again".into(),
            );
            let mut f = Finding::judged(id, busy, ev);
            f.fix = match fl {
                Some(fl) => vec![FixStep::flagged(
                    Knob::PrefixCaching,
                    fl,
                    None,
                    "turn prefix caching on",
                )],
                None => vec![FixStep::text("turn the engine's prefix cache on")],
            };
            f
        }
        (_, Some(h)) => {
            ev.push(gate(
                format!("prefix-cache hit rate {}", pct(h)),
                h < 0.35,
                "below",
                "35%",
            ));
            // A low hit rate with caching on is evidence of nothing by itself: unique prompts
            // have nothing to share. The metrics cannot predict the hits repeated prefixes
            // would give, so the rule stays quiet and names the probe that tells them apart.
            if busy && h < 0.35 {
                ev.push(format!(
                    "not fired: the metrics do not say whether prompts repeat; a low hit rate is \"nothing to share\" or \"sharing broken\" ({PROBE_PREFIX} tells them apart)"
                ));
            }
            let mut f = Finding::judged(id, false, ev);
            f.fix = vec![FixStep::text(
                "restructure prompts so requests share a stable prefix (system prompt and tools first, variable text last)",
            )];
            if inp.config.prefix_caching.is_none() {
                f.fix.insert(
                    0,
                    FixStep::text("verify prefix caching is on (the flag was unread)"),
                );
            }
            f
        }
        (Some(true), None) => return Finding::silent(id, "prefix-cache hit counters not exported"),
        (None, None) => return Finding::silent(id, "prefix caching unread and no hit counters"),
    };
    f.evidence.shrink_to_fit();
    f
}

/// A KV pool under this many max-length sequences is one the weights left barely any room
/// (R4's unjudged suspect uses the same bar).
pub const R4_TIGHT_POOL: f64 = 1.25;

/// R4 OOM risk.
pub fn r4(inp: &Inputs) -> Finding {
    let id = RuleId::R4;
    let Some(p) = &inp.physics else {
        // The engine's own figures settle a buffer squeeze without physics: a pool that cannot
        // hold one max-length request (llama.cpp's context is the pool by choice: not read so).
        let (cap, len) = (inp.config.kv_capacity_tokens, inp.config.max_model_len);
        // Weights kept in host memory, and what VRAM the rest left the KV pool is barely one
        // max-length sequence (vLLM refuses to start below one): the weights do not fit in
        // VRAM, and offloading them is what lets the engine start at all.
        if let (Some(off), Some(cap), Some(len), Engine::Vllm) =
            (inp.config.cpu_offload_gb, cap, len, inp.engine)
        {
            if off > 0.0 && cap < R4_TIGHT_POOL * len {
                let mut f = Finding::judged(
                    id,
                    true,
                    vec![
                        format!("the engine keeps {off:.1} GiB of weights per GPU in host memory (cache_config_info cpu_offload_gb {off:.1}): not all of the weights are in VRAM"),
                        gate(
                            format!(
                                "its KV pool {cap:.0} tokens, {:.2} max-length sequences ({len:.0}),",
                                cap / len
                            ),
                            true,
                            "below",
                            format!("{R4_TIGHT_POOL} sequences: what the weights in VRAM left is barely one request of the longest length"),
                        ),
                    ],
                );
                f.variant = Some("weights-overflow".into());
                if let Some(fl) = flag(inp.engine, Knob::TensorParallelSize) {
                    f.fix.push(FixStep::flagged(
                        Knob::TensorParallelSize,
                        fl,
                        None,
                        "shard the weights across GPUs until they fit (pass --gpu and --model to size it); every step now streams the offloaded weights over the host link",
                    ));
                }
                f.fix.push(FixStep::text(
                    "a smaller or more quantized model, or hardware this model fits on",
                ));
                return f;
            }
        }
        if let (Some(cap), Some(len), Engine::Vllm | Engine::Sglang) = (cap, len, inp.engine) {
            if cap < len {
                let mut f = Finding::judged(
                    id,
                    true,
                    vec![format!(
                        "the engine's KV pool {cap:.0} tokens is less than one max-length sequence ({len:.0})"
                    )],
                );
                f.variant = Some("buffer-squeeze".into());
                if let Some(fl) = flag(inp.engine, Knob::MaxModelLen) {
                    f.fix.push(FixStep::flagged(
                        Knob::MaxModelLen,
                        fl,
                        Some(format!("{cap:.0}")),
                        "lower the longest context a request may take to what the pool holds",
                    ));
                }
                f.fix.push(FixStep::text(
                    "a smaller or more quantized model, or more GPU memory (pass --gpu and --model to size it)",
                ));
                return f;
            }
        }
        return Finding::silent(id, "hardware ceiling unknown");
    };
    if p.dtype_fallback {
        return Finding::silent(
            id,
            "bits per param from the bf16 fallback: sizing would be a guess",
        );
    }
    let Some(head) = p.kv_headroom_gb else {
        return Finding::silent(id, "VRAM budget unknown");
    };
    let e = inp.engine;
    let tp_fix = |f: &mut Finding| {
        if let (Some(fl), Some(t)) = (flag(e, Knob::TensorParallelSize), p.min_tp) {
            f.fix.push(FixStep::flagged(
                Knob::TensorParallelSize,
                fl,
                Some(t.to_string()),
                "shard the weights across the smallest TP that fits",
            ));
        }
        if let Some(fl) = flag(e, Knob::GpuMemoryUtilization) {
            if inp.config.gpu_memory_utilization.is_none_or(|u| u < 0.95) {
                f.fix.push(FixStep::flagged(
                    Knob::GpuMemoryUtilization,
                    fl,
                    Some("0.95".into()),
                    "raise it to 0.95 if nothing else shares the GPU (leave the rest for the CUDA context and activations)",
                ));
            }
        }
        f.fix.push(FixStep::text(
            "a smaller or more quantized model, or hardware this model fits on",
        ));
    };
    if head < 0.0 {
        let mut f = Finding::judged(
            id,
            true,
            vec![format!(
                "weights overflow the VRAM budget by {:.1} GB",
                -head
            )],
        );
        f.variant = Some("weights-overflow".into());
        tp_fix(&mut f);
        return f;
    }
    let Some(worst) = p.worst_request_gb else {
        return Finding::judged(id, false, vec![format!("KV headroom {head:.1} GB")]);
    };
    let fired = worst > head;
    let mut f = Finding::judged(
        id,
        fired,
        vec![format!(
            "KV headroom {head:.2} GB vs one worst-case request {worst:.2} GB"
        )],
    );
    if fired {
        f.variant = Some("buffer-squeeze".into());
        if let Some(fl) = flag(e, Knob::MaxModelLen) {
            // A request's KV grows with its length: the longest one the free VRAM holds.
            let fits = inp
                .config
                .max_model_len
                .filter(|_| worst > 0.0 && e != Engine::LlamaCpp)
                .map(|len| (len, (len * head / worst).floor()));
            f.fix.push(match fits {
                Some((len, v)) => FixStep::flagged(
                    Knob::MaxModelLen,
                    fl,
                    Some(format!("{v:.0}")),
                    format!("lower the longest context a request may take to what the free VRAM holds: {len:.0} tokens × {head:.2} GB ÷ {worst:.2} GB = {v:.0}"),
                ),
                None => FixStep::flagged(
                    Knob::MaxModelLen,
                    fl,
                    None,
                    format!("lower the longest context a request may take, in proportion: the free VRAM holds {head:.2} GB of KV, one longest request needs {worst:.2} GB"),
                ),
            });
        }
        tp_fix(&mut f);
    }
    f
}

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
    let queued = wall && wait.mean >= 2.0 && qr >= 0.30;
    // Requests the server refused at its own queue limit (vLLM's --max-num-queued-reqs or
    // --max-num-queued-tokens) while every seat was taken: the queue that would show
    // saturation was cut short, so the refusals are the evidence.
    let band = (0.05 * max_seqs).max(1.0);
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
            wait.mean >= 2.0,
            "at least",
            2,
        ),
        gate(
            format!("queue ratio {}", pct(qr)),
            qr >= 0.30,
            "at least",
            "30%",
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
        (Some(t), kv) if kv.is_none_or(|k| k < 0.8) && t > max_seqs => {
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
            let step = if kv.is_some_and(|k| k >= 0.8) {
                FixStep::text("seats are at the wall of the KV pool (usage ≥ 80%): add a replica or reduce per-request context")
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
            ratio >= 5.0,
            "at least",
            5,
        ),
        gate(
            format!("decode efficiency {}", pct(eff)),
            eff < 0.40,
            "below",
            "40%",
        ),
    ];
    let floor = 1.0 / p.decode_ceiling_tps;
    let muted = match w.itl.filter(|d| d.count > 0.0) {
        Some(itl) => {
            ev.push(gate(
                format!("TPOT {:.1} ms", itl.mean * 1e3),
                itl.mean >= 4.0 * floor,
                "at least",
                format!(
                    "4 × the floor of {:.1} ms = {:.1} ms",
                    floor * 1e3,
                    4.0 * floor * 1e3
                ),
            ));
            itl.mean < 4.0 * floor
        }
        None => false,
    };
    let fired = ratio >= 5.0 && eff < 0.40 && !muted;
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
const TTFT_QUEUE_SHARE: f64 = 0.5;

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
        ratio >= 5.0,
        "at least",
        5,
    );
    if ratio < 5.0 {
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
    if wait < 2.0 {
        return unjudged(format!(
            "waiting {wait:.1} is below 2: no queue the prefill holds"
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
            "KV peak {} is at or above 88%: the queue may be the KV pool's",
            pct(kv.peak)
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
            "50%",
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
            gate(format!("waiting {wait:.1}"), true, "at least", 2),
            format!(
                "running {run:.1} on average, and no scrape had it within 5% of max_num_seqs {max_seqs:.0} while 2 or more waited: the seats do not hold the queue"
            ),
            gate(format!("KV peak {}", pct(kv.peak)), true, "below", "88%"),
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
    if ratio >= 20.0 {
        f.variant = Some("severe".into());
        f.fix.push(FixStep::text(
            "disaggregate prefill and decode, or add a replica",
        ));
    }
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
    (waiting < 2.0 && occ < 0.25 && !engine_held(w).held).then(|| {
        format!(
            "waiting {waiting:.1} and running {:.1}, {} of the {} wall: under-fed, unless the unread seat limit is lower",
            w.running.map_or(0.0, |r| r.mean),
            pct(occ),
            d.occupancy_wall.unwrap_or("?")
        )
    })
}

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
    (occ >= 0.5 && wait <= 1.0 && max_seqs < 0.72 * kv).then(|| {
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
    let fired = max_seqs < 0.9 * target && seat_use >= 0.5 && wait.mean <= 1.0 && demand;
    let mut ev = vec![
        gate(
            format!("max_num_seqs {max_seqs:.0}"),
            max_seqs < 0.9 * target,
            "below",
            format!("90% of the seat target {target:.0} ({:.0})", 0.9 * target),
        ),
        gate(
            format!("seat use (running ÷ max_num_seqs) {}", pct(seat_use)),
            seat_use >= 0.5,
            "at least",
            "50%",
        ),
        gate(
            format!("waiting {:.1}", wait.mean),
            wait.mean <= 1.0,
            "at most",
            1,
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

/// The seat target's arithmetic, one wording for R5 and R7: "0.8 × min(ridge 295, KV bound 412
/// (measured: running ÷ KV usage × 88 %)) = 236, bound by compute ridge".
fn seat_arithmetic(inp: &Inputs, d: &Derived) -> Option<String> {
    let t = d.seat_target?;
    let ridge = inp.physics.as_ref()?.ridge_batch;
    let kv = inp
        .kv_bound()
        .map(|(k, how)| format!(", KV bound {k:.0} ({how})"))
        .unwrap_or_default();
    Some(format!(
        "0.8 × min(ridge {ridge:.0}{kv}) = {:.0}, bound by {}",
        t.floor(),
        d.seat_target_bound.unwrap_or("?")
    ))
}

/// llama-server divides -c by -np: raising the slots to `np` keeps each slot's context only
/// when -c rises with them. The step with the value, on llama.cpp; None elsewhere.
fn llamacpp_ctx_step(inp: &Inputs, np: f64) -> Option<FixStep> {
    if inp.engine != Engine::LlamaCpp {
        return None;
    }
    let per_slot = inp.config.max_model_len?;
    let now = inp
        .config
        .kv_capacity_tokens
        .map(|c| {
            format!(
                "; with -c left at {c:.0} each slot would get {:.0}",
                (c / np).floor()
            )
        })
        .unwrap_or_default();
    let c = (np * per_slot).ceil();
    Some(FixStep {
        // The flag is the whole context, not the per-slot max_model_len the config reads
        // back, so no knob: a re-measure does not compare it with max_model_len.
        knob: None,
        flag: Some("-c".into()),
        value: Some(format!("{c:.0}")),
        text: format!(
            "with it, since llama-server divides -c by -np: {np:.0} slots × {per_slot:.0} tokens (each slot's context now) = {c:.0}{now}; the KV cache grows with -c, so check that it still fits the device"
        ),
        cost: None,
    })
}

/// Every rule over one window.
pub fn evaluate(inp: &Inputs, w: &WindowStats) -> (Derived, Vec<Finding>) {
    let d = derive(inp, w);
    let v = vec![
        r1(inp, w, &d),
        r2(inp, w),
        r2b(inp, w),
        r3(inp, w),
        r4(inp),
        r5(inp, w, &d),
        r6(inp, w, &d),
        r7(inp, w, &d),
    ];
    (d, v)
}
