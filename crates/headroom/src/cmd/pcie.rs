//! `headroom pcie`: PCIe traffic per GPU from `nvidia-smi dmon` output, against the link's
//! ceiling (spec 000 §4). Parsing and the summary live in `telemetry::dmon`, the link's ceiling
//! in `physics::pcie` and the GPU catalog; this file picks the ceiling and renders.

use std::fmt::Write as _;
use std::io::{BufReader, IsTerminal};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use physics::pcie::{Link, LANE_RATE_SOURCE};
use physics::{Catalog, LookupError};
use telemetry::dmon::{self, Ceiling, Direction, PcieReport};

use crate::output::{self, Exit, Format, Render};

#[derive(clap::Args)]
#[command(after_help = "\
Reads `nvidia-smi dmon` output with the PCIe throughput group (`-s t`: rxpci and txpci, MB/s; \
rx is what the GPU received, host → device). Other groups and `-o T` / `-o DT` may be in it; \
columns are found by name. Prints per GPU the peak (and when), the median and the idle share \
of each direction, against the link's line rate in one direction: from the GPU catalog \
(--gpu), or --link when the slot trains the card narrower or the GPU is not catalogued. \
`nvidia-smi -q -d PCIE` shows the link as trained (\"Link Width Current\").

Each dmon reading is NVML's byte count over a 20 ms window once per interval: a peak is a \
20 ms peak, and bursts between windows are not seen. A row that does not fit its header (a \
pasted ^C, a cut line) is skipped and counted.

Examples:
  nvidia-smi dmon -s t -o T -c 16 > pcie.txt & curl …one request…; wait   (spec 000 §4)
  headroom pcie pcie.txt --gpu H100-PCIe
  nvidia-smi dmon -s t -o T | headroom pcie - --link gen4x4
  headroom pcie pcie.txt --link gen4x16 --idle-below 50 --json

