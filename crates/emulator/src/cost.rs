//! What one engine step costs, from the roofline the ceilings use, and how VRAM splits into
//! weights, an activation reserve and the KV pool.
//!
//! A step that computes `T` tokens for a batch reads the resident weights once, reads every
//! scheduled sequence's KV, and does `2 × P_active × T` FLOPs plus attention's
//! `attn_coeff × layers × (pairs)`. Its time is the larger of the memory time and the compute
//! time, plus a small fixed scheduler cost. At batch 1 that is the decode ceiling (weights over
//! bandwidth); as the batch grows the compute time catches up and binds at the ridge.

use serde::{Deserialize, Serialize};

/// Fixed host-side cost of one step (scheduling, sampling, launch): 100 µs.
pub const STEP_OVERHEAD_S: f64 = 100e-6;
/// Host-side cost per scheduled sequence (input prep, sampling): 2 µs.
pub const SEQ_OVERHEAD_S: f64 = 2e-6;
/// Effective host→device bandwidth for weights kept in host memory (PCIe 4.0 x16 in practice),
/// bytes/s. Only used when the weights do not fit.
pub const HOST_LINK_BPS: f64 = 25e9;
/// Memory outside the PyTorch pool (CUDA context, NCCL buffers), bytes.
pub const NON_TORCH_BYTES: f64 = 0.25 * GIB;
/// Peak activation memory per batched token per unit of hidden size, bytes. Gives about 1.2 GiB
/// for an 8B model (hidden 4096) at 8192 batched tokens, the order of what vLLM's memory
/// profiler reports for that shape.
pub const ACTIVATION_BYTES_PER_TOKEN_HIDDEN: f64 = 38.0;

pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// The hardware and model figures a step needs. All are for the whole tensor-parallel group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figures {
    pub gpu: String,
    pub model: String,
    pub tp: u32,
    /// VRAM of the group, bytes.
    pub vram_bytes: f64,
    /// Peak memory bandwidth, bytes/s.
    pub bandwidth: f64,
    /// Dense tensor FLOP/s at the weights' compute class.
    pub flops: f64,
    /// "BF16", "FP8" ...
    pub compute_precision: String,
    /// Bytes the weights occupy (total parameters).
    pub weight_bytes: f64,
    /// Bytes of weights read per step (active parameters).
    pub stream_bytes: f64,
    pub params_active: f64,
    pub hidden: f64,
    pub layers: f64,
    /// Attention FLOPs per layer per token pair.
    pub attn_coeff: f64,
    /// KV bytes per token, all layers.
    pub kv_bytes_per_token: f64,
    /// Where the figures came from (catalog sources, formulas).
    pub sources: Vec<String>,
}

impl Figures {
    /// One-sequence decode ceiling, tok/s: bandwidth over the weights read per token.
    pub fn decode_ceiling_tps(&self) -> f64 {
        self.bandwidth / self.stream_bytes
    }

    /// Batch where a decode step's FLOPs take as long as its weight read (KV reads left out, as
    /// in physics' ridge): F × b / (2 × BW) with b the bytes per active parameter.
    pub fn ridge_batch(&self) -> f64 {
        self.flops * (self.stream_bytes / self.params_active) / (2.0 * self.bandwidth)
    }
}

/// The work one step does.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepLoad {
    /// Tokens computed (decode rows + prefill chunk tokens).
    pub tokens: f64,
    /// KV tokens read by attention, summed over the scheduled sequences.
    pub kv_tokens: f64,
    /// Query-key pairs of attention: Σ (c₀ + n)² − c₀² over sequences (n new tokens after c₀).
    pub attn_pairs: f64,
    pub seqs: usize,
}

/// Where a step's time went, seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StepTime {
    pub memory: f64,
    pub compute: f64,
    pub host: f64,
    pub total: f64,
}

