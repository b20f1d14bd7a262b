//! Findings that read the GPU's own telemetry over a window of samples of one device (one GPU
//! or one MIG instance). Each is a pure function: samples in, an [`Outcome`] out. Each states
//! its measured figures against named threshold constants, and is silent (saying what was
//! missing) when the telemetry does not carry what it needs.

use crate::GpuSample;
use numbers::fmt::percent;
use numbers::median;
use serde::Serialize;

/// An SM clock below this share of its maximum, while busy with a power or thermal reason
/// active, is held down. Boost clocks wander a few percent with temperature and load on a
/// healthy part; a power cap or thermal slowdown takes 10 % and more.
pub const THROTTLE_CLOCK_SHARE: f64 = 0.90;
/// A reading is busy when the graphics/compute engine was active at least this share of the
/// time (DCGM_FI_PROF_GR_ENGINE_ACTIVE).
pub const BUSY_ENGINE_ACTIVE: f64 = 0.50;
/// Without DCGM's engine activity (an nvidia-smi capture), a reading is busy when a kernel ran at
/// least this share of the time (`utilization.gpu`, %). This is the one question that figure
/// answers truly: whether any kernel ran, not how much of the GPU it used.
pub const BUSY_GPU_UTIL_PCT: f64 = 50.0;
/// A finding needs at least this many readings that qualify (busy ones for throttled, ones
/// carrying activity for host-bound, DRAM for the model comparison).
pub const MIN_READINGS: usize = 3;
/// Throttled fires when at least this share of the busy readings were held down.
pub const THROTTLED_SHARE: f64 = 0.5;
/// Host-bound: requests running on average at least this many…
pub const HOST_BOUND_RUNNING: f64 = 1.0;
/// …while the median SM activity (DCGM_FI_PROF_SM_ACTIVE) is below this share…
pub const HOST_BOUND_SM_ACTIVE: f64 = 0.25;
/// …and the median DRAM activity (DCGM_FI_PROF_DRAM_ACTIVE) below this one: the GPU waits.
/// Bandwidth-bound decode keeps the memory interface busy well above this.
pub const HOST_BOUND_DRAM_ACTIVE: f64 = 0.15;
/// Measured DRAM activity and the modelled decode share disagree when one is more than this
/// factor of the other. DRAM_ACTIVE counts cycles the interface was busy, not bytes at peak, and
/// the model's decode rate and bytes per token each carry their own error: within this factor the
/// two are read as agreeing.
pub const DRAM_MODEL_FACTOR: f64 = 1.5;

/// Which finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    Throttled,
    HostBound,
    DramVsModel,
}

/// One measured figure against its threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evidence {
    /// What was measured, in words.
    pub figure: String,
    pub measured: f64,
    /// The threshold constant's name (`THROTTLE_CLOCK_SHARE` ...), when the figure is compared.
    pub threshold: Option<&'static str>,
    pub threshold_value: Option<f64>,
    /// The sentence a person reads: the figure, the comparison, the threshold.
    pub text: String,
}

impl Evidence {
    fn against(
        figure: &str,
        measured: f64,
        name: &'static str,
        value: f64,
        below: bool,
    ) -> Evidence {
        let rel = if below == (measured < value) {
            if below {
                "below"
            } else {
                "at or above"
            }
        } else if below {
            "not below"
        } else {
            "below"
        };
        Evidence {
            figure: figure.to_string(),
            measured,
            threshold: Some(name),
            threshold_value: Some(value),
            text: format!("{figure} {} is {rel} {name} {}", fmt(measured), fmt(value)),
        }
    }
}

fn fmt(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// A finding that fired.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub rule: Rule,
    pub summary: String,
    pub evidence: Vec<Evidence>,
    /// Throttled only: the measured SM clock over its maximum (median of the busy readings). It
    /// scales the compute-bound (prefill) ceiling; decode is bound by memory bandwidth, which
    /// follows the memory clock, not the SM clock.
    pub ceiling_scale: Option<f64>,
}

/// What a finding concluded.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// The finding holds, with its evidence.
    Fired(Finding),
    /// The data was there and the finding does not hold; the figures say why.
    Held { rule: Rule, evidence: Vec<Evidence> },
    /// The telemetry lacks what the finding needs; `missing` says what.
    Silent { rule: Rule, missing: String },
}

impl Outcome {
    pub fn fired(&self) -> Option<&Finding> {
        match self {
            Outcome::Fired(f) => Some(f),
            _ => None,
        }
    }
}

fn busy(s: &GpuSample) -> Option<bool> {
    s.gr_engine_active
        .map(|a| a >= BUSY_ENGINE_ACTIVE)
        .or_else(|| s.gpu_util_pct.map(|u| u >= BUSY_GPU_UTIL_PCT))
}

