//! Security defaults (issue 20): `headroom route` and `headroom emulate` listen on loopback
//! unless told otherwise, and say on stderr when they are bound to an address other hosts can
//! reach. (Redirects to another host and injected response headers are tested where the code
//! lives: crates/engines `redirects`, crates/router `faults`.)
use crate::util::Headroom;
use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

/// Starts `headroom ARGS`, waits until a line of stdout or stderr contains `ready` (at most
/// 60 s), stops it, and returns everything it wrote (stdout, stderr).
fn until_ready(args: &[&str], ready: &str) -> (String, String) {
    let mut child = Headroom::new()
        .args(args)
        .stdout_io(Stdio::piped())
        .stderr_io(Stdio::piped())
        .spawn();
    let (tx, rx) = mpsc::channel::<()>();
    let watch = |r: Box<dyn Read + Send>, tx: mpsc::Sender<()>, ready: String| {
        std::thread::spawn(move || {
            let mut all = String::new();
            for line in BufReader::new(r).lines().map_while(Result::ok) {
                if line.contains(&ready) {
                    let _ = tx.send(());
                }
                all.push_str(&line);
                all.push('\n');
            }
            all
        })
    };
    let out = watch(
        Box::new(child.stdout.take().unwrap()),
        tx.clone(),
        ready.into(),
    );
    let err = watch(Box::new(child.stderr.take().unwrap()), tx, ready.into());
    let started = rx.recv_timeout(Duration::from_secs(60)).is_ok();
    let _ = child.kill();
    let _ = child.wait();
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    assert!(started, "{args:?} never printed {ready:?}: {out}\n{err}");
    (out, err)
}

/// The router's startup document, as printed with --json.
#[derive(serde::Deserialize)]
struct Listening {
    listen: std::net::SocketAddr,
}

fn listening(stdout: &str) -> Listening {
    serde_json::from_str(stdout.lines().next().unwrap_or_default())
        .unwrap_or_else(|e| panic!("not the listening line ({e}): {stdout}"))
}

#[test]
fn the_router_listens_on_loopback_by_default_and_warns_when_public() {
    // No replica needs to answer: the router starts and probes. Port 9000 (the default) may be
    // taken on this machine; then the error names the address it tried, which is what is
    // checked.
    let mut child = Headroom::new()
        .args(["route", "--json", "--backend", "http://127.0.0.1:9"])
        .stdout_io(Stdio::piped())
        .stderr_io(Stdio::piped())
        .spawn();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if first.is_empty() {
        assert!(err.contains("127.0.0.1:9000"), "{err}");
    } else {
        assert_eq!(listening(&first).listen.to_string(), "127.0.0.1:9000");
    }
    assert!(!err.contains("warning"), "{err}");

    let (out, err) = until_ready(
        &[
            "route",
            "--json",
            "--listen",
            "0.0.0.0:0",
            "--backend",
            "http://127.0.0.1:9",
        ],
        "\"listening\"",
    );
    let bound = listening(&out).listen;
    assert!(bound.ip().is_unspecified(), "{out}");
    assert!(
        err.contains(&format!(
            "warning: listening on {bound}, reachable from other hosts"
        )),
        "{err}"
    );
}

#[test]
fn the_emulator_listens_on_loopback_by_default_and_warns_when_public() {
    let (_, err) = until_ready(&["emulate", "--port", "0"], "serving at");
    assert!(err.contains("serving at http://127.0.0.1:"), "{err}");
    assert!(!err.contains("warning"), "{err}");
    let (_, err) = until_ready(
        &["emulate", "--port", "0", "--host", "0.0.0.0"],
        "serving at",
    );
    let url = err
        .split_once("serving at ")
        .and_then(|(_, r)| r.split(';').next())
        .unwrap_or_default();
    assert!(url.starts_with("http://0.0.0.0:"), "{err}");
    assert!(
        err.contains(&format!(
            "warning: the emulator listens on {url}, reachable"
        )),
        "{err}"
    );
}

