//! `headroom trace`'s human table and CSV, from the analysed trace (`trace::Report`) and its
//! document.

use std::fmt::Write as _;

use comfy_table::{Cell, CellAlignment};
use trace::doc::{per_token, percent, us, Grouping, TraceDoc};
use trace::input::Encoding;
use trace::{symbol::demangle, DeviceCat, Report, Verdict};

use crate::{csv_field as field, Render};

/// One analysed trace in its three forms.
pub struct Attribution {
    pub name: String,
    pub encoding: Encoding,
    pub report: Report,
    pub verdict: Option<Verdict>,
    pub doc: TraceDoc,
    pub view: View,
}

/// What the table and the CSV show: the grouping, how many rows, and tokens for per-token columns.
#[derive(Debug, Clone, Copy)]
pub struct View {
    pub by: Grouping,
    pub top: Option<usize>,
    pub tokens: Option<u64>,
}

impl Render for Attribution {
    type Doc = TraceDoc;
    fn doc(&self) -> &TraceDoc {
        &self.doc
    }
    fn human(&self) -> String {
        human(
            &self.name,
            self.encoding,
            &self.report,
            self.verdict.as_ref(),
            &self.view,
        )
    }
    fn csv(&self) -> Option<String> {
        Some(csv(&self.report, &self.view))
    }
}

// ---------------------------------------------------------------- CSV

fn csv(r: &Report, view: &View) -> String {
    let total = r.device_total_ns;
    let top = view.top.unwrap_or(usize::MAX);
    let tok = |ns: i64| {
        per_token(ns, view.tokens)
            .map(|x| format!(",{x}"))
            .unwrap_or_default()
    };
    let tok_head = if view.tokens.is_some() {
        ",ms_per_token"
    } else {
        ""
    };
    let mut out = String::new();
    match view.by {
        Grouping::Name => {
            let _ = writeln!(
                out,
                "rank,name,symbol,cat,total_us,count,us_per_call,min_us,max_us,percent{tok_head}"
            );
            for (i, n) in r.names.iter().take(top).enumerate() {
                let s = &n.stats;
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{},{}{}",
                    i + 1,
                    field(&n.name),
                    field(&n.symbol),
                    n.cat.as_str(),
                    us(s.total_ns),
                    s.count,
                    s.mean_ns().unwrap_or(0.0) / 1e3,
                    us(s.min_ns),
                    us(s.max_ns),
                    percent(s.total_ns, total),
                    tok(s.total_ns)
                );
            }
        }
        Grouping::Symbol => {
            let _ = writeln!(
                out,
                "rank,symbol,cat,names,total_us,count,us_per_call,min_us,max_us,percent{tok_head}"
            );
            for (i, n) in r.symbols.iter().take(top).enumerate() {
                let s = &n.stats;
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{},{}{}",
                    i + 1,
                    field(&n.symbol),
                    n.cat.as_str(),
                    n.names,
                    us(s.total_ns),
                    s.count,
                    s.mean_ns().unwrap_or(0.0) / 1e3,
                    us(s.min_ns),
                    us(s.max_ns),
                    percent(s.total_ns, total),
                    tok(s.total_ns)
                );
            }
        }
        Grouping::Stream => {
            let _ = writeln!(
                out,
                "rank,device,stream,total_us,count,us_per_call,min_us,max_us,percent{tok_head}"
            );
            for (i, n) in r.streams.iter().take(top).enumerate() {
                let s = &n.stats;
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{}{}",
                    i + 1,
                    n.device,
                    n.stream,
                    us(s.total_ns),
                    s.count,
                    s.mean_ns().unwrap_or(0.0) / 1e3,
                    us(s.min_ns),
                    us(s.max_ns),
                    percent(s.total_ns, total),
                    tok(s.total_ns)
                );
            }
        }
        Grouping::Device => {
            let _ = writeln!(
                out,
                "device,name,total_us,count,busy_us,span_us,busy_fraction,streams,percent"
            );
            for d in r.devices.iter().take(top) {
                let span = d.last_end_ns - d.first_ns;
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{}",
                    d.device,
                    field(d.name.as_deref().unwrap_or("")),
                    us(d.stats.total_ns),
                    d.stats.count,
                    us(d.busy_ns),
                    us(span),
                    if span > 0 {
                        d.busy_ns as f64 / span as f64
                    } else {
                        0.0
                    },
                    d.streams,
                    percent(d.stats.total_ns, total)
                );
            }
        }
    }
    out
}

