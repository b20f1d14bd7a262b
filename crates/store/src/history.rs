//! `headroom history --json`'s document (docs/json/history.md): saved runs, one entry each.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub const SCHEMA: &str = "headroom.history/1";

/// The `headroom history --json` document.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct History {
    pub schema: String,
    /// The database read.
    pub db: PathBuf,
    /// Oldest first.
    pub runs: Vec<Entry>,
}

/// One saved run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub id: i64,
    pub kind: String,
    /// Unix seconds.
    pub created: f64,
    pub label: Option<String>,
    pub url: Option<String>,
    pub engine: Option<String>,
    pub model: Option<String>,
    /// The run this one re-measured (a `headroom remeasure`); null otherwise.
    #[serde(default)]
    pub remeasure_of: Option<i64>,
    /// The run in one clause: the primary and throughput for diagnose, the headline for bench.
    pub summary: String,
    /// The run measured headroom's emulator (a diagnose run whose report says `simulated`).
    #[serde(default)]
    pub simulated: bool,
}
