//! The GPU's own telemetry on a page (`diagnose --dcgm/--nvidia-smi`, a fleet replica joined to
//! DCGM): one row per GPU with its medians, and each finding that fired with its evidence.

use crate::svg::opt;
use diagnose::gpu::GpuTelemetry;
use maud::{html, Markup};
use numbers::fmt::percent_opt;

/// The devices of one telemetry section as a table, then the fired findings; `gpu_from` is the
/// ceiling's provenance (the GPU named for it).
pub fn devices(t: &GpuTelemetry, gpu_from: Option<&str>) -> Markup {
    let taken = gpu_from == Some(t.source.as_str());
    html! {
        p.sub {
            (t.source) " (" (t.input) "): " (t.in_window) " of " (t.readings) " readings in the window"
            @if let Some(n) = &t.named {
                "; names " strong { (n) }
                @if taken { ", taken for the ceiling" }
                @if let Some(why) = &t.name_note { " (" (why) ")" }
            }
            @if let Some(n) = &t.alignment_note { ". " (n) }
        }
        table.gpus {
            thead { tr { th { "GPU" } th.n { "SM clock (MHz)" } th.n { "of max" } th.n { "power (W)" } th.n { "of limit" }
                th.n { "SM active" } th.n { "DRAM active" } th.n { "modelled decode share" } th.n { "GPU util" } th { "findings" } } }
            tbody {
                @for d in &t.devices { tr data-gpu=(d.label) {
                    td { (d.label) @if let Some(n) = &d.name { " (" (n) ")" } }
                    td.n { (opt(d.sm_clock_mhz)) } td.n { (opt(d.sm_clock_max_mhz)) }
                    td.n { (opt(d.power_w)) } td.n { (opt(d.power_limit_w)) }
                    td.n { (percent_opt(d.sm_active)) } td.n { (percent_opt(d.dram_active)) }
                    td.n { (percent_opt(t.modelled_dram_share)) }
                    td.n title="the share of time any kernel ran: not a load measure" { (opt(d.gpu_util_pct)) }
                    td {
                        @for f in d.findings.iter().filter(|f| f.outcome == "fired") {
                            div data-finding=(f.rule) {
                                strong { (f.summary.as_deref().unwrap_or(&f.rule)) }
                                ul.ev { @for e in &f.evidence { li { (e) } } }
                            }
                        }
                    }
                } }
            }
        }
    }
}