/// VRAM split of one deployment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    /// VRAM × gpu-memory-utilization.
    pub usable_bytes: f64,
    pub weight_bytes: f64,
    /// Activation peak + non-torch memory.
    pub reserve_bytes: f64,
    /// Weights kept in host memory because they do not fit (0 when they fit).
    pub offloaded_bytes: f64,
    pub kv_pool_bytes: f64,
    pub block_size: usize,
    pub num_gpu_blocks: usize,
    /// num_gpu_blocks × block_size.
    pub kv_capacity_tokens: usize,
    /// Ways the deployment would not start on a real engine, served anyway (see docs).
    pub warnings: Vec<String>,
}

/// Activation reserve for a step budget of `max_batched_tokens`.
pub fn reserve_bytes(fig: &Figures, max_batched_tokens: u32) -> f64 {
    NON_TORCH_BYTES + f64::from(max_batched_tokens) * fig.hidden * ACTIVATION_BYTES_PER_TOKEN_HIDDEN
}

/// Sizes the KV pool: VRAM × utilization − weights − reserve. Weights that do not fit are kept
/// in host memory (what `--cpu-offload-gb` does), leaving a pool of one max-length request.
pub fn layout(
    fig: &Figures,
    gpu_memory_utilization: f64,
    max_batched_tokens: u32,
    max_model_len: u32,
    block_size: usize,
) -> Layout {
    let usable = fig.vram_bytes * gpu_memory_utilization;
    let reserve = reserve_bytes(fig, max_batched_tokens);
    let block_bytes = fig.kv_bytes_per_token * block_size as f64;
    let min_pool = (f64::from(max_model_len) / block_size as f64).ceil() * block_bytes;
    let mut warnings = Vec::new();
    let room = usable - reserve - fig.weight_bytes;
    let (pool, offloaded) = if room >= block_bytes {
        if room < min_pool {
            warnings.push(format!(
                "the KV pool holds {:.0} tokens, less than one --max-model-len {max_model_len} \
                 request (vLLM refuses to start here; the emulator serves and rejects requests \
                 that cannot fit)",
                (room / block_bytes).floor() * block_size as f64
            ));
        }
        (room, 0.0)
    } else {
        // Keep just enough of the weights on the GPU to leave a pool of one max-length request;
        // the rest streams from host memory every step.
        let off = (fig.weight_bytes - (usable - reserve - min_pool)).min(fig.weight_bytes);
        warnings.push(format!(
            "weights ({:.1} GB) do not fit in {:.1} GB (VRAM × {gpu_memory_utilization} − {:.1} GB \
             reserve): vLLM would fail to start; the emulator keeps {:.1} GB of weights in host \
             memory (as --cpu-offload-gb) and streams them over a {:.0} GB/s link every step",
            fig.weight_bytes / 1e9,
            usable / 1e9,
            reserve / 1e9,
            off / 1e9,
            HOST_LINK_BPS / 1e9
        ));
        (min_pool, off)
    };
    let blocks = (pool / block_bytes).floor().max(0.0) as usize;
    Layout {
        usable_bytes: usable,
        weight_bytes: fig.weight_bytes,
        reserve_bytes: reserve,
        offloaded_bytes: offloaded,
        kv_pool_bytes: pool,
        block_size,
        num_gpu_blocks: blocks,
        kv_capacity_tokens: blocks * block_size,
        warnings,
    }
}

