//! `nvidia-smi dmon` output: PCIe traffic per GPU over time, against the link's ceiling
//! ("peak ~230 MB/s against a ~7,900 MB/s link = ~3 %, 0 at idle").
//!
//! dmon prints a `#` line of column names, a `#` line of units, then one row per GPU per
//! interval, repeating the two header lines now and then. `-s t` gives `rxpci` and `txpci` in
//! MB/s (rx: received by the GPU, host → device; tx: sent by it); `-o T` / `-o DT` add `Time` /
//! `Date` columns; other `-s` groups add columns in any order. Columns are found by name, so any
//! combination that includes `t` reads. A row that does not fit its header (a `^C` pasted into
//! it, a cut line, garbage) is skipped and counted, never silently.
//!
//! NVML samples each reading as a byte count over a 20 ms window once per interval: a peak is a
//! 20 ms peak, and traffic between windows is not seen.

use std::collections::BTreeMap;
use std::io::BufRead;

use serde::{Deserialize, Serialize};

pub const SCHEMA: &str = "headroom.pcie/1";
/// The longest line read: dmon's widest (`-s pucvmet -o DT`) is under 300 bytes.
pub const MAX_LINE: usize = 4096;
/// The most data rows read (5 M rows: 8 GPUs once a second for a week); their values stay in
/// memory for exact medians.
pub const MAX_ROWS: usize = 5_000_000;
/// How many skipped rows are named by line number.
const NAMED_SKIPS: usize = 10;

#[derive(Debug, thiserror::Error)]
pub enum DmonError {
    #[error("{input}: reading at line {line}: {source}")]
    Read {
        input: String,
        line: u64,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{input}: empty: no nvidia-smi dmon output (record it with `nvidia-smi dmon -s t -o T`)"
    )]
    Empty { input: String },
    #[error("{input} line {line}: longer than {MAX_LINE} bytes: not nvidia-smi dmon output")]
    LongLine { input: String, line: u64 },
    #[error("{input}: more than {MAX_ROWS} data rows; split the capture")]
    TooManyRows { input: String },
    #[error(
        "{input} line {line}: the dmon header has no rxpci/txpci columns (it has: {columns}); \
         record with `nvidia-smi dmon -s t` (t is the PCIe throughput group)"
    )]
    NoPcieColumns {
        input: String,
        line: u64,
        columns: String,
    },
    #[error(
        "{input} line {line}: column {column} is in {unit:?}, not MB/s: not the dmon format \
         this reads"
    )]
    Unit {
        input: String,
        line: u64,
        column: String,
        unit: String,
    },
    #[error(
        "{input}: no nvidia-smi dmon header (a `# gpu … rxpci txpci` line) in {lines} lines: \
         not dmon output"
    )]
    NoHeader { input: String, lines: u64 },
    #[error("{input}: a dmon header, but no data row fits it ({skipped} rows skipped{first})")]
    NoRows {
        input: String,
        skipped: u64,
        first: String,
    },
}

/// One reading: one GPU at one interval. A direction dmon could not read (`-`) is `None`.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub gpu: u32,
    /// `Date Time`, `Time`, or `None` without `-o T`.
    pub time: Option<String>,
    pub rx_mbps: Option<f64>,
    pub tx_mbps: Option<f64>,
    /// 1-based line in the input.
    pub line: u64,
}

/// What the input held.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Capture {
    pub readings: Vec<Reading>,
    /// The column names of the last header read.
    pub columns: Vec<String>,
    pub lines: u64,
    pub skipped: Skipped,
}

/// Rows that did not fit their header, counted and named.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Skipped {
    pub rows: u64,
    /// The first few skipped lines (1-based).
    pub first_lines: Vec<u64>,
}

struct Header {
    columns: Vec<String>,
    gpu: usize,
    rx: usize,
    tx: usize,
    date: Option<usize>,
    time: Option<usize>,
}

impl Header {
    /// A `#` line that names columns (it has `gpu`), or `None` for a units line or a comment.
    fn parse(rest: &str, line: u64, input: &str) -> Result<Option<Header>, DmonError> {
        let columns: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
        let find = |name: &str| columns.iter().position(|c| c.eq_ignore_ascii_case(name));
        let Some(gpu) = find("gpu") else {
            return Ok(None);
        };
        let (Some(rx), Some(tx)) = (find("rxpci"), find("txpci")) else {
            return Err(DmonError::NoPcieColumns {
                input: input.to_string(),
                line,
                columns: columns.join(" "),
            });
        };
        Ok(Some(Header {
            gpu,
            rx,
            tx,
            date: find("date"),
            time: find("time"),
            columns,
        }))
    }

