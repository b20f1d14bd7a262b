//! KV cache size per token and per sequence.
//!
//! - MHA/GQA: layers × kv_heads × head_dim × 2 (K and V) × dtype bytes.
//! - MLA (DeepSeek): layers × (kv_lora_rank + rope_dim) × dtype bytes: one compressed latent
//!   per token per layer serves both K and V.
//! - Sliding window: those layers hold at most `window` tokens of a sequence, so a sequence's
//!   KV is full_layers × per_layer × context + window_layers × per_layer × min(context, window).
//!
//! Tensor parallelism shards KV heads across GPUs; a GPU holds at least one head, so with
//! tp > kv_heads heads are replicated, and MLA's single latent is replicated on every GPU
//! (vLLM's layout). The figures here are for the whole TP group, replication included.

use serde::{Deserialize, Serialize};

use crate::bits::kv_dtype_bytes;
use crate::catalog::Attention;
use crate::provenance::{Figure, Known, Mark, Provenance};
use crate::spec::ModelSpec;
use crate::PhysicsError;

/// KV cache geometry of one model at one TP size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Kv {
    pub attention: Attention,
    /// The formula with its numbers, e.g. "30 layers × 3 kv heads × 64 head_dim × 2 (K,V) × 2 B".
    pub formula: String,
    /// Bytes per element of the cache, and its name.
    pub dtype_bytes: f64,
    pub dtype: String,
    /// Bytes per token across the TP group if every layer kept every token.
    pub bytes_per_token: Figure,
    /// Bytes per token per layer (one layer's share of `bytes_per_token`).
    pub bytes_per_token_per_layer: f64,
    pub layers: u64,
    /// Sliding-window layers and their window, when the model has them.
    pub window: Option<Window>,
    /// Set when tp replicates KV (tp > kv heads, or MLA).
    pub replication: Option<String>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Window {
    pub tokens: u64,
    pub layers: u64,
}

impl Kv {
    /// Bytes one sequence of `context` tokens holds across the TP group (window-capped).
    pub fn bytes_per_sequence(&self, context: u64) -> f64 {
        let per_layer = self.bytes_per_token_per_layer;
        match self.window {
            Some(w) => {
                let full = (self.layers - w.layers) as f64 * per_layer * context as f64;
                full + w.layers as f64 * per_layer * context.min(w.tokens) as f64
            }
            None => self.bytes_per_token.value * context as f64,
        }
    }
}

