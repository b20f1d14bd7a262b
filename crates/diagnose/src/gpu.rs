//! The GPU's own telemetry beside a window: a DCGM exporter scraped at each scrape, or
//! an nvidia-smi capture, read into `gputel` samples. It names the GPU for the ceiling when no
//! `--gpu` was given (provenance "dcgm" or "nvidia-smi"), and adds `gputel`'s findings
//! (throttled, host-bound, DRAM activity beside the modelled decode share) to the document as
//! [`GpuTelemetry`]. Without telemetry the document carries `null` and nothing here runs.
//!
//! Pure: samples in, a document section out. Sampling (the child process, the HTTP scrapes) is
//! the binary's.

pub use crate::gpu_doc::{GpuDevice, GpuFinding, GpuTelemetry, SCALED_LABEL};
use crate::judge::{judge, judge_samples, JudgeError, Judged, Read, Target};
use crate::report::Report;
use engines::Recording;
use gputel::findings::{self, Outcome, Rule};
use gputel::{GpuSample, Source};
use numbers::median;

/// Telemetry read beside a window, before judging.
#[derive(Debug, Clone)]
pub struct Telemetry {
    pub source: Source,
    /// The file, URL or command it came from (for messages and the document).
    pub input: String,
    /// Every reading, each with its time: unix seconds for samples stamped as they arrived (a
    /// live DCGM scrape, a live nvidia-smi row), or nvidia-smi's own civil time for a capture
    /// file ([`Clock::Capture`]).
    pub samples: Vec<GpuSample>,
    pub clock: Clock,
}

/// How the samples' times relate to the window's (unix seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// Stamped on arrival with this host's clock, like the scrapes.
    Arrival,
    /// nvidia-smi's `timestamp` column: the capturing host's local civil time, zone unstated.
    Capture,
}

