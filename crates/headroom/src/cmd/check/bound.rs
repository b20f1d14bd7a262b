//! The decode ceiling `check` bounds a run's figures by: the GPU (or host RAM) and the model,
//! named with `headroom ceiling`'s flags and resolved by the same catalog and model-file code;
//! the physics is the `physics` crate's, as `ceiling` prints it.

use anyhow::{bail, Context, Result};
use check::DecodeCeiling;
use physics::{Ceilings, ModelFigures, ModelSpec, Options};
use std::path::Path;

/// The hardware and model flags of `check`, as `ceiling` spells them.
pub(super) struct Hardware<'a> {
    pub gpu: Option<&'a str>,
    pub model: Option<&'a str>,
    pub gguf: Option<&'a Path>,
    pub tp: u32,
    pub dtype: Option<&'a str>,
    pub quantization: Option<&'a str>,
    pub ram_bandwidth: Option<f64>,
    pub catalog: Option<&'a Path>,
}

/// The one-sequence decode ceiling; none when the GPU or the model is not given (the check then
/// says what it needs). A name that is given and unknown is an error, as in `ceiling`.
pub(super) fn ceiling(h: &Hardware) -> Result<Option<DecodeCeiling>> {
    let (Some(gpu), true) = (h.gpu, h.model.is_some() || h.gguf.is_some()) else {
        if h.gpu.is_some() {
            bail!("--gpu bounds the figures with the model's size: give --model NAME or --gguf FILE too");
        }
        if h.model.is_some() || h.gguf.is_some() {
            bail!("--model and --gguf bound the figures with the hardware's bandwidth: give --gpu NAME (or --gpu none --ram-bandwidth GBPS) too");
        }
        return Ok(None);
    };
    let catalog = super::super::names::catalog(h.catalog)?;
    let mut notes = Vec::new();
    let spec: ModelSpec = match (h.model, h.gguf) {
        (Some(name), _) => {
            let f = catalog
                .model(name)
                .with_context(|| format!("--model {name:?}"))?;
            ModelSpec::from_catalog(f.entry)
        }
        (None, Some(path)) => super::super::ceiling::spec_from_gguf(path, &mut notes)?,
        (None, None) => return Ok(None),
    };
    let opts = Options {
        tp: h.tp,
        quantization: h.quantization.map(str::to_string),
        dtype: h.dtype.map(str::to_string),
        ..Options::default()
    };
    let cpu_only = matches!(gpu.trim().to_lowercase().as_str(), "none" | "cpu");
    if cpu_only {
        let Some(bw) = h.ram_bandwidth else {
            bail!("--gpu none needs the host RAM bandwidth: --ram-bandwidth GBPS (from `headroom membw`)");
        };
        let mf = ModelFigures::compute(&spec, &opts)?;
        let rb = physics::offload::ram_bound_for_model(&spec, &mf, bw, None)?;
        let Some(rb) = rb.get() else {
            bail!(
                "no RAM-bound ceiling for {}: {}",
                spec.name,
                rb.reason().unwrap_or_default()
            );
        };
        return Ok(Some(DecodeCeiling {
            of: format!(
                "host RAM at {bw} GB/s (CPU only) × {} at {:.2} bits per weight, {:.3} GB per token",
                spec.name,
                mf.stream_bits.value,
                rb.bytes_per_token.value / 1e9
            ),
            per_stream_tps: rb.ceiling_tps.value,
        }));
    }
    if h.ram_bandwidth.is_some() {
        bail!("--ram-bandwidth bounds a CPU-only run: give it with --gpu none");
    }
    let g = catalog
        .gpu(gpu)
        .with_context(|| format!("--gpu {gpu:?}"))?
        .entry
        .clone();
    let c = Ceilings::compute(&g, &spec, &opts)?;
    Ok(Some(DecodeCeiling {
        of: format!(
            "{}{} ({:.0} GB/s) × {} at {:.2} bits per weight, {:.3} GB per token",
            g.name,
            if h.tp > 1 {
                format!(" × tp {}", h.tp)
            } else {
                String::new()
            },
            c.bandwidth.value,
            spec.name,
            c.model.stream_bits.value,
            c.model.decode_stream.value / 1e9
        ),
        per_stream_tps: c.decode_tps.value,
    }))
}
