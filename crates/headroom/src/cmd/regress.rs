//! `headroom regress`: the latest bench against a baseline, per metric, with a statistical
//! test fit for few samples, and what changed between the two runs' identities. With three or
//! more labelled versions in the history it shows the series and the first version where each
//! metric moved (0.1.40.2 halved decode, 0.1.40.4 restored it).
//! The comparison lives in the regress crate, its text in `render::regress`.

use crate::output::{self, Exit};
use ::regress::report::{Query, RegressDoc};
use ::regress::{BenchRun, Config};
use anyhow::{bail, Result};
use clap::Args as ClapArgs;
use loadgen::bench_doc::BenchDoc;
use std::path::PathBuf;

#[derive(ClapArgs, Debug)]
#[command(after_help = "Examples:
  headroom regress                              # newest label against the one before it
  headroom regress --baseline \"before upgrade\"  # against every run with that label
  headroom regress --baseline 12 --latest 15    # run ids
  headroom regress --json --fail-on-regression  # CI: exit status 2 on a regression

Runs are grouped by --label (unlabelled runs by their engine build or version). Per metric:
a percentile bootstrap interval on the ratio of medians (latest / baseline; 4000 resamples,
fixed seed 0x68656164726f6f6d = \"headroom\", so the same runs always give the same report)
and a two-sided Mann-Whitney U test. A metric moved only when U rejects (Holm's step-down
over the metrics compared, so the chance of any false alarm stays at 1 - confidence) and the
whole interval lies beyond the --threshold noise floor (the move exceeds the floor with that
confidence). Bench the same build twice to learn your machine's floor. With 3 or
more groups the series is shown, with the first version where each metric moved.
The JSON document is described in docs/json/regress.md.")]
pub struct Args {
    /// The baseline: a bench run id, or a label (every run with it). Default: the newest group
    /// before the latest one.
    #[arg(long)]
    pub baseline: Option<String>,
    /// The latest: a bench run id, or a label. Default: the newest run and the runs sharing its
    /// label.
    #[arg(long)]
    pub latest: Option<String>,
    /// Noise floor in percent: smaller moves of the median are "no change".
    #[arg(long, default_value_t = 5.0)]
    pub threshold: f64,
    /// Two-sided confidence of the intervals (0.5–0.999).
    #[arg(long, default_value_t = 0.95)]
    pub confidence: f64,
    /// Exit with status 2 when any metric regressed.
    #[arg(long)]
    pub fail_on_regression: bool,
    /// History database (default: $XDG_DATA_HOME/headroom/history.sqlite).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// One JSON document (schema headroom.regress/3) on stdout.
    #[arg(long)]
    pub json: bool,
    /// Also write the comparison as a self-contained HTML page (see `headroom report`).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<Exit> {
    if !(a.confidence >= 0.5 && a.confidence < 1.0) {
        bail!("--confidence {} must be in [0.5, 1)", a.confidence);
    }
    if !(a.threshold >= 0.0 && a.threshold < 100.0) {
        bail!(
            "--threshold {} must be a percentage in [0, 100)",
            a.threshold
        );
    }
    let cfg = Config {
        confidence: a.confidence,
        threshold: a.threshold / 100.0,
        ..Config::default()
    };
    let path = super::common::db_path(&a.db)?;
    // Reading only: a path with no history yet is not created (it holds no bench runs).
    let Some(st) = store::Store::open_existing(&path)? else {
        bail!(
            "no bench runs in {}: run `headroom bench --url ... --label <version>` first",
            path.display()
        );
    };
    let doc = compare_saved(&st, &path, a.baseline.clone(), a.latest.clone(), cfg)?;
    let regressed = doc
        .metrics
        .iter()
        .any(|m| m.verdict == ::regress::Verdict::Regressed);
    if let Some(p) = &a.html {
        super::common::write_page(p, &::report::regress(&doc))?;
    }
    if a.json {
        output::json(&doc)?;
    } else {
        output::emit(&render::regress::report(&doc))?;
    }
    Ok(if regressed && a.fail_on_regression {
        Exit::Found
    } else {
        Exit::Ok
    })
}

/// The saved bench runs compared: `baseline` against `latest` (ids or labels; None takes the
/// defaults `regress` documents).
pub fn compare_saved(
    st: &store::Store,
    path: &std::path::Path,
    baseline: Option<String>,
    latest: Option<String>,
    cfg: Config,
) -> Result<RegressDoc> {
    let mut notes = Vec::new();
    let mut runs = Vec::new();
    let mut skipped = Vec::new();
    for r in st.list("bench")? {
        match BenchDoc::read(&r.doc) {
            Ok(doc) => runs.push(BenchRun {
                id: r.id,
                created: r.created,
                label: r.label,
                doc,
            }),
            Err(e) => skipped.push(format!("run {}: {e}", r.id)),
        }
    }
    if !skipped.is_empty() {
        notes.push(format!(
            "{} bench run(s) skipped: {}",
            skipped.len(),
            skipped.join("; ")
        ));
    }
    let q = Query {
        baseline,
        latest,
        db: path.display().to_string(),
    };
    Ok(::regress::regress(&runs, &q, &cfg, notes)?)
}
