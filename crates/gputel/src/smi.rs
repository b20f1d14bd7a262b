//! An `nvidia-smi --query-gpu=… --format=csv` capture read into [`GpuSample`]s, one per row.
//!
//! The field list headroom documents (docs/gpu-telemetry.md), which every driver since 535 knows:
//!
//! ```text
//! nvidia-smi --query-gpu=timestamp,index,name,uuid,utilization.gpu,utilization.memory,\
//!   clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,\
//!   clocks_event_reasons.active --format=csv -lms 500
//! ```
//!
//! Drivers before 535 call the last field `clocks_throttle_reasons.active`. Columns are found by
//! the header line (which `--format=csv` prints and `noheader` drops), so any subset, in any order,
//! reads; unknown columns are ignored. nvidia-smi prints a query name in its long form in the
//! header (`clocks.sm` → `clocks.current.sm [MHz]`); both forms are accepted, with or without
//! units (`nounits`). `[N/A]` and `[Not Supported]` read as missing.
//!
//! nvidia-smi has no DRAM, SM, tensor or engine activity: those stay `None`, and the rules that
//! need them are silent. `utilization.memory` is the share of time memory was read or written,
//! not the share of bandwidth used, so it is kept as `mem_copy_util_pct`, never as DRAM activity.

use crate::{ClockEvents, GpuSample, GputelError, Source};
use serde::Serialize;

/// The `--query-gpu` field list headroom samples (the one above), for drivers 535 and later.
pub const QUERY_FIELDS: &str = "timestamp,index,name,uuid,utilization.gpu,utilization.memory,\
clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,clocks_event_reasons.active";

/// The same list for drivers before 535, which name the last field `clocks_throttle_reasons`
/// (an unknown field makes nvidia-smi refuse the whole query).
pub const QUERY_FIELDS_PRE_535: &str = "timestamp,index,name,uuid,utilization.gpu,\
utilization.memory,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,\
clocks_throttle_reasons.active";

/// The longest line read. A row of the documented fields is under 400 bytes; a header naming
/// every field a 590-610 driver knows (`--query-gpu` of its whole `--help-query-gpu` list, as in
/// fixtures/nvidia-smi/) is under 8 KiB.
const MAX_LINE: usize = 16 * 1024;

/// The column a header names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Timestamp,
    Index,
    Name,
    Uuid,
    GpuUtil,
    MemUtil,
    SmClock,
    SmClockMax,
    MemClock,
    Power,
    PowerLimit,
    Temp,
    Reasons,
    MemUsed,
    MemFree,
    Other,
}

fn col(header: &str) -> Col {
    let name = header.split(" [").next().unwrap_or(header).trim();
    match name {
        "timestamp" => Col::Timestamp,
        "index" => Col::Index,
        "name" | "gpu_name" => Col::Name,
        "uuid" | "gpu_uuid" => Col::Uuid,
        "utilization.gpu" => Col::GpuUtil,
        "utilization.memory" => Col::MemUtil,
        "clocks.current.sm" | "clocks.sm" => Col::SmClock,
        "clocks.max.sm" => Col::SmClockMax,
        "clocks.current.memory" | "clocks.mem" => Col::MemClock,
        "power.draw" | "power.draw.instant" | "power.draw.average" => Col::Power,
        "power.limit" | "enforced.power.limit" => Col::PowerLimit,
        "temperature.gpu" => Col::Temp,
        "clocks_event_reasons.active" | "clocks_throttle_reasons.active" => Col::Reasons,
        "memory.used" => Col::MemUsed,
        "memory.free" => Col::MemFree,
        _ => Col::Other,
    }
}

/// What one capture held.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Capture {
    /// One sample per row, in file order.
    pub rows: Vec<GpuSample>,
    /// The header's column names, as printed.
    pub columns: Vec<String>,
    /// Set when the last line was cut mid-row (a capture stopped while writing) and dropped.
    pub truncated_last_row: bool,
}

