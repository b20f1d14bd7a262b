//! `headroom dashboard`: a Grafana dashboard (its JSON model) whose every panel asks for a
//! concept the way a fleet reading does ([`crate::queries::panel_expr`]), from the engine
//! modules' names: every engine, every version's name for it (a rename is a preference, the
//! new name where a server has it, the old one elsewhere), combined per replica the engine's
//! way. A static dashboard breaks at each metric rename (vLLM's `gpu_cache_usage_perc` →
//! `kv_cache_usage_perc`); this one is written from the table that knows
//! them, and is written again when the table learns a new one. Panels for headroom's own
//! verdict series (`fleet --serve`) close it.
//!
//! A [`Scope`] narrows it to some engines, and to the names a store holds ([`held`] asks the
//! store's index which of the table's names it has): a panel then reads only the engines and
//! the version's names present, and a concept none of them exports is left out, with the
//! reason in [`Written::dropped`].
//!
//! The JSON model: https://grafana.com/docs/grafana/latest/dashboards/build-dashboards/view-dashboard-json-model/

use crate::queries::panel_expr_of;
use engines::adapters::promql::{Combine, Concept, Kind, CONCEPTS};
use engines::Engine;
use promapi::{Prometheus, Selector};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Grafana's JSON model, the fields this dashboard sets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Dashboard {
    pub title: String,
    pub uid: String,
    pub description: String,
    pub schema_version: u32,
    pub editable: bool,
    pub refresh: String,
    pub time: TimeRange,
    pub tags: Vec<String>,
    pub templating: Templating,
    pub panels: Vec<Panel>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeRange {
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Templating {
    pub list: Vec<Variable>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    pub name: String,
    pub label: String,
    /// `datasource` or `query`.
    #[serde(rename = "type")]
    pub kind: String,
    pub query: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datasource: Option<DataSource>,
    pub include_all: bool,
    pub multi: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_value: Option<String>,
    /// 2: refresh the values when the time range changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataSource {
    #[serde(rename = "type")]
    pub kind: String,
    pub uid: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Panel {
    pub id: u32,
    /// `timeseries`.
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub description: String,
    pub grid_pos: GridPos,
    pub datasource: DataSource,
    pub targets: Vec<Target>,
    pub field_config: FieldConfig,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridPos {
    pub h: u32,
    pub w: u32,
    pub x: u32,
    pub y: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    pub ref_id: String,
    pub expr: String,
    pub legend_format: String,
    pub datasource: DataSource,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldConfig {
    pub defaults: FieldDefaults,
    /// Required by Grafana's schema; none are written.
    pub overrides: Vec<FieldOverride>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldOverride {
    pub matcher: Matcher,
    pub properties: Vec<Property>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Matcher {
    pub id: String,
    pub options: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Property {
    pub id: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldDefaults {
    pub unit: String,
}

/// The panel of each concept: its title, its unit (Grafana's unit ids) and what it shows.
fn panel_of(field: &str) -> Option<(&'static str, &'static str)> {
    Some(match field {
        "running" => ("Running requests", "short"),
        "waiting" => ("Waiting requests", "short"),
        "swapped" => ("Swapped requests", "short"),
        "kv_usage" => ("KV cache usage", "percentunit"),
        "prompt_tokens" => ("Prompt tokens per second", "short"),
        "generation_tokens" => ("Generated tokens per second", "short"),
        "preemptions" => ("Preemptions per second", "short"),
        "requests_finished" => ("Finished requests per second", "reqps"),
        "prefix_queries" => ("Prefix-cache lookups per second (tokens)", "short"),
        "prefix_hits" => ("Prefix-cache hits per second (tokens)", "short"),
        "cached_prompt_tokens" => ("Cached prompt tokens per second", "short"),
        "decode_calls" => ("Decode calls per second", "short"),
        "ttft" => ("Time to first token, p50 and p95", "s"),
        "itl" => ("Inter-token latency, p50 and p95", "s"),
        "e2e" => ("End-to-end latency, p50 and p95", "s"),
        "queue_time" => ("Queue time, p50 and p95", "s"),
        "prompt_len" => ("Prompt length, p50 and p95 (tokens)", "short"),
        "gen_len" => ("Generation length, p50 and p95 (tokens)", "short"),
        _ => return None,
    })
}

/// What the dashboard is written for.
#[derive(Debug, Clone)]
pub struct Options {
    /// The label that names a replica (`instance`).
    pub by: String,
    pub title: String,
}

/// The Prometheus data source variable every panel reads through.
pub const DATASOURCE: &str = "${datasource}";
/// Grafana's rate window for the scrape interval; a test substitutes a fixed one.
pub const RATE_INTERVAL: &str = "$__rate_interval";

/// The concept a panel shows, with the name of its Sample field: `None` for headroom's own.
pub fn concept_of(p: &Panel) -> Option<&'static Concept> {
    CONCEPTS
        .iter()
        .find(|c| panel_of(c.field).is_some_and(|(t, _)| t == p.title))
}

/// Which engines, and which of their names, the dashboard reads.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// Only these engines (empty: every engine in the table).
    pub engines: Vec<Engine>,
    /// Only the names a store holds, as it holds them ([`held`]); `None`: every name.
    pub held: Option<BTreeSet<String>>,
}

impl Scope {
    fn chosen(&self, e: Engine) -> bool {
        self.engines.is_empty() || self.engines.contains(&e)
    }

    /// Whether the store holds the table's `name` of a concept of `kind`.
    fn holds(&self, name: &str, kind: Kind) -> bool {
        self.held
            .as_ref()
            .is_none_or(|h| stored_forms(name, kind).iter().any(|f| h.contains(f)))
    }
}

/// The names a store holds a table name under: a counter with or without `_total` (the
/// client libraries' two spellings), a histogram by its buckets (what a panel reads).
pub fn stored_forms(name: &str, kind: Kind) -> Vec<String> {
    match kind {
        Kind::Gauge => vec![name.to_string()],
        Kind::Counter => vec![format!("{name}_total"), name.to_string()],
        Kind::Histogram => vec![format!("{name}_bucket")],
    }
}

/// Every name a panel of `engines` (empty: all) can read, in each form a store holds it:
/// what [`held`] asks the store about. Sorted, each once.
pub fn wanted(engines: &[Engine]) -> Vec<String> {
    let scope = Scope {
        engines: engines.to_vec(),
        held: None,
    };
    let set: BTreeSet<String> = CONCEPTS
        .iter()
        .filter(|c| panel_of(c.field).is_some())
        .flat_map(|c| {
            c.rows()
                .filter(|(e, _)| scope.chosen(*e))
                .flat_map(move |(_, n)| n.names.iter().flat_map(move |x| stored_forms(x, c.kind)))
        })
        .collect();
    set.into_iter().collect()
}

/// Which of [`wanted`]`(engines)` the store holds series of between `start` and `end` (unix
/// seconds): one label-values request, answered from the store's index.
pub async fn held(
    prom: &Prometheus,
    engines: &[Engine],
    start: f64,
    end: f64,
) -> Result<BTreeSet<String>, promapi::PromError> {
    // Metric names are [a-zA-Z_:][a-zA-Z0-9_:]*: nothing in them a regex reads as an operator.
    let re = wanted(engines).join("|");
    let m = Selector::default().by_name_re(&re);
    Ok(prom
        .label_values("__name__", &[m], start, end)
        .await?
        .into_iter()
        .collect())
}

/// The engines of `engines` (empty: all) with a name in `held`, in the table's order.
pub fn found(held: &BTreeSet<String>, engines: &[Engine]) -> Vec<Engine> {
    Engine::ALL
        .into_iter()
        .filter(|e| {
            (engines.is_empty() || engines.contains(e))
                && wanted(&[*e]).iter().any(|n| held.contains(n))
        })
        .collect()
}

/// A dashboard written for a [`Scope`], with what the scope left out.
#[derive(Debug, Clone)]
pub struct Written {
    pub dashboard: Dashboard,
    /// The engines the panels read, in the table's order.
    pub engines: Vec<Engine>,
    /// The concepts' panels left out, in panel order.
    pub dropped: Vec<Dropped>,
    /// The rows read under some of their names only (a store holding one side of a rename).
    pub narrowed: Vec<Narrowed>,
}

/// A panel left out, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Dropped {
    pub title: &'static str,
    pub reason: String,
}

/// One engine's row of a panel read under some of its names.
#[derive(Debug, Clone, PartialEq)]
pub struct Narrowed {
    pub title: &'static str,
    pub engine: Engine,
    pub read: Vec<&'static str>,
    /// The row's names the store does not hold.
    pub absent: Vec<&'static str>,
}

#[derive(Debug, thiserror::Error)]
pub enum DashboardError {
    #[error(transparent)]
    Selector(#[from] promapi::SelectorError),
    #[error(
        "the store holds no series of {}: looked for {}",
        engines.iter().map(|e| e.name()).collect::<Vec<_>>().join(", "),
        looked_for.join(", ")
    )]
    NoneHeld {
        engines: Vec<Engine>,
        looked_for: Vec<String>,
    },
}

/// The dashboard for every engine, every name.
pub fn dashboard(o: &Options) -> Result<Dashboard, DashboardError> {
    Ok(dashboard_for(o, &Scope::default())?.dashboard)
}

/// The dashboard for `scope`'s engines and names.
pub fn dashboard_for(o: &Options, scope: &Scope) -> Result<Written, DashboardError> {
    promapi::check_label(&o.by)?;
    let engines: Vec<Engine> = match &scope.held {
        Some(h) => found(h, &scope.engines),
        None => Engine::ALL
            .into_iter()
            .filter(|e| scope.chosen(*e))
            .collect(),
    };
    if engines.is_empty() {
        return Err(DashboardError::NoneHeld {
            engines: Engine::ALL
                .into_iter()
                .filter(|e| scope.chosen(*e))
                .collect(),
            looked_for: wanted(&scope.engines),
        });
    }
    let names = |es: &[Engine]| es.iter().map(|e| e.name()).collect::<Vec<_>>().join(", ");
    let (mut dropped, mut narrowed) = (Vec::new(), Vec::new());
    let by = o.by.as_str();
    let ds = DataSource {
        kind: "prometheus".into(),
        uid: DATASOURCE.into(),
    };
    let sel = Selector::parse(&format!("{{{by}=~\"${by}\"}}"))?;
    let mut panels = Vec::new();
    let mut add = |title: &str, description: String, unit: &str, targets: Vec<(String, String)>| {
        let n = panels.len() as u32;
        panels.push(Panel {
            id: n + 1,
            kind: "timeseries".into(),
            title: title.into(),
            description,
            grid_pos: GridPos {
                h: 8,
                w: 12,
                x: (n % 2) * 12,
                y: (n / 2) * 8,
            },
            datasource: ds.clone(),
            targets: targets
                .into_iter()
                .enumerate()
                .map(|(i, (legend, expr))| Target {
                    ref_id: ((b'A' + i as u8) as char).to_string(),
                    expr,
                    legend_format: legend,
                    datasource: ds.clone(),
                })
                .collect(),
            field_config: FieldConfig {
                defaults: FieldDefaults { unit: unit.into() },
                overrides: Vec::new(),
            },
        });
    };
    for c in CONCEPTS {
        let Some((title, unit)) = panel_of(c.field) else {
            continue;
        };
        let mut rows: Vec<(Vec<&'static str>, Combine)> = Vec::new();
        let mut absent_rows: Vec<&str> = Vec::new();
        for (e, n) in c.rows().filter(|(e, _)| engines.contains(e)) {
            let (read, absent): (Vec<&'static str>, Vec<&'static str>) =
                n.names.iter().partition(|x| scope.holds(x, c.kind));
            if read.is_empty() {
                absent_rows.extend(absent);
                continue;
            }
            if !absent.is_empty() {
                narrowed.push(Narrowed {
                    title,
                    engine: e,
                    read: read.clone(),
                    absent,
                });
            }
            rows.push((read, n.combine));
        }
        if rows.is_empty() {
            let reason = if absent_rows.is_empty() {
                let from: BTreeSet<Engine> = c.rows().map(|(e, _)| e).collect();
                let from: Vec<Engine> = from.into_iter().collect();
                format!(
                    "{} export{} no series for it (the table has it from {})",
                    names(&engines),
                    if engines.len() == 1 { "s" } else { "" },
                    names(&from)
                )
            } else {
                format!("the store holds none of {}", absent_rows.join(", "))
            };
            dropped.push(Dropped { title, reason });
            continue;
        }
        let read: Vec<&str> = rows.iter().flat_map(|(n, _)| n.iter().copied()).collect();
        let description = if scope.held.is_some() || !scope.engines.is_empty() {
            format!(
                "The series read, new names before old (headroom's engine table, {}): {}",
                if scope.held.is_some() {
                    "the names the store held"
                } else {
                    "the engines chosen"
                },
                read.join(", ")
            )
        } else {
            format!(
                "Every engine's series for this, new names before old (headroom's engine table): {}",
                read.join(", ")
            )
        };
        let rows: Vec<(&[&str], Combine)> =
            rows.iter().map(|(n, cb)| (n.as_slice(), *cb)).collect();
        let expr = |part: &str| panel_expr_of(c, &rows, &sel, by, part, RATE_INTERVAL);
        let legend = format!("{{{{{by}}}}}");
        let targets = match c.kind {
            Kind::Gauge | Kind::Counter => {
                vec![(legend, expr(""))]
            }
            Kind::Histogram => [0.5, 0.95]
                .iter()
                .map(|q| {
                    (
                        format!("{legend} p{}", (q * 100.0) as u32),
                        format!("histogram_quantile({q}, {})", expr("bucket")),
                    )
                })
                .collect(),
        };
        add(title, description, unit, targets);
    }
    add(
        "headroom: primary finding per replica",
        "1 while headroom fleet --serve names the rule in the legend the replica's primary bottleneck (rule none: nothing fired).".into(),
        "short",
        vec![(
            "{{replica}} {{rule}} {{title}}: {{fix}}".to_string(),
            "headroom_fleet_primary".into(),
        )],
    );
    add(
        "headroom: share of the hardware ceiling",
        "Generation over the ceiling's aggregate at the ridge batch (fleet --serve with --gpu and --model).".into(),
        "percentunit",
        vec![(
            "{{replica}}".into(),
            "headroom_fleet_efficiency_ratio".into(),
        )],
    );
    let description = match (&scope.held, scope.engines.is_empty()) {
        (None, true) => "Written by `headroom dashboard`: every engine's and version's metric names from headroom's table; write it again after upgrading headroom.".to_string(),
        (None, false) => format!("Written by `headroom dashboard` for {}: each version's metric names from headroom's table; write it again after upgrading headroom.", names(&engines)),
        (Some(_), _) => format!("Written by `headroom dashboard --prometheus` for the engines and names the store held: {}; write it again after adding an engine or upgrading one.", names(&engines)),
    };
    let dashboard = Dashboard {
        title: o.title.clone(),
        uid: "headroom-fleet".into(),
        description,
        schema_version: 39,
        editable: true,
        refresh: "30s".into(),
        time: TimeRange {
            from: "now-1h".into(),
            to: "now".into(),
        },
        tags: vec!["headroom".into(), "llm-serving".into()],
        templating: Templating {
            list: vec![
                Variable {
                    name: "datasource".into(),
                    label: "Prometheus".into(),
                    kind: "datasource".into(),
                    query: "prometheus".into(),
                    datasource: None,
                    include_all: false,
                    multi: false,
                    all_value: None,
                    refresh: None,
                },
                Variable {
                    name: by.into(),
                    label: by.into(),
                    kind: "query".into(),
                    query: format!("label_values({by})"),
                    datasource: Some(ds.clone()),
                    include_all: true,
                    multi: true,
                    all_value: Some(".*".into()),
                    refresh: Some(2),
                },
            ],
        },
        panels,
    };
    Ok(Written {
        dashboard,
        engines,
        dropped,
        narrowed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_concept_has_a_panel() {
        for c in CONCEPTS {
            assert!(panel_of(c.field).is_some(), "no panel for {}", c.field);
        }
        let d = dashboard(&Options {
            by: "instance".into(),
            title: "t".into(),
        })
        .unwrap();
        assert_eq!(d.panels.len(), CONCEPTS.len() + 2);
        // vLLM's KV rename: both names, the new one preferred.
        let kv = d
            .panels
            .iter()
            .find(|p| p.title == "KV cache usage")
            .unwrap();
        let e = &kv.targets[0].expr;
        let (new, old) = (
            e.find("vllm:kv_cache_usage_perc").expect("new name"),
            e.find("vllm:gpu_cache_usage_perc").expect("old name"),
        );
        assert!(new < old, "{e}");
        assert!(e.contains("unless on (instance)"), "{e}");
        assert!(dashboard(&Options {
            by: "bad-label".into(),
            title: "t".into()
        })
        .is_err());
    }

    fn opts() -> Options {
        Options {
            by: "instance".into(),
            title: "t".into(),
        }
    }

    fn held(names: &[String]) -> Scope {
        Scope {
            engines: Vec::new(),
            held: Some(names.iter().cloned().collect()),
        }
    }

    /// Every expression of a panel.
    fn exprs(p: &Panel) -> String {
        p.targets
            .iter()
            .map(|t| t.expr.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn a_store_holding_every_name_gets_the_full_dashboards_panels() {
        let full = dashboard(&opts()).unwrap();
        let w = dashboard_for(&opts(), &held(&wanted(&[]))).unwrap();
        assert_eq!(w.engines, Engine::ALL.to_vec());
        assert!(w.dropped.is_empty() && w.narrowed.is_empty(), "{w:?}");
        let strip = |d: &Dashboard| -> Vec<(String, Vec<Target>)> {
            d.panels
                .iter()
                .map(|p| (p.title.clone(), p.targets.clone()))
                .collect()
        };
        assert_eq!(strip(&w.dashboard), strip(&full));
    }

    #[test]
    fn one_engines_store_reads_that_engine_only_and_says_what_it_left_out() {
        let l = Engine::LlamaCpp;
        let w = dashboard_for(&opts(), &held(&wanted(&[l]))).unwrap();
        assert_eq!(w.engines, vec![l]);
        for p in &w.dashboard.panels {
            let e = exprs(p);
            for other in Engine::ALL.into_iter().filter(|o| *o != l) {
                assert!(!e.contains(other.prefix()), "{}: {e}", p.title);
            }
        }
        // Left out: exactly the concepts llama.cpp has no row for, each said so.
        let without: Vec<&str> = CONCEPTS
            .iter()
            .filter(|c| l.def().store_names(c.field).is_empty())
            .filter_map(|c| panel_of(c.field).map(|(t, _)| t))
            .collect();
        assert!(!without.is_empty());
        assert_eq!(
            w.dropped.iter().map(|d| d.title).collect::<Vec<_>>(),
            without
        );
        assert!(w
            .dropped
            .iter()
            .all(|d| d.reason.starts_with("llama.cpp exports no series")));
        assert_eq!(w.dashboard.panels.len(), CONCEPTS.len() - without.len() + 2);
        // --engine without a store gives the same panels.
        let chosen = dashboard_for(
            &opts(),
            &Scope {
                engines: vec![l],
                held: None,
            },
        )
        .unwrap();
        assert_eq!(
            chosen
                .dashboard
                .panels
                .iter()
                .map(exprs)
                .collect::<Vec<_>>(),
            w.dashboard.panels.iter().map(exprs).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_rename_is_read_under_the_names_the_store_holds() {
        let v = Engine::Vllm;
        let row = v
            .def()
            .store_names("kv_usage")
            .into_iter()
            .find(|r| r.len() > 1)
            .expect("vLLM's KV usage was renamed");
        let (new, old) = (row[0], row[1]);
        let kv = |w: &Written| {
            exprs(
                w.dashboard
                    .panels
                    .iter()
                    .find(|p| p.title == "KV cache usage")
                    .unwrap(),
            )
        };
        // A V1-only store: the new name alone, no preference clause, and the rename said.
        let w = dashboard_for(&opts(), &held(&[new.to_string()])).unwrap();
        let e = kv(&w);
        assert!(
            e.contains(new) && !e.contains(old) && !e.contains("unless"),
            "{e}"
        );
        assert_eq!(
            w.narrowed,
            vec![Narrowed {
                title: "KV cache usage",
                engine: v,
                read: vec![new],
                absent: vec![old],
            }]
        );
        // A V0-only store: the old name.
        let e = kv(&dashboard_for(&opts(), &held(&[old.to_string()])).unwrap());
        assert!(e.contains(old) && !e.contains(new), "{e}");
        // Both versions in one store: both, the new preferred, nothing narrowed.
        let w = dashboard_for(&opts(), &held(&[new.to_string(), old.to_string()])).unwrap();
        let e = kv(&w);
        assert!(e.find(new) < e.find(old) && e.contains("unless"), "{e}");
        assert!(w.narrowed.is_empty());
        // Only KV in the store: every other concept is left out, naming what was missing.
        assert_eq!(w.dashboard.panels.len(), 1 + 2);
        let running = w
            .dropped
            .iter()
            .find(|d| d.title == "Running requests")
            .unwrap();
        let vr = &v.def().store_names("running")[0];
        assert_eq!(
            running.reason,
            format!("the store holds none of {}", vr.join(", "))
        );
    }

    #[test]
    fn a_counter_is_found_with_or_without_its_total_suffix() {
        let l = Engine::LlamaCpp;
        let base = l.def().store_names("decode_calls")[0][0];
        for held_as in [base.to_string(), format!("{base}_total")] {
            let w = dashboard_for(&opts(), &held(std::slice::from_ref(&held_as))).unwrap();
            assert_eq!(w.engines, vec![l], "{held_as}");
            assert!(
                w.dashboard.panels.iter().any(|p| exprs(p).contains(base)),
                "{held_as}"
            );
        }
        // Only the names it asks about count: another metric of the same prefix does not.
        assert!(wanted(&[]).iter().all(|n| Engine::of_metric(n).is_some()));
    }

    #[test]
    fn a_store_without_any_engines_names_is_refused_naming_them() {
        let e = dashboard_for(&opts(), &held(&["up".to_string()])).unwrap_err();
        let DashboardError::NoneHeld {
            engines,
            looked_for,
        } = &e
        else {
            panic!("{e}");
        };
        assert_eq!(engines, &Engine::ALL.to_vec());
        assert_eq!(looked_for, &wanted(&[]));
        let msg = e.to_string();
        assert!(
            msg.contains(&wanted(&[])[0]) && msg.contains("vLLM"),
            "{msg}"
        );
        // Restricted to one engine, the refusal names only its names.
        let e = dashboard_for(
            &opts(),
            &Scope {
                engines: vec![Engine::Tgi],
                held: Some(wanted(&[Engine::Vllm]).into_iter().collect()),
            },
        )
        .unwrap_err();
        assert!(!e.to_string().contains(Engine::Vllm.prefix()), "{e}");
    }
}
