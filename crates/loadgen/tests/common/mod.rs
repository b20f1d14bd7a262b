//! A real llama-server on a free loopback port, killed when dropped.
#![allow(dead_code)]

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct LlamaServer {
    child: Child,
    pub url: String,
    pub log: std::path::PathBuf,
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Live servers run one at a time: two llama-servers on 2 cores starve each other's threads.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The peer's paths, or None after a loud skip (a failure when HEADROOM_REQUIRE_PEERS=1).
pub fn peer() -> Option<(String, String)> {
    match (
        std::env::var("HEADROOM_LLAMA_SERVER"),
        std::env::var("HEADROOM_MODEL"),
    ) {
        (Ok(s), Ok(m)) => Some((s, m)),
        _ => {
            if std::env::var("HEADROOM_REQUIRE_PEERS").as_deref() == Ok("1") {
                panic!("HEADROOM_LLAMA_SERVER and HEADROOM_MODEL must be set (eval \"$(bash scripts/peers.sh)\")");
            }
            eprintln!("SKIPPED: llama-server peer missing (HEADROOM_LLAMA_SERVER, HEADROOM_MODEL)");
            None
        }
    }
}

/// Start llama-server with `args` (besides model, host, port); waits for /health. One thread:
/// on a shared 2-core machine ggml's spinning thread barrier collapses under contention
/// (measured: 0.4 tok/s at -t 2 against 9.6 tok/s at -t 1 with other builds running).
pub fn start(args: &[&str]) -> Option<LlamaServer> {
    let (server, model) = peer()?;
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let log = std::env::temp_dir().join(format!("loadgen-llama-{port}.log"));
    let child = Command::new(server)
        .args([
            "-m",
            &model,
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "-t",
            "1",
        ])
        .args(args)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("spawn llama-server");
    let s = LlamaServer {
        child,
        url: format!("http://127.0.0.1:{port}"),
        log,
    };
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if let Ok(mut c) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            use std::io::{Read, Write};
            let _ = c.set_read_timeout(Some(Duration::from_secs(2)));
            let _ = c.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            let mut buf = String::new();
            let _ = c.read_to_string(&mut buf);
            if buf.starts_with("HTTP/1.1 200") {
                return Some(s);
            }
        }
        assert!(
            Instant::now() < deadline,
            "llama-server did not become healthy in 90 s; log: {}",
            std::fs::read_to_string(&s.log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}
