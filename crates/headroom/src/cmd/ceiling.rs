//! `headroom ceiling`: the fastest this hardware could serve this model, from physics.
//!
//! The math lives in the `physics` crate; this file turns flags into `physics::Options`, a
//! catalog entry or a GGUF file into a `physics::ModelSpec`, and prints the answer as JSON
//! (docs/json/ceiling.md) or through `render::ceiling`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use physics::doc::{CeilingDoc, DutyDoc, ListDoc, RamDoc, RamRequest};
use physics::offload::{self, DutyInputs, RamInputs};
use physics::provenance::{Figure, Known, Mark};
use physics::{Catalog, Gpu, ModelSpec, Options, Provenance};
use serde::Serialize;

use crate::output::{emit, Exit};

/// Prints a document with its keys in alphabetical order (through `serde_json::Value`), as
/// docs/json/ceiling.md promises and version 1 has always printed them.
fn print_json(doc: &impl Serialize) -> Result<()> {
    let v = serde_json::to_value(doc)?;
    emit(&format!("{}\n", serde_json::to_string_pretty(&v)?))?;
    Ok(())
}

#[derive(clap::Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = "\
Decode is bandwidth-bound: bandwidth × tp × 8e9 / (active params × bits). Prefill is \
compute-bound with attention's quadratic term. Ceilings from published specifications print \
(est); values derived from them carry ~; a figure that cannot be known prints - and why.

Bits per parameter come from the first of: engine-reported quantization, the model file's \
tensor types (--gguf), --quantization, engine-reported dtype, --dtype, the catalog default, \
then bf16 as a labelled fallback.

Examples:
  headroom ceiling --gpu H100-SXM --model llama-3.1-8b
  headroom ceiling --gpu H100-SXM --model llama-3.1-70b --tp 2 --dtype fp8 --prompt-tokens 2048
  headroom ceiling --gpu RTX-3090 --gguf model.gguf --context 4096
  headroom ceiling --gpu L40S --model qwen3-30b-a3b --max-model-len 32768 --price-per-hour 0.9
  headroom ceiling --model deepseek-v3 --ram-bandwidth 42        # experts in host RAM
  headroom ceiling --gpu none --model llama-3.1-8b --quantization q4_k_m --ram-bandwidth 80
  headroom ceiling --gpu none --gguf model.gguf --measure         # CPU only, bandwidth measured

