//! The real peers tests run against, as `scripts/peers.sh` provides them (`HEADROOM_*`
//! variables). A missing peer fails the test when `HEADROOM_REQUIRE_PEERS=1` (CI) and is a loud
//! skip otherwise; it never skips silently.

pub mod group;
pub mod load;
pub mod prometheus;
pub mod sglang;
pub mod vllm;

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The require-peers rule, written once: a missing peer is a failure under
/// `HEADROOM_REQUIRE_PEERS=1` (CI) and a loud skip otherwise. Returns None, for
/// `let Some(x) = ... else { return };`. `what` names the peer, `fix` how to get it.
pub fn missing<T>(what: &str, fix: &str) -> Option<T> {
    if std::env::var("HEADROOM_REQUIRE_PEERS").as_deref() == Ok("1") {
        panic!("{what} missing: {fix}");
    }
    eprintln!("SKIPPED: {what} missing ({fix})");
    None
}

/// The value of a peer variable, or None after a loud skip (a panic under HEADROOM_REQUIRE_PEERS=1).
pub fn peer(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(v) if !v.is_empty() => Some(v),
        _ => missing(&format!("peer {var}"), "eval \"$(bash scripts/peers.sh)\""),
    }
}

/// The reference Python (`HEADROOM_PY`, the venv scripts/peers.sh builds).
pub fn python() -> Option<PathBuf> {
    peer("HEADROOM_PY").map(PathBuf::from)
}

/// The reference Python when `module` imports there (`package` is its PyPI name).
pub fn python_with(module: &str, package: &str) -> Option<PathBuf> {
    let py = python()?;
    let ok = Command::new(&py)
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Some(py)
    } else {
        missing(
            &format!("Python module {module} in HEADROOM_PY"),
            &format!("pip install {package}, or run scripts/peers.sh"),
        )
    }
}

/// A file under the repository's `fixtures/` folder (real captures and traces, each with its
/// source in a SOURCES.md beside it). Panics with the path when it is missing: the fixtures are
/// part of the repository, so a missing one is a broken checkout, not a missing peer.
pub fn fixture(relative: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(relative);
    assert!(p.exists(), "fixture {} is missing", p.display());
    p
}

/// Live servers run one at a time within a test binary: two llama-servers on 2 cores starve
/// each other's threads. A test that starts no engine (emulators, a backfilled Prometheus)
/// does not take it, so it runs beside the live one. The lock is the process's: scripts/test.sh
/// runs the `it` binary's vLLM and SGLang tests in a second process (a second lane), whose one
/// live test at a time runs beside this one's.
///
/// With `HEADROOM_SERIAL_TIMES=FILE` each release appends a line to FILE: the test (its
/// thread's name), how long it waited for the lock and how long it held it. libtest's own
/// per-test times count the wait, so these are the figures that add up to a run's length.
pub fn serial() -> Serial {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let asked = Instant::now();
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    Serial {
        _guard: guard,
        asked,
        got: Instant::now(),
    }
}

/// The live-server lock, held until dropped (see [`serial`]).
pub struct Serial {
    _guard: std::sync::MutexGuard<'static, ()>,
    asked: Instant,
    got: Instant,
}

