//! The `headroom.trace/1` document: a [`Report`] and its [`Verdict`] in the figures the
//! command prints (µs, percentages, per-token rates), typed so that readers deserialize it.

use serde::{Deserialize, Serialize};

use crate::input::Encoding;
use crate::{DeviceCat, Report, StopKind, Verdict, WallSource, PLAN_THRESHOLD};

pub const SCHEMA: &str = "headroom.trace/1";

/// How device time is grouped for the table and the CSV (the document lists every grouping).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Grouping {
    /// Full name as in the trace: template arguments are the tuning signal.
    Name,
    /// Demangled, template and argument lists removed: one row per kernel family.
    Symbol,
    /// Per (device, stream).
    Stream,
    /// Per device, with its busy time and span.
    Device,
}

impl Grouping {
    pub fn as_str(self) -> &'static str {
        match self {
            Grouping::Name => "name",
            Grouping::Symbol => "symbol",
            Grouping::Stream => "stream",
            Grouping::Device => "device",
        }
    }
}

/// What the document is asked to hold besides the report.
#[derive(Debug, Clone, Copy)]
pub struct DocOptions {
    pub by: Grouping,
    /// Rows per ranking (`None`: all of them).
    pub top: Option<usize>,
    /// Tokens generated in the profiled window: adds ms/token.
    pub tokens: Option<u64>,
}

/// Nanoseconds as microseconds.
pub fn us(ns: i64) -> f64 {
    ns as f64 / 1e3
}

/// `part` as a percentage of `whole` (0 when `whole` is empty).
pub fn percent(part: i64, whole: i64) -> f64 {
    if whole > 0 {
        part as f64 * 100.0 / whole as f64
    } else {
        0.0
    }
}

