//! `headroom regress`: the latest bench against a baseline, per metric, with a statistical
//! test fit for few samples, and what changed between the two runs' identities. With three or
//! more labelled versions in the history it shows the series and the first version where each
//! metric moved (spec 003: 0.1.40.2 halved decode, 0.1.40.4 restored it).

use crate::output::{self, Exit};
use ::regress::{Better, Comparison, Config, Verdict, VersionSamples};
use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Table};
use serde_json::{json, Value};
use std::collections::BTreeMap;
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
    /// One JSON document (schema headroom.regress/1) on stdout.
    #[arg(long)]
    pub json: bool,
}

pub const SCHEMA: &str = "headroom.regress/1";

/// Runs taken as one version.
#[derive(Debug, Clone)]
struct Group {
    key: String,
    runs: Vec<store::Run>,
}

impl Group {
    fn ids(&self) -> Vec<i64> {
        self.runs.iter().map(|r| r.id).collect()
    }
    /// The newest run: its identity and suite stand for the group.
    fn last(&self) -> &store::Run {
        self.runs.last().expect("a group has runs")
    }
    /// The metrics of the newest run, in its order.
    fn metric_names(&self) -> Vec<String> {
        self.last().doc["metrics"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["name"].as_str().map(str::to_string))
            .collect()
    }
    /// Every sample of a metric over the group's runs, with the metric's doc entry.
    fn samples(&self, name: &str) -> Option<(Vec<f64>, Value)> {
        let mut out = Vec::new();
        let mut meta = None;
        for r in &self.runs {
            if let Some(m) = r.doc["metrics"]
                .as_array()
                .and_then(|ms| ms.iter().find(|m| m["name"] == name))
            {
                out.extend(
                    m["samples"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_f64),
                );
                meta.get_or_insert_with(|| m.clone());
            }
        }
        meta.filter(|_| !out.is_empty()).map(|m| (out, m))
    }
    fn describe(&self) -> String {
        let ids: Vec<String> = self.ids().iter().map(|i| i.to_string()).collect();
        format!(
            "\"{}\" (run{} {})",
            self.key,
            if ids.len() > 1 { "s" } else { "" },
            ids.join(", ")
        )
    }
}

/// A run's group: its label, else its engine build or version, else the run itself.
fn group_key(r: &store::Run) -> String {
    if let Some(l) = &r.label {
        return l.clone();
    }
    let id = &r.doc["identity"];
    if let Some(b) = id["build"].as_str() {
        return format!("build {b}");
    }
    if let Some(v) = id["version"].as_str() {
        return format!("version {v}");
    }
    format!("run {}", r.id)
}

/// Runs grouped by key, groups ordered by their newest run (oldest group first).
fn groups(runs: &[store::Run]) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for r in runs {
        let k = group_key(r);
        match out.iter_mut().find(|g| g.key == k) {
            Some(g) => g.runs.push(r.clone()),
            None => out.push(Group {
                key: k,
                runs: vec![r.clone()],
            }),
        }
    }
    out.sort_by(|a, b| {
        let t = |g: &Group| (g.last().created, g.last().id);
        t(a).partial_cmp(&t(b)).unwrap_or(std::cmp::Ordering::Equal)
    });
    out
}

/// A run id or a label → the runs it names.
fn select(runs: &[store::Run], spec: &str, what: &str) -> Result<Group> {
    if let Ok(id) = spec.parse::<i64>() {
        if let Some(r) = runs.iter().find(|r| r.id == id) {
            return Ok(Group {
                key: r.label.clone().unwrap_or_else(|| group_key(r)),
                runs: vec![r.clone()],
            });
        }
    }
    let matching: Vec<store::Run> = runs
        .iter()
        .filter(|r| group_key(r) == spec)
        .cloned()
        .collect();
    if matching.is_empty() {
        let known: Vec<String> = groups(runs).iter().map(|g| g.key.clone()).collect();
        bail!(
            "--{what} {spec:?}: no bench run has this id or label (labels: {})",
            if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            }
        );
    }
    Ok(Group {
        key: spec.to_string(),
        runs: matching,
    })
}

