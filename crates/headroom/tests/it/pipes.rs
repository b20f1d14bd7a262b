//! `headroom X … | head -1`: a reader that goes away early ends the command quietly with exit
//! 0, never a panic (`println!` panics on a closed pipe). Every command that prints more than one
//! line runs on offline inputs (fixtures, the peer model, a recording made here from the
//! emulator) twice: with stdout a pipe whose reader is gone before it starts, and with one line
//! read and then the pipe closed (what `head -1` does). Outputs over the pipe buffer (64 KiB:
//! trace and gguf JSON, the tensor table) hit the closed pipe in the second way for certain; in
//! the first way every write meets it.

use crate::util::Headroom;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Waits for the child (killing it past `limit`), returns its exit code and stderr.
fn finish(mut child: Child, limit: Duration, what: &str) -> (Option<i32>, String) {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                use std::io::Read;
                let _ = e.read_to_string(&mut err);
            }
            return (status.code(), err);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running {limit:?} after its stdout closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn spawn(args: &[&str]) -> Child {
    Headroom::new()
        .args(args)
        .stdin_io(Stdio::null())
        .stdout_io(Stdio::piped())
        .stderr_io(Stdio::piped())
        .spawn()
}

fn assert_quiet_exit(args: &[&str], how: &str, (code, err): (Option<i32>, String)) {
    let what = format!("headroom {} ({how})", args.join(" "));
    assert!(!err.contains("panicked"), "{what} panicked:\n{err}");
    assert_eq!(code, Some(0), "{what} exit code; stderr:\n{err}");
}

/// A pipe's writing end whose reading end is already closed: its only reader, `true`, has
/// exited. Dropping the reader after spawning the command instead raced with a command that
/// writes at once: a router whose startup report reached the pipe first kept serving.
fn closed_pipe() -> Stdio {
    let mut reader = Command::new("true")
        .stdin(Stdio::piped())
        .spawn()
        .expect("spawn true");
    let writer = reader.stdin.take().expect("stdin");
    reader.wait().expect("wait for true");
    Stdio::from(writer)
}

/// Stdout closed before the command writes.
fn closed_at_start(args: &[&str]) {
    let child = Headroom::new()
        .args(args)
        .stdin_io(Stdio::null())
        .stdout_io(closed_pipe())
        .stderr_io(Stdio::piped())
        .spawn();
    let r = finish(child, Duration::from_secs(60), &args.join(" "));
    assert_quiet_exit(args, "stdout closed at start", r);
}

/// `| head -1`: one line read, then the pipe closed.
fn head_1(args: &[&str]) {
    let mut child = spawn(args);
    let mut first = String::new();
    let out = child.stdout.take().expect("stdout");
    let n = BufReader::new(out).read_line(&mut first).expect("read");
    assert!(n > 0, "headroom {}: printed nothing", args.join(" "));
    let r = finish(child, Duration::from_secs(60), &args.join(" "));
    assert_quiet_exit(args, "| head -1", r);
}

