//! R3 Low prefix reuse: a busy prompt stream prefilled again and again. Fires only where
//! prefix caching is confirmed off; a low hit rate with caching on is named for the probe.

use super::{
    flag, gate, pct, Evidence, Finding, FixStep, Knob, Rank, RankCase, Rule, RuleId, Suspect,
    Threshold,
};
use crate::inputs::Inputs;
use crate::window::WindowStats;

pub const RULE: Rule = Rule {
    id: RuleId::R3,
    name: "R3",
    title: "Low prefix reuse",
    // A busy prompt stream with the cache confirmed off is a setup fault with one safe flag,
    // not tuning: every repeated prefix is prefilled again, and more clients (under-batching's
    // advice) multiply that waste. Seen on a real vLLM (CPU, 8 clients, 881-token prompts
    // sharing a prefix): R1 was crowned on seat occupancy alone while the engine was busy
    // prefilling.
    rank: Rank {
        layer: 2,
        place: 2,
        raised: Some((RankCase::CachingOff, 1, 4)),
    },
    thresholds: &[
        Threshold {
            what: "busy: running above",
            value: BUSY_RUNNING,
        },
        Threshold {
            what: "busy: mean prompt tokens at least",
            value: BUSY_PROMPT_TOKENS,
        },
        Threshold {
            what: "busy: prompt tok/s at least",
            value: BUSY_VOLUME,
        },
        Threshold {
            what: "busy: or prompt tokens per generated token at least",
            value: PROMPT_HEAVY,
        },
        Threshold {
            what: "prefix-cache hit rate below",
            value: HIT_RATE,
        },
    ],
    reads_gauges: true,
    judge: |inp, w, _| r3(inp, w),
    unjudged: &[Suspect {
        needs: PROBE,
        order: 7,
        hint: |e: &Evidence<'_>| r3_suspect(e.inp, e.w),
    }],
    // A reuse suspect is tuning advice: it is named but does not withhold a primary.
    withholds: false,
};

/// Running above this: the stream keeps a request in flight.
const BUSY_RUNNING: f64 = 0.75;
/// Prompts of at least this many tokens: long enough to share a prefix.
const BUSY_PROMPT_TOKENS: f64 = 20.0;
/// Prompt tok/s at least this: a GPU's scale of prompt volume.
const BUSY_VOLUME: f64 = 1000.0;
/// Prefix-cache hit rate below this: little is reused.
const HIT_RATE: f64 = 0.35;

/// The probe that tells unique prompts from broken sharing, as a command.
const PROBE: &str = "headroom probe prefix";

/// The probe that tells unique prompts from broken sharing.
pub const PROBE_PREFIX: &str = "`headroom probe prefix`";

/// Prompt tokens at least this many times the generated ones: prefill is most of the engine's
/// work (R6's prefill-heavy mark).
const PROMPT_HEAVY: f64 = super::r6_prefill::PROMPT_GEN_RATIO;

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
        run.mean > BUSY_RUNNING
            && mean_prompt >= BUSY_PROMPT_TOKENS
            && (volume >= BUSY_VOLUME || heavy),
        format!(
            "running {:.2}, mean prompt {mean_prompt:.0} tokens, prompt volume {volume:.0} tok/s ({} {BUSY_VOLUME}){share_ev}",
            run.mean,
            if volume >= BUSY_VOLUME { "at least" } else { "below" }
        ),
    ))
}

/// R3's suspect it cannot judge from the metrics: a busy prompt stream with caching on (or
/// unread) and a hit rate under the gate. The hint for `unjudged`.
pub fn r3_suspect(inp: &Inputs, w: &WindowStats) -> Option<String> {
    let h = w.prefix_hit_rate?;
    let busy = r3_busy(w)?.0;
    (busy && h < HIT_RATE && inp.config.prefix_caching != Some(false)).then(|| {
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
                h < HIT_RATE,
                "below",
                pct(HIT_RATE),
            ));
            // A low hit rate with caching on is evidence of nothing by itself: unique prompts
            // have nothing to share. The metrics cannot predict the hits repeated prefixes
            // would give, so the rule stays quiet and names the probe that tells them apart.
            if busy && h < HIT_RATE {
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

#[cfg(test)]
mod tests {
    #[test]
    fn the_suspect_names_the_probe_the_evidence_cites() {
        assert_eq!(super::PROBE, super::PROBE_PREFIX.trim_matches('`'));
    }
}
