//! The re-measure: two diagnose reports of the same window shape, before and after a fix, set
//! side by side (`headroom.remeasure/1`, docs/json/diagnose.md). Did the primary clear, did the
//! config move as prescribed, and did throughput move: the last is the comparison `regress`
//! makes (a bootstrap interval on the ratio of sub-window medians beyond the noise floor, and a
//! Mann-Whitney U test), so "did it move" has one answer across headroom.

use crate::report::{ConfigValue, Fired, Report};
use crate::rules::RuleId;
use serde::{Deserialize, Serialize};

pub const SCHEMA: &str = "headroom.remeasure/1";

/// The `headroom remeasure --json` document.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Remeasure {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// The saved run compared against.
    pub against: i64,
    /// The history id of the new run, unless `--no-save`.
    pub saved_run_id: Option<i64>,
    pub comparison: Comparison,
    pub after: Report,
}

/// Before against after.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Comparison {
    pub primary_before: Option<RuleId>,
    pub primary_after: Option<RuleId>,
    /// None when there was no primary before.
    pub cleared: Option<bool>,
    pub throughput: ThroughputMove,
    pub efficiency_before: Option<f64>,
    pub efficiency_after: Option<f64>,
    /// Per prescribed flag: did the config move as prescribed?
    pub config: Vec<ConfigMove>,
    /// The new primary.
    pub next: Option<Fired>,
    /// Held rules, surfaced because the same primary fired again.
    pub surfaced: Vec<Fired>,
}

/// Did generation throughput move, judged over the sub-windows.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ThroughputMove {
    pub generation_tps_before: Option<f64>,
    pub generation_tps_after: Option<f64>,
    pub sub_window_median_before: Option<f64>,
    pub sub_window_median_after: Option<f64>,
    /// [min, max] over the sub-windows.
    pub spread_before: Option<[f64; 2]>,
    pub spread_after: Option<[f64; 2]>,
    /// Median after ÷ median before.
    pub ratio: Option<f64>,
    /// Bootstrap interval on the ratio at `confidence`.
    #[serde(default)]
    pub ratio_low: Option<f64>,
    #[serde(default)]
    pub ratio_high: Option<f64>,
    #[serde(default)]
    pub confidence: Option<f64>,
    /// The noise floor the interval must clear (0.05 = 5 %).
    #[serde(default)]
    pub noise_floor: Option<f64>,
    /// Two-sided Mann-Whitney U over the sub-windows.
    pub p_value: Option<f64>,
    pub verdict: MoveVerdict,
    /// Why the verdict is what it is, in one clause.
    #[serde(default)]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MoveVerdict {
    #[serde(rename = "improved")]
    Improved,
    #[serde(rename = "worse")]
    Worse,
    #[serde(rename = "no change beyond noise")]
    Unchanged,
    #[serde(rename = "not enough sub-windows to judge")]
    NotEnough,
}

impl MoveVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            MoveVerdict::Improved => "improved",
            MoveVerdict::Worse => "worse",
            MoveVerdict::Unchanged => "no change beyond noise",
            MoveVerdict::NotEnough => "not enough sub-windows to judge",
        }
    }
}

/// One prescribed flag, before and after.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConfigMove {
    pub flag: String,
    /// The `config` key the flag moves.
    pub key: String,
    pub prescribed: Option<String>,
    pub before: Option<ConfigValue>,
    pub after: Option<ConfigValue>,
    /// None when the value is unread after.
    pub applied: Option<bool>,
}

/// The fewest sub-windows a side needs before a move is judged.
const MIN_SUB_WINDOWS: usize = 3;

/// The one place the re-measure asks regress whether throughput moved.
fn throughput(before: &[f64], after: &[f64]) -> (Option<regress::Comparison>, Option<String>) {
    if before.len() < MIN_SUB_WINDOWS || after.len() < MIN_SUB_WINDOWS {
        return (None, None);
    }
    match regress::compare(
        before,
        after,
        regress::Better::Higher,
        &regress::Config::default(),
    ) {
        Ok(c) => (Some(c), None),
        Err(e) => (None, Some(e.to_string())),
    }
}

