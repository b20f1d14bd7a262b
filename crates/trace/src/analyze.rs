//! One streaming pass over a Kineto trace: device time ranked by kernel, symbol, stream and
//! device; span and busy time; the `gpu_user_annotation` trap; runtime calls; ProfilerSteps.

use crate::scan::{DeviceProperty, EventReader, RawEvent, Stop, StopKind};
use crate::symbol::symbol;
use crate::union::IntervalUnion;
use std::collections::HashMap;
use std::io::Read;

/// The device-event categories that are device time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeviceCat {
    Kernel,
    Memcpy,
    Memset,
}

impl DeviceCat {
    /// The category as Kineto writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceCat::Kernel => "kernel",
            DeviceCat::Memcpy => "gpu_memcpy",
            DeviceCat::Memset => "gpu_memset",
        }
    }
    /// Current Kineto names, and the first generation's (PyTorch 1.8, 2021: `Kernel`,
    /// `Memcpy`, `Memset`) that the TensorBoard profiler plugin also maps.
    fn from_cat(cat: &[u8]) -> Option<Self> {
        match cat {
            b"kernel" | b"Kernel" => Some(DeviceCat::Kernel),
            b"gpu_memcpy" | b"Memcpy" | b"memcpy" => Some(DeviceCat::Memcpy),
            b"gpu_memset" | b"Memset" | b"memset" => Some(DeviceCat::Memset),
            _ => None,
        }
    }
}

/// Duration statistics of a group of events, in integer nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub total_ns: i64,
    pub count: u64,
    pub min_ns: i64,
    pub max_ns: i64,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            total_ns: 0,
            count: 0,
            min_ns: i64::MAX,
            max_ns: i64::MIN,
        }
    }
}

impl Stats {
    fn add(&mut self, dur: i64) {
        self.total_ns += dur;
        self.count += 1;
        self.min_ns = self.min_ns.min(dur);
        self.max_ns = self.max_ns.max(dur);
    }
    fn merge(&mut self, o: &Stats) {
        self.total_ns += o.total_ns;
        self.count += o.count;
        self.min_ns = self.min_ns.min(o.min_ns);
        self.max_ns = self.max_ns.max(o.max_ns);
    }
    /// Mean duration per event, ns; None for an empty group.
    pub fn mean_ns(&self) -> Option<f64> {
        (self.count > 0).then(|| self.total_ns as f64 / self.count as f64)
    }
}

/// One kernel (or memcpy / memset) by its full name as written in the trace.
#[derive(Debug, Clone)]
pub struct NameRow {
    pub name: String,
    pub symbol: String,
    pub cat: DeviceCat,
    pub stats: Stats,
}

/// All full names that share one stripped symbol.
#[derive(Debug, Clone)]
pub struct SymbolRow {
    pub symbol: String,
    pub cat: DeviceCat,
    pub stats: Stats,
    /// Distinct full names (template instantiations) folded into this row.
    pub names: u64,
}

#[derive(Debug, Clone)]
pub struct StreamRow {
    pub device: i64,
    pub stream: i64,
    pub stats: Stats,
}

#[derive(Debug, Clone)]
pub struct DeviceRow {
    pub device: i64,
    /// From the trace's `deviceProperties`, when listed.
    pub name: Option<String>,
    pub stats: Stats,
    /// Union of this device's event intervals.
    pub busy_ns: i64,
    pub first_ns: i64,
    pub last_end_ns: i64,
    pub streams: u64,
}

/// `gpu_user_annotation` spans: record_function / ProfilerStep ranges replayed on the device
/// timeline. They wrap kernels, so adding them to kernel time counts that time twice.
#[derive(Debug, Clone, Default)]
pub struct Annotations {
    pub stats: Stats,
    /// By annotation name, largest total first.
    pub by_name: Vec<(String, Stats)>,
}

/// CPU-side runtime / driver API calls (`cuda_runtime`, `cuda_driver`; ROCm writes `hip*`
/// names under the same categories).
#[derive(Debug, Clone, Default)]
pub struct Runtime {
    /// Kernel launches: *LaunchKernel*, cuLaunchKernel(Ex), hipExtModuleLaunchKernel, graph launches.
    pub launch: Stats,
    /// *Synchronize calls: the host waiting for the device.
    pub sync: Stats,
    /// Memcpy / memset API calls.
    pub memory: Stats,
    pub other: Stats,
    /// Calls whose name starts with `hip`, and with `cu` (cuda* runtime, cu* driver).
    pub hip_calls: u64,
    pub cuda_calls: u64,
    /// Events in category `cuda_driver` (newer Kineto splits driver calls out of cuda_runtime).
    pub driver_events: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    Cuda,
    Rocm,
    Unknown,
}

impl Vendor {
    pub fn as_str(self) -> &'static str {
        match self {
            Vendor::Cuda => "cuda",
            Vendor::Rocm => "rocm",
            Vendor::Unknown => "unknown",
        }
    }
}

/// A `ProfilerStep#N` span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub number: u64,
    pub ts_ns: i64,
    pub dur_ns: i64,
    /// A `gpu_user_annotation` copy of the step on the device timeline, rather than the CPU
    /// `user_annotation` that defines it.
    pub on_device: bool,
}