CPU only (--gpu none): every active weight streams from host RAM, so the decode ceiling is RAM \
bandwidth / bytes per token. Give the bandwidth measured (--measure runs `headroom membw`'s \
read plateau now; or --ram-bandwidth GBPS from `headroom membw`), not the DIMM rating: dual- \
channel DDR5-6000 is 96 GB/s on paper and often ~60-80 GB/s read.
  headroom ceiling ram --experts-per-token 240 --expert-params 35.4e6 --bits 3 \\
      --shared-gb 0.53 --bandwidth-gbps 42
  headroom ceiling duty --arena-slots 6574 --experts 24576 --miss-rate 0.73 --lookups 480 \\
      --slab-mib 2.344 --compute-ms 100 --wait-ms 400
  headroom ceiling --list                                         # what is catalogued
  headroom ceiling --list \"rx 7900\"                             # entries holding these words

JSON schemas: docs/json/ceiling.md (headroom.ceiling/1, .ram/1, .duty/1, .list/1)."
)]
pub struct Args {
    #[command(subcommand)]
    sub: Option<Sub>,
    /// GPU, named exactly (any case; spaces, dashes and the words NVIDIA, GeForce, Tesla, AMD,
    /// Radeon, Instinct optional; a trailing memory size picks a variant): H100-SXM, "rtx 3090",
    /// "A100 80GB PCIe", "Tesla V100-SXM2-32GB", MI300X. Unknown or ambiguous: an error listing
    /// the candidates, never a neighbour (M40 is not the A100 40GB).
    /// `none` (or `cpu`) for CPU-only serving, with --ram-bandwidth or --measure.
    #[arg(long, value_name = "NAME")]
    gpu: Option<String>,
    /// Catalogued model, named exactly: llama-3.1-8b, meta-llama/Llama-3.1-8B-Instruct,
    /// Qwen/Qwen3-30B-A3B, llama3.1:8b (Ollama), gpt-oss-120b. Unknown: an error (--gguf FILE,
    /// or a --catalog file entry, gives an uncatalogued model).
    #[arg(long, value_name = "NAME", conflicts_with = "gguf")]
    model: Option<String>,
    /// Take the model's figures from a GGUF file (header only; split shards are found).
    #[arg(long, value_name = "FILE")]
    gguf: Option<PathBuf>,
    /// Tensor-parallel size: bandwidth, FLOPs and VRAM scale by it (the assumption is shown).
    #[arg(long, value_name = "N", default_value_t = 1)]
    tp: u32,
    /// Weight dtype as the engine is started with it (bf16, float16, fp8, auto ...).
    #[arg(long, value_name = "DTYPE")]
    dtype: Option<String>,
    /// Weight quantization (fp8, awq, gptq, mxfp4, nvfp4, a number of bits, or any llama.cpp
    /// file type: Q4_K_M, IQ3_XXS, Q8_0 ..., sized by llama-quantize's per-tensor rules for a
    /// catalogued model's shape, else at the bits the mix averages). A model whose experts
    /// ship in MXFP4 (gpt-oss) keeps them so in every llama.cpp file type.
    #[arg(long, value_name = "NAME")]
    quantization: Option<String>,
    /// KV cache dtype (auto = 16-bit, fp8, q8_0 ...).
    #[arg(long, value_name = "DTYPE")]
    kv_cache_dtype: Option<String>,
    /// Mean prompt length for the prefill ceiling: 1500, 2k, 32k (k = 1024, M = 1024²).
    #[arg(long, value_name = "TOKENS", value_parser = crate::args::parse_tokens)]
    prompt_tokens: Option<u64>,
    /// Longest context the engine accepts: the prefill length without --prompt-tokens, and the
    /// concurrency context without --context (32768, 32k, 128k).
    #[arg(long, value_name = "TOKENS", value_parser = crate::args::parse_tokens)]
    max_model_len: Option<u64>,
    /// Fraction of VRAM the engine may use (weights + KV pool).
    #[arg(long, value_name = "FRACTION", default_value_t = 0.9)]
    gpu_memory_utilization: f64,
    /// Context per request for the max-concurrency figure (4096, 8k).
    #[arg(long, value_name = "TOKENS", value_parser = crate::args::parse_tokens)]
    context: Option<u64>,
    /// Price per GPU-hour in dollars: adds cost per 1M output tokens at the ceiling.
    #[arg(long, value_name = "USD")]
    price_per_hour: Option<f64>,
    /// Measured host RAM bandwidth (GB/s): adds the RAM-bound ceiling for experts in host RAM.
    #[arg(long, value_name = "GBPS")]
    ram_bandwidth: Option<f64>,
    /// Measure host RAM bandwidth now (`headroom membw`'s read plateau, 1 GiB) instead of
    /// --ram-bandwidth: provenance "measured".
    #[arg(long, conflicts_with = "ram_bandwidth")]
    measure: bool,
    /// With --ram-bandwidth: GB per token read from RAM besides the routed experts (default:
    /// the rest of the decode stream; 0 when attention and shared experts stay on the GPU).
    #[arg(long, value_name = "GB", requires = "ram_bandwidth")]
    shared_gb: Option<f64>,
    /// A TOML file of [[gpu]] / [[model]] entries laid over the built-in catalogs.
    #[arg(long, value_name = "FILE")]
    catalog: Option<PathBuf>,
    /// List the catalogued GPUs and models; with words, only the entries whose id, name or an
    /// alias holds them (any case, spaces and dashes ignored): --list 3090, --list "radeon pro"
    #[arg(long, value_name = "WORDS", num_args = 0..=1)]
    list: Option<Option<String>>,
    /// Print JSON (schema headroom.ceiling/1, docs/json/ceiling.md).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// Host-RAM-bound MoE ceiling from raw figures: RAM bandwidth over routed-expert bytes per
    /// token.
    #[command(after_help = "\
routed experts/token = top_k × n_layers; bytes/token = routed params × bits / 8 + shared bytes;
ceiling = RAM bandwidth / bytes per token. Measure the host's bandwidth with a multi-threaded
reader; never assume DIMM ratings.

Example (240 routed experts of 35.4M params at 3 bits + 0.53 GB shared: 3.7 GB/token, 11.3 tok/s):
  headroom ceiling ram --experts-per-token 240 --expert-params 35.4e6 --bits 3 \\
      --shared-gb 0.53 --bandwidth-gbps 42")]
    Ram(RamArgs),
    /// Expert-offload duty cycle: resident share, PCIe bytes per token, predicted GPU duty.
    #[command(after_help = "\
resident = arena slots / experts; PCIe bytes/token = miss rate × lookups × slab;
duty = compute / (compute + wait). A smooth 25-35 % utilization with 100 % peaks on an
expert-offload MoE is this structure, not a fault.

Example (6574 of 24576 experts resident ≈27 %, 821 MiB/token, 20 % duty):
  headroom ceiling duty --arena-slots 6574 --experts 24576 --miss-rate 0.73 --lookups 480 \\
      --slab-mib 2.344 --compute-ms 100 --wait-ms 400")]
    Duty(DutyArgs),
}