fn same_value(wanted: &str, now: &ConfigValue) -> bool {
    let sig = |f: f64| physics::provenance::sig(f, 6);
    let n = match now {
        ConfigValue::Text(s) => s.clone(),
        v => v.as_f64().map(sig).unwrap_or_else(|| v.to_string()),
    };
    let w = wanted
        .parse::<f64>()
        .map(sig)
        .unwrap_or_else(|_| wanted.to_string());
    n == w
}

/// Compare a saved diagnose report with a new one of the same shape.
pub fn compare(before: &Report, after: &Report) -> Comparison {
    let (rb, ra) = (before.primary_rule(), after.primary_rule());
    let cleared = match (rb, ra) {
        (Some(b), Some(a)) => Some(a != b),
        (Some(_), None) => Some(true),
        (None, _) => None,
    };
    let finite = |v: &[Option<f64>]| -> Vec<f64> {
        v.iter()
            .flatten()
            .copied()
            .filter(|x| x.is_finite())
            .collect()
    };
    let sb = finite(&before.sub_window_generation_tps);
    let sa = finite(&after.sub_window_generation_tps);
    let (mb, ma) = (regress::median(&sb), regress::median(&sa));
    let spread = |v: &[f64]| {
        let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        (!v.is_empty()).then_some([lo, hi])
    };
    let (cmp, why) = throughput(&sb, &sa);
    let cfg = regress::Config::default();
    let ratio = match (mb, ma) {
        (Some(b), Some(a)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let verdict = match cmp.as_ref().map(|c| c.verdict) {
        Some(regress::Verdict::Improved) => MoveVerdict::Improved,
        Some(regress::Verdict::Regressed) => MoveVerdict::Worse,
        Some(regress::Verdict::Unchanged) => MoveVerdict::Unchanged,
        None => MoveVerdict::NotEnough,
    };
    let throughput = ThroughputMove {
        generation_tps_before: before.throughput.generation_tokens_per_s,
        generation_tps_after: after.throughput.generation_tokens_per_s,
        sub_window_median_before: mb,
        sub_window_median_after: ma,
        spread_before: spread(&sb),
        spread_after: spread(&sa),
        ratio,
        ratio_low: cmp.as_ref().map(|c| c.low),
        ratio_high: cmp.as_ref().map(|c| c.high),
        confidence: cmp.as_ref().map(|c| c.confidence),
        noise_floor: cmp.as_ref().map(|_| cfg.threshold),
        p_value: cmp.as_ref().map(|c| c.test.p),
        verdict,
        reason: cmp.as_ref().map(|c| c.reason.clone()).or(why),
    };
    // Did the config move as prescribed?
    let mut config = Vec::new();
    for step in before.primary.iter().flat_map(|p| &p.fix) {
        let (Some(flag), Some(key)) = (
            step.flag.as_ref(),
            step.knob_of(before.engine).and_then(|k| k.config_key()),
        ) else {
            continue;
        };
        let was = before.config.get(key).map(|s| s.value.clone());
        let now = after.config.get(key).map(|s| s.value.clone());
        let applied = match (&step.value, &now) {
            (Some(w), Some(n)) => Some(same_value(w, n)),
            (None, Some(n)) => Some(Some(n) != was.as_ref()),
            (_, None) => None,
        };
        config.push(ConfigMove {
            flag: flag.clone(),
            key: key.to_string(),
            prescribed: step.value.clone(),
            before: was,
            after: now,
            applied,
        });
    }
    let surfaced = if rb.is_some() && rb == ra {
        after.held.clone()
    } else {
        Vec::new()
    };
    Comparison {
        primary_before: rb,
        primary_after: ra,
        cleared,
        throughput,
        efficiency_before: before.efficiency.config_relative,
        efficiency_after: after.efficiency.config_relative,
        config,
        next: after.primary.clone(),
        surfaced,
    }
}
