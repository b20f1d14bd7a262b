//! `headroom history`: saved runs, one line each. Documents are read back typed (the store
//! upgrades old ones as it reads them). JSON: docs/json/history.md.

use crate::output::{self, Exit};
use anyhow::Result;
use clap::Args as ClapArgs;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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
    /// The run in one clause: the primary and throughput for diagnose, the headline for bench.
    pub summary: String,
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
            format!("primary {primary} · generation {gen}")
        }
        _ => r.read::<BenchHeadline>(db)?.summary.unwrap_or_default(),
    })
}

fn when(t: f64) -> String {
    // UTC, to the minute, without a date library: days since the epoch → civil date.
    let secs = t as i64;
    let (days, rem) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60
    )
}

pub fn run(a: Args) -> Result<Exit> {
    let path = super::diagnose::db_path(&a.db)?;
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
                summary: summary(r, &path)?,
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
        let label = r
            .label
            .as_deref()
            .map(|l| format!(" [{l}]"))
            .unwrap_or_default();
        output::line(format!(
            "{:>5}  {}  {:<8} {:<9} {:<28} {}{label}",
            r.id,
            when(r.created),
            r.kind,
            r.engine.as_deref().unwrap_or("-"),
            r.model.as_deref().unwrap_or("-"),
            r.summary
        ))?;
    }
    Ok(Exit::Ok)
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_dates() {
        assert_eq!(super::when(0.0), "1970-01-01 00:00");
        assert_eq!(super::when(1_796_000_000.0), "2026-11-30 00:53");
        assert_eq!(super::when(951_782_400.0), "2000-02-29 00:00");
    }
}
