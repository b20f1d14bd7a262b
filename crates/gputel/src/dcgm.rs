//! A DCGM exporter exposition (https://github.com/NVIDIA/dcgm-exporter) read into one
//! [`GpuSample`] per GPU or MIG instance.
//!
//! Series are grouped by the labels that name one device: `Hostname`, `UUID`, `gpu` and MIG's
//! `GPU_I_ID`. A MIG instance's series and its parent GPU's whole-device series are two samples.
//! Pod labels (`namespace`, `pod`, `container`, added in the exporter's Kubernetes mode) are
//! collected per device, not used to split it. Series without a `gpu` or `UUID` label name no
//! device and are counted in [`Reading::unlabelled`].
//!
//! DCGM writes a "blank" sentinel where a field could not be read: `DCGM_INT32_BLANK`
//! 0x7ffffff0, `DCGM_INT64_BLANK` 0x7ffffffffffffff0 and `DCGM_FP64_BLANK` 2^47, each followed by
//! up to 15 more codes (NVIDIA/DCGM, dcgmlib/dcgm_structs.h). Those values read as `None`.

use crate::{ClockEvents, GpuSample, GputelError, PodRef, Source};
use engines::prom::{self, Exposition, PromSample, Truncation};
use serde::Serialize;

/// The figure a DCGM series fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    SmClock,
    SmClockMax,
    MemClock,
    Power,
    PowerLimit,
    Temp,
    DramActive,
    SmActive,
    TensorActive,
    GrEngineActive,
    PcieTx,
    PcieRx,
    NvlinkTx,
    NvlinkRx,
    GpuUtil,
    MemCopyUtil,
    FbUsed,
    FbFree,
    ClockEvents,
}

/// Every DCGM series read, with its field. Where two names fill one field, the newer name is
/// first and wins when a body carries both. Names and units: DCGM's field list
/// (https://docs.nvidia.com/datacenter/dcgm/latest/dcgm-api/dcgm-api-field-ids.html) and the
/// exporter's etc/default-counters.csv and etc/dcp-metrics-included.csv.
pub const FIELDS: &[(&str, Field)] = &[
    ("DCGM_FI_DEV_SM_CLOCK", Field::SmClock),
    ("DCGM_FI_DEV_MAX_SM_CLOCK", Field::SmClockMax),
    ("DCGM_FI_DEV_MEM_CLOCK", Field::MemClock),
    ("DCGM_FI_DEV_POWER_USAGE", Field::Power),
    ("DCGM_FI_DEV_POWER_MGMT_LIMIT", Field::PowerLimit),
    ("DCGM_FI_DEV_ENFORCED_POWER_LIMIT", Field::PowerLimit),
    ("DCGM_FI_DEV_GPU_TEMP", Field::Temp),
    ("DCGM_FI_PROF_DRAM_ACTIVE", Field::DramActive),
    ("DCGM_FI_PROF_SM_ACTIVE", Field::SmActive),
    ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", Field::TensorActive),
    ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", Field::GrEngineActive),
    ("DCGM_FI_PROF_PCIE_TX_BYTES", Field::PcieTx),
    ("DCGM_FI_PROF_PCIE_RX_BYTES", Field::PcieRx),
    ("DCGM_FI_PROF_NVLINK_TX_BYTES", Field::NvlinkTx),
    ("DCGM_FI_PROF_NVLINK_RX_BYTES", Field::NvlinkRx),
    ("DCGM_FI_DEV_GPU_UTIL", Field::GpuUtil),
    ("DCGM_FI_DEV_MEM_COPY_UTIL", Field::MemCopyUtil),
    ("DCGM_FI_DEV_FB_USED", Field::FbUsed),
    ("DCGM_FI_DEV_FB_FREE", Field::FbFree),
    ("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", Field::ClockEvents),
    ("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", Field::ClockEvents),
];

/// What one exposition held.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Reading {
    /// One sample per device, in the order the body first names each.
    pub gpus: Vec<GpuSample>,
    /// DCGM samples that name no device (no `gpu` and no `UUID` label).
    pub unlabelled: usize,
    /// Set when the body was cut short (its last family dropped).
    pub truncated: Option<Truncation>,
}