/// Milliseconds per generated token, when tokens were given.
pub fn per_token(ns: i64, tokens: Option<u64>) -> Option<f64> {
    tokens
        .filter(|&t| t > 0)
        .map(|t| ns as f64 / 1e6 / t as f64)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceDoc {
    pub schema: String,
    pub file: String,
    pub encoding: String,
    pub json_bytes: u64,
    pub events: u64,
    pub complete: bool,
    pub stopped: Option<Stopped>,
    pub vendor: String,
    pub vendor_evidence: String,
    pub by: String,
    pub window: Option<WindowDoc>,
    pub device_total_us: f64,
    pub busy_us: f64,
    pub overlap_us: f64,
    pub span_us: Option<f64>,
    pub first_us: Option<f64>,
    pub last_end_us: Option<f64>,
    pub busy_fraction: Option<f64>,
    pub counts: Counts,
    pub kernels_total: usize,
    pub kernels: Vec<KernelRow>,
    pub symbols: Vec<SymbolRow>,
    pub streams: Vec<StreamRow>,
    pub devices: Vec<DeviceRow>,
    pub annotation: Annotations,
    pub runtime: Runtime,
    pub overhead: CountTotal,
    pub cuda_sync: CountTotal,
    pub steps: Vec<StepDoc>,
    pub flows: Flows,
    pub census: Vec<CensusRow>,
    pub malformed: Malformed,
    pub verdict: Option<VerdictDoc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stopped {
    pub kind: String,
    pub byte_offset: u64,
    pub event_index: u64,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowDoc {
    pub first_step: u64,
    pub last_step: u64,
    pub start_us: f64,
    pub end_us: f64,
    pub duration_us: f64,
    pub device_events_outside: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    pub kernel: u64,
    pub gpu_memcpy: u64,
    pub gpu_memset: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelRow {
    pub name: String,
    pub symbol: String,
    pub cat: String,
    pub total_us: f64,
    pub count: u64,
    pub us_per_call: f64,
    pub min_us: f64,
    pub max_us: f64,
    pub percent: f64,
    pub ms_per_token: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SymbolRow {
    pub symbol: String,
    pub cat: String,
    pub names: u64,
    pub total_us: f64,
    pub count: u64,
    pub us_per_call: f64,
    pub min_us: f64,
    pub max_us: f64,
    pub percent: f64,
    pub ms_per_token: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamRow {
    pub device: i64,
    pub stream: i64,
    pub total_us: f64,
    pub count: u64,
    pub us_per_call: f64,
    pub percent: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceRow {
    pub device: i64,
    pub name: Option<String>,
    pub total_us: f64,
    pub count: u64,
    pub busy_us: f64,
    pub first_us: f64,
    pub last_end_us: f64,
    pub span_us: f64,
    pub busy_fraction: f64,
    pub streams: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Annotations {
    pub count: u64,
    pub total_us: f64,
    pub inflation: Option<f64>,
    pub largest: Option<LargestAnnotation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LargestAnnotation {
    pub name: String,
    pub count: u64,
    pub total_us: f64,
    pub naive_percent: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountTotal {
    pub count: u64,
    pub total_us: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calls {
    pub count: u64,
    pub total_us: f64,
    pub us_per_call: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Runtime {
    pub launch: Calls,
    pub sync: Calls,
    pub memory: Calls,
    pub other: Calls,
    pub hip_calls: u64,
    pub cuda_calls: u64,
    pub cuda_driver_events: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepDoc {
    pub number: u64,
    pub start_us: f64,
    pub dur_us: f64,
    pub on_device: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flows {
    pub category: Option<String>,
    pub count: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CensusRow {
    pub ph: String,
    pub cat: String,
    pub count: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Malformed {
    pub count: u64,
    pub first_byte_offset: Option<u64>,
    pub first_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerdictDoc {
    pub wall_us: f64,
    pub wall_source: String,
    pub kernel_us: f64,
    pub devices: u64,
    pub ratio: f64,
    pub threshold: f64,
    pub plan: bool,
    pub tokens: Option<u64>,
    pub kernel_ms_per_token: Option<f64>,
    pub wall_ms_per_token: Option<f64>,
    pub tokens_per_s: Option<f64>,
    pub text: String,
}

fn calls(s: &crate::Stats) -> Calls {
    Calls {
        count: s.count,
        total_us: us(s.total_ns),
        us_per_call: s.mean_ns().map(|m| m / 1e3),
    }
}

impl TraceDoc {
    /// The document of one analysed trace; `file` is the name it was given by.
    pub fn new(
        file: &str,
        encoding: Encoding,
        r: &Report,
        v: Option<&Verdict>,
        o: DocOptions,
    ) -> Self {
        let total = r.device_total_ns;
        let top = o.top.unwrap_or(usize::MAX);
        let count_of = |cat: DeviceCat| {
            r.names
                .iter()
                .filter(|n| n.cat == cat)
                .map(|n| n.stats.count)
                .sum()
        };
        let flows = ["ac2g", "async_cpu_to_gpu"]
            .iter()
            .filter_map(|c| {
                let n: u64 = r
                    .census
                    .iter()
                    .filter(|e| e.cat == *c && (e.ph == "s" || e.ph == "f"))
                    .map(|e| e.count)
                    .sum();
                (n > 0).then(|| (c.to_string(), n))
            })
            .max_by_key(|x| x.1);
        TraceDoc {
            schema: SCHEMA.to_string(),
            file: file.to_string(),
            encoding: encoding.as_str().to_string(),
            json_bytes: r.bytes,
            events: r.events,
            complete: r.stopped.is_none(),
            stopped: r.stopped.as_ref().map(|s| Stopped {
                kind: match s.kind {
                    StopKind::Truncated { .. } => "truncated",
                    StopKind::Invalid { .. } => "invalid",
                    StopKind::TooLarge => "too_large",
                }
                .to_string(),
                byte_offset: s.offset,
                event_index: s.events,
                reason: s.to_string(),
            }),
            vendor: r.vendor.as_str().to_string(),
            vendor_evidence: r.vendor_evidence.clone(),
            by: o.by.as_str().to_string(),
            window: r.window.map(|w| WindowDoc {
                first_step: w.steps.first,
                last_step: w.steps.last,
                start_us: us(w.start_ns),
                end_us: us(w.end_ns),
                duration_us: us(w.end_ns - w.start_ns),
                device_events_outside: r.outside_window,
            }),
            device_total_us: us(total),
            busy_us: us(r.busy_ns),
            overlap_us: us(total - r.busy_ns),
            span_us: r.span.map(|(a, b)| us(b - a)),
            first_us: r.span.map(|(a, _)| us(a)),
            last_end_us: r.span.map(|(_, b)| us(b)),
            busy_fraction: r.span.and_then(|(a, b)| {
                let cap = (b - a) as f64 * r.devices.len() as f64;
                (cap > 0.0).then(|| r.busy_ns as f64 / cap)
            }),
            counts: Counts {
                kernel: count_of(DeviceCat::Kernel),
                gpu_memcpy: count_of(DeviceCat::Memcpy),
                gpu_memset: count_of(DeviceCat::Memset),
            },
            kernels_total: r.names.len(),
            kernels: r
                .names
                .iter()
                .take(top)
                .map(|n| KernelRow {
                    name: n.name.clone(),
                    symbol: n.symbol.clone(),
                    cat: n.cat.as_str().to_string(),
                    total_us: us(n.stats.total_ns),
                    count: n.stats.count,
                    us_per_call: n.stats.mean_ns().unwrap_or(0.0) / 1e3,
                    min_us: us(n.stats.min_ns),
                    max_us: us(n.stats.max_ns),
                    percent: percent(n.stats.total_ns, total),
                    ms_per_token: per_token(n.stats.total_ns, o.tokens),
                })
                .collect(),
            symbols: r
                .symbols
                .iter()
                .take(top)
                .map(|s| SymbolRow {
                    symbol: s.symbol.clone(),
                    cat: s.cat.as_str().to_string(),
                    names: s.names,
                    total_us: us(s.stats.total_ns),
                    count: s.stats.count,
                    us_per_call: s.stats.mean_ns().unwrap_or(0.0) / 1e3,
                    min_us: us(s.stats.min_ns),
                    max_us: us(s.stats.max_ns),
                    percent: percent(s.stats.total_ns, total),
                    ms_per_token: per_token(s.stats.total_ns, o.tokens),
                })
                .collect(),
            streams: r
                .streams
                .iter()
                .take(top)
                .map(|s| StreamRow {
                    device: s.device,
                    stream: s.stream,
                    total_us: us(s.stats.total_ns),
                    count: s.stats.count,
                    us_per_call: s.stats.mean_ns().unwrap_or(0.0) / 1e3,
                    percent: percent(s.stats.total_ns, total),
                })
                .collect(),
            devices: r
                .devices
                .iter()
                .map(|d| DeviceRow {
                    device: d.device,
                    name: d.name.clone(),
                    total_us: us(d.stats.total_ns),
                    count: d.stats.count,
                    busy_us: us(d.busy_ns),
                    first_us: us(d.first_ns),
                    last_end_us: us(d.last_end_ns),
                    span_us: us(d.last_end_ns - d.first_ns),
                    busy_fraction: if d.last_end_ns > d.first_ns {
                        d.busy_ns as f64 / (d.last_end_ns - d.first_ns) as f64
                    } else {
                        0.0
                    },
                    streams: d.streams,
                })
                .collect(),
            annotation: Annotations {
                count: r.annotations.stats.count,
                total_us: us(r.annotations.stats.total_ns),
                inflation: r.annotation_inflation(),
                largest: r
                    .annotations
                    .by_name
                    .first()
                    .map(|(name, s)| LargestAnnotation {
                        name: name.clone(),
                        count: s.count,
                        total_us: us(s.total_ns),
                        naive_percent: percent(s.total_ns, total + r.annotations.stats.total_ns),
                    }),
            },
            runtime: Runtime {
                launch: calls(&r.runtime.launch),
                sync: calls(&r.runtime.sync),
                memory: calls(&r.runtime.memory),
                other: calls(&r.runtime.other),
                hip_calls: r.runtime.hip_calls,
                cuda_calls: r.runtime.cuda_calls,
                cuda_driver_events: r.runtime.driver_events,
            },
            overhead: CountTotal {
                count: r.overhead.count,
                total_us: us(r.overhead.total_ns),
            },
            cuda_sync: CountTotal {
                count: r.cuda_sync.count,
                total_us: us(r.cuda_sync.total_ns),
            },
            steps: r
                .steps
                .iter()
                .map(|s| StepDoc {
                    number: s.number,
                    start_us: us(s.ts_ns),
                    dur_us: us(s.dur_ns),
                    on_device: s.on_device,
                })
                .collect(),
            flows: Flows {
                count: flows.as_ref().map_or(0, |f| f.1),
                category: flows.map(|f| f.0),
            },
            census: r
                .census
                .iter()
                .map(|e| CensusRow {
                    ph: e.ph.clone(),
                    cat: e.cat.clone(),
                    count: e.count,
                })
                .collect(),
            malformed: Malformed {
                count: r.malformed.count,
                first_byte_offset: r.malformed.first.map(|f| f.0),
                first_reason: r.malformed.first.map(|f| f.1.to_string()),
            },
            verdict: v.map(|v| VerdictDoc {
                wall_us: us(v.wall_ns),
                wall_source: match v.wall_source {
                    WallSource::Steps { .. } => "profiler_steps",
                    WallSource::DeviceSpan => "device_span",
                }
                .to_string(),
                kernel_us: us(v.kernel_ns),
                devices: v.devices,
                ratio: v.ratio,
                threshold: PLAN_THRESHOLD,
                plan: v.plan,
                tokens: v.tokens,
                kernel_ms_per_token: v.kernel_ms_per_token,
                wall_ms_per_token: v.wall_ms_per_token,
                tokens_per_s: v.tokens_per_s,
                text: v.text.clone(),
            }),
        }
    }
}
