//! `headroom history`: saved runs, one line each.

use anyhow::Result;
use clap::Args as ClapArgs;
use serde_json::{json, Value};
use std::path::PathBuf;

#[derive(ClapArgs, Debug)]
#[command(after_help = "Examples:
  headroom history                 # saved diagnose runs
  headroom history --bench         # saved bench runs
  headroom history --all --json")]
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

/// What a run's line says after its identity: the primary for diagnose, the headline for bench.
fn summary(r: &store::Run) -> String {
    let d = &r.doc;
    match r.kind.as_str() {
        "diagnose" => {
            let primary = d
                .pointer("/primary/rule")
                .and_then(Value::as_str)
                .unwrap_or("none");
            let gen = d
                .pointer("/throughput/generation_tokens_per_s")
                .and_then(Value::as_f64)
                .map(|g| format!("{} tok/s", physics::provenance::sig(g, 3)))
                .unwrap_or_else(|| "-".into());
            format!("primary {primary} · generation {gen}")
        }
        _ => d
            .get("summary")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_default(),
    }
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

pub fn run(a: Args) -> Result<()> {
    let path = super::diagnose::db_path(&a.db)?;
    let st = store::Store::open(&path)?;
    let mut runs = if a.all {
        let mut v = st.list("diagnose")?;
        v.extend(st.list("bench")?);
        v.sort_by(|x, y| x.created.total_cmp(&y.created).then(x.id.cmp(&y.id)));
        v
    } else {
        st.list(if a.bench { "bench" } else { "diagnose" })?
    };
    if runs.len() > a.limit {
        runs.drain(..runs.len() - a.limit);
    }
    if a.json {
        let list: Vec<Value> = runs
            .iter()
            .map(|r| {
                json!({"id": r.id, "kind": r.kind, "created": r.created, "label": r.label, "url": r.url,
                       "engine": r.engine, "model": r.model, "summary": summary(r)})
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(
                &json!({"schema": "headroom.history/1", "db": path, "runs": list})
            )?
        );
        return Ok(());
    }
    if runs.is_empty() {
        println!(
            "No saved runs in {} (save one with `headroom diagnose --save`).",
            path.display()
        );
        return Ok(());
    }
    for r in &runs {
        let label = r
            .label
            .as_deref()
            .map(|l| format!(" [{l}]"))
            .unwrap_or_default();
        println!(
            "{:>5}  {}  {:<8} {:<9} {:<28} {}{label}",
            r.id,
            when(r.created),
            r.kind,
            r.engine.as_deref().unwrap_or("-"),
            r.model.as_deref().unwrap_or("-"),
            summary(r)
        );
    }
    Ok(())
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
