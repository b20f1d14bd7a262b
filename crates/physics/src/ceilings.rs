//! The hardware ceilings for one GPU type, one model and one deployment.
//!
//! - **Decode** (one sequence, tok/s) = bandwidth_GBps × tp × 8e9 / (active_params × bits).
//! - **Prefill** (prompts/s) = TFLOPS × tp × 1e12 / (2 × active_params × s + attn_coeff ×
//!   layers × s²), s = prompt tokens, else `--max-model-len`, else no prefill ceiling.
//!   attn_coeff: the model's own value (catalog, or a model file whose heads × head_dim differ
//!   from hidden), else 2 × hidden for MHA/GQA, else 0 ("linear-only").
//! - **Ridge batch**: see [`ridge_batch`] for the derivation.
//! - **Memory**: weights (total params) against VRAM × tp × utilization; the rest is the KV pool.
//!
//! Every ceiling is an upper bound from published figures: marked [`Mark::Est`]; what is derived
//! from a ceiling is [`Mark::Approx`]. TP scales bandwidth and FLOPs by tp, assuming even sharding
//! and free interconnect; that assumption is carried in [`Ceilings::tp_assumption`].

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::bits::{resolve_bits, BitsInputs, BitsResolution, BitsSource, ComputeClass};
use crate::catalog::{Attention, Gpu};
use crate::kv::{kv_cache, Kv};
use crate::provenance::{sig, Figure, Known, Mark, Provenance};
use crate::spec::{ModelSpec, Options};
use crate::PhysicsError;

/// The figures that need only the model and the options (no GPU).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFigures {
    pub params_total: Figure,
    pub params_active: Figure,
    pub bits: BitsResolution,
    /// Effective bits per active parameter (the `bits` of the decode formula; a mix of expert
    /// and non-expert formats is averaged by parameter count).
    pub stream_bits: Figure,
    /// Bytes the weights occupy: total params (what has to fit).
    pub weight_footprint: Figure,
    /// Bytes read per decoded token: active params (what decode streams).
    pub decode_stream: Figure,
    pub kv: Known<Kv>,
}

impl ModelFigures {
    pub fn compute(model: &ModelSpec, opts: &Options) -> Result<ModelFigures, PhysicsError> {
        validate(model, opts)?;
        let mut bits = resolve_bits(&BitsInputs {
            engine_quantization: opts.engine_quantization.as_deref(),
            model_file_bits: model
                .file_bytes
                .map(|f| f.active_bytes as f64 * 8.0 / model.params_active),
            quantization: opts.quantization.as_deref(),
            engine_dtype: opts.engine_dtype.as_deref(),
            dtype: opts.dtype.as_deref(),
            catalog_dtype: model.dtype.as_deref(),
            catalog_expert_dtype: model.expert_dtype.as_deref(),
        })?;
        let mp = model.provenance;
        let bp = bits.provenance;
        let prov = Provenance::derive(&[mp, bp]);
        // A llama.cpp file type named for a catalogued shape: its per-tensor rules, not the
        // table's average over other models' files.
        let mixed = match (&model.mix, bits.source) {
            (Some(shape), BitsSource::QuantizationFlag | BitsSource::EngineQuantization) => {
                shape.bytes(&bits.format).map(|m| (m, shape.params()))
            }
            _ => None,
        };
        if let Some((m, params)) = mixed {
            let file_bits = m.footprint * 8.0 / params;
            bits.notes.push(format!(
                "{} for this model's shapes: llama-quantize's per-tensor rules (llama.cpp \
                 src/llama-quant.cpp) give {} bits per weight over the file and {} over what a \
                 token reads (the average over other models' real files: {}); approximate",
                bits.format,
                sig(file_bits, 3),
                sig(m.stream * 8.0 / model.params_active, 3),
                sig(bits.bits, 3)
            ));
            bits.bits = file_bits;
        }
        let (footprint, stream) = match (bits.source, model.file_bytes, mixed) {
            (BitsSource::ModelFile, Some(f), _) => (f.weight_bytes as f64, f.active_bytes as f64),
            (_, _, Some((m, _))) => (m.footprint, m.stream),
            _ => {
                // Split the routed experts off when they are stored in another format.
                let (routed_total, routed_active) = match (&model.moe, bits.expert_bits) {
                    (Some(m), Some(_)) => (m.routed_params_total, m.routed_params_per_token()),
                    _ => (0.0, 0.0),
                };
                let eb = bits.expert_bits.unwrap_or(bits.bits);
                let bytes =
                    |total: f64, routed: f64| ((total - routed) * bits.bits + routed * eb) / 8.0;
                (
                    bytes(model.params_total, routed_total),
                    bytes(model.params_active, routed_active),
                )
            }
        };
        let kv = kv_cache(model, opts.kv_cache_dtype.as_deref(), opts.tp)?;
        Ok(ModelFigures {
            params_total: Figure::new(model.params_total, "params", mp, Mark::Exact),
            params_active: Figure::new(model.params_active, "params", mp, Mark::Exact),
            stream_bits: Figure::new(
                stream * 8.0 / model.params_active,
                "bits",
                prov,
                Mark::Exact,
            ),
            weight_footprint: Figure::new(footprint, "bytes", prov, Mark::Exact),
            decode_stream: Figure::new(stream, "bytes/token", prov, Mark::Exact),
            bits,
            kv,
        })
    }
}

