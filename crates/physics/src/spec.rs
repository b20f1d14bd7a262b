//! What the ceiling math needs to know about a model, and the knobs of a deployment.
//!
//! A [`ModelSpec`] comes from the catalog ([`ModelSpec::from_catalog`]) or from a model file's
//! header ([`ModelSpec::from_gguf`], over the facts the gguf crate read). Fields a source does
//! not give are `None`, and the figures that need them come out [`crate::Known::Unknown`] with
//! the reason.

use serde::{Deserialize, Serialize};

use crate::catalog::{Attention, Model};
use crate::mix::MixShape;
use crate::provenance::{Figure, Provenance};

/// Routed experts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Moe {
    pub experts: u64,
    pub experts_used: u64,
    pub shared_experts: u64,
    /// Layers with routed experts, when known.
    pub moe_layers: Option<u64>,
    /// Parameters of one routed expert in one layer, when known.
    pub params_per_expert: Option<f64>,
    /// All routed-expert parameters (every expert, every layer).
    pub routed_params_total: f64,
}

impl Moe {
    /// Routed-expert parameters one token reads: top_k × MoE layers × per-expert params, which is
    /// routed_total × used / experts.
    pub fn routed_params_per_token(&self) -> f64 {
        self.routed_params_total * self.experts_used as f64 / self.experts as f64
    }

    /// Routed experts one token visits: top_k × MoE layers.
    pub fn experts_per_token(&self) -> Option<u64> {
        self.moe_layers.map(|l| l * self.experts_used)
    }
}

/// Exact byte counts from a model file, which beat params × bits.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileBytes {
    /// All tensor data.
    pub weight_bytes: u64,
    /// Bytes read per decoded token (non-expert + the used share of the experts).
    pub active_bytes: u64,
}

/// A model, as the ceiling math sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    pub name: String,
    /// `Catalog` or `ModelFile`.
    pub provenance: Provenance,
    /// Where the figures come from (catalog source, or the file path).
    pub source: String,
    pub params_total: f64,
    /// Parameters read per decoded token (MoE: experts on the path; an untied input embedding
    /// left out, see `params_gathered`).
    pub params_active: f64,
    /// Params of the untied input embedding (and other per-token lookup tables): a token
    /// reads one row of them, so they are in `params_total` and not in `params_active`.
    #[serde(default)]
    pub params_gathered: Option<f64>,
    pub layers: Option<u64>,
    pub hidden: Option<u64>,
    pub heads: Option<u64>,
    pub kv_heads: Option<u64>,
    pub head_dim: Option<u64>,
    /// Per-head V width when it differs from K's (`None`: same as `head_dim`).
    pub head_dim_v: Option<u64>,
    /// KV heads of each layer, when they differ by layer (length = layers).
    pub kv_heads_per_layer: Option<Vec<u64>>,
    /// `None` when the source does not say (then the KV size is unknown).
    pub attention: Option<Attention>,
    pub kv_lora_rank: Option<u64>,
    pub rope_dim: Option<u64>,
    pub sliding_window: Option<u64>,
    /// Layers that use the window; `None` with a window means the pattern is not known.
    pub sliding_layers: Option<u64>,
    /// Prefill's attention coefficient when the source gives one (see [`crate::ceilings`]).
    pub attn_coeff: Option<f64>,
    pub moe: Option<Moe>,
    /// Native weight format (catalog default link of the bits chain).
    pub dtype: Option<String>,
    /// Native format of the routed experts when it differs.
    pub expert_dtype: Option<String>,
    /// Exact bytes when the model comes from a file.
    pub file_bytes: Option<FileBytes>,
    /// The tensor shapes llama-quantize's rules need (catalog models whose shape they cover).
    #[serde(default)]
    pub mix: Option<MixShape>,
}