// ---------------------------------------------------------------- human

fn thousands(n: u64) -> String {
    let s = n.to_string();
    // The leading group holds 1 to 3 digits; every later group exactly 3.
    let head = match s.len() % 3 {
        0 => 3.min(s.len()),
        r => r,
    };
    let mut out = s[..head].to_string();
    for group in s.as_bytes()[head..].chunks(3) {
        out.push(',');
        out.push_str(std::str::from_utf8(group).expect("ASCII digits"));
    }
    out
}

fn ms(ns: i64) -> String {
    if ns.abs() < 10_000 {
        format!("{:.3} µs", ns as f64 / 1e3)
    } else {
        format!("{:.2} ms", ns as f64 / 1e6)
    }
}

fn ms_cell(ns: i64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

fn us_cell(ns: f64) -> String {
    let v = ns / 1e3;
    if v < 10.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.1}")
    }
}

/// A percentage (0..100, as `trace::doc::percent` gives it) in a table whose header says `%`.
fn pct_cell(p: f64) -> String {
    numbers::fmt::percent_cell(p / 100.0)
}

/// The name as a person reads it: demangled if the profiler left it mangled, cut to `max` chars.
fn display_name(name: &str, max: usize) -> String {
    let d = if name.starts_with("_Z") {
        demangle(name)
    } else {
        None
    };
    let s = d.as_deref().unwrap_or(name);
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

fn right(s: String) -> Cell {
    Cell::new(s).set_alignment(CellAlignment::Right)
}

fn short_cat(c: DeviceCat) -> &'static str {
    match c {
        DeviceCat::Kernel => "kernel",
        DeviceCat::Memcpy => "memcpy",
        DeviceCat::Memset => "memset",
    }
}