/// Steps `first..=last`, as asked on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepRange {
    pub first: u64,
    pub last: u64,
}

/// A step range that does not read as `A..B`, `A..=B` or `#N`; the message says why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StepRangeError(String);

impl std::str::FromStr for StepRange {
    type Err = StepRangeError;

    /// `3..7` and `3..=7` (both keep steps 3 through 7), or one step: `#5` or `5`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let num = |x: &str| {
            x.trim()
                .trim_start_matches('#')
                .parse::<u64>()
                .map_err(|_| {
                    StepRangeError(format!(
                        "{x:?} is not a step number (expected A..B, e.g. 3..7)"
                    ))
                })
        };
        let (first, last) = if let Some((a, b)) = s.split_once("..=") {
            (num(a)?, num(b)?)
        } else if let Some((a, b)) = s.split_once("..") {
            (num(a)?, num(b)?)
        } else {
            let n = num(s)?;
            (n, n)
        };
        if last < first {
            return Err(StepRangeError(format!(
                "{s}: the last step is before the first"
            )));
        }
        Ok(StepRange { first, last })
    }
}

/// The time window the analysis was restricted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub steps: StepRange,
    /// Start of the CPU ProfilerStep#first, end of ProfilerStep#last.
    pub start_ns: i64,
    pub end_ns: i64,
}

/// How many events of each (ph, cat) the trace holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CensusEntry {
    pub ph: String,
    pub cat: String,
    pub count: u64,
}

/// Events that could not be used, and where the first was.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Malformed {
    pub count: u64,
    pub first: Option<(u64, &'static str)>,
}

#[derive(Debug, Clone)]
pub struct Report {
    pub vendor: Vendor,
    /// What the vendor was read from.
    pub vendor_evidence: String,
    pub device_properties: Vec<DeviceProperty>,
    pub top_level_keys: Vec<String>,
    /// Ranked by total, then name.
    pub names: Vec<NameRow>,
    pub symbols: Vec<SymbolRow>,
    pub streams: Vec<StreamRow>,
    pub devices: Vec<DeviceRow>,
    /// Sum of device-event durations (the denominator of every percent).
    pub device_total_ns: i64,
    /// Union of device intervals, per device, summed over devices.
    pub busy_ns: i64,
    /// First device-event start and last device-event end.
    pub span: Option<(i64, i64)>,
    pub annotations: Annotations,
    pub runtime: Runtime,
    /// `overhead` events (CUPTI buffer flushes, lazy function loading): profiler cost.
    pub overhead: Stats,
    /// `cuda_sync` events, placed on the device timeline but not device work.
    pub cuda_sync: Stats,
    /// Every ProfilerStep seen, CPU and device copies, in file order.
    pub steps: Vec<Step>,
    pub window: Option<Window>,
    /// Device events left out because they started outside the window.
    pub outside_window: u64,
    pub census: Vec<CensusEntry>,
    /// Events read (complete), and JSON bytes consumed.
    pub events: u64,
    pub bytes: u64,
    pub malformed: Malformed,
    /// Set when the walk ended before the end of the trace: everything above covers the
    /// complete part only.
    pub stopped: Option<Stop>,
    pub gemm_tensile: u64,
}

impl Report {
    /// (device sum + annotation sum) / device sum: what a naive sum that took
    /// gpu_user_annotation for device time would have reported, relative to the truth.
    pub fn annotation_inflation(&self) -> Option<f64> {
        (self.device_total_ns > 0).then(|| {
            (self.device_total_ns + self.annotations.stats.total_ns) as f64
                / self.device_total_ns as f64
        })
    }

    /// The CPU ProfilerSteps (the device copies left out), in file order.
    pub fn cpu_steps(&self) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(|s| !s.on_device)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("not a Kineto trace: {0}")]
    NotATrace(Stop),
    #[error("no \"traceEvents\" array in the trace (top-level keys: {0})")]
    NoEvents(String),
    #[error("ProfilerStep#{missing} is not in the trace; CPU ProfilerSteps present: {available}")]
    StepsNotFound { missing: u64, available: String },
    /// The trace lists device events before the requested ProfilerSteps, so one pass cannot
    /// window them; run [`scan_steps`] first and pass its result as `Options::known_steps`.
    #[error("the requested ProfilerSteps come after device events in the file")]
    NeedsStepPass,
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub steps: Option<StepRange>,
    /// ProfilerSteps from a [`scan_steps`] pass, so that the window is known from the start.
    pub known_steps: Option<Vec<Step>>,
}

const STEP_PREFIX: &[u8] = b"ProfilerStep#";
const CENSUS_CAP: usize = 64;

fn step_number(name: &[u8]) -> Option<u64> {
    let digits = name.strip_prefix(STEP_PREFIX)?;
    std::str::from_utf8(digits).ok()?.parse().ok()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find(hay, needle).is_some()
}

