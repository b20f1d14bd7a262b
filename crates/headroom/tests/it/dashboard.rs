//! `headroom dashboard` against a real Prometheus (Debian's, started by testpeers) holding the
//! committed real expositions of each engine version headroom has a capture of, backfilled at
//! two times each (the idle capture, then the loaded one, so counters have a rate): vLLM 0.32,
//! vLLM's V0 (before the KV rename), SGLang 0.5.23 and llama.cpp. Every panel's expression
//! returns data for an engine exactly where that engine exports the concept in its capture,
//! under whichever of its names the capture uses. (TGI and LMDeploy have family lists from
//! their source in fixtures, no capture: they are not in this test.) `dashboard --prometheus`
//! against the same store, and against one holding llama.cpp's capture alone, writes panels
//! for the engines and names found only, each resolving the same way, and reports the rest.

use crate::util::{openmetrics, Headroom};
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

type Capture = (&'static str, engines::Engine, Vec<(f64, Exposition)>);

/// Each capture at two times ten minutes ago: the idle one, then the loaded one.
fn captures() -> Vec<Capture> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let (t0, t1) = ((now / 60 * 60 - 600) as f64, (now / 60 * 60 - 540) as f64);
    vec![
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
    ]
}

/// A Prometheus backfilled with `sets`, or None where the peers are missing.
fn store(sets: &[Capture]) -> Option<(Prometheus, tempfile::TempDir)> {
    if testpeers::prometheus::binary().is_none() || testpeers::prometheus::promtool().is_none() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let om = dir.path().join("captures.om");
    let refs: Vec<(&str, &[(f64, Exposition)])> =
        sets.iter().map(|(i, _, s)| (*i, s.as_slice())).collect();
    std::fs::write(&om, openmetrics(&refs, "captures")).unwrap();
    Some((Prometheus::start_backfilled(&om)?, dir))
}

/// `headroom dashboard ARGS`: the model and stderr.
fn dashboard(args: &[&str]) -> (fleet::dashboard::Dashboard, String) {
    let out = Headroom::cmd(&["dashboard"]).args(args).run();
    assert!(out.success(), "{args:?}: {}", out.stderr);
    let d =
        serde_json::from_slice(&out.stdout_bytes).expect("the dashboard reads back as its model");
    (d, out.stderr)
}

/// Whether `scrapes` hold `concept` under any of its engine's names: a gauge at the last
/// scrape, a counter or histogram at both (a rate needs two points; a series that first
/// appears under load, SGLang's cached tokens, has one and no rate).
fn exposed(
    concept: &engines::adapters::promql::Concept,
    engine: engines::Engine,
    scrapes: &[(f64, Exposition)],
) -> (bool, bool) {
    let rows = engine.def().store_names(concept.field);
    let at = |i: usize, n: &str| {
        scrapes[i].1.samples().any(|s| {
            s.name == n || s.name == format!("{n}_total") || s.name == format!("{n}_bucket")
        })
    };
    let has = |n: &str| match concept.kind {
        engines::adapters::promql::Kind::Gauge => at(1, n),
        _ => at(0, n) && at(1, n),
    };
    let expected = rows.iter().any(|r| r.iter().any(|n| has(n)));
    let old_name = rows.iter().any(|r| r.len() > 1 && !has(r[0]) && expected);
    (expected, old_name)
}

/// Checks that every panel's expression finds data for a capture exactly where its engine's
/// table names a series the capture holds. The concepts with data on some capture, the count
/// of expressions checked, and whether one resolved under an old name.
fn resolve(
    dash: &fleet::dashboard::Dashboard,
    prom: &Prometheus,
    sets: &[Capture],
) -> (Vec<&'static str>, usize, bool) {
    let t1 = sets[0].2[1].0;
    let (mut with_data, mut checked, mut resolved_old_name) = (Vec::new(), 0, false);
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
        for (instance, engine, scrapes) in sets {
            let (expected, old_name) = exposed(concept, *engine, scrapes);
            resolved_old_name |= old_name;
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
            if expected && !with_data.contains(&concept.field) {
                with_data.push(concept.field);
            }
        }
    }
    (with_data, checked, resolved_old_name)
}

