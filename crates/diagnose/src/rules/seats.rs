//! The seat arithmetic R5 and R7 share: one wording for the seat target, and llama-server's
//! context step that goes with raising its slots.

use super::{Derived, FixStep};
use crate::inputs::Inputs;
use engines::Engine;

/// The seat target's arithmetic, one wording for R5 and R7: "0.8 × min(ridge 295, KV bound 412
/// (measured: running ÷ KV usage × 88 %)) = 236, bound by compute ridge".
pub(super) fn seat_arithmetic(inp: &Inputs, d: &Derived) -> Option<String> {
    let t = d.seat_target?;
    let ridge = inp.physics.as_ref()?.ridge_batch;
    let kv = inp
        .kv_bound()
        .map(|(k, how)| format!(", KV bound {k:.0} ({how})"))
        .unwrap_or_default();
    Some(format!(
        "0.8 × min(ridge {ridge:.0}{kv}) = {:.0}, bound by {}",
        t.floor(),
        d.seat_target_bound.unwrap_or("?")
    ))
}

/// llama-server divides -c by -np: raising the slots to `np` keeps each slot's context only
/// when -c rises with them. The step with the value, on llama.cpp; None elsewhere.
pub(super) fn llamacpp_ctx_step(inp: &Inputs, np: f64) -> Option<FixStep> {
    if inp.engine != Engine::LlamaCpp {
        return None;
    }
    let per_slot = inp.config.max_model_len?;
    let now = inp
        .config
        .kv_capacity_tokens
        .map(|c| {
            format!(
                "; with -c left at {c:.0} each slot would get {:.0}",
                (c / np).floor()
            )
        })
        .unwrap_or_default();
    let c = (np * per_slot).ceil();
    Some(FixStep {
        // The flag is the whole context, not the per-slot max_model_len the config reads
        // back, so no knob: a re-measure does not compare it with max_model_len.
        knob: None,
        flag: Some("-c".into()),
        value: Some(format!("{c:.0}")),
        text: format!(
            "with it, since llama-server divides -c by -np: {np:.0} slots × {per_slot:.0} tokens (each slot's context now) = {c:.0}{now}; the KV cache grows with -c, so check that it still fits the device"
        ),
        cost: None,
    })
}
