//! The emulated GPU and model, taken from the physics crate's catalogs and ceiling math, so the
//! emulator runs on exactly the figures `headroom ceiling` prints.

use physics::{Catalog, Ceilings, Known, ModelSpec, Options};

use crate::cost::Figures;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HardwareError {
    #[error(transparent)]
    Lookup(#[from] physics::LookupError),
    #[error("catalog: {0}")]
    Catalog(String),
    #[error(transparent)]
    Physics(#[from] physics::PhysicsError),
    #[error("{what} is unknown for {gpu} × {model}: {why}; the emulator needs it to run")]
    Unknown {
        what: &'static str,
        gpu: String,
        model: String,
        why: String,
    },
}

/// The deployment knobs the figures depend on.
#[derive(Debug, Clone, PartialEq)]
pub struct Deployment {
    pub tp: u32,
    pub kv_cache_dtype: String,
    pub quantization: Option<String>,
    pub max_model_len: u32,
    pub gpu_memory_utilization: f64,
}

/// A resolved GPU × model: the step-cost figures and the ceilings they came from.
#[derive(Debug, Clone)]
pub struct Hardware {
    pub figures: Figures,
    pub ceilings: Ceilings,
    pub gpu_id: String,
    pub model_id: String,
    /// VRAM of one GPU, bytes (vLLM picks its defaults from it).
    pub vram_per_gpu: f64,
}

/// Looks up `gpu` and `model` in the embedded catalogs.
pub fn resolve(gpu: &str, model: &str, d: &Deployment) -> Result<Hardware, HardwareError> {
    let cat = Catalog::embedded().map_err(|e| HardwareError::Catalog(e.to_string()))?;
    let g = cat.gpu(gpu)?.entry;
    let m = cat.model(model)?.entry;
    let spec = ModelSpec::from_catalog(m);
    let kv_dtype = (d.kv_cache_dtype != "auto").then(|| d.kv_cache_dtype.clone());
    let opts = Options {
        tp: d.tp,
        quantization: d.quantization.clone(),
        kv_cache_dtype: kv_dtype,
        max_model_len: Some(u64::from(d.max_model_len)),
        gpu_memory_utilization: d.gpu_memory_utilization,
        ..Options::default()
    };
    let c = Ceilings::compute(g, &spec, &opts)?;
    let unknown = |what: &'static str, why: &str| HardwareError::Unknown {
        what,
        gpu: g.name.clone(),
        model: m.name.clone(),
        why: why.to_string(),
    };
    let compute = match &c.compute {
        Known::Known(r) => r.clone(),
        Known::Unknown { reason } => return Err(unknown("compute rate", reason)),
    };
    let kv = match &c.model.kv {
        Known::Known(k) => k.clone(),
        Known::Unknown { reason } => return Err(unknown("KV bytes per token", reason)),
    };
    let (attn_coeff, attn_from) = physics::ceilings::attn_coeff(&spec);
    let figures = Figures {
        gpu: g.name.clone(),
        model: m.name.clone(),
        tp: d.tp,
        vram_bytes: g.memory_bytes() * f64::from(d.tp),
        bandwidth: c.bandwidth.value * 1e9,
        flops: compute.tflops.value * 1e12,
        compute_precision: compute.precision.to_string(),
        weight_bytes: c.model.weight_footprint.value,
        stream_bytes: c.model.decode_stream.value,
        params_active: spec.params_active,
        hidden: spec.hidden.unwrap_or(0) as f64,
        layers: spec.layers.unwrap_or(0) as f64,
        attn_coeff,
        kv_bytes_per_token: kv.bytes_per_token.value,
        sources: vec![
            format!("bandwidth: {}", c.bandwidth_source),
            format!("compute ({}): {}", compute.precision, compute.source),
            format!("model: {}; params: {}", m.source, m.params_source),
            format!(
                "weights: {} ({} bits/param)",
                c.model.bits.format, c.model.bits.bits
            ),
            format!("KV: {} ({})", kv.formula, kv.dtype),
            format!("attention coefficient: {attn_from}"),
        ],
    };
    Ok(Hardware {
        figures,
        gpu_id: g.id.clone(),
        model_id: m.id.clone(),
        vram_per_gpu: g.memory_bytes(),
        ceilings: c,
    })
}

/// A deployment ready to run: the resolved flags and the figures under them.
#[derive(Debug, Clone)]
pub struct Configured {
    pub args: crate::args::EngineArgs,
    pub hardware: Hardware,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigureError {
    #[error(transparent)]
    Hardware(#[from] HardwareError),
    #[error(transparent)]
    Args(#[from] crate::args::ArgsError),
}

/// The catalog does not carry a model's trained context; without `--max-model-len` the emulator
/// serves 8192 tokens.
pub const DEFAULT_MAX_MODEL_LEN: u32 = 8192;

/// Resolves `gpu` × `model` and the flags (vLLM defaults for what is not given).
pub fn configure(
    gpu: &str,
    model: &str,
    o: &crate::args::ArgOverrides,
) -> Result<Configured, ConfigureError> {
    let cat = Catalog::embedded().map_err(|e| HardwareError::Catalog(e.to_string()))?;
    let g = cat.gpu(gpu).map_err(HardwareError::from)?.entry;
    let m = cat.model(model).map_err(HardwareError::from)?.entry;
    let args = crate::args::EngineArgs::resolve(o, &m.id, g.memory_bytes(), DEFAULT_MAX_MODEL_LEN)?;
    let hardware = resolve(
        gpu,
        model,
        &Deployment {
            tp: args.tensor_parallel_size,
            kv_cache_dtype: args.kv_cache_dtype.clone(),
            quantization: args.quantization.clone(),
            max_model_len: args.max_model_len,
            gpu_memory_utilization: args.gpu_memory_utilization,
        },
    )?;
    Ok(Configured { args, hardware })
}

impl Configured {
    pub fn engine(&self) -> crate::engine::Engine {
        crate::engine::Engine::new(self.args.clone(), self.hardware.figures.clone())
    }

    /// The command line a real vLLM would run this deployment with.
    pub fn command_line(&self) -> String {
        self.args.command_line(&self.hardware.model_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dep() -> Deployment {
        Deployment {
            tp: 1,
            kv_cache_dtype: "auto".into(),
            quantization: None,
            max_model_len: 8192,
            gpu_memory_utilization: 0.9,
        }
    }

    #[test]
    fn h100_llama_8b_matches_the_ceilings() {
        let h = resolve("H100-SXM", "llama-3.1-8b", &dep()).unwrap();
        let f = &h.figures;
        assert!((f.decode_ceiling_tps() - h.ceilings.decode_tps.value).abs() < 1e-6);
        let ridge = h.ceilings.ridge.get().unwrap().batch.value;
        assert!(
            (f.ridge_batch() - ridge).abs() < 1e-6,
            "{} {ridge}",
            f.ridge_batch()
        );
        assert_eq!(f.kv_bytes_per_token, 131_072.0);
        assert_eq!(f.attn_coeff, 8192.0);
        assert!((f.weight_bytes - 16.06e9).abs() < 0.01e9);
    }

    #[test]
    fn fp8_kv_and_tp_scale_the_figures() {
        let mut d = dep();
        d.kv_cache_dtype = "fp8".into();
        d.tp = 2;
        let h = resolve("H100-SXM", "llama-3.1-8b", &d).unwrap();
        assert_eq!(h.figures.kv_bytes_per_token, 65_536.0);
        assert!((h.figures.bandwidth - 6700e9).abs() < 1.0);
    }

    #[test]
    fn configure_applies_vllm_defaults() {
        let c = configure("L4", "llama-3.1-8b", &Default::default()).unwrap();
        assert_eq!(
            (c.args.max_num_seqs, c.args.max_num_batched_tokens),
            (256, 2048)
        );
        assert_eq!(c.args.max_model_len, DEFAULT_MAX_MODEL_LEN);
        assert_eq!(c.args.served_model_name, "llama-3.1-8b");
        let e = c.engine();
        assert!(e.layout().num_gpu_blocks > 1000, "{:?}", e.layout());
        assert!(c.command_line().starts_with("vllm serve llama-3.1-8b "));
    }

    #[test]
    fn unknown_names_are_errors_with_candidates() {
        let e = resolve("H100-SMX", "llama-3.1-8b", &dep()).unwrap_err();
        assert!(matches!(e, HardwareError::Lookup(_)), "{e}");
        assert!(resolve("H100-SXM", "no-such-model", &dep()).is_err());
    }
}
