//! Every replica from a Prometheus store (`headroom fleet`): a handful of PromQL queries, batched
//! by kind across all replicas and engines, fill the same typed samples a scrape gives; each
//! replica's window then goes through the diagnose rules unchanged (the one window type, the one
//! arbitration). Across replicas: the fleet median, the outlier and the imbalance.

pub mod alerts;
pub mod dashboard;
pub mod gpus;
pub mod queries;
pub mod serve;
pub mod window;

use diagnose::{Inputs, RuleId};
use engines::Engine;
use promapi::{PromError, Prometheus, Selector, SelectorError, Series};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use window::{Builder, Grid};

pub const SCHEMA: &str = "headroom.fleet/1";

#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    #[error(transparent)]
    Prometheus(#[from] PromError),
    #[error(transparent)]
    Selector(#[from] SelectorError),
    #[error(
        "no replica under {selector} exports an LLM engine's metrics at {at:.0} (unix seconds; looked for the prefixes {} by label {by:?}); check --selector, --at and that the store scrapes the servers",
        engines::Engine::ALL.map(|e| e.prefix()).join(", ")
    )]
    NoReplicas {
        selector: String,
        by: String,
        at: f64,
    },
    #[error("--window {0} s: must be positive and finite")]
    Window(f64),
    #[error(transparent)]
    Judge(#[from] diagnose::JudgeError),
}

/// What to read.
#[derive(Debug, Clone)]
pub struct Request {
    pub selector: Selector,
    /// The label that names a replica (`instance`).
    pub by: String,
    pub window_s: f64,
    /// The window's end, unix seconds.
    pub at: f64,
    /// Sub-windows for "seen in N% of windows", as diagnose.
    pub sub_windows: usize,
    /// Grid points are at least this many seconds apart (a scrape interval at least, so each
    /// point reads a sample of its own).
    pub min_step_s: f64,
    /// One GPU and model for every replica (the common fleet of like replicas), for the physics
    /// ceiling the rules that need it read; None: those rules stay silent, as in `diagnose`
    /// without `--gpu`.
    pub target: Option<Target>,
    /// Label matchers for the DCGM exporter's series joined to the replicas (`gpus`); None
    /// reads no DCGM.
    pub dcgm: Option<Selector>,
}

/// The GPU and model every replica runs, as `diagnose` takes them (`--gpu`, `--model`, `--gguf`
/// ...), and the catalog they are looked up in.
#[derive(Debug, Clone, Default)]
pub struct Target {
    pub gpu: Option<String>,
    pub model: Option<String>,
    /// A GGUF file whose header gives the model's figures, in place of `model`.
    pub gguf: Option<String>,
    pub tp: Option<u32>,
    pub dtype: Option<String>,
    pub quantization: Option<String>,
    pub catalog: physics::Catalog,
}

/// The `headroom.fleet/1` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FleetDoc {
    pub schema: String,
    pub prometheus: String,
    pub selector: String,
    pub by: String,
    pub window: Window,
    /// Queries sent to the store for this document.
    pub queries: usize,
    pub replicas: Vec<Replica>,
    /// The median of each figure over the replicas that have it.
    pub median: Figures,
    pub outliers: Vec<Outlier>,
    pub imbalance: Imbalance,
    /// The DCGM exporter's series found in the store and how many GPUs were joined; null when
    /// DCGM was not read (`--no-dcgm`).
    #[serde(default)]
    pub dcgm: Option<gpus::DcgmSummary>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Window {
    pub start: f64,
    pub end: f64,
    pub duration_s: f64,
    /// Seconds between the points gauges and counters are read at.
    pub step_s: f64,
    pub sub_windows: usize,
}

