//! A real SGLang (PyPI's `sglang` 0.5.23 on its CPU engine) serving the same SmolLM2 Hugging
//! Face conversion as the vLLM peer, as `scripts/peers.sh` provides it (`HEADROOM_SGLANG_PY`,
//! `HEADROOM_SGLANG_PATH`, `HEADROOM_VLLM_MODEL`).
//!
//! `HEADROOM_SGLANG_PATH` holds headroom's labelled stand-in for the CPU build of `sgl_kernel`
//! (scripts/peers/sgl_kernel_standin.py), first on PYTHONPATH: one function in plain torch,
//! every other name raising when called. The scheduler, HTTP server and metrics are SGLang's.
//! A start takes about a minute, many more on a loaded machine: reuse one server per test.

use crate::group::GroupServer;
use crate::{free_port, peer};
use std::time::Duration;

/// The name the model is served under.
pub const SERVED_MODEL: &str = "smollm2-135m";

/// A real SGLang server; the whole process group (launcher, scheduler, detokenizer) is stopped
/// when dropped.
pub type SglangServer = GroupServer;

/// Start SGLang with `args` added to the defaults (`--context-length 2048 --max-total-tokens
/// 16384`, unless `args` names them); waits at most 600 s for `/health` (about a minute on an
/// idle machine, over six under a load of 17). None after a loud skip when the peer is missing.
pub fn start(args: &[&str]) -> Option<SglangServer> {
    let py = peer("HEADROOM_SGLANG_PY")?;
    let standin = peer("HEADROOM_SGLANG_PATH")?;
    let model = peer("HEADROOM_VLLM_MODEL")?;
    let port = free_port();
    let mut argv: Vec<String> = [
        py.as_str(),
        "-m",
        "sglang.launch_server",
        "--model-path",
        &model,
        "--served-model-name",
        SERVED_MODEL,
        "--device",
        "cpu",
        "--attention-backend",
        "torch_native",
        "--disable-overlap-schedule",
        "--dtype",
        "bfloat16",
        "--enable-metrics",
        "--host",
        "127.0.0.1",
        "--port",
        &port.to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for (flag, default) in [
        ("--context-length", "2048"),
        ("--max-total-tokens", "16384"),
    ] {
        if !args.contains(&flag) {
            argv.extend([flag.to_string(), default.to_string()]);
        }
    }
    argv.extend(args.iter().map(|s| s.to_string()));
    let env = [
        ("PYTHONPATH", standin.as_str()),
        ("SGLANG_USE_CPU_ENGINE", "1"),
    ];
    Some(GroupServer::spawn(
        "SGLang",
        port,
        argv,
        &env,
        Duration::from_secs(600),
    ))
}
