//! What the rules read besides the window: the server's config (each value known or unread) and
//! the physics facts. The binary fills these from the engines and physics crates; a value nobody
//! could read stays `None`, and every rule that needs it stays silent rather than guess.

use crate::window::WindowStats;
use engines::Engine;
use serde::Serialize;

/// Engine config as read. `None` = unread.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Config {
    /// vLLM --max-num-seqs, llama.cpp -np (slots), SGLang --max-running-requests.
    pub max_num_seqs: Option<f64>,
    pub max_model_len: Option<f64>,
    pub max_num_batched_tokens: Option<f64>,
    pub gpu_memory_utilization: Option<f64>,
    /// Prefix caching on (Some(true)), confirmed off (Some(false)), or unread.
    pub prefix_caching: Option<bool>,
    /// KV cache dtype as the engine names it ("auto", "fp8", ...).
    pub kv_cache_dtype: Option<String>,
    pub tensor_parallel_size: Option<f64>,
    /// KV pool capacity in tokens (num_gpu_blocks × block_size, or the engine's own figure).
    pub kv_capacity_tokens: Option<f64>,
    /// GB of weights the engine keeps in host memory (vLLM's `cpu_offload_gb`, as its
    /// `cache_config_info` reports it); None when not reported.
    pub cpu_offload_gb: Option<f64>,
    /// What fixes the KV pool's size regardless of the memory share, when the engine says so
    /// (vLLM's `cache_config_info`, SGLang's command line): the memory share cannot grow a pool
    /// set this way.
    pub kv_pool_cap: Option<PoolCap>,
    /// Decode steps between refreshes of the scheduler gauges (SGLang's
    /// `--decode-log-interval`), when the engine refreshes them on a step count.
    pub gauge_refresh_steps: Option<f64>,
}

/// A KV pool sized by an explicit setting rather than by the memory left after the weights.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum PoolCap {
    /// `num_gpu_blocks_override`: this many blocks.
    Blocks(u64),
    /// `kv_cache_memory_bytes`: this many bytes.
    Bytes(u64),
    /// SGLang `--max-total-tokens`: this many tokens.
    Tokens(u64),
}

/// Physics facts from the catalogued GPU and model. Absent as a whole when the ceiling is unknown.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Physics {
    /// One-sequence decode ceiling, tok/s (est).
    pub decode_ceiling_tps: f64,
    /// Batch where decode turns compute-bound.
    pub ridge_batch: f64,
    /// VRAM × utilization − weights, GB. Negative when the weights alone overflow.
    pub kv_headroom_gb: Option<f64>,
    /// KV bytes of one worst-case request (max_model_len tokens), GB.
    pub worst_request_gb: Option<f64>,
    /// Smallest tensor-parallel size at which the weights fit.
    pub min_tp: Option<u32>,
    /// Bits per param came from the bf16 fallback: R4 stays silent on it.
    pub dtype_fallback: bool,
}

/// The KV fill at which the pool is at its wall: R2's near-full bar, and the fill the KV bound
/// seats requests up to.
pub const KV_WALL: f64 = 0.88;

/// Everything a diagnosis reads.
#[derive(Debug, Clone, Serialize)]
pub struct Inputs {
    pub engine: Engine,
    pub window: WindowStats,
    pub sub_windows: Vec<WindowStats>,
    pub config: Config,
    pub physics: Option<Physics>,
}

impl Inputs {
    /// Concurrency the KV pool can hold, one definition for every rule and the boundary. From
    /// the gauges when read: running ÷ KV usage × [`KV_WALL`], the requests of the size the
    /// running ones hold now that bring the pool to the fill R2 calls near-full (so occupancy
    /// against this wall is the KV usage ÷ 88 %, and a pool at 44 % is never "near its wall").
    /// Else at the observed request size (prompt + output), the "observed
    /// kv_cache_max_concurrency"; else at max_model_len (derived).
    pub fn kv_bound(&self) -> Option<(f64, &'static str)> {
        if let (Some(r), Some(k)) = (self.window.running, self.window.kv_usage) {
            if r.mean >= 1.0 && k.mean >= 0.01 {
                return Some((
                    r.mean / k.mean * KV_WALL,
                    "measured: running ÷ KV usage × 88 %",
                ));
            }
        }
        let cap = self.config.kv_capacity_tokens?;
        let per_req = match (
            self.window.mean_prompt_tokens(),
            self.window.mean_gen_tokens(),
        ) {
            (Some(p), Some(g)) if p + g > 0.0 => Some((p + g, "observed")),
            _ => self
                .config
                .max_model_len
                .map(|m| (m, "derived at max_model_len")),
        }?;
        Some((cap / per_req.0, per_req.1))
    }

    /// Aggregate decode the physics allows at this occupancy: the one-sequence ceiling times the
    /// batch, up to the ridge.
    pub fn roof_at(&self, batch: f64) -> Option<f64> {
        let p = self.physics.as_ref()?;
        Some(p.decode_ceiling_tps * batch.max(1.0).min(p.ridge_batch))
    }
}