impl ModelSpec {
    pub fn from_catalog(m: &Model) -> ModelSpec {
        let moe = match (m.experts, m.experts_used, m.moe_layers, m.params_per_expert) {
            (Some(e), Some(u), Some(l), Some(p)) => Some(Moe {
                experts: e,
                experts_used: u,
                shared_experts: m.shared_experts.unwrap_or(0),
                moe_layers: Some(l),
                params_per_expert: Some(p),
                routed_params_total: e as f64 * l as f64 * p,
            }),
            _ => None,
        };
        ModelSpec {
            name: m.name.clone(),
            provenance: Provenance::Catalog,
            source: m.source.clone(),
            params_total: m.params_total,
            params_active: m.params_active,
            params_gathered: m.untied_input_params(),
            layers: Some(m.layers),
            hidden: Some(m.hidden),
            heads: Some(m.heads),
            kv_heads: m.kv_heads,
            head_dim: m.head_dim,
            head_dim_v: None,
            kv_heads_per_layer: None,
            attention: Some(m.attention),
            kv_lora_rank: m.kv_lora_rank,
            rope_dim: m.rope_dim,
            sliding_window: m.sliding_window,
            sliding_layers: m.sliding_layers,
            attn_coeff: m.attn_coeff,
            moe,
            dtype: Some(m.dtype.clone()),
            expert_dtype: m.expert_dtype.clone(),
            file_bytes: None,
            mix: mix_shape(m),
        }
    }
}

/// The shape llama-quantize's rules see, for the architectures [`crate::mix`] is written for:
/// separate (or Phi-3's fused) Q/K/V, a SwiGLU feed-forward or routed experts of one width,
/// text only. `None` for anything else (MLA, gpt-oss, vision towers, no width given).
fn mix_shape(m: &Model) -> Option<MixShape> {
    let (kv, hd, vocab, tied) = (m.kv_heads?, m.head_dim?, m.vocab?, m.tied_embeddings?);
    let h = m.hidden;
    let arch = m.arch.as_str();
    let norms = match arch {
        "llama" | "mistral" | "phi3" | "mixtral" => 2 * h,
        // q/k/v biases.
        "qwen2" => 2 * h + m.heads * hd + 2 * kv * hd,
        // Per-head q/k norms.
        "qwen3" | "qwen3moe" => 2 * h + 2 * hd,
        // Norms before and after attention and the feed-forward.
        "gemma2" => 4 * h,
        "gemma3" => 4 * h + 2 * hd,
        _ => return None,
    };
    let (ff, experts, router) = match (m.experts, m.params_per_expert, m.intermediate) {
        (None, None, Some(ff)) => (ff, None, 0),
        (Some(e), Some(p), _) if m.moe_layers == Some(m.layers) && m.expert_dtype.is_none() => {
            let width = p / (3.0 * h as f64);
            if width.fract() != 0.0 || m.shared_experts.unwrap_or(0) > 0 {
                return None;
            }
            (0, Some((e, width as u64)), e * h)
        }
        _ => return None,
    };
    let text = m.params_active + m.untied_input_params().unwrap_or(0.0);
    // A dense entry whose read count is not its whole text stack carries more than text.
    if experts.is_none() && (text - m.params_total).abs() > 0.5 {
        return None;
    }
    let shape = MixShape {
        layers: m.layers,
        hidden: h,
        heads: m.heads,
        kv_heads: kv,
        head_dim: hd,
        vocab,
        tied,
        ff,
        fused: arch == "phi3",
        experts,
        experts_used: m.experts_used.unwrap_or(0),
        is_70b: arch == "llama" && m.layers == 80,
        f32_per_layer: norms + router,
        f32_once: h,
    };
    // Shapes that do not add up to the entry's own count (a user entry's wrong width) would
    // size a file that does not exist: the averaged table then stands in.
    let params = shape.params();
    ((params / m.params_total - 1.0).abs() < 0.01).then_some(shape)
}