/// Throttled: busy readings whose SM clock sits below [`THROTTLE_CLOCK_SHARE`] of its maximum
/// with a power or thermal clock-event reason active, in at least [`THROTTLED_SHARE`] of the busy
/// readings. The ceiling scale is the busy readings' median SM clock over the maximum.
pub fn throttled(window: &[GpuSample]) -> Outcome {
    let rule = Rule::Throttled;
    let silent = |missing: String| Outcome::Silent { rule, missing };
    if !window.iter().any(|s| s.clock_share().is_some()) {
        return silent(
            "no SM clock with its maximum (DCGM: add DCGM_FI_DEV_MAX_SM_CLOCK to the exporter's \
             counters; nvidia-smi: query clocks.sm and clocks.max.sm)"
                .into(),
        );
    }
    if !window.iter().any(|s| s.clock_events.is_some()) {
        return silent(
            "no clock-event reasons (DCGM_FI_DEV_CLOCKS_EVENT_REASONS / \
             clocks_event_reasons.active)"
                .into(),
        );
    }
    let busy: Vec<&GpuSample> = window
        .iter()
        .filter(|s| busy(s) == Some(true) && s.clock_share().is_some())
        .collect();
    if busy.len() < MIN_READINGS {
        return silent(format!(
            "{} busy readings with a clock, fewer than MIN_READINGS {MIN_READINGS}",
            busy.len()
        ));
    }
    let shares: Vec<f64> = busy.iter().filter_map(|s| s.clock_share()).collect();
    let scale = median(&shares).unwrap_or(1.0);
    let held: Vec<&&GpuSample> = busy
        .iter()
        .filter(|s| {
            s.clock_share().is_some_and(|c| c < THROTTLE_CLOCK_SHARE)
                && s.clock_events.is_some_and(|e| e.power_or_thermal())
        })
        .collect();
    let held_share = held.len() as f64 / busy.len() as f64;
    let mut reasons: Vec<&str> = Vec::new();
    for s in &held {
        for r in s
            .clock_events
            .map(|e| e.power_or_thermal_names())
            .unwrap_or_default()
        {
            if !reasons.contains(&r) {
                reasons.push(r);
            }
        }
    }
    let max = busy.iter().find_map(|s| s.sm_clock_max_mhz).unwrap_or(0.0);
    let evidence = vec![
        Evidence::against(
            &format!(
                "SM clock / its {max:.0} MHz maximum (median of {} busy readings)",
                busy.len()
            ),
            scale,
            "THROTTLE_CLOCK_SHARE",
            THROTTLE_CLOCK_SHARE,
            true,
        ),
        Evidence::against(
            "share of busy readings held below it with a power or thermal reason active",
            held_share,
            "THROTTLED_SHARE",
            THROTTLED_SHARE,
            false,
        ),
    ];
    if held_share >= THROTTLED_SHARE {
        Outcome::Fired(Finding {
            rule,
            summary: format!(
                "throttled: the SM clock ran at {} of its {max:.0} MHz maximum while busy, \
                 held by {} in {} of {} busy readings; the compute-bound ceiling is scaled by the \
                 measured clock (×{scale:.2})",
                percent(scale),
                reasons.join(", "),
                held.len(),
                busy.len()
            ),
            evidence,
            ceiling_scale: Some(scale),
        })
    } else {
        Outcome::Held { rule, evidence }
    }
}

