//! `headroom rules`: Prometheus alerting rules on `fleet --serve`'s series. The rules live in
//! `fleet::alerts`; this file parses arguments and prints.

use crate::args::parse_duration;
use crate::output::Exit;
use anyhow::{bail, Result};
use clap::Args as ClapArgs;
use std::time::Duration;

#[derive(ClapArgs, Debug)]
#[command(after_help = "\
The rules read the series `headroom fleet --serve` exposes (docs/fleet-serve.md): a primary \
finding held for --for, a replica under --efficiency-below of its ceiling (needs --gpu and \
--model on the serving fleet), an outlier replica, an imbalanced fleet, headroom's own \
evaluations failing, and its verdicts going stale. Load the file in Prometheus' rule_files and \
scrape the serve endpoint.

Examples:
  headroom rules > headroom-rules.yml && promtool check rules headroom-rules.yml
  headroom rules --for 30m --efficiency-below 0.2
  headroom fleet --prometheus http://prom:9090 --serve 0.0.0.0:9188 --gpu H100-SXM --model llama-3.1-8b")]
pub struct Args {
    /// How long a finding must hold before its alert fires (0s: at once).
    #[arg(long = "for", default_value = "15m", value_parser = hold)]
    pub hold: Duration,
    /// Alert when a replica generates under this share of its ceiling (0-1).
    #[arg(long, default_value_t = 0.3)]
    pub efficiency_below: f64,
    /// Alert when headroom's last successful evaluation is older than this.
    #[arg(long, default_value = "10m", value_parser = parse_duration)]
    pub stale_after: Duration,
}

/// A duration, or zero.
fn hold(s: &str) -> Result<Duration, String> {
    match s.trim() {
        "0" | "0s" | "0m" => Ok(Duration::ZERO),
        t => parse_duration(t),
    }
}

pub fn run(a: Args) -> Result<Exit> {
    if !(a.efficiency_below > 0.0 && a.efficiency_below < 1.0) {
        bail!(
            "--efficiency-below {}: a share between 0 and 1 (0.3 is 30 %)",
            a.efficiency_below
        );
    }
    let secs = a.hold.as_secs();
    if a.hold.subsec_nanos() != 0 {
        bail!("--for: whole seconds (Prometheus' durations have no fractions)");
    }
    // Prometheus' own spelling: 15m, 2h, 90s.
    let hold = match secs {
        0 => "0s".to_string(),
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    };
    let yaml = fleet::alerts::rules(&fleet::alerts::Options {
        hold,
        efficiency_below: a.efficiency_below,
        stale_after_s: a.stale_after.as_secs_f64(),
    });
    crate::output::emit(&yaml)?;
    Ok(Exit::Ok)
}
