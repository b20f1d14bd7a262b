//! What the KV family (R2 KV cache pressure, R2b KV admission backlog) shares: the near-full
//! gate and the prescription, split by cost.

use super::{flag, pct, FixCost, FixStep, Knob};
use crate::inputs::{Inputs, PoolCap};
use crate::window::WindowStats;
use engines::Engine;

/// KV mean or peak at least this: the pool is near full (R6's inferred path reads the same bar).
pub(super) const KV_NEAR_FULL: f64 = crate::inputs::KV_WALL;

pub(super) fn kv_near_full(w: &WindowStats) -> Option<(bool, String)> {
    let kv = w.kv_usage?;
    let full = kv.mean >= KV_NEAR_FULL || kv.peak >= KV_NEAR_FULL;
    Some((
        full,
        format!(
            "KV mean {} peak {}: {} at least {}",
            pct(kv.mean),
            pct(kv.peak),
            if full { "one is" } else { "neither is" },
            pct(KV_NEAR_FULL)
        ),
    ))
}

/// The KV family's prescription, split by cost. Levers already applied are left out; when none
/// is left, the rule has no fix to offer and a held rule surfaces.
pub(super) fn kv_family_fix(inp: &Inputs, cutting: bool) -> Vec<FixStep> {
    let e = inp.engine;
    let c = &inp.config;
    let mut fix = Vec::new();
    if c.prefix_caching == Some(false) {
        if let Some(fl) = flag(e, Knob::PrefixCaching) {
            fix.push(
                FixStep::flagged(
                    Knob::PrefixCaching,
                    fl,
                    None,
                    "turn prefix caching on: shared prefixes stop costing KV",
                )
                .cost(FixCost::Safe),
            );
        }
    }
    // A pool fixed by an explicit size does not grow with the memory share: the fix is the size.
    match &c.kv_pool_cap {
        Some(PoolCap::Blocks(n)) => {
            if let Some(fl) = flag(e, Knob::KvBlocksOverride) {
                fix.push(
                    FixStep::flagged(
                        Knob::KvBlocksOverride,
                        fl,
                        None,
                        format!("the pool is fixed at {n} blocks by this override: raise it, or drop it so the memory share sizes the pool"),
                    )
                    .cost(FixCost::Safe),
                );
            }
        }
        Some(PoolCap::Bytes(b)) => {
            if let Some(fl) = flag(e, Knob::KvCacheMemoryBytes) {
                let gib = *b as f64 / (1u64 << 30) as f64;
                fix.push(
                    FixStep::flagged(
                        Knob::KvCacheMemoryBytes,
                        fl,
                        None,
                        format!("the pool is fixed at {gib:.2} GiB by kv_cache_memory_bytes: raise it (on vLLM's CPU build, the VLLM_CPU_KVCACHE_SPACE variable, in GiB)"),
                    )
                    .cost(FixCost::Safe),
                );
            }
        }
        Some(PoolCap::Tokens(n)) => {
            if let Some(fl) = flag(e, Knob::KvPoolTokens) {
                let share = flag(e, Knob::GpuMemoryUtilization).unwrap_or("the memory share");
                fix.push(
                    FixStep::flagged(
                        Knob::KvPoolTokens,
                        fl,
                        None,
                        format!("the pool is fixed at {n} tokens by this flag: raise it, or drop it so {share} sizes the pool"),
                    )
                    .cost(FixCost::Safe),
                );
            }
        }
        None => {}
    }
    if let (Some(fl), Some(u), None) = (
        flag(e, Knob::GpuMemoryUtilization),
        c.gpu_memory_utilization,
        &c.kv_pool_cap,
    ) {
        if u < 0.95 {
            let v = (u + 0.05).min(0.95);
            fix.push(
                FixStep::flagged(
                    Knob::GpuMemoryUtilization,
                    fl,
                    Some(format!("{v:.2}")),
                    "give the KV pool more of the device's memory",
                )
                .cost(FixCost::Safe),
            );
        }
    }
    match c.kv_cache_dtype.as_deref() {
        Some(d) if d.contains("fp8") || d.contains("q8") || d.contains("q4") => {}
        _ => {
            if let Some(fl) = flag(e, Knob::KvCache8bit) {
                fix.push(
                    FixStep::flagged(
                        Knob::KvCache8bit,
                        fl,
                        None,
                        "halve KV bytes per token, at 8-bit precision for keys and values: check your eval's accuracy before and after",
                    )
                    .cost(FixCost::TradesAccuracy),
                );
            }
        }
    }
    if let Some(fl) = flag(e, Knob::KvOffloading) {
        fix.push(
            FixStep::flagged(
                Knob::KvOffloading,
                fl,
                None,
                "offload cold KV blocks to host memory: the value is GiB of host RAM; measure what is free with `free -g` (the \"available\" column) and give at most half of it, divided by the tensor-parallel size",
            )
            .cost(FixCost::Safe),
        );
    }
    if cutting {
        // llama-server's -c is the whole context, split across slots: its per-slot figure is
        // not what the flag takes, so the step is left to the seats below.
        if let (Some(fl), Some(m), false) = (
            flag(e, Knob::MaxModelLen),
            c.max_model_len,
            e == Engine::LlamaCpp,
        ) {
            let mean = match (
                inp.window.mean_prompt_tokens(),
                inp.window.mean_gen_tokens(),
            ) {
                (Some(p), Some(g)) => format!(
                    " (this window's requests averaged {:.0} tokens, prompt and output)",
                    p + g
                ),
                _ => String::new(),
            };
            fix.push(
                FixStep::flagged(
                    Knob::MaxModelLen,
                    fl,
                    None,
                    format!("lower it from {m:.0} to the longest prompt plus max_tokens your clients send{mean}: measure it from their logs; longer requests are refused"),
                )
                .cost(FixCost::CutsThroughput),
            );
        }
        if let (Some(fl), Some(m)) = (flag(e, Knob::MaxNumSeqs), c.max_num_seqs) {
            // Usage scales with the requests running: the seats at which this window's mean
            // usage would sit at 80 %.
            let seats = match (inp.window.running, inp.window.kv_usage) {
                (Some(r), Some(k)) if k.mean > 0.0 && r.mean >= 1.0 => {
                    let v = (r.mean * 0.8 / k.mean).floor().max(1.0);
                    (v < m).then(|| {
                        (
                            v,
                            format!(
                                "running {:.1} × 80 % ÷ KV mean {} = {v:.0}: fewer sequences share the pool",
                                r.mean,
                                pct(k.mean)
                            ),
                        )
                    })
                }
                _ => None,
            };
            let (value, text) = match seats {
                Some((v, t)) => (Some(format!("{v:.0}")), format!("lower it from {m:.0}: {t}")),
                None => (
                    None,
                    format!("lower it from {m:.0} until KV usage stays under 80 % (watch it with `headroom watch`): fewer sequences share the pool"),
                ),
            };
            fix.push(
                FixStep::flagged(Knob::MaxNumSeqs, fl, value, text).cost(FixCost::CutsThroughput),
            );
        }
    }
    if !fix.is_empty() {
        fix.push(
            FixStep::text(
                "if none of these is possible: verify the KV figures, then add a replica",
            )
            .cost(FixCost::DeadEnd),
        );
    }
    fix
}