/// DCGM's blank sentinels (dcgmlib/dcgm_structs.h): each base and the 15 codes after it.
pub fn is_blank(v: f64) -> bool {
    const INT32_BLANK: f64 = 2_147_483_632.0; // 0x7ffffff0
    const FP64_BLANK: f64 = 140_737_488_355_328.0; // 2^47
    !v.is_finite()
        || (INT32_BLANK..=INT32_BLANK + 15.0).contains(&v)
        || (FP64_BLANK..=FP64_BLANK + 15.0).contains(&v)
        // DCGM_INT64_BLANK (0x7ffffffffffffff0) and its codes all round to 2^63 as f64.
        || v >= 9.2e18
}

/// Parses a DCGM exporter body; `input` names it in errors.
pub fn read(text: &str, input: &str) -> Result<Reading, GputelError> {
    let expo = prom::parse(text).map_err(|source| GputelError::Prom {
        input: input.to_string(),
        source,
    })?;
    let reading = from_exposition(&expo);
    if reading.gpus.is_empty() {
        return Err(GputelError::NoDcgm {
            input: input.to_string(),
        });
    }
    Ok(reading)
}

/// A series' labels, wherever it was read: a scraped body's sample, or a store's answer.
pub trait Labels {
    fn label(&self, key: &str) -> Option<&str>;
}

impl Labels for PromSample {
    fn label(&self, key: &str) -> Option<&str> {
        PromSample::label(self, key)
    }
}

impl Labels for std::collections::BTreeMap<String, String> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

/// The devices of an already parsed exposition (a body that also carries other series is fine:
/// only `DCGM_FI_*` series are read).
pub fn from_exposition(expo: &Exposition) -> Reading {
    let items: Vec<(&str, &PromSample, f64)> = expo
        .samples()
        .map(|s| (s.name.as_str(), s, s.value))
        .collect();
    let (gpus, unlabelled) = from_series(&items);
    Reading {
        gpus,
        unlabelled,
        truncated: expo.truncated.clone(),
    }
}

/// The devices named by `(series name, labels, value)` items of one reading, in the order the
/// items first name each, and how many `DCGM_FI_*` items named no device. Series other than
/// `DCGM_FI_*` are ignored. The one reader behind a scraped body and a store's answer at one
/// time.
pub fn from_series<L: Labels>(items: &[(&str, &L, f64)]) -> (Vec<GpuSample>, usize) {
    let mut gpus: Vec<GpuSample> = Vec::new();
    let mut index: std::collections::HashMap<Key, usize> = std::collections::HashMap::new();
    let mut unlabelled = 0;
    // Each item's device, found once (a store's answer holds every field of every GPU).
    let mut device_of: Vec<Option<usize>> = vec![None; items.len()];
    for (i, (name, s, _)) in items.iter().enumerate() {
        if !name.starts_with("DCGM_FI_") {
            continue;
        }
        let Some(k) = key(*s) else {
            unlabelled += 1;
            continue;
        };
        let d = *index.entry(k.clone()).or_insert_with(|| {
            let (hostname, uuid, gpu, mig_instance) = k;
            gpus.push(GpuSample {
                source: Some(Source::Dcgm),
                hostname,
                uuid,
                gpu,
                mig_instance,
                mig_profile: s.label("GPU_I_PROFILE").map(str::to_string),
                ..GpuSample::default()
            });
            gpus.len() - 1
        });
        device_of[i] = Some(d);
        let g = &mut gpus[d];
        if let Some(pod) = s.label("pod").filter(|p| !p.is_empty()) {
            let p = PodRef {
                namespace: s
                    .label("namespace")
                    .filter(|v| !v.is_empty())
                    .map(str::to_string),
                pod: pod.to_string(),
                container: s
                    .label("container")
                    .filter(|v| !v.is_empty())
                    .map(str::to_string),
            };
            if let Err(at) = g.pods.binary_search(&p) {
                g.pods.insert(at, p);
            }
        }
        if g.name.is_none() {
            g.name = s
                .label("modelName")
                .or_else(|| s.label("DCGM_FI_DEV_NAME"))
                .filter(|v| !v.is_empty())
                .map(str::to_string);
        }
        if g.instance.is_none() {
            g.instance = s.label("instance").map(str::to_string);
        }
    }
    // Figures, newest name first: a field already filled by a newer name keeps its value.
    let mut ranked: Vec<(usize, usize, usize)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, (name, _, _))| {
            let d = device_of[i]?;
            let rank = FIELDS.iter().position(|(n, _)| n == name)?;
            Some((rank, i, d))
        })
        .collect();
    ranked.sort_unstable();
    for (rank, i, d) in ranked {
        let v = items[i].2;
        if !is_blank(v) {
            fill(&mut gpus[d], FIELDS[rank].1, v);
        }
    }
    (gpus, unlabelled)
}

