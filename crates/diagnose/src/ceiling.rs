//! From the GPU and model names to the physics facts the rules read. A missing or uncatalogued
//! GPU or model gives "Hardware ceiling unknown" with the reason, never a wrong number.

use crate::inputs::{Config, Physics};
use crate::report::CeilingInfo;
use crate::window::WindowStats;
use physics::{BitsSource, Catalog, Ceilings, Known, ModelSpec, Options, Provenance};

pub(crate) struct Wanted<'a> {
    pub gpu: Option<&'a str>,
    pub model: Option<&'a str>,
    pub served_model: Option<&'a str>,
    pub spec: Option<ModelSpec>,
    pub catalog: &'a Catalog,
    pub tp: Option<u32>,
    pub dtype: Option<&'a str>,
    pub quantization: Option<&'a str>,
    /// The server is llama.cpp: its published runs' band is quoted beside the ceiling.
    pub llamacpp: bool,
}

pub(crate) fn resolve(
    w: &Wanted,
    config: &Config,
    window: &WindowStats,
) -> (CeilingInfo, Option<Physics>) {
    let tp =
        w.tp.or(config.tensor_parallel_size.map(|t| t.max(1.0) as u32))
            .unwrap_or(1);
    let mut info = CeilingInfo {
        unknown_reason: None,
        gpu: w.gpu.map(str::to_string),
        gpu_from: None,
        model: None,
        model_from: None,
        decode_tps: None,
        ridge_batch: None,
        aggregate_at_ridge_tps: None,
        prefill_prompts_per_s: None,
        bits: None,
        bits_source: None,
        tp,
        tp_assumption: None,
        published_band: None,
    };
    let unknown = |mut info: CeilingInfo, why: String| {
        info.unknown_reason = Some(why);
        (info, None)
    };
    // Every missing piece is named, not just the first.
    let mut missing = Vec::new();
    let spec = if let Some(s) = w.spec.clone() {
        info.model_from = Some(format!("model file {}", s.source));
        Some(s)
    } else {
        match (w.model, w.served_model) {
            (None, None) => {
                missing.push("no --model given and the engine reports no model name".to_string());
                None
            }
            (m, served) => {
                let (name, from) = match m {
                    Some(m) => (m, "--model"),
                    None => (served.unwrap_or_default(), "engine"),
                };
                info.model_from = Some(from.into());
                match w.catalog.model(name) {
                    Ok(found) => Some(ModelSpec::from_catalog(found.entry)),
                    Err(e) => {
                        missing.push(format!("{e} (model name from {from})"));
                        None
                    }
                }
            }
        }
    };
    if let Some(s) = &spec {
        info.model = Some(s.name.clone());
    }
    let gpu = match w.gpu {
        None => {
            missing.push("no --gpu given (engines do not report the GPU in /metrics)".to_string());
            None
        }
        Some(g) => match w.catalog.gpu(g) {
            Ok(f) => Some(f.entry.clone()),
            Err(e) => {
                missing.push(e.to_string());
                None
            }
        },
    };
    let (Some(spec), Some(gpu)) = (spec, gpu) else {
        return unknown(info, missing.join("; "));
    };
    info.gpu = Some(gpu.name.clone());
    if w.llamacpp {
        info.published_band = physics::scoreboard::band_note(w.catalog, &gpu);
    }
    let opts = Options {
        tp,
        quantization: w.quantization.map(str::to_string),
        dtype: w.dtype.map(str::to_string),
        kv_cache_dtype: config.kv_cache_dtype.clone(),
        prompt_tokens: window
            .mean_prompt_tokens()
            .map(|p| physics::Figure::new(p, "tokens", Provenance::Measured, physics::Mark::Exact)),
        max_model_len: config.max_model_len.map(|m| m as u64),
        gpu_memory_utilization: config.gpu_memory_utilization.unwrap_or(0.9),
        context: None,
        ..Options::default()
    };
    let c = match Ceilings::compute(&gpu, &spec, &opts) {
        Ok(c) => c,
        Err(e) => return unknown(info, format!("ceiling math: {e}")),
    };
    info.decode_tps = Some(c.decode_tps.value);
    info.bits = Some(c.model.stream_bits.value);
    info.bits_source = Some(c.model.bits.source.label().to_string());
    info.tp_assumption = c.tp_assumption.clone();
    if let Known::Known(p) = &c.prefill {
        info.prefill_prompts_per_s = Some(p.prompts_per_s.value);
    }
    let ridge = match &c.ridge {
        Known::Known(r) => r,
        Known::Unknown { reason } => {
            let why = format!("ridge unknown: {reason}");
            return unknown(info, why);
        }
    };
    info.ridge_batch = Some(ridge.batch.value);
    info.aggregate_at_ridge_tps = Some(ridge.aggregate_tps.value);
    let kv_per_seq = match (&c.model.kv, config.max_model_len) {
        (Known::Known(kv), Some(len)) => Some(kv.bytes_per_sequence(len as u64) / 1e9),
        _ => None,
    };
    let phys = Physics {
        decode_ceiling_tps: c.decode_tps.value,
        ridge_batch: ridge.batch.value,
        kv_headroom_gb: Some(c.memory.kv_pool.value / 1e9),
        worst_request_gb: kv_per_seq,
        min_tp: c.memory.min_tp.tp,
        dtype_fallback: c.model.bits.source == BitsSource::Fallback,
    };
    (info, Some(phys))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A llama.cpp server's ceiling carries the share llama.cpp's published runs reach on its
    /// class of card; another engine's does not (the runs are llama.cpp's).
    #[test]
    fn llamacpp_ceiling_quotes_the_published_band() {
        let catalog = Catalog::embedded().unwrap();
        let band = |llamacpp: bool| {
            let w = Wanted {
                gpu: Some("RTX 3090"),
                model: Some("llama-2-7b"),
                served_model: None,
                spec: None,
                catalog: &catalog,
                tp: None,
                dtype: None,
                quantization: Some("Q4_0"),
                llamacpp,
            };
            resolve(&w, &Config::default(), &WindowStats::default())
                .0
                .published_band
        };
        let note = band(true).expect("GeForce cards have published runs");
        assert!(note.contains("CUDA") && note.contains("n="), "{note}");
        assert_eq!(band(false), None);
    }
}
