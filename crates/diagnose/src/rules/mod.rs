//! The eight rules, one file each, and what every rule shares.
//!
//! A rule is one [`Rule`] item, `RULE` in its own file, listed once in [`RULES`]. The item holds
//! everything the rest of the crate knows about the rule, as data: arbitration orders by its
//! [`Rank`], the unjudged pass names it through its [`Suspect`]s, renderers print its title, and
//! [`evaluate`] calls its judge, [`crate::stale`] reads which rules read the gauges. What stays
//! in [`crate::arbitrate`] are relations between rules (one silencing another it explains, the
//! soft under-fed inject), not what a rule is.
//!
//! Why a `const` struct and not a trait: every field is a value or a plain function of the
//! window, and the list is walked as data (ranked, filtered, ordered), which a slice of structs
//! does directly; a trait would add a type per rule and dynamic dispatch for no behaviour a
//! struct cannot hold.
//!
//! A new rule must hold, in its own file:
//! - a variant of [`RuleId`] (the id documents carry) and its `RULE: Rule` with:
//!   - `id`, `name` (the id as documents spell it, the variant's serde name) and `title`;
//!   - `rank`: its layer (0 broken, 1 a setup wall, 2 tuning) and place inside the layer, and
//!     the case, if any, that raises it ([`Rank::raised`]);
//!   - `thresholds`: every gate it is judged against, as the file's named consts, each with the
//!     why-comment beside the const;
//!   - `reads_gauges`: whether it reads running, waiting or KV usage (stale gauges silence it);
//!   - `judge`: the rule over one window, returning a [`Finding`]: silent with the reason when an
//!     input is unread, else judged with one evidence line per gate (see `gate`) and its fix;
//!   - `unjudged`: for each case where it cannot judge but measured evidence makes it a
//!     suspect, the flag that settles it and the hint ([`Suspect`]); empty when an unread fact
//!     alone is all there is;
//!   - `withholds`: whether, named unjudged above what fired, it withholds the primary;
//! - and one entry in [`RULES`], in [`RuleId`] order (the order findings are listed in).
//!
//! Each rule reads typed window fields and config values; a rule whose input is unread stays
//! silent and says why. Rules fire on evidence of harm, never on heat.

mod kv_family;
mod r1_underbatching;
mod r2_kv_pressure;
mod r2b_kv_admission;
mod r3_prefix_reuse;
mod r4_oom;
mod r5_saturation;
mod r6_prefill;
mod r7_headroom;
mod seats;
pub mod unjudged;

pub use r1_underbatching::{engine_held, r1, r1_suspect, EngineHeld, ENGINE_HELD};
pub use r2_kv_pressure::r2;
pub use r2b_kv_admission::r2b;
pub use r3_prefix_reuse::{r3, r3_suspect, PROBE_PREFIX};
pub use r4_oom::{r4, R4_TIGHT_POOL};
pub use r5_saturation::r5;
pub use r6_prefill::r6;
pub use r7_headroom::{r7, r7_suspect};
pub use unjudged::Unjudged;

use crate::inputs::Inputs;
use crate::window::WindowStats;
use engines::Engine;
use serde::{Deserialize, Serialize};

/// The id documents carry. What the rule is lives in its [`Rule`] ([`RuleId::def`]).
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

/// Every rule, in [`RuleId`] order: the one list a new rule joins.
pub const RULES: &[Rule] = &[
    r1_underbatching::RULE,
    r2_kv_pressure::RULE,
    r2b_kv_admission::RULE,
    r3_prefix_reuse::RULE,
    r4_oom::RULE,
    r5_saturation::RULE,
    r6_prefill::RULE,
    r7_headroom::RULE,
];

impl RuleId {
    /// Every rule id, read from [`RULES`].
    pub const ALL: [RuleId; RULES.len()] = {
        let mut all = [RuleId::R1; RULES.len()];
        let mut i = 0;
        while i < RULES.len() {
            all[i] = RULES[i].id;
            i += 1;
        }
        all
    };

    /// The rule's definition. [`RULES`] is in [`RuleId`] order (a test holds it to that).
    pub fn def(self) -> &'static Rule {
        &RULES[self as usize]
    }

    pub fn title(self) -> &'static str {
        self.def().title
    }

    pub fn as_str(self) -> &'static str {
        self.def().name
    }
}

