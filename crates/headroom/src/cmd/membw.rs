//! `headroom membw`: host RAM bandwidth, measured. The kernels live in the
//! `hostmem` crate; this file parses flags and renders the `headroom.membw/1` document.

use anyhow::{bail, Result};
use hostmem::{Measurement, Options};
use physics::Provenance;
use render::membw::MembwView;

use crate::args::parse_size;
use crate::output::{self, Exit, Format};

#[derive(clap::Args)]
#[command(after_help = "\
A CPU-offloaded MoE decodes at host RAM bandwidth over bytes per token: measure the bandwidth, never assume DIMM \
ratings (4-DIMM boards downclock; single-threaded reads under-report dual-channel ~4×). The \
figure to use is the multi-threaded read plateau of a checksumming reader over a buffer far \
larger than the last-level cache; STREAM's triad is shown beside it. Each figure is the best \
of --passes (as STREAM reports), the median in brackets.

Examples:
  headroom membw                                  # 1, 2, 4 … threads up to all CPUs, 1 GiB
  headroom membw --threads 1,8,16,all --size 4GiB
  headroom membw --json | jq .read_plateau.gbps
  headroom ceiling ram --measure --experts-per-token 240 --expert-params 35.4e6 --bits 3

JSON schema: docs/json/membw.md (headroom.membw/1).")]
pub struct Args {
    /// Thread counts, comma-separated; `all` is every CPU this process may use.
    /// [default: 1, 2, 4 … up to all]
    #[arg(long, value_name = "LIST")]
    threads: Option<String>,
    /// Buffer size (4096, 512MiB, 4GiB); keep it ≥ 8× the last-level cache.
    #[arg(long, value_name = "SIZE", default_value = "1GiB", value_parser = parse_size)]
    size: u64,
    /// Timed passes per kernel and thread count.
    #[arg(long, value_name = "N", default_value_t = 5)]
    passes: u32,
    /// Print JSON (schema headroom.membw/1).
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<Exit> {
    let cpus = hostmem::cpus();
    let threads = match &a.threads {
        Some(list) => parse_threads(list, cpus)?,
        None => hostmem::default_threads(cpus),
    };
    let m = measure(&Options {
        threads,
        buffer_bytes: a.size,
        passes: a.passes,
    })?;
    output::render(&MembwView(m), Format::from_flags(a.json, false))?;
    Ok(Exit::Ok)
}

fn measure(opts: &Options) -> Result<Measurement> {
    Ok(hostmem::measure(opts, |p| eprintln!("{p}"))?)
}

/// The bandwidth `ceiling ram` uses: the flag's figure, or (with `--measure`) the read plateau
/// measured now with the defaults, and where the figure came from.
pub fn ram_bandwidth(flag_gbps: Option<f64>, measure_now: bool) -> Result<(f64, Provenance)> {
    match (flag_gbps, measure_now) {
        (Some(_), true) => bail!("give --bandwidth-gbps or --measure, not both"),
        (Some(g), false) => Ok((g, Provenance::EngineFlag)),
        (None, true) => {
            let m = measure(&Options {
                threads: hostmem::default_threads(hostmem::cpus()),
                buffer_bytes: 1 << 30,
                passes: 5,
            })?;
            eprintln!(
                "membw: read plateau {:.2} GB/s at {} thread(s)",
                m.read_plateau.gbps, m.read_plateau.threads
            );
            Ok((m.read_plateau.gbps, Provenance::Measured))
        }
        (None, false) => bail!("give --bandwidth-gbps GBPS, or --measure to measure it now"),
    }
}

fn parse_threads(list: &str, cpus: usize) -> Result<Vec<usize>> {
    let mut out = Vec::new();
    for part in list.split(',').map(str::trim) {
        let n = match part {
            "all" => cpus,
            _ => match part.parse::<usize>() {
                Ok(n) if n > 0 => n,
                _ => bail!(
                    "--threads {list:?}: {part:?} is not a positive count or `all` \
                     (example: 1,2,4,all)"
                ),
            },
        };
        out.push(n);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_lists() {
        assert_eq!(parse_threads("1,2,4,all", 16).unwrap(), [1, 2, 4, 16]);
        assert_eq!(parse_threads(" 3 , all", 2).unwrap(), [3, 2]);
        assert!(parse_threads("0", 4).is_err());
        assert!(parse_threads("1,,2", 4).is_err());
        assert!(parse_threads("two", 4).is_err());
    }

    #[test]
    fn the_bandwidth_comes_from_one_place() {
        assert_eq!(
            ram_bandwidth(Some(42.0), false).unwrap(),
            (42.0, Provenance::EngineFlag)
        );
        assert!(ram_bandwidth(Some(42.0), true).is_err());
        assert!(ram_bandwidth(None, false).is_err());
    }
}
