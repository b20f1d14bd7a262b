//! The GPU telemetry part of `headroom diagnose`'s text (`--dcgm`, `--nvidia-smi`): each GPU's
//! figures over the window and what `gputel`'s findings concluded. Empty without telemetry.

use diagnose::gpu::{GpuDevice, GpuTelemetry};
use diagnose::report::Report;
use std::fmt::Write;

fn num(x: f64) -> String {
    physics::provenance::sig(x, 3)
}

fn opt(x: Option<f64>, unit: &str) -> String {
    x.map_or("-".to_string(), |v| format!("{}{unit}", num(v)))
}

fn share(x: Option<f64>) -> String {
    numbers::fmt::percent_opt(x)
}

fn device(out: &mut String, d: &GpuDevice, modelled: Option<f64>, verbose: bool) {
    let name = d.name.as_deref().unwrap_or("unnamed");
    let _ = writeln!(out, "  {} ({name}), {} readings", d.label, d.readings);
    let _ = writeln!(
        out,
        "    SM clock {} of {}, power {} of {}, hottest {}",
        opt(d.sm_clock_mhz, " MHz"),
        opt(d.sm_clock_max_mhz, " MHz"),
        opt(d.power_w, " W"),
        opt(d.power_limit_w, " W"),
        opt(d.temp_c_max, " °C"),
    );
    if d.dram_active.is_some() || d.sm_active.is_some() || d.gr_engine_active.is_some() {
        let beside = match (d.dram_active, modelled) {
            (Some(_), Some(m)) => format!(" (modelled decode share {})", share(Some(m))),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "    DRAM active {}{beside}, SM active {}, engine active {}",
            share(d.dram_active),
            share(d.sm_active),
            share(d.gr_engine_active),
        );
    }
    if let Some(u) = d.gpu_util_pct {
        let _ = writeln!(
            out,
            "    GPU utilization {} (the share of time any kernel ran, not how busy the GPU \
             was: not used as a load measure)",
            numbers::fmt::percent(u / 100.0)
        );
    }
    for f in &d.findings {
        match f.outcome.as_str() {
            "fired" => {
                // The summary opens with the finding's name ("throttled: ...").
                let _ = writeln!(out, "    {}", f.summary.as_deref().unwrap_or(&f.rule));
                if f.clock_scale.is_some() && f.scaled_prefill_prompts_per_s.is_none() {
                    let _ = writeln!(
                        out,
                        "      {}: - (prefill ceiling unknown: give --gpu and --model)",
                        diagnose::gpu::SCALED_LABEL
                    );
                }
                for e in &f.evidence {
                    let _ = writeln!(out, "      {e}");
                }
            }
            "held" if verbose => {
                let _ = writeln!(out, "    {}: held", f.rule);
                for e in &f.evidence {
                    let _ = writeln!(out, "      {e}");
                }
            }
            "silent" if verbose => {
                let _ = writeln!(
                    out,
                    "    {}: silent: {}",
                    f.rule,
                    f.missing.as_deref().unwrap_or("")
                );
            }
            _ => {}
        }
    }
}

/// The text for a report's `gpu_telemetry`; empty when the report has none.
pub fn render(r: &Report, verbose: bool) -> String {
    let Some(t) = &r.gpu_telemetry else {
        return String::new();
    };
    render_section(t, r.ceiling.gpu_from.as_deref(), verbose)
}

fn render_section(t: &GpuTelemetry, gpu_from: Option<&str>, verbose: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nGPU telemetry ({}, {}): {} of {} readings in the window",
        t.source, t.input, t.in_window, t.readings
    );
    out.push_str(&devices(t, gpu_from, verbose));
    out
}

/// The section without its heading: the name taken (or why not), each device's figures and
/// findings, two spaces in.
pub fn devices(t: &GpuTelemetry, gpu_from: Option<&str>, verbose: bool) -> String {
    let mut out = String::new();
    if let Some(n) = &t.alignment_note {
        let _ = writeln!(out, "  {n}");
    }
    match (&t.named, gpu_from, &t.name_note) {
        (Some(n), Some(from), None) if from == t.source => {
            let _ = writeln!(out, "  GPU for the ceiling: {n} (from {from})");
        }
        (Some(n), _, Some(note)) => {
            let _ = writeln!(out, "  names {n}: {note}");
        }
        _ => {}
    }
    for d in &t.devices {
        self::device(&mut out, d, t.modelled_dram_share, verbose);
    }
    let fired = t
        .devices
        .iter()
        .flat_map(|d| &d.findings)
        .any(|f| f.outcome == "fired");
    if !fired && !verbose {
        let _ = writeln!(
            out,
            "  no GPU finding fired (--verbose shows each one's figures)"
        );
    }
    out
}