    /// The units line under the names: rx and tx must be MB/s.
    fn check_units(&self, units: &[&str], line: u64, input: &str) -> Result<(), DmonError> {
        if units.len() != self.columns.len() {
            return Ok(());
        }
        for i in [self.rx, self.tx] {
            if units[i] != "MB/s" {
                return Err(DmonError::Unit {
                    input: input.to_string(),
                    line,
                    column: self.columns[i].clone(),
                    unit: units[i].to_string(),
                });
            }
        }
        Ok(())
    }

    fn reading(&self, fields: &[&str], line: u64) -> Option<Reading> {
        if fields.len() != self.columns.len() {
            return None;
        }
        let gpu = fields[self.gpu].parse::<u32>().ok()?;
        let rate = |s: &str| -> Option<Option<f64>> {
            if s == "-" {
                return Some(None);
            }
            let v = s.parse::<f64>().ok()?;
            (v.is_finite() && v >= 0.0).then_some(Some(v))
        };
        let rx_mbps = rate(fields[self.rx])?;
        let tx_mbps = rate(fields[self.tx])?;
        let time = match (self.date, self.time) {
            (Some(d), Some(t)) => Some(format!("{} {}", fields[d], fields[t])),
            (None, Some(t)) => Some(fields[t].to_string()),
            (Some(d), None) => Some(fields[d].to_string()),
            (None, None) => None,
        };
        Some(Reading {
            gpu,
            time,
            rx_mbps,
            tx_mbps,
            line,
        })
    }
}

/// Reads dmon output. `input` names it in errors (a path, or "stdin").
pub fn read<R: BufRead>(mut r: R, input: &str) -> Result<Capture, DmonError> {
    let mut cap = Capture::default();
    let mut header: Option<Header> = None;
    let mut buf = Vec::with_capacity(512);
    let mut bytes = 0u64;
    loop {
        buf.clear();
        let line_no = cap.lines + 1;
        // Bounded: a line (or /dev/zero) longer than MAX_LINE is refused after MAX_LINE + 1
        // bytes, never buffered whole.
        let n = <&mut R as std::io::Read>::take(&mut r, MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|source| DmonError::Read {
                input: input.to_string(),
                line: line_no,
                source,
            })?;
        if n == 0 {
            break;
        }
        if buf.len() > MAX_LINE {
            return Err(DmonError::LongLine {
                input: input.to_string(),
                line: line_no,
            });
        }
        bytes += n as u64;
        cap.lines = line_no;
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if let Some(rest) = text.strip_prefix('#') {
            if let Some(h) = Header::parse(rest, line_no, input)? {
                cap.columns = h.columns.clone();
                header = Some(h);
            } else if let Some(h) = &header {
                let units: Vec<&str> = rest.split_whitespace().collect();
                if units.iter().any(|u| u.eq_ignore_ascii_case("idx")) {
                    h.check_units(&units, line_no, input)?;
                }
            }
            continue;
        }
        let fields: Vec<&str> = text.split_whitespace().collect();
        match header.as_ref().and_then(|h| h.reading(&fields, line_no)) {
            Some(reading) => {
                if cap.readings.len() >= MAX_ROWS {
                    return Err(DmonError::TooManyRows {
                        input: input.to_string(),
                    });
                }
                cap.readings.push(reading);
            }
            None => {
                cap.skipped.rows += 1;
                if cap.skipped.first_lines.len() < NAMED_SKIPS {
                    cap.skipped.first_lines.push(line_no);
                }
            }
        }
    }
    if bytes == 0 || (cap.lines > 0 && header.is_none() && cap.skipped.rows == 0) {
        return Err(DmonError::Empty {
            input: input.to_string(),
        });
    }
    if header.is_none() {
        return Err(DmonError::NoHeader {
            input: input.to_string(),
            lines: cap.lines,
        });
    }
    if cap.readings.is_empty() {
        let first = match cap.skipped.first_lines.first() {
            Some(l) => format!(", the first at line {l}"),
            None => String::new(),
        };
        return Err(DmonError::NoRows {
            input: input.to_string(),
            skipped: cap.skipped.rows,
            first,
        });
    }
    Ok(cap)
}

/// The link's ceiling in one direction, and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ceiling {
    /// How the link reads: "Gen4 x16".
    pub link: String,
    /// Line rate in one direction after encoding, MB/s.
    pub per_direction_mbps: f64,
    /// Where the link came from (the catalog entry and its citation, or the --link flag) and
    /// where the lane rate came from.
    pub source: String,
}

