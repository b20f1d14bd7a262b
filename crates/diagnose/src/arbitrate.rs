//! From several fired rules to one primary: mutual exclusivity silences symptoms a
//! cause already explains; layers put what is broken before what is merely tunable; losing rules
//! are held, never discarded.

use crate::inputs::Inputs;
use crate::rules::{evaluate, Derived, Finding, FixStep, RuleId};
use serde::{Deserialize, Serialize};

/// A rule silenced by another that explains it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Silenced {
    pub rule: RuleId,
    pub by: RuleId,
    pub why: String,
}

/// What caps a server on which no rule fires.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Boundary {
    pub kind: BoundaryKind,
    pub text: String,
}

/// The kind of cap; `declined` when the evidence cannot name one honestly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoundaryKind {
    #[serde(rename = "capacity")]
    Capacity,
    #[serde(rename = "traffic")]
    Traffic,
    #[serde(rename = "physics")]
    Physics,
    #[serde(rename = "prefill interference")]
    PrefillInterference,
    #[serde(rename = "framework overhead")]
    FrameworkOverhead,
    #[serde(rename = "declined")]
    Declined,
    /// The window had no traffic: nothing to judge.
    #[serde(rename = "idle")]
    Idle,
}

impl BoundaryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BoundaryKind::Capacity => "capacity",
            BoundaryKind::Traffic => "traffic",
            BoundaryKind::Physics => "physics",
            BoundaryKind::PrefillInterference => "prefill interference",
            BoundaryKind::FrameworkOverhead => "framework overhead",
            BoundaryKind::Declined => "declined",
            BoundaryKind::Idle => "idle",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub derived: Derived,
    pub primary: Option<Finding>,
    /// Losing rules, in rank order. They surface when the same primary fires again, or at once
    /// when the primary has no fix left to offer (then the first is also in `next`).
    pub held: Vec<Finding>,
    /// The held rule surfaced now because the primary has no fix left.
    pub next: Option<Finding>,
    pub silenced: Vec<Silenced>,
    /// Rules that judged and stayed quiet, or could not judge (with the reason).
    pub quiet: Vec<Finding>,
    /// Rules that could not be judged and would outrank the primary: what settles each.
    pub unjudged: Vec<crate::Unjudged>,
    /// Nothing fired but efficiency is still low: the shape of the underuse, diagnose-only.
    pub fallback: Option<String>,
    /// Nothing fired at all: the boundary capping the server.
    pub boundary: Option<Boundary>,
}

/// Rank: each rule's own [`crate::rules::Rank`], read in this field. `caching_off`: prefix
/// caching is confirmed off (read from the engine or its flags).
fn rank(rule: RuleId, soft: bool, caching_off: bool) -> (u8, u8) {
    rule.def().rank.of(soft, caching_off)
}

/// Share of sub-windows in which each rule fired.
fn seen_in(inp: &Inputs, rule: RuleId) -> Option<f64> {
    if inp.sub_windows.is_empty() {
        return None;
    }
    let n = inp
        .sub_windows
        .iter()
        .filter(|w| evaluate(inp, w).1.iter().any(|f| f.rule == rule && f.fired))
        .count();
    Some(n as f64 / inp.sub_windows.len() as f64)
}

