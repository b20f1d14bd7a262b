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
use testpeers::group::Starting;
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

/// A KV pool too small for the traffic: 144 tokens (`--max-total-tokens`) for eight clients
/// whose requests need about 79 each (a 59-token prompt and up to 20 generated), so it holds
/// one whole request and most of a second. SGLang admits a request when its prompt and whole
/// output fit beside what the running ones are estimated to still generate; the estimate is
/// 0.7 × conservativeness of their remaining outputs (1.0 for `ignore_eos` requests, so these
/// may stop at EOS). With `--schedule-conservativeness 0.01` it admits a second request on the
/// 85 tokens left after the first, which leaves 26 for two outputs of up to 20 each: the two outgrow
/// the pool before they finish (unless the second started 14 or more steps after the first),
/// and SGLang retracts one (its preemption), with the pool full and six clients queued.
/// `--context-length 96` keeps the pool above 1.25 longest requests, so the small pool is not
/// read as weights crowding the memory (R4).
///
/// Measured twice here (load average 18–22 on 2 cores, ~0.25 decode steps/s): by a script,
/// the first prefill 37 s after the load started, the second 18 s later, and the pool at 100 %
/// (R2's gate: 88 %) with six waiting (gate: above 2) when SGLang logged "KV cache pool is
/// full. Retract requests. #retracted_reqs: 1, #new_token_ratio: 0.0068 -> 1.0000" 138 s in;
/// in this test's own window, the retraction 90 s in, KV peak 100 %, mean waiting 4.9, one
/// retraction (0.004/s). These are structural (the pool fills and the clients wait whatever
/// the speed), not speeds; the window is 240 s, 1.7 × the slower of the two. The
/// same window read before the retraction counter existed lost it (0.000/s): headroom now
/// counts it from zero while SGLang's `num_retracted_reqs` gauge says none happened yet.
#[test]
#[ignore = "not structural at low load: at load ~3 (2026-12-02 09:0x UTC) SGLang retracted once and six clients waited, but it ran ~one request at a time and the sampled KV peak was 54 % against R2's 88 % gate, so R2 stayed quiet; a retraction proves the pool was full when the gauge missed it, and R2 should read it so (not yet built)"]
fn live_sglang_small_kv_pool_retracts_and_is_r2_in_sglangs_words() {
    let _g = testpeers::serial();
    let Some(srv) = sglang::start(&[
        "--context-length",
        "96",
        "--max-total-tokens",
        "144",
        "--schedule-conservativeness",
        "0.01",
        "--decode-log-interval",
        "1",
    ]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // 59 tokens: "lighthouse" is one token of SmolLM2's tokenizer.
    let load = Load::until_eos(srv.port, SERVED_MODEL, 8, 20, |i, j| {
        format!("Client {i} request {j}: {}", "lighthouse ".repeat(51))
    });
    // The window opens as the load starts, so it holds the first overcommit and its retraction.
    let rec = dir.path().join("kv.jsonl");
    let doc = diagnose(&srv.url, 240, &rec);
    load.stop();

    // Retractions, from SGLang's own counter in the raw scrapes (absent until the first one).
    let retracted = counter_series(&rec, "sglang:num_retracted_requests_total");
    let n = retracted.last().unwrap().1 - retracted[0].1;
    assert!(n >= 1.0, "no retraction in the window");

    let cap = doc
        .config
        .get("kv_capacity_tokens")
        .expect("pool size read");
    assert_eq!(cap.value.as_f64(), Some(144.0), "{cap:?}");
    let primary = doc.primary.as_ref().unwrap_or_else(|| {
        panic!(
            "no primary: {}",
            serde_json::to_string_pretty(&doc).unwrap()
        )
    });
    assert_eq!(primary.rule, RuleId::R2, "{primary:?}");
    assert!(
        primary
            .evidence
            .iter()
            .any(|e| e.starts_with("retractions ")),
        "{:?}",
        primary.evidence
    );
    // The lever is the flag that fixed the pool, in SGLang's words, and none of vLLM's.
    let first = primary.fix.first().expect("a fix");
    assert_eq!(
        first.flag.as_deref(),
        Some("--max-total-tokens"),
        "{first:?}"
    );
    assert!(first.text.contains("144 tokens"), "{first:?}");
    let fix = serde_json::to_string(&primary.fix).unwrap();
    for vllm in [
        "--gpu-memory-utilization",
        "--num-gpu-blocks-override",
        "--max-model-len",
        "--max-num-seqs",
    ] {
        assert!(!fix.contains(vllm), "{vllm} in {fix}");
    }
}

/// SGLang's own count of prompt tokens served from its radix cache, from a raw scrape.
fn cached_tokens_total(port: u16) -> f64 {
    let (code, body) = testpeers::get(port, "/metrics").expect("metrics");
    assert_eq!(code, 200, "{body}");
    series_sum(&body, "sglang:cached_tokens_total").unwrap_or(0.0)
}

/// A `probe --json` document, read back as the typed document.
fn probe_doc(args: &[&str]) -> loadgen::probe::ProbeDoc {
    let (code, out, err) = headroom(args);
    assert_eq!(code, 0, "headroom {args:?}: {err}");
    loadgen::probe::ProbeDoc::read(&out).unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}"))
}