/// The KV geometry of `model` at `tp` with the cache dtype `kv_dtype` (`None` = auto, 16-bit).
pub fn kv_cache(
    model: &ModelSpec,
    kv_dtype: Option<&str>,
    tp: u32,
) -> Result<Known<Kv>, PhysicsError> {
    let dtype_name = kv_dtype.unwrap_or("auto");
    let (dtype_bytes, dtype) = kv_dtype_bytes(dtype_name).ok_or_else(|| {
        PhysicsError::InvalidInput(format!(
            "--kv-cache-dtype '{dtype_name}' is not known (auto, bf16, fp16, fp8, fp32, q8_0, \
             q4_0, q4_1, q5_0, q5_1)"
        ))
    })?;
    let dtype = if squash_auto(dtype_name) {
        "auto (16-bit)".to_string()
    } else {
        dtype.to_string()
    };
    let tp = u64::from(tp.max(1));
    let Some(attention) = model.attention else {
        return Ok(Known::unknown(format!(
            "{}: the attention layout is not known",
            model.source
        )));
    };
    let Some(layers) = model.layers else {
        return Ok(Known::unknown(format!(
            "{}: layer count not known",
            model.source
        )));
    };
    let mut notes = Vec::new();
    let (per_layer_gpu, formula, replication) = match attention {
        Attention::Mla => {
            let (Some(r), Some(rope)) = (model.kv_lora_rank, model.rope_dim) else {
                return Ok(Known::unknown(format!(
                    "{}: MLA without kv_lora_rank and rope_dim",
                    model.source
                )));
            };
            let per_layer = (r + rope) as f64 * dtype_bytes;
            let formula = format!(
                "{layers} layers × ({r} kv_lora_rank + {rope} rope) × {} B",
                crate::provenance::sig(dtype_bytes, 3)
            );
            let rep = (tp > 1).then(|| {
                format!("MLA's latent is replicated on each of the {tp} GPUs (×{tp} KV bytes)")
            });
            (per_layer * tp as f64, formula, rep)
        }
        Attention::Mha | Attention::Gqa => {
            let (Some(kvh), Some(hd)) = (model.kv_heads, model.head_dim) else {
                return Ok(Known::unknown(format!(
                    "{}: kv heads or head_dim not known",
                    model.source
                )));
            };
            let hdv = model.head_dim_v.unwrap_or(hd);
            // Each GPU holds ceil(kv_heads / tp) heads of a layer, at least one when the layer
            // has any.
            let stored = |heads: u64| heads.div_ceil(tp) * tp;
            let per_layer_heads: Vec<u64> = match &model.kv_heads_per_layer {
                Some(list) if list.len() as u64 == layers => list.clone(),
                _ => vec![kvh; layers as usize],
            };
            let given: u64 = per_layer_heads.iter().sum();
            let kept: u64 = per_layer_heads.iter().map(|&h| stored(h)).sum();
            let widths = if hdv == hd {
                format!("{hd} head_dim × 2 (K,V)")
            } else {
                format!("({hd} K + {hdv} V) head_dim")
            };
            let heads = if model.kv_heads_per_layer.is_some() {
                format!("{} kv heads summed over layers", given)
            } else {
                format!("{layers} layers × {kvh} kv heads")
            };
            let formula = format!(
                "{heads} × {widths} × {} B",
                crate::provenance::sig(dtype_bytes, 3)
            );
            let rep = (kept > given).then(|| {
                format!(
                    "tp {tp} over {kvh} kv heads: each GPU keeps at least one head per layer \
                     (×{} KV bytes)",
                    crate::provenance::sig(kept as f64 / given as f64, 3)
                )
            });
            let per_layer = kept as f64 * (hd + hdv) as f64 * dtype_bytes / layers as f64;
            (per_layer, formula, rep)
        }
    };
    let window = match (model.sliding_window, model.sliding_layers) {
        (Some(tokens), Some(l)) if l > 0 => Some(Window { tokens, layers: l }),
        (Some(tokens), None) => {
            notes.push(format!(
                "a {tokens}-token sliding window is reported but not which layers use it: KV \
                 sized as full attention on every layer (an upper bound)"
            ));
            None
        }
        _ => None,
    };
    let inputs_prov = Provenance::derive(&[model.provenance]);
    Ok(Known::Known(Kv {
        attention,
        formula,
        dtype_bytes,
        dtype,
        bytes_per_token: Figure::new(
            per_layer_gpu * layers as f64,
            "bytes/token",
            inputs_prov,
            Mark::Exact,
        ),
        bytes_per_token_per_layer: per_layer_gpu,
        layers,
        window,
        replication,
        notes,
    }))
}