/// Parses a capture; `input` names it in errors.
pub fn read(text: &str, input: &str) -> Result<Capture, GputelError> {
    let err = |line: usize, reason: String| GputelError::Smi {
        input: input.to_string(),
        line,
        reason,
    };
    let mut lines = text
        .split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let (hline, header) = lines
        .by_ref()
        .find(|(_, l)| !l.trim().is_empty())
        .ok_or_else(|| {
            err(
                1,
                "empty: no nvidia-smi CSV (record it with --format=csv)".into(),
            )
        })?;
    if header.len() > MAX_LINE {
        return Err(err(
            hline,
            format!("longer than {MAX_LINE} bytes: not nvidia-smi CSV"),
        ));
    }
    let columns: Vec<String> = header.split(',').map(|c| c.trim().to_string()).collect();
    let cols: Vec<Col> = columns.iter().map(|c| col(c)).collect();
    if cols.iter().all(|c| *c == Col::Other) {
        return Err(err(
            hline,
            format!(
                "no known nvidia-smi --query-gpu column in the header {header:?}; record with \
                 --format=csv (a `noheader` capture cannot be read: its columns are unnamed)"
            ),
        ));
    }
    let ends_mid_line = !text.is_empty() && !text.ends_with('\n');
    let mut cap = Capture {
        columns,
        ..Capture::default()
    };
    let rows: Vec<(usize, &str)> = lines.filter(|(_, l)| !l.trim().is_empty()).collect();
    let last = rows.len();
    for (i, (no, line)) in rows.into_iter().enumerate() {
        if line.len() > MAX_LINE {
            return Err(err(
                no,
                format!("longer than {MAX_LINE} bytes: not nvidia-smi CSV"),
            ));
        }
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != cols.len() {
            if i + 1 == last && ends_mid_line && cells.len() < cols.len() {
                cap.truncated_last_row = true;
                break;
            }
            return Err(err(
                no,
                format!("{} fields, the header has {}", cells.len(), cols.len()),
            ));
        }
        let mut g = GpuSample {
            source: Some(Source::NvidiaSmi),
            ..GpuSample::default()
        };
        for (c, cell) in cols.iter().zip(&cells) {
            let num = || number(cell);
            match c {
                Col::Timestamp => {
                    g.t_s = Some(timestamp(cell).ok_or_else(|| {
                        err(
                            no,
                            format!("timestamp {cell:?} is not YYYY/MM/DD HH:MM:SS.mmm"),
                        )
                    })?)
                }
                Col::Index => g.gpu = cell.parse().ok(),
                Col::Name => g.name = Some(cell.to_string()).filter(|s| !missing(s)),
                Col::Uuid => g.uuid = Some(cell.to_string()).filter(|s| !missing(s)),
                Col::GpuUtil => g.gpu_util_pct = num(),
                Col::MemUtil => g.mem_copy_util_pct = num(),
                Col::SmClock => g.sm_clock_mhz = num(),
                Col::SmClockMax => g.sm_clock_max_mhz = num(),
                Col::MemClock => g.mem_clock_mhz = num(),
                Col::Power => g.power_w = g.power_w.or_else(num),
                Col::PowerLimit => g.power_limit_w = g.power_limit_w.or_else(num),
                Col::Temp => g.temp_c = num(),
                Col::Reasons => g.clock_events = ClockEvents::parse(cell),
                Col::MemUsed => g.fb_used_mib = num(),
                Col::MemFree => g.fb_free_mib = num(),
                Col::Other => {}
            }
        }
        cap.rows.push(g);
    }
    Ok(cap)
}

fn missing(cell: &str) -> bool {
    cell.starts_with('[') || cell == "N/A" || cell.is_empty()
}