/// An identity flattened for the diff: field → value text.
pub fn identity_map(doc: &Value) -> BTreeMap<String, String> {
    let id = &doc["identity"];
    let mut m = BTreeMap::new();
    let mut put = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            m.insert(k.to_string(), v);
        }
    };
    let s = |v: &Value| v.as_str().map(str::to_string);
    put("engine", s(&id["engine"]));
    put("version", s(&id["version"]));
    put("build", s(&id["build"]));
    put("served_model", s(&id["served_model"]));
    put("model_path", s(&id["model_path"]));
    put(
        "model_header_fnv1a64",
        s(&id["model_file"]["header_fnv1a64"]),
    );
    put(
        "model_size_bytes",
        id["model_file"]["size_bytes"]
            .as_u64()
            .map(|v| v.to_string()),
    );
    put("gpu", s(&id["gpu"]["value"]));
    if let Some(set) = id["settings"].as_object() {
        for (k, v) in set {
            put(&format!("settings.{k}"), s(&v["value"]));
        }
    }
    // The suite's shape: a different shape is a change too (the numbers mean other things).
    if let Some(suite) = doc["suite"].as_object() {
        for (k, v) in suite {
            if k == "preset" || k == "repeats" {
                continue;
            }
            put(&format!("suite.{k}"), Some(v.to_string()));
        }
    }
    m
}

fn better_of(meta: &Value) -> Better {
    match meta["better"].as_str() {
        Some("lower") => Better::Lower,
        _ => Better::Higher,
    }
}