/// One replica's figures over the window (None where its engine does not export the input).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figures {
    /// Generated tokens per second.
    pub generation_tps: Option<f64>,
    pub prompt_tps: Option<f64>,
    /// Finished requests per second.
    pub finished_per_s: Option<f64>,
    /// Mean running sequences.
    pub running: Option<f64>,
    pub waiting: Option<f64>,
    /// Mean KV-cache usage, 0–1.
    pub kv_usage: Option<f64>,
    /// Generated tokens per second per running sequence (generation_tps / running).
    pub tps_per_running: Option<f64>,
    /// Generation over the ceiling's aggregate at the ridge batch, 0–1, as `diagnose` reports
    /// `efficiency`; None without a known ceiling (or where measured decode beats the roof).
    #[serde(default)]
    pub efficiency: Option<f64>,
}

impl Figures {
    fn of(inp: &Inputs) -> Figures {
        let w = &inp.window;
        let running = w.running.map(|g| g.mean);
        Figures {
            generation_tps: w.generation_tps,
            prompt_tps: w.prompt_tps,
            finished_per_s: w.finished_per_s,
            running,
            waiting: w.waiting.map(|g| g.mean),
            kv_usage: w.kv_usage.map(|g| g.mean),
            tps_per_running: match (w.generation_tps, running) {
                (Some(g), Some(r)) if r > 0.0 => Some(g / r),
                _ => None,
            },
            efficiency: diagnose::rules::derive(inp, w).efficiency,
        }
    }
}