fn human(file: &str, enc: Encoding, r: &Report, v: Option<&Verdict>, view: &View) -> String {
    let mut o = String::new();
    let total = r.device_total_ns;
    let _ = writeln!(
        o,
        "{file}: {}, {:.1} MB of JSON, {} events; {} ({})",
        if enc == Encoding::Gzip {
            "gzip"
        } else {
            "plain JSON"
        },
        r.bytes as f64 / 1e6,
        thousands(r.events),
        match r.vendor {
            trace::Vendor::Cuda => "CUDA",
            trace::Vendor::Rocm => "ROCm",
            trace::Vendor::Unknown => "vendor unknown",
        },
        r.vendor_evidence
    );
    if let Some(stop) = &r.stopped {
        let _ = writeln!(
            o,
            "STOPPED EARLY: {stop}. Everything below covers the {} complete events before it.",
            thousands(r.events)
        );
    }
    for d in &r.devices {
        let _ = writeln!(
            o,
            "device {}: {} — {} events on {} stream{}",
            d.device,
            d.name.as_deref().unwrap_or("(not in deviceProperties)"),
            thousands(d.stats.count),
            d.streams,
            if d.streams == 1 { "" } else { "s" }
        );
    }
    let cpu_steps: Vec<u64> = {
        let mut n: Vec<u64> = r.cpu_steps().map(|s| s.number).collect();
        n.sort_unstable();
        n.dedup();
        n
    };
    match r.window {
        Some(w) => {
            let _ = writeln!(
                o,
                "window: ProfilerStep#{}..#{} (CPU spans, {}); {} device events outside it left out",
                w.steps.first,
                w.steps.last,
                ms(w.end_ns - w.start_ns),
                thousands(r.outside_window)
            );
        }
        None if !cpu_steps.is_empty() => {
            let _ = writeln!(
                o,
                "window: the whole trace (ProfilerSteps {}; --steps {}..{} windows them)",
                cpu_steps
                    .iter()
                    .map(|n| format!("#{n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                cpu_steps[0],
                cpu_steps[cpu_steps.len() - 1]
            );
        }
        None => {
            let _ = writeln!(o, "window: the whole trace (no ProfilerStep spans)");
        }
    }
    o.push('\n');

    if r.names.is_empty() {
        let _ = writeln!(
            o,
            "No device events (kernel, gpu_memcpy, gpu_memset) in {}.",
            if r.window.is_some() {
                "the window"
            } else {
                "the trace"
            }
        );
    } else {
        let top = view.top.unwrap_or(20);
        let with_tok = view.tokens.is_some();
        let (rows_total, title) = match view.by {
            Grouping::Name => (r.names.len(), "full name"),
            Grouping::Symbol => (r.symbols.len(), "stripped symbol"),
            Grouping::Stream => (r.streams.len(), "stream"),
            Grouping::Device => (r.devices.len(), "device"),
        };
        let _ = writeln!(
            o,
            "Device time by {title} (top {} of {}; % of the device-time sum)",
            top.min(rows_total),
            rows_total
        );
        let mut t = crate::plain_table();
        let tok_cell = |ns: i64| right(format!("{:.4}", per_token(ns, view.tokens).unwrap_or(0.0)));
        match view.by {
            Grouping::Name | Grouping::Symbol => {
                let mut head = vec!["%", "total ms", "launches", "µs/call", "min µs", "max µs"];
                if with_tok {
                    head.push("ms/token");
                }
                head.push("cat");
                if view.by == Grouping::Symbol {
                    head.push("names");
                }
                head.push(if view.by == Grouping::Name {
                    "name"
                } else {
                    "symbol"
                });
                t.set_header(head);
                let rows: Vec<(&str, DeviceCat, &trace::Stats, Option<u64>)> =
                    if view.by == Grouping::Name {
                        r.names
                            .iter()
                            .map(|n| (n.name.as_str(), n.cat, &n.stats, None))
                            .collect()
                    } else {
                        r.symbols
                            .iter()
                            .map(|s| (s.symbol.as_str(), s.cat, &s.stats, Some(s.names)))
                            .collect()
                    };
                for (name, cat, s, names) in rows.into_iter().take(top) {
                    let mut row = vec![
                        right(pct_cell(percent(s.total_ns, total))),
                        right(ms_cell(s.total_ns)),
                        right(thousands(s.count)),
                        right(us_cell(s.mean_ns().unwrap_or(0.0))),
                        right(us_cell(s.min_ns as f64)),
                        right(us_cell(s.max_ns as f64)),
                    ];
                    if with_tok {
                        row.push(tok_cell(s.total_ns));
                    }
                    row.push(Cell::new(short_cat(cat)));
                    if let Some(n) = names {
                        row.push(right(n.to_string()));
                    }
                    row.push(Cell::new(display_name(name, 72)));
                    t.add_row(row);
                }
            }
            Grouping::Stream => {
                let mut head = vec!["%", "total ms", "events", "µs/call", "device", "stream"];
                if with_tok {
                    head.insert(4, "ms/token");
                }
                t.set_header(head);
                for s in r.streams.iter().take(top) {
                    let mut row = vec![
                        right(pct_cell(percent(s.stats.total_ns, total))),
                        right(ms_cell(s.stats.total_ns)),
                        right(thousands(s.stats.count)),
                        right(us_cell(s.stats.mean_ns().unwrap_or(0.0))),
                    ];
                    if with_tok {
                        row.push(tok_cell(s.stats.total_ns));
                    }
                    row.push(right(s.device.to_string()));
                    row.push(right(s.stream.to_string()));
                    t.add_row(row);
                }
            }
            Grouping::Device => {
                t.set_header(vec![
                    "device", "name", "%", "sum ms", "busy ms", "span ms", "busy %", "events",
                    "streams",
                ]);
                for d in r.devices.iter().take(top) {
                    let span = d.last_end_ns - d.first_ns;
                    t.add_row(vec![
                        right(d.device.to_string()),
                        Cell::new(d.name.as_deref().unwrap_or("")),
                        right(pct_cell(percent(d.stats.total_ns, total))),
                        right(ms_cell(d.stats.total_ns)),
                        right(ms_cell(d.busy_ns)),
                        right(ms_cell(span)),
                        right(pct_cell(percent(d.busy_ns, span))),
                        right(thousands(d.stats.count)),
                        right(d.streams.to_string()),
                    ]);
                }
            }
        }
        let _ = writeln!(o, "{t}");
    }
    o.push('\n');

    // Totals and traps.
    let count = |c: DeviceCat| -> u64 {
        r.names
            .iter()
            .filter(|n| n.cat == c)
            .map(|n| n.stats.count)
            .sum()
    };
    let _ = writeln!(
        o,
        "device time (sum)    {} over {} events (kernel {}, memcpy {}, memset {})",
        ms(total),
        thousands(count(DeviceCat::Kernel) + count(DeviceCat::Memcpy) + count(DeviceCat::Memset)),
        thousands(count(DeviceCat::Kernel)),
        thousands(count(DeviceCat::Memcpy)),
        thousands(count(DeviceCat::Memset))
    );
    if r.busy_ns != total {
        let _ = writeln!(
            o,
            "busy (union)         {}: overlapping intervals counted once; the sum exceeds it by {} ({})",
            ms(r.busy_ns),
            ms(total - r.busy_ns),
            numbers::fmt::percent(percent(total - r.busy_ns, r.busy_ns) / 100.0)
        );
    } else {
        let _ = writeln!(
            o,
            "busy (union)         {} (no overlap: sum = union)",
            ms(r.busy_ns)
        );
    }
    if let Some((a, b)) = r.span {
        let cap = (b - a) * r.devices.len() as i64;
        let _ = writeln!(
            o,
            "span                 {} first to last device event; busy {} of it{}",
            ms(b - a),
            numbers::fmt::percent(percent(r.busy_ns, cap) / 100.0),
            if r.devices.len() > 1 {
                " (per device)"
            } else {
                ""
            }
        );
    }
    let a = &r.annotations;
    if a.stats.count > 0 {
        let _ = writeln!(
            o,
            "gpu_user_annotation  {} spans, {}: NOT device time (they wrap kernels). A naive sum with \
             them would report {:.2}× the device time.",
            thousands(a.stats.count),
            ms(a.stats.total_ns),
            r.annotation_inflation().unwrap_or(f64::NAN)
        );
        if let Some((name, s)) = a.by_name.first() {
            let _ = writeln!(
                o,
                "                     The largest, {:?}, would have ranked at {}.",
                display_name(name, 60),
                numbers::fmt::percent(percent(s.total_ns, total + a.stats.total_ns) / 100.0)
            );
        }
    } else {
        let _ = writeln!(o, "gpu_user_annotation  none in the trace");
    }
    let rt = &r.runtime;
    if rt.launch.count + rt.sync.count + rt.memory.count + rt.other.count > 0 {
        let _ = writeln!(
            o,
            "host runtime calls   launch {} calls, {} ({:.1} µs/call); synchronize {} calls, {}; \
             memcpy/memset {} calls, {}; other {} calls, {}",
            thousands(rt.launch.count),
            ms(rt.launch.total_ns),
            rt.launch.mean_ns().unwrap_or(0.0) / 1e3,
            thousands(rt.sync.count),
            ms(rt.sync.total_ns),
            thousands(rt.memory.count),
            ms(rt.memory.total_ns),
            thousands(rt.other.count),
            ms(rt.other.total_ns)
        );
    }
    if r.overhead.count > 0 || r.cuda_sync.count > 0 {
        let _ = writeln!(
            o,
            "not counted          {} profiler overhead events ({}), {} cuda_sync events ({})",
            r.overhead.count,
            ms(r.overhead.total_ns),
            r.cuda_sync.count,
            ms(r.cuda_sync.total_ns)
        );
    }
    if r.malformed.count > 0 {
        let (off, why) = r.malformed.first.unwrap_or((0, ""));
        let _ = writeln!(
            o,
            "skipped              {} malformed events (first at byte {off}: {why})",
            r.malformed.count
        );
    }
    o.push('\n');
    match v {
        Some(v) => {
            let _ = writeln!(o, "Verdict: {}", v.text);
        }
        None => {
            let _ = writeln!(
                o,
                "Verdict: no device time in the window to compare with step time."
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(708500), "708,500");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
