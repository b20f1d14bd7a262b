//! R4 OOM risk: the weights overflow VRAM, or what they leave cannot hold one request of the
//! longest length. The one rule in the broken layer: it outranks every other.

use super::{flag, gate, Evidence, Finding, FixStep, Knob, Rank, Rule, RuleId, Suspect, Threshold};
use crate::inputs::Inputs;
use engines::Engine;

pub const RULE: Rule = Rule {
    id: RuleId::R4,
    name: "R4",
    title: "OOM risk",
    rank: Rank::at(0, 0),
    thresholds: &[
        Threshold {
            what: "KV headroom (GB) below: the weights overflow the VRAM budget",
            value: 0.0,
        },
        Threshold {
            what: "one worst-case request's KV over the KV headroom above",
            value: 1.0,
        },
        Threshold {
            what: "KV pool in max-length sequences below, with weights offloaded (or as a suspect)",
            value: R4_TIGHT_POOL,
        },
    ],
    // R4 reads the config and the physics only.
    reads_gauges: false,
    judge: |inp, _, _| r4(inp),
    unjudged: &[Suspect {
        needs: "--gpu and --model",
        order: 0,
        hint: suspect,
    }],
    withholds: true,
};

/// A KV pool under this many max-length sequences is one the weights left barely any room
/// (R4's unjudged suspect uses the same bar).
pub const R4_TIGHT_POOL: f64 = 1.25;

