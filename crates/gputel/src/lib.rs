//! The GPU's own telemetry, read into one typed sample per GPU (or MIG instance) per reading.
//!
//! Two sources fill the same [`GpuSample`]:
//! - a DCGM exporter `/metrics` body ([`dcgm::read`]), parsed by [`engines::prom::parse`];
//! - an `nvidia-smi --query-gpu=... --format=csv` capture ([`smi::read`]), for hosts without DCGM.
//!
//! What each figure means, and why `GPU_UTIL` is kept but never used as a measure of how busy
//! the GPU is, is in docs/gpu-telemetry.md. The rules that read the samples are in
//! [`findings`]; the GPU's name is resolved against the catalog by [`name`].

pub mod dcgm;
pub mod findings;
pub mod name;
pub mod reasons;
pub mod smi;

pub use findings::{Evidence, Finding, Outcome, Rule};
pub use reasons::ClockEvents;

use serde::Serialize;

/// Where a sample was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// A DCGM exporter exposition.
    Dcgm,
    /// An `nvidia-smi --query-gpu` CSV row.
    NvidiaSmi,
}

impl Source {
    /// The provenance word a figure taken from this source carries ("dcgm", "nvidia-smi").
    pub fn provenance(self) -> &'static str {
        match self {
            Source::Dcgm => "dcgm",
            Source::NvidiaSmi => "nvidia-smi",
        }
    }
}

/// A pod a DCGM series was attributed to (dcgm-exporter's Kubernetes mode adds these labels).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct PodRef {
    pub namespace: Option<String>,
    pub pod: String,
    pub container: Option<String>,
}

/// One GPU (or one MIG instance) at one reading. Every figure is `None` when the source did not
/// carry it; nothing is filled in from elsewhere.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct GpuSample {
    pub source: Option<Source>,
    /// Seconds (nvidia-smi's `timestamp` column, read as a naive civil time); `None` for a DCGM
    /// body, whose time is the scrape's.
    pub t_s: Option<f64>,
    /// The marketing name: DCGM's `modelName` label (or `DCGM_FI_DEV_NAME`), nvidia-smi's `name`.
    pub name: Option<String>,
    pub uuid: Option<String>,
    /// The GPU index on its host: DCGM's `gpu` label, nvidia-smi's `index`.
    pub gpu: Option<u32>,
    /// MIG GPU instance id (DCGM `GPU_I_ID`); `None` for a whole GPU.
    pub mig_instance: Option<u32>,
    /// MIG profile (DCGM `GPU_I_PROFILE`, e.g. "1g.10gb").
    pub mig_profile: Option<String>,
    /// DCGM's `Hostname` (or `hostname`) label.
    pub hostname: Option<String>,
    /// The scrape target, when the series came through Prometheus (`instance` label).
    pub instance: Option<String>,
    /// Pods the series were attributed to, sorted, without repeats.
    pub pods: Vec<PodRef>,
    /// SM clock, MHz.
    pub sm_clock_mhz: Option<f64>,
    /// The SM clock's maximum (boost) for this part, MHz.
    pub sm_clock_max_mhz: Option<f64>,
    /// Memory clock, MHz.
    pub mem_clock_mhz: Option<f64>,
    /// Board power draw, W.
    pub power_w: Option<f64>,
    /// The power management (enforced) limit, W.
    pub power_limit_w: Option<f64>,
    /// GPU temperature, °C.
    pub temp_c: Option<f64>,
    /// Share of cycles the device memory interface was busy (DCGM_FI_PROF_DRAM_ACTIVE), 0–1.
    pub dram_active: Option<f64>,
    /// Share of time at least one warp was resident on an SM, averaged over SMs, 0–1.
    pub sm_active: Option<f64>,
    /// Share of cycles the tensor pipe was busy, 0–1.
    pub tensor_active: Option<f64>,
    /// Share of time the graphics/compute engine had work, 0–1.
    pub gr_engine_active: Option<f64>,
    /// PCIe bytes per second, sent and received, headers included (DCGM_FI_PROF_PCIE_*_BYTES).
    pub pcie_tx_bytes_per_s: Option<f64>,
    pub pcie_rx_bytes_per_s: Option<f64>,
    /// NVLink bytes per second, sent and received (DCGM_FI_PROF_NVLINK_*_BYTES).
    pub nvlink_tx_bytes_per_s: Option<f64>,
    pub nvlink_rx_bytes_per_s: Option<f64>,
    /// GPU_UTIL / `utilization.gpu`, %: the share of time *any* kernel ran. Kept because users
    /// look for it; misleading as a measure of load (one small kernel reads 100 %), so no rule
    /// reads it as one. See docs/gpu-telemetry.md.
    pub gpu_util_pct: Option<f64>,
    /// MEM_COPY_UTIL / `utilization.memory`, %: the share of time memory was read or written.
    pub mem_copy_util_pct: Option<f64>,
    /// Framebuffer used and free, MiB.
    pub fb_used_mib: Option<f64>,
    pub fb_free_mib: Option<f64>,
    /// Clock-event (throttle) reasons active at the reading.
    pub clock_events: Option<ClockEvents>,
}

impl GpuSample {
    /// The SM clock as a share of its maximum, when both are known and the maximum is positive.
    pub fn clock_share(&self) -> Option<f64> {
        match (self.sm_clock_mhz, self.sm_clock_max_mhz) {
            (Some(c), Some(m)) if m > 0.0 => Some(c / m),
            _ => None,
        }
    }

    /// A short label naming the GPU: `host gpu N (MIG i)` with what is known.
    pub fn label(&self) -> String {
        let mut s = String::new();
        if let Some(h) = &self.hostname {
            s.push_str(h);
            s.push(' ');
        }
        match self.gpu {
            Some(g) => s.push_str(&format!("gpu {g}")),
            None => s.push_str(self.uuid.as_deref().unwrap_or("gpu ?")),
        }
        if let Some(i) = self.mig_instance {
            s.push_str(&format!(" MIG {i}"));
        }
        s
    }
}

/// Errors reading a capture.
#[derive(Debug, thiserror::Error)]
pub enum GputelError {
    #[error("{input}: {source}")]
    Prom {
        input: String,
        #[source]
        source: engines::prom::PromError,
    },
    #[error("{input}: no DCGM series: no DCGM_FI_* sample carries a `gpu` or `UUID` label")]
    NoDcgm { input: String },
    #[error("{input} line {line}: {reason}")]
    Smi {
        input: String,
        line: usize,
        reason: String,
    },
}
