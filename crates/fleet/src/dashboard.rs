//! `headroom dashboard`: a Grafana dashboard (its JSON model) whose every panel asks for a
//! concept the way a fleet reading does ([`crate::queries::panel_expr`]), from the engine
//! modules' names: every engine, every version's name for it (a rename is a preference, the
//! new name where a server has it, the old one elsewhere), combined per replica the engine's
//! way. A static dashboard breaks at each metric rename (vLLM's `gpu_cache_usage_perc` →
//! `kv_cache_usage_perc`, SGLang's prefixes); this one is written from the table that knows
//! them, and is written again when the table learns a new one. Panels for headroom's own
//! verdict series (`fleet --serve`) close it.
//!
//! The JSON model: https://grafana.com/docs/grafana/latest/dashboards/build-dashboards/view-dashboard-json-model/

use crate::queries::panel_expr;
use engines::adapters::promql::{Concept, Kind, CONCEPTS};
use promapi::Selector;
use serde::{Deserialize, Serialize};

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

/// The dashboard.
pub fn dashboard(o: &Options) -> Result<Dashboard, promapi::SelectorError> {
    promapi::check_label(&o.by)?;
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
        let names: Vec<String> = c
            .engines()
            .flat_map(|n| n.names.iter().map(|s| s.to_string()))
            .collect();
        let description = format!(
            "Every engine's series for this, new names before old (headroom's engine table): {}",
            names.join(", ")
        );
        let legend = format!("{{{{{by}}}}}");
        let targets = match c.kind {
            Kind::Gauge | Kind::Counter => {
                vec![(legend, panel_expr(c, &sel, by, "", RATE_INTERVAL))]
            }
            Kind::Histogram => [0.5, 0.95]
                .iter()
                .map(|q| {
                    (
                        format!("{legend} p{}", (q * 100.0) as u32),
                        format!(
                            "histogram_quantile({q}, {})",
                            panel_expr(c, &sel, by, "bucket", RATE_INTERVAL)
                        ),
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
    Ok(Dashboard {
        title: o.title.clone(),
        uid: "headroom-fleet".into(),
        description: "Written by `headroom dashboard`: every engine's and version's metric names from headroom's table; write it again after upgrading headroom.".into(),
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
}