/// The device key of a sample: (Hostname, UUID, gpu, GPU_I_ID); `None` when it names no device.
type Key = (Option<String>, Option<String>, Option<u32>, Option<u32>);

fn key<L: Labels + ?Sized>(s: &L) -> Option<Key> {
    let uuid = s
        .label("UUID")
        .filter(|v| !v.is_empty())
        .map(str::to_string);
    let gpu = s.label("gpu").and_then(|v| v.trim().parse::<u32>().ok());
    if uuid.is_none() && gpu.is_none() {
        return None;
    }
    let host = s
        .label("Hostname")
        .or_else(|| s.label("hostname"))
        .filter(|v| !v.is_empty())
        .map(str::to_string);
    let mig = s
        .label("GPU_I_ID")
        .and_then(|v| v.trim().parse::<u32>().ok());
    Some((host, uuid, gpu, mig))
}

fn fill(g: &mut GpuSample, field: Field, v: f64) {
    let slot = match field {
        Field::SmClock => &mut g.sm_clock_mhz,
        Field::SmClockMax => &mut g.sm_clock_max_mhz,
        Field::MemClock => &mut g.mem_clock_mhz,
        Field::Power => &mut g.power_w,
        Field::PowerLimit => &mut g.power_limit_w,
        Field::Temp => &mut g.temp_c,
        Field::DramActive => &mut g.dram_active,
        Field::SmActive => &mut g.sm_active,
        Field::TensorActive => &mut g.tensor_active,
        Field::GrEngineActive => &mut g.gr_engine_active,
        Field::PcieTx => &mut g.pcie_tx_bytes_per_s,
        Field::PcieRx => &mut g.pcie_rx_bytes_per_s,
        Field::NvlinkTx => &mut g.nvlink_tx_bytes_per_s,
        Field::NvlinkRx => &mut g.nvlink_rx_bytes_per_s,
        Field::GpuUtil => &mut g.gpu_util_pct,
        Field::MemCopyUtil => &mut g.mem_copy_util_pct,
        Field::FbUsed => &mut g.fb_used_mib,
        Field::FbFree => &mut g.fb_free_mib,
        Field::ClockEvents => {
            if g.clock_events.is_none() {
                g.clock_events = ClockEvents::from_value(v);
            }
            return;
        }
    };
    if slot.is_none() {
        *slot = Some(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_read_as_missing() {
        for v in [
            2_147_483_632.0,
            2_147_483_647.0,
            140_737_488_355_328.0,
            140_737_488_355_331.0,
            9_223_372_036_854_775_794.0,
            f64::NAN,
        ] {
            assert!(is_blank(v), "{v}");
        }
        for v in [0.0, 0.69, 1410.0, 409.692, 97_863_601.0, 2_147_483_631.0] {
            assert!(!is_blank(v), "{v}");
        }
    }

    #[test]
    fn newer_name_wins_and_blank_is_skipped() {
        let body = "DCGM_FI_DEV_CLOCKS_EVENT_REASONS{gpu=\"0\",UUID=\"GPU-a\"} 4\n\
                    DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{gpu=\"0\",UUID=\"GPU-a\"} 1\n\
                    DCGM_FI_DEV_MEMORY_TEMP{gpu=\"0\",UUID=\"GPU-a\"} 9223372036854775794\n\
                    DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-a\"} 9223372036854775794\n\
                    DCGM_FI_DEV_SM_CLOCK{gpu=\"0\",UUID=\"GPU-a\"} 1410\n\
                    DCGM_FI_DEV_SM_CLOCK 99\n";
        let r = read(body, "t").unwrap();
        assert_eq!(r.gpus.len(), 1);
        let g = &r.gpus[0];
        assert_eq!(g.clock_events, Some(ClockEvents(4)));
        assert_eq!(g.temp_c, None);
        assert_eq!(g.sm_clock_mhz, Some(1410.0));
        assert_eq!(r.unlabelled, 1);
    }

    #[test]
    fn a_body_without_dcgm_devices_is_an_error_naming_the_input() {
        let e = read("vllm:num_requests_running 3\n", "http://x/metrics").unwrap_err();
        assert!(e.to_string().contains("http://x/metrics"), "{e}");
        assert!(e.to_string().contains("no DCGM series"), "{e}");
        let e = read("<html>\n", "f.prom").unwrap_err();
        assert!(e.to_string().starts_with("f.prom: "), "{e}");
    }
}
