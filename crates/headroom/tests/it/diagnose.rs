//! `headroom diagnose` against a real llama-server under load, and replays of recordings
//! (including the real, truncated vLLM capture).

use crate::util::headroom;
use diagnose::remeasure::{MoveVerdict, Remeasure};
use diagnose::report::{ConfigValue, Report};
use diagnose::RuleId;
use engines::Engine;
use engines::{RecordingHeader, ScrapeRecord};
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use testpeers::LlamaServer;

/// The value of an unlabelled series in a Prometheus body, read without the project's parser.
fn series(body: &str, name: &str) -> Option<f64> {
    body.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

#[test]
fn live_llama_server_queue_is_concurrency_saturation_and_throughput_matches_its_counters() {
    let _g = testpeers::serial();
    let Some(srv) = LlamaServer::start(&["-np", "2", "-c", "2048", "--metrics"]) else {
        return;
    };
    // Six clients against two slots: a real queue. Bounded in count and time.
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..6)
        .map(|i| {
            let stop = stop.clone();
            let port = srv.port;
            std::thread::spawn(move || {
                let deadline = Instant::now() + Duration::from_secs(120);
                for j in 0..200 {
                    if stop.load(Ordering::Relaxed) || Instant::now() > deadline {
                        break;
                    }
                    let body = format!(
                        r#"{{"prompt":"Client {i} request {j}: write a short story about a lighthouse.","max_tokens":32,"cache_prompt":false}}"#
                    );
                    let _ = testpeers::post_json(port, "/v1/completions", &body);
                }
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(3));
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("run.jsonl");
    let (code, out, err) = headroom(&[
        "diagnose",
        "--url",
        &srv.url,
        "--duration",
        "12s",
        "--interval",
        "1s",
        "--record",
        rec.to_str().unwrap(),
        "--json",
        "--quiet",
    ]);
    stop.store(true, Ordering::Relaxed);
    assert_eq!(code, 0, "stderr: {err}");
    let doc: Report = serde_json::from_str(&out).expect("a headroom.diagnose/1 document");
    assert_eq!(doc.schema, diagnose::report::SCHEMA);
    assert_eq!(doc.engine, Engine::LlamaCpp);
    assert_eq!(doc.requests.max_num_seqs, Some(2.0));
    // Both slots busy with a queue behind them the whole window: concurrency saturation.
    assert_eq!(doc.primary_rule(), Some(RuleId::R5), "{out}");
    assert!(doc.requests.waiting.as_ref().unwrap().mean >= 2.0);
    // The model file named by /props gave the model's figures.
    let c = &doc.ceiling;
    assert!(
        c.model_from.as_deref().unwrap().starts_with("model file"),
        "{c:?}"
    );
    assert!(c.model.as_deref().unwrap().contains("135M"), "{c:?}");
    assert!(c.unknown_reason.as_deref().unwrap().contains("--gpu"));

    // Throughput equals the server's own step counters over the same scrapes (busy slot-steps:
    // decode calls × busy slots per call, as it prints them), computed here from the raw
    // recorded bodies.
    let lines: Vec<ScrapeRecord> = std::fs::read_to_string(&rec)
        .unwrap()
        .lines()
        .skip(1) // the header
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let scrapes: Vec<(f64, f64)> = lines
        .iter()
        .filter(|l| l.ok)
        .map(|l| {
            let body = l.body.as_deref().unwrap();
            let calls = series(body, "llamacpp:n_decode_total").unwrap();
            let busy = series(body, "llamacpp:n_busy_slots_per_decode").unwrap();
            (l.t, (calls * busy).round())
        })
        .collect();
    let (t0, c0) = scrapes[0];
    let (t1, c1) = *scrapes.last().unwrap();
    let expect = (c1 - c0) / (t1 - t0);
    let got = doc.throughput.generation_tokens_per_s.unwrap();
    assert!(expect > 0.0, "the server generated nothing in the window");
    assert!(
        // Equal up to float summation order (the window sums per-scrape deltas).
        (got - expect).abs() <= 1e-6 * expect.max(1.0),
        "scoreboard {got} vs counters {expect}"
    );
    assert_eq!(doc.scrapes.ok, scrapes.len());

    // The replay of the recording gives the same analysis.
    let (code, out2, err) = headroom(&["diagnose", "--replay", rec.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc2: Report = serde_json::from_str(&out2).unwrap();
    assert_eq!(doc2.primary_rule(), doc.primary_rule());
    assert_eq!(doc2.throughput, doc.throughput);
    for c in clients {
        c.join().unwrap();
    }
}

/// One request streaming from llama-server's /completion: (unix seconds, the server's
/// `tokens_predicted` for it) at each event, until `stop` or the request ends.
fn stream_tokens(port: u16, body: &str, stop: Arc<AtomicBool>) -> Vec<(f64, f64)> {
    use std::io::{BufRead, BufReader, Write};
    let mut c = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let req = format!(
        "POST /completion HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    c.write_all(req.as_bytes()).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut out = Vec::new();
    for line in BufReader::new(c).lines() {
        let Ok(line) = line else { break };
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let Some(data) = line.strip_prefix("data: ") else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(data) else {
            continue;
        };
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        if let Some(n) = v["tokens_predicted"].as_f64() {
            out.push((t, n));
        }
        if v["stop"].as_bool() == Some(true) {
            break;
        }
    }
    out
}

/// The tokens a stream had received by `t`: the count of its last event at or before `t`.
fn received_by(events: &[(f64, f64)], t: f64) -> f64 {
    events
        .iter()
        .take_while(|e| e.0 <= t)
        .last()
        .map_or(0.0, |e| e.1)
}

#[test]
fn live_llama_server_one_slot_decoding_reads_its_rate_though_no_request_ends() {
    let _g = testpeers::serial();
    let Some(srv) = LlamaServer::start(&["-np", "1", "-c", "8192", "--metrics"]) else {
        return;
    };
    // One request that outlasts the window: a long n_predict with the end of sequence ignored.
    let stop = Arc::new(AtomicBool::new(false));
    let client = {
        let (port, stop) = (srv.port, stop.clone());
        std::thread::spawn(move || {
            let body = r#"{"prompt":"Once upon a time","n_predict":8000,"ignore_eos":true,"stream":true,"cache_prompt":false}"#;
            stream_tokens(port, body, stop)
        })
    };
    std::thread::sleep(Duration::from_secs(3));
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("run.jsonl");
    let (code, out, err) = headroom(&[
        "diagnose",
        "--url",
        &srv.url,
        "--duration",
        "8s",
        "--interval",
        "1s",
        "--record",
        rec.to_str().unwrap(),
        "--json",
        "--quiet",
    ]);
    stop.store(true, Ordering::Relaxed);
    let events = client.join().unwrap();
    assert_eq!(code, 0, "stderr: {err}");
    let doc: Report = serde_json::from_str(&out).expect("a headroom.diagnose/1 document");
    assert_eq!(doc.engine, Engine::LlamaCpp);
    assert_eq!(doc.requests.max_num_seqs, Some(1.0));
    let scrapes: Vec<(f64, f64)> = std::fs::read_to_string(&rec)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<ScrapeRecord>(l).unwrap())
        .filter(|l| l.ok)
        .map(|l| {
            let body = l.body.unwrap();
            (
                l.t,
                series(&body, "llamacpp:tokens_predicted_total").unwrap_or(0.0),
            )
        })
        .collect();
    let (t0, credited0) = scrapes[0];
    let (t1, credited1) = *scrapes.last().unwrap();
    // The case: no request ended in the window, so the server's token counter stood still.
    assert_eq!(credited0, credited1, "a request ended inside the window");
    let last_event = events.last().map_or(0.0, |e| e.0);
    assert!(last_event >= t1, "the stream ended before the window did");
    let received = received_by(&events, t1) - received_by(&events, t0);
    // Effect against noise: the scrape and the event clocks differ by a step or two at each
    // end (a few tokens); at least 50 tokens in the window keeps that under 10 %, inside the
    // 20 % the rate is held to (one window, n = 1).
    assert!(
        received >= 50.0,
        "too few tokens to judge: {received} in {} s",
        t1 - t0
    );
    let client_rate = received / (t1 - t0);
    let got = doc.throughput.generation_tokens_per_s.unwrap();
    assert!(
        (got - client_rate).abs() <= 0.2 * client_rate,
        "generation {got} tok/s against {client_rate} tok/s received by the client"
    );
}

fn recording(dir: &std::path::Path, name: &str, bodies: &[(f64, &str)]) -> std::path::PathBuf {
    let p = dir.join(name);
    let mut header = RecordingHeader::new("http://127.0.0.1:1", 1.0, 1000.0);
    // The server's own /v1/models body: vLLM's wire format, kept raw in the recording.
    header.models = Some(serde_json::json!(
        {"data": [{"id": "Qwen/Qwen2.5-Coder-1.5B-Instruct", "max_model_len": 32768}]}
    ));
    let mut s = serde_json::to_string(&header).unwrap();
    s.push('\n');
    for (t, b) in bodies {
        let line = ScrapeRecord {
            t: *t,
            ok: true,
            error: None,
            body: Some(b.to_string()),
            elapsed_s: None,
        };
        s.push_str(&serde_json::to_string(&line).unwrap());
        s.push('\n');
    }
    std::fs::write(&p, s).unwrap();
    p
}

#[test]
fn the_real_truncated_vllm_capture_is_salvaged_and_the_cut_is_named() {
    let capture = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/metrics/vllm-v0-aibrix-docs-1.prom"
    ))
    .expect("fixtures/metrics in the repository");
    let dir = tempfile::tempdir().unwrap();
    let rec = recording(
        dir.path(),
        "capture.jsonl",
        &[(1000.0, &capture), (1010.0, &capture)],
    );
    let (code, out, err) = headroom(&["diagnose", "--replay", rec.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Report = serde_json::from_str(&out).unwrap();
    assert_eq!(doc.engine, Engine::Vllm);
    // A real vLLM's capture: not labelled simulated.
    assert!(!doc.simulated);
    let cut = &doc.window.truncated;
    assert!(
        cut.iter()
            .any(|c| c.contains("vllm:iteration_tokens_total")),
        "{cut:?}"
    );
    // What is whole was read: the served name and max_model_len from /v1/models, KV usage.
    assert_eq!(
        doc.served_model.as_deref(),
        Some("Qwen/Qwen2.5-Coder-1.5B-Instruct")
    );
    assert_eq!(doc.config["max_model_len"].value, ConfigValue::Int(32768));
    assert!(doc.kv.usage.is_some());
    // Identical scrapes: the counters did not move, so no rate is invented.
    assert_eq!(doc.throughput.generation_tokens_per_s, Some(0.0));
    // No GPU given: the ceiling is unknown with the reason, and no rule guesses.
    assert!(doc
        .ceiling
        .unknown_reason
        .as_deref()
        .unwrap()
        .contains("--gpu"));
    let (_, text, _) = headroom(&["diagnose", "--replay", rec.to_str().unwrap()]);
    assert!(
        text.contains("truncated") && text.contains("Hardware ceiling unknown"),
        "{text}"
    );
}

#[test]
fn a_restart_inside_the_window_is_cut_and_reported() {
    let body = |gen: f64| {
        format!(
            "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{{model_name=\"m\"}} {gen}\n\
             # TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{{model_name=\"m\"}} 4\n\
             # TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{{model_name=\"m\"}} 0\n"
        )
    };
    let bodies: Vec<(f64, String)> = [
        (0.0, 100.0),
        (1.0, 150.0),
        (2.0, 200.0),
        (3.0, 5.0),
        (4.0, 45.0),
        (5.0, 85.0),
        (6.0, 125.0),
    ]
    .iter()
    .map(|(t, g)| (1000.0 + t, body(*g)))
    .collect();
    let refs: Vec<(f64, &str)> = bodies.iter().map(|(t, b)| (*t, b.as_str())).collect();
    let dir = tempfile::tempdir().unwrap();
    let rec = recording(dir.path(), "restart.jsonl", &refs);
    let (code, out, err) = headroom(&["diagnose", "--replay", rec.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Report = serde_json::from_str(&out).unwrap();
    assert_eq!(doc.window.resets, 1);
    assert_eq!(doc.window.cut_by_reset, 3);
    // The longest reset-free run (after the restart): 40 tok/s, never a negative rate.
    assert_eq!(doc.throughput.generation_tokens_per_s, Some(40.0));
}

#[test]
fn clear_errors_for_an_unreachable_server_and_a_bad_replay() {
    let port = testpeers::free_port();
    let (code, _, err) = headroom(&[
        "diagnose",
        "--url",
        &format!("http://127.0.0.1:{port}"),
        "--duration",
        "2s",
        "--quiet",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("cannot reach"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "not json\n").unwrap();
    let (code, _, err) = headroom(&["diagnose", "--replay", bad.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("bad.jsonl"), "{err}");
}

#[test]
fn save_history_and_remeasure_against_a_replay() {
    let body = |gen: f64, run: f64, wait: f64| {
        format!(
            "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{{model_name=\"m\"}} {gen}\n\
             # TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{{model_name=\"m\"}} {run}\n\
             # TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{{model_name=\"m\"}} {wait}\n"
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    // Before: 8 seats all busy, a queue of 5 (R5 with --engine-args giving max-num-seqs 8).
    let before: Vec<(f64, String)> = (0..13)
        .map(|i| {
            (
                1000.0 + i as f64,
                body(100.0 * i as f64 + (i % 3) as f64, 8.0, 5.0),
            )
        })
        .collect();
    let refs: Vec<(f64, &str)> = before.iter().map(|(t, b)| (*t, b.as_str())).collect();
    let rec = recording(dir.path(), "before.jsonl", &refs);
    let args = "vllm serve m --max-num-seqs 8";
    let (code, out, err) = headroom(&[
        "diagnose",
        "--replay",
        rec.to_str().unwrap(),
        "--engine-args",
        args,
        "--save",
        "--db",
        db.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    // The printed document reads back as the typed struct (unknown fields refused), and every
    // field it holds is named in docs/json/diagnose.md (the wire format's keys: read as JSON).
    let doc: Value = serde_json::from_str(&out).unwrap();
    let typed: Report = serde_json::from_str(&out).expect("a headroom.diagnose/1 document");
    assert_eq!(typed.primary_rule(), Some(RuleId::R5));
    let missing = testpeers::schema::undocumented(&doc, "diagnose.md", &["/config"]);
    assert!(missing.is_empty(), "undocumented: {missing:?}");
    // R5 prescribes the seat knob, typed.
    let fix = &typed.primary.as_ref().unwrap().fix;
    assert!(
        fix.iter()
            .all(|s| s.knob.is_none() || s.knob == Some(diagnose::Knob::MaxNumSeqs)),
        "{fix:?}"
    );
    let id = typed.saved_run_id.unwrap();
    let (code, hist, _) = headroom(&["history", "--db", db.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(hist.contains("primary R5"), "{hist}");
    let (code, hist, _) = headroom(&["history", "--db", db.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    let typed: store::history::History =
        serde_json::from_str(&hist).expect("a headroom.history/1 document");
    assert_eq!(typed.schema, store::history::SCHEMA);
    assert_eq!(typed.runs[0].id, id);
    // The schema-doc check reads the wire format's keys.
    let h: Value = serde_json::from_str(&hist).unwrap();
    let missing = testpeers::schema::undocumented(&h, "history.md", &[]);
    assert!(missing.is_empty(), "undocumented: {missing:?}");

    // --fail-on: exit 2 when a primary fires, or when a named rule is primary or held; 0
    // otherwise.
    let replay = |extra: &[&str]| {
        let mut a = vec![
            "diagnose",
            "--replay",
            rec.to_str().unwrap(),
            "--engine-args",
            args,
        ];
        a.extend_from_slice(extra);
        headroom(&a).0
    };
    assert_eq!(replay(&["--fail-on", "primary"]), 2);
    assert_eq!(replay(&["--fail-on", "R2,R5"]), 2);
    assert_eq!(replay(&["--fail-on", "R2,R4"]), 0);
    assert_eq!(replay(&[]), 0);

    // After: 16 seats, no queue, 60 % more tokens per second.
    let after: Vec<(f64, String)> = (0..13)
        .map(|i| {
            (
                2000.0 + i as f64,
                body(160.0 * i as f64 + (i % 3) as f64, 12.0, 0.0),
            )
        })
        .collect();
    let refs: Vec<(f64, &str)> = after.iter().map(|(t, b)| (*t, b.as_str())).collect();
    let rec2 = recording(dir.path(), "after.jsonl", &refs);
    let (code, out, err) = headroom(&[
        "remeasure",
        "--against",
        &id.to_string(),
        "--replay",
        rec2.to_str().unwrap(),
        "--engine-args",
        "vllm serve m --max-num-seqs 16",
        "--db",
        db.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let typed: Remeasure = serde_json::from_str(&out).expect("a headroom.remeasure/1 document");
    assert_eq!(typed.against, id);
    // The schema-doc check reads the wire format's keys.
    let r: Value = serde_json::from_str(&out).unwrap();
    let missing = testpeers::schema::undocumented(&r, "diagnose.md", &["/after/config"]);
    assert!(missing.is_empty(), "undocumented: {missing:?}");
    let c = &typed.comparison;
    assert_eq!(c.primary_before, Some(RuleId::R5));
    assert_eq!(c.cleared, Some(true));
    // 160 against 100 tok/s in every sub-window: far beyond regress's 5 % floor.
    assert_eq!(c.throughput.verdict, MoveVerdict::Improved, "{c:?}");
    // The same window again: no change beyond noise.
    let (_, out, _) = headroom(&[
        "remeasure",
        "--against",
        &id.to_string(),
        "--replay",
        rec.to_str().unwrap(),
        "--engine-args",
        args,
        "--db",
        db.to_str().unwrap(),
        "--json",
        "--no-save",
    ]);
    let r: Remeasure = serde_json::from_str(&out).unwrap();
    assert_eq!(r.comparison.throughput.verdict, MoveVerdict::Unchanged);
    assert_eq!(r.comparison.cleared, Some(false));
}