pub fn diagnose(inp: &Inputs) -> Verdict {
    let (d, mut findings) = evaluate(inp, &inp.window);
    if inp.window.idle() {
        // An idle server is not under-batched: with no traffic no rule has evidence of harm.
        return Verdict {
            derived: d,
            primary: None,
            held: Vec::new(),
            next: None,
            silenced: Vec::new(),
            quiet: RuleId::ALL
                .iter()
                .map(|&r| Finding::silent(r, "the window had no traffic"))
                .collect(),
            unjudged: Vec::new(),
            fallback: None,
            boundary: Some(Boundary {
                kind: BoundaryKind::Idle,
                text: "the window had no traffic (no token generated or prompted, nothing finished, nobody running or waiting): nothing to judge; diagnose while the server is under load".into(),
            }),
        };
    }
    // Gauges the engine did not refresh in the window: the rules that read them judged a held
    // value. Each goes quiet with the reason; one that fired on the held value is named unjudged.
    let stale = crate::stale::stale_gauges(inp);
    let mut stale_unjudged = Vec::new();
    if let Some(why) = &stale {
        for f in findings
            .iter_mut()
            .filter(|f| crate::stale::GAUGE_RULES.contains(&f.rule))
        {
            if f.fired {
                stale_unjudged.push(crate::Unjudged {
                    rule: f.rule,
                    needs: crate::stale::NEEDS.into(),
                    hint: format!("fired on held gauge readings ({})", f.evidence.join("; ")),
                });
            }
            *f = Finding::silent(f.rule, why.clone());
        }
    }
    for f in findings.iter_mut().filter(|f| f.fired) {
        f.seen_in = seen_in(inp, f.rule);
    }
    let fired = |r: RuleId, fs: &[Finding]| fs.iter().any(|f| f.rule == r && f.fired);
    let mut silenced = Vec::new();
    let mut silence = |rule: RuleId, by: RuleId, why: &str, fs: &mut Vec<Finding>| {
        if fired(rule, fs) {
            fs.iter_mut()
                .filter(|f| f.rule == rule)
                .for_each(|f| f.fired = false);
            silenced.push(Silenced {
                rule,
                by,
                why: why.to_string(),
            });
        }
    };
    // Weights overflowing VRAM explain KV pressure; a buffer squeeze alone does not.
    let overflow = findings.iter().any(|f| {
        f.rule == RuleId::R4 && f.fired && f.variant.as_deref() == Some("weights-overflow")
    });
    if overflow {
        silence(
            RuleId::R2,
            RuleId::R4,
            "the weights alone overflow VRAM: KV pressure is its symptom",
            &mut findings,
        );
        silence(
            RuleId::R2b,
            RuleId::R4,
            "the weights alone overflow VRAM: KV pressure is its symptom",
            &mut findings,
        );
    }
    // Both KV findings on one window: R2 wins at report construction.
    if fired(RuleId::R2, &findings) {
        silence(
            RuleId::R2b,
            RuleId::R2,
            "same KV family; R2 wins when both are significant",
            &mut findings,
        );
    }
    // Prefill-bound silences under-batching when the server is pressed; in a soft field the row
    // is skipped so under-batching owns first fire.
    if fired(RuleId::R6, &findings) && !d.soft_field {
        silence(
            RuleId::R1,
            RuleId::R6,
            "pressed server: prefill occupies the steps under-batching would fill",
            &mut findings,
        );
    }
    // Soft under-fed inject: R1's gates missed, the field is soft, and prefill would own the page.
    let mut inject = None;
    if d.soft_field && !fired(RuleId::R1, &findings) && fired(RuleId::R6, &findings) {
        // Not when R1 was refused because the engine holds the requests: that is no soft field.
        let r1 = findings
            .iter()
            .find(|f| {
                f.rule == RuleId::R1 && f.variant.as_deref() != Some(crate::rules::ENGINE_HELD)
            })
            .cloned();
        if let Some(mut r1) = r1 {
            r1.fired = true;
            r1.variant = Some("soft-underfed".into());
            r1.silent_reason = None;
            r1.evidence.push("soft field (no queue, cool KV, running well below ridge) with prefill on top: under-fed, not prefill-bound".into());
            if r1.fix.is_empty() {
                r1.fix
                    .push(FixStep::text("raise client concurrency in steps"));
            }
            inject = Some(r1);
        }
    }
    let (mut active, quiet): (Vec<Finding>, Vec<Finding>) =
        findings.into_iter().partition(|f| f.fired);
    if let Some(r1) = inject {
        active.retain(|f| f.rule != RuleId::R1);
        active.push(r1);
    }
    let caching_off = inp.config.prefix_caching == Some(false);
    active.sort_by_key(|f| rank(f.rule, d.soft_field, caching_off));
    // A suspect that cannot be judged and outranks what fired: no weaker rule is crowned by
    // default. What fired stays held; the verdict names the suspect and the fact that settles it.
    let top = active
        .first()
        .map(|f| rank(f.rule, d.soft_field, caching_off));
    // A suspect outranks only if it does under every reading of what is unread: with the ridge
    // and the seat limit unknown, a field with no queue and a cool KV may be soft, where
    // prefill ranks below under-batching.
    let maybe_soft = d.soft_field
        || (inp.physics.is_none()
            && inp.window.waiting.is_some_and(|w| w.mean < 2.0)
            && inp.window.kv_usage.is_none_or(|k| k.mean < 0.8));
    // On stale gauges the suspects they would name are as stale: only the others stay.
    let named = match stale {
        Some(_) => crate::rules::unjudged::suspects(inp, &d, &quiet)
            .into_iter()
            .filter(|u| !crate::stale::GAUGE_RULES.contains(&u.rule))
            .chain(stale_unjudged)
            .collect(),
        None => crate::rules::unjudged::suspects(inp, &d, &quiet),
    };
    let unjudged: Vec<crate::Unjudged> = named
        .into_iter()
        .filter(|u| top.is_none_or(|t| rank(u.rule, maybe_soft, caching_off) < t))
        .collect();
    // A suspect that is tuning advice is named but does not withhold a primary.
    let crowned = unjudged.iter().all(|u| !u.rule.def().withholds);
    let mut it = active.into_iter();
    let primary = if crowned { it.next() } else { None };
    let held: Vec<Finding> = it.collect();
    let next = match &primary {
        Some(p) if p.fix.is_empty() => held.first().cloned(),
        _ => None,
    };
    let (fallback, boundary) = if primary.is_none() && held.is_empty() {
        if let Some(why) = &stale {
            let text = format!("{why}: no healthy cap is named");
            (
                None,
                Some(Boundary {
                    kind: BoundaryKind::Declined,
                    text,
                }),
            )
        } else {
            (fallback(&d), Some(boundary(inp, &d)))
        }
    } else {
        (None, None)
    };
    Verdict {
        derived: d,
        primary,
        held,
        next,
        silenced,
        quiet,
        unjudged,
        fallback,
        boundary,
    }
}