impl ModelSpec {
    /// A model spec from a GGUF file's header facts (`source` names the file): exact bytes, the
    /// shape the KV math needs, and the architecture's sliding-window pattern where llama.cpp
    /// fixes it by architecture. Caveats the caller should print go to `notes`.
    pub fn from_gguf(
        f: &gguf::ModelFacts,
        source: &str,
        notes: &mut Vec<String>,
    ) -> Result<ModelSpec, crate::PhysicsError> {
        if f.params_total == 0 || f.params_active == 0 {
            return Err(crate::PhysicsError::InvalidInput(format!(
                "{source}: no weight tensors in the file"
            )));
        }
        let attention = match (f.kv_lora_rank, f.n_heads, f.n_kv_heads) {
            (Some(_), _, _) => Some(Attention::Mla),
            (None, Some(h), Some(kv)) if kv == h => Some(Attention::Mha),
            (None, Some(_), Some(_)) => Some(Attention::Gqa),
            _ => None,
        };
        let sliding_layers = match (f.sliding_window, f.n_layers) {
            (Some(_), Some(l)) => sliding_layers_for_arch(&f.architecture, l),
            _ => None,
        };
        let attn_coeff = match (attention, f.n_heads, f.head_dim, f.hidden, f.n_layers) {
            (Some(Attention::Mha | Attention::Gqa), Some(h), Some(hd), Some(hid), Some(l)) => {
                shape_attn_coeff(h, hd, hid, l, sliding_layers)
            }
            _ => None,
        };
        if attention == Some(Attention::Mla) {
            notes.push(
                "MLA from the file: no attention coefficient is derived, the prefill ceiling is \
                 linear-only"
                    .into(),
            );
        }
        let moe = match (f.n_experts, f.n_experts_used) {
            (Some(e), Some(u)) if e > 0 && u > 0 && f.params_expert > 0 => Some(Moe {
                experts: e,
                experts_used: u,
                shared_experts: f.n_shared_experts.unwrap_or(0),
                moe_layers: None,
                params_per_expert: None,
                routed_params_total: f.params_expert as f64,
            }),
            _ => None,
        };
        let name = f.name.clone().unwrap_or_else(|| {
            std::path::Path::new(source)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| source.to_string())
        });
        Ok(ModelSpec {
            name: format!("{name} ({})", f.architecture),
            provenance: Provenance::ModelFile,
            source: source.to_string(),
            params_total: f.params_total as f64,
            params_active: f.params_active as f64,
            params_gathered: (f.params_gathered > 0).then_some(f.params_gathered as f64),
            layers: f.n_layers,
            hidden: f.hidden,
            heads: f.n_heads,
            kv_heads: f.n_kv_heads,
            head_dim: f.head_dim,
            head_dim_v: f.head_dim_v.filter(|v| Some(*v) != f.head_dim),
            kv_heads_per_layer: f.kv_heads_per_layer.clone(),
            attention,
            kv_lora_rank: f.kv_lora_rank,
            rope_dim: f.rope_dim,
            sliding_window: f.sliding_window,
            sliding_layers,
            attn_coeff,
            moe,
            dtype: None,
            expert_dtype: None,
            file_bytes: Some(FileBytes {
                weight_bytes: f.weight_bytes,
                active_bytes: f.active_bytes,
            }),
            mix: None,
        })
    }
}

/// Deployment knobs. `Options::default()` is one GPU, `--gpu-memory-utilization 0.9`, nothing
/// else known.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Tensor-parallel size (GPUs per replica).
    pub tp: u32,
    /// Quantization the engine reports (vLLM `/info`, server args).
    pub engine_quantization: Option<String>,
    /// `--quantization` as the user gives it.
    pub quantization: Option<String>,
    /// Dtype the engine reports.
    pub engine_dtype: Option<String>,
    /// `--dtype` as the user gives it.
    pub dtype: Option<String>,
    /// KV cache dtype (`auto` = the model's 16-bit dtype).
    pub kv_cache_dtype: Option<String>,
    /// Prompt length for the prefill ceiling: measured mean prompt tokens, or `--prompt-tokens`.
    pub prompt_tokens: Option<Figure>,
    /// `--max-model-len`: the prefill length when no prompt length is known, and the context
    /// for the concurrency figure when `context` is not given.
    pub max_model_len: Option<u64>,
    /// Fraction of VRAM the engine may use (vLLM `--gpu-memory-utilization`).
    pub gpu_memory_utilization: f64,
    /// Context per request for the concurrency figure.
    pub context: Option<u64>,
    /// Price per GPU-hour, for cost per 1M output tokens at the ceiling.
    pub price_per_hour: Option<f64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            tp: 1,
            engine_quantization: None,
            quantization: None,
            engine_dtype: None,
            dtype: None,
            kv_cache_dtype: None,
            prompt_tokens: None,
            max_model_len: None,
            gpu_memory_utilization: 0.9,
            context: None,
            price_per_hour: None,
        }
    }
}