/// `probe prefix`, `probe depth` and `bench` against one SGLang (`--enable-cache-report`, so
/// its answers carry `usage.prompt_tokens_details.cached_tokens`), then `bench` against a
/// second with one seat and `regress` between the two. SGLang decodes ~2 tok/s per stream here
/// (0.1–0.2 under a load of 25), so everything is short, and what is asserted is what the
/// engine counts (cached tokens, prompt tokens, the settings that differ), never a speed.
#[test]
fn live_sglang_probes_bench_and_regress_between_two_settings() {
    use loadgen::bench_suite::Clock;
    use loadgen::probe::depth::Phase;
    use loadgen::probe::prefix::{RunKind, VerdictBasis};
    use loadgen::probe::{CacheVerdict, ProbeReport};
    let _g = testpeers::serial();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    // The second server starts while the first is probed: a start is one to several minutes of
    // mostly one core's Python, and nothing asserted on the first is a speed.
    let second = Starting::spawn(|| {
        sglang::start(&["--enable-cache-report", "--max-running-requests", "1"])
    });
    {
        let Some(srv) = sglang::start(&["--enable-cache-report"]) else {
            return;
        };

        // probe prefix: the warm prompt is served from the radix cache, the salted one is not,
        // and SGLang's own counter saw at least the cached tokens the answers reported.
        let before = cached_tokens_total(srv.port);
        let doc = probe_doc(&[
            "probe", "prefix", "--url", &srv.url, "--tokens", "128", "--gen", "2", "--json",
        ]);
        let after = cached_tokens_total(srv.port);
        let ProbeReport::Prefix(j) = doc.report else {
            panic!("a prefix report expected");
        };
        assert_eq!(
            j.load_before
                .as_ref()
                .map(|l| l.source == "SGLang /metrics running and waiting gauges"),
            Some(true),
            "{:?}",
            j.load_before
        );
        assert_eq!(j.basis, VerdictBasis::EngineCount, "{}", j.reason);
        assert_eq!(j.verdict, CacheVerdict::Hit, "{}", j.reason);
        assert_eq!(j.control, CacheVerdict::Miss, "{}", j.reason);
        let warm = j.runs.iter().find(|r| r.kind == RunKind::Warm).unwrap();
        let prompt = warm.server_prompt_tokens.expect("SGLang's prompt count") as f64;
        let warm_cached = warm.cached_tokens.unwrap() as f64;
        assert!(warm_cached >= 0.9 * prompt, "{warm:?}");
        let reported = j.runs.iter().filter_map(|r| r.cached_tokens).sum::<u64>() as f64;
        assert!(
            after - before >= reported,
            "SGLang counted {} cached, the answers {reported}",
            after - before
        );
        // Warm TTFT below cold is not asserted: the one pair measured here (a 128-token depth
        // probe: cold 36.5 s, warm 8.6 s, under load 25) is one sample, and the load moves
        // SGLang's TTFT by several times from request to request. The engine's count decides.

        // probe depth: two depths, one round (depth is adaptive: `--max-repeats 1` holds it to
        // the one round this slow engine can afford), each prompt exactly its depth by SGLang's
        // own count, the warm repeat served from the cache, the context read from /v1/models.
        let doc = probe_doc(&[
            "probe",
            "depth",
            "--url",
            &srv.url,
            "--depths",
            "64,256",
            "--gen",
            "4",
            "--repeats",
            "1",
            "--max-repeats",
            "1",
            "--json",
        ]);
        let ProbeReport::Depth(d) = doc.report else {
            panic!("a depth report expected");
        };
        assert_eq!(
            d.server.context.as_ref().map(|c| c.tokens),
            Some(2048),
            "{:?}",
            d.server
        );
        assert_eq!(d.samples.len(), 4, "a cold and a warm request per depth");
        for s in &d.samples {
            let depth = s.depth as f64;
            let server = s.server_prompt_tokens.expect("usage.prompt_tokens") as f64;
            assert!((server - depth).abs() <= 0.02 * depth, "{s:?}");
            if s.phase == Phase::Warm {
                assert!(s.cached_tokens.unwrap() as f64 >= 0.9 * depth, "{s:?}");
            }
            assert_eq!(s.gen_tokens, 4, "{s:?}");
        }
        assert_eq!(d.rows.len(), 2);

        // bench: the quick suite once (and its warm-up), on the client's clock (SGLang reports
        // no per-request timings).
        let a = crate::bench::bench(&srv.url, "sglang default", db, 1);
        assert_eq!(a.identity.engine, Some(Engine::Sglang), "{:?}", a.identity);
        for m in &a.metrics {
            assert_eq!(m.n, 1, "{m:?}");
            assert!(m.median.is_some_and(|x| x > 0.0), "{m:?}");
            assert_eq!(m.clock, Some(Clock::Client), "{m:?}");
        }
    }
    {
        let Some(srv) = second.wait() else {
            return;
        };
        crate::bench::bench(&srv.url, "sglang one seat", db, 1);
    }

    // regress names the setting that differs, read from SGLang's command line, and with one
    // sample a side no rank test can reach its level: nothing is called changed.
    let r = crate::bench::regress(
        db,
        &[
            "--baseline",
            "sglang default",
            "--latest",
            "sglang one seat",
        ],
    );
    let changed = &r.changed;
    let seats = changed
        .iter()
        .find(|c| c.field == "settings.max_num_seqs")
        .unwrap_or_else(|| panic!("the seat limit not named: {changed:#?}"));
    assert_eq!(seats.latest.as_deref(), Some("1"), "{seats:?}");
    assert!(seats.baseline.is_none(), "{seats:?}");
    assert!(
        changed
            .iter()
            .any(|c| c.field == "argv.--max-running-requests"),
        "{changed:#?}"
    );
    for m in &r.metrics {
        assert_eq!(m.verdict, regress::Verdict::Unchanged, "{m:?}");
    }
}