/// Time of one step under the roofline.
pub fn step_time(fig: &Figures, layout: &Layout, load: &StepLoad) -> StepTime {
    let offload_share = if fig.weight_bytes > 0.0 {
        layout.offloaded_bytes / fig.weight_bytes
    } else {
        0.0
    };
    let resident = fig.stream_bytes * (1.0 - offload_share);
    let host = fig.stream_bytes * offload_share / HOST_LINK_BPS;
    let memory = (resident + fig.kv_bytes_per_token * load.kv_tokens) / fig.bandwidth;
    let compute = (2.0 * fig.params_active * load.tokens
        + fig.attn_coeff * fig.layers * load.attn_pairs)
        / fig.flops;
    let total = (memory + host).max(compute) + STEP_OVERHEAD_S + SEQ_OVERHEAD_S * load.seqs as f64;
    StepTime {
        memory,
        compute,
        host,
        total,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// H100 SXM × Llama-3.1-8B bf16, by hand (the same figures physics gives).
    pub(crate) fn h100_8b() -> Figures {
        Figures {
            gpu: "H100 SXM".into(),
            model: "llama-3.1-8b".into(),
            tp: 1,
            vram_bytes: 80.0 * GIB,
            bandwidth: 3350e9,
            flops: 989e12,
            compute_precision: "BF16".into(),
            weight_bytes: 8.03e9 * 2.0,
            stream_bytes: 8.03e9 * 2.0,
            params_active: 8.03e9,
            hidden: 4096.0,
            layers: 32.0,
            attn_coeff: 2.0 * 4096.0,
            kv_bytes_per_token: 131_072.0,
            sources: vec!["test".into()],
        }
    }

    fn decode_step(b: usize, ctx: f64) -> StepLoad {
        StepLoad {
            tokens: b as f64,
            kv_tokens: b as f64 * ctx,
            attn_pairs: b as f64 * (2.0 * ctx + 1.0),
            seqs: b,
        }
    }

    #[test]
    fn roofline_figures() {
        let f = h100_8b();
        assert!((f.decode_ceiling_tps() - 208.59).abs() < 0.1);
        assert!((f.ridge_batch() - 295.2).abs() < 0.1);
    }

    #[test]
    fn batch_one_is_memory_bound_near_the_ceiling() {
        let f = h100_8b();
        let l = layout(&f, 0.9, 8192, 8192, 16);
        let t = step_time(&f, &l, &decode_step(1, 512.0));
        assert!(t.memory > t.compute * 50.0);
        let share = (1.0 / t.total) / f.decode_ceiling_tps();
        assert!(share > 0.95 && share < 1.0, "{share}");
    }

    #[test]
    fn past_the_ridge_compute_binds() {
        let f = h100_8b();
        let l = layout(&f, 0.9, 8192, 8192, 16);
        let t = step_time(&f, &l, &decode_step(600, 16.0));
        assert!(t.compute > t.memory);
        let agg = 600.0 / t.total;
        let roof = f.flops / (2.0 * f.params_active);
        assert!(agg < roof && agg > 0.85 * roof, "{agg} vs {roof}");
    }

    #[test]
    fn pool_is_vram_times_util_minus_weights_minus_reserve() {
        let f = h100_8b();
        let l = layout(&f, 0.9, 8192, 8192, 16);
        let reserve = reserve_bytes(&f, 8192);
        assert!((reserve / GIB - 1.44).abs() < 0.05, "{}", reserve / GIB);
        let want = 80.0 * GIB * 0.9 - 16.06e9 - reserve;
        assert!((l.kv_pool_bytes - want).abs() < 1.0);
        assert_eq!(l.num_gpu_blocks, (want / (131_072.0 * 16.0)) as usize);
        assert_eq!(l.offloaded_bytes, 0.0);
        assert!(l.warnings.is_empty());
    }

    #[test]
    fn weights_that_do_not_fit_are_offloaded_and_slow() {
        let mut f = h100_8b();
        f.weight_bytes = 141e9;
        f.stream_bytes = 141e9;
        f.params_active = 70.6e9;
        let l = layout(&f, 0.9, 8192, 8192, 16);
        assert!(l.offloaded_bytes > 60e9);
        assert_eq!(l.kv_capacity_tokens, 8192);
        assert!(l.warnings[0].contains("do not fit"));
        let t = step_time(&f, &l, &decode_step(1, 100.0));
        assert!(t.host > 2.0, "{t:?}");
    }

    #[test]
    fn a_squeezed_pool_warns() {
        let f = h100_8b();
        let l = layout(&f, 0.25, 2048, 131_072, 16);
        assert!(l.offloaded_bytes == 0.0 && l.kv_capacity_tokens < 131_072);
        assert!(l.warnings[0].contains("less than one"));
    }
}
