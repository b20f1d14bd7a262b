//! The `headroom.logs/1` document: where the log came from and what was mined from it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::envelope::InstanceReport;
use crate::Report;

pub const SCHEMA: &str = "headroom.logs/1";

/// Where the log lines came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Source {
    Stdin,
    File {
        path: PathBuf,
    },
    /// A systemd unit's journal, read with journalctl.
    Journal {
        unit: String,
        user: bool,
        since: String,
    },
}

/// One mined log: the final report, or (with `--follow`) an update on the way to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogsDoc {
    pub schema: String,
    pub source: Source,
    /// false for the updates of --follow.
    #[serde(rename = "final")]
    pub is_final: bool,
    /// The input was cut short by Ctrl-C.
    pub interrupted: bool,
    pub lines: u64,
    /// Non-blank lines from which nothing was taken.
    pub unparsed_lines: u64,
    pub blank_lines: u64,
    /// Lines over 1 MiB, skipped unread.
    pub overlong_lines: u64,
    pub instances: Vec<InstanceReport>,
    pub warnings: Vec<String>,
}

impl LogsDoc {
    pub fn new(source: Source, is_final: bool, interrupted: bool, report: Report) -> LogsDoc {
        LogsDoc {
            schema: SCHEMA.to_string(),
            source,
            is_final,
            interrupted,
            lines: report.lines,
            unparsed_lines: report.unparsed_lines,
            blank_lines: report.blank_lines,
            overlong_lines: report.overlong_lines,
            instances: report.instances,
            warnings: report.warnings,
        }
    }

    /// The document as pretty JSON (the `--json` form), serialized here rather than by the
    /// caller: this crate is built optimized and the command-line crate is not (Cargo.toml's
    /// profile), and a mined log's document runs to hundreds of MB.
    pub fn to_json_pretty(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(self)
    }

    /// The document as one line of JSON (the updates of `--follow`), serialized here for the
    /// same reason as [`LogsDoc::to_json_pretty`].
    pub fn to_json_line(&self) -> serde_json::Result<String> {
        serde_json::to_string(self)
    }
}
