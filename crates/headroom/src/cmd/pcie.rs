//! `headroom pcie`: PCIe traffic per GPU from `nvidia-smi dmon` output, against the link's
//! ceiling. Parsing and the summary live in `telemetry::dmon`, the link's ceiling
//! in `physics::pcie` and the GPU catalog; this file picks the ceiling and renders.

use std::io::{BufReader, IsTerminal};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use physics::pcie::{Link, LANE_RATE_SOURCE};
use physics::Catalog;
use render::pcie::PcieView;
use telemetry::dmon::{self, Ceiling};

use crate::output::{self, Exit, Format};

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
  nvidia-smi dmon -s t -o T -c 16 > pcie.txt & curl …one request…; wait
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
    super::names::check(&Catalog::embedded()?, a.gpu.as_deref(), None, None)?;
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
    output::render(&PcieView(report), Format::from_flags(a.json, false))?;
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
    let g = catalog
        .gpu(name)
        .with_context(|| format!("--gpu {name:?}"))?
        .entry;
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