/// A catalogued GPU the telemetry names: (catalog id, the name as printed, provenance).
pub type Named = (String, String, &'static str);

/// The one catalogued GPU the telemetry names, the name as printed, and why it was not taken
/// (several models, not catalogued); all `None` when the telemetry names no GPU.
pub fn name_gpu(
    catalog: &physics::Catalog,
    samples: &[GpuSample],
) -> (Option<Named>, Option<String>, Option<String>) {
    let printed = gputel::name::printed_name(samples).ok().map(|(p, _)| p);
    // A MIG instance holds a slice of its GPU's memory and bandwidth; the catalog lists whole
    // parts, so taking the name would set a slice's ceiling at the whole GPU's.
    if let Some(mig) = samples.iter().find(|s| s.mig_instance.is_some()) {
        let profile = mig.mig_profile.as_deref().unwrap_or("a MIG profile");
        return (
            None,
            printed,
            Some(format!(
                "a MIG instance ({profile}) has a slice of the GPU's bandwidth, which the catalog \
                 does not list: the name is not taken for the ceiling"
            )),
        );
    }
    match gputel::name::resolve(catalog, samples) {
        Ok(n) => (
            Some((n.gpu.id.clone(), n.printed.clone(), n.provenance)),
            Some(n.printed),
            None,
        ),
        Err(gputel::name::NameError::Unnamed) => (None, None, None),
        Err(e) => (None, printed, Some(e.to_string())),
    }
}

/// Judge a recorded window with GPU telemetry beside it: the GPU named by the telemetry is taken
/// for the ceiling when `--gpu` is absent, then the window is judged as [`judge`] does, and the
/// `gpu_telemetry` section is added.
pub fn judge_with(
    rec: &Recording,
    target: &Target,
    catalog: &physics::Catalog,
    tel: &Telemetry,
) -> Result<Judged, JudgeError> {
    with_telemetry(target, catalog, tel, |t| judge(rec, t, catalog))
}

/// [`judge_with`] for a window's samples already read (a fleet replica's window from a store,
/// with the DCGM series joined to it).
pub fn judge_samples_with(
    read: Read,
    target: &Target,
    catalog: &physics::Catalog,
    tel: &Telemetry,
) -> Result<Judged, JudgeError> {
    with_telemetry(target, catalog, tel, |t| judge_samples(read, t, catalog))
}

fn with_telemetry(
    target: &Target,
    catalog: &physics::Catalog,
    tel: &Telemetry,
    judge: impl FnOnce(&Target) -> Result<Judged, JudgeError>,
) -> Result<Judged, JudgeError> {
    let (named, printed, mut note) = name_gpu(catalog, &tel.samples);
    let mut target = target.clone();
    let mut gpu_from = None;
    match (&target.shape.gpu, named) {
        (Some(_), Some((_, printed, _))) => {
            gpu_from = Some("--gpu".to_string());
            note = Some(format!(
                "--gpu given: the telemetry's {printed:?} is shown, not taken"
            ));
        }
        (Some(_), None) => gpu_from = Some("--gpu".to_string()),
        (None, Some((id, _, provenance))) => {
            target.shape.gpu = Some(id);
            gpu_from = Some(provenance.to_string());
        }
        (None, None) => {}
    }
    let untaken = target.shape.gpu.is_none().then(|| note.clone()).flatten();
    let mut judged = judge(&target)?;
    judged.report.ceiling.gpu_from = gpu_from;
    // No --gpu and a name the catalog does not settle: the ceiling's reason says which name.
    if let (Some(why), Some(n)) = (judged.report.ceiling.unknown_reason.as_mut(), untaken) {
        why.push_str(&format!("; {n}"));
    }
    let (start, end) = (judged.report.window.start, judged.report.window.end);
    let mut section = section(tel, start, end, &judged.report);
    section.named = printed;
    section.name_note = note;
    judged.report.gpu_telemetry = Some(section);
    Ok(judged)
}

/// The readings inside the window [start − interval, end], and how they were matched.
fn in_window(
    tel: &Telemetry,
    start: Option<f64>,
    end: Option<f64>,
    interval_s: f64,
) -> (Vec<GpuSample>, &'static str, Option<String>) {
    let (Some(start), Some(end)) = (start, end) else {
        return (tel.samples.clone(), "whole capture", None);
    };
    let lo = start - interval_s.max(0.0);
    let inside: Vec<GpuSample> = tel
        .samples
        .iter()
        .filter(|s| s.t_s.is_some_and(|t| (lo..=end).contains(&t)))
        .cloned()
        .collect();
    if !inside.is_empty() || tel.clock == Clock::Arrival {
        return (inside, "clock", None);
    }
    let span = |f: fn(f64, f64) -> f64| tel.samples.iter().filter_map(|s| s.t_s).reduce(f);
    let note = match (span(f64::min), span(f64::max)) {
        (Some(a), Some(b)) => format!(
            "the capture's clock ({a:.0}–{b:.0} s read as UTC) does not overlap the window \
             ({start:.0}–{end:.0} s); nvidia-smi prints the capturing host's local time, so \
             the whole capture is taken as the window's"
        ),
        _ => "the capture has no timestamp column: the whole capture is taken as the window's"
            .to_string(),
    };
    (tel.samples.clone(), "whole capture", Some(note))
}

/// A device's key: host, UUID, index and MIG instance.
type Key = (Option<String>, Option<String>, Option<u32>, Option<u32>);

fn key(s: &GpuSample) -> Key {
    (s.hostname.clone(), s.uuid.clone(), s.gpu, s.mig_instance)
}

fn section(tel: &Telemetry, start: Option<f64>, end: Option<f64>, report: &Report) -> GpuTelemetry {
    let (window, alignment, alignment_note) = in_window(tel, start, end, report.shape.interval_s);
    let mut keys: Vec<Key> = Vec::new();
    for s in &window {
        if !keys.contains(&key(s)) {
            keys.push(key(s));
        }
    }
    let running = report.requests.running.map(|g| g.mean);
    // The modelled DRAM share of decode: steps per second (generation tok/s over the sequences
    // decoding together) × bytes per step over the bandwidth, which is the one-sequence decode
    // ceiling's inverse. KV reads are not counted; the finding's own words name them.
    let modelled = match (
        report.throughput.generation_tokens_per_s,
        report.ceiling.decode_tps,
    ) {
        (Some(g), Some(c)) if c > 0.0 && g > 0.0 => Some(g / running.unwrap_or(1.0).max(1.0) / c),
        _ => None,
    };
    let devices = keys
        .iter()
        .map(|k| {
            let samples: Vec<GpuSample> = window.iter().filter(|s| key(s) == *k).cloned().collect();
            device(
                &samples,
                running,
                modelled,
                report.ceiling.prefill_prompts_per_s,
            )
        })
        .collect();
    GpuTelemetry {
        source: tel.source.provenance().to_string(),
        input: tel.input.clone(),
        readings: tel.samples.len(),
        in_window: window.len(),
        alignment: alignment.to_string(),
        alignment_note,
        named: None,
        name_note: None,
        modelled_dram_share: modelled,
        devices,
    }
}

fn med(samples: &[GpuSample], f: impl Fn(&GpuSample) -> Option<f64>) -> Option<f64> {
    let v: Vec<f64> = samples.iter().filter_map(f).collect();
    median(&v)
}

fn device(
    samples: &[GpuSample],
    running: Option<f64>,
    modelled: Option<f64>,
    prefill: Option<f64>,
) -> GpuDevice {
    let first = &samples[0];
    let findings = [
        findings::throttled(samples),
        findings::host_bound(samples, running),
        findings::dram_vs_model(samples, modelled),
    ]
    .into_iter()
    .map(|o| finding(o, prefill))
    .collect();
    GpuDevice {
        label: first.label(),
        name: first.name.clone(),
        uuid: first.uuid.clone(),
        readings: samples.len(),
        sm_clock_mhz: med(samples, |s| s.sm_clock_mhz),
        sm_clock_max_mhz: med(samples, |s| s.sm_clock_max_mhz),
        power_w: med(samples, |s| s.power_w),
        power_limit_w: med(samples, |s| s.power_limit_w),
        temp_c_max: samples.iter().filter_map(|s| s.temp_c).reduce(f64::max),
        dram_active: med(samples, |s| s.dram_active),
        sm_active: med(samples, |s| s.sm_active),
        gr_engine_active: med(samples, |s| s.gr_engine_active),
        gpu_util_pct: med(samples, |s| s.gpu_util_pct),
        findings,
    }
}

fn rule_name(r: Rule) -> &'static str {
    match r {
        Rule::Throttled => "throttled",
        Rule::HostBound => "host_bound",
        Rule::DramVsModel => "dram_vs_model",
    }
}

