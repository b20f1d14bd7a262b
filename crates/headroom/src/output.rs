//! The one output shell every command prints through.
//!
//! * Results go to stdout through [`emit`], [`line`] or [`json`]; a closed pipe (`headroom … | head -1`)
//!   surfaces as [`Closed`], which `main` turns into a quiet exit 0. `print!`/`println!` panic on
//!   a closed pipe, so commands never use them.
//! * A command returns an [`Exit`]: success, or one of the documented non-zero codes. Nothing
//!   calls `process::exit`.
//! * Human tables share one look through [`table`].
//! * A run's typed document is rendered three ways through [`Render`]: the human form, its
//!   versioned JSON (the document itself, serialized), and CSV where rows make sense.

use std::fmt;
use std::io::{self, Write};
use std::process::ExitCode;

use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
use serde::Serialize;

/// What a command ends with. The codes are documented in `headroom --help`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Ran and printed its answer (whatever the answer was).
    Ok,
    /// Ran, and found what the user asked to fail on (`regress --fail-on-regression`,
    /// `diagnose --fail-on`): exit code 2.
    Found,
}

impl Exit {
    /// Error exit code (bad input, unreachable server, ...): anyhow errors from `run`.
    pub const ERROR: u8 = 1;
    /// Exit code of [`Exit::Found`].
    pub const FOUND: u8 = 2;

    pub fn code(self) -> ExitCode {
        match self {
            Exit::Ok => ExitCode::SUCCESS,
            Exit::Found => ExitCode::from(Self::FOUND),
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

/// A command's result in its three forms. `json` is the typed document serialized: what
/// `--json` prints is what the store keeps and what readers deserialize.
pub trait Render {
    type Doc: Serialize;
    /// The versioned document (`headroom.<cmd>/N`).
    fn doc(&self) -> &Self::Doc;
    /// The human form: tables and a few sentences, ending with a newline.
    fn human(&self) -> String;
    /// Rows for `--csv`, where the command has rows; `None` where it has none.
    fn csv(&self) -> Option<String> {
        None
    }
}

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

/// A table in headroom's one look: condensed UTF-8 borders, wrapped to the terminal.
pub fn table<I, S>(header: I) -> Table
where
    I: IntoIterator<Item = S>,
    S: Into<comfy_table::Cell>,
{
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(header);
    t
}

/// A table without a header row (key/value listings).
pub fn plain_table() -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    t
}

/// One CSV field, quoted when it must be (RFC 4180).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One CSV row and its line end.
pub fn csv_row<I, S>(fields: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut row = fields
        .into_iter()
        .map(|f| csv_field(f.as_ref()))
        .collect::<Vec<_>>()
        .join(",");
    row.push('\n');
    row
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

    #[test]
    fn csv_quotes_only_what_needs_it() {
        assert_eq!(
            csv_row(["a", "b,c", "say \"hi\""]),
            "a,\"b,c\",\"say \"\"hi\"\"\"\n"
        );
    }
}