/// How many of `layers` use a sliding window in architectures whose pattern is fixed by the
/// architecture rather than written in the file (llama.cpp's arch names): gemma2 and gpt-oss
/// alternate (even layers slide), gemma3 keeps every sixth layer global.
pub fn sliding_layers_for_arch(arch: &str, layers: u64) -> Option<u64> {
    match arch {
        "gemma2" | "gpt-oss" | "gpt_oss" => Some(layers.div_ceil(2)),
        "gemma3" => Some(layers - layers / 6),
        _ => None,
    }
}

/// The attention coefficient a model's shape implies when `2 × hidden` would be wrong:
/// 2 × heads × head_dim when heads × head_dim != hidden, scaled by full-attention layers /
/// layers when some layers use a sliding window (the window layers are linear in the prompt
/// past the window). `None` when `2 × hidden` is already right.
pub fn shape_attn_coeff(
    heads: u64,
    head_dim: u64,
    hidden: u64,
    layers: u64,
    sliding_layers: Option<u64>,
) -> Option<f64> {
    let full = 2.0 * (heads * head_dim) as f64;
    let share = match sliding_layers {
        Some(s) if s > 0 && s <= layers && layers > 0 => (layers - s) as f64 / layers as f64,
        _ => 1.0,
    };
    let coeff = full * share;
    (coeff != 2.0 * hidden as f64).then_some(coeff)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;

    /// The catalog's hand-written coefficients and window counts follow the same rules.
    #[test]
    fn catalog_shapes_follow_the_rules() {
        let c = Catalog::embedded().unwrap();
        for m in &c.models {
            if let Some(n) = sliding_layers_for_arch(&m.arch, m.layers) {
                assert_eq!(m.sliding_layers, Some(n), "{}", m.id);
            }
            if let (crate::Attention::Gqa | crate::Attention::Mha, Some(hd)) =
                (m.attention, m.head_dim)
            {
                let want = shape_attn_coeff(m.heads, hd, m.hidden, m.layers, m.sliding_layers);
                match (want, m.attn_coeff) {
                    (None, None) => {}
                    (Some(w), Some(c)) => assert!((w - c).abs() <= 0.5, "{}: {w} vs {c}", m.id),
                    other => panic!("{}: {other:?}", m.id),
                }
            }
        }
        assert_eq!(shape_attn_coeff(32, 128, 4096, 32, None), None);
        assert_eq!(shape_attn_coeff(32, 128, 2048, 48, None), Some(8192.0));
    }

    /// A user entry whose feed-forward width does not add up to its own count (here ten times
    /// Llama 3.1 8B's, or absurdly large) gets no shapes: the averaged table sizes it instead.
    #[test]
    fn shapes_that_do_not_add_up_are_not_used() {
        let c = Catalog::embedded().unwrap();
        let mut m = c.model("llama-3.1-8b").unwrap().entry.clone();
        assert!(ModelSpec::from_catalog(&m).mix.is_some());
        for ff in [143_360, u64::MAX / 2] {
            m.intermediate = Some(ff);
            assert!(ModelSpec::from_catalog(&m).mix.is_none(), "{ff}");
        }
    }
}
