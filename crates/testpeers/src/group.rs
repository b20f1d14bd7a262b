//! A Python engine server (vLLM, SGLang) started in its own process group: both fork workers,
//! so a stop signals the whole group, and a start waits for `/health` with the log at hand.

use crate::get;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::sync::Mutex;
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

/// Stops the server held in `slot` when the test binary exits: a server in a static is never
/// dropped, and its process group would outlive the binary. Registered once per slot, with
/// libc's `atexit` (libtest returns from main, or calls `exit(101)` when a test failed; both
/// run it). A binary killed by a signal leaves it running, as it leaves any test's server.
pub(crate) fn stop_at_exit(slot: &'static Mutex<Option<GroupServer>>) {
    static SLOTS: Mutex<Vec<&'static Mutex<Option<GroupServer>>>> = Mutex::new(Vec::new());
    static REGISTER: std::sync::Once = std::sync::Once::new();
    extern "C" fn stop_all() {
        let slots = match SLOTS.lock() {
            Ok(v) => v.clone(),
            Err(e) => e.into_inner().clone(),
        };
        for slot in slots {
            // A slot still lent (a test thread alive at exit) is left: its lender drops it.
            let server = match slot.try_lock() {
                Ok(mut g) => g.take(),
                Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner().take(),
                Err(std::sync::TryLockError::WouldBlock) => None,
            };
            drop(server);
        }
    }
    extern "C" {
        fn atexit(f: extern "C" fn()) -> std::os::raw::c_int;
    }
    REGISTER.call_once(|| {
        // SAFETY: `stop_all` is a plain function that lives as long as the program.
        unsafe {
            atexit(stop_all);
        }
    });
    let mut slots = SLOTS.lock().unwrap_or_else(|e| e.into_inner());
    if !slots.iter().any(|s| std::ptr::eq(*s, slot)) {
        slots.push(slot);
    }
}

/// A server starting on a thread of its own, so that a test can work (or start another) while
/// it starts: a vLLM or SGLang start is a minute or more of mostly one-core Python. Dropped
/// before [`Starting::wait`] (a test that panicked first), it waits for the start and stops
/// the server, so nothing outlives the test.
pub struct Starting<T: Send + 'static>(Option<std::thread::JoinHandle<T>>);

impl<T: Send + 'static> Starting<T> {
    /// Runs `start` (a `vllm::start` or `sglang::start` call) on a new thread.
    pub fn spawn(start: impl FnOnce() -> T + Send + 'static) -> Starting<T> {
        Starting(Some(std::thread::spawn(start)))
    }

    /// The started server; a panic on the starting thread (a start that failed) is raised here.
    pub fn wait(mut self) -> T {
        let handle = self.0.take().expect("waited once");
        handle
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e))
    }
}

impl<T: Send + 'static> Drop for Starting<T> {
    fn drop(&mut self) {
        if let Some(handle) = self.0.take() {
            let _ = handle.join();
        }
    }
}