/// R4 OOM risk.
pub fn r4(inp: &Inputs) -> Finding {
    let id = RuleId::R4;
    let Some(p) = &inp.physics else {
        // The engine's own figures settle a buffer squeeze without physics: a pool that cannot
        // hold one max-length request (llama.cpp's context is the pool by choice: not read so).
        let (cap, len) = (inp.config.kv_capacity_tokens, inp.config.max_model_len);
        // Weights kept in host memory, and what VRAM the rest left the KV pool is barely one
        // max-length sequence (vLLM refuses to start below one): the weights do not fit in
        // VRAM, and offloading them is what lets the engine start at all.
        if let (Some(off), Some(cap), Some(len), Engine::Vllm) =
            (inp.config.cpu_offload_gb, cap, len, inp.engine)
        {
            if off > 0.0 && cap < R4_TIGHT_POOL * len {
                let mut f = Finding::judged(
                    id,
                    true,
                    vec![
                        format!("the engine keeps {off:.1} GiB of weights per GPU in host memory (cache_config_info cpu_offload_gb {off:.1}): not all of the weights are in VRAM"),
                        gate(
                            format!(
                                "its KV pool {cap:.0} tokens, {:.2} max-length sequences ({len:.0}),",
                                cap / len
                            ),
                            true,
                            "below",
                            format!("{R4_TIGHT_POOL} sequences: what the weights in VRAM left is barely one request of the longest length"),
                        ),
                    ],
                );
                f.variant = Some("weights-overflow".into());
                if let Some(fl) = flag(inp.engine, Knob::TensorParallelSize) {
                    f.fix.push(FixStep::flagged(
                        Knob::TensorParallelSize,
                        fl,
                        None,
                        "shard the weights across GPUs until they fit (pass --gpu and --model to size it); every step now streams the offloaded weights over the host link",
                    ));
                }
                f.fix.push(FixStep::text(
                    "a smaller or more quantized model, or hardware this model fits on",
                ));
                return f;
            }
        }
        if let (Some(cap), Some(len), Engine::Vllm | Engine::Sglang) = (cap, len, inp.engine) {
            if cap < len {
                let mut f = Finding::judged(
                    id,
                    true,
                    vec![format!(
                        "the engine's KV pool {cap:.0} tokens is less than one max-length sequence ({len:.0})"
                    )],
                );
                f.variant = Some("buffer-squeeze".into());
                if let Some(fl) = flag(inp.engine, Knob::MaxModelLen) {
                    f.fix.push(FixStep::flagged(
                        Knob::MaxModelLen,
                        fl,
                        Some(format!("{cap:.0}")),
                        "lower the longest context a request may take to what the pool holds",
                    ));
                }
                f.fix.push(FixStep::text(
                    "a smaller or more quantized model, or more GPU memory (pass --gpu and --model to size it)",
                ));
                return f;
            }
        }
        return Finding::silent(id, "hardware ceiling unknown");
    };
    if p.dtype_fallback {
        return Finding::silent(
            id,
            "bits per param from the bf16 fallback: sizing would be a guess",
        );
    }
    let Some(head) = p.kv_headroom_gb else {
        return Finding::silent(id, "VRAM budget unknown");
    };
    let e = inp.engine;
    let tp_fix = |f: &mut Finding| {
        if let (Some(fl), Some(t)) = (flag(e, Knob::TensorParallelSize), p.min_tp) {
            f.fix.push(FixStep::flagged(
                Knob::TensorParallelSize,
                fl,
                Some(t.to_string()),
                "shard the weights across the smallest TP that fits",
            ));
        }
        if let Some(fl) = flag(e, Knob::GpuMemoryUtilization) {
            if inp.config.gpu_memory_utilization.is_none_or(|u| u < 0.95) {
                f.fix.push(FixStep::flagged(
                    Knob::GpuMemoryUtilization,
                    fl,
                    Some("0.95".into()),
                    "raise it to 0.95 if nothing else shares the GPU (leave the rest for the CUDA context and activations)",
                ));
            }
        }
        f.fix.push(FixStep::text(
            "a smaller or more quantized model, or hardware this model fits on",
        ));
    };
    if head < 0.0 {
        let mut f = Finding::judged(
            id,
            true,
            vec![format!(
                "weights overflow the VRAM budget by {:.1} GB",
                -head
            )],
        );
        f.variant = Some("weights-overflow".into());
        tp_fix(&mut f);
        return f;
    }
    let Some(worst) = p.worst_request_gb else {
        return Finding::judged(id, false, vec![format!("KV headroom {head:.1} GB")]);
    };
    let fired = worst > head;
    let mut f = Finding::judged(
        id,
        fired,
        vec![format!(
            "KV headroom {head:.2} GB vs one worst-case request {worst:.2} GB"
        )],
    );
    if fired {
        f.variant = Some("buffer-squeeze".into());
        if let Some(fl) = flag(e, Knob::MaxModelLen) {
            // A request's KV grows with its length: the longest one the free VRAM holds.
            let fits = inp
                .config
                .max_model_len
                .filter(|_| worst > 0.0 && e != Engine::LlamaCpp)
                .map(|len| (len, (len * head / worst).floor()));
            f.fix.push(match fits {
                Some((len, v)) => FixStep::flagged(
                    Knob::MaxModelLen,
                    fl,
                    Some(format!("{v:.0}")),
                    format!("lower the longest context a request may take to what the free VRAM holds: {len:.0} tokens × {head:.2} GB ÷ {worst:.2} GB = {v:.0}"),
                ),
                None => FixStep::flagged(
                    Knob::MaxModelLen,
                    fl,
                    None,
                    format!("lower the longest context a request may take, in proportion: the free VRAM holds {head:.2} GB of KV, one longest request needs {worst:.2} GB"),
                ),
            });
        }
        tp_fix(&mut f);
    }
    f
}

/// R4's suspect when the hardware is unknown: the engine's own KV pool against its longest
/// request. A pool of barely one max-length sequence is what weights crowding the VRAM leave
/// behind (vLLM refuses to start below one). vLLM and SGLang size the pool from what the
/// weights leave; llama.cpp's context is the pool by choice, so a small one says nothing about
/// the weights there.
fn suspect(e: &Evidence<'_>) -> Option<String> {
    let leftover_pool = matches!(e.inp.engine, Engine::Vllm | Engine::Sglang);
    if !(e.silent(RuleId::R4) && leftover_pool) {
        return None;
    }
    let c = &e.inp.config;
    let (cap, len) = (c.kv_capacity_tokens?, c.max_model_len?);
    (len..R4_TIGHT_POOL * len).contains(&cap).then(|| {
        let what = format!("holds {:.2} max-length sequences", cap / len);
        format!("KV pool {cap:.0} tokens {what} ({len:.0}): the weights may leave the pool no room")
    })
}