fn validate(model: &ModelSpec, opts: &Options) -> Result<(), PhysicsError> {
    let bad = |m: String| Err(PhysicsError::InvalidInput(m));
    if opts.tp == 0 {
        return bad("--tp must be at least 1".into());
    }
    let u = opts.gpu_memory_utilization;
    if !(u > 0.0 && u <= 1.0) {
        return bad(format!(
            "--gpu-memory-utilization must be in (0, 1], got {u}"
        ));
    }
    if let Some(p) = &opts.prompt_tokens {
        if !(p.value.is_finite() && p.value > 0.0) {
            return bad(format!("prompt tokens must be positive, got {}", p.value));
        }
    }
    if opts.max_model_len == Some(0) || opts.context == Some(0) {
        return bad("--max-model-len and --context must be positive".into());
    }
    if let Some(p) = opts.price_per_hour {
        if !(p.is_finite() && p >= 0.0) {
            return bad(format!(
                "--price-per-hour must be a non-negative number, got {p}"
            ));
        }
    }
    if !(model.params_active > 0.0 && model.params_active <= model.params_total) {
        return bad(format!(
            "{}: active params ({}) must be positive and at most the total ({})",
            model.source, model.params_active, model.params_total
        ));
    }
    Ok(())
}

/// The compute rate the ceilings use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputeRate {
    /// "BF16", "FP8", "FP4" or "FP32".
    pub precision: Cow<'static, str>,
    /// Dense TFLOPS for the whole TP group.
    pub tflops: Figure,
    pub source: String,
    /// Why this rate and not the weights' own (e.g. no FP8 tensor cores on the part).
    pub note: Option<String>,
}

/// Prefill ceiling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prefill {
    /// Prompt length used, and where it came from.
    pub seq_len: Figure,
    pub seq_len_from: Cow<'static, str>,
    /// Attention FLOPs per layer per token² and where it came from.
    pub attn_coeff: f64,
    pub attn_coeff_from: Cow<'static, str>,
    /// Prompts per second (the ceiling).
    pub prompts_per_s: Figure,
    /// Prompt tokens per second at that ceiling (prompts/s × seq_len).
    pub tokens_per_s: Figure,
    /// Fraction of the prefill FLOPs that is attention's quadratic term.
    pub attention_share: f64,
}

/// Ridge batch and the aggregate decode ceiling there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ridge {
    /// Batch at which decode turns compute-bound.
    pub batch: Figure,
    /// Aggregate decode tok/s at the ridge (= decode ceiling × ridge batch = FLOPs / (2 ×
    /// active params)).
    pub aggregate_tps: Figure,
}

/// How many requests fit at one context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Concurrency {
    pub context: u64,
    /// "--context" or "--max-model-len".
    pub context_from: Cow<'static, str>,
    pub bytes_per_sequence: Figure,
    pub max_sequences: Figure,
}

/// The smallest TP that fits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinTp {
    /// `None`: not within 64 GPUs.
    pub tp: Option<u32>,
    /// What "fits" required.
    pub requirement: String,
}

/// Weights against VRAM, and the KV pool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    /// VRAM of the TP group.
    pub vram: Figure,
    /// VRAM × gpu-memory-utilization.
    pub usable: Figure,
    pub weights: Figure,
    /// usable − weights; negative when the weights do not fit.
    pub kv_pool: Figure,
    /// The weights fit in `usable`.
    pub fits: bool,
    pub kv_pool_tokens: Known<Figure>,
    pub concurrency: Known<Concurrency>,
    pub min_tp: MinTp,
}

/// Dollars per million output tokens at the ceilings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cost {
    /// $/hour for the TP group (price per GPU-hour × tp).
    pub per_hour: Figure,
    /// At the one-sequence decode ceiling.
    pub per_million_at_decode: Figure,
    /// At the aggregate decode ceiling at the ridge batch.
    pub per_million_at_ridge: Known<Figure>,
}

/// Every ceiling for one GPU type × model × deployment: the figures that need the GPU, and the
/// GPU-free model figures they rest on. Reads through to [`GpuFigures`] (`c.decode_tps`).
#[derive(Debug, Clone, PartialEq)]
pub struct Ceilings {
    /// The GPU-free figures. A document puts them beside the GPU figures (they exist even when
    /// the GPU is unknown), so they are not part of [`GpuFigures`].
    pub model: ModelFigures,
    pub figures: GpuFigures,
}

impl std::ops::Deref for Ceilings {
    type Target = GpuFigures;
    fn deref(&self) -> &GpuFigures {
        &self.figures
    }
}

/// The figures of [`Ceilings`] that need the GPU: what a `headroom.ceiling/1` document carries
/// under `ceilings`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuFigures {
    pub gpu: String,
    pub tp: u32,
    /// The TP scaling assumption, shown whenever tp > 1.
    pub tp_assumption: Option<String>,
    /// Bandwidth of the TP group, GB/s.
    pub bandwidth: Figure,
    pub bandwidth_source: String,
    pub compute: Known<ComputeRate>,
    /// One-sequence decode ceiling, tok/s.
    pub decode_tps: Figure,
    pub prefill: Known<Prefill>,
    pub ridge: Known<Ridge>,
    pub memory: Memory,
    pub cost: Known<Cost>,
}