JSON schema: docs/json/pcie.md (headroom.pcie/1).")]
pub struct Args {
    /// dmon output to read; `-` for stdin.
    #[arg(value_name = "FILE|-")]
    input: PathBuf,
    /// The GPU, by catalog name: its PCIe link gives the ceiling.
    #[arg(long, value_name = "NAME")]
    gpu: Option<String>,
    /// The link as trained, e.g. gen4x16 or gen3x8; overrides the catalog's.
    #[arg(long, value_name = "GENxLANES")]
    link: Option<String>,
    /// A reading is idle when rx and tx are both below this many MB/s.
    #[arg(long, value_name = "MB/S", default_value_t = 10.0)]
    idle_below: f64,
    /// Print JSON (schema headroom.pcie/1).
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<Exit> {
    if !(a.idle_below.is_finite() && a.idle_below >= 0.0) {
        bail!(
            "--idle-below {}: give a rate in MB/s, 0 or more",
            a.idle_below
        );
    }
    let ceiling = ceiling(a.gpu.as_deref(), a.link.as_deref())?;
    let (cap, name) = if a.input.as_os_str() == "-" {
        if std::io::stdin().is_terminal() {
            bail!("no input: pipe dmon output in (nvidia-smi dmon -s t -o T | headroom pcie -)");
        }
        let name = "stdin".to_string();
        (dmon::read(std::io::stdin().lock(), &name)?, name)
    } else {
        let name = a.input.display().to_string();
        if a.input.is_dir() {
            bail!("{name}: a directory, not dmon output");
        }
        let f = std::fs::File::open(&a.input).with_context(|| format!("opening {name}"))?;
        (dmon::read(BufReader::new(f), &name)?, name)
    };
    let report = dmon::summarize(&cap, &name, ceiling, a.idle_below);
    output::render(&Report(report), Format::from_flags(a.json, false))?;
    Ok(Exit::Ok)
}

/// The link's ceiling: --link over the catalog's link for --gpu; `Err` says why there is none.
fn ceiling(gpu: Option<&str>, link: Option<&str>) -> Result<std::result::Result<Ceiling, String>> {
    let per_direction = |l: Link, from: String| Ceiling {
        link: l.to_string(),
        per_direction_mbps: l.per_direction_mbps(),
        source: format!("{from}; {LANE_RATE_SOURCE}"),
    };
    if let Some(s) = link {
        let l: Link = s.parse().with_context(|| format!("--link {s}"))?;
        return Ok(Ok(per_direction(l, "--link".to_string())));
    }
    let Some(name) = gpu else {
        return Ok(Err(
            "no --gpu or --link: give the GPU's catalog name, or the link as gen4x16".to_string(),
        ));
    };
    let catalog = Catalog::embedded()?;
    let found = match catalog.gpu(name) {
        Ok(f) => f,
        Err(e @ LookupError::Ambiguous { .. }) => bail!("{e}"),
        Err(e) => return Ok(Err(format!("{e}; give --link GENxLANES"))),
    };
    let g = found.entry;
    Ok(match &g.pcie {
        Some(p) => Ok(per_direction(
            p.link(),
            format!("catalog {}: {}", g.name, p.source),
        )),
        None => Err(format!(
            "the catalog has no PCIe link for {}; give --link GENxLANES",
            g.name
        )),
    })
}

struct Report(PcieReport);

/// 12345.6 → "12,346".
fn mbps(v: f64) -> String {
    let n = v.round() as u64;
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A share of the ceiling, derived from a catalog figure: "~3 %", "~0.4 %", "<0.1 %".
fn share(x: f64) -> String {
    let p = x * 100.0;
    if p == 0.0 {
        "0 %".to_string()
    } else if p < 0.1 {
        "<0.1 %".to_string()
    } else if p < 10.0 {
        format!("~{p:.1} %")
    } else {
        format!("~{p:.0} %")
    }
}

/// One direction in the spec's words: "peak 230 MB/s against ~7,877 MB/s = ~2.9 %".
fn quote(d: &Direction, ceiling: Option<&Ceiling>) -> String {
    let mut s = format!("peak {} MB/s at {}", mbps(d.peak_mbps), d.peak_at);
    if let (Some(c), Some(p)) = (ceiling, d.peak_of_ceiling) {
        let _ = write!(
            s,
            " against ~{} MB/s = {}",
            mbps(c.per_direction_mbps),
            share(p)
        );
    }
    let _ = write!(s, "; median {} MB/s", mbps(d.median_mbps));
    if let Some(p) = d.median_of_ceiling {
        let _ = write!(s, " ({})", share(p));
    }
    s
}

impl Render for Report {
    type Doc = PcieReport;

    fn doc(&self) -> &PcieReport {
        &self.0
    }

    fn human(&self) -> String {
        let r = &self.0;
        let mut o = String::new();
        let _ = writeln!(o, "headroom pcie · {} (spec 000 §4)", r.input);
        match (&r.ceiling, &r.ceiling_unknown) {
            (Some(c), _) => {
                let _ = writeln!(
                    o,
                    "link {}: ~{} MB/s each way (est; line rate after encoding, packets leave \
                     ~80-90 %)",
                    c.link,
                    mbps(c.per_direction_mbps)
                );
            }
            (None, Some(why)) => {
                let _ = writeln!(o, "link ceiling unknown: {why}");
            }
            (None, None) => {}
        }
        let mut t = output::table([
            "GPU",
            "readings",
            "from … to",
            "rx peak",
            "rx median",
            "tx peak",
            "tx median",
            "idle",
        ]);
        let cell = |d: &Option<Direction>, peak: bool| match d {
            None => "-".to_string(),
            Some(d) => {
                let (v, s) = if peak {
                    (d.peak_mbps, d.peak_of_ceiling)
                } else {
                    (d.median_mbps, d.median_of_ceiling)
                };
                match s {
                    Some(s) => format!("{} MB/s ({})", mbps(v), share(s)),
                    None => format!("{} MB/s", mbps(v)),
                }
            }
        };
        for g in &r.gpus {
            let span = match (&g.first_time, &g.last_time) {
                (Some(a), Some(b)) => format!("{a} … {b}"),
                _ => "-".to_string(),
            };
            t.add_row(vec![
                g.gpu.to_string(),
                g.readings.to_string(),
                span,
                cell(&g.rx, true),
                cell(&g.rx, false),
                cell(&g.tx, true),
                cell(&g.tx, false),
                format!("{:.0} %", g.idle_share * 100.0),
            ]);
        }
        let _ = writeln!(o, "{t}");
        for g in &r.gpus {
            for (dir, d) in [("rx (host → GPU)", &g.rx), ("tx (GPU → host)", &g.tx)] {
                match d {
                    Some(d) => {
                        let _ =
                            writeln!(o, "GPU {} {dir}: {}", g.gpu, quote(d, r.ceiling.as_ref()));
                    }
                    None => {
                        let _ = writeln!(o, "GPU {} {dir}: dmon read no value (-)", g.gpu);
                    }
                }
            }
            let _ = writeln!(
                o,
                "GPU {}: idle (rx and tx < {} MB/s) in {:.0} % of {} readings",
                g.gpu,
                r.idle_below_mbps,
                g.idle_share * 100.0,
                g.readings
            );
        }
        if r.skipped.rows > 0 {
            let lines: Vec<String> = r.skipped.first_lines.iter().map(u64::to_string).collect();
            let _ = writeln!(
                o,
                "skipped {} row(s) that do not fit their header (line {}{})",
                r.skipped.rows,
                lines.join(", "),
                if r.skipped.rows as usize > lines.len() {
                    ", …"
                } else {
                    ""
                }
            );
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_the_spec_quotes_them() {
        assert_eq!(mbps(7876.9), "7,877");
        assert_eq!(mbps(230.0), "230");
        assert_eq!(mbps(1_234_567.0), "1,234,567");
        assert_eq!(share(230.0 / 7876.9), "~2.9 %");
        assert_eq!(share(0.0), "0 %");
        assert_eq!(share(0.25), "~25 %");
        assert_eq!(share(0.0000001), "<0.1 %");
    }
}
