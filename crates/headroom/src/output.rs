//! The one output shell every command prints through.
//!
//! * Results go to stdout through [`emit`], [`line`] or [`json`]; a closed pipe (`headroom … | head -1`)
//!   surfaces as [`Closed`], which `main` turns into a quiet exit 0. `print!`/`println!` panic on
//!   a closed pipe, so commands never use them.
//! * A command returns an [`Exit`]: success, or one of the documented non-zero codes. Nothing
//!   calls `process::exit`.
//! * A run's typed document is rendered three ways through [`Render`]: the human form, its
//!   versioned JSON (the document itself, serialized), and CSV where rows make sense. The human
//!   forms, the one table look ([`table`]) and CSV quoting live in the `render` crate; this
//!   module keeps only the path to stdout.

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

use serde::Serialize;

/// What a command ends with. The codes are documented in `headroom --help`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Ran and printed its answer (whatever the answer was).
    Ok,
    /// Ran, and found what the user asked to fail on (`regress --fail-on-regression`,
    /// `diagnose --fail-on`): exit code 2.
    Found,
    /// Ran, but the window it judged is mostly missing (below `diagnose::report::MIN_SHARE_OK`
    /// of its scrapes answered): what it printed is not a verdict. Exit code 3.
    Incomplete,
}

impl Exit {
    /// Error exit code (bad input, unreachable server, ...): anyhow errors from `run`.
    pub const ERROR: u8 = 1;
    /// Exit code of [`Exit::Found`].
    pub const FOUND: u8 = 2;
    /// Exit code of [`Exit::Incomplete`].
    pub const INCOMPLETE: u8 = 3;

    pub fn code(self) -> ExitCode {
        match self {
            Exit::Ok => ExitCode::SUCCESS,
            Exit::Found => ExitCode::from(Self::FOUND),
            Exit::Incomplete => ExitCode::from(Self::INCOMPLETE),
        }
    }
}

/// The reader went away (a closed pipe): not an error, the command just stops.
#[derive(Debug)]
pub struct Closed;

impl fmt::Display for Closed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("stdout closed")
    }
}

impl std::error::Error for Closed {}

/// Is this error chain a closed stdout? `main` exits 0 quietly on it.
pub fn is_closed(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<Closed>().is_some()
            || c.downcast_ref::<io::Error>()
                .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

fn closed_or(e: io::Error) -> anyhow::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Closed.into()
    } else {
        anyhow::Error::new(e).context("writing to stdout")
    }
}

/// Writes text to stdout and flushes it.
pub fn emit(text: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(closed_or)
}

/// Writes text and a newline to stdout.
pub fn line(text: impl fmt::Display) -> anyhow::Result<()> {
    emit(&format!("{text}\n"))
}

/// A value as pretty JSON and a newline: the `--json` form of every command.
pub fn json<T: Serialize + ?Sized>(doc: &T) -> anyhow::Result<()> {
    let mut s = serde_json::to_string_pretty(doc)?;
    s.push('\n');
    emit(&s)
}

/// How a document is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Csv,
}

impl Format {
    pub fn from_flags(json: bool, csv: bool) -> Self {
        if json {
            Format::Json
        } else if csv {
            Format::Csv
        } else {
            Format::Human
        }
    }
}

pub use ::render::Render;

/// Prints a result in the chosen form.
pub fn render<R: Render>(r: &R, format: Format) -> anyhow::Result<()> {
    match format {
        Format::Human => emit(&r.human()),
        Format::Json => json(r.doc()),
        Format::Csv => match r.csv() {
            Some(s) => emit(&s),
            None => anyhow::bail!("this command has no CSV form; use --json"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_pipe_anywhere_in_the_chain_is_closed() {
        let e = anyhow::Error::new(io::Error::from(io::ErrorKind::BrokenPipe)).context("x");
        assert!(is_closed(&e));
        assert!(is_closed(&anyhow::Error::new(Closed)));
        let other = anyhow::Error::new(io::Error::from(io::ErrorKind::NotFound));
        assert!(!is_closed(&other));
    }
}