impl Drop for Serial {
    fn drop(&mut self) {
        let Some(path) = std::env::var_os("HEADROOM_SERIAL_TIMES") else {
            return;
        };
        let line = format!(
            "{} waited {:.1} s held {:.1} s\n",
            std::thread::current().name().unwrap_or("?"),
            (self.got - self.asked).as_secs_f64(),
            self.got.elapsed().as_secs_f64()
        );
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

/// A free loopback port (bound, then released).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// A real llama-server on a loopback port, killed when dropped.
pub struct LlamaServer {
    child: Child,
    pub port: u16,
    pub url: String,
    /// The model file it serves (HEADROOM_MODEL).
    pub model: String,
    /// Its stderr (the server log).
    pub log: PathBuf,
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl LlamaServer {
    /// Start llama-server with the SmolLM2 model and `args`; waits (at most 90 s) for /health.
    /// One thread by default: on a shared 2-core machine ggml's spinning thread barrier
    /// collapses under contention (measured: 0.4 tok/s at -t 2 against 9.6 tok/s at -t 1 with
    /// builds running beside it). Pass `-t` in `args` to override.
    pub fn start(args: &[&str]) -> Option<LlamaServer> {
        let server = peer("HEADROOM_LLAMA_SERVER")?;
        let model = peer("HEADROOM_MODEL")?;
        let port = free_port();
        let log = std::env::temp_dir().join(format!("headroom-llama-{port}.log"));
        let threads: &[&str] = if args.contains(&"-t") {
            &[]
        } else {
            &["-t", "1"]
        };
        let child = Command::new(server)
            .args([
                "-m",
                model.as_str(),
                "--host",
                "127.0.0.1",
                "--port",
                &port.to_string(),
            ])
            .args(threads)
            .args(args)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("spawn llama-server");
        let s = LlamaServer {
            child,
            port,
            url: format!("http://127.0.0.1:{port}"),
            model,
            log,
        };
        s.wait_healthy(Duration::from_secs(90));
        Some(s)
    }

    /// The server's process id (for tools that read /proc/PID or attach perf).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn wait_healthy(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        loop {
            if get(self.port, "/health").is_some_and(|(code, _)| code == 200) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "llama-server did not become healthy in {limit:?}; log: {}",
                std::fs::read_to_string(&self.log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// A plain HTTP/1.1 GET on loopback: (status, body). None when nothing answers.
pub fn get(port: u16, path: &str) -> Option<(u16, String)> {
    request(port, "GET", path, None)
}

/// A plain HTTP/1.1 POST of a JSON body on loopback: (status, body).
pub fn post_json(port: u16, path: &str, body: &str) -> Option<(u16, String)> {
    request(port, "POST", path, Some(body))
}

fn request(port: u16, method: &str, path: &str, body: Option<&str>) -> Option<(u16, String)> {
    use std::io::{Read, Write};
    let mut c = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    c.set_read_timeout(Some(Duration::from_secs(120))).ok()?;
    let body = body.unwrap_or("");
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    c.write_all(req.as_bytes()).ok()?;
    let mut buf = Vec::new();
    c.read_to_end(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf).into_owned();
    let code = text.split_whitespace().nth(1)?.parse().ok()?;
    let body = text
        .split_once("\r\n\r\n")
        .map(|x| x.1.to_string())
        .unwrap_or_default();
    Some((code, body))
}

/// Documentation checks for the versioned JSON documents (docs/json/*.md).
pub mod schema {
    use serde_json::Value;
    use std::collections::BTreeSet;
    use std::path::Path;

    /// Every object key in `doc` (recursively, through arrays) that `docs/json/<page>` does not
    /// name in backticks. Keys under the JSON pointers in `maps` are data (a map keyed by config
    /// name, by metric, by kernel ...) and are not walked; the map itself must be documented.
    pub fn undocumented(doc: &Value, page: &str, maps: &[&str]) -> Vec<String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../docs/json")
            .join(page);
        let text = std::fs::read_to_string(&root)
            .unwrap_or_else(|e| panic!("reading {}: {e}", root.display()));
        let mut named = BTreeSet::new();
        for (i, part) in text.split('`').enumerate() {
            if i % 2 == 1 {
                named.insert(part.to_string());
            }
        }
        let mut missing = BTreeSet::new();
        walk(doc, "", maps, &named, &mut missing);
        missing.into_iter().collect()
    }

    fn walk(
        v: &Value,
        at: &str,
        maps: &[&str],
        named: &BTreeSet<String>,
        out: &mut BTreeSet<String>,
    ) {
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    let here = format!("{at}/{k}");
                    if !named.contains(k.as_str()) {
                        out.insert(here.clone());
                    }
                    if !maps.contains(&here.as_str()) {
                        walk(child, &here, maps, named, out);
                    }
                }
            }
            Value::Array(a) => {
                for child in a {
                    walk(child, &format!("{at}/[]"), maps, named, out);
                }
            }
            _ => {}
        }
    }
}
