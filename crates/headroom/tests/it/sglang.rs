//! headroom against a real SGLang: PyPI's `sglang` 0.5.23 on its CPU engine, serving SmolLM2-135M,
//! as `scripts/peers.sh` provides it and `testpeers::sglang` starts it (with the labelled
//! stand-in for the CPU `sgl_kernel`).
//!
//! A start costs one to two minutes, so one server serves several phases. The assertions are
//! verdicts, identities and counters read from the engine, never speeds: SGLang decodes ~2 tok/s
//! per stream on this shared machine, and its load moves that by several times.

use crate::util::headroom;
use diagnose::{BoundaryKind, Report, RuleId};
use engines::Engine;
use std::time::Duration;
use testpeers::load::{series_sum, Load};
use testpeers::sglang::{self, SERVED_MODEL};

/// `diagnose --json` over a `secs` window at 1 s, recording the raw scrapes to `rec`.
fn diagnose(url: &str, secs: u32, rec: &std::path::Path) -> Report {
    let window = format!("{secs}s");
    let args = [
        "diagnose",
        "--url",
        url,
        "--duration",
        &window,
        "--interval",
        "1s",
        "--record",
        rec.to_str().unwrap(),
        "--json",
        "--quiet",
    ];
    let (code, out, err) = headroom(&args);
    assert_eq!(code, 0, "headroom {args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("diagnose --json: {e}\n{out}"))
}

/// (t, value) of `series` summed over label sets, per ok scrape of a recording, read from the
/// raw bodies without the project's parser.
fn counter_series(rec: &std::path::Path, series: &str) -> Vec<(f64, f64)> {
    #[derive(serde::Deserialize)]
    struct Line {
        t: f64,
        ok: bool,
        body: Option<String>,
    }
    std::fs::read_to_string(rec)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<Line>(l).unwrap())
        .filter(|l| l.ok)
        .map(|l| {
            let body = l.body.expect("an ok scrape has a body");
            (l.t, series_sum(&body, series).unwrap_or(0.0))
        })
        .collect()
}

/// One server with two seats (`--max-running-requests 2`):
/// 1. one client: light load, no primary;
/// 2. eight clients: two run and six queue, so R5 with SGLang's own flag, the seat limit read
///    from the server's command line (SGLang does not export it), and the throughput equal to
///    SGLang's own counter over the same scrapes.
#[test]
fn live_sglang_light_load_is_quiet_and_two_seats_for_eight_clients_is_r5() {
    let _g = testpeers::serial();
    // SGLang refreshes its scheduler gauges (running, queued, token usage) every
    // `--decode-log-interval` decode steps, 40 by default: at this machine's 0.4–2 tok/s that is
    // 20–100 s, longer than a window. Every step here, so the window sees the queue.
    let Some(srv) = sglang::start(&["--max-running-requests", "2", "--decode-log-interval", "1"])
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();

    // 1. Light load: one client, never more than one of two seats taken, nothing queued.
    // Short completions (8 tokens) so that requests finish inside a window even at 0.4 tok/s.
    let load = Load::start(srv.port, SERVED_MODEL, 1, 8);
    std::thread::sleep(Duration::from_secs(5));
    let light = diagnose(&srv.url, 60, &dir.path().join("light.jsonl"));
    load.stop();
    assert_eq!(light.engine, Engine::Sglang);
    // Not an idle window: the client's requests ran in it (the boundary, if any, is the
    // traffic's, not "idle").
    assert!(
        light
            .boundary
            .as_ref()
            .is_none_or(|b| b.kind != BoundaryKind::Idle),
        "{:?}",
        light.boundary
    );
    assert_eq!(light.served_model.as_deref(), Some(SERVED_MODEL));
    assert!(
        light.primary.is_none(),
        "light load named a primary: {:?}",
        light.primary
    );

    // 2. Eight clients against two seats: the effect is structural, not a speed, so machine load
    // cannot hide it. R5 needs a mean queue of at least 2; six wait except in the moment between
    // a client's answer and its next request (with four clients, at most two could wait, and the
    // mean measured 1.8: on the threshold, so eight).
    let load = Load::start(srv.port, SERVED_MODEL, 8, 8);
    std::thread::sleep(Duration::from_secs(10));
    let rec = dir.path().join("busy.jsonl");
    let doc = diagnose(&srv.url, 60, &rec);
    load.stop();
    let seats = doc.config.get("max_num_seqs").expect("the seat limit read");
    assert_eq!(seats.source, "process_cmdline", "{:?}", doc.config);
    assert_eq!(seats.value.as_f64(), Some(2.0), "{seats:?}");
    let primary = doc.primary.as_ref().unwrap_or_else(|| {
        panic!(
            "no primary: {}",
            serde_json::to_string_pretty(&doc).unwrap()
        )
    });
    assert_eq!(primary.rule, RuleId::R5, "{primary:?}");
    // In SGLang's own words: its flag, never vLLM's.
    let fix = serde_json::to_string(&primary.fix).unwrap();
    assert!(fix.contains("--max-running-requests"), "{fix}");
    assert!(!fix.contains("--max-num-seqs"), "{fix}");

    // Throughput is SGLang's own generation counter over the same scrapes.
    let scrapes = counter_series(&rec, "sglang:generation_tokens_total");
    let (t0, c0) = scrapes[0];
    let (t1, c1) = *scrapes.last().unwrap();
    let expect = (c1 - c0) / (t1 - t0);
    let got = doc.throughput.generation_tokens_per_s.unwrap();
    assert!(expect > 0.0, "the server generated nothing in the window");
    assert!(
        (got - expect).abs() <= 1e-6 * expect.max(1.0),
        "scoreboard {got} vs SGLang's counter {expect}"
    );
}