/// One direction of one GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Direction {
    /// Readings with a value (dmon prints `-` when it cannot read one).
    pub samples: u64,
    pub peak_mbps: f64,
    /// When the peak was read: its time column, or "line N" without one.
    pub peak_at: String,
    pub median_mbps: f64,
    pub mean_mbps: f64,
    /// peak / the link's ceiling in one direction; `None` without a ceiling.
    pub peak_of_ceiling: Option<f64>,
    /// median / the link's ceiling in one direction.
    pub median_of_ceiling: Option<f64>,
}

/// One GPU over the capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuPcie {
    /// dmon's index (`gpu` column).
    pub gpu: u32,
    pub readings: u64,
    pub first_time: Option<String>,
    pub last_time: Option<String>,
    /// Share of readings in which both directions were below `idle_below_mbps`.
    pub idle_share: f64,
    /// Host → device. `None` when dmon read no value for it.
    pub rx: Option<Direction>,
    /// Device → host.
    pub tx: Option<Direction>,
}

/// The `headroom pcie` document (schema `headroom.pcie/1`, docs/json/pcie.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PcieReport {
    pub schema: String,
    /// A path, or "stdin".
    pub input: String,
    /// The dmon columns of the last header read.
    pub columns: Vec<String>,
    pub lines: u64,
    pub skipped: Skipped,
    /// A reading is idle when rx and tx are both below this.
    pub idle_below_mbps: f64,
    pub ceiling: Option<Ceiling>,
    /// Why there is no ceiling, when there is none.
    pub ceiling_unknown: Option<String>,
    pub gpus: Vec<GpuPcie>,
}

/// Summarises a capture per GPU against `ceiling` (or says why there is none).
pub fn summarize(
    cap: &Capture,
    input: &str,
    ceiling: Result<Ceiling, String>,
    idle_below_mbps: f64,
) -> PcieReport {
    let mut per_gpu: BTreeMap<u32, Vec<&Reading>> = BTreeMap::new();
    for r in &cap.readings {
        per_gpu.entry(r.gpu).or_default().push(r);
    }
    let ceiling_mbps = ceiling.as_ref().ok().map(|c| c.per_direction_mbps);
    let gpus = per_gpu
        .into_iter()
        .map(|(gpu, rs)| {
            let idle = rs
                .iter()
                .filter(|r| {
                    r.rx_mbps.unwrap_or(0.0) < idle_below_mbps
                        && r.tx_mbps.unwrap_or(0.0) < idle_below_mbps
                })
                .count();
            GpuPcie {
                gpu,
                readings: rs.len() as u64,
                first_time: rs.first().and_then(|r| r.time.clone()),
                last_time: rs.last().and_then(|r| r.time.clone()),
                idle_share: idle as f64 / rs.len() as f64,
                rx: direction(&rs, |r| r.rx_mbps, ceiling_mbps),
                tx: direction(&rs, |r| r.tx_mbps, ceiling_mbps),
            }
        })
        .collect();
    let (ceiling, ceiling_unknown) = match ceiling {
        Ok(c) => (Some(c), None),
        Err(why) => (None, Some(why)),
    };
    PcieReport {
        schema: SCHEMA.to_string(),
        input: input.to_string(),
        columns: cap.columns.clone(),
        lines: cap.lines,
        skipped: cap.skipped.clone(),
        idle_below_mbps,
        ceiling,
        ceiling_unknown,
        gpus,
    }
}

