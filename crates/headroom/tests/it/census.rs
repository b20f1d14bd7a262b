//! `headroom census` against a real Prometheus (Debian's, started by testpeers): a day of
//! history backfilled with `promtool tsdb create-blocks-from openmetrics` from
//! scripts/bench/census_gen.py, four engines each with a planted shape and a known answer, and
//! live emulator replicas scraped every second. Nothing mocks the Prometheus API.

use crate::util::headroom;
use census::analysis::Shape;
use census::{CensusDoc, RatesFrom};
use diagnose::Bound;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use testpeers::prometheus::{Job, Prometheus};

fn doc(args: &[&str]) -> (CensusDoc, serde_json::Value) {
    let (code, out, err) = headroom(args);
    assert_eq!(code, 0, "census {args:?} failed: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("census --json is JSON");
    let d: CensusDoc = serde_json::from_str(&out).expect("census --json is headroom.census/1");
    (d, v)
}

/// Writes the day and starts Prometheus on it; (store, the day's end).
fn backfilled_day() -> Option<(Prometheus, u64)> {
    testpeers::prometheus::binary()?;
    testpeers::prometheus::promtool()?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    // Whole minutes, five behind now: the history ends before the store's own clock.
    let end = now / 60 * 60 - 300;
    let dir = tempfile::tempdir().expect("temp dir");
    let om = dir.path().join("day.om");
    let gen = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/bench/census_gen.py");
    let out = Command::new("python3")
        .arg(&gen)
        .arg(end.to_string())
        .arg("86400")
        .arg(&om)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "census_gen.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let p = Prometheus::start_backfilled(&om)?;
    Some((p, end))
}

fn census_of(
    p: &Prometheus,
    end: u64,
    instance: &str,
    step: &str,
) -> (CensusDoc, serde_json::Value) {
    let sel = format!("{{instance=\"{instance}\"}}");
    let end = end.to_string();
    doc(&[
        "census",
        "--prometheus",
        &p.url,
        "--selector",
        &sel,
        "--since",
        "24h",
        "--step",
        step,
        "--at",
        &end,
        "--json",
    ])
}

#[test]
fn a_day_of_history_gives_each_planted_shape() {
    let _serial = testpeers::serial();
    let Some((p, end)) = backfilled_day() else {
        return;
    };

    // Contention, behind a restart into a new build (trap 3), cadence under radiance: and
    // latency under vllm: (trap 1), a ledger with a known answer (trap 4).
    let (a, v) = census_of(&p, end, "10.1.0.1:8000", "30s");
    let missing = testpeers::schema::undocumented(&v, "census.md", &[]);
    assert!(missing.is_empty(), "undocumented keys: {missing:?}");
    let verdict = a.verdict.as_ref().expect("a verdict");
    assert_eq!(verdict.shape, Shape::StepTimeContention, "{verdict:?}");
    assert_eq!(a.prefixes.latency.as_deref(), Some("vllm:"));
    assert_eq!(a.prefixes.cadence.as_deref(), Some("radiance:"));
    // Trap 3: the first quarter is the older container; only the latest piece is read. The day
    // is 2880 steps; the old piece ~720; the reset step and the two missed scrapes fall between.
    assert_eq!(a.segments.len(), 2, "{:?}", a.segments);
    assert!(a.segments[0]
        .ended_by
        .as_deref()
        .unwrap()
        .contains("restarted"));
    assert!(a.segments[1].censused && !a.segments[0].censused);
    let pts = a.window.as_ref().unwrap().points;
    assert!((2150..=2165).contains(&pts), "censused piece: {pts} steps");
    // The old container's 0.1x collapse is not in any bucket: the busiest bucket holds the new
    // build's 0.65 × 50 = 32.5 tok/s per stream (planted noise ±3 %), idle holds 50.
    let idle = &a.buckets[0];
    let busy = a.buckets.last().unwrap();
    let ps = |b: &census::analysis::Bucket| b.decode_tps_per_stream.unwrap();
    assert!((ps(idle) - 50.0).abs() < 2.0, "idle {}", ps(idle));
    assert!((ps(busy) - 32.5).abs() < 2.0, "busy {}", ps(busy));
    // TTFT stays inside what the buckets say: idle first tokens (0.08 s) are "≤ 0.1 s",
    // busy ones (1.2 s) are "≤ 2.5 s", never an interpolation above the highest bucket holding
    // a sample.
    let p50 = idle.ttft_p50.unwrap();
    assert_eq!((p50.seconds, p50.bound), (0.1, Some(Bound::AtMost)));
    let p95 = busy.ttft_p95.unwrap();
    assert_eq!((p95.seconds, p95.bound), (2.5, Some(Bound::AtMost)));
    // Trap 4 and the ledger's known answer: 15.5 ms decode-only steps, 166 ms chunk steps, while
    // the mean step stays near the decode step.
    let l = a.ledger.as_ref().expect("the step ledger");
    assert!((l.decode_step_ms.unwrap() - 15.5).abs() < 0.05, "{l:?}");
    assert!((l.chunk_step_ms.unwrap() - 166.0).abs() < 0.5, "{l:?}");
    assert!(l.mean_step_ms.unwrap() < 20.0, "{l:?}");
    assert!(
        a.notes.iter().any(|n| n.contains("mean step")),
        "{:?}",
        a.notes
    );

    // Residency churn: the lagged dip, 3–9 min after each burst.
    let (b, _) = census_of(&p, end, "10.1.0.2:8000", "30s");
    let vb = b.verdict.as_ref().unwrap();
    assert_eq!(vb.shape, Shape::ResidencyChurn, "{vb:?}");
    let tail = b.lags.as_ref().unwrap().tail.as_ref().unwrap();
    assert!((180.0..=540.0).contains(&tail.lag_s), "{tail:?}");

    // Stock vLLM: no step ledger, said so; iteration_tokens_total counts the steps; the
    // preemptions separate the stall.
    let (c, _) = census_of(&p, end, "10.1.0.3:8000", "30s");
    assert_eq!(c.ledger, None);
    assert!(
        c.unavailable.iter().any(|u| u.contains("step ledger")),
        "{:?}",
        c.unavailable
    );
    assert!(c.totals.tokens_per_step.is_some() && c.totals.iteration_steps.unwrap() > 0.0);
    let vc = c.verdict.as_ref().unwrap();
    assert_eq!(vc.shape, Shape::PreemptionStall, "{vc:?}");

    // Trap 2: tps gauges only. A 2 min step is refused with the reason; 30 s is read, per
    // stream over running. The preempted-depth gauge is never taken for the count (trap 1).
    let sel = "{instance=\"10.1.0.4:8000\"}";
    let e = end.to_string();
    let (code, _, err) = headroom(&[
        "census",
        "--prometheus",
        &p.url,
        "--selector",
        sel,
        "--step",
        "2m",
        "--at",
        &e,
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("1 s decayed"), "{err}");
    let (d, _) = census_of(&p, end, "10.1.0.4:8000", "30s");
    assert_eq!(d.rates_from, Some(RatesFrom::Gauges));
    assert_eq!(d.verdict.as_ref().unwrap().shape, Shape::StepTimeContention);
    assert!(d.buckets[0].decode_tps_per_stream.is_some());
    assert_eq!(d.totals.preemptions, None);
    assert!(
        d.unavailable.iter().any(|u| u.contains("instant depth")),
        "{:?}",
        d.unavailable
    );
    assert!(d.unavailable.iter().any(|u| u.contains("TTFT")));

    // Several engines under one selector: refused, naming them.
    let (code, _, err) = headroom(&["census", "--prometheus", &p.url, "--at", &e]);
    assert_eq!(code, 1);
    assert!(
        err.contains("matches 4 engines") && err.contains("10.1.0.3:8000"),
        "{err}"
    );

    // The human view says the same.
    let (code, out, err) = headroom(&[
        "census",
        "--prometheus",
        &p.url,
        "--selector",
        "{instance=\"10.1.0.1:8000\"}",
        "--at",
        &e,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Shape: step-time contention"), "{out}");
    assert!(
        out.contains("chunk step") && out.contains("≤ 100 ms"),
        "{out}"
    );
}

/// A driven emulator, killed when dropped.
struct Emulator {
    child: Child,
    addr: String,
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn emulate(scenario: &str, extra: &[&str]) -> Emulator {
    let mut child = Command::new(crate::util::bin())
        .args(["emulate", "--scenario", scenario, "--drive", "--port", "0"])
        .args(["--speed", "1", "--duration", "600s", "--json"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("headroom emulate starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout piped"))
        .read_line(&mut line)
        .expect("emulate prints its deployment");
    let v: serde_json::Value = serde_json::from_str(&line).expect("emulate's first line is JSON");
    let url = v["url"].as_str().expect("url").to_string();
    Emulator {
        child,
        addr: url.trim_start_matches("http://").to_string(),
    }
}

#[test]
fn live_emulator_replicas_through_prometheus_and_one_scrape() {
    let _serial = testpeers::serial();
    if testpeers::prometheus::binary().is_none() {
        return;
    }
    // The second exports its step ledger under radiance: (spec §9's split), latency under vllm:.
    let reps = [
        emulate("pressed-prefill", &[]),
        emulate("pressed-prefill", &["--ledger-prefix", "radiance"]),
    ];
    let p = Prometheus::start(&[Job {
        name: "emu",
        targets: reps.iter().map(|r| r.addr.clone()).collect(),
    }])
    .expect("prometheus");
    p.wait_targets_up(2, Duration::from_secs(30));
    // 40 steps of 5 s (each step five 1 s scrapes): MIN_STEPS is 30.
    std::thread::sleep(Duration::from_secs(205));
    let sel = format!("{{instance=\"{}\"}}", reps[0].addr);
    let (d, v) = doc(&[
        "census",
        "--prometheus",
        &p.url,
        "--selector",
        &sel,
        "--since",
        "200s",
        "--step",
        "5s",
        "--json",
    ]);
    assert!(testpeers::schema::undocumented(&v, "census.md", &[]).is_empty());
    // The emulator exports its step ledger under vllm: (the cadence and the latency prefix are
    // one here), and it models chunked prefill: a step that carries a prompt chunk takes the
    // chunk's time.
    assert_eq!(d.prefixes.cadence.as_deref(), Some("vllm:"));
    let l = d.ledger.as_ref().expect("the emulator's step ledger");
    eprintln!("live ledger: {l:?}; verdict {:?}", d.verdict);
    // Measured: 42.8 ms chunk against 13.0 ms decode-only over the 200 s window (and 53.0
    // against 13.0 from one scrape after 25 s): the ordering holds with a 3x margin.
    let (dec, chunk) = (l.decode_step_ms.unwrap(), l.chunk_step_ms.unwrap());
    assert!(chunk > dec, "chunk {chunk} ms vs decode {dec} ms");

    // Trap 1 live: the ledger under radiance:, latency under vllm:, joined by one census. The
    // same scenario and load as above, so the same ordering with the same 3x margin.
    let sel = format!("{{instance=\"{}\"}}", reps[1].addr);
    let (r, v) = doc(&[
        "census",
        "--prometheus",
        &p.url,
        "--selector",
        &sel,
        "--since",
        "200s",
        "--step",
        "5s",
        "--json",
    ]);
    assert!(testpeers::schema::undocumented(&v, "census.md", &[]).is_empty());
    assert_eq!(r.prefixes.cadence.as_deref(), Some("radiance:"), "{r:?}");
    assert_eq!(r.prefixes.latency.as_deref(), Some("vllm:"), "{r:?}");
    let lr = r.ledger.as_ref().expect("the ledger under radiance:");
    eprintln!("live radiance ledger: {lr:?}");
    let (dec, chunk) = (lr.decode_step_ms.unwrap(), lr.chunk_step_ms.unwrap());
    assert!(chunk > dec, "chunk {chunk} ms vs decode {dec} ms");

    // --url: the same engine's counters since boot, and what one scrape cannot give.
    let url = format!("http://{}", reps[0].addr);
    let (u, v) = doc(&["census", "--url", &url, "--json"]);
    assert!(testpeers::schema::undocumented(&v, "census.md", &[]).is_empty());
    let lu = u.ledger.expect("ledger from the totals");
    assert!(
        lu.steps >= l.steps,
        "since boot {} < window {}",
        lu.steps,
        l.steps
    );
    assert!(u.verdict.is_none() && u.buckets.is_empty());
    assert!(u.unavailable.iter().any(|x| x.contains("time series")));
}
