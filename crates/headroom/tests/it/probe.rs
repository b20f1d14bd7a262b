//! `headroom probe` end to end against a real llama-server with SmolLM2:
//! depth finds SmolLM2's real context-bound slope on CPU, prefix sees llama.cpp's cache hit and
//! the salted miss, turns sees warm turns beat first turns, and refusals send nothing.

use std::io::{Read, Write};
use std::process::Output;
use std::time::{Duration, Instant};

use crate::util::headroom_output as headroom;
use loadgen::bench_suite::Clock;
use loadgen::probe::depth::{DepthFit, Phase};
use loadgen::probe::prefix::{RunKind, VerdictBasis};
use loadgen::probe::{
    CacheVerdict, DepthReport, DepthStop, DepthVerdict, PrefixReport, ProbeDoc, ProbeReport,
    TurnsReport,
};
use loadgen::{CountBasis, GenCountSource};
use testpeers::LlamaServer;

/// The `--json` document, read back as a user's program reads it.
fn stdout_json(out: &Output) -> ProbeDoc {
    assert!(
        out.status.success(),
        "headroom failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    ProbeDoc::read(&String::from_utf8_lossy(&out.stdout))
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn depth(doc: ProbeDoc) -> DepthReport {
    match doc.report {
        ProbeReport::Depth(r) => r,
        other => panic!("a depth report expected, got {other:?}"),
    }
}

fn prefix(doc: ProbeDoc) -> PrefixReport {
    match doc.report {
        ProbeReport::Prefix(r) => r,
        other => panic!("a prefix report expected, got {other:?}"),
    }
}

fn turns(doc: ProbeDoc) -> TurnsReport {
    match doc.report {
        ProbeReport::Turns(r) => r,
        other => panic!("a turns report expected, got {other:?}"),
    }
}

/// Sum of the llamacpp counters that move when any prompt is processed or token generated.
fn work_done(server: &LlamaServer) -> f64 {
    let (code, body) = testpeers::get(server.port, "/metrics").expect("metrics");
    assert_eq!(code, 200, "{body}");
    body.lines()
        .filter(|l| {
            l.starts_with("llamacpp:prompt_tokens_total ")
                || l.starts_with("llamacpp:tokens_predicted_total ")
        })
        .filter_map(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        .sum()
}

#[test]
fn depth_finds_smollm2_context_bound_and_refuses_beyond_context() {
    let _one = testpeers::serial();
    let Some(server) = LlamaServer::start(&["-c", "4096", "-np", "1", "--metrics"]) else {
        return;
    };

    // Beyond the 4096-token slot: refused, naming the limit, before any completion is sent.
    let out = headroom(&[
        "probe",
        "depth",
        "--url",
        &server.url,
        "--depths",
        "512,4k,8k",
        "--gen",
        "32",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("4096, 8192"), "{err}");
    assert!(err.contains("context of 4096 tokens"), "{err}");
    assert!(err.contains("/props"), "{err}");
    assert!(err.contains("nothing was sent"), "{err}");
    assert_eq!(work_done(&server), 0.0, "a refused probe must not generate");

    let t0 = Instant::now();
    let out = headroom(&[
        "probe",
        "depth",
        "--url",
        &server.url,
        "--depths",
        "64,512,1k,2k",
        "--gen",
        "32",
        "--repeats",
        "2",
        "--json",
    ]);
    let doc = stdout_json(&out);
    eprintln!("depth probe took {:?}", t0.elapsed());
    assert_eq!(doc.schema, loadgen::probe::doc::SCHEMA);
    let j = depth(doc);
    assert!(
        matches!(j.prompt_count, CountBasis::Tokenizer { .. }),
        "{:?}",
        j.prompt_count
    );
    let samples = &j.samples;
    // At least the 2 rounds asked for; more while the slope's interval has not decided.
    let rounds = j.repeats as usize;
    assert!((2..=12).contains(&rounds), "{rounds}");
    assert_eq!(samples.len(), 4 * 2 * rounds);
    assert_eq!(j.min_repeats, 2);
    assert_eq!(j.decode_clock, Clock::Engine);
    for s in samples {
        // Exact prompts: the server counted exactly the requested depth.
        assert_eq!(s.server_prompt_tokens, Some(s.depth), "{s:?}");
        assert_eq!(s.gen_tokens, 32);
        assert_eq!(s.gen_count, GenCountSource::Usage);
        assert!(s.ttft_ms > 0.0);
        assert!(s.decode_tps.unwrap() > 0.0);
        match s.phase {
            Phase::Cold => assert_eq!(s.cached_tokens, Some(0), "cold must not hit: {s:?}"),
            Phase::Warm => assert!(
                s.cached_tokens.unwrap() + 1 >= s.depth,
                "warm must hit: {s:?}"
            ),
        }
    }
    // SmolLM2 on CPU: decode falls steeply from tens of tokens to 2k.
    let fit: &DepthFit = &j.fit;
    assert!(fit.high < 0.0, "{fit:?}");
    assert!(fit.low <= fit.slope_tps_per_1k);
    assert_eq!(fit.n, samples.len());
    assert_eq!(j.stopped, DepthStop::Decided);
    assert_eq!(j.verdict, DepthVerdict::ContextBound, "{}", j.reason);
    assert!(j.drop_per_10k_tps > 0.0);
    assert!(j.drop_over_range > 0.10);
    let rows = &j.rows;
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0].cold_ttft_ms.n, rounds);
    // Progress went to stderr, one line per request when stderr is not a terminal.
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("  depth ").count(), samples.len(), "{err}");
}

#[test]
fn prefix_hits_warm_misses_salted_and_refuses_a_busy_server() {
    let _one = testpeers::serial();
    let Some(server) = LlamaServer::start(&["-c", "2048", "-np", "1", "--metrics"]) else {
        return;
    };
    let out = headroom(&[
        "probe",
        "prefix",
        "--url",
        &server.url,
        "--tokens",
        "512",
        "--gen",
        "8",
        "--json",
    ]);
    let j = prefix(stdout_json(&out));
    assert_eq!(j.load_before.as_ref().unwrap().running, 0.0);
    assert_eq!(j.verdict, CacheVerdict::Hit, "{}", j.reason);
    assert_eq!(j.basis, VerdictBasis::EngineCount);
    assert_eq!(j.control, CacheVerdict::Miss);
    let by = |k: RunKind| j.runs.iter().find(|r| r.kind == k).unwrap();
    assert_eq!(by(RunKind::Cold).cached_tokens, Some(0));
    assert!(by(RunKind::Warm).cached_tokens.unwrap() >= 511);
    assert_eq!(by(RunKind::Salted).cached_tokens, Some(0));
    assert!(by(RunKind::Warm).ttft_ms < by(RunKind::Cold).ttft_ms);
    assert_eq!(j.warm_ttft_ms.n, 1);

    // Human output names the verdict and the field it read.
    let out = headroom(&[
        "probe",
        "prefix",
        "--url",
        &server.url,
        "--tokens",
        "64",
        "--gen",
        "4",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("verdict: cache HIT"), "{text}");
    assert!(
        text.contains("usage.prompt_tokens_details.cached_tokens"),
        "{text}"
    );
    assert!(
        text.contains("control: the salted prompt was a miss"),
        "{text}"
    );

    // Busy: hold a streaming generation open on the only slot, then probe.
    let mut busy = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let body = r#"{"prompt":"Count slowly:","max_tokens":100000,"ignore_eos":true,"stream":true}"#;
    write!(
        busy,
        "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    busy.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut first = [0u8; 64];
    let _ = busy.read(&mut first).unwrap(); // the response has begun
    let deadline = Instant::now() + Duration::from_secs(30);
    while !testpeers::get(server.port, "/metrics")
        .is_some_and(|(_, b)| b.contains("llamacpp:requests_processing 1"))
    {
        assert!(Instant::now() < deadline, "the busy request never started");
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = headroom(&["probe", "prefix", "--url", &server.url, "--tokens", "64"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("busy (1 running"), "{err}");
    assert!(err.contains("--force"), "{err}");
    drop(busy); // llama.cpp cancels the generation when its client goes away
}

#[test]
fn turns_warm_turns_beat_first_turns() {
    let _one = testpeers::serial();
    // Two slots of 2048 tokens: each conversation keeps its own cached prefix.
    let Some(server) = LlamaServer::start(&["-c", "4096", "-np", "2", "--metrics"]) else {
        return;
    };
    let out = headroom(&[
        "probe",
        "turns",
        "--url",
        &server.url,
        "--turns",
        "3",
        "--conversations",
        "2",
        "--context",
        "512",
        "--gen",
        "16",
        "--csv",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = String::from_utf8_lossy(&out.stdout);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        header,
        [
            "conversation",
            "turn",
            "prompt_tokens",
            "ttft_ms",
            "decode_tps",
            "gen_tokens",
            "gen_count",
            "cached_tokens"
        ]
    );
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    assert_eq!(rows.len(), 6, "{csv}");
    let col = |r: &Vec<String>, i: usize| r[i].parse::<f64>().unwrap();
    let mut first = Vec::new();
    let mut warm = Vec::new();
    for r in &rows {
        let (turn, ctx, ttft, cached) = (col(r, 1), col(r, 2), col(r, 3), col(r, 7));
        assert_eq!(col(r, 5), 16.0);
        if turn == 1.0 {
            assert!(ctx > 512.0, "the chat template wraps the 512-token message");
            assert_eq!(cached, 0.0);
            first.push(ttft);
        } else {
            assert!(
                cached > 512.0,
                "turn {turn} re-sent history should hit: {r:?}"
            );
            warm.push(ttft);
        }
    }
    let max_warm = warm.iter().cloned().fold(0.0, f64::max);
    let min_first = first.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(max_warm < min_first, "warm {warm:?} vs first {first:?}");

    // The JSON verdict agrees.
    let out = headroom(&[
        "probe",
        "turns",
        "--url",
        &server.url,
        "--turns",
        "2",
        "--conversations",
        "2",
        "--context",
        "256",
        "--gen",
        "8",
        "--json",
        "-q",
    ]);
    let j = turns(stdout_json(&out));
    assert!(j.warm_faster, "{}", j.summary);
    assert_eq!(j.first_ttft_ms.n, 2);
    assert_eq!(j.warm_ttft_ms.n, 2);
    assert!(out.stderr.is_empty(), "-q leaves stderr empty");
}

#[test]
fn unreachable_and_bad_arguments_are_clear() {
    let port = testpeers::free_port();
    let url = format!("http://127.0.0.1:{port}");
    let out = headroom(&["probe", "prefix", "--url", &url]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("cannot reach {url}/v1/models")),
        "{err}"
    );

    let out = headroom(&["probe", "depth", "--url", &url, "--depths", "512,lots"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"lots\" is not a token count"));

    let out = headroom(&["probe", "depth", "--url", &url, "--json", "--csv"]);
    assert!(!out.status.success());

    let out = headroom(&["probe", "depth", "--help"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Examples:"));
}