fn squash_auto(s: &str) -> bool {
    s.trim().eq_ignore_ascii_case("auto")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ModelSpec;

    fn spec(attention: Attention) -> ModelSpec {
        ModelSpec {
            name: "t".into(),
            provenance: Provenance::Catalog,
            source: "test".into(),
            params_total: 1e9,
            params_active: 1e9,
            params_gathered: None,
            layers: Some(32),
            hidden: Some(4096),
            heads: Some(32),
            kv_heads: Some(8),
            head_dim: Some(128),
            head_dim_v: None,
            kv_heads_per_layer: None,
            attention: Some(attention),
            kv_lora_rank: None,
            rope_dim: None,
            sliding_window: None,
            sliding_layers: None,
            attn_coeff: None,
            moe: None,
            dtype: None,
            expert_dtype: None,
            file_bytes: None,
            mix: None,
        }
    }

    fn known(k: Known<Kv>) -> Kv {
        match k {
            Known::Known(k) => k,
            Known::Unknown { reason } => panic!("unknown: {reason}"),
        }
    }

    #[test]
    fn gqa_mha_bytes_per_token() {
        // (kv_heads, head_dim, layers, dtype, tp, bytes/token for the group)
        let cases: &[(u64, u64, u64, &str, u32, f64)] = &[
            // Llama 3.1 8B: 32 × 8 × 128 × 2 × 2 = 131072.
            (8, 128, 32, "auto", 1, 131_072.0),
            (8, 128, 32, "fp8", 1, 65_536.0),
            // TP 2 splits heads: same group total.
            (8, 128, 32, "auto", 2, 131_072.0),
            // TP 16 > 8 heads: one head per GPU, 16 stored.
            (8, 128, 32, "auto", 16, 262_144.0),
            // SmolLM2-135M: 30 × 3 × 64 × 2 × 2 = 23040.
            (3, 64, 30, "auto", 1, 23_040.0),
            // TP 2 over 3 heads: 2 per GPU, 4 stored.
            (3, 64, 30, "auto", 2, 30_720.0),
            // MHA 32 heads: 32 × 32 × 128 × 2 × 2.
            (32, 128, 32, "f16", 1, 524_288.0),
            // q8_0 cache: 34/32 bytes per element.
            (8, 128, 32, "q8_0", 1, 69_632.0),
        ];
        for &(kvh, hd, layers, dt, tp, want) in cases {
            let mut m = spec(Attention::Gqa);
            m.kv_heads = Some(kvh);
            m.head_dim = Some(hd);
            m.layers = Some(layers);
            let kv = known(kv_cache(&m, Some(dt), tp).unwrap());
            assert_eq!(
                kv.bytes_per_token.value, want,
                "{kvh} {hd} {layers} {dt} tp{tp}"
            );
            assert_eq!(
                kv.replication.is_some(),
                tp as u64 > kvh || (kvh % tp as u64 != 0)
            );
        }
    }

    #[test]
    fn mla_bytes_per_token() {
        // DeepSeek-V3: 61 × (512 + 64) × 2 = 70272; replicated per TP rank.
        let mut m = spec(Attention::Mla);
        m.layers = Some(61);
        m.kv_lora_rank = Some(512);
        m.rope_dim = Some(64);
        let kv = known(kv_cache(&m, None, 1).unwrap());
        assert_eq!(kv.bytes_per_token.value, 70_272.0);
        let kv8 = known(kv_cache(&m, None, 8).unwrap());
        assert_eq!(kv8.bytes_per_token.value, 8.0 * 70_272.0);
        assert!(kv8.replication.unwrap().contains("replicated"));
        m.kv_lora_rank = None;
        assert!(kv_cache(&m, None, 1)
            .unwrap()
            .reason()
            .unwrap()
            .contains("MLA"));
    }

    #[test]
    fn sliding_window_caps_sequences() {
        // gpt-oss-120b: 36 layers, 8 kv heads × 64, 18 layers with a 128-token window.
        let mut m = spec(Attention::Gqa);
        m.layers = Some(36);
        m.kv_heads = Some(8);
        m.head_dim = Some(64);
        m.sliding_window = Some(128);
        m.sliding_layers = Some(18);
        let kv = known(kv_cache(&m, None, 1).unwrap());
        let per_layer = 8.0 * 64.0 * 2.0 * 2.0;
        assert_eq!(kv.bytes_per_token.value, 36.0 * per_layer);
        // Under the window every layer holds every token.
        assert_eq!(kv.bytes_per_sequence(100), 36.0 * per_layer * 100.0);
        // Past it, the 18 window layers hold 128 tokens.
        assert_eq!(
            kv.bytes_per_sequence(8192),
            18.0 * per_layer * 8192.0 + 18.0 * per_layer * 128.0
        );
        // A window without its layer pattern: full attention, said so.
        m.sliding_layers = None;
        let kv = known(kv_cache(&m, None, 1).unwrap());
        assert_eq!(kv.bytes_per_sequence(8192), 36.0 * per_layer * 8192.0);
        assert!(kv.notes[0].contains("upper bound"));
    }

    #[test]
    fn unknown_layout_and_bad_dtype() {
        let mut m = spec(Attention::Gqa);
        m.attention = None;
        assert!(kv_cache(&m, None, 1).unwrap().reason().is_some());
        let m = spec(Attention::Gqa);
        assert!(kv_cache(&m, Some("int3"), 1).is_err());
        let mut m = spec(Attention::Gqa);
        m.kv_heads = None;
        assert!(kv_cache(&m, None, 1)
            .unwrap()
            .reason()
            .unwrap()
            .contains("kv heads"));
    }

    #[test]
    fn separate_v_width_and_per_layer_heads() {
        let mut m = spec(Attention::Gqa);
        m.layers = Some(4);
        m.kv_heads = Some(8);
        m.head_dim = Some(192);
        m.head_dim_v = Some(128);
        let kv = known(kv_cache(&m, None, 1).unwrap());
        assert_eq!(kv.bytes_per_token.value, 4.0 * 8.0 * (192.0 + 128.0) * 2.0);
        m.head_dim_v = None;
        m.head_dim = Some(128);
        // One layer without KV heads (a linear-attention or no-op layer): it stores nothing.
        m.kv_heads_per_layer = Some(vec![8, 8, 0, 8]);
        let kv = known(kv_cache(&m, None, 1).unwrap());
        assert_eq!(kv.bytes_per_token.value, 24.0 * 128.0 * 2.0 * 2.0);
        assert!(kv.formula.contains("24 kv heads summed"));
    }
}
