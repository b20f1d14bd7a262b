//! The `gpu_telemetry` section of the diagnose document, as typed structs: a leaf, so the
//! report can hold it without reaching the judge that [`crate::gpu`] calls.

use serde::{Deserialize, Serialize};

/// What labels the compute-bound ceiling scaled by the throttled finding's clock share, wherever
/// it prints.
pub const SCALED_LABEL: &str = "prefill ceiling × measured/max SM clock";

/// The `gpu_telemetry` section of the diagnose document.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GpuTelemetry {
    /// "dcgm" or "nvidia-smi".
    pub source: String,
    /// The file, URL or command read.
    pub input: String,
    /// Readings read in all (one per GPU per scrape or row).
    pub readings: usize,
    /// Readings judged: those inside the window.
    pub in_window: usize,
    /// How readings were matched to the window: `clock` (by time), or `whole capture` (a
    /// capture whose clock does not overlap the window read as UTC: all of it is taken, and
    /// `alignment_note` says so).
    pub alignment: String,
    pub alignment_note: Option<String>,
    /// The GPU model the telemetry names, as printed (DCGM's modelName, nvidia-smi's name).
    pub named: Option<String>,
    /// Why the named GPU was not taken for the ceiling (several models, not catalogued, or
    /// `--gpu` given); null when it was taken or nothing was named.
    pub name_note: Option<String>,
    /// The decode share of the catalog bandwidth the model predicts: generation per running
    /// sequence over the one-sequence decode ceiling (weights only, no KV reads); the figure
    /// each device's DRAM activity is set beside. Null without a decode rate and a ceiling.
    #[serde(default)]
    pub modelled_dram_share: Option<f64>,
    /// One entry per GPU (or MIG instance).
    pub devices: Vec<GpuDevice>,
}

/// One GPU's readings over the window and its findings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GpuDevice {
    /// `host gpu N (MIG i)`, or the UUID.
    pub label: String,
    pub name: Option<String>,
    pub uuid: Option<String>,
    pub readings: usize,
    /// Medians over the window's readings; null when the source does not carry the figure.
    pub sm_clock_mhz: Option<f64>,
    pub sm_clock_max_mhz: Option<f64>,
    pub power_w: Option<f64>,
    pub power_limit_w: Option<f64>,
    /// The highest reading.
    pub temp_c_max: Option<f64>,
    pub dram_active: Option<f64>,
    pub sm_active: Option<f64>,
    pub gr_engine_active: Option<f64>,
    /// GPU_UTIL / utilization.gpu: the share of time any kernel ran. Shown because people look
    /// for it; not a measure of load (one small kernel reads 100 %), and no finding reads it as
    /// one (docs/gpu-telemetry.md).
    pub gpu_util_pct: Option<f64>,
    pub findings: Vec<GpuFinding>,
}

/// One `gputel` finding on one device.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GpuFinding {
    /// `throttled`, `host_bound`, `dram_vs_model`.
    pub rule: String,
    /// `fired`, `held` (the data was there and the finding does not hold) or `silent` (the
    /// telemetry lacks what it needs; `missing` says what).
    pub outcome: String,
    pub summary: Option<String>,
    /// Each figure against its threshold, as a sentence.
    pub evidence: Vec<String>,
    pub missing: Option<String>,
    /// Throttled: the busy readings' median SM clock over its maximum.
    pub clock_scale: Option<f64>,
    /// Throttled: the ceiling's prefill prompts/s × `clock_scale`, labelled by `scaled_label`;
    /// null when the prefill ceiling is unknown.
    pub scaled_prefill_prompts_per_s: Option<f64>,
    /// [`SCALED_LABEL`] when a ceiling was scaled.
    pub scaled_label: Option<String>,
}