/// The tensor rate for a compute class, falling back (with the reason) where the part lacks
/// it: FP4/FP8 weights without those tensor cores run at the 16-bit rate; a part without a
/// 16-bit tensor rate (Tesla P40) uses its FP32 vector rate. Unknown when the GPU entry gives
/// neither.
pub fn compute_rate(gpu: &Gpu, class: ComputeClass, tp: u32) -> Known<ComputeRate> {
    let base = match (&gpu.bf16_tflops, &gpu.fp32_tflops) {
        (Some(s), _) => ("BF16", s, None),
        (None, Some(s)) => (
            "FP32",
            s,
            Some(format!(
                "{} has no 16-bit tensor rate: its FP32 vector rate stands in",
                gpu.name
            )),
        ),
        (None, None) => {
            return Known::unknown(format!(
                "{}: no BF16 or FP32 TFLOPS in the catalog",
                gpu.name
            ))
        }
    };
    let lower = |what: &str| {
        let (p, s, _) = base;
        let note = format!(
            "{} has no {what} tensor cores: these weights run at the {p} rate",
            gpu.name
        );
        (p, s, Some(note))
    };
    let (precision, s, note) = match class {
        ComputeClass::Fp4 => match &gpu.fp4_tflops {
            Some(s) => ("FP4", s, None),
            None => lower("FP4"),
        },
        ComputeClass::Fp8 => match &gpu.fp8_tflops {
            Some(s) => ("FP8", s, None),
            None => lower("FP8"),
        },
        ComputeClass::Bf16 => base,
    };
    Known::Known(ComputeRate {
        precision: Cow::Borrowed(precision),
        tflops: Figure::new(
            s.value * f64::from(tp),
            "TFLOPS",
            Provenance::Catalog,
            Mark::Exact,
        ),
        source: s.source.clone(),
        note,
    })
}

/// Ridge batch B* and the aggregate decode ceiling there.
///
/// Derivation. One decode step at batch B reads the active weights once,
/// `W = P × b` bytes (P active params, b bytes per param), taking `W / BW` seconds, and does
/// `2 × P × B` FLOPs (a multiply and an add per weight per sequence), taking `2PB / F` seconds.
/// Decode stays memory-bound while `2PB / F < P·b / BW`; the two meet at
///
/// ```text
///     B* = (F / BW) × (b / 2)        F in FLOP/s, BW in bytes/s, b in bytes/param
/// ```
///
/// i.e. the GPU's FLOP-per-byte ratio against the FLOPs one weight byte feeds per sequence
/// (2 / b). P cancels, and so does tp (both F and BW scale with it). H100 SXM, bf16:
/// 989e12 / 3.35e12 × 2 / 2 = 295; with 4-bit weights on the 16-bit rate: 73.8.
///
/// At B*, aggregate decode = decode_ceiling × B* = (BW / (P·b)) × (F·b / (2·BW)) = F / (2P): the
/// compute roof. KV reads are left out (they lower the real knee at long contexts). For MoE a
/// batch touches more experts than one token does, so the batch where an MoE server actually
/// turns compute-bound is larger than B*; the aggregate roof F / (2 × active params) still holds.
pub fn ridge_batch(tflops: f64, bandwidth_gbps: f64, bytes_per_param: f64) -> f64 {
    (tflops * 1e12) / (bandwidth_gbps * 1e9) * bytes_per_param / 2.0
}

/// Decode ceiling, tok/s: bandwidth × tp × 8e9 / (active params × bits).
pub fn decode_ceiling(bandwidth_gbps: f64, tp: u32, active_params: f64, bits: f64) -> f64 {
    bandwidth_gbps * f64::from(tp) * 8e9 / (active_params * bits)
}

/// Prefill ceiling, prompts/s: TFLOPS × tp × 1e12 / (2 × P × s + attn_coeff × layers × s²).
pub fn prefill_ceiling(
    tflops: f64,
    tp: u32,
    params: f64,
    seq_len: f64,
    attn_coeff: f64,
    layers: f64,
) -> f64 {
    tflops * f64::from(tp) * 1e12
        / (2.0 * params * seq_len + attn_coeff * layers * seq_len * seq_len)
}

/// Dollars per million tokens at `tokens_per_s`: cost_per_hr × 1e6 / (tok/s × 3600).
pub fn cost_per_million(cost_per_hour: f64, tokens_per_s: f64) -> f64 {
    cost_per_hour * 1e6 / (tokens_per_s * 3600.0)
}

/// The attention coefficient and where it came from.
pub fn attn_coeff(model: &ModelSpec) -> (f64, &'static str) {
    if let Some(c) = model.attn_coeff {
        return match model.provenance {
            Provenance::ModelFile => (
                c,
                "model file shape (2 × heads × head_dim; window layers excluded)",
            ),
            _ => (c, "catalog"),
        };
    }
    match (model.attention, model.hidden) {
        (Some(Attention::Mha | Attention::Gqa), Some(h)) => {
            (2.0 * h as f64, "2 × hidden (MHA/GQA)")
        }
        _ => (
            0.0,
            "linear-only (no attention coefficient for this layout)",
        ),
    }
}

