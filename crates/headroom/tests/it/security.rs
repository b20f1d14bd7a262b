//! Security defaults (issue 20): `headroom route` and `headroom emulate` listen on loopback
//! unless told otherwise, and say on stderr when they are bound to an address other hosts can
//! reach. (Redirects to another host and injected response headers are tested where the code
//! lives: crates/engines `redirects`, crates/router `faults`.)
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Starts `headroom ARGS`, waits until a line of stdout or stderr contains `ready` (at most
/// 60 s), stops it, and returns everything it wrote (stdout, stderr).
fn until_ready(args: &[&str], ready: &str) -> (String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_headroom"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
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
    let mut child = Command::new(env!("CARGO_BIN_EXE_headroom"))
        .args(["route", "--json", "--backend", "http://127.0.0.1:9"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
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