/// Host-bound: requests running (the engine's mean running count over the window, at least
/// [`HOST_BOUND_RUNNING`]) while the GPU's median SM activity (or engine activity, where SM
/// activity is not exported) is below [`HOST_BOUND_SM_ACTIVE`]
/// and its median DRAM activity below [`HOST_BOUND_DRAM_ACTIVE`]: the engine's CPU side, its
/// scheduler or the client is the wall, not the GPU.
pub fn host_bound(window: &[GpuSample], running_mean: Option<f64>) -> Outcome {
    let rule = Rule::HostBound;
    let silent = |missing: String| Outcome::Silent { rule, missing };
    let Some(running) = running_mean else {
        return silent("no running-request count from the engine for the window".into());
    };
    // SM activity, or the engine activity where the exporter does not export SM_ACTIVE (its
    // default dcp-metrics-included.csv mutes it): an engine that is idle has idle SMs, so a low
    // engine activity bounds the SM activity from above.
    let sm_figure = if window.iter().any(|s| s.sm_active.is_some()) {
        "SM activity"
    } else {
        "engine activity (GR_ENGINE_ACTIVE, an upper bound of SM activity)"
    };
    let pairs: Vec<(f64, f64)> = window
        .iter()
        .filter_map(|s| Some((s.sm_active.or(s.gr_engine_active)?, s.dram_active?)))
        .collect();
    if pairs.is_empty() {
        return silent(
            "no SM (or engine) and DRAM activity (DCGM_FI_PROF_SM_ACTIVE or \
             DCGM_FI_PROF_GR_ENGINE_ACTIVE, and DCGM_FI_PROF_DRAM_ACTIVE: the exporter's \
             profiling counters; nvidia-smi has none)"
                .into(),
        );
    }
    if pairs.len() < MIN_READINGS {
        return silent(format!(
            "{} readings with SM and DRAM activity, fewer than MIN_READINGS {MIN_READINGS}",
            pairs.len()
        ));
    }
    let sm = median(&pairs.iter().map(|p| p.0).collect::<Vec<_>>()).unwrap_or(0.0);
    let dram = median(&pairs.iter().map(|p| p.1).collect::<Vec<_>>()).unwrap_or(0.0);
    let evidence = vec![
        Evidence::against(
            "requests running (engine, mean over the window)",
            running,
            "HOST_BOUND_RUNNING",
            HOST_BOUND_RUNNING,
            false,
        ),
        Evidence::against(
            &format!("{sm_figure} (median of {} readings)", pairs.len()),
            sm,
            "HOST_BOUND_SM_ACTIVE",
            HOST_BOUND_SM_ACTIVE,
            true,
        ),
        Evidence::against(
            &format!("DRAM activity (median of {} readings)", pairs.len()),
            dram,
            "HOST_BOUND_DRAM_ACTIVE",
            HOST_BOUND_DRAM_ACTIVE,
            true,
        ),
    ];
    if running >= HOST_BOUND_RUNNING && sm < HOST_BOUND_SM_ACTIVE && dram < HOST_BOUND_DRAM_ACTIVE {
        Outcome::Fired(Finding {
            rule,
            summary: format!(
                "host-bound: {running:.1} requests running while the GPU's {sm_figure} was \
                 {} and the memory interface was busy {} of the time: the GPU waits on \
                 the engine's CPU side, its scheduler or the client",
                percent(sm),
                percent(dram)
            ),
            evidence,
            ceiling_scale: None,
        })
    } else {
        Outcome::Held { rule, evidence }
    }
}

/// Measured DRAM activity beside the modelled decode share (the engine's decode rate × bytes
/// read per token ÷ the catalog bandwidth, as the caller computed it). Fires when one is more
/// than [`DRAM_MODEL_FACTOR`] times the other, and says which figures are suspect.
pub fn dram_vs_model(window: &[GpuSample], modelled_share: Option<f64>) -> Outcome {
    let rule = Rule::DramVsModel;
    let silent = |missing: String| Outcome::Silent { rule, missing };
    let Some(model) = modelled_share.filter(|m| m.is_finite() && *m > 0.0) else {
        return silent(
            "no modelled decode share (needs a decode rate, the model and the GPU)".into(),
        );
    };
    let dram: Vec<f64> = window.iter().filter_map(|s| s.dram_active).collect();
    if dram.is_empty() {
        return silent("no DRAM activity (DCGM_FI_PROF_DRAM_ACTIVE; nvidia-smi has none)".into());
    }
    if dram.len() < MIN_READINGS {
        return silent(format!(
            "{} readings with DRAM activity, fewer than MIN_READINGS {MIN_READINGS}",
            dram.len()
        ));
    }
    let measured = median(&dram).unwrap_or(0.0);
    let ratio = if model > 0.0 {
        measured / model
    } else {
        f64::INFINITY
    };
    let evidence = vec![
        Evidence {
            figure: "modelled decode share of the catalog bandwidth".into(),
            measured: model,
            threshold: None,
            threshold_value: None,
            text: format!("modelled decode share {:.2} (derived)", model),
        },
        Evidence::against(
            &format!(
                "measured DRAM activity (median of {} readings) / modelled share",
                dram.len()
            ),
            ratio.max(1.0 / ratio.max(f64::MIN_POSITIVE)),
            "DRAM_MODEL_FACTOR",
            DRAM_MODEL_FACTOR,
            false,
        ),
    ];
    let suspect = if ratio > DRAM_MODEL_FACTOR {
        Some(format!(
            "the memory interface is busier ({}) than the modelled decode needs ({}): \
             the engine reads more than the weights (KV cache at long context, activations, \
             other work on the GPU), or the bits per weight or the decode rate is undercounted",
            percent(measured),
            percent(model)
        ))
    } else if ratio < 1.0 / DRAM_MODEL_FACTOR {
        Some(format!(
            "the modelled decode share ({}) is more than the memory interface shows \
             ({}): the catalog bandwidth is too low for this part (a wrong entry), the bits \
             per weight is overcounted, or the decode rate was not all this GPU's (tensor \
             parallel)",
            percent(model),
            percent(measured)
        ))
    } else {
        None
    };
    match suspect {
        Some(summary) => Outcome::Fired(Finding {
            rule,
            summary,
            evidence,
            ceiling_scale: None,
        }),
        None => Outcome::Held { rule, evidence },
    }
}