fn format_steps<'a>(steps: impl Iterator<Item = &'a Step>) -> String {
    let mut n: Vec<u64> = steps.map(|s| s.number).collect();
    n.sort_unstable();
    n.dedup();
    if n.is_empty() {
        return "none".into();
    }
    n.iter()
        .map(|x| format!("#{x}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Resolves `range` against CPU steps; Err(missing step number) when one end is absent.
fn resolve(range: StepRange, steps: &[Step]) -> Result<Window, u64> {
    let cpu = |n: u64| steps.iter().filter(move |s| !s.on_device && s.number == n);
    let start = cpu(range.first).map(|s| s.ts_ns).min().ok_or(range.first)?;
    let end = cpu(range.last)
        .map(|s| s.ts_ns + s.dur_ns)
        .max()
        .ok_or(range.last)?;
    Ok(Window {
        steps: range,
        start_ns: start,
        end_ns: end,
    })
}

#[derive(Default)]
struct DeviceAcc {
    stats: Stats,
    union: IntervalUnion,
    first: i64,
    last_end: i64,
}

struct Acc {
    opts_steps: Option<StepRange>,
    window: Option<Window>,
    names: [HashMap<Box<str>, Stats>; 3],
    streams: HashMap<(i64, i64), Stats>,
    devices: HashMap<i64, DeviceAcc>,
    annotations: HashMap<Box<str>, Stats>,
    ann_total: Stats,
    runtime: Runtime,
    overhead: Stats,
    cuda_sync: Stats,
    steps: Vec<Step>,
    outside: u64,
    census: Vec<CensusEntry>,
    malformed: Malformed,
    gemm_tensile: u64,
}

impl Acc {
    fn new(opts: &Options) -> Result<Self, TraceError> {
        let mut acc = Acc {
            opts_steps: opts.steps,
            window: None,
            names: Default::default(),
            streams: HashMap::new(),
            devices: HashMap::new(),
            annotations: HashMap::new(),
            ann_total: Stats::default(),
            runtime: Runtime::default(),
            overhead: Stats::default(),
            cuda_sync: Stats::default(),
            steps: vec![],
            outside: 0,
            census: vec![],
            malformed: Malformed::default(),
            gemm_tensile: 0,
        };
        if let (Some(range), Some(known)) = (opts.steps, &opts.known_steps) {
            acc.window =
                Some(
                    resolve(range, known).map_err(|missing| TraceError::StepsNotFound {
                        missing,
                        available: format_steps(known.iter().filter(|s| !s.on_device)),
                    })?,
                );
        }
        Ok(acc)
    }

    fn bad(&mut self, ev: &RawEvent, why: &'static str) {
        self.malformed.count += 1;
        if self.malformed.first.is_none() {
            self.malformed.first = Some((ev.offset, why));
        }
    }

    /// Whether an event starting at `ts` is inside the window (always, with no `--steps`).
    fn in_window(&mut self, ts: i64) -> Result<bool, TraceError> {
        let Some(range) = self.opts_steps else {
            return Ok(true);
        };
        if self.window.is_none() {
            // Kineto writes the CPU side first, so the steps are normally known by the first
            // device event; if not, the caller must make a steps-only pass.
            self.window = Some(resolve(range, &self.steps).map_err(|_| TraceError::NeedsStepPass)?);
        }
        let w = self.window.as_ref().expect("resolved above");
        Ok(ts >= w.start_ns && ts < w.end_ns)
    }

    fn census(&mut self, ph: &[u8], cat: &[u8]) {
        if let Some(e) = self
            .census
            .iter_mut()
            .find(|e| e.ph.as_bytes() == ph && e.cat.as_bytes() == cat)
        {
            e.count += 1;
            return;
        }
        if self.census.len() < CENSUS_CAP {
            self.census.push(CensusEntry {
                ph: String::from_utf8_lossy(ph).into_owned(),
                cat: String::from_utf8_lossy(cat).into_owned(),
                count: 1,
            });
        } else if let Some(e) = self.census.iter_mut().find(|e| e.cat == "(other)") {
            e.count += 1;
        } else {
            self.census.push(CensusEntry {
                ph: "*".into(),
                cat: "(other)".into(),
                count: 1,
            });
        }
    }

    fn event(&mut self, ev: &RawEvent) -> Result<(), TraceError> {
        let ph = ev.ph().unwrap_or(b"");
        let cat = ev.cat().unwrap_or(b"");
        self.census(ph, cat);
        if ph != b"X" {
            return Ok(());
        }
        if let Some(dc) = DeviceCat::from_cat(cat) {
            return self.device_event(ev, dc);
        }
        match cat {
            b"gpu_user_annotation" => {
                let Some((ts, dur)) = self.times(ev) else {
                    return Ok(());
                };
                if let Some(n) = ev.name_raw().and_then(step_number) {
                    self.steps.push(Step {
                        number: n,
                        ts_ns: ts,
                        dur_ns: dur,
                        on_device: true,
                    });
                }
                if self.in_window(ts)? {
                    self.ann_total.add(dur);
                    let name = ev.name().unwrap_or_default();
                    match self.annotations.get_mut(name.as_ref()) {
                        Some(s) => s.add(dur),
                        None => {
                            let mut s = Stats::default();
                            s.add(dur);
                            self.annotations
                                .insert(name.into_owned().into_boxed_str(), s);
                        }
                    }
                }
            }
            // ProfilerStep is a user_annotation now; the first generation wrote it as an
            // operator (`Operator`, later `cpu_op`).
            b"user_annotation" | b"cpu_op" | b"Operator" => {
                if let Some(n) = ev.name_raw().and_then(step_number) {
                    if let Some((ts, dur)) = self.times(ev) {
                        self.steps.push(Step {
                            number: n,
                            ts_ns: ts,
                            dur_ns: dur,
                            on_device: false,
                        });
                    }
                }
            }
            b"cuda_runtime" | b"cuda_driver" | b"Runtime" | b"runtime" => {
                let Some((ts, dur)) = self.times(ev) else {
                    return Ok(());
                };
                if !self.in_window(ts)? {
                    return Ok(());
                }
                let name = ev.name_raw().unwrap_or(b"");
                let rt = &mut self.runtime;
                if cat == b"cuda_driver" {
                    rt.driver_events += 1;
                }
                if name.starts_with(b"hip") {
                    rt.hip_calls += 1;
                } else if name.starts_with(b"cu") {
                    rt.cuda_calls += 1;
                }
                let class = if contains(name, b"LaunchKernel")
                    || contains(name, b"LaunchCooperativeKernel")
                    || name.ends_with(b"GraphLaunch")
                {
                    &mut rt.launch
                } else if contains(name, b"Synchronize") {
                    &mut rt.sync
                } else if contains(name, b"Memcpy") || contains(name, b"Memset") {
                    &mut rt.memory
                } else {
                    &mut rt.other
                };
                class.add(dur);
            }
            b"overhead" | b"cuda_sync" => {
                let Some((ts, dur)) = self.times(ev) else {
                    return Ok(());
                };
                if self.in_window(ts)? {
                    if cat == b"overhead" {
                        self.overhead.add(dur)
                    } else {
                        self.cuda_sync.add(dur)
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// (ts, dur) in ns, or None (counted as malformed) when either is missing or dur < 0.
    fn times(&mut self, ev: &RawEvent) -> Option<(i64, i64)> {
        let Some(ts) = ev.ts_ns() else {
            self.bad(ev, "missing or non-numeric ts");
            return None;
        };
        let Some(dur) = ev.dur_ns() else {
            self.bad(ev, "missing or non-numeric dur");
            return None;
        };
        if dur < 0 || ts.checked_add(dur).is_none() {
            self.bad(ev, "negative or overflowing dur");
            return None;
        }
        Some((ts, dur))
    }

    fn device_event(&mut self, ev: &RawEvent, dc: DeviceCat) -> Result<(), TraceError> {
        let Some((ts, dur)) = self.times(ev) else {
            return Ok(());
        };
        if !self.in_window(ts)? {
            self.outside += 1;
            return Ok(());
        }
        let Some(name) = ev.name() else {
            self.bad(ev, "device event without a name");
            return Ok(());
        };
        let (mut device, mut stream) = (ev.pid(), ev.tid());
        ev.args_ids(&[b"device", b"stream"], |k, v| {
            if k == 0 {
                device = Some(v)
            } else {
                stream = Some(v)
            }
        });
        let (device, stream) = (device.unwrap_or(-1), stream.unwrap_or(-1));

        let map = &mut self.names[dc as usize];
        match map.get_mut(name.as_ref()) {
            Some(s) => s.add(dur),
            None => {
                if dc == DeviceCat::Kernel && name.starts_with("Cijk_") {
                    self.gemm_tensile += 1;
                }
                let mut s = Stats::default();
                s.add(dur);
                map.insert(name.into_owned().into_boxed_str(), s);
            }
        }
        self.streams.entry((device, stream)).or_default().add(dur);
        let d = self.devices.entry(device).or_insert_with(|| DeviceAcc {
            first: i64::MAX,
            last_end: i64::MIN,
            ..Default::default()
        });
        d.stats.add(dur);
        d.union.push(ts, ts + dur);
        d.first = d.first.min(ts);
        d.last_end = d.last_end.max(ts + dur);
        Ok(())
    }

    fn finish<R: Read>(
        mut self,
        r: &EventReader<R>,
        stopped: Option<Stop>,
    ) -> Result<Report, TraceError> {
        if let (Some(range), None) = (self.opts_steps, self.window) {
            // No windowed event arrived (or the trace stopped early): resolve for the report.
            self.window =
                Some(
                    resolve(range, &self.steps).map_err(|missing| TraceError::StepsNotFound {
                        missing,
                        available: format_steps(self.steps.iter().filter(|s| !s.on_device)),
                    })?,
                );
        }
        let mut names: Vec<NameRow> = vec![];
        for (i, map) in self.names.into_iter().enumerate() {
            let cat = [DeviceCat::Kernel, DeviceCat::Memcpy, DeviceCat::Memset][i];
            for (name, stats) in map {
                let name = String::from(name);
                names.push(NameRow {
                    symbol: symbol(&name, cat == DeviceCat::Kernel),
                    name,
                    cat,
                    stats,
                });
            }
        }
        names.sort_by(|a, b| {
            b.stats
                .total_ns
                .cmp(&a.stats.total_ns)
                .then_with(|| a.name.cmp(&b.name))
        });
        let mut by_symbol: HashMap<(DeviceCat, &str), (Stats, u64)> = HashMap::new();
        for n in &names {
            let e = by_symbol
                .entry((n.cat, n.symbol.as_str()))
                .or_insert((Stats::default(), 0));
            e.0.merge(&n.stats);
            e.1 += 1;
        }
        let mut symbols: Vec<SymbolRow> = by_symbol
            .into_iter()
            .map(|((cat, sym), (stats, n))| SymbolRow {
                symbol: sym.to_string(),
                cat,
                stats,
                names: n,
            })
            .collect();
        symbols.sort_by(|a, b| {
            b.stats
                .total_ns
                .cmp(&a.stats.total_ns)
                .then_with(|| a.symbol.cmp(&b.symbol))
        });
        let mut streams: Vec<StreamRow> = self
            .streams
            .iter()
            .map(|(&(device, stream), &stats)| StreamRow {
                device,
                stream,
                stats,
            })
            .collect();
        streams.sort_by(|a, b| {
            b.stats
                .total_ns
                .cmp(&a.stats.total_ns)
                .then((a.device, a.stream).cmp(&(b.device, b.stream)))
        });
        let props = r.top.device_properties.clone();
        let mut devices: Vec<DeviceRow> = self
            .devices
            .into_iter()
            .map(|(device, mut d)| DeviceRow {
                device,
                // By id; a trace that describes a single device (one visible GPU, whose
                // index in the events is its host index) names it whatever the id.
                name: props
                    .iter()
                    .find(|p| p.id == device)
                    .or(if props.len() == 1 {
                        props.first()
                    } else {
                        None
                    })
                    .map(|p| p.name.clone()),
                stats: d.stats,
                busy_ns: d.union.total(),
                first_ns: d.first,
                last_end_ns: d.last_end,
                streams: self.streams.keys().filter(|k| k.0 == device).count() as u64,
            })
            .collect();
        devices.sort_by_key(|d| d.device);
        let device_total_ns = devices.iter().map(|d| d.stats.total_ns).sum();
        let busy_ns = devices.iter().map(|d| d.busy_ns).sum();
        let span = (!devices.is_empty()).then(|| {
            (
                devices.iter().map(|d| d.first_ns).min().unwrap_or(0),
                devices.iter().map(|d| d.last_end_ns).max().unwrap_or(0),
            )
        });
        let mut ann: Vec<(String, Stats)> = self
            .annotations
            .into_iter()
            .map(|(k, v)| (String::from(k), v))
            .collect();
        ann.sort_by(|a, b| b.1.total_ns.cmp(&a.1.total_ns).then_with(|| a.0.cmp(&b.0)));

        let (vendor, vendor_evidence) =
            vendor(&self.runtime, &r.top.keys, &props, self.gemm_tensile);
        Ok(Report {
            vendor,
            vendor_evidence,
            device_properties: props,
            top_level_keys: r.top.keys.clone(),
            names,
            symbols,
            streams,
            devices,
            device_total_ns,
            busy_ns,
            span,
            annotations: Annotations {
                stats: self.ann_total,
                by_name: ann,
            },
            runtime: self.runtime,
            overhead: self.overhead,
            cuda_sync: self.cuda_sync,
            steps: self.steps,
            window: self.window,
            outside_window: self.outside,
            census: self.census,
            events: r.events_read(),
            bytes: r.offset(),
            malformed: self.malformed,
            stopped,
            gemm_tensile: self.gemm_tensile,
        })
    }
}

fn vendor(
    rt: &Runtime,
    keys: &[String],
    props: &[DeviceProperty],
    tensile: u64,
) -> (Vendor, String) {
    if rt.hip_calls > 0 {
        let mut why = format!("{} hip* runtime calls", rt.hip_calls);
        if tensile > 0 {
            why += &format!(", {tensile} Cijk_ (Tensile/hipBLASLt) GEMM names");
        }
        return (Vendor::Rocm, why);
    }
    if rt.cuda_calls > 0 {
        return (
            Vendor::Cuda,
            format!("{} cuda*/cu* runtime and driver calls", rt.cuda_calls),
        );
    }
    for k in keys {
        if k == "roctracer_version" || k == "hip_runtime_version" {
            return (Vendor::Rocm, format!("top-level key {k}"));
        }
        if k == "cupti_version" || k == "cuda_runtime_version" {
            return (Vendor::Cuda, format!("top-level key {k}"));
        }
    }
    for p in props {
        if p.name.contains("AMD") || p.name.contains("Instinct") {
            return (Vendor::Rocm, format!("device name {:?}", p.name));
        }
        if p.name.contains("NVIDIA") || p.name.starts_with("Tesla") {
            return (Vendor::Cuda, format!("device name {:?}", p.name));
        }
    }
    (
        Vendor::Unknown,
        "no runtime calls, version keys or device names".into(),
    )
}

/// Attributes device time in one streaming pass over `src` (the decompressed JSON).
///
/// A trace that ends early (truncated, half-written, corrupt) still gives a report of its
/// complete part, with [`Report::stopped`] saying where and why it stopped. An error means no
/// report is possible: not a trace at all, or `--steps` that name absent steps.
pub fn analyze<R: Read>(src: R, opts: &Options) -> Result<Report, TraceError> {
    let mut acc = Acc::new(opts)?;
    let mut r = EventReader::new(src);
    let stopped = loop {
        match r.next_event() {
            Ok(Some(ev)) => acc.event(&ev)?,
            Ok(None) => break None,
            Err(stop) => break Some(stop),
        }
    };
    check_started(&r, &stopped)?;
    acc.finish(&r, stopped)
}

/// A stop before the event array began means this is not a trace; a clean end without an event
/// array also.
fn check_started<R: Read>(r: &EventReader<R>, stopped: &Option<Stop>) -> Result<(), TraceError> {
    if !r.top.saw_trace_events {
        return Err(match stopped {
            Some(s) => TraceError::NotATrace(s.clone()),
            None => TraceError::NoEvents(if r.top.keys.is_empty() {
                "none".into()
            } else {
                r.top.keys.join(", ")
            }),
        });
    }
    Ok(())
}

/// A steps-only pass: every ProfilerStep (CPU and device copies), for a trace that lists its
/// steps after its device events. Stops quietly at the end of the complete part.
pub fn scan_steps<R: Read>(src: R) -> Result<Vec<Step>, TraceError> {
    let mut r = EventReader::new(src);
    let mut steps = vec![];
    let stopped = loop {
        match r.next_event() {
            Ok(Some(ev)) => {
                let Some(n) = ev.name_raw().and_then(step_number) else {
                    continue;
                };
                if ev.ph() != Some(b"X") {
                    continue;
                }
                let on_device = match ev.cat() {
                    Some(b"user_annotation" | b"cpu_op" | b"Operator") => false,
                    Some(b"gpu_user_annotation") => true,
                    _ => continue,
                };
                if let (Some(ts), Some(dur)) = (ev.ts_ns(), ev.dur_ns()) {
                    steps.push(Step {
                        number: n,
                        ts_ns: ts,
                        dur_ns: dur,
                        on_device,
                    });
                }
            }
            Ok(None) => break None,
            Err(stop) => break Some(stop),
        }
    };
    check_started(&r, &stopped)?;
    Ok(steps)
}

/// Truncation stops the walk; is this stop the input ending (rather than bad bytes)?
pub fn is_truncation(stop: &Stop) -> bool {
    matches!(stop.kind, StopKind::Truncated { .. })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_ranges() {
        let p = |s: &str| s.parse::<StepRange>();
        assert_eq!(p("3..7"), Ok(StepRange { first: 3, last: 7 }));
        assert_eq!(p("3..=7"), Ok(StepRange { first: 3, last: 7 }));
        assert_eq!(p("#5"), Ok(StepRange { first: 5, last: 5 }));
        assert!(p("7..3")
            .unwrap_err()
            .to_string()
            .contains("before the first"));
        assert!(p("a..b").unwrap_err().to_string().contains("\"a\""));
        assert!(p("").is_err());
    }

    fn ev(ph: &str, cat: &str, name: &str, ts: f64, dur: f64, extra: &str) -> String {
        format!(
            r#"{{"ph": "{ph}", "cat": "{cat}", "name": "{name}", "pid": 0, "tid": 7, "ts": {ts}, "dur": {dur}{extra}}}"#
        )
    }

    fn trace(events: &[String]) -> String {
        format!(
            r#"{{"schemaVersion": 1, "deviceProperties": [{{"id": 0, "name": "NVIDIA H100"}}], "traceEvents": [{}]}}"#,
            events.join(",\n")
        )
    }

    fn run(events: &[String], opts: &Options) -> Report {
        analyze(trace(events).as_bytes(), opts).unwrap()
    }

    #[test]
    fn ranks_device_events_and_ignores_everything_else() {
        let r = run(
            &[
                ev("X", "cpu_op", "aten::mm", 0.0, 100.0, ""),
                ev(
                    "X",
                    "kernel",
                    "void k<1>(int)",
                    10.0,
                    5.0,
                    r#", "args": {"device": 0, "stream": 7}"#,
                ),
                ev(
                    "X",
                    "kernel",
                    "void k<2>(int)",
                    20.0,
                    7.5,
                    r#", "args": {"device": 0, "stream": 8}"#,
                ),
                ev(
                    "X",
                    "kernel",
                    "void k<1>(int)",
                    30.0,
                    3.0,
                    r#", "args": {"device": 0, "stream": 7}"#,
                ),
                ev(
                    "X",
                    "gpu_memcpy",
                    "Memcpy HtoD (Pinned -> Device)",
                    40.0,
                    1.0,
                    "",
                ),
                ev("X", "gpu_memset", "Memset (Device)", 41.0, 0.5, ""),
                ev(
                    "X",
                    "gpu_user_annotation",
                    "execute_context_0(1)",
                    10.0,
                    40.0,
                    "",
                ),
                ev("X", "cuda_sync", "Stream Sync", 45.0, 2.0, ""),
                ev("X", "cuda_runtime", "cudaLaunchKernel", 9.0, 4.0, ""),
                ev("X", "cuda_driver", "cuLaunchKernelEx", 19.0, 2.0, ""),
                ev("X", "cuda_runtime", "cudaStreamSynchronize", 42.0, 6.0, ""),
                ev("X", "overhead", "Buffer Flush", 50.0, 9.0, ""),
                ev("i", "cpu_instant_event", "[memory]", 1.0, 0.0, ""),
                r#"{"ph": "s", "id": 1, "cat": "ac2g", "name": "ac2g", "ts": 9}"#.into(),
                r#"{"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}}"#
                    .into(),
            ],
            &Options::default(),
        );
        assert_eq!(r.device_total_ns, 17_000);
        assert_eq!(r.names.len(), 4);
        assert_eq!(r.names[0].name, "void k<1>(int)");
        assert_eq!(r.names[1].name, "void k<2>(int)");
        assert_eq!(
            r.names[0].stats,
            Stats {
                total_ns: 8_000,
                count: 2,
                min_ns: 3_000,
                max_ns: 5_000
            }
        );
        assert_eq!(r.symbols[0].symbol, "k");
        assert_eq!(r.symbols[0].stats.total_ns, 15_500);
        assert_eq!(r.symbols[0].names, 2);
        assert_eq!(r.streams.len(), 2);
        assert_eq!(r.streams[0].stream, 7);
        assert_eq!(
            r.streams[0].stats.total_ns, 9_500,
            "stream 7 holds k<1> and the tid-7 memory ops"
        );
        assert_eq!(r.span, Some((10_000, 41_500)));
        assert_eq!(r.busy_ns, 17_000);
        assert_eq!(r.annotations.stats.count, 1);
        assert_eq!(r.annotations.stats.total_ns, 40_000);
        assert_eq!(r.annotation_inflation(), Some(57.0 / 17.0));
        assert_eq!(r.cuda_sync.count, 1);
        assert_eq!(r.overhead.total_ns, 9_000);
        assert_eq!(r.runtime.launch.count, 2);
        assert_eq!(r.runtime.sync.total_ns, 6_000);
        assert_eq!(r.runtime.driver_events, 1);
        assert_eq!(r.vendor, Vendor::Cuda);
        assert_eq!(r.devices[0].name.as_deref(), Some("NVIDIA H100"));
        assert!(r.stopped.is_none());
        assert_eq!(r.events, 15);
    }

    #[test]
    fn busy_is_the_union_across_streams() {
        let r = run(
            &[
                ev("X", "kernel", "a", 0.0, 10.0, r#", "args": {"stream": 7}"#),
                ev("X", "kernel", "b", 5.0, 10.0, r#", "args": {"stream": 20}"#),
                ev("X", "kernel", "c", 30.0, 10.0, r#", "args": {"stream": 7}"#),
            ],
            &Options::default(),
        );
        assert_eq!(r.device_total_ns, 30_000);
        assert_eq!(r.busy_ns, 25_000);
        assert_eq!(r.span, Some((0, 40_000)));
    }

    #[test]
    fn steps_window_the_device_events() {
        let step = |n: u64, ts: f64| {
            ev(
                "X",
                "user_annotation",
                &format!("ProfilerStep#{n}"),
                ts,
                100.0,
                "",
            )
        };
        let events = vec![
            step(3, 0.0),
            step(4, 100.0),
            step(5, 200.0),
            ev("X", "kernel", "a", 50.0, 10.0, ""),
            ev("X", "kernel", "a", 150.0, 10.0, ""),
            ev("X", "kernel", "a", 250.0, 10.0, ""),
            ev(
                "X",
                "gpu_user_annotation",
                "ProfilerStep#4",
                120.0,
                90.0,
                "",
            ),
        ];
        let r = run(
            &events,
            &Options {
                steps: Some(StepRange { first: 4, last: 5 }),
                known_steps: None,
            },
        );
        assert_eq!(r.window.unwrap().start_ns, 100_000);
        assert_eq!(r.window.unwrap().end_ns, 300_000);
        assert_eq!(r.names[0].stats.count, 2);
        assert_eq!(r.outside_window, 1);
        assert_eq!(r.annotations.stats.count, 1);
        assert_eq!(r.cpu_steps().count(), 3);
        assert_eq!(r.steps.iter().filter(|s| s.on_device).count(), 1);

        let err = analyze(
            trace(&events).as_bytes(),
            &Options {
                steps: Some(StepRange { first: 4, last: 9 }),
                known_steps: None,
            },
        );
        assert!(matches!(err, Err(TraceError::NeedsStepPass)), "{err:?}");
        let known = scan_steps(trace(&events).as_bytes()).unwrap();
        let err = analyze(
            trace(&events).as_bytes(),
            &Options {
                steps: Some(StepRange { first: 4, last: 9 }),
                known_steps: Some(known),
            },
        );
        match err {
            Err(TraceError::StepsNotFound {
                missing: 9,
                available,
            }) => assert_eq!(available, "#3, #4, #5"),
            other => panic!("{other:?}"),
        }

        // Steps listed after the device events need the steps-only pass.
        let mut late = events.clone();
        late.rotate_left(3);
        let opts = Options {
            steps: Some(StepRange { first: 4, last: 5 }),
            known_steps: None,
        };
        assert!(matches!(
            analyze(trace(&late).as_bytes(), &opts),
            Err(TraceError::NeedsStepPass)
        ));
        let known = scan_steps(trace(&late).as_bytes()).unwrap();
        let r = analyze(
            trace(&late).as_bytes(),
            &Options {
                known_steps: Some(known),
                ..opts
            },
        )
        .unwrap();
        assert_eq!(r.names[0].stats.count, 2);
    }

    #[test]
    fn rocm_runtime_names_and_tensile_gemms() {
        let r = run(
            &[
                ev(
                    "X",
                    "cuda_runtime",
                    "hipExtModuleLaunchKernel",
                    0.0,
                    3.0,
                    r#", "args": {"stream": "0x0"}"#,
                ),
                ev("X", "cuda_runtime", "hipLaunchKernel", 5.0, 3.0, ""),
                ev("X", "cuda_runtime", "hipMemcpyWithStream", 9.0, 3.0, ""),
                ev(
                    "X",
                    "kernel",
                    "Cijk_Alik_Bljk_SB_MT64x16x32_MI16x16x1_SN",
                    10.0,
                    3.0,
                    "",
                ),
                ev(
                    "X",
                    "kernel",
                    "Cijk_Alik_Bljk_SB_MT128x16x32_MI16x16x1_SN",
                    20.0,
                    3.0,
                    "",
                ),
            ],
            &Options::default(),
        );
        assert_eq!(r.vendor, Vendor::Rocm);
        assert_eq!(r.runtime.launch.count, 2);
        assert_eq!(r.runtime.memory.count, 1);
        assert_eq!(r.gemm_tensile, 2);
        assert_eq!(r.symbols.len(), 1);
        assert_eq!(r.symbols[0].symbol, "Cijk_Alik_Bljk_SB");
        assert!(r.vendor_evidence.contains("Cijk_"), "{}", r.vendor_evidence);
    }

    #[test]
    fn first_generation_kineto_categories() {
        // PyTorch 1.8-era names: Operator / Runtime / Kernel / Memcpy / Memset, and the
        // async_cpu_to_gpu flow category.
        let r = run(
            &[
                ev("X", "Operator", "ProfilerStep#1", 0.0, 100.0, ""),
                ev("X", "Runtime", "cudaLaunchKernel", 1.0, 4.0, ""),
                ev("X", "Kernel", "volta_sgemm_128x64_nn", 10.0, 20.0, ""),
                ev("X", "Memcpy", "Memcpy HtoD (Pageable -> Device)", 40.0, 5.0, ""),
                ev("X", "Memset", "Memset (Device)", 50.0, 1.0, ""),
                r#"{"ph": "s", "id": 1, "cat": "async_cpu_to_gpu", "name": "async_gpu", "ts": 1}"#.into(),
                r#"{"ph": "f", "id": 1, "cat": "async_cpu_to_gpu", "name": "async_gpu", "ts": 10, "bp": "e"}"#.into(),
            ],
            &Options { steps: Some(StepRange { first: 1, last: 1 }), known_steps: None },
        );
        assert_eq!(r.device_total_ns, 26_000);
        assert_eq!(r.names.len(), 3);
        assert_eq!(r.names[0].cat, DeviceCat::Kernel);
        assert_eq!(r.runtime.launch.count, 1);
        assert_eq!(r.window.unwrap().end_ns, 100_000);
        let flows: u64 = r
            .census
            .iter()
            .filter(|e| e.cat == "async_cpu_to_gpu")
            .map(|e| e.count)
            .sum();
        assert_eq!(flows, 2, "one s and one f flow event");
    }

    #[test]
    fn malformed_device_events_are_counted_not_fatal() {
        let r = run(
            &[
                r#"{"ph": "X", "cat": "kernel", "name": "a", "ts": 1}"#.into(),
                ev("X", "kernel", "b", 5.0, -3.0, ""),
                r#"{"ph": "X", "cat": "kernel", "name": "c", "ts": "x", "dur": 2}"#.into(),
                ev("X", "kernel", "d", 9.0, 2.0, ""),
            ],
            &Options::default(),
        );
        assert_eq!(r.malformed.count, 3);
        assert_eq!(r.names.len(), 1);
        assert!(r.malformed.first.unwrap().1.contains("dur"));
    }

    #[test]
    fn truncated_traces_report_their_complete_part() {
        let t = trace(&[
            ev("X", "kernel", "a", 0.0, 10.0, ""),
            ev("X", "kernel", "a", 20.0, 10.0, ""),
            ev("X", "kernel", "b", 40.0, 10.0, ""),
        ]);
        let cut = t.rfind(r#"{"ph""#).unwrap() + 20;
        let r = analyze(&t.as_bytes()[..cut], &Options::default()).unwrap();
        let stop = r.stopped.clone().unwrap();
        assert!(is_truncation(&stop));
        assert_eq!(stop.events, 2);
        assert_eq!(stop.offset as usize, t.rfind(r#"{"ph""#).unwrap());
        assert_eq!(r.device_total_ns, 20_000);

        let e = analyze(&b"{\"schemaVers"[..], &Options::default()).unwrap_err();
        assert!(matches!(e, TraceError::NotATrace(_)), "{e}");
        let e = analyze(&b"{\"a\": 1}"[..], &Options::default()).unwrap_err();
        assert!(e.to_string().contains("top-level keys: a"), "{e}");
        let e = analyze(&b"\x1f\x8b\x08\x00"[..], &Options::default()).unwrap_err();
        assert!(e.to_string().contains("byte 0"), "{e}");
    }
}