impl Ceilings {
    /// All ceilings for `gpu` × `model` under `opts`. Errors only on invalid options.
    pub fn compute(gpu: &Gpu, model: &ModelSpec, opts: &Options) -> Result<Ceilings, PhysicsError> {
        let mf = ModelFigures::compute(model, opts)?;
        let tp = opts.tp;
        let bw = gpu.bandwidth_gbps.value * f64::from(tp);
        let bandwidth = Figure::new(bw, "GB/s", Provenance::Catalog, Mark::Exact);
        let compute = compute_rate(gpu, mf.bits.compute, tp);
        let ceiling_prov = Provenance::derive(&[mf.decode_stream.provenance]);
        let stream_bits = mf.stream_bits.value;

        let decode = decode_ceiling(
            gpu.bandwidth_gbps.value,
            tp,
            model.params_active,
            stream_bits,
        );
        let decode_tps = Figure::new(decode, "tok/s", ceiling_prov, Mark::Est);

        let ridge = compute.as_ref().map(|c| {
            let b_star = ridge_batch(c.tflops.value, bw, stream_bits / 8.0);
            Ridge {
                batch: Figure::new(b_star, "sequences", ceiling_prov, Mark::Est),
                aggregate_tps: Figure::new(decode * b_star, "tok/s", ceiling_prov, Mark::Approx),
            }
        });
        let prefill = match compute.get() {
            Some(c) => prefill_figures(model, opts, c.tflops.value, ceiling_prov),
            None => Known::unknown(compute.reason().unwrap_or_default().to_string()),
        };
        let memory = memory(gpu, model, opts, &mf)?;
        let cost = match opts.price_per_hour {
            None => Known::unknown("no --price-per-hour given"),
            Some(p) => {
                let per_hour = p * f64::from(tp);
                let approx =
                    |v: f64| Figure::new(v, "$/1M tokens", Provenance::Derived, Mark::Approx);
                let at_ridge = match ridge.get() {
                    Some(r) => {
                        Known::Known(approx(cost_per_million(per_hour, r.aggregate_tps.value)))
                    }
                    None => Known::unknown(ridge.reason().unwrap_or_default().to_string()),
                };
                Known::Known(Cost {
                    per_hour: Figure::new(per_hour, "$/h", Provenance::EngineFlag, Mark::Exact),
                    per_million_at_decode: approx(cost_per_million(per_hour, decode)),
                    per_million_at_ridge: at_ridge,
                })
            }
        };
        let tp_assumption = (tp > 1).then(|| {
            format!(
                "tp {tp}: bandwidth, FLOPs and VRAM × {tp}, assuming weights shard evenly and the \
                 interconnect costs nothing (an upper bound)"
            )
        });
        Ok(Ceilings {
            figures: GpuFigures {
                gpu: gpu.name.clone(),
                tp,
                tp_assumption,
                bandwidth,
                bandwidth_source: gpu.bandwidth_gbps.source.clone(),
                compute,
                decode_tps,
                prefill,
                ridge,
                memory,
                cost,
            },
            model: mf,
        })
    }
}

fn prefill_figures(
    model: &ModelSpec,
    opts: &Options,
    flops: f64,
    prov: Provenance,
) -> Known<Prefill> {
    let (s, s_prov, from) = match (&opts.prompt_tokens, opts.max_model_len) {
        (Some(p), _) => (p.value, p.provenance, "prompt tokens"),
        (None, Some(l)) => (l as f64, Provenance::EngineFlag, "--max-model-len"),
        (None, None) => {
            return Known::unknown(
                "no prompt length: give --prompt-tokens (mean prompt) or --max-model-len",
            )
        }
    };
    let (coeff, coeff_from) = attn_coeff(model);
    let (coeff, coeff_from, layers) = match model.layers {
        Some(l) => (coeff, coeff_from, l as f64),
        None => (0.0, "linear-only (layer count unknown)", 0.0),
    };
    let p = model.params_active;
    let linear = 2.0 * p * s;
    let quad = coeff * layers * s * s;
    let pps = prefill_ceiling(flops, 1, p, s, coeff, layers);
    let prov = Provenance::derive(&[prov, s_prov]);
    Known::Known(Prefill {
        seq_len: Figure::new(s, "tokens", s_prov, Mark::Exact),
        seq_len_from: Cow::Borrowed(from),
        attn_coeff: coeff,
        attn_coeff_from: Cow::Borrowed(coeff_from),
        prompts_per_s: Figure::new(pps, "prompts/s", prov, Mark::Est),
        tokens_per_s: Figure::new(pps * s, "tok/s", prov, Mark::Approx),
        attention_share: quad / (linear + quad),
    })
}

/// Largest number of GPUs [`MinTp`] searches (powers of two; beyond 8 a replica spans nodes).
pub const MAX_TP: u32 = 64;