fn fallback(d: &Derived) -> Option<String> {
    let eff = d.config_efficiency?;
    if eff >= 0.60 {
        return None;
    }
    let shape = match d.occupancy {
        Some(o) if o < 0.75 => format!(
            "seats are {} filled against the {} wall and no rule's gate was met: the server is under-used by traffic shape, not broken",
            numbers::fmt::percent(o),
            d.occupancy_wall.unwrap_or("?")
        ),
        _ => "seats are filled but decode runs below the roof: per-step overhead (scheduling, sampling, small kernels), not a config wall".into(),
    };
    Some(format!(
        "config-relative efficiency {} with no rule firing; {shape}",
        numbers::fmt::percent(eff)
    ))
}

fn boundary(inp: &Inputs, d: &Derived) -> Boundary {
    let w = &inp.window;
    if d.speculation_suspected {
        return Boundary { kind: BoundaryKind::Declined, text: "speculation suspected (decode beats the one-token-per-read roof): no healthy cap is named".into() };
    }
    if w.waiting.is_none() {
        return Boundary {
            kind: BoundaryKind::Declined,
            text: "waiting requests unread: no healthy cap is named".into(),
        };
    }
    if inp.physics.is_none() {
        return Boundary {
            kind: BoundaryKind::Declined,
            text: "hardware ceiling unknown: no healthy cap is named".into(),
        };
    }
    let kv_hot = w.kv_usage.is_some_and(|k| k.mean >= 0.8);
    if kv_hot || d.occupancy.is_some_and(|o| o >= 0.9) {
        return Boundary {
            kind: BoundaryKind::Capacity,
            text: format!(
                "seats or KV are near their wall ({}): more traffic needs more capacity",
                d.occupancy_wall.unwrap_or("KV pool")
            ),
        };
    }
    if d.config_efficiency.is_some_and(|e| e >= 0.8) {
        return Boundary {
            kind: BoundaryKind::Physics,
            text: "decode runs near the hardware roof: the ceiling itself caps the server".into(),
        };
    }
    if d.prompt_gen_ratio.is_some_and(|r| r >= 5.0) {
        return Boundary {
            kind: BoundaryKind::PrefillInterference,
            text: "prompt tokens dominate the steps: decode shares its steps with prefill".into(),
        };
    }
    if d.occupancy.is_some_and(|o| o < 0.75) {
        return Boundary {
            kind: BoundaryKind::Traffic,
            text: "the server waits for work: raise client concurrency in steps (the compute ridge is the decode knee, not a seat target; KV or admission can bind first)".into(),
        };
    }
    Boundary {
        kind: BoundaryKind::FrameworkOverhead,
        text: "seats filled, no queue, decode below the roof: per-step framework overhead".into(),
    }
}

/// Held rules surface when the same primary fires again on a re-measure.
pub fn surfaced(before: &Verdict, after: &Verdict) -> Vec<Finding> {
    match (&before.primary, &after.primary) {
        (Some(b), Some(a)) if a.rule == b.rule => after.held.clone(),
        _ => Vec::new(),
    }
}
