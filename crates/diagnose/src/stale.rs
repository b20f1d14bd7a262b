//! Gauges an engine refreshes on its own schedule, not per scrape. SGLang sets running, queued
//! and token usage once per `--decode-log-interval` decode steps (40 by default) and at each
//! prefill batch; at a few decode steps per second that is tens of seconds, so a window can hold
//! a handful of readings, the first perhaps taken before it began. A rule judged on such a window
//! judges the held value, not the window: those rules are left unjudged, and say why.

use crate::inputs::Inputs;
use crate::rules::{RuleId, RULES};
use engines::Engine;

/// Fewer refreshes than this (or than the scrape intervals, when the window holds fewer): one
/// held reading, the first perhaps from before the window, stands for over a quarter of it.
pub const MIN_GAUGE_REFRESHES: usize = 4;

/// The rules that read running, waiting or KV usage: those whose
/// [`crate::rules::Rule::reads_gauges`] is set.
pub const GAUGE_RULES: [RuleId; gauge_rules()] = {
    let mut out = [RuleId::R1; gauge_rules()];
    let (mut i, mut n) = (0, 0);
    while i < RULES.len() {
        if RULES[i].reads_gauges {
            out[n] = RULES[i].id;
            n += 1;
        }
        i += 1;
    }
    out
};

const fn gauge_rules() -> usize {
    let (mut i, mut n) = (0, 0);
    while i < RULES.len() {
        if RULES[i].reads_gauges {
            n += 1;
        }
        i += 1;
    }
    n
}

/// What settles a rule left unjudged on stale gauges.
pub const NEEDS: &str =
    "a longer --duration, or a lower --decode-log-interval on the server (SGLang's flag)";

/// The reason, when the window's scheduler gauges changed too few times while the engine was
/// busy (a counter moved, or a gauge said requests ran or waited). None when they refreshed
/// often enough, when the engine refreshes them per scrape (only SGLang is known not to), or
/// when nothing says it was busy.
pub fn stale_gauges(inp: &Inputs) -> Option<String> {
    if inp.engine != Engine::Sglang {
        return None;
    }
    let w = &inp.window;
    let changes = w.gauge_changes?;
    // Busy by any sign: SGLang counts tokens and requests at each request's end, so a window
    // inside long requests moves no counter while its gauges say requests run.
    let moved = [
        w.generation_tps,
        w.prompt_tps,
        w.finished,
        w.running.map(|g| g.peak),
        w.waiting.map(|g| g.peak),
    ]
    .iter()
    .flatten()
    .any(|v| *v > 0.0);
    let intervals = w.scrapes.saturating_sub(1);
    let need = MIN_GAUGE_REFRESHES.min(intervals);
    if !moved || changes >= need {
        return None;
    }
    let every = match inp.config.gauge_refresh_steps {
        Some(n) => format!("every {n:.0} decode steps (--decode-log-interval {n:.0})"),
        None => "every --decode-log-interval decode steps (40 unless set)".into(),
    };
    Some(format!(
        "stale gauges: SGLang's running, queued and token-usage gauges changed {changes} times in {} scrapes over {:.0} s while it was busy (it refreshes them {every} and at each prefill); {changes} is below {need}, so one held reading, perhaps from before the window, stands for over a quarter of it",
        w.scrapes, w.duration_s
    ))
}