fn comparison_json(name: &str, meta: &Value, c: &Comparison) -> Value {
    let (s, lo, hi) = c.slowdown();
    json!({
        "name": name,
        "label": meta["label"],
        "unit": meta["unit"],
        "better": c.better,
        "baseline": c.baseline,
        "latest": c.latest,
        "ratio": c.ratio,
        "low": c.low,
        "high": c.high,
        "verdict": c.verdict.as_str(),
        "slowdown_pct": s * 100.0,
        "slowdown_low_pct": lo * 100.0,
        "slowdown_high_pct": hi * 100.0,
        "n_baseline": c.n_baseline,
        "n_latest": c.n_latest,
        "mann_whitney_u": c.mann_whitney.u,
        "mann_whitney_p": c.mann_whitney.p,
        "mann_whitney_method": c.mann_whitney.method,
        "reason": c.reason,
        "sentence": format!("{} {}", meta["label"].as_str().unwrap_or(name), c.sentence()),
    })
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
    let path = super::diagnose::db_path(&a.db)?;
    let st = store::Store::open(&path)?;
    let mut notes = Vec::new();
    let all = st.list("bench")?;
    let runs: Vec<store::Run> = all
        .iter()
        .filter(|r| r.doc["schema"] == super::bench::SCHEMA)
        .cloned()
        .collect();
    if runs.len() < all.len() {
        notes.push(format!(
            "{} bench run(s) with another schema skipped",
            all.len() - runs.len()
        ));
    }
    if runs.is_empty() {
        bail!(
            "no bench runs in {}: run `headroom bench --url ... --label <version>` first",
            path.display()
        );
    }
    let latest = match &a.latest {
        Some(s) => select(&runs, s, "latest")?,
        None => {
            let key = group_key(runs.last().expect("not empty"));
            select(&runs, &key, "latest")?
        }
    };
    let baseline = match &a.baseline {
        Some(s) => select(&runs, s, "baseline")?,
        None => {
            let ids = latest.ids();
            let prev = runs
                .iter()
                .rev()
                .find(|r| !ids.contains(&r.id) && group_key(r) != latest.key)
                .with_context(|| {
                    format!(
                        "only one version in {} ({}): bench the other version with another \
--label, or name a --baseline",
                        path.display(),
                        latest.describe()
                    )
                })?;
            select(&runs, &group_key(prev), "baseline")?
        }
    };
    if baseline.ids() == latest.ids() {
        bail!(
            "the baseline and the latest are the same runs ({})",
            latest.describe()
        );
    }
    let (bi, li) = (baseline.ids(), latest.ids());
    if let Some(shared) = bi.iter().find(|i| li.contains(i)) {
        bail!(
            "run {shared} is in both the baseline {} and the latest {}: name disjoint runs",
            baseline.describe(),
            latest.describe()
        );
    }
    let (bs, ls) = (&baseline.last().doc["suite"], &latest.last().doc["suite"]);
    if bs["version"] != ls["version"] {
        bail!(
            "the two runs used different suite versions ({} and {}): their metrics are defined \
differently and cannot be compared",
            bs["version"],
            ls["version"]
        );
    }
    for g in [&baseline, &latest] {
        let first = identity_map(&g.runs[0].doc);
        for r in &g.runs[1..] {
            let d = ::regress::diff(&first, &identity_map(&r.doc));
            if !d.is_empty() {
                notes.push(format!(
                    "runs {} and {} of \"{}\" differ in: {}",
                    g.runs[0].id,
                    r.id,
                    g.key,
                    d.iter()
                        .map(|c| c.field.clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }

    // Per metric, in the latest run's order.
    let names = latest.metric_names();
    // Metrics measured on both sides, compared as one family (Holm over their U tests).
    let mut measured: Vec<(String, Value, Vec<f64>, Vec<f64>)> = Vec::new();
    for name in &names {
        let (Some((b, meta)), Some((l, _))) = (baseline.samples(name), latest.samples(name)) else {
            notes.push(format!("{name}: not measured in both runs"));
            continue;
        };
        measured.push((name.clone(), meta, b, l));
    }
    let family: Vec<::regress::MetricSamples> = measured
        .iter()
        .map(|(_, meta, b, l)| ::regress::MetricSamples {
            baseline: b,
            latest: l,
            better: better_of(meta),
        })
        .collect();
    let mut metrics = Vec::new();
    let mut comps: Vec<(String, Value, Comparison)> = Vec::new();
    for ((name, meta, _, _), r) in measured
        .iter()
        .zip(::regress::compare_family(&family, &cfg))
    {
        match r {
            Ok(c) => {
                metrics.push(comparison_json(name, meta, &c));
                comps.push((name.clone(), meta.clone(), c));
            }
            Err(e) => notes.push(format!("{name}: {e}")),
        }
    }
    let changed = ::regress::diff(
        &identity_map(&baseline.last().doc),
        &identity_map(&latest.last().doc),
    );
    if let Some(n) = load_note(&baseline, &latest) {
        notes.push(n);
    }
    let series = series(&runs, &latest, &cfg, &mut notes);

    let headline: Vec<String> = comps
        .iter()
        .filter(|(_, _, c)| c.verdict != Verdict::Unchanged)
        .map(|(n, m, c)| format!("{} {}", m["label"].as_str().unwrap_or(n), c.sentence()))
        .collect();
    let regressed = comps
        .iter()
        .any(|(_, _, c)| c.verdict == Verdict::Regressed);
    let doc = json!({
        "schema": SCHEMA,
        "db": path.display().to_string(),
        "method": {
            "interval": "percentile bootstrap on median(latest) / median(baseline), both sides resampled independently",
            "resamples": cfg.resamples,
            "seed": format!("{:#018x}", cfg.seed),
            "test": "two-sided Mann-Whitney U (exact without ties, else normal with tie and continuity correction), Holm's step-down over the metrics compared (over the steps of each metric in the series)",
            "confidence": cfg.confidence,
            "threshold_pct": a.threshold,
        },
        "baseline": {"key": baseline.key, "run_ids": baseline.ids()},
        "latest": {"key": latest.key, "run_ids": latest.ids()},
        "metrics": metrics,
        "headline": headline,
        "changed": changed,
        "host": {
            "baseline": baseline.last().doc["identity"]["host"],
            "latest": latest.last().doc["identity"]["host"],
        },
        "series": series,
        "notes": notes,
    });
    if a.json {
        output::json(&doc)?;
    } else {
        output::emit(&render(&doc, &baseline, &latest))?;
    }
    Ok(if regressed && a.fail_on_regression {
        Exit::Found
    } else {
        Exit::Ok
    })
}

/// Mean 1-minute load average of this machine over a group's runs (start and end of each), and
/// the CPU count; None when no run recorded it (remote servers).
fn mean_load(g: &Group) -> Option<(f64, f64)> {
    let mut v = Vec::new();
    let mut cpus = None;
    for r in &g.runs {
        let h = &r.doc["identity"]["host"];
        if let (Some(a), Some(b)) = (h["loadavg_1m_start"].as_f64(), h["loadavg_1m_end"].as_f64()) {
            v.push((a + b) / 2.0);
            cpus = cpus.or(h["cpus"].as_f64());
        }
    }
    (!v.is_empty()).then(|| (v.iter().sum::<f64>() / v.len() as f64, cpus.unwrap_or(1.0)))
}

/// A warning when the machine was much busier on one side: on a shared machine that alone
/// moves every metric, and no test on the samples can tell it from a regression.
fn load_note(baseline: &Group, latest: &Group) -> Option<String> {
    let ((b, cpus), (l, _)) = (mean_load(baseline)?, mean_load(latest)?);
    let (lo, hi) = (b.min(l), b.max(l));
    (hi - lo > 0.25 * cpus && hi > 1.5 * lo.max(0.1)).then(|| {
        format!(
            "the machine's load differed between the sides (1-min load average ~{b:.1} baseline, \
~{l:.1} latest, on {cpus} CPUs): a difference this large can move every metric by itself; \
bench both again, alternating, with the same labels (regress pools runs by label)"
        )
    })
}

/// The version series over every group whose suite matches the latest's, when there are 3+.
fn series(runs: &[store::Run], latest: &Group, cfg: &Config, notes: &mut Vec<String>) -> Value {
    let shape = |r: &store::Run| {
        let mut s = r.doc["suite"].clone();
        if let Some(o) = s.as_object_mut() {
            o.remove("repeats");
            o.remove("preset");
        }
        s
    };
    let want = shape(latest.last());
    let all = groups(runs);
    let (same, other): (Vec<Group>, Vec<Group>) =
        all.into_iter().partition(|g| shape(g.last()) == want);
    if same.len() < 3 {
        return Value::Null;
    }
    if !other.is_empty() {
        notes.push(format!(
            "series: {} group(s) with another suite shape left out ({})",
            other.len(),
            other
                .iter()
                .map(|g| g.key.clone())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let names = latest.metric_names();
    let mut out = Vec::new();
    for name in names {
        let mut versions = Vec::new();
        let mut meta = Value::Null;
        for g in &same {
            if let Some((s, m)) = g.samples(&name) {
                versions.push(VersionSamples {
                    version: g.key.clone(),
                    samples: s,
                });
                meta = m;
            }
        }
        if versions.len() < 3 {
            continue;
        }
        let better = better_of(&meta);
        match ::regress::version_series(&versions, better, cfg) {
            Ok(r) => {
                let points: Vec<Value> = r
                    .points
                    .iter()
                    .map(|p| {
                        json!({
                            "version": p.version, "median": p.median, "n": p.n,
                            "vs_first": p.vs_first,
                            "step_verdict": p.step.as_ref().map(|c| c.verdict.as_str()),
                            "step_ratio": p.step.as_ref().map(|c| c.ratio),
                        })
                    })
                    .collect();
                let b = |b: &::regress::Boundary| {
                    json!({
                        "from": b.from, "to": b.to, "gradual": b.gradual,
                        "verdict": b.comparison.verdict.as_str(),
                        "ratio": b.comparison.ratio, "low": b.comparison.low,
                        "high": b.comparison.high,
                        "sentence": b.comparison.sentence(),
                    })
                };
                out.push(json!({
                    "name": name,
                    "label": meta["label"],
                    "unit": meta["unit"],
                    "points": points,
                    "moves": r.moves.iter().map(b).collect::<Vec<_>>(),
                    "first_move": r.first_move.as_ref().map(b),
                }));
            }
            Err(e) => notes.push(format!("series {name}: {e}")),
        }
    }
    json!({
        "versions": same.iter().map(|g| json!({"key": g.key, "run_ids": g.ids()})).collect::<Vec<_>>(),
        "metrics": out,
    })
}

fn fmt(v: f64) -> String {
    physics::provenance::sig(v, 3)
}

fn signed_pct(x: f64) -> String {
    let p = (x * 100.0).round() as i64;
    if p > 0 {
        format!("+{p}")
    } else if p < 0 {
        format!("−{}", -p)
    } else {
        "0".into()
    }
}

fn render(doc: &Value, baseline: &Group, latest: &Group) -> String {
    let mut out = String::new();
    let n = |g: &Group| g.runs.len();
    out.push_str(&format!(
        "headroom regress · latest {} against baseline {}\n",
        latest.describe(),
        baseline.describe()
    ));
    let conf = (doc["method"]["confidence"].as_f64().unwrap_or(0.95) * 100.0).round();
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header(vec![
        "metric".to_string(),
        "baseline".into(),
        "latest".into(),
        format!("change ({conf:.0} % CI)"),
        "p (U)".into(),
        "n".into(),
        "verdict".into(),
    ]);
    for m in doc["metrics"].as_array().into_iter().flatten() {
        let unit = m["unit"].as_str().unwrap_or("");
        let r = m["ratio"].as_f64().unwrap_or(f64::NAN);
        let (lo, hi) = (
            m["low"].as_f64().unwrap_or(f64::NAN),
            m["high"].as_f64().unwrap_or(f64::NAN),
        );
        t.add_row(vec![
            Cell::new(m["label"].as_str().unwrap_or("")),
            Cell::new(format!(
                "{} {unit}",
                fmt(m["baseline"].as_f64().unwrap_or(f64::NAN))
            ))
            .set_alignment(CellAlignment::Right),
            Cell::new(format!(
                "{} {unit}",
                fmt(m["latest"].as_f64().unwrap_or(f64::NAN))
            ))
            .set_alignment(CellAlignment::Right),
            Cell::new(format!(
                "{} % ({} … {} %)",
                signed_pct(r - 1.0),
                signed_pct(lo - 1.0),
                signed_pct(hi - 1.0)
            ))
            .set_alignment(CellAlignment::Right),
            Cell::new(format!(
                "{:.3}",
                m["mann_whitney_p"].as_f64().unwrap_or(f64::NAN)
            ))
            .set_alignment(CellAlignment::Right),
            Cell::new(format!("{} / {}", m["n_baseline"], m["n_latest"]))
                .set_alignment(CellAlignment::Right),
            Cell::new(m["verdict"].as_str().unwrap_or("")),
        ]);
    }
    out.push_str(&format!("{t}\n"));
    let heads: Vec<&str> = doc["headline"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if heads.is_empty() {
        out.push_str(&format!(
            "No change beyond noise in any of {} metrics ({} vs {} run(s)).\n",
            doc["metrics"].as_array().map_or(0, Vec::len),
            n(baseline),
            n(latest)
        ));
    } else {
        for h in heads {
            out.push_str(&format!("{h}\n"));
        }
    }
    let changed = doc["changed"].as_array().cloned().unwrap_or_default();
    if changed.is_empty() {
        out.push_str(
            "What changed: nothing recorded differs (same version, build, model file and \
settings): look outside the engine (load, clocks, thermals, drivers).\n",
        );
    } else {
        out.push_str("What changed between the two runs:\n");
        for c in &changed {
            let show = |v: &Value| v.as_str().unwrap_or("(unrecorded)").to_string();
            out.push_str(&format!(
                "  {:<32} {} → {}\n",
                c["field"].as_str().unwrap_or(""),
                show(&c["baseline"]),
                show(&c["latest"])
            ));
        }
    }
    let load = |side: &str| {
        let h = &doc["host"][side];
        Some(format!(
            "{:.1} → {:.1}",
            h["loadavg_1m_start"].as_f64()?,
            h["loadavg_1m_end"].as_f64()?
        ))
    };
    if let (Some(b), Some(l)) = (load("baseline"), load("latest")) {
        out.push_str(&format!(
            "Machine load (1-min average, start → end of each bench): baseline {b}, latest {l}\n"
        ));
    }
    if let Some(s) = doc["series"].as_object() {
        let versions: Vec<&str> = s["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v["key"].as_str())
            .collect();
        out.push_str(&format!(
            "\nSeries over {} versions (oldest first):\n",
            versions.len()
        ));
        let mut t = Table::new();
        t.load_preset(UTF8_FULL_CONDENSED);
        let ms: Vec<&Value> = s["metrics"].as_array().into_iter().flatten().collect();
        let mut header = vec!["version".to_string()];
        header.extend(ms.iter().map(|m| {
            format!(
                "{} ({})",
                m["label"].as_str().unwrap_or(""),
                m["unit"].as_str().unwrap_or("")
            )
        }));
        t.set_header(header);
        for v in &versions {
            let mut row = vec![Cell::new(v)];
            for m in &ms {
                let p = m["points"]
                    .as_array()
                    .and_then(|ps| ps.iter().find(|p| p["version"] == *v));
                row.push(
                    Cell::new(match p {
                        Some(p) => {
                            let mark = match p["step_verdict"].as_str() {
                                Some("regressed") => " ▼",
                                Some("improved") => " ▲",
                                _ => "",
                            };
                            format!("{}{mark}", fmt(p["median"].as_f64().unwrap_or(f64::NAN)))
                        }
                        None => "-".into(),
                    })
                    .set_alignment(CellAlignment::Right),
                );
            }
            t.add_row(row);
        }
        out.push_str(&format!("{t}\n"));
        for m in &ms {
            let label = m["label"].as_str().unwrap_or("");
            match m["first_move"].as_object() {
                Some(f) => out.push_str(&format!(
                    "{label}: first moved at {} (from {}){}: {}\n",
                    f["to"].as_str().unwrap_or(""),
                    f["from"].as_str().unwrap_or(""),
                    if f["gradual"] == true {
                        ", gradually"
                    } else {
                        ""
                    },
                    f["sentence"].as_str().unwrap_or("")
                )),
                None => out.push_str(&format!("{label}: no version moved it beyond noise\n")),
            }
        }
    }
    for n in doc["notes"].as_array().into_iter().flatten() {
        out.push_str(&format!("note: {}\n", n.as_str().unwrap_or("")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: i64, label: Option<&str>, build: &str, decode: &[f64]) -> store::Run {
        store::Run {
            id,
            kind: "bench".into(),
            created: id as f64,
            label: label.map(str::to_string),
            url: None,
            engine: None,
            model: None,
            doc: json!({
                "schema": "headroom.bench/1",
                "suite": {"version": 1, "preset": "quick", "repeats": 5, "gen_tokens": 24},
                "identity": {"engine": "llama.cpp", "build": build,
                    "settings": {"ubatch": {"value": "512", "source": "process_cmdline"}}},
                "metrics": [{"name": "decode_tps", "label": "decode, 1 stream", "unit": "tok/s",
                    "better": "higher", "samples": decode}],
            }),
        }
    }

    #[test]
    fn grouping_and_selection() {
        let runs = vec![
            run(1, Some("a"), "b1", &[1.0]),
            run(2, None, "b2", &[1.0]),
            run(3, Some("a"), "b1", &[2.0]),
            run(4, None, "b2", &[3.0]),
        ];
        let g = groups(&runs);
        let keys: Vec<&str> = g.iter().map(|g| g.key.as_str()).collect();
        assert_eq!(keys, ["a", "build b2"]);
        assert_eq!(g[0].ids(), vec![1, 3]);
        assert_eq!(g[0].samples("decode_tps").unwrap().0, vec![1.0, 2.0]);
        assert!(g[0].samples("nothing").is_none());
        assert_eq!(select(&runs, "3", "latest").unwrap().ids(), vec![3]);
        assert_eq!(
            select(&runs, "build b2", "latest").unwrap().ids(),
            vec![2, 4]
        );
        let e = select(&runs, "zzz", "baseline").unwrap_err().to_string();
        assert!(e.contains("labels: a, build b2"), "{e}");
    }

    #[test]
    fn identity_map_flattens_settings_and_suite() {
        let r = run(1, None, "b1", &[1.0]);
        let m = identity_map(&r.doc);
        assert_eq!(m["build"], "b1");
        assert_eq!(m["settings.ubatch"], "512");
        assert_eq!(m["suite.gen_tokens"], "24");
        assert!(!m.contains_key("suite.repeats"));
    }

    #[test]
    fn load_difference_is_noted() {
        let with_load = |id: i64, load: f64| {
            let mut r = run(id, Some("x"), "b1", &[1.0]);
            r.doc["identity"]["host"] =
                json!({"loadavg_1m_start": load, "loadavg_1m_end": load, "cpus": 2});
            r
        };
        let g = |r: store::Run| Group {
            key: "x".into(),
            runs: vec![r],
        };
        let n = load_note(&g(with_load(1, 1.0)), &g(with_load(2, 8.0))).unwrap();
        assert!(n.contains("~1.0 baseline, ~8.0 latest, on 2 CPUs"), "{n}");
        assert!(load_note(&g(with_load(1, 1.0)), &g(with_load(2, 1.2))).is_none());
        assert!(load_note(&g(with_load(1, 1.0)), &g(run(2, None, "b", &[1.0]))).is_none());
    }

    #[test]
    fn signed_percentages() {
        assert_eq!(signed_pct(-0.523), "−52");
        assert_eq!(signed_pct(0.08), "+8");
        assert_eq!(signed_pct(0.001), "0");
    }
}