/// Changes of SGLang's scheduler gauges (running, queued, tokens in use) between consecutive ok
/// scrapes of a recording, counted from the raw bodies without the project's parser.
fn gauge_changes(rec: &std::path::Path) -> usize {
    let names = [
        "sglang:num_running_reqs",
        "sglang:num_queue_reqs",
        "sglang:num_used_tokens",
    ];
    let series: Vec<Vec<(f64, f64)>> = names.iter().map(|n| counter_series(rec, n)).collect();
    (1..series[0].len())
        .filter(|&i| series.iter().any(|s| s[i].1 != s[i - 1].1))
        .count()
}

/// A real SGLang window at its default `--decode-log-interval` (40 decode steps), recorded here
/// (fixtures/sglang-0.5.23/SOURCES.md): its running, queued and token-usage gauges held their
/// values between refreshes while requests ran. diagnose says so, with the count the
/// raw scrapes give, and judges no rule that reads those gauges on the held values.
#[test]
fn sglang_gauges_held_between_refreshes_leave_their_rules_unjudged() {
    let gz = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/sglang-0.5.23/stale-gauges.jsonl.gz");
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("stale-gauges.jsonl");
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap()),
        &mut text,
    )
    .unwrap();
    std::fs::write(&rec, text).unwrap();
    // SGLang's own per-step counter moved: it decoded through the window.
    let decoded = counter_series(&rec, "sglang:realtime_tokens_total");
    assert!(decoded.last().unwrap().1 > decoded[0].1, "{decoded:?}");
    let changes = gauge_changes(&rec);
    // The recording holds SGLang's command line (no --decode-log-interval: 40 applies).
    let args = [
        "diagnose",
        "--replay",
        rec.to_str().unwrap(),
        "--json",
        "--quiet",
    ];
    let (code, out, err) = headroom(&args);
    assert_eq!(code, 0, "{err}");
    let doc: Report = serde_json::from_str(&out).unwrap();
    assert_eq!(doc.engine, Engine::Sglang);
    // Requests ran through the window (SGLang counts tokens only as each request ends).
    assert!(
        doc.requests.running.is_some_and(|g| g.peak > 0.0),
        "{:?}",
        doc.requests
    );
    let interval = doc
        .config
        .get("decode_log_interval")
        .expect("the default recorded");
    assert_eq!(interval.value.as_f64(), Some(40.0), "{interval:?}");
    let stale: Vec<_> = doc
        .quiet
        .iter()
        .filter(|q| {
            q.silent_reason
                .as_deref()
                .is_some_and(|r| r.starts_with("stale gauges:"))
        })
        .collect();
    assert_eq!(
        stale.len(),
        diagnose::stale::GAUGE_RULES.len(),
        "{:#?}",
        doc.quiet
    );
    let why = stale[0].silent_reason.as_deref().unwrap();
    assert!(
        changes < diagnose::stale::MIN_GAUGE_REFRESHES,
        "{changes} changes: not stale"
    );
    assert!(why.contains(&format!("changed {changes} times")), "{why}");
    assert!(why.contains("--decode-log-interval 40"), "{why}");
    assert!(doc.primary.is_none(), "{:?}", doc.primary);
    assert_eq!(
        doc.boundary.as_ref().map(|b| b.kind),
        Some(BoundaryKind::Declined),
        "{:?}",
        doc.boundary
    );
}