#[derive(clap::Args)]
struct RamArgs {
    /// Routed experts one token visits (top_k × MoE layers).
    #[arg(long, value_name = "N")]
    experts_per_token: f64,
    /// Parameters of one expert.
    #[arg(long, value_name = "N")]
    expert_params: f64,
    /// Bits per expert parameter.
    #[arg(long, value_name = "BITS")]
    bits: f64,
    /// GB per token read besides the routed experts (shared experts, attention).
    #[arg(long, value_name = "GB", default_value_t = 0.0)]
    shared_gb: f64,
    /// Measured host RAM bandwidth, GB/s.
    #[arg(long, value_name = "GBPS")]
    bandwidth_gbps: Option<f64>,
    /// Measure the bandwidth now (`headroom membw`'s read plateau, 1 GiB): provenance "measured".
    #[arg(long, conflicts_with = "bandwidth_gbps")]
    measure: bool,
    /// Print JSON (schema headroom.ceiling.ram/1).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct DutyArgs {
    /// Expert slots in the GPU arena.
    #[arg(long, value_name = "N")]
    arena_slots: f64,
    /// Experts in the model (all layers).
    #[arg(long, value_name = "N")]
    experts: f64,
    /// Fraction of lookups that miss the arena [default: 1 − resident, i.e. uniform use].
    #[arg(long, value_name = "RATE")]
    miss_rate: Option<f64>,
    /// Expert lookups per token (top_k × MoE layers).
    #[arg(long, value_name = "N")]
    lookups: f64,
    /// Size of one expert slab, MiB.
    #[arg(long, value_name = "MIB")]
    slab_mib: f64,
    /// Compute burst per decode step, ms.
    #[arg(long, value_name = "MS")]
    compute_ms: f64,
    /// Expert-gather wait per decode step, ms.
    #[arg(long, value_name = "MS")]
    wait_ms: f64,
    /// Print JSON (schema headroom.ceiling.duty/1).
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<Exit> {
    match args.sub {
        Some(Sub::Ram(r)) => run_ram(r)?,
        Some(Sub::Duty(d)) => run_duty(d)?,
        None => run_ceiling(args)?,
    }
    Ok(Exit::Ok)
}

fn run_ceiling(args: Args) -> Result<()> {
    let catalog = super::names::catalog(args.catalog.as_deref())?;
    if let Some(words) = &args.list {
        let shown = match words {
            Some(w) => catalog.holding(w),
            None => catalog.clone(),
        };
        if shown.gpus.is_empty() && shown.models.is_empty() {
            bail!(
                "no catalogued GPU or model holds '{}' (`headroom ceiling --list` lists all)",
                words.as_deref().unwrap_or_default()
            );
        }
        return list(&shown, args.json);
    }
    if args.model.is_none() && args.gguf.is_none() {
        bail!("give --model NAME or --gguf FILE (see --list for catalogued models)");
    }
    let opts = Options {
        tp: args.tp,
        quantization: args.quantization.clone(),
        dtype: args.dtype.clone(),
        kv_cache_dtype: args.kv_cache_dtype.clone(),
        prompt_tokens: args
            .prompt_tokens
            .map(|p| Figure::new(p as f64, "tokens", Provenance::EngineFlag, Mark::Exact)),
        max_model_len: args.max_model_len,
        gpu_memory_utilization: args.gpu_memory_utilization,
        context: args.context,
        price_per_hour: args.price_per_hour,
        ..Options::default()
    };

    let mut notes: Vec<String> = Vec::new();
    let cpu_only = args
        .gpu
        .as_deref()
        .is_some_and(|g| matches!(g.trim().to_lowercase().as_str(), "none" | "cpu"));
    if cpu_only && args.ram_bandwidth.is_none() && !args.measure {
        bail!(
            "--gpu none needs the host RAM bandwidth: --ram-bandwidth GBPS (from `headroom \
             membw`) or --measure"
        );
    }
    let gpu: Known<Gpu> = match &args.gpu {
        None => Known::unknown("no --gpu given"),
        Some(_) if cpu_only => Known::unknown(
            "CPU only (--gpu none): no GPU; the decode ceiling is the host-RAM-bound one",
        ),
        Some(name) => {
            let f = catalog
                .gpu(name)
                .with_context(|| format!("--gpu {name:?}"))?;
            if let Some(g) = f.loose_match {
                notes.push(format!(
                    "--gpu '{name}' taken as {g}: one entry for every GPU core count of the \
                     chip, which share its memory bandwidth (the decode ceiling holds); its \
                     compute figure is for the core count its source names, which may be more \
                     than yours"
                ));
            }
            Known::Known(f.entry.clone())
        }
    };
    let (model, model_entry): (Known<ModelSpec>, Option<physics::Model>) =
        match (&args.model, &args.gguf) {
            (Some(name), _) => {
                let f = catalog
                    .model(name)
                    .with_context(|| format!("--model {name:?}"))?;
                if let Some(m) = f.loose_match {
                    notes.push(format!("--model '{name}' taken as {m}"));
                }
                (
                    Known::Known(ModelSpec::from_catalog(f.entry)),
                    Some(f.entry.clone()),
                )
            }
            (None, Some(path)) => (Known::Known(spec_from_gguf(path, &mut notes)?), None),
            (None, None) => unreachable!("checked above"),
        };
    if let (Some(g), Some(_)) = (gpu.get(), model.get()) {
        // What llama.cpp's published runs reach on this class of card (fixtures/scoreboards).
        notes.extend(physics::scoreboard::band_note(&catalog, g));
    }
    let ram = match (args.ram_bandwidth, args.measure) {
        (None, false) => None,
        (flag, measure) => {
            let (bandwidth_gbps, provenance) = super::membw::ram_bandwidth(flag, measure)?;
            Some(RamRequest {
                bandwidth_gbps,
                shared_gb: args.shared_gb,
                provenance,
                cpu_only,
            })
        }
    };
    let doc = CeilingDoc::compute(gpu, model, model_entry, &opts, ram, notes)?;
    if args.json {
        return print_json(&doc);
    }
    emit(&render::ceiling::ceiling(&doc))
}

/// A model spec from a GGUF file's header (physics maps the facts; this reads the file).
pub(crate) fn spec_from_gguf(path: &Path, notes: &mut Vec<String>) -> Result<ModelSpec> {
    let f = gguf::read_model_facts(path)?;
    Ok(ModelSpec::from_gguf(
        &f,
        &path.display().to_string(),
        notes,
    )?)
}

fn run_ram(a: RamArgs) -> Result<()> {
    let (bandwidth_gbps, bandwidth_from) =
        super::membw::ram_bandwidth(a.bandwidth_gbps, a.measure)?;
    let mut r = offload::ram_bound(&RamInputs {
        experts_per_token: a.experts_per_token,
        params_per_expert: a.expert_params,
        bits: a.bits,
        shared_bytes: a.shared_gb * 1e9,
        bandwidth_gbps,
    })?;
    r.bandwidth.provenance = bandwidth_from;
    if a.json {
        return print_json(&RamDoc::new(r));
    }
    emit(&render::ceiling::ram(&r))
}

fn run_duty(a: DutyArgs) -> Result<()> {
    let inputs = DutyInputs {
        arena_slots: a.arena_slots,
        experts: a.experts,
        miss_rate: a.miss_rate,
        lookups: a.lookups,
        slab_mib: a.slab_mib,
        compute_ms: a.compute_ms,
        wait_ms: a.wait_ms,
    };
    let d = offload::duty(&inputs)?;
    if a.json {
        return print_json(&DutyDoc::new(d));
    }
    emit(&render::ceiling::duty(&d, &inputs))
}

fn list(c: &Catalog, as_json: bool) -> Result<()> {
    if as_json {
        return print_json(&ListDoc::new(c));
    }
    emit(&render::ceiling::list(c))
}
