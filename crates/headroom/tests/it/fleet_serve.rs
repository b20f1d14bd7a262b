//! `headroom fleet --serve` and `headroom rules` with a real Prometheus (Debian's, started by
//! testpeers): the store scrapes two emulated vLLM replicas (one healthy, one planted with
//! prefix caching off) and headroom's own endpoint, loads the rules headroom writes, and fires
//! them; `promtool check rules` and `promtool test rules` judge the file. The store is then
//! stopped and started again on its port: the endpoint says it went blind, then reads again.

use crate::util::{EmulateProc, Headroom};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use testpeers::prometheus::{Job, Prometheus};

fn rules(args: &[&str]) -> String {
    Headroom::cmd(&["rules"]).args(args).stdout()
}

/// `promtool test rules` on `tests` (a unit-test file naming rules.yml in its folder).
fn promtool_test(dir: &std::path::Path, rules_yaml: &str, tests: &str) -> (bool, String) {
    let tool = testpeers::prometheus::promtool().expect("promtool");
    std::fs::write(dir.join("rules.yml"), rules_yaml).unwrap();
    std::fs::write(dir.join("tests.yml"), tests).unwrap();
    let out = Command::new(tool)
        .args(["test", "rules", "tests.yml"])
        .current_dir(dir)
        .output()
        .expect("run promtool");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn the_rules_pass_promtool_and_fire_on_a_planted_replica() {
    if testpeers::prometheus::promtool().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let yaml = rules(&[
        "--for",
        "5m",
        "--efficiency-below",
        "0.3",
        "--stale-after",
        "10m",
    ]);
    let check = Command::new(testpeers::prometheus::promtool().unwrap())
        .args(["check", "rules"])
        .arg({
            std::fs::write(dir.path().join("check.yml"), &yaml).unwrap();
            dir.path().join("check.yml")
        })
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    // Two replicas a minute apart for 20 minutes: "bad" with R3 primary at 20 % of its
    // ceiling, "good" with no primary at 60 %; headroom evaluating fine throughout.
    let tests = r#"rule_files: [rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'headroom_fleet_primary{replica="bad",engine="vllm",rule="R3",title="Low prefix reuse",fix="--enable-prefix-caching"}'
        values: '1x20'
      - series: 'headroom_fleet_primary{replica="good",engine="vllm",rule="none",title="",fix=""}'
        values: '1x20'
      - series: 'headroom_fleet_efficiency_ratio{replica="bad"}'
        values: '0.2x20'
      - series: 'headroom_fleet_efficiency_ratio{replica="good"}'
        values: '0.6x20'
      - series: 'headroom_fleet_outlier{replica="bad"}'
        values: '0x20'
      - series: 'headroom_fleet_imbalance'
        values: '0x20'
      - series: 'headroom_fleet_evaluations_total'
        values: '1+1x20'
      - series: 'headroom_fleet_last_evaluation_success'
        values: '1x20'
      - series: 'headroom_fleet_last_success_timestamp_seconds'
        values: '0+60x20'
    alert_rule_test:
      - eval_time: 3m
        alertname: HeadroomPrimaryHeld
        exp_alerts: []
      - eval_time: 10m
        alertname: HeadroomPrimaryHeld
        exp_alerts:
          - exp_labels: {severity: warning, replica: bad, engine: vllm, rule: R3, title: Low prefix reuse, fix: --enable-prefix-caching}
            exp_annotations:
              summary: 'bad: R3 Low prefix reuse held'
              description: 'headroom names R3 (Low prefix reuse) the primary bottleneck of bad (vllm), held for 5m. Fix: --enable-prefix-caching. The evidence: headroom fleet on this store.'
      - eval_time: 10m
        alertname: HeadroomBelowCeiling
        exp_alerts:
          - exp_labels: {severity: warning, replica: bad}
            exp_annotations:
              summary: 'bad below 30 % of its ceiling'
              description: 'bad generates 20% of its hardware ceiling at the ridge batch; headroom_fleet_primary names why.'
      - eval_time: 10m
        alertname: HeadroomOutlierReplica
        exp_alerts: []
      - eval_time: 10m
        alertname: HeadroomVerdictsStale
        exp_alerts: []
      - eval_time: 10m
        alertname: HeadroomEvaluationsFailing
        exp_alerts: []
"#;
    let (ok, out) = promtool_test(dir.path(), &yaml, tests);
    assert!(ok, "promtool test rules:\n{out}");
    // The same test can fail: rules that alert on the healthy replica too are caught.
    let loose = yaml.replace(r#"{rule!=\"none\"}"#, "");
    assert_ne!(loose, yaml);
    let (ok, out) = promtool_test(dir.path(), &loose, tests);
    assert!(
        !ok,
        "promtool passed rules that fire on a healthy replica:\n{out}"
    );
}

/// `headroom fleet --serve` on a free port, its stderr read line by line on a thread.
struct Serve {
    child: Child,
    port: u16,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Serve {
    fn start(store: &str, extra: &[&str]) -> Serve {
        let port = testpeers::free_port();
        let mut child = Headroom::new()
            .args(["fleet", "--prometheus", store, "--serve"])
            .arg(format!("127.0.0.1:{port}"))
            .args(extra)
            .stdout_io(Stdio::null())
            .stderr_io(Stdio::piped())
            .spawn();
        let (tx, lines) = std::sync::mpsc::channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Serve { child, port, lines }
    }

    /// Forgets the lines written so far.
    fn drain(&self) {
        while self.lines.try_recv().is_ok() {}
    }

    /// Waits for a stderr line containing `want` (at most `limit`); the lines seen.
    fn wait_line(&self, want: &str, limit: Duration) -> String {
        let deadline = Instant::now() + limit;
        let mut seen = String::new();
        while Instant::now() < deadline {
            if let Ok(l) = self.lines.recv_timeout(Duration::from_millis(200)) {
                seen.push_str(&l);
                seen.push('\n');
                if l.contains(want) {
                    return seen;
                }
            }
        }
        panic!("no line with {want:?} in {limit:?}: {seen}");
    }

    fn metrics(&self) -> engines::prom::Exposition {
        let (code, body) = testpeers::get(self.port, "/metrics").expect("the endpoint answers");
        assert_eq!(code, 200, "{body}");
        engines::prom::parse(&body).expect("the exposition parses")
    }
}

/// The value of `name` with `labels` among its labels, if exposed.
fn value(e: &engines::prom::Exposition, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    e.families
        .iter()
        .filter(|f| f.name == name)
        .flat_map(|f| &f.samples)
        .find(|s| labels.iter().all(|(k, v)| s.label(k) == Some(*v)))
        .map(|s| s.value)
}

#[test]
fn prometheus_scrapes_the_verdicts_and_the_store_can_go_away() {
    let _serial = testpeers::serial();
    if testpeers::prometheus::binary().is_none() {
        return;
    }
    let healthy = EmulateProc::driven("healthy", "1", "600s", &[]);
    let sick = EmulateProc::driven("no-prefix-caching", "1", "600s", &[]);
    let prom_port = testpeers::free_port();
    let serve_port_holder = Serve::start(
        &format!("http://127.0.0.1:{prom_port}"),
        &[
            "--selector",
            r#"{job="engines"}"#,
            "--window",
            "20s",
            "--min-step",
            "1s",
            "--sub-windows",
            "4",
            "--interval",
            "3s",
        ],
    );
    let serve = &serve_port_holder;
    let jobs = [
        Job {
            name: "engines",
            targets: vec![healthy.addr(), sick.addr()],
        },
        Job {
            name: "headroom",
            targets: vec![format!("127.0.0.1:{}", serve.port)],
        },
    ];
    let alert_rules = rules(&["--for", "0s"]);
    let Some(prom) = Prometheus::start_with_rules(&jobs, &alert_rules, Some(prom_port)) else {
        return;
    };
    prom.wait_targets_up(3, Duration::from_secs(60));
    // Judge only full windows: a reading of the store's first seconds holds a few points, on
    // which a healthy replica can flicker into a rule. The 20 s window fills, plus a margin for
    // a loaded machine. The sick replica's R3 is read from vLLM's cache_config_info labels
    // (prefix caching off under shared-prefix traffic), not from a rate near its threshold.
    std::thread::sleep(Duration::from_secs(25));
    let deadline = Instant::now() + Duration::from_secs(90);
    let sick_primary = loop {
        let e = serve.metrics();
        let rule = e
            .families
            .iter()
            .filter(|f| f.name == "headroom_fleet_primary")
            .flat_map(|f| &f.samples)
            .find(|s| s.label("replica") == Some(sick.addr().as_str()))
            .and_then(|s| s.label("rule").map(str::to_string));
        if rule.as_deref().is_some_and(|r| r != "none") {
            break rule.unwrap();
        }
        assert!(
            Instant::now() < deadline,
            "no primary for {} in 90 s",
            sick.addr()
        );
        std::thread::sleep(Duration::from_secs(1));
    };
    assert_eq!(sick_primary, "R3", "the planted pathology");
    let e = serve.metrics();
    assert_eq!(value(&e, "headroom_fleet_replicas", &[]), Some(2.0));
    assert_eq!(
        value(
            &e,
            "headroom_fleet_rule_fired",
            &[("replica", &sick.addr()), ("rule", "R3")]
        ),
        Some(1.0)
    );
    assert_eq!(
        value(&e, "headroom_fleet_last_evaluation_success", &[]),
        Some(1.0)
    );
    // One primary series per replica, one rule series per replica and rule.
    let primaries = e
        .families
        .iter()
        .find(|f| f.name == "headroom_fleet_primary")
        .map_or(0, |f| f.samples.len());
    assert_eq!(primaries, 2);
    // The documented bound: at most 13 series per replica and 10 without one.
    let samples: Vec<_> = e.families.iter().flat_map(|f| &f.samples).collect();
    for r in [sick.addr(), healthy.addr()] {
        let n = samples
            .iter()
            .filter(|s| s.label("replica") == Some(r.as_str()))
            .count();
        assert!((9..=13).contains(&n), "{n} series for {r}");
    }
    let fleet_wide = samples
        .iter()
        .filter(|s| s.label("replica").is_none())
        .count();
    assert!(fleet_wide <= 10, "{fleet_wide} fleet-wide series");

    // Prometheus scrapes it and the alert fires on the sick replica, not the healthy one.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let alerts = prom.alerts();
        let held: Vec<_> = alerts
            .iter()
            .filter(|a| {
                a.labels.get("alertname").map(String::as_str) == Some("HeadroomPrimaryHeld")
            })
            .collect();
        if held.iter().any(|a| a.state == "firing") {
            assert!(
                held.iter()
                    .all(|a| a.labels.get("replica") == Some(&sick.addr())),
                "{held:?}"
            );
            assert_eq!(held[0].labels.get("rule").map(String::as_str), Some("R3"));
            break;
        }
        assert!(
            Instant::now() < deadline,
            "HeadroomPrimaryHeld never fired: {alerts:?}"
        );
        std::thread::sleep(Duration::from_secs(1));
    }

    // The store goes away: evaluations fail, the verdicts go, the endpoint stays.
    drop(prom);
    serve.drain();
    serve.wait_line("failed", Duration::from_secs(30));
    let e = serve.metrics();
    assert_eq!(
        value(&e, "headroom_fleet_last_evaluation_success", &[]),
        Some(0.0)
    );
    assert!(value(&e, "headroom_fleet_evaluation_failures_total", &[]).unwrap_or(0.0) >= 1.0);
    assert_eq!(
        value(&e, "headroom_fleet_primary", &[]),
        None,
        "no verdict without a reading"
    );
    // It comes back on its port: the verdicts return.
    let Some(_prom) = Prometheus::start_with_rules(&jobs, &alert_rules, Some(prom_port)) else {
        return;
    };
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let e = serve.metrics();
        if value(&e, "headroom_fleet_last_evaluation_success", &[]) == Some(1.0)
            && value(&e, "headroom_fleet_replicas", &[]) == Some(2.0)
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the endpoint never read the store again"
        );
        std::thread::sleep(Duration::from_secs(1));
    }
}