#[test]
fn every_panel_resolves_against_each_engine_versions_capture() {
    // No engine: real captures backfilled into a store, so no serial() (it runs beside the
    // live test of the moment) and nothing asserted depends on the machine's load.
    let sets = captures();
    let Some((prom, _dir)) = store(&sets) else {
        return;
    };
    let (full, _) = dashboard(&[]);
    let (_, checked, resolved_old_name) = resolve(&full, &prom, &sets);
    assert!(checked > 60, "{checked} panel expressions checked");
    assert!(
        resolved_old_name,
        "vLLM V0's capture resolves at least one panel under its old name"
    );

    // Written for this store: vLLM (both versions), SGLang and llama.cpp found, TGI's and
    // LMDeploy's names left out of every expression, and each panel still resolves.
    let (ours, err) = dashboard(&["--prometheus", &prom.url]);
    assert!(
        err.contains("engines found in the store: vLLM, llama.cpp, SGLang\n"),
        "{err}"
    );
    let (_, _, resolved_old_name) = resolve(&ours, &prom, &sets);
    assert!(
        resolved_old_name,
        "the store dashboard keeps V0's old names"
    );
    for p in &ours.panels {
        for e in [engines::Engine::Tgi, engines::Engine::Lmdeploy] {
            assert!(
                p.targets.iter().all(|t| !t.expr.contains(e.prefix())),
                "{}: reads {e:?}",
                p.title
            );
        }
    }
    // These captures between them have every concept: the store's dashboard is the full one's
    // panels, each narrowed to the engines and names the store holds, and leaves none out.
    let titles = |d: &fleet::dashboard::Dashboard| -> Vec<String> {
        d.panels.iter().map(|p| p.title.clone()).collect()
    };
    assert_eq!(titles(&ours), titles(&full));
    assert!(!err.contains("left out"), "{err}");
}

#[test]
fn a_llamacpp_store_gets_llamacpp_panels_only_each_with_data() {
    // No engine: real captures backfilled into a store, so no serial() (it runs beside the
    // live test of the moment) and nothing asserted depends on the machine's load.
    let sets: Vec<Capture> = captures()
        .into_iter()
        .filter(|(_, e, _)| *e == engines::Engine::LlamaCpp)
        .collect();
    let Some((prom, _dir)) = store(&sets) else {
        return;
    };
    let (ours, err) = dashboard(&["--prometheus", &prom.url]);
    assert!(
        err.contains("engines found in the store: llama.cpp\n"),
        "{err}"
    );
    let l = engines::Engine::LlamaCpp;
    for p in &ours.panels {
        for e in engines::Engine::ALL.into_iter().filter(|e| *e != l) {
            assert!(
                p.targets.iter().all(|t| !t.expr.contains(e.prefix())),
                "{}: reads {e:?}",
                p.title
            );
        }
    }
    // Every concept panel returns data: none is kept that the store cannot fill.
    let (with_data, checked, _) = resolve(&ours, &prom, &sets);
    let concepts: Vec<&str> = ours
        .panels
        .iter()
        .filter_map(fleet::dashboard::concept_of)
        .map(|c| c.field)
        .collect();
    assert_eq!(with_data, concepts, "{err}");
    assert!(checked >= 5, "{checked}");
    // Each panel of the full dashboard left out is reported with its reason: llama.cpp has no
    // row for the concept, or this build exports none of the row's names (its KV ratio).
    let (full, _) = dashboard(&[]);
    let dropped: Vec<&fleet::dashboard::Panel> = full
        .panels
        .iter()
        .filter(|p| !ours.panels.iter().any(|o| o.title == p.title))
        .collect();
    assert!(!dropped.is_empty());
    assert!(
        err.contains(&format!(
            "{} panel{} left out:",
            dropped.len(),
            if dropped.len() == 1 { "" } else { "s" }
        )),
        "{err}"
    );
    let mut absent_names = 0;
    for p in dropped {
        let c = fleet::dashboard::concept_of(p).expect("headroom's own panels stay");
        let rows = l.def().store_names(c.field);
        let reason = if rows.is_empty() {
            "llama.cpp exports no series for it (the table has it from ".to_string()
        } else {
            absent_names += 1;
            format!("the store holds none of {}\n", rows.concat().join(", "))
        };
        assert!(
            err.contains(&format!("  {}: {reason}", p.title)),
            "{}: {err}",
            p.title
        );
    }
    assert!(
        absent_names > 0,
        "a row whose names the capture lacks: {err}"
    );

    // Asked for an engine the store does not hold: refused, naming what was looked for.
    let out = Headroom::new()
        .args(["dashboard", "--prometheus", &prom.url, "--engine", "vllm"])
        .output();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && out.stdout.is_empty(), "{err}");
    let running = engines::Engine::Vllm.def().store_names("running")[0][0];
    assert!(
        err.contains("the store holds no series of vLLM: looked for") && err.contains(running),
        "{err}"
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
    let out = Headroom::new().arg("dashboard").output_ok();
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
    // A restricted model (fewer panels, narrowed expressions) is the same type.
    let out = Headroom::new()
        .args(["dashboard", "--engine", "llama.cpp"])
        .output_ok();
    let (ok, msg) = tsc(&String::from_utf8(out.stdout).unwrap());
    assert!(ok, "the llama.cpp dashboard does not type-check:\n{msg}");
    // The check can fail: a schema version as a string is refused.
    let (ok, msg) = tsc(&json.replace("\"schemaVersion\": 39", "\"schemaVersion\": \"39\""));
    assert!(
        !ok && msg.contains("not assignable to type 'number'"),
        "{msg}"
    );
}
