//! `headroom history`: saved runs, one line each. Documents are read back typed (the store
//! upgrades old ones as it reads them). JSON: docs/json/history.md (`store::history`).

use crate::output::{self, Exit};
use anyhow::Result;
use clap::Args as ClapArgs;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use store::history::{Entry, History, SCHEMA};

#[derive(ClapArgs, Debug)]
#[command(after_help = "Examples:
  headroom history                 # saved diagnose runs
  headroom history --bench         # saved bench runs
  headroom history --all --json
  headroom history --limit 5 | head -3")]
pub struct Args {
    /// Bench runs instead of diagnose runs.
    #[arg(long, conflicts_with = "all")]
    pub bench: bool,
    /// Runs of every kind.
    #[arg(long)]
    pub all: bool,
    /// At most this many (newest) runs.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// History database (default: $XDG_DATA_HOME/headroom/history.sqlite).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// One JSON document (schema headroom.history/1).
    #[arg(long)]
    pub json: bool,
}

/// The one field history reads from a bench document (the bench command owns the rest).
#[derive(Deserialize)]
struct BenchHeadline {
    #[serde(default)]
    summary: Option<String>,
}

/// What a run's line says after its identity: the primary for diagnose, the headline for bench.
fn summary(r: &store::Run, db: &Path) -> Result<String> {
    Ok(match r.kind.as_str() {
        "diagnose" => {
            let d: diagnose::Report = r.read(db)?;
            let primary = d.primary_rule().map_or("none", |r| r.as_str());
            let gen = d
                .throughput
                .generation_tokens_per_s
                .map(|g| format!("{} tok/s", physics::provenance::sig(g, 3)))
                .unwrap_or_else(|| "-".into());
            // A simulated run (headroom's emulator) and a mostly missing window say so first.
            let sim = if d.simulated { "SIMULATED · " } else { "" };
            let incomplete = if d.scrapes.incomplete {
                format!(
                    " · INCOMPLETE ({} of {} scrapes answered)",
                    d.scrapes.ok,
                    d.scrapes.ok + d.scrapes.failed
                )
            } else {
                String::new()
            };
            format!("{sim}primary {primary} · generation {gen}{incomplete}")
        }
        _ => r.read::<BenchHeadline>(db)?.summary.unwrap_or_default(),
    })
}

/// Whether a saved diagnose run measured headroom's emulator.
fn simulated(r: &store::Run, db: &Path) -> Result<bool> {
    Ok(r.kind == "diagnose" && r.read::<diagnose::Report>(db)?.simulated)
}

pub fn run(a: Args) -> Result<Exit> {
    let path = super::common::db_path(&a.db)?;
    // Listing reads: a path that holds no history yet is listed as empty, not created.
    let mut runs = match store::Store::open_existing(&path)? {
        None => Vec::new(),
        Some(st) if a.all => {
            let mut v = st.list("diagnose")?;
            v.extend(st.list("bench")?);
            v.sort_by(|x, y| x.created.total_cmp(&y.created).then(x.id.cmp(&y.id)));
            v
        }
        Some(st) => st.list(if a.bench { "bench" } else { "diagnose" })?,
    };
    if runs.len() > a.limit {
        runs.drain(..runs.len() - a.limit);
    }
    let entries = runs
        .iter()
        .map(|r| {
            Ok(Entry {
                id: r.id,
                kind: r.kind.clone(),
                created: r.created,
                label: r.label.clone(),
                url: r.url.clone(),
                engine: r.engine.clone(),
                model: r.model.clone(),
                remeasure_of: r.remeasure_of,
                summary: summary(r, &path)?,
                simulated: simulated(r, &path)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    if a.json {
        output::json(&serde_json::to_value(History {
            schema: SCHEMA.to_string(),
            db: path,
            runs: entries,
        })?)?;
        return Ok(Exit::Ok);
    }
    if entries.is_empty() {
        output::line(format!(
            "No saved runs in {} (save one with `headroom diagnose --save`).",
            path.display()
        ))?;
        return Ok(Exit::Ok);
    }
    for r in &entries {
        output::line(render::history::line(r))?;
    }
    Ok(Exit::Ok)
}
