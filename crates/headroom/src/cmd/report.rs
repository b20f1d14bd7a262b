//! `headroom report`: one self-contained HTML page for a saved run (crates/report builds it
//! from the typed document; this file picks the run and writes the file).

use crate::output::Exit;
use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use diagnose::remeasure::{self, Remeasure};
use diagnose::Report;
use loadgen::bench_doc::BenchDoc;
use std::path::PathBuf;

#[derive(ClapArgs, Debug)]
#[command(after_help = "Examples:
  headroom report --latest                      # the newest saved run → report.html
  headroom report 12 -o incident-4711.html      # run 12 from `headroom history`
  headroom report 14 --against 12               # diagnose run 14 after the fix, against run 12
  headroom report 31 --against baseline         # bench run 31 against bench run(s) labelled baseline
  headroom report --latest -o - | gzip > r.html.gz

The page opens from the file with no network (inline CSS and SVG, no script) and reads well in
dark mode and in print; every plot has its numbers in a table under it. A diagnose run shows the
window's timeline against the ceiling, the rule scoreboard and the fix; a run saved by
`remeasure` is shown against the run it re-measured. A bench run shows each metric's samples;
with --against, the ratios with their intervals against the noise floor (as `regress`).")]
pub struct Args {
    /// The saved run (an id from `headroom history --all`).
    #[arg(required_unless_present = "latest", conflicts_with = "latest")]
    pub run: Option<i64>,
    /// The newest saved run of any kind.
    #[arg(long)]
    pub latest: bool,
    /// Diagnose: the earlier diagnose run to compare with (default: the run a `remeasure` was
    /// taken against). Bench: the baseline bench run(s), by id or label.
    #[arg(long)]
    pub against: Option<String>,
    /// Where to write the page (`-` for stdout).
    #[arg(short, long, default_value = "report.html")]
    pub output: PathBuf,
    /// History database (default: $XDG_DATA_HOME/headroom/history.sqlite).
    #[arg(long)]
    pub db: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<Exit> {
    let path = super::common::db_path(&a.db)?;
    // Reading only: a mistyped --db must not become an empty history.
    let st = store::Store::open_existing(&path)?.with_context(|| {
        format!(
            "no saved run in {}: there is no history there yet (save one with `headroom diagnose --save` or `headroom bench`)",
            path.display()
        )
    })?;
    let run = match a.run {
        Some(id) => st
            .get(id)?
            .with_context(|| format!("no run {id} in {}", path.display()))?,
        None => [st.latest("diagnose")?, st.latest("bench")?]
            .into_iter()
            .flatten()
            .max_by(|x, y| x.created.total_cmp(&y.created).then(x.id.cmp(&y.id)))
            .with_context(|| {
                format!(
                    "no saved run in {} (save one with `headroom diagnose --save` or `headroom bench`)",
                    path.display()
                )
            })?,
    };
    let html = match run.kind.as_str() {
        "diagnose" => {
            let mut after: Report = run.read(&path)?;
            after.saved_run_id = Some(run.id);
            let against = match &a.against {
                Some(s) => Some(s.parse::<i64>().with_context(|| {
                    format!("--against {s:?}: a diagnose run is compared with a run id")
                })?),
                None => run.remeasure_of,
            };
            match against {
                Some(id) => {
                    let b = st.get(id)?.with_context(|| {
                        format!("--against {id}: no run {id} in {}", path.display())
                    })?;
                    if b.kind != "diagnose" {
                        bail!(
                            "--against {id}: run {id} is a {} run, not a diagnose run",
                            b.kind
                        );
                    }
                    let mut before: Report = b.read(&path)?;
                    before.saved_run_id = Some(id);
                    let doc = Remeasure {
                        schema: remeasure::SCHEMA.to_string(),
                        against: id,
                        saved_run_id: Some(run.id),
                        comparison: remeasure::compare(&before, &after),
                        after,
                    };
                    ::report::remeasure(&before, &doc)
                }
                None => ::report::diagnose(&after),
            }
        }
        "bench" => {
            let doc = BenchDoc::read(&run.doc)
                .with_context(|| format!("run {} in {}", run.id, path.display()))?;
            match &a.against {
                None => ::report::bench(&doc, Some(run.id)),
                Some(base) => {
                    let doc = super::regress::compare_saved(
                        &st,
                        &path,
                        Some(base.clone()),
                        Some(run.id.to_string()),
                        ::regress::Config::default(),
                    )?;
                    ::report::regress(&doc)
                }
            }
        }
        other => bail!("run {}: no page for runs of kind '{other}'", run.id),
    };
    super::common::write_page(&a.output, &html)?;
    Ok(Exit::Ok)
}
