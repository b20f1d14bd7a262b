//! Progress on stderr for the commands that send requests (probe, bench): an indicatif bar on a
//! terminal, plain lines on a redirected stderr, nothing with --quiet.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use loadgen::probe::Progress;
use std::io::IsTerminal;

pub struct Bar {
    pb: Option<ProgressBar>,
    lines: bool,
    /// The plain start line: "{prefix}{what}: {total} {unit}".
    prefix: &'static str,
    unit: &'static str,
}

impl Bar {
    pub fn new(quiet: bool, prefix: &'static str, unit: &'static str) -> Self {
        let (pb, lines) = if quiet {
            (None, false)
        } else if std::io::stderr().is_terminal() {
            let pb = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            pb.set_style(
                ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {elapsed} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            (Some(pb), false)
        } else {
            (None, true)
        };
        Self {
            pb,
            lines,
            prefix,
            unit,
        }
    }

    pub fn finish(&self) {
        if let Some(pb) = &self.pb {
            pb.finish_and_clear();
        }
    }
}

impl Progress for Bar {
    fn start(&self, total: u64, what: &str) {
        if let Some(pb) = &self.pb {
            pb.set_length(total);
            pb.set_prefix(what.to_string());
        } else if self.lines {
            eprintln!("{}{what}: {total} {}", self.prefix, self.unit);
        }
    }
    fn step(&self, msg: &str) {
        if let Some(pb) = &self.pb {
            pb.inc(1);
            pb.set_message(msg.to_string());
        } else if self.lines {
            eprintln!("  {msg}");
        }
    }
    fn note(&self, msg: &str) {
        if let Some(pb) = &self.pb {
            pb.println(msg);
        } else if self.lines {
            eprintln!("{msg}");
        }
    }
}