/// `45 %`, `1980 MHz`, `350.12 W`, `81559 MiB`, `55`: the number before the unit.
fn number(cell: &str) -> Option<f64> {
    if missing(cell) {
        return None;
    }
    let n = cell.split_whitespace().next()?;
    n.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// `2024/05/01 12:34:56.789` as seconds since 1970-01-01 00:00 of the same (unstated) zone.
fn timestamp(cell: &str) -> Option<f64> {
    let (date, time) = cell.split_once(' ')?;
    let mut d = date.split('/');
    let (y, m, day): (i64, i64, i64) = (
        d.next()?.parse().ok()?,
        d.next()?.parse().ok()?,
        d.next()?.parse().ok()?,
    );
    if d.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    let mut t = time.trim().split(':');
    let (h, min): (i64, i64) = (t.next()?.parse().ok()?, t.next()?.parse().ok()?);
    let s: f64 = t.next()?.parse().ok()?;
    if t.next().is_some()
        || !(0..24).contains(&h)
        || !(0..60).contains(&min)
        || !(0.0..61.0).contains(&s)
    {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm, proleptic Gregorian).
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + h * 3600 + min * 60) as f64 + s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A capture in nvidia-smi's CSV form (header with units, `-lms` rows), written for this test:
    /// the public captures read in tests/smi_fixtures.rs (fixtures/nvidia-smi/SOURCES.md) are
    /// single readings, none power-capped while busy.
    const CAPTURE: &str = "timestamp, index, name, uuid, utilization.gpu [%], utilization.memory [%], clocks.current.sm [MHz], clocks.max.sm [MHz], clocks.current.memory [MHz], power.draw [W], power.limit [W], temperature.gpu, clocks_event_reasons.active\n\
2024/05/01 12:00:00.000, 0, NVIDIA A100 80GB PCIe, GPU-06357e72-c3ee-614b-775f-a89e18e8cc08, 100 %, 62 %, 1110 MHz, 1410 MHz, 1512 MHz, 299.71 W, 300.00 W, 71, 0x0000000000000004\n\
2024/05/01 12:00:00.500, 0, NVIDIA A100 80GB PCIe, GPU-06357e72-c3ee-614b-775f-a89e18e8cc08, 0 %, 0 %, 210 MHz, 1410 MHz, 1512 MHz, [N/A], 300.00 W, 40, 0x0000000000000001\n";

    #[test]
    fn reads_every_documented_column() {
        let c = read(CAPTURE, "smi.csv").unwrap();
        assert_eq!(c.rows.len(), 2);
        let g = &c.rows[0];
        assert_eq!(g.source, Some(Source::NvidiaSmi));
        assert_eq!(g.name.as_deref(), Some("NVIDIA A100 80GB PCIe"));
        assert_eq!(
            g.uuid.as_deref(),
            Some("GPU-06357e72-c3ee-614b-775f-a89e18e8cc08")
        );
        assert_eq!(g.gpu, Some(0));
        assert_eq!(g.gpu_util_pct, Some(100.0));
        assert_eq!(g.mem_copy_util_pct, Some(62.0));
        assert_eq!(g.sm_clock_mhz, Some(1110.0));
        assert_eq!(g.sm_clock_max_mhz, Some(1410.0));
        assert_eq!(g.mem_clock_mhz, Some(1512.0));
        assert_eq!(g.power_w, Some(299.71));
        assert_eq!(g.power_limit_w, Some(300.0));
        assert_eq!(g.temp_c, Some(71.0));
        assert_eq!(g.clock_events.unwrap().names(), ["sw_power_cap"]);
        assert_eq!(g.dram_active, None, "nvidia-smi has no DRAM activity");
        assert_eq!(c.rows[1].power_w, None);
        let dt = c.rows[1].t_s.unwrap() - g.t_s.unwrap();
        assert!((dt - 0.5).abs() < 1e-9, "{dt}");
        // 2024-05-01 00:00 is 19844 days after 1970-01-01.
        assert_eq!(g.t_s, Some(19_844.0 * 86_400.0 + 12.0 * 3600.0));
    }

    /// Every field the sampler asks for is a column this reader knows (nvidia-smi prints the
    /// query names as the header, with units; the names alone read the same).
    #[test]
    fn the_sampled_field_lists_are_all_read() {
        for list in [QUERY_FIELDS, QUERY_FIELDS_PRE_535] {
            for f in list.split(',') {
                assert_ne!(col(f), Col::Other, "{f}");
            }
        }
        assert!(QUERY_FIELDS.ends_with("clocks_event_reasons.active"));
        assert!(!QUERY_FIELDS.contains(' '));
    }

    #[test]
    fn older_names_short_names_and_nounits_read_too() {
        let text = "clocks.sm, clocks.max.sm, clocks_throttle_reasons.active\n1320, 1710, 0x0000000000000000\n";
        let c = read(text, "x").unwrap();
        assert_eq!(c.rows[0].sm_clock_mhz, Some(1320.0));
        assert_eq!(c.rows[0].sm_clock_max_mhz, Some(1710.0));
        assert_eq!(c.rows[0].clock_events, Some(ClockEvents(0)));
    }

    #[test]
    fn bad_input_is_an_error_naming_the_line() {
        let e = read("", "a.csv").unwrap_err().to_string();
        assert!(e.contains("a.csv line 1: empty"), "{e}");
        let e = read("1320 MHz, 1710 MHz\n", "b.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("noheader"), "{e}");
        let e = read("clocks.sm, clocks.max.sm\n1, 2\n1, 2, 3\n", "c.csv")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "c.csv line 3: 3 fields, the header has 2");
        let e = read("timestamp, clocks.sm\nyesterday, 5\n", "d.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("d.csv line 2: timestamp"), "{e}");
    }

    #[test]
    fn a_row_cut_mid_line_at_the_end_is_dropped_and_said() {
        let text = "clocks.sm, clocks.max.sm, power.draw\n1, 2, 3\n4, 5";
        let c = read(text, "x").unwrap();
        assert_eq!(c.rows.len(), 1);
        assert!(c.truncated_last_row);
    }
}