fn finding(o: Outcome, prefill: Option<f64>) -> GpuFinding {
    let empty = |rule: Rule, outcome: &str| GpuFinding {
        rule: rule_name(rule).to_string(),
        outcome: outcome.to_string(),
        summary: None,
        evidence: Vec::new(),
        missing: None,
        clock_scale: None,
        scaled_prefill_prompts_per_s: None,
        scaled_label: None,
    };
    match o {
        Outcome::Fired(f) => {
            let mut g = empty(f.rule, "fired");
            g.evidence = f.evidence.iter().map(|e| e.text.clone()).collect();
            g.clock_scale = f.ceiling_scale;
            if let Some(scale) = f.ceiling_scale {
                g.scaled_label = Some(SCALED_LABEL.to_string());
                g.scaled_prefill_prompts_per_s = prefill.map(|p| p * scale);
            }
            g.summary = Some(match (f.ceiling_scale, g.scaled_prefill_prompts_per_s) {
                (Some(scale), Some(p)) => format!(
                    "{}; {SCALED_LABEL} ({scale:.2}): {p:.1} prompts/s (est)",
                    f.summary
                ),
                _ => f.summary,
            });
            g
        }
        Outcome::Held { rule, evidence } => {
            let mut g = empty(rule, "held");
            g.evidence = evidence.iter().map(|e| e.text.clone()).collect();
            g
        }
        Outcome::Silent { rule, missing } => {
            let mut g = empty(rule, "silent");
            g.missing = Some(missing);
            g
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn smi(t: f64, util: f64, sm: f64, reasons: u64) -> GpuSample {
        GpuSample {
            source: Some(Source::NvidiaSmi),
            t_s: Some(t),
            name: Some("NVIDIA H100 80GB HBM3".into()),
            gpu: Some(0),
            gpu_util_pct: Some(util),
            sm_clock_mhz: Some(sm),
            sm_clock_max_mhz: Some(1980.0),
            clock_events: Some(gputel::ClockEvents(reasons)),
            ..GpuSample::default()
        }
    }

    #[test]
    fn readings_outside_the_window_are_left_out_and_a_capture_off_the_clock_is_taken_whole() {
        let samples: Vec<GpuSample> = (0..10)
            .map(|i| smi(100.0 + i as f64, 100.0, 1400.0, 4))
            .collect();
        let tel = Telemetry {
            source: Source::NvidiaSmi,
            input: "x.csv".into(),
            samples,
            clock: Clock::Capture,
        };
        let (w, how, note) = in_window(&tel, Some(103.0), Some(106.0), 1.0);
        assert_eq!((w.len(), how, note), (5, "clock", None));
        let (w, how, note) = in_window(&tel, Some(5000.0), Some(5010.0), 1.0);
        assert_eq!((w.len(), how), (10, "whole capture"));
        assert!(note.unwrap().contains("local time"));
        // Stamped on arrival: nothing inside is nothing, never the whole.
        let tel = Telemetry {
            clock: Clock::Arrival,
            ..tel
        };
        assert_eq!(in_window(&tel, Some(5000.0), Some(5010.0), 1.0).0.len(), 0);
    }

    #[test]
    fn a_fired_throttle_scales_the_prefill_ceiling_and_says_so() {
        let w: Vec<GpuSample> = (0..5).map(|i| smi(i as f64, 100.0, 1386.0, 4)).collect();
        let g = finding(findings::throttled(&w), Some(20.0));
        assert_eq!(g.outcome, "fired");
        assert_eq!(g.clock_scale, Some(0.7));
        assert!((g.scaled_prefill_prompts_per_s.unwrap() - 14.0).abs() < 1e-9);
        assert_eq!(g.scaled_label.as_deref(), Some(SCALED_LABEL));
        assert!(g.summary.unwrap().contains(SCALED_LABEL));
        // Unknown prefill ceiling: the scale is said, no number is made up.
        let g = finding(findings::throttled(&w), None);
        assert_eq!(g.scaled_prefill_prompts_per_s, None);
        assert_eq!(g.clock_scale, Some(0.7));
    }
}
