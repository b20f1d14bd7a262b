//! `headroom dashboard` against a real Prometheus (Debian's, started by testpeers) holding the
//! committed real expositions of each engine version headroom has a capture of, backfilled at
//! two times each (the idle capture, then the loaded one, so counters have a rate): vLLM 0.32,
//! vLLM's V0 (before the KV rename), SGLang 0.5.23 and llama.cpp. Every panel's expression
//! returns data for an engine exactly where that engine exports the concept in its capture,
//! under whichever of its names the capture uses. (TGI and LMDeploy have family lists from
//! their source in fixtures, no capture: they are not in this test.)

use crate::util::{bin, openmetrics};
use engines::prom::Exposition;
use std::path::Path;
use std::process::Command;
use testpeers::prometheus::Prometheus;

fn capture(rel: &str) -> Exposition {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    engines::prom::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn every_panel_resolves_against_each_engine_versions_capture() {
    let _serial = testpeers::serial();
    if testpeers::prometheus::binary().is_none() || testpeers::prometheus::promtool().is_none() {
        return;
    }
    let out = Command::new(bin()).arg("dashboard").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dash: fleet::dashboard::Dashboard =
        serde_json::from_slice(&out.stdout).expect("the dashboard reads back as its model");

    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let (t0, t1) = ((now / 60 * 60 - 600) as f64, (now / 60 * 60 - 540) as f64);
    type Capture = (&'static str, engines::Engine, Vec<(f64, Exposition)>);
    let sets: Vec<Capture> = vec![
        (
            "vllm-0.32",
            engines::Engine::Vllm,
            vec![
                (t0, capture("vllm-0.32/metrics-idle.prom")),
                (t1, capture("vllm-0.32/metrics-8-clients.prom")),
            ],
        ),
        (
            "vllm-v0",
            engines::Engine::Vllm,
            vec![
                (t0, capture("metrics/vllm-v0-aibrix-docs-1.prom")),
                (t1, capture("metrics/vllm-v0-aibrix-docs-1.prom")),
            ],
        ),
        (
            "sglang-0.5.23",
            engines::Engine::Sglang,
            vec![
                (t0, capture("sglang-0.5.23/metrics-idle.prom")),
                (t1, capture("sglang-0.5.23/metrics-4-clients.prom")),
            ],
        ),
        (
            "llamacpp",
            engines::Engine::LlamaCpp,
            vec![
                (t0, capture("llamacpp-11434/metrics-idle.prom")),
                (t1, capture("llamacpp-11434/metrics-6-clients.prom")),
            ],
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let om = dir.path().join("captures.om");
    let refs: Vec<(&str, &[(f64, Exposition)])> =
        sets.iter().map(|(i, _, s)| (*i, s.as_slice())).collect();
    std::fs::write(&om, openmetrics(&refs, "captures")).unwrap();
    let Some(prom) = Prometheus::start_backfilled(&om) else {
        return;
    };

    let mut checked = 0;
    let mut resolved_old_name = false;
    for panel in &dash.panels {
        let Some(concept) = fleet::dashboard::concept_of(panel) else {
            assert!(
                panel
                    .targets
                    .iter()
                    .all(|t| t.expr.starts_with("headroom_fleet_")),
                "{}: a panel that is no concept reads headroom's own series",
                panel.title
            );
            continue;
        };
        for (instance, engine, scrapes) in &sets {
            // Does the capture hold the concept, under any name its engine's table gives it?
            let rows = engine.def().store_names(concept.field);
            // A rate needs the counter at both times; a series that first appears under load
            // (SGLang's cached tokens) has one point and no rate.
            let at = |i: usize, n: &str| {
                scrapes[i].1.samples().any(|s| {
                    s.name == n || s.name == format!("{n}_total") || s.name == format!("{n}_bucket")
                })
            };
            let exposed = |n: &str| match concept.kind {
                engines::adapters::promql::Kind::Gauge => at(1, n),
                _ => at(0, n) && at(1, n),
            };
            let expected = rows.iter().any(|r| r.iter().any(|n| exposed(n)));
            if rows
                .iter()
                .any(|r| r.len() > 1 && !exposed(r[0]) && expected)
            {
                resolved_old_name = true;
            }
            for target in &panel.targets {
                let expr = target
                    .expr
                    .replace("$instance", instance)
                    .replace(fleet::dashboard::RATE_INTERVAL, "2m");
                let got = prom.instant(&format!("count({expr})"), t1 + 30.0);
                assert_eq!(
                    got.is_some(),
                    expected,
                    "{} ({}) on {instance}: {}",
                    panel.title,
                    target.legend_format,
                    if expected {
                        "the capture has the concept, the panel finds nothing"
                    } else {
                        "the panel finds series the engine's table does not name"
                    }
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 60, "{checked} panel expressions checked");
    assert!(
        resolved_old_name,
        "vLLM V0's capture resolves at least one panel under its old name"
    );
}

/// `tsc` on the dashboard typed as Grafana's published `Dashboard` (npm's @grafana/schema,
/// which scripts/peers.sh installs): no Grafana server installs from the registries these
/// machines reach, so the model is checked against Grafana's own schema types instead.
#[test]
fn the_dashboard_type_checks_against_grafanas_schema() {
    let Some(schema) = testpeers::peer("HEADROOM_GRAFANA_SCHEMA") else {
        return;
    };
    let out = Command::new(bin()).arg("dashboard").output().unwrap();
    assert!(out.status.success());
    let json = String::from_utf8(out.stdout).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        Path::new(&schema).join("node_modules"),
        dir.path().join("node_modules"),
    )
    .unwrap();
    let tsc = |json: &str| {
        std::fs::write(
            dir.path().join("dash.ts"),
            format!(
                "import type {{ Dashboard }} from \"@grafana/schema\";\nconst d: Dashboard = {json};\nexport default d;\n"
            ),
        )
        .unwrap();
        let out = Command::new("node")
            .arg(Path::new(&schema).join("node_modules/typescript/bin/tsc"))
            .args([
                "--noEmit",
                "--strict",
                "--skipLibCheck",
                "--moduleResolution",
                "bundler",
                "--module",
                "esnext",
                "dash.ts",
            ])
            .current_dir(dir.path())
            .output()
            .expect("run node");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (ok, msg) = tsc(&json);
    assert!(
        ok,
        "the dashboard does not type-check as Grafana's Dashboard:\n{msg}"
    );
    // The check can fail: a schema version as a string is refused.
    let (ok, msg) = tsc(&json.replace("\"schemaVersion\": 39", "\"schemaVersion\": \"39\""));
    assert!(
        !ok && msg.contains("not assignable to type 'number'"),
        "{msg}"
    );
}
