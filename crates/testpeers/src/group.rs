//! A Python engine server (vLLM, SGLang) started in its own process group: both fork workers,
//! so a stop signals the whole group, and a start waits for `/health` with the log at hand.

use crate::get;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// A server process group on a loopback port; the whole group is stopped when dropped.
pub struct GroupServer {
    child: Child,
    /// Who it is, for messages ("vLLM", "SGLang").
    name: &'static str,
    pub port: u16,
    pub url: String,
    /// Its stdout and stderr together (the server log).
    pub log: PathBuf,
    /// The command line it was started with, for `--engine-args`.
    pub argv: Vec<String>,
}

impl GroupServer {
    /// Spawns `argv` with `env` in a new process group, its output to a log named after the
    /// port, and waits at most `limit` for `GET /health` to answer 200.
    pub fn spawn(
        name: &'static str,
        port: u16,
        argv: Vec<String>,
        env: &[(&str, &str)],
        limit: Duration,
    ) -> GroupServer {
        use std::os::unix::process::CommandExt;
        let log =
            std::env::temp_dir().join(format!("headroom-{}-{port}.log", name.to_ascii_lowercase()));
        let out = std::fs::File::create(&log).expect("server log file");
        let child = Command::new(&argv[0])
            .args(&argv[1..])
            .envs(env.iter().copied())
            .stdout(out.try_clone().expect("server log file"))
            .stderr(out)
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {name} ({}): {e}", argv[0]));
        let mut s = GroupServer {
            child,
            name,
            port,
            url: format!("http://127.0.0.1:{port}"),
            log,
            argv,
        };
        s.wait_healthy(limit);
        s
    }

    fn wait_healthy(&mut self, limit: Duration) {
        let deadline = Instant::now() + limit;
        loop {
            if get(self.port, "/health").is_some_and(|(code, _)| code == 200) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "{} exited ({status}) before it was healthy; log: {}",
                    self.name,
                    self.log_text()
                );
            }
            assert!(
                Instant::now() < deadline,
                "{} did not become healthy in {limit:?}; log: {}",
                self.name,
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// The server log so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The process id of the launcher (the one listening on the port for vLLM's API server;
    /// for SGLang, the HTTP server).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for GroupServer {
    fn drop(&mut self) {
        let pid = self.child.id() as i32;
        // `--` before the negative id: procps kill otherwise reads `-PID` as a signal and
        // signals nothing.
        let group = format!("-{pid}");
        let _ = Command::new("kill")
            .args(["-s", "TERM", "--", &group])
            .status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &group])
            .status();
        let _ = self.child.wait();
    }
}