fn both(args: &[&str]) {
    closed_at_start(args);
    head_1(args);
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn ceiling() {
    both(&["ceiling", "--gpu", "H100-SXM", "--model", "llama-3.1-8b"]);
    both(&[
        "ceiling",
        "--gpu",
        "H100-SXM",
        "--model",
        "llama-3.1-8b",
        "--json",
    ]);
    both(&["ceiling", "--list"]);
    both(&["ceiling", "--list", "--json"]);
    both(&[
        "ceiling",
        "ram",
        "--experts-per-token",
        "240",
        "--expert-params",
        "35.4e6",
        "--bits",
        "3",
        "--shared-gb",
        "0.53",
        "--bandwidth-gbps",
        "42",
    ]);
    both(&[
        "ceiling",
        "duty",
        "--arena-slots",
        "6574",
        "--experts",
        "24576",
        "--lookups",
        "480",
        "--slab-mib",
        "2.344",
        "--compute-ms",
        "100",
        "--wait-ms",
        "400",
    ]);
}

#[test]
fn trace() {
    let t = testpeers::fixture("traces/hta_v100_df_index_resolver.json.gz");
    let t = s(&t);
    both(&["trace", t]);
    both(&["trace", t, "--json"]);
    both(&["trace", t, "--csv"]);
    both(&["trace", t, "--by", "symbol", "--tokens", "64"]);
}

#[test]
fn logs() {
    let log = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../telemetry/tests/data/llama-server-11434-restart.log");
    let log = s(&log);
    both(&["logs", "--file", log]);
    both(&["logs", "--file", log, "--requests"]);
    both(&["logs", "--file", log, "--json"]);
}

#[test]
fn pcie() {
    let f = testpeers::fixture("dmon/a10-mutc-DT.txt");
    let f = s(&f);
    both(&["pcie", f, "--link", "gen4x16"]);
    both(&["pcie", f, "--link", "gen4x16", "--json"]);
}

#[test]
fn gguf() {
    let Some(model) = testpeers::peer("HEADROOM_MODEL") else {
        return;
    };
    both(&["gguf", &model]);
    both(&["gguf", &model, "--tensors", "--metadata"]);
    both(&["gguf", &model, "--json"]);
    both(&["gguf", &model, "--csv"]);
}

#[test]
fn emulate_lists() {
    both(&["emulate", "--list-scenarios"]);
    both(&["emulate", "--list-scenarios", "--json"]);
}

#[test]
fn demo_list() {
    both(&["demo", "--list"]);
}

#[test]
fn emulate_serving() {
    // The deployment table is printed once the server listens; a closed stdout ends the
    // command there instead of serving on.
    let port = testpeers::free_port().to_string();
    closed_at_start(&["emulate", "--port", &port, "--duration", "30s"]);
}

#[test]
fn route() {
    // Like emulate: the startup report meets the closed pipe and the router stops.
    closed_at_start(&[
        "route",
        "--listen",
        "127.0.0.1:0",
        "--backend",
        "http://127.0.0.1:9",
        "--workers",
        "1",
    ]);
}

#[test]
fn history_on_an_empty_db() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("history.sqlite");
    both(&["history", "--db", s(&db)]);
    both(&["history", "--db", s(&db), "--json"]);
}

#[test]
fn diagnose_replay() {
    // A recording made here: the emulator driving its own load, scraped for 3 s.
    let dir = tempfile::tempdir().expect("tempdir");
    let rec = dir.path().join("run.jsonl");
    let port = testpeers::free_port();
    let mut emu = Headroom::new()
        .args([
            "emulate",
            "--scenario",
            "kv-pressure",
            "--drive",
            "--port",
            &port.to_string(),
            "--duration",
            "60s",
        ])
        .stdout_io(Stdio::null())
        .stderr_io(Stdio::null())
        .spawn();
    let deadline = Instant::now() + Duration::from_secs(30);
    while testpeers::get(port, "/health").is_none() {
        assert!(
            Instant::now() < deadline,
            "the emulator did not answer /health"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let url = format!("http://127.0.0.1:{port}");
    let recorded = Headroom::new()
        .args([
            "diagnose",
            "--url",
            &url,
            "--duration",
            "3s",
            "--interval",
            "500ms",
            "--quiet",
            "--record",
            s(&rec),
        ])
        .stdout_io(Stdio::null())
        .output();
    let _ = emu.kill();
    let _ = emu.wait();
    assert!(
        recorded.status.success(),
        "diagnose --record: {}",
        String::from_utf8_lossy(&recorded.stderr)
    );
    both(&[
        "diagnose",
        "--replay",
        s(&rec),
        "--gpu",
        "H100-SXM",
        "--model",
        "llama-3.1-8b",
    ]);
    both(&["diagnose", "--replay", s(&rec), "--json"]);
}

/// The commands that read saved bench runs: regress, history --bench, and report's page on
/// stdout, over a history of two versions (bench documents as `headroom bench` writes them).
#[test]
fn regress_history_and_report_over_saved_bench_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("h.sqlite");
    let st = store::Store::open(&db).expect("a new history");
    for (i, (label, decode)) in [("v1", 100.0), ("v2", 80.0)].into_iter().enumerate() {
        let doc = crate::bench::doc(
            label,
            &crate::bench::spread(decode),
            &crate::bench::spread(100.0),
            serde_json::json!({}),
        );
        st.save(
            &store::NewRun {
                kind: "bench",
                created: 1.0 + i as f64,
                label: Some(label),
                ..Default::default()
            },
            &doc,
        )
        .expect("saved");
    }
    drop(st);
    both(&["regress", "--db", s(&db)]);
    both(&["regress", "--db", s(&db), "--json"]);
    both(&["history", "--bench", "--db", s(&db)]);
    both(&["report", "--latest", "--db", s(&db), "-o", "-"]);
}
