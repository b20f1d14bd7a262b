//! `headroom fleet` against a real Prometheus (Debian's, started by testpeers on loopback,
//! scraping every second) that scrapes three emulated vLLM replicas, one of them with a
//! pathology, and a real llama-server. Nothing mocks the Prometheus API.

use crate::util::{headroom_output as headroom, EmulateProc};
use fleet::FleetDoc;
use std::process::Command;
use std::time::{Duration, Instant};
use testpeers::prometheus::{Job, Prometheus};

/// `headroom emulate --scenario NAME --drive` at --speed 1, so Prometheus' wall-clock rates are
/// the simulated ones.
fn emulate(scenario: &str) -> EmulateProc {
    EmulateProc::driven(scenario, "1", "600s", &[])
}

fn fleet_json(prom: &Prometheus, selector: &str, window: &str) -> (FleetDoc, serde_json::Value) {
    fleet_json_with(prom, selector, window, &[])
}

fn fleet_json_with(
    prom: &Prometheus,
    selector: &str,
    window: &str,
    extra: &[&str],
) -> (FleetDoc, serde_json::Value) {
    let mut args = vec![
        "fleet",
        "--prometheus",
        &prom.url,
        "--selector",
        selector,
        "--window",
        window,
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = headroom(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "fleet failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: FleetDoc = serde_json::from_str(&stdout).expect("a headroom.fleet/1 document");
    let value: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    (doc, value)
}

#[test]
fn prometheus_over_three_emulated_replicas_and_a_real_llama_server() {
    let _serial = testpeers::serial();
    if testpeers::prometheus::binary().is_none() {
        return;
    }
    // Two healthy replicas and one serving shared-prefix traffic with prefix caching off.
    let healthy = [emulate("healthy"), emulate("healthy")];
    let sick = emulate("no-prefix-caching");
    let llama = testpeers::LlamaServer::start(&["--metrics", "-np", "2", "-c", "2048"]);
    let mut jobs = vec![Job {
        name: "emu",
        targets: healthy.iter().chain([&sick]).map(|e| e.addr()).collect(),
    }];
    if let Some(l) = &llama {
        jobs.push(Job {
            name: "llama",
            targets: vec![format!("127.0.0.1:{}", l.port)],
        });
    }
    let Some(prom) = Prometheus::start(&jobs) else {
        return;
    };
    prom.wait_targets_up(
        jobs.iter().map(|j| j.targets.len()).sum(),
        Duration::from_secs(60),
    );

    // Real completions on llama-server while the window fills.
    let stop = Instant::now() + Duration::from_secs(40);
    let load = llama.as_ref().map(|l| {
        let port = l.port;
        std::thread::spawn(move || {
            let mut done = 0;
            while Instant::now() < stop {
                let body =
                    r#"{"prompt":"Count from one to twenty:","n_predict":24,"cache_prompt":false}"#;
                if testpeers::post_json(port, "/completion", body).is_some_and(|(c, _)| c == 200) {
                    done += 1;
                }
            }
            done
        })
    });
    std::thread::sleep(Duration::from_secs(42));

    let (doc, value) = fleet_json(&prom, r#"{job="emu"}"#, "30s");
    assert_eq!(doc.schema, "headroom.fleet/1");
    // Engine detection, vLLM config labels, gauges, counters, one per histogram concept (6),
    // DCGM's series and the replicas' join labels: 12 queries for the fleet, whatever its size.
    assert_eq!(doc.queries, 12, "{doc:?}");
    // This store scrapes no DCGM exporter: nothing joined, nothing invented.
    let dcgm = doc.dcgm.as_ref().expect("DCGM read by default");
    assert_eq!((dcgm.gpus, dcgm.joined), (0, 0), "{dcgm:?}");
    assert!(doc.replicas.iter().all(|r| r.gpu_join.is_none()));
    assert_eq!(doc.replicas.len(), 3, "{doc:#?}");
    for r in &doc.replicas {
        assert_eq!(r.engine, engines::Engine::Vllm);
        assert!(
            r.figures.generation_tps.is_some_and(|g| g > 0.0),
            "{} generated nothing: {r:?}",
            r.replica
        );
        let rule = r.primary.as_ref().map(|p| p.rule);
        if r.replica == sick.addr() {
            // Prefix caching is confirmed off by vLLM's cache_config_info labels, read through
            // Prometheus: R3 fires on a busy prompt stream, by config, not by a noisy figure.
            assert_eq!(rule, Some(diagnose::RuleId::R3), "{r:#?}");
        } else {
            assert_eq!(rule, None, "healthy replica {}: {r:#?}", r.replica);
        }
    }
    let named: Vec<_> = doc
        .outliers
        .iter()
        .filter(|o| o.kind == "primary")
        .collect();
    assert_eq!(named.len(), 1, "{:?}", doc.outliers);
    assert_eq!(named[0].replica, sick.addr());
    assert!(
        named[0]
            .reason
            .contains("R3 Low prefix reuse where 2 of 3 vLLM replicas have no primary"),
        "{}",
        named[0].reason
    );
    let undocumented = testpeers::schema::undocumented(&value, "fleet.md", &["/imbalance/shares"]);
    assert!(
        undocumented.is_empty(),
        "not in docs/json/fleet.md: {undocumented:?}"
    );

    // The sick replica's window saved as a recording and replayed into diagnose: the same
    // primary by the same path.
    let dir = tempfile::tempdir().unwrap();
    let out = headroom(&[
        "fleet",
        "--prometheus",
        &prom.url,
        "--selector",
        r#"{job="emu"}"#,
        "--window",
        "30s",
        "--json",
        "--save-windows",
        dir.path().to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = dir
        .path()
        .join(format!("{}.jsonl", sick.addr().replace(':', "_")));
    let out = headroom(&["diagnose", "--replay", file.to_str().unwrap(), "--json"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: diagnose::Report = serde_json::from_str(&text).expect("a diagnose document");
    assert_eq!(report.primary_rule(), Some(diagnose::RuleId::R3), "{text}");

    // The human table: one row per replica, the median beside, the outlier starred.
    let out = headroom(&[
        "fleet",
        "--prometheus",
        &prom.url,
        "--selector",
        r#"{job="emu"}"#,
        "--window",
        "30s",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("fleet median"), "{text}");
    assert!(text.contains(&format!("{} *", sick.addr())), "{text}");
    assert!(text.contains("R3 Low prefix reuse"), "{text}");

    // The real llama-server through the same store: its own adapter names, one replica.
    if let (Some(l), Some(load)) = (&llama, load) {
        let done = load.join().expect("load thread");
        assert!(done > 0, "no completion succeeded on llama-server");
        let (doc, _) = fleet_json(&prom, r#"{job="llama"}"#, "30s");
        assert_eq!(doc.replicas.len(), 1, "{doc:#?}");
        let r = &doc.replicas[0];
        assert_eq!(r.replica, format!("127.0.0.1:{}", l.port));
        assert_eq!(r.engine, engines::Engine::LlamaCpp);
        assert!(r.figures.generation_tps.is_some_and(|g| g > 0.0), "{r:#?}");
        assert!(r.figures.running.is_some(), "{r:#?}");
        assert!(!doc.imbalance.fired);
    }
}

#[test]
fn clear_errors_without_a_store() {
    let dead = testpeers::free_port();
    let out = headroom(&[
        "fleet",
        "--prometheus",
        &format!("http://127.0.0.1:{dead}"),
        "--timeout",
        "2s",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("127.0.0.1:{dead}/api/v1/query")),
        "{err}"
    );
    let out = headroom(&[
        "fleet",
        "--prometheus",
        "http://x",
        "--selector",
        "job=\"a\"",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("label matchers in braces"), "{err}");
}

/// `--gpu`/`--model` give every replica the physics ceiling, as `diagnose` takes them: a rule
/// that needs it judges only then. The emulated replica serves Llama 3.1 70B in bf16 (141 GB of
/// weights) on one 80 GB H100: R4's weights-overflow needs the ceiling's memory figures, so
/// without --gpu it is silent and with it it fires. The result is decided by the catalog's
/// figures against the config, not by a measured rate, so no noise enters it.
#[test]
fn gpu_and_model_give_each_replica_its_ceiling() {
    let _serial = testpeers::serial();
    if testpeers::prometheus::binary().is_none() {
        return;
    }
    let replica = emulate("weights-dont-fit");
    let jobs = [Job {
        name: "emu",
        targets: vec![replica.addr()],
    }];
    let Some(prom) = Prometheus::start(&jobs) else {
        return;
    };
    prom.wait_targets_up(1, Duration::from_secs(60));
    std::thread::sleep(Duration::from_secs(25));
    let sel = r#"{job="emu"}"#;

    let (bare, _) = fleet_json(&prom, sel, "20s");
    assert_eq!(bare.replicas.len(), 1, "{bare:#?}");
    let r = &bare.replicas[0];
    assert!(r.ceiling.is_none(), "{r:#?}");
    assert!(r.figures.efficiency.is_none(), "{r:#?}");
    assert_ne!(
        r.primary.as_ref().map(|p| p.rule),
        Some(diagnose::RuleId::R4),
        "{r:#?}"
    );

    let target = ["--gpu", "H100-SXM", "--model", "llama-3.1-70b"];
    let (doc, value) = fleet_json_with(&prom, sel, "20s", &target);
    let r = &doc.replicas[0];
    let c = r
        .ceiling
        .as_ref()
        .expect("a ceiling with --gpu and --model");
    assert_eq!(c.unknown_reason, None, "{c:#?}");
    assert!(c.decode_tps.is_some_and(|d| d > 0.0), "{c:#?}");
    assert_eq!(
        r.primary.as_ref().map(|p| p.rule),
        Some(diagnose::RuleId::R4),
        "{r:#?}"
    );
    let undocumented = testpeers::schema::undocumented(&value, "fleet.md", &["/imbalance/shares"]);
    assert!(
        undocumented.is_empty(),
        "not in docs/json/fleet.md: {undocumented:?}"
    );

    // The table names the ceiling and gives the column for it.
    let mut args = vec![
        "fleet",
        "--prometheus",
        &prom.url,
        "--selector",
        sel,
        "--window",
        "20s",
    ];
    args.extend_from_slice(&target);
    let out = headroom(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Ceiling: "), "{text}");
    assert!(text.contains("(every replica)"), "{text}");
    assert!(text.contains("of ceiling"), "{text}");
    assert!(text.contains("R4 "), "{text}");

    // --gpu alone: the model is the name the engine serves, or the ceiling says why not.
    let (doc, _) = fleet_json_with(&prom, sel, "20s", &["--gpu", "H100-SXM"]);
    let c = doc.replicas[0]
        .ceiling
        .as_ref()
        .expect("a ceiling object with --gpu");
    assert!(
        c.unknown_reason.is_none()
            || c.unknown_reason
                .as_deref()
                .is_some_and(|w| w.contains("model")),
        "{c:#?}"
    );
}

#[test]
fn bad_gpu_or_model_names_are_clear_errors() {
    // Checked before any query: no store needed.
    let dead = format!("http://127.0.0.1:{}", testpeers::free_port());
    for (flag, name) in [("--gpu", "H999-XL"), ("--model", "llama-9-9000b")] {
        let out = headroom(&["fleet", "--prometheus", &dead, flag, name]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(&format!("{flag} \"{name}\"")), "{err}");
        assert!(err.contains("not in the catalog"), "{err}");
        assert!(
            !err.contains("/api/v1/query"),
            "queried before checking: {err}"
        );
    }
}

/// One window, two paths: recorded from an emulated vLLM, replayed into `diagnose`, and
/// backfilled into a real Prometheus that `fleet` reads. Both reach diagnose's judge by one
/// function (`diagnose::judge_samples`), so the primary, its evidence, its fix and the held
/// rules are equal, not merely alike. The scrapes are set on an exact 1 s grid (the store's
/// points are then the recording's samples) and the recording's header keeps only what a store
/// knows (no command line, /version or /props), so any difference is a difference of path.
#[test]
fn fleet_and_diagnose_replay_agree_on_one_window() {
    let _serial = testpeers::serial();
    if testpeers::prometheus::binary().is_none() || testpeers::prometheus::promtool().is_none() {
        return;
    }
    // Shared-prefix traffic with prefix caching off: R3 by vLLM's cache_config_info labels.
    let sick = emulate("no-prefix-caching");
    std::thread::sleep(Duration::from_secs(3));
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("live.jsonl");
    let out = headroom(&[
        "diagnose",
        "--url",
        &format!("http://{}", sick.addr()),
        "--duration",
        "21s",
        "--interval",
        "1s",
        "--record",
        rec.to_str().unwrap(),
        "--json",
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(sick);
    let live = engines::read_recording(&rec).expect("the recording reads back");

    // Twenty-one scrapes on the grid T0, T0 + 1 s, ...: the emulator's clock gauge (which times
    // a sample in a replay) is set to the same time the store stamps.
    const N: usize = 21;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let t0 = (now / 60 * 60 - 600) as f64;
    let bodies: Vec<String> = live
        .scrapes
        .iter()
        .filter_map(|s| s.body.clone())
        .take(N)
        .collect();
    assert_eq!(
        bodies.len(),
        N,
        "the live window answered {} scrapes",
        bodies.len()
    );
    let clock = engines::EMULATOR_CLOCK;
    let mut scrapes = Vec::new();
    let header = engines::RecordingHeader::new("http://replica-a:8000", 1.0, t0);
    let replay = dir.path().join("replay.jsonl");
    let mut w = engines::Recorder::create(&replay, &header).unwrap();
    for (i, body) in bodies.iter().enumerate() {
        let t = t0 + i as f64;
        let body: String = body
            .lines()
            .map(|l| {
                if l.starts_with(clock) {
                    format!("{clock} {t}")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n";
        scrapes.push((t, engines::prom::parse(&body).expect("the body parses")));
        w.record(&engines::ScrapeRecord {
            t,
            ok: true,
            error: None,
            body: Some(body),
            elapsed_s: None,
        })
        .unwrap();
    }
    drop(w);
    let om = dir.path().join("window.om");
    std::fs::write(
        &om,
        crate::util::openmetrics(&[("replica-a:8000", &scrapes)], "agree"),
    )
    .unwrap();
    let Some(prom) = Prometheus::start_backfilled(&om) else {
        return;
    };
    let end = t0 + (N - 1) as f64;

    let out = headroom(&[
        "diagnose",
        "--replay",
        replay.to_str().unwrap(),
        "--sub-windows",
        "4",
        "--json",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let report: diagnose::Report = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{e}: {text}{}", String::from_utf8_lossy(&out.stderr)));
    let (doc, _) = fleet_json_with(
        &prom,
        r#"{job="agree"}"#,
        "20s",
        &[
            "--at",
            &end.to_string(),
            "--min-step",
            "1s",
            "--sub-windows",
            "4",
        ],
    );
    assert_eq!(doc.replicas.len(), 1, "{doc:#?}");
    let r = &doc.replicas[0];
    assert_eq!(r.points, N, "the store's grid is the recording's: {doc:#?}");
    assert_eq!(report.primary_rule(), Some(diagnose::RuleId::R3), "{text}");
    assert_eq!(
        r.primary, report.primary,
        "fleet and diagnose --replay disagree"
    );
    let held: Vec<_> = report.held.iter().map(|f| f.rule).collect();
    assert_eq!(r.held, held);
}

/// vLLM replicas and NVIDIA's dcgm-exporter series side by side in one backfilled store
/// (scripts/bench/fleet_gen.py with `dcgm`: seven replicas, one H100 per host, 10 minutes at
/// 15 s). Without --gpu, each replica joined to its GPU by host has its ceiling on the GPU DCGM
/// names; the power-capped GPU (SM clock 1410 of 1980 MHz with the SW power cap reason, busy) is
/// throttled, the one with 40 requests running and SM active 8 % is host-bound, the healthy ones
/// are neither; two replicas on one two-GPU host without pod labels are refused as ambiguous.
/// The figures are planted constants, so no noise enters the verdicts.
#[test]
fn dcgm_in_the_store_names_each_replicas_gpu_and_finds_the_throttled_and_host_bound_ones() {
    // No engine: planted series backfilled into a store, so no serial() (it runs beside the
    // live test of the moment).
    if testpeers::prometheus::binary().is_none() || testpeers::prometheus::promtool().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let end = now / 60 * 60 - 300;
    let om = dir.path().join("fleet.om");
    let gen =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/bench/fleet_gen.py");
    let out = Command::new("python3")
        .arg(&gen)
        .args(["7", &end.to_string(), "900"])
        .arg(&om)
        .arg("dcgm")
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let Some(prom) = Prometheus::start_backfilled(&om) else {
        return;
    };
    let at = end.to_string();
    let args = [
        "--at",
        &at,
        "--model",
        "llama-3.1-8b",
        "--dcgm-selector",
        r#"{job="dcgm"}"#,
    ];
    let (doc, value) = fleet_json_with(&prom, r#"{job="bench"}"#, "10m", &args);
    assert_eq!(doc.queries, 12);
    assert_eq!(doc.replicas.len(), 7, "{doc:#?}");
    let dcgm = doc.dcgm.as_ref().expect("a dcgm summary");
    // Seven node GPUs (node 4 has two) and a spare node's.
    assert_eq!((dcgm.gpus, dcgm.joined), (8, 5), "{dcgm:#?}");
    assert_eq!(
        dcgm.unjoined,
        ["node-4 gpu 0", "node-4 gpu 1", "node-spare gpu 0"]
    );
    let fired = |r: &fleet::Replica, rule: &str| {
        r.gpu_telemetry.as_ref().is_some_and(|t| {
            t.devices
                .iter()
                .flat_map(|d| &d.findings)
                .any(|f| f.rule == rule && f.outcome == "fired")
        })
    };
    for r in &doc.replicas {
        let j = r.gpu_join.as_ref().expect("a join outcome per replica");
        match r.replica.as_str() {
            "10.0.0.5:8000" | "10.0.0.5:8001" => {
                assert_eq!(j.by, None, "{r:#?}");
                let why = j.refused.as_deref().unwrap_or_default();
                assert!(why.starts_with("ambiguous: host 10.0.0.5"), "{why}");
                assert!(r.gpu_telemetry.is_none());
                let c = r.ceiling.as_ref().expect("--model asks for a ceiling");
                assert_eq!(c.gpu_from, None, "{c:#?}");
                let why = c.unknown_reason.as_deref().unwrap_or_default();
                assert!(why.contains("no GPU from DCGM: ambiguous"), "{why}");
            }
            name => {
                assert_eq!(j.by.as_deref(), Some("host"), "{r:#?}");
                assert_eq!(j.gpus.len(), 1, "{j:?}");
                let c = r.ceiling.as_ref().expect("a ceiling");
                assert_eq!(c.gpu_from.as_deref(), Some("dcgm"), "{c:#?}");
                assert_eq!(c.unknown_reason, None, "{c:#?}");
                let t = r.gpu_telemetry.as_ref().unwrap();
                assert_eq!(t.named.as_deref(), Some("NVIDIA H100 80GB HBM3"));
                assert!(t.modelled_dram_share.is_some_and(|m| m > 0.0), "{t:#?}");
                assert!(t.devices[0].dram_active.is_some(), "{t:#?}");
                let (throttled, host_bound) = (fired(r, "throttled"), fired(r, "host_bound"));
                match name {
                    "10.0.0.3:8000" => assert!(throttled && !host_bound, "{t:#?}"),
                    "10.0.0.4:8000" => assert!(host_bound && !throttled, "{t:#?}"),
                    _ => assert!(!throttled && !host_bound, "{name}: {t:#?}"),
                }
            }
        }
    }
    let undocumented = testpeers::schema::undocumented(&value, "fleet.md", &["/imbalance/shares"]);
    assert!(
        undocumented.is_empty(),
        "not in docs/json/fleet.md: {undocumented:?}"
    );

    // The table says how each replica was joined and what its GPU showed.
    let mut all = vec![
        "fleet",
        "--prometheus",
        &prom.url,
        "--selector",
        r#"{job="bench"}"#,
        "--window",
        "10m",
    ];
    all.extend_from_slice(&args);
    let out = headroom(&all);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for want in [
        "GPUs (DCGM under {job=\"dcgm\"}): 8 in the window, 5 joined to a replica",
        "10.0.0.3:8000 (joined by host: node-2 gpu 0)",
        "GPU for the ceiling: NVIDIA H100 80GB HBM3 (from dcgm)",
        "throttled: the SM clock ran at 71.2 % of its 1980 MHz maximum",
        "(modelled decode share ",
        "10.0.0.5:8001: no GPU joined: ambiguous",
        "GPUs joined to no replica: node-4 gpu 0, node-4 gpu 1, node-spare gpu 0",
    ] {
        assert!(text.contains(want), "{want:?} not in:\n{text}");
    }

    // --no-dcgm: the ten engine queries, no join.
    let mut bare = args.to_vec();
    bare.truncate(4);
    bare.push("--no-dcgm");
    let (doc, _) = fleet_json_with(&prom, r#"{job="bench"}"#, "10m", &bare);
    assert_eq!(doc.queries, 10);
    assert!(doc.dcgm.is_none());
    assert!(doc.replicas.iter().all(|r| r.gpu_join.is_none()));
}