/// Credentials in a server's URL (`http://user:password@host`, basic auth in front of an
/// engine) and an API key reach the server and nothing else: not the document, the page, the
/// recording, the history database, a progress line or an error, in every command that takes a
/// server's URL (diagnose, remeasure, census, probe, bench, watch; history, report and regress
/// read what they saved; route's backends and fleet's and census's stores have their own tests
/// in route.rs and store_access.rs).
#[test]
fn credentials_in_a_url_reach_the_server_and_nothing_else() {
    const PASSWORD: &str = "hunter2-pw";
    let emu = crate::util::EmulateProc::driven("no-prefix-caching", "1", "60s", &[]);
    let dir = tempfile::tempdir().unwrap();
    let (db, rec, page) = (
        dir.path().join("h.sqlite"),
        dir.path().join("w.jsonl"),
        dir.path().join("w.html"),
    );
    let url = format!("http://ops:{PASSWORD}@{}", emu.addr());
    let run = |args: &[&str]| {
        let out = crate::util::headroom_output(args);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let text = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
        assert!(
            !text.contains(PASSWORD),
            "{args:?} printed the password: {text}"
        );
        (out.status.code(), stdout, text)
    };
    let db_s = db.to_str().unwrap();
    let (code, stdout, text) = run(&[
        "diagnose",
        "--url",
        &url,
        "--duration",
        "4s",
        "--interval",
        "1s",
        "--save",
        "--db",
        db_s,
        "--record",
        rec.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, Some(0), "{text}");
    let report: diagnose::Report =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(
        report.shape.url.as_deref(),
        Some(emu.url.as_str()),
        "the bare URL is kept"
    );
    let (code, _, text) = run(&[
        "remeasure",
        "--db",
        db_s,
        "--url",
        &url,
        "--json",
        "--quiet",
    ]);
    assert_eq!(code, Some(0), "{text}");
    let (code, _, text) = run(&["history", "--db", db_s, "--json"]);
    assert_eq!(code, Some(0), "{text}");
    let (code, _, text) = run(&["report", "--latest", "--db", db_s, "-o", "-"]);
    assert_eq!(code, Some(0), "{text}");
    for f in [&db, &rec, &page] {
        let bytes = std::fs::read(f).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(PASSWORD),
            "{} holds the password",
            f.display()
        );
    }
    // Every other command that takes a server's URL: census from one scrape, the prefix probe
    // (with an API key, a credential too), bench and the regress that reads its run back, and
    // watch's refusal off a terminal.
    // An idle emulator for the probe and bench (a busy one makes them slow and refusing).
    let idle = crate::util::EmulateProc::start(&["--scenario", "healthy"]);
    let url = format!("http://ops:{PASSWORD}@{}", idle.addr());
    let (code, _, text) = run(&["census", "--url", &url, "--json"]);
    assert_eq!(code, Some(0), "{text}");
    let probe_page = dir.path().join("probe.html");
    let (code, _, text) = run(&[
        "probe",
        "prefix",
        "--url",
        &url,
        "--api-key",
        PASSWORD,
        "--json",
        "--html",
        probe_page.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{text}");
    let (code, _, text) = run(&["bench", "--quick", "--url", &url, "--db", db_s]);
    assert_eq!(code, Some(0), "{text}");
    let (code, _, text) = run(&["regress", "--db", db_s, "--json"]);
    assert!(matches!(code, Some(0) | Some(1)), "{text}");
    let (code, _, text) = run(&["watch", "--url", &url]);
    assert_eq!(code, Some(1), "watch off a terminal refuses: {text}");
    for f in [&db, &probe_page] {
        let bytes = std::fs::read(f).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(PASSWORD),
            "{} holds the password",
            f.display()
        );
    }
    // An error names the server without them too.
    let (code, _, text) = run(&[
        "diagnose",
        "--url",
        &format!("http://ops:{PASSWORD}@127.0.0.1:9"),
    ]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("127.0.0.1:9"), "{text}");
}