fn direction(
    rs: &[&Reading],
    value: impl Fn(&Reading) -> Option<f64>,
    ceiling_mbps: Option<f64>,
) -> Option<Direction> {
    let mut vals: Vec<(f64, &Reading)> = rs.iter().filter_map(|r| Some((value(r)?, *r))).collect();
    if vals.is_empty() {
        return None;
    }
    // The first reading at the peak names it.
    let (peak, at) = vals
        .iter()
        .fold((f64::NEG_INFINITY, None), |(m, at), (v, r)| {
            if *v > m {
                (*v, Some(*r))
            } else {
                (m, at)
            }
        });
    let peak_at = at
        .map(|r| r.time.clone().unwrap_or_else(|| format!("line {}", r.line)))
        .unwrap_or_default();
    let mean = vals.iter().map(|(v, _)| v).sum::<f64>() / vals.len() as f64;
    vals.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = vals.len();
    let median = if n % 2 == 1 {
        vals[n / 2].0
    } else {
        (vals[n / 2 - 1].0 + vals[n / 2].0) / 2.0
    };
    let share = |x: f64| ceiling_mbps.filter(|c| *c > 0.0).map(|c| x / c);
    Some(Direction {
        samples: n as u64,
        peak_mbps: peak,
        peak_at,
        median_mbps: median,
        mean_mbps: mean,
        peak_of_ceiling: share(peak),
        median_of_ceiling: share(median),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(s: &str) -> Result<Capture, DmonError> {
        read(s.as_bytes(), "test")
    }

    #[test]
    fn reads_s_t_with_and_without_time() {
        let c = read_str(
            "# gpu  rxpci  txpci\n# Idx   MB/s   MB/s\n    0     12      3\n    1      0     40\n",
        )
        .unwrap();
        assert_eq!(c.readings.len(), 2);
        assert_eq!(c.readings[1].gpu, 1);
        assert_eq!(c.readings[1].tx_mbps, Some(40.0));
        assert_eq!(c.readings[0].time, None);
        let c = read_str("#Time        gpu  rxpci  txpci\n#HH:MM:SS    Idx   MB/s   MB/s\n12:00:01      0    230      7\n").unwrap();
        assert_eq!(c.readings[0].time.as_deref(), Some("12:00:01"));
        assert_eq!(c.readings[0].rx_mbps, Some(230.0));
    }

    #[test]
    fn columns_are_found_by_name_in_any_order_and_headers_may_repeat() {
        let s = "# gpu     sm    mem  rxpci  txpci\n# Idx      %      %   MB/s   MB/s\n    0     37      9     12      3\n\
                 # gpu  rxpci  txpci\n# Idx   MB/s   MB/s\n    0    500      1\n";
        let c = read_str(s).unwrap();
        assert_eq!(c.readings[0].rx_mbps, Some(12.0));
        assert_eq!(c.readings[1].rx_mbps, Some(500.0));
        assert_eq!(c.columns, ["gpu", "rxpci", "txpci"]);
    }

    #[test]
    fn unreadable_values_are_none_and_bad_rows_are_counted() {
        let s = "# gpu  rxpci  txpci\n# Idx   MB/s   MB/s\n    0      -      -\n    0     5 ^C     6\nnot a row\n    0     7      8\n";
        let c = read_str(s).unwrap();
        assert_eq!(c.readings.len(), 2);
        assert_eq!(c.readings[0].rx_mbps, None);
        assert_eq!(c.skipped.rows, 2);
        assert_eq!(c.skipped.first_lines, [4, 5]);
    }

    #[test]
    fn bad_input_names_what_is_wrong() {
        let e = |s: &str| read_str(s).unwrap_err().to_string();
        assert!(e("").contains("empty"));
        assert!(e("\n\n").contains("empty"));
        assert!(
            e("# gpu   pwr  gtemp\n# Idx     W      C\n    0    50     40\n")
                .contains("no rxpci/txpci")
        );
        assert!(e("hello\nworld\n").contains("no nvidia-smi dmon header"));
        assert!(e("# gpu  rxpci  txpci\n# Idx   MB/s   MB/s\n").contains("no data row"));
        assert!(e("# gpu  rxpci  txpci\n# Idx   GB/s   GB/s\n 0 1 1\n").contains("not MB/s"));
        let long = "0".repeat(MAX_LINE + 10);
        assert!(e(&long).contains("line 1: longer than"));
    }

    #[test]
    fn summary_against_a_ceiling() {
        let s = "#Time gpu rxpci txpci\n#HH:MM:SS Idx MB/s MB/s\n\
                 00:00:01 0 0 0\n00:00:02 0 230 5\n00:00:03 0 100 0\n00:00:04 0 0 0\n";
        let c = read_str(s).unwrap();
        let ceiling = Ceiling {
            link: "Gen4 x4".into(),
            per_direction_mbps: 7876.9,
            source: "test".into(),
        };
        let r = summarize(&c, "test", Ok(ceiling), 10.0);
        let g = &r.gpus[0];
        assert_eq!(g.readings, 4);
        assert_eq!(g.idle_share, 0.5);
        let rx = g.rx.as_ref().unwrap();
        assert_eq!(rx.peak_mbps, 230.0);
        assert_eq!(rx.peak_at, "00:00:02");
        assert_eq!(rx.median_mbps, 50.0);
        assert!((rx.peak_of_ceiling.unwrap() - 0.0292).abs() < 1e-3);
        assert_eq!(g.first_time.as_deref(), Some("00:00:01"));
        let r = summarize(&c, "test", Err("no link".into()), 10.0);
        assert_eq!(r.gpus[0].rx.as_ref().unwrap().peak_of_ceiling, None);
        assert_eq!(r.ceiling_unknown.as_deref(), Some("no link"));
    }
}