/// A rule's definition: the one item that says what the rule is.
pub struct Rule {
    pub id: RuleId,
    /// The id as documents spell it ("R2b"): the variant's serde name.
    pub name: &'static str,
    pub title: &'static str,
    /// What arbitration orders fired rules by.
    pub rank: Rank,
    /// The gates the rule is judged against, as its file's consts.
    pub thresholds: &'static [Threshold],
    /// It reads running, waiting or KV usage (directly, or through occupancy and the soft
    /// field): on gauges the engine did not refresh it judges a held value, and is left
    /// unjudged ([`crate::stale`]).
    pub reads_gauges: bool,
    /// The rule over one window.
    pub judge: fn(&Inputs, &WindowStats, &Derived) -> Finding,
    /// How the rule is named when it cannot judge but measured evidence makes it a suspect.
    pub unjudged: &'static [Suspect],
    /// Named unjudged, and outranking what fired, it withholds the primary: no weaker rule is
    /// crowned by default. False for tuning advice, which is named beside the primary.
    pub withholds: bool,
}

/// One gate: what is compared, and the bar.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Threshold {
    pub what: &'static str,
    pub value: f64,
}

/// Layer first (0 broken, 1 a setup wall, 2 tuning: broken before tuning), then the spec's
/// order inside a layer. Lower ranks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rank {
    pub layer: u8,
    pub place: u8,
    /// Where the rule ranks instead when the case holds.
    pub raised: Option<(RankCase, u8, u8)>,
}

/// A case that moves a rule to another layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankCase {
    /// The field is not soft (a queue, a hot KV, or running near the ridge).
    Pressed,
    /// Prefix caching is confirmed off (read from the engine or its flags).
    CachingOff,
}

impl Rank {
    pub const fn at(layer: u8, place: u8) -> Self {
        Rank {
            layer,
            place,
            raised: None,
        }
    }

    /// The rank in a field that is `soft` or not, with prefix caching confirmed off or not.
    pub fn of(&self, soft: bool, caching_off: bool) -> (u8, u8) {
        match self.raised {
            Some((RankCase::Pressed, l, p)) if !soft => (l, p),
            Some((RankCase::CachingOff, l, p)) if caching_off => (l, p),
            _ => (self.layer, self.place),
        }
    }
}

/// How a rule that could not judge is named anyway, with the fact that settles it.
pub struct Suspect {
    /// The one flag (or probe) that settles it, e.g. `--gpu`.
    pub needs: &'static str,
    /// Where it is named among all rules' suspects, lowest first: the order the verdict lists
    /// them in (setup faults first, then the tuning suspects, the probe last).
    pub order: u8,
    /// What was measured that makes it a suspect, or None: not named.
    pub hint: fn(&Evidence<'_>) -> Option<String>,
}

/// What a suspect's test reads: the window, the figures derived from it, the rules that stayed
/// quiet, and the suspects named before it.
pub struct Evidence<'a> {
    pub inp: &'a Inputs,
    pub w: &'a WindowStats,
    pub d: &'a Derived,
    pub quiet: &'a [Finding],
    pub named: &'a [Unjudged],
}

impl Evidence<'_> {
    /// The rule could not judge (an input unread).
    pub fn silent(&self, rule: RuleId) -> bool {
        self.quiet
            .iter()
            .any(|f| f.rule == rule && f.silent_reason.is_some())
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
    numbers::fmt::percent(x)
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

/// Every rule over one window, in [`RULES`] order.
pub fn evaluate(inp: &Inputs, w: &WindowStats) -> (Derived, Vec<Finding>) {
    let d = derive(inp, w);
    let v = RULES.iter().map(|r| (r.judge)(inp, w, &d)).collect();
    (d, v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_listed_once_in_id_order_with_their_serde_names() {
        for (i, r) in RULES.iter().enumerate() {
            assert_eq!(r.id as usize, i, "{} out of place", r.name);
            assert_eq!(
                serde_json::to_string(&r.id).unwrap(),
                format!("\"{}\"", r.name)
            );
            assert!(
                !r.title.is_empty() && !r.thresholds.is_empty(),
                "{}",
                r.name
            );
        }
    }

    #[test]
    fn ranks_are_distinct_in_every_field() {
        for soft in [false, true] {
            for off in [false, true] {
                let mut ranks: Vec<_> = RULES.iter().map(|r| r.rank.of(soft, off)).collect();
                ranks.sort();
                ranks.dedup();
                assert_eq!(ranks.len(), RULES.len(), "soft {soft}, caching off {off}");
            }
        }
    }

    #[test]
    fn suspects_have_distinct_places() {
        let mut orders: Vec<u8> = RULES
            .iter()
            .flat_map(|r| r.unjudged.iter().map(|s| s.order))
            .collect();
        let n = orders.len();
        orders.sort();
        orders.dedup();
        assert_eq!(orders.len(), n);
    }
}