/// The primary finding of a replica, as diagnose arbitrates it: diagnose's own record of a rule
/// that fired.
pub type Primary = diagnose::report::Fired;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replica {
    /// The replica label's value (`instance`).
    pub replica: String,
    pub engine: Engine,
    pub figures: Figures,
    /// Grid points at which the store had the replica's running gauge (of `window.points`).
    pub points_read: usize,
    pub points: usize,
    /// None: no rule fired (or the window was idle).
    pub primary: Option<Primary>,
    /// Rules that fired and lost to the primary.
    pub held: Vec<RuleId>,
    /// The ceiling the rules read, as `diagnose` reports it; None when no `--gpu`/`--model` was
    /// given (every rule that needs it stays silent).
    #[serde(default)]
    pub ceiling: Option<diagnose::report::CeilingInfo>,
    /// The window was idle (nothing generated, prompted, finished, running or waiting).
    pub idle: bool,
    /// How the replica was joined to the DCGM series' GPUs, or why not; null when the store
    /// holds no DCGM series (or DCGM was not read).
    #[serde(default)]
    pub gpu_join: Option<gpus::GpuJoin>,
    /// The joined GPUs' figures over the window and their findings (throttled, host-bound,
    /// DRAM activity beside the modelled decode share), as `diagnose --dcgm` reports them.
    #[serde(default)]
    pub gpu_telemetry: Option<diagnose::gpu::GpuTelemetry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outlier {
    pub replica: String,
    /// `primary` (its primary differs from most replicas') or `throughput` (its generation per
    /// running sequence is below half its peers' median).
    pub kind: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Imbalance {
    pub fired: bool,
    /// What load was compared: `requests` (finished per second) or `generation` (tokens per
    /// second, where a replica's engine counts no finished requests).
    pub load: Option<String>,
    /// Each replica's share of the fleet's load, 0–1.
    pub shares: BTreeMap<String, f64>,
    pub evidence: Vec<String>,
    pub fix: Vec<String>,
}

/// Below this share of its peers' median generation per running sequence a replica is named.
pub const SLOW_SHARE: f64 = 0.5;
/// A replica carrying at least this multiple of the other replicas' median load is imbalance.
pub const IMBALANCE_RATIO: f64 = 2.0;

/// Everything one fleet reading produced, typed, besides the document: each replica's samples
/// and diagnosis inputs (for tests and for saving a replica's window).
pub struct Reading {
    pub doc: FleetDoc,
    pub samples: BTreeMap<String, Vec<engines::Sample>>,
    pub inputs: BTreeMap<String, Inputs>,
}

fn engine_of_prefix(p: &str) -> Option<Engine> {
    Engine::ALL.into_iter().find(|e| e.prefix() == p)
}

/// Each replica's engine: the prefix that names the most families (the adapters' rule).
fn detect(answer: &[Series], by: &str) -> BTreeMap<String, Engine> {
    let mut best: BTreeMap<String, (f64, Engine)> = BTreeMap::new();
    for s in answer {
        let (Some(r), Some(e)) = (
            s.labels.get(by),
            s.labels
                .get(queries::PREFIX)
                .and_then(|p| engine_of_prefix(p)),
        ) else {
            continue;
        };
        let n = s.points.first().map(|p| p.1).unwrap_or(0.0);
        let slot = best.entry(r.clone()).or_insert((n, e));
        if n > slot.0 {
            *slot = (n, e);
        }
    }
    best.into_iter().map(|(r, (_, e))| (r, e)).collect()
}

/// Read the fleet: ten queries whatever the number of replicas (engine detection, vLLM's config
/// labels, every gauge, every counter, one per histogram concept), sent together: none depends
/// on another's answer, and the store evaluates each on its own core.
pub async fn read(prom: &Prometheus, req: &Request) -> Result<Reading, FleetError> {
    if !(req.window_s.is_finite() && req.window_s > 0.0) {
        return Err(FleetError::Window(req.window_s));
    }
    promapi::check_label(&req.by)?;
    let by = req.by.as_str();
    let sel = &req.selector;
    let sent_before = prom.queries();
    let grid = Grid::new(req.at, req.window_s, req.sub_windows, req.min_step_s);
    let end = grid.end();
    let hist_step = grid.step_s * grid.hist_every as f64;
    let (engine_q, cache_q) = (queries::engines(sel, by), queries::cache_config(sel));
    let (gauge_q, counter_q) = (queries::gauges(sel, by), queries::counters(sel, by));
    let hist_q = queries::histograms(sel, by);
    // DCGM: the GPUs' series over the same grid, and the replicas' labels that tie them.
    let dcgm_q = req
        .dcgm
        .as_ref()
        .map(|d| (gpus::query(d), gpus::identity_query(sel, by)));
    let dcgm_read = async {
        match &dcgm_q {
            Some((q, ids)) => futures_util::future::try_join(
                prom.query_range(q, grid.start, end, grid.step_s),
                prom.query(ids, req.at),
            )
            .await
            .map(Some),
            None => Ok(None),
        }
    };
    let ((detected, configs, gauges, counters, hists), dcgm_answer) =
        futures_util::future::try_join(
            futures_util::future::try_join5(
                prom.query(&engine_q, req.at),
                prom.query(&cache_q, end),
                prom.query_range(&gauge_q, grid.start, end, grid.step_s),
                prom.query_range(&counter_q, grid.start, end, grid.step_s),
                futures_util::future::try_join_all(
                    hist_q
                        .iter()
                        .map(|(_, q)| prom.query_range(q, grid.start, end, hist_step)),
                ),
            ),
            dcgm_read,
        )
        .await?;
    let engines = detect(&detected, by);
    if engines.is_empty() {
        return Err(FleetError::NoReplicas {
            selector: sel.as_str(),
            by: req.by.clone(),
            at: req.at,
        });
    }
    let mut b = Builder::new(grid, by, &engines);
    b.gauges(&gauges);
    b.counters(&counters);
    for ((field, _), h) in hist_q.iter().zip(&hists) {
        b.histograms(field, h);
    }
    let mut samples = b.finish();

    // vLLM's config labels, on every sample of its replica (the scrape path reads them the same).
    for s in &configs {
        let Some(r) = s.labels.get(by) else { continue };
        let Some(v) = samples.get_mut(r) else {
            continue;
        };
        let generation = if s.labels.contains_key("engine") {
            "v1"
        } else {
            "v0"
        };
        let labels: BTreeMap<String, String> = s
            .labels
            .iter()
            .filter(|(k, _)| !["__name__", "job", "instance", "engine", by].contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for x in v.iter_mut() {
            if x.config_labels.is_empty() {
                x.config_labels = labels.clone();
                x.engine_generation = Some(generation.to_string());
            }
        }
    }

    // Each replica's window takes diagnose's own path from samples to verdict: what a replay of
    // the same window would say, this says.
    let none = Target::default();
    let t = req.target.as_ref().unwrap_or(&none);
    let target = diagnose::Target {
        shape: diagnose::Shape {
            url: None,
            duration_s: end - grid.start,
            interval_s: grid.step_s,
            gpu: t.gpu.clone(),
            model: t.model.clone(),
            gguf: t.gguf.clone(),
            engine_args: None,
            tp: t.tp,
            dtype: t.dtype.clone(),
            quantization: t.quantization.clone(),
            price_per_hour: None,
            sub_windows: req.sub_windows,
        },
        replay: None,
    };
    // Each replica's GPUs: joined only where the store holds DCGM series at all.
    let dcgm_readings = dcgm_answer
        .as_ref()
        .map(|(series, _)| gpus::readings(series))
        .filter(|r| !r.is_empty());
    let grouped = dcgm_readings.as_deref().map(gpus::by_device);
    let (joins, dcgm) = match (&dcgm_readings, &dcgm_answer, &req.dcgm) {
        (Some(readings), Some((_, ids)), Some(dsel)) => {
            let mut identities = gpus::identities(ids, by);
            identities.retain(|r, _| samples.contains_key(r));
            let (joins, summary) = gpus::join(&identities, readings, dsel.as_str());
            (joins, Some(summary))
        }
        (None, Some(_), Some(dsel)) => (
            BTreeMap::new(),
            Some(gpus::DcgmSummary {
                selector: dsel.as_str(),
                gpus: 0,
                joined: 0,
                unjoined: Vec::new(),
            }),
        ),
        _ => (BTreeMap::new(), None),
    };
    let mut replicas = Vec::new();
    let mut inputs = BTreeMap::new();
    for (name, s) in &samples {
        if s.is_empty() {
            continue;
        }
        let mut scrapes = diagnose::report::Scrapes {
            ok: s.len(),
            ..Default::default()
        };
        scrapes.judge_coverage();
        let read = diagnose::Read {
            header: header(prom.url(), name, grid.step_s, s[0].t),
            samples: s.clone(),
            scrapes,
            truncated: Vec::new(),
        };
        let join = joins.get(name);
        let keys = join.map(|j| j.0.as_slice()).unwrap_or_default();
        let mut judged = if keys.is_empty() {
            diagnose::judge_samples(read, &target, &t.catalog)?
        } else {
            let mut target = target.clone();
            // Joined by pod: Kubernetes gave the replica exactly these GPUs, so their number is
            // its tensor-parallel width, unless --tp says otherwise. A host's GPUs may serve
            // other work: the width stays the engine's (config) or --tp's.
            let whole = gpus::whole_gpus(keys);
            if target.shape.tp.is_none()
                && whole > 1
                && join.is_some_and(|j| j.1.by.as_deref() == Some("pod"))
            {
                target.shape.tp = Some(whole as u32);
            }
            let tel = diagnose::gpu::Telemetry {
                source: gputel::Source::Dcgm,
                input: format!("{} DCGM series", prom.url()),
                samples: grouped
                    .as_ref()
                    .map(|g| gpus::of_devices(g, keys))
                    .unwrap_or_default(),
                clock: diagnose::gpu::Clock::Arrival,
            };
            diagnose::gpu::judge_samples_with(read, &target, &t.catalog, &tel)?
        };
        let named_gpu = judged.report.ceiling.gpu_from.as_deref() == Some("dcgm");
        // No --gpu and no GPU from DCGM: the ceiling's reason says why the join gave none.
        if let (Some(why), Some(refused)) = (
            judged.report.ceiling.unknown_reason.as_mut(),
            join.and_then(|j| j.1.refused.as_deref()),
        ) {
            if t.gpu.is_none() {
                why.push_str(&format!("; no GPU from DCGM: {refused}"));
            }
        }
        let inp = judged.inputs;
        replicas.push(Replica {
            replica: name.clone(),
            engine: inp.engine,
            figures: Figures::of(&inp),
            points_read: s.iter().filter(|x| x.running.is_some()).count(),
            points: s.len(),
            primary: judged.verdict.primary.as_ref().map(Primary::from),
            held: judged.verdict.held.iter().map(|f| f.rule).collect(),
            ceiling: (req.target.is_some() || named_gpu).then_some(judged.report.ceiling),
            idle: inp.window.idle(),
            gpu_join: join.map(|j| j.1.clone()),
            gpu_telemetry: judged.report.gpu_telemetry,
        });
        inputs.insert(name.clone(), inp);
    }
    let doc = FleetDoc {
        schema: SCHEMA.to_string(),
        prometheus: prom.url().to_string(),
        selector: sel.as_str(),
        by: req.by.clone(),
        window: Window {
            start: grid.start,
            end,
            duration_s: end - grid.start,
            step_s: grid.step_s,
            sub_windows: req.sub_windows,
        },
        queries: prom.queries() - sent_before,
        median: median_figures(&replicas),
        outliers: outliers(&replicas),
        imbalance: imbalance(&replicas),
        dcgm,
        replicas,
    };
    Ok(Reading {
        doc,
        samples,
        inputs,
    })
}

/// A replica's window as a `headroom.recording/1` (one scrape line per grid point, each body the
/// engine's own exposition of the sample), so `headroom diagnose --replay` judges it by the same
/// path as a live window. Counters start at zero at the window's start (their raw values
/// differenced, restarts counted from zero).
pub fn recording(
    prometheus: &str,
    replica: &str,
    step_s: f64,
    samples: &[engines::Sample],
) -> (engines::RecordingHeader, Vec<engines::ScrapeRecord>) {
    let started = samples.first().map(|s| s.t).unwrap_or(0.0);
    let h = header(prometheus, replica, step_s, started);
    let lines = samples
        .iter()
        .map(|s| engines::ScrapeRecord {
            t: s.t,
            ok: true,
            error: None,
            body: Some(engines::adapters::promql::exposition(s)),
            elapsed_s: None,
        })
        .collect();
    (h, lines)
}

/// A replica's recording header: where its window was read, and which replica it is.
fn header(prometheus: &str, replica: &str, step_s: f64, started: f64) -> engines::RecordingHeader {
    let mut h = engines::RecordingHeader::new(prometheus, step_s, started);
    h.extra.insert(
        "fleet_replica".into(),
        serde_json::Value::String(replica.to_string()),
    );
    h
}

fn median_of(rs: &[Replica], f: impl Fn(&Figures) -> Option<f64>) -> Option<f64> {
    numbers::median(&rs.iter().filter_map(|r| f(&r.figures)).collect::<Vec<_>>())
}

pub fn median_figures(rs: &[Replica]) -> Figures {
    Figures {
        generation_tps: median_of(rs, |f| f.generation_tps),
        prompt_tps: median_of(rs, |f| f.prompt_tps),
        finished_per_s: median_of(rs, |f| f.finished_per_s),
        running: median_of(rs, |f| f.running),
        waiting: median_of(rs, |f| f.waiting),
        kv_usage: median_of(rs, |f| f.kv_usage),
        tps_per_running: median_of(rs, |f| f.tps_per_running),
        efficiency: median_of(rs, |f| f.efficiency),
    }
}

fn rule_name(r: Option<RuleId>) -> String {
    match r {
        Some(r) => format!("{} {}", r.as_str(), r.title()),
        None => "no primary".to_string(),
    }
}

/// Replicas whose primary differs from the one a strict majority shares (three replicas at
/// least, so there is a majority to differ from), and replicas whose generation per running
/// sequence is below [`SLOW_SHARE`] of their peers' median (two peers at least). Replicas of
/// another engine than the majority's are compared only with their own engine.
pub fn outliers(rs: &[Replica]) -> Vec<Outlier> {
    let mut out = Vec::new();
    let mut by_engine: BTreeMap<Engine, Vec<&Replica>> = BTreeMap::new();
    for r in rs {
        by_engine.entry(r.engine).or_default().push(r);
    }
    for group in by_engine.values() {
        let n = group.len();
        let mut counts: BTreeMap<Option<RuleId>, usize> = BTreeMap::new();
        for r in group.iter() {
            *counts
                .entry(r.primary.as_ref().map(|p| p.rule))
                .or_default() += 1;
        }
        let mode = counts
            .iter()
            .max_by_key(|(_, c)| **c)
            .map(|(k, c)| (*k, *c));
        if let Some((mode, c)) = mode.filter(|(_, c)| n >= 3 && 2 * c > n) {
            for r in group.iter() {
                let p = r.primary.as_ref().map(|p| p.rule);
                if p != mode {
                    out.push(Outlier {
                        replica: r.replica.clone(),
                        kind: "primary".into(),
                        reason: format!(
                            "primary {} where {c} of {n} {} replicas have {}",
                            rule_name(p),
                            group[0].engine.name(),
                            rule_name(mode)
                        ),
                    });
                }
            }
        }
        for r in group.iter() {
            let Some(x) = r.figures.tps_per_running else {
                continue;
            };
            let peers: Vec<f64> = group
                .iter()
                .filter(|o| o.replica != r.replica)
                .filter_map(|o| o.figures.tps_per_running)
                .collect();
            if peers.len() < 2 {
                continue;
            }
            let Some(m) = numbers::median(&peers) else {
                continue;
            };
            if m > 0.0 && x < SLOW_SHARE * m {
                out.push(Outlier {
                    replica: r.replica.clone(),
                    kind: "throughput".into(),
                    reason: format!(
                        "generation per running sequence {x:.1} tok/s is {} of its peers' median {m:.1} tok/s (below {})",
                        numbers::fmt::percent(x / m),
                        numbers::fmt::percent(SLOW_SHARE)
                    ),
                });
            }
        }
    }
    out
}

/// Load concentrated on few replicas: the busiest carries at least [`IMBALANCE_RATIO`] times
/// the median of the others. Load is finished requests per second where every replica counts
/// them, else generated tokens per second.
pub fn imbalance(rs: &[Replica]) -> Imbalance {
    let quiet = |evidence: Vec<String>| Imbalance {
        fired: false,
        load: None,
        shares: BTreeMap::new(),
        evidence,
        fix: Vec::new(),
    };
    if rs.len() < 2 {
        return quiet(vec!["one replica: nothing to balance".into()]);
    }
    let pick = |f: fn(&Figures) -> Option<f64>| -> Option<Vec<(String, f64)>> {
        rs.iter()
            .map(|r| f(&r.figures).map(|v| (r.replica.clone(), v)))
            .collect()
    };
    let (load, what, unit) = match pick(|f| f.finished_per_s) {
        Some(v) => (v, "requests", "req/s"),
        None => match pick(|f| f.generation_tps) {
            Some(v) => (v, "generation", "tok/s"),
            None => {
                return quiet(vec![
                    "no load figure every replica exports (finished requests or generated tokens)"
                        .into(),
                ])
            }
        },
    };
    let total: f64 = load.iter().map(|x| x.1).sum();
    if total <= 0.0 {
        return quiet(vec![format!("no {what} in the window")]);
    }
    let shares: BTreeMap<String, f64> = load.iter().map(|(r, v)| (r.clone(), v / total)).collect();
    let Some((top, top_v)) = load.iter().max_by(|a, b| a.1.total_cmp(&b.1)).cloned() else {
        return quiet(Vec::new());
    };
    let others = numbers::median(
        &load
            .iter()
            .filter(|(r, _)| *r != top)
            .map(|x| x.1)
            .collect::<Vec<_>>(),
    )
    .unwrap_or(0.0);
    let fired = top_v >= IMBALANCE_RATIO * others;
    let n = rs.len() as f64;
    let ratio = if others > 0.0 {
        format!(
            "{:.1}× the others' median {others:.2} {unit}",
            top_v / others
        )
    } else {
        "the others carry none".to_string()
    };
    let evidence = vec![format!(
        "{top} carries {} of the fleet's {what} ({top_v:.2} {unit}; a fair share is {}), {ratio}: {} {:.0}×",
        numbers::fmt::percent(top_v / total),
        numbers::fmt::percent(1.0 / n),
        if fired { "at or above" } else { "below" },
        IMBALANCE_RATIO
    )];
    Imbalance {
        fired,
        load: Some(what.to_string()),
        shares,
        evidence,
        fix: if fired {
            vec![
                "route by load rather than by hash or stickiness alone: least outstanding requests (`headroom route --policy least-loaded`), or cap how far prefix affinity may load one replica".into(),
                "check the load balancer's weights and health checks: a replica marked down or weighted low pushes its share onto the rest".into(),
            ]
        } else {
            Vec::new()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replica(name: &str, rule: Option<RuleId>, gen: f64, running: f64, fin: f64) -> Replica {
        Replica {
            replica: name.into(),
            engine: Engine::Vllm,
            figures: Figures {
                generation_tps: Some(gen),
                finished_per_s: Some(fin),
                running: Some(running),
                tps_per_running: Some(gen / running),
                ..Default::default()
            },
            points_read: 7,
            points: 7,
            primary: rule.map(|r| Primary {
                rule: r,
                title: r.title().into(),
                variant: None,
                evidence: vec![],
                fix: vec![],
                seen_in: None,
            }),
            held: vec![],
            ceiling: None,
            idle: false,
            gpu_join: None,
            gpu_telemetry: None,
        }
    }

    #[test]
    fn the_odd_primary_and_the_slow_replica_are_named() {
        let rs = [
            replica("a", None, 1000.0, 10.0, 5.0),
            replica("b", None, 1100.0, 10.0, 5.0),
            replica("c", Some(RuleId::R3), 300.0, 10.0, 5.0),
        ];
        let o = outliers(&rs);
        assert_eq!(o.len(), 2, "{o:?}");
        assert!(o.iter().all(|x| x.replica == "c"));
        assert!(
            o[0].reason
                .contains("R3 Low prefix reuse where 2 of 3 vLLM replicas have no primary"),
            "{}",
            o[0].reason
        );
        assert!(
            o[1].reason
                .contains("30.0 tok/s is 28.6 % of its peers' median 105.0"),
            "{}",
            o[1].reason
        );
        // No majority, no primary outlier; two replicas, no peers' median.
        let split = [
            replica("a", None, 1000.0, 10.0, 5.0),
            replica("b", Some(RuleId::R1), 1000.0, 10.0, 5.0),
            replica("c", Some(RuleId::R3), 1000.0, 10.0, 5.0),
        ];
        assert!(outliers(&split).is_empty());
        assert!(outliers(&rs[..2]).is_empty());
    }

    #[test]
    fn imbalance_needs_twice_the_others_median() {
        let even = [
            replica("a", None, 1000.0, 10.0, 5.0),
            replica("b", None, 1000.0, 10.0, 6.0),
            replica("c", None, 1000.0, 10.0, 4.0),
        ];
        let i = imbalance(&even);
        assert!(!i.fired, "{i:?}");
        assert_eq!(i.load.as_deref(), Some("requests"));
        let hot = [
            replica("a", None, 1000.0, 10.0, 12.0),
            replica("b", None, 1000.0, 10.0, 3.0),
            replica("c", None, 1000.0, 10.0, 5.0),
        ];
        let i = imbalance(&hot);
        assert!(i.fired);
        assert!((i.shares["a"] - 0.6).abs() < 1e-12);
        assert!(
            i.evidence[0].contains("a carries 60 % of the fleet's requests"),
            "{:?}",
            i.evidence
        );
        assert!(
            i.evidence[0].contains("3.0× the others' median 4.00 req/s"),
            "{:?}",
            i.evidence
        );
        assert!(!imbalance(&hot[..1]).fired);
    }
}