fn memory(
    gpu: &Gpu,
    model: &ModelSpec,
    opts: &Options,
    mf: &ModelFigures,
) -> Result<Memory, PhysicsError> {
    let util = opts.gpu_memory_utilization;
    let per_gpu = gpu.memory_bytes();
    let tp = opts.tp;
    let vram = per_gpu * f64::from(tp);
    let usable = vram * util;
    let weights = mf.weight_footprint.value;
    let pool = usable - weights;
    let prov = mf.weight_footprint.provenance;
    let pool_prov = Provenance::derive(&[prov]);
    let (context, context_from) = match (opts.context, opts.max_model_len) {
        (Some(c), _) => (Some(c), "--context"),
        (None, Some(l)) => (Some(l), "--max-model-len"),
        (None, None) => (None, ""),
    };
    let fits = pool > 0.0;
    let kv_pool_tokens = match (&mf.kv, fits) {
        (Known::Unknown { reason }, _) => Known::unknown(format!("KV size unknown: {reason}")),
        (_, false) => Known::unknown("the weights do not fit: no KV pool"),
        (Known::Known(kv), true) => Known::Known(Figure::new(
            pool / kv.bytes_per_token.value,
            "tokens",
            pool_prov,
            Mark::Approx,
        )),
    };
    let concurrency = match (&mf.kv, context, fits) {
        (Known::Unknown { reason }, _, _) => Known::unknown(format!("KV size unknown: {reason}")),
        (_, None, _) => Known::unknown("no context: give --context or --max-model-len"),
        (_, _, false) => Known::unknown("the weights do not fit"),
        (Known::Known(kv), Some(c), true) => {
            let per_seq = kv.bytes_per_sequence(c);
            Known::Known(Concurrency {
                context: c,
                context_from: Cow::Borrowed(context_from),
                bytes_per_sequence: Figure::new(per_seq, "bytes", pool_prov, Mark::Exact),
                max_sequences: Figure::new(
                    (pool / per_seq).floor(),
                    "sequences",
                    pool_prov,
                    Mark::Approx,
                ),
            })
        }
    };
    // Smallest TP whose pool holds the weights and, when a context is known, one request of it.
    let min_tp = {
        let mut found = None;
        let mut t = 1;
        let mut kv_unknown = None;
        while t <= MAX_TP {
            let pool_t = per_gpu * f64::from(t) * util - weights;
            let need = match (context, kv_cache(model, opts.kv_cache_dtype.as_deref(), t)?) {
                (Some(c), Known::Known(kv)) => kv.bytes_per_sequence(c),
                (Some(_), Known::Unknown { reason }) => {
                    kv_unknown = Some(reason);
                    0.0
                }
                (None, _) => 0.0,
            };
            if pool_t > need {
                found = Some(t);
                break;
            }
            t *= 2;
        }
        let requirement = match (context, kv_unknown) {
            (Some(c), None) => format!(
                "weights + one {c}-token request within {util} × {} GiB per GPU",
                sig(gpu.memory_gib.value, 3)
            ),
            _ => format!(
                "weights within {util} × {} GiB per GPU",
                sig(gpu.memory_gib.value, 3)
            ),
        };
        MinTp {
            tp: found,
            requirement,
        }
    };
    Ok(Memory {
        vram: Figure::new(vram, "bytes", Provenance::Catalog, Mark::Exact),
        usable: Figure::new(usable, "bytes", Provenance::Derived, Mark::Exact),
        weights: mf.weight_footprint.clone(),
        kv_pool: Figure::new(pool, "bytes", pool_prov, Mark::Approx),
        fits,
        kv_pool_tokens,
        concurrency,
        min_tp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::provenance::sig;
    use crate::spec::FileBytes;

    fn cat() -> Catalog {
        Catalog::embedded().unwrap()
    }

    fn run(gpu: &str, model: &str, opts: Options) -> Ceilings {
        let c = cat();
        let g = c.gpu(gpu).unwrap().entry;
        let m = ModelSpec::from_catalog(c.model(model).unwrap().entry);
        Ceilings::compute(g, &m, &opts).unwrap()
    }

    fn s3(v: f64) -> String {
        sig(v, 3)
    }

    const P8B: f64 = 8_030_261_248.0;

    /// The ceiling formulas, as bare functions, against hand-worked values.
    #[test]
    fn spec_001_formulas() {
        // decode = bw × tp × 8e9 / (params × bits)
        let decode: &[(f64, u32, f64, f64, &str)] = &[
            (3350.0, 1, P8B, 16.0, "209"),
            (3350.0, 1, P8B, 8.0, "417"),
            (3350.0, 2, P8B, 16.0, "417"),
            (936.0, 1, 134_515_008.0, 16.0, "3480"),
            (1000.0, 1, 1e9, 4.0, "2000"),
        ];
        for &(bw, tp, p, b, want) in decode {
            assert_eq!(s3(decode_ceiling(bw, tp, p, b)), want, "{bw} {tp} {p} {b}");
        }
        // prefill = F × tp × 1e12 / (2 P s + c L s²)
        let prefill: &[(f64, u32, f64, f64, f64, f64, &str)] = &[
            // H100 bf16, Llama 3.1 8B, 2048 tokens, 2 × 4096, 32 layers.
            (989.0, 1, P8B, 2048.0, 8192.0, 32.0, "29.1"),
            // Linear-only: 1e15 / (2 × 1e9 × 1000) = 500.
            (1000.0, 1, 1e9, 1000.0, 0.0, 32.0, "500"),
            // The quadratic term: 1e15 / (2e12 + 1e5 × 10 × 1e6) = 1e15 / 3e12 = 333.
            (1000.0, 1, 1e9, 1000.0, 100_000.0, 10.0, "333"),
            (1000.0, 4, 1e9, 1000.0, 100_000.0, 10.0, "1330"),
        ];
        for &(f, tp, p, s, c, l, want) in prefill {
            assert_eq!(s3(prefill_ceiling(f, tp, p, s, c, l)), want);
        }
        // ridge = F / BW × bytes_per_param / 2
        assert_eq!(s3(ridge_batch(989.0, 3350.0, 2.0)), "295");
        assert_eq!(s3(ridge_batch(989.0, 3350.0, 0.5)), "73.8");
        assert_eq!(s3(ridge_batch(1979.0, 3350.0, 1.0)), "295");
        // cost = $/h × 1e6 / (tok/s × 3600)
        assert_eq!(s3(cost_per_million(2.5, 208.586)), "3.33");
        assert_eq!(s3(cost_per_million(3.6, 1000.0)), "1");
    }

    #[test]
    fn h100_llama_8b_bf16() {
        let c = run(
            "H100-SXM",
            "llama-3.1-8b",
            Options {
                prompt_tokens: Some(Figure::new(
                    2048.0,
                    "tokens",
                    Provenance::EngineFlag,
                    Mark::Exact,
                )),
                context: Some(8192),
                price_per_hour: Some(2.5),
                ..Options::default()
            },
        );
        assert_eq!(c.model.bits.source, crate::BitsSource::CatalogDefault);
        // 3350 GB/s × 8e9 / (7.505e9 read per token × 16 bits): the 0.525e9 untied input
        // embedding is a row lookup.
        assert_eq!(c.decode_tps.render(), "223 tok/s (est)");
        assert_eq!(c.decode_tps.provenance, Provenance::Derived);
        let p = c.prefill.get().unwrap();
        assert_eq!(s3(p.prompts_per_s.value), "31.1");
        assert_eq!(p.attn_coeff, 8192.0);
        assert_eq!(p.attn_coeff_from, "2 × hidden (MHA/GQA)");
        assert_eq!(s3(p.attention_share * 100.0), "3.45");
        let r = c.ridge.get().unwrap();
        assert_eq!(s3(r.batch.value), "295");
        assert_eq!(r.aggregate_tps.render(), "~65,900 tok/s");
        assert_eq!(c.compute.get().unwrap().precision, "BF16");
        // 80 GiB × 0.9 − 16.06 GB = 61.2 GB of KV at 131,072 B/token.
        let m = &c.memory;
        assert!(m.fits);
        assert_eq!(s3(m.weights.value / 1e9), "16.1");
        assert_eq!(s3(m.kv_pool.value / 1e9), "61.2");
        assert_eq!(s3(m.kv_pool_tokens.get().unwrap().value), "467,000");
        let conc = m.concurrency.get().unwrap();
        assert_eq!((conc.context, &*conc.context_from), (8192, "--context"));
        assert_eq!(conc.max_sequences.value, 57.0);
        assert_eq!(m.min_tp.tp, Some(1));
        let cost = c.cost.get().unwrap();
        assert_eq!(s3(cost.per_million_at_decode.value), "3.11");
        assert_eq!(s3(cost.per_million_at_ridge.get().unwrap().value), "0.0105");
        assert_eq!(c.tp_assumption, None);
    }

    /// TP scales bandwidth and FLOPs (so decode and prefill), leaves the ridge where it is,
    /// splits nothing off the KV bytes per token (8 heads over 2 GPUs), and says so.
    #[test]
    fn tp_scaling() {
        let o = |tp| Options {
            tp,
            max_model_len: Some(4096),
            ..Options::default()
        };
        let one = run("H100-SXM", "llama-3.1-8b", o(1));
        let two = run("H100-SXM", "llama-3.1-8b", o(2));
        assert_eq!(two.decode_tps.value, 2.0 * one.decode_tps.value);
        let pp = |c: &Ceilings| c.prefill.get().unwrap().prompts_per_s.value;
        assert!((pp(&two) / pp(&one) - 2.0).abs() < 1e-12);
        assert!(
            (two.ridge.get().unwrap().batch.value - one.ridge.get().unwrap().batch.value).abs()
                < 1e-9
        );
        assert_eq!(two.memory.vram.value, 2.0 * one.memory.vram.value);
        assert!(two.tp_assumption.as_ref().unwrap().contains("× 2"));
        let kv = |c: &Ceilings| c.model.kv.get().unwrap().bytes_per_token.value;
        assert_eq!(kv(&one), kv(&two));
    }

    #[test]
    fn dtype_and_quantization_flags() {
        let fp8 = run(
            "H100-SXM",
            "llama-3.1-8b",
            Options {
                dtype: Some("fp8".into()),
                ..Options::default()
            },
        );
        assert_eq!(s3(fp8.decode_tps.value), "446");
        assert_eq!(fp8.model.bits.source, crate::BitsSource::DtypeFlag);
        assert_eq!(fp8.compute.get().unwrap().precision, "FP8");
        // The ridge does not move: FP8 doubles both the FLOPs and the tokens per byte.
        assert_eq!(s3(fp8.ridge.get().unwrap().batch.value), "295");
        // AWQ: 4 bits at the 16-bit rate: the ridge falls to a quarter.
        let awq = run(
            "H100-SXM",
            "llama-3.1-8b",
            Options {
                quantization: Some("awq".into()),
                dtype: Some("fp8".into()),
                ..Options::default()
            },
        );
        assert_eq!(awq.model.bits.source, crate::BitsSource::QuantizationFlag);
        assert_eq!(s3(awq.ridge.get().unwrap().batch.value), "73.8");
        assert!(awq
            .model
            .bits
            .notes
            .iter()
            .any(|n| n.contains("--dtype 'fp8' ignored")));
        // FP8 on a part without FP8 tensor cores: BF16 rate, said so.
        let a100 = run(
            "A100-SXM4-80GB",
            "llama-3.1-8b",
            Options {
                quantization: Some("fp8".into()),
                ..Options::default()
            },
        );
        let cr = a100.compute.get().unwrap();
        assert_eq!(cr.precision, "BF16");
        assert!(cr.note.as_ref().unwrap().contains("no FP8"));
    }

    #[test]
    fn no_prompt_length_means_no_prefill_ceiling() {
        let c = run("H100-SXM", "llama-3.1-8b", Options::default());
        let why = c.prefill.reason().unwrap();
        assert!(
            why.contains("--prompt-tokens") && why.contains("--max-model-len"),
            "{why}"
        );
        assert!(c.memory.concurrency.reason().unwrap().contains("--context"));
        assert!(c.cost.reason().unwrap().contains("--price-per-hour"));
        // --max-model-len stands in for the prompt length.
        let c = run(
            "H100-SXM",
            "llama-3.1-8b",
            Options {
                max_model_len: Some(2048),
                ..Options::default()
            },
        );
        let p = c.prefill.get().unwrap();
        assert_eq!(
            (p.seq_len.value, &*p.seq_len_from),
            (2048.0, "--max-model-len")
        );
        assert_eq!(s3(p.prompts_per_s.value), "31.1");
    }

    /// The attention coefficient: catalog, else 2 × hidden for MHA/GQA, else linear-only.
    #[test]
    fn attention_coefficient_chain() {
        let c = cat();
        let spec = |id: &str| ModelSpec::from_catalog(c.model(id).unwrap().entry);
        assert_eq!(attn_coeff(&spec("qwen3-32b")), (16384.0, "catalog"));
        assert_eq!(
            attn_coeff(&spec("llama-3.1-70b")),
            (16384.0, "2 × hidden (MHA/GQA)")
        );
        let mut mla = spec("deepseek-v3");
        assert_eq!(attn_coeff(&mla).0, 40960.0);
        mla.attn_coeff = None;
        let (c0, from) = attn_coeff(&mla);
        assert_eq!(c0, 0.0);
        assert!(from.starts_with("linear-only"));
        // Long prompts: the quadratic term takes over and the ceiling falls faster than 1/s.
        let o = |s: f64| Options {
            prompt_tokens: Some(Figure::new(s, "tokens", Provenance::Measured, Mark::Exact)),
            ..Options::default()
        };
        let pp = |s| {
            run("H100-SXM", "llama-3.1-8b", o(s))
                .prefill
                .get()
                .unwrap()
                .clone()
        };
        let (short, long) = (pp(1000.0), pp(32000.0));
        assert!(long.attention_share > 0.3 && short.attention_share < 0.02);
        assert!(long.tokens_per_s.value < short.tokens_per_s.value * 0.75);
        assert_eq!(long.seq_len.provenance, Provenance::Measured);
    }

    #[test]
    fn weights_that_do_not_fit() {
        let c = run(
            "H100-SXM",
            "llama-3.1-70b",
            Options {
                context: Some(8192),
                ..Options::default()
            },
        );
        assert!(!c.memory.fits);
        assert_eq!(s3(c.memory.weights.value / 1e9), "141");
        assert!(c
            .memory
            .kv_pool_tokens
            .reason()
            .unwrap()
            .contains("do not fit"));
        // tp 2: 154.6 GB usable − 141.1 GB of weights holds one 8192-token request (2.68 GB).
        assert_eq!(c.memory.min_tp.tp, Some(2));
        assert!(c.memory.min_tp.requirement.contains("8192-token"));
        // 405B bf16 needs 16 H100s (812 GB vs 618 GB on 8).
        let c = run("H100-SXM", "llama-3.1-405b", Options::default());
        assert_eq!(c.memory.min_tp.tp, Some(16));
        // DeepSeek-V3 (fp8, 671 GB) on 24 GB cards: 32 of them; in bf16 on 16 GB cards, not
        // within 64.
        let c = run("RTX-3090", "deepseek-v3", Options::default());
        assert_eq!(c.memory.min_tp.tp, Some(32));
        let bf16 = Options {
            dtype: Some("bf16".into()),
            ..Options::default()
        };
        let c = run("RX 9070 XT", "deepseek-v3", bf16);
        assert_eq!(c.memory.min_tp.tp, None);
    }

    #[test]
    fn bf16_fallback_is_labelled() {
        let c = cat();
        let mut m = ModelSpec::from_catalog(c.model("llama-3.1-8b").unwrap().entry);
        m.dtype = None;
        let g = c.gpu("H100-SXM").unwrap().entry;
        let r = Ceilings::compute(g, &m, &Options::default()).unwrap();
        assert_eq!(r.model.bits.source, crate::BitsSource::Fallback);
        assert_eq!(r.decode_tps.provenance, Provenance::Fallback);
        assert_eq!(r.model.weight_footprint.provenance, Provenance::Fallback);
        assert_eq!(s3(r.decode_tps.value), "223");
    }

    /// gpt-oss: MXFP4 experts, BF16 elsewhere. Footprint 60.7 GiB (the checkpoint is 60.8 GiB);
    /// the decode stream averages 7.79 bits per active param.
    #[test]
    fn mixed_expert_format() {
        let c = run("H100-SXM", "gpt-oss-120b", Options::default());
        let mf = &c.model;
        assert_eq!(mf.bits.expert_format.as_deref(), Some("mxfp4"));
        assert_eq!(s3(mf.weight_footprint.value / crate::catalog::GIB), "60.7");
        assert_eq!(s3(mf.stream_bits.value), "7.79");
        assert_eq!(s3(c.decode_tps.value), "671");
        // MXFP4 named for it is llama.cpp's MXFP4_MOE file: MXFP4 experts, Q8_0 elsewhere.
        // ggml-org's gpt-oss-120b MXFP4 GGUF is 59.02 GiB (as llama-bench prints its size).
        let c = run(
            "H100-SXM",
            "gpt-oss-120b",
            Options {
                quantization: Some("mxfp4".into()),
                ..Options::default()
            },
        );
        assert_eq!(c.model.bits.expert_bits, Some(4.25));
        let gib = c.model.weight_footprint.value / crate::catalog::GIB;
        assert!((gib / 59.02 - 1.0).abs() < 0.01, "{gib}");
        // A format that is not a GGUF file type applies to every weight.
        let c = run(
            "H100-SXM",
            "gpt-oss-120b",
            Options {
                quantization: Some("fp8".into()),
                ..Options::default()
            },
        );
        assert_eq!(c.model.stream_bits.value, 8.0);
        assert_eq!(c.model.bits.expert_bits, None);
    }

    /// MoE: the footprint uses total params, the decode stream active params.
    #[test]
    fn moe_footprint_vs_stream() {
        let c = run("H200", "qwen3-30b-a3b", Options::default());
        assert_eq!(s3(c.model.weight_footprint.value / 1e9), "61");
        assert_eq!(s3(c.model.decode_stream.value / 1e9), "6.08");
        // 4800 × 8e9 / (3.04e9 × 16) = 789 tok/s.
        assert_eq!(s3(c.decode_tps.value), "789");
    }

    /// A model file's exact bytes win over params × bits.
    #[test]
    fn model_file_bytes() {
        let c = cat();
        let mut m = ModelSpec::from_catalog(c.model("smollm2-135m").unwrap().entry);
        m.provenance = Provenance::ModelFile;
        m.dtype = None;
        m.file_bytes = Some(FileBytes {
            weight_bytes: 90_000_000,
            active_bytes: 84_000_000,
        });
        let g = c.gpu("RTX-3090").unwrap().entry;
        let r = Ceilings::compute(g, &m, &Options::default()).unwrap();
        assert_eq!(r.model.bits.source, crate::BitsSource::ModelFile);
        assert_eq!(r.model.weight_footprint.value, 90e6);
        assert_eq!(r.model.decode_stream.value, 84e6);
        assert_eq!(r.model.decode_stream.provenance, Provenance::Derived);
        // 936 GB/s / 84 MB = 11,143 tok/s.
        assert_eq!(s3(r.decode_tps.value), "11,100");
    }

    #[test]
    fn p40_prefill_uses_fp32() {
        let c = run(
            "P40",
            "llama-3.1-8b",
            Options {
                max_model_len: Some(1024),
                ..Options::default()
            },
        );
        let cr = c.compute.get().unwrap();
        assert_eq!(cr.precision, "FP32");
        assert!(cr.note.as_ref().unwrap().contains("no 16-bit tensor rate"));
        assert_eq!(s3(c.decode_tps.value), "23.1");
    }

    #[test]
    fn invalid_options_are_errors() {
        let c = cat();
        let g = c.gpu("H100-SXM").unwrap().entry;
        let m = ModelSpec::from_catalog(c.model("llama-3.1-8b").unwrap().entry);
        for (o, what) in [
            (
                Options {
                    tp: 0,
                    ..Options::default()
                },
                "--tp",
            ),
            (
                Options {
                    gpu_memory_utilization: 1.5,
                    ..Options::default()
                },
                "utilization",
            ),
            (
                Options {
                    max_model_len: Some(0),
                    ..Options::default()
                },
                "--max-model-len",
            ),
            (
                Options {
                    dtype: Some("int3".into()),
                    ..Options::default()
                },
                "--dtype 'int3'",
            ),
            (
                Options {
                    kv_cache_dtype: Some("int3".into()),
                    ..Options::default()
                },
                "kv-cache-dtype",
            ),
            (
                Options {
                    price_per_hour: Some(-1.0),
                    ..Options::default()
                },
                "--price-per-hour",
            ),
        ] {
            let e = Ceilings::compute(g, &m, &o).unwrap_err();
            assert!(e.to_string().contains(what), "{e}");
        }
    }
}
