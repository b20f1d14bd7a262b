//! `headroom ceiling`: the fastest this hardware could serve this model, from physics.
//!
//! The math lives in the `physics` crate; this file turns flags into `physics::Options`, a
//! catalog entry or a GGUF file into a `physics::ModelSpec`, and the answer into a table or JSON
//! (docs/json/ceiling.md).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use comfy_table::{Cell, Table};
use physics::catalog::GIB;
use physics::ceilings::{GpuFigures, ModelFigures};
use physics::doc::{CeilingDoc, DutyDoc, ListDoc, RamDoc, RamRequest};
use physics::offload::{self, DutyInputs, RamBound, RamInputs, MIB};
use physics::provenance::{render_value, sig, Figure, Known, Mark};
use physics::{
    Attention, BitsSource, Catalog, Gpu, LookupError, ModelSpec, Options, Provenance,
    UNKNOWN_CEILING,
};
use serde::Serialize;

/// Appends a line to a String (which cannot fail).
macro_rules! say {
    ($o:expr, $($t:tt)*) => {{
        let _ = writeln!($o, $($t)*);
    }};
}

use crate::output::{self, emit, Exit};

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
  headroom ceiling ram --experts-per-token 240 --expert-params 35.4e6 --bits 3 \\
      --shared-gb 0.53 --bandwidth-gbps 42
  headroom ceiling duty --arena-slots 6574 --experts 24576 --miss-rate 0.73 --lookups 480 \\
      --slab-mib 2.344 --compute-ms 100 --wait-ms 400
  headroom ceiling --list                                         # what is catalogued

JSON schemas: docs/json/ceiling.md (headroom.ceiling/1, .ram/1, .duty/1, .list/1)."
)]
pub struct Args {
    #[command(subcommand)]
    sub: Option<Sub>,
    /// GPU type, loosely named (any case, dashes optional): H100-SXM, rtx3090, "MI300X".
    #[arg(long, value_name = "NAME")]
    gpu: Option<String>,
    /// Catalogued model, loosely named: llama-3.1-8b, Qwen/Qwen3-30B-A3B, gpt-oss-120b.
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
    /// Weight quantization (fp8, awq, gptq, mxfp4, nvfp4, q4_k ..., or a number of bits).
    #[arg(long, value_name = "NAME")]
    quantization: Option<String>,
    /// KV cache dtype (auto = 16-bit, fp8, q8_0 ...).
    #[arg(long, value_name = "DTYPE")]
    kv_cache_dtype: Option<String>,
    /// Mean prompt length for the prefill ceiling.
    #[arg(long, value_name = "TOKENS")]
    prompt_tokens: Option<f64>,
    /// Longest context the engine accepts: the prefill length without --prompt-tokens, and the
    /// concurrency context without --context.
    #[arg(long, value_name = "TOKENS")]
    max_model_len: Option<u64>,
    /// Fraction of VRAM the engine may use (weights + KV pool).
    #[arg(long, value_name = "FRACTION", default_value_t = 0.9)]
    gpu_memory_utilization: f64,
    /// Context per request for the max-concurrency figure.
    #[arg(long, value_name = "TOKENS")]
    context: Option<u64>,
    /// Price per GPU-hour in dollars: adds cost per 1M output tokens at the ceiling.
    #[arg(long, value_name = "USD")]
    price_per_hour: Option<f64>,
    /// Measured host RAM bandwidth (GB/s): adds the RAM-bound ceiling for experts in host RAM.
    #[arg(long, value_name = "GBPS")]
    ram_bandwidth: Option<f64>,
    /// With --ram-bandwidth: GB per token read from RAM besides the routed experts (default:
    /// the rest of the decode stream; 0 when attention and shared experts stay on the GPU).
    #[arg(long, value_name = "GB", requires = "ram_bandwidth")]
    shared_gb: Option<f64>,
    /// A TOML file of [[gpu]] / [[model]] entries laid over the built-in catalogs.
    #[arg(long, value_name = "FILE")]
    catalog: Option<PathBuf>,
    /// List the catalogued GPUs and models.
    #[arg(long)]
    list: bool,
    /// Print JSON (schema headroom.ceiling/1, docs/json/ceiling.md).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// Host-RAM-bound MoE ceiling from raw figures (spec 000 §6).
    #[command(after_help = "\
routed experts/token = top_k × n_layers; bytes/token = routed params × bits / 8 + shared bytes;
ceiling = RAM bandwidth / bytes per token. Measure the host's bandwidth with a multi-threaded
reader; never assume DIMM ratings.

Example (spec 000 §6: 3.7 GB/token, 11.3 tok/s):
  headroom ceiling ram --experts-per-token 240 --expert-params 35.4e6 --bits 3 \\
      --shared-gb 0.53 --bandwidth-gbps 42")]
    Ram(RamArgs),
    /// Expert-offload duty cycle: resident share, PCIe bytes per token, predicted GPU duty
    /// (spec 000 §2).
    #[command(after_help = "\
resident = arena slots / experts; PCIe bytes/token = miss rate × lookups × slab;
duty = compute / (compute + wait). A smooth 25-35 % utilization with 100 % peaks on an
expert-offload MoE is this structure, not a fault.

Example (spec 000 §2: ≈27 % resident, 821 MiB/token, 20 % duty):
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
    let catalog = load_catalog(args.catalog.as_deref())?;
    if args.list {
        return list(&catalog, args.json);
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
            .map(|p| Figure::new(p, "tokens", Provenance::EngineFlag, Mark::Exact)),
        max_model_len: args.max_model_len,
        gpu_memory_utilization: args.gpu_memory_utilization,
        context: args.context,
        price_per_hour: args.price_per_hour,
        ..Options::default()
    };

    let mut notes: Vec<String> = Vec::new();
    let gpu: Known<Gpu> = match &args.gpu {
        None => Known::unknown("no --gpu given"),
        Some(name) => match catalog.gpu(name) {
            Ok(f) => {
                if let Some(m) = f.loose_match {
                    notes.push(format!("--gpu '{name}' taken as {m}"));
                }
                Known::Known(f.entry.clone())
            }
            Err(e @ LookupError::Ambiguous { .. }) => bail!("{e}"),
            Err(e) => Known::unknown(format!("{e}; add it with --catalog FILE")),
        },
    };
    let (model, model_entry): (Known<ModelSpec>, Option<physics::Model>) =
        match (&args.model, &args.gguf) {
            (Some(name), _) => match catalog.model(name) {
                Ok(f) => {
                    if let Some(m) = f.loose_match {
                        notes.push(format!("--model '{name}' taken as {m}"));
                    }
                    (
                        Known::Known(ModelSpec::from_catalog(f.entry)),
                        Some(f.entry.clone()),
                    )
                }
                Err(e @ LookupError::Ambiguous { .. }) => bail!("{e}"),
                Err(e) => (
                    Known::unknown(format!(
                        "{e}; give --gguf FILE or add it with --catalog FILE"
                    )),
                    None,
                ),
            },
            (None, Some(path)) => (Known::Known(spec_from_gguf(path, &mut notes)?), None),
            (None, None) => unreachable!("checked above"),
        };
    let ram = args.ram_bandwidth.map(|bandwidth_gbps| RamRequest {
        bandwidth_gbps,
        shared_gb: args.shared_gb,
    });
    let doc = CeilingDoc::compute(gpu, model, model_entry, &opts, ram, notes)?;
    if args.json {
        return print_json(&doc);
    }
    print_human(&doc)
}

fn load_catalog(path: Option<&Path>) -> Result<Catalog> {
    match path {
        None => Ok(Catalog::embedded()?),
        Some(p) => {
            let f = std::fs::File::open(p)
                .with_context(|| format!("reading catalog {}", p.display()))?;
            Ok(Catalog::from_user_reader(f, &p.display().to_string())?)
        }
    }
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

/// `8.03 B`, `135 M`, `4.72 M`.
fn params(v: f64) -> String {
    if v >= 1e9 {
        format!("{} B", sig(v / 1e9, 3))
    } else if v >= 1e6 {
        format!("{} M", sig(v / 1e6, 3))
    } else {
        sig(v, 3)
    }
}

fn fig(f: &Figure) -> String {
    f.render()
}

fn prov(f: &Figure) -> &'static str {
    f.provenance.label()
}

struct Rows(Table);

impl Rows {
    fn new() -> Rows {
        let mut t = output::table(vec!["figure", "value", "provenance", "basis"]);
        if t.width().is_none() {
            // Not a terminal: wrap the basis column at a width that still reads in a pager.
            t.set_width(160);
        }
        Rows(t)
    }
    fn add(&mut self, what: &str, value: String, provenance: &str, basis: String) {
        self.0.add_row(vec![
            Cell::new(what),
            Cell::new(value),
            Cell::new(provenance),
            Cell::new(basis),
        ]);
    }
    fn unknown(&mut self, what: &str, reason: &str) {
        self.add(what, "-".into(), "", reason.to_string());
    }
}

fn bits_label(f: &ModelFigures) -> String {
    let b = &f.bits;
    let main = match b.source {
        BitsSource::ModelFile => format!(
            "{} bits/param averaged over the file's active tensors",
            sig(f.stream_bits.value, 3)
        ),
        _ => format!("{} ({} bits/param)", b.format, sig(b.bits, 4)),
    };
    let experts = match (&b.expert_format, b.expert_bits) {
        (Some(n), Some(eb)) => format!(", routed experts {n} ({} bits)", sig(eb, 4)),
        _ => String::new(),
    };
    format!("{main}{experts} · source: {}", b.source.label())
}

fn print_human(doc: &CeilingDoc) -> Result<()> {
    let opts = &doc.options;
    let spec = doc.model.get();
    let figures = doc.model_figures.as_ref();
    let mut o = String::new();
    let gpu_name = doc
        .gpu
        .get()
        .map(|g| format!("{} × {}", g.name, opts.tp))
        .unwrap_or_else(|| "GPU unknown".into());
    let model_name = spec
        .map(|s| s.name.clone())
        .unwrap_or_else(|| "model unknown".into());
    say!(o, "headroom ceiling · {gpu_name} · {model_name}");
    if let Some(f) = figures {
        say!(o, "weights: {}", bits_label(f));
    }
    if let Some(reason) = doc.ceilings.reason() {
        say!(o, "{UNKNOWN_CEILING}: {reason}");
    }
    // Known ceilings imply known model figures (both need the model).
    let ceilings = match (&doc.ceilings, figures) {
        (Known::Known(c), Some(f)) => Some((c, f)),
        _ => None,
    };
    let mut t = Rows::new();
    if let Some((c, f)) = ceilings {
        ceiling_rows(&mut t, c, f, spec, opts.tp);
    }
    if let Some(f) = figures {
        model_rows(&mut t, f, spec);
    }
    if let Some((c, _)) = ceilings {
        memory_rows(&mut t, c, opts.gpu_memory_utilization);
    }
    if let Some(r) = &doc.ram_bound {
        match r {
            Known::Known(r) => ram_rows(&mut t, r, "host-RAM-bound"),
            Known::Unknown { reason } => t.unknown("host-RAM-bound ceiling", reason),
        }
    }
    if figures.is_some() {
        say!(o, "{}", t.0);
    }
    let mut all_notes: Vec<String> = doc.notes.clone();
    if let Some(f) = figures {
        all_notes.extend(f.bits.notes.iter().cloned());
        if let Some(kv) = f.kv.get() {
            all_notes.extend(kv.notes.iter().cloned());
            all_notes.extend(kv.replication.iter().cloned());
        }
    }
    if let Known::Known(c) = &doc.ceilings {
        all_notes.extend(c.tp_assumption.iter().cloned());
        if let Some(cr) = c.compute.get() {
            all_notes.extend(cr.note.iter().cloned());
        }
    }
    if let Some(Known::Known(r)) = &doc.ram_bound {
        all_notes.extend(r.notes.iter().cloned());
    }
    if let Some(m) = &doc.model_entry {
        all_notes.extend(m.note.iter().cloned());
    }
    if let Some(g) = doc.gpu.get() {
        all_notes.extend(g.note.iter().cloned());
    }
    for n in &all_notes {
        say!(o, "  · {n}");
    }
    if figures.is_some() {
        say!(
            o,
            "(est) = ceiling from published specifications; ~ = derived from one. Figure \
             sources: --json; what is catalogued: --list."
        );
    }
    emit(&o)
}

fn ceiling_rows(
    t: &mut Rows,
    c: &GpuFigures,
    model: &ModelFigures,
    spec: Option<&ModelSpec>,
    tp: u32,
) {
    let active = spec.map(|s| s.params_active).unwrap_or(0.0);
    let tp = if tp > 1 {
        format!(" × tp {tp}")
    } else {
        String::new()
    };
    let per_gpu_bw = c.bandwidth.value / f64::from(c.tp);
    t.add(
        "memory bandwidth",
        format!("{} GB/s{tp}", sig(per_gpu_bw, 4)),
        prov(&c.bandwidth),
        c.bandwidth_source.clone(),
    );
    match c.compute.get() {
        Some(cr) => t.add(
            "compute (dense)",
            format!(
                "{} TFLOPS {}{tp}",
                sig(cr.tflops.value / f64::from(c.tp), 4),
                cr.precision
            ),
            prov(&cr.tflops),
            cr.source.clone(),
        ),
        None => t.unknown("compute (dense)", c.compute.reason().unwrap_or_default()),
    }
    t.add(
        "decode ceiling (1 sequence)",
        fig(&c.decode_tps),
        prov(&c.decode_tps),
        format!(
            "{} GB/s{tp} × 8e9 / ({} active × {} bits)",
            sig(per_gpu_bw, 4),
            params(active),
            sig(model.stream_bits.value, 3)
        ),
    );
    let compute_label = c.compute.get().map(|cr| {
        format!(
            "{} TFLOPS {}{tp}",
            sig(cr.tflops.value / f64::from(c.tp), 4),
            cr.precision
        )
    });
    match c.prefill.get() {
        Some(p) => {
            let s = sig(p.seq_len.value, 4);
            t.add(
                "prefill ceiling",
                fig(&p.prompts_per_s),
                prov(&p.prompts_per_s),
                format!(
                    "{} / (2 × {} × {s} + {} × {} layers × {s}²); s from {}, coeff from {}",
                    compute_label.clone().unwrap_or_default(),
                    params(active),
                    sig(p.attn_coeff, 5),
                    spec.and_then(|s| s.layers).unwrap_or(0),
                    p.seq_len_from,
                    p.attn_coeff_from
                ),
            );
            t.add(
                "  prompt tokens/s there",
                fig(&p.tokens_per_s),
                prov(&p.tokens_per_s),
                format!(
                    "attention is {} % of the FLOPs",
                    sig(p.attention_share * 100.0, 3)
                ),
            );
        }
        None => t.unknown("prefill ceiling", c.prefill.reason().unwrap_or_default()),
    }
    match c.ridge.get() {
        Some(r) => {
            t.add(
                "ridge batch",
                fig(&r.batch),
                prov(&r.batch),
                format!(
                    "{} / {} GB/s × {} B/param / 2: decode turns compute-bound here",
                    compute_label.clone().unwrap_or_default(),
                    sig(per_gpu_bw, 4),
                    sig(model.stream_bits.value / 8.0, 3)
                ),
            );
            t.add(
                "aggregate decode at ridge",
                fig(&r.aggregate_tps),
                prov(&r.aggregate_tps),
                "decode ceiling × ridge batch = FLOPs / (2 × active params)".into(),
            );
        }
        None => t.unknown("ridge batch", c.ridge.reason().unwrap_or_default()),
    }
    if let Known::Known(cost) = &c.cost {
        let ridge = match cost.per_million_at_ridge.get() {
            Some(f) => format!(" · {} at the ridge", money(f)),
            None => String::new(),
        };
        t.add(
            "cost / 1M output tokens",
            format!(
                "{} at 1 sequence{ridge}",
                money(&cost.per_million_at_decode)
            ),
            prov(&cost.per_million_at_decode),
            format!(
                "${}/h × 1e6 / (tok/s × 3600), ${}/GPU-hour × {}",
                sig(cost.per_hour.value, 4),
                sig(cost.per_hour.value / f64::from(c.tp), 4),
                c.tp
            ),
        );
    }
}

fn money(f: &Figure) -> String {
    let v = format!("${}", sig(f.value, 3));
    match f.mark {
        Mark::Approx => format!("~{v}"),
        Mark::Est => format!("{v} (est)"),
        Mark::Exact => v,
    }
}

fn model_rows(t: &mut Rows, f: &ModelFigures, spec: Option<&ModelSpec>) {
    let bits = sig(f.stream_bits.value, 3);
    let (foot_basis, stream_basis) = match spec.and_then(|s| s.file_bytes) {
        Some(_) => (
            "tensor bytes in the file".to_string(),
            "bytes read per token (routed experts: the used share), from the file".to_string(),
        ),
        None => (
            format!(
                "{} total params × {} bits",
                params(f.params_total.value),
                sig(f.weight_footprint.value * 8.0 / f.params_total.value, 3)
            ),
            format!(
                "{} active params × {bits} bits",
                params(f.params_active.value)
            ),
        ),
    };
    t.add(
        "weight footprint",
        fig(&f.weight_footprint),
        prov(&f.weight_footprint),
        foot_basis,
    );
    t.add(
        "decode stream",
        fig(&f.decode_stream),
        prov(&f.decode_stream),
        stream_basis,
    );
    match f.kv.get() {
        Some(kv) => t.add(
            "KV cache",
            fig(&kv.bytes_per_token),
            prov(&kv.bytes_per_token),
            format!(
                "{}{}",
                kv.formula,
                kv.window
                    .map(|w| format!(
                        "; {} layers keep only a {}-token window",
                        w.layers, w.tokens
                    ))
                    .unwrap_or_default()
            ),
        ),
        None => t.unknown("KV cache", f.kv.reason().unwrap_or_default()),
    }
}

fn memory_rows(t: &mut Rows, c: &GpuFigures, gpu_memory_utilization: f64) {
    let m = &c.memory;
    let per_gpu_gib = m.vram.value / f64::from(c.tp) / GIB;
    t.add(
        "VRAM for weights + KV",
        fig(&m.usable),
        prov(&m.usable),
        format!(
            "{} × {} GiB × {}",
            c.tp,
            sig(per_gpu_gib, 4),
            gpu_memory_utilization
        ),
    );
    let pool = match m.kv_pool_tokens.get() {
        Some(tok) => format!(
            "{} · {} tokens",
            fig(&m.kv_pool),
            render_value(tok.value, "", tok.mark)
        ),
        None => fig(&m.kv_pool),
    };
    t.add(
        "KV pool",
        pool,
        prov(&m.kv_pool),
        "usable − weights; activations not modelled".into(),
    );
    match m.concurrency.get() {
        Some(cc) => t.add(
            "max concurrency",
            format!("{} at {} tokens", fig(&cc.max_sequences), cc.context),
            prov(&cc.max_sequences),
            format!(
                "KV pool / {} per request (context from {})",
                fig(&cc.bytes_per_sequence),
                cc.context_from
            ),
        ),
        None => t.unknown(
            "max concurrency",
            m.concurrency.reason().unwrap_or_default(),
        ),
    }
    let smallest = match m.min_tp.tp {
        Some(tp) => format!(
            "smallest TP {tp}{}",
            if tp > 8 {
                " (more than one 8-GPU node)"
            } else {
                ""
            }
        ),
        None => format!("not within {} GPUs", physics::ceilings::MAX_TP),
    };
    t.add(
        "fits",
        format!(
            "{} · {smallest}",
            if m.fits {
                "yes"
            } else {
                "NO: weights overflow VRAM"
            }
        ),
        "derived",
        m.min_tp.requirement.clone(),
    );
}

fn ram_rows(t: &mut Rows, r: &RamBound, label: &str) {
    if let Some(e) = &r.experts_per_token {
        t.add(
            "routed experts/token",
            render_value(e.value, "", e.mark),
            prov(e),
            "top_k × MoE layers".into(),
        );
    }
    t.add(
        "routed params/token",
        params(r.routed_params_per_token.value),
        prov(&r.routed_params_per_token),
        "experts/token × params per expert".into(),
    );
    t.add(
        "RAM bytes/token",
        // The spec's own precision (spec 000 §6: "3.7 GB/token"); the exact sum is beside it.
        format!("{:.1} GB/token", r.bytes_per_token.value / 1e9),
        prov(&r.bytes_per_token),
        format!(
            "{} routed × {} bits / 8 + {} shared ({}) = {} bytes",
            params(r.routed_params_per_token.value),
            sig(r.expert_bits.value, 3),
            fig(&r.shared_bytes_per_token),
            r.shared_from,
            sig(r.bytes_per_token.value, 4)
        ),
    );
    t.add(
        &format!("{label} ceiling"),
        fig(&r.ceiling_tps),
        prov(&r.ceiling_tps),
        format!("{} GB/s / bytes per token", sig(r.bandwidth.value, 4)),
    );
    t.add(
        "CPU compute to keep up",
        format!(
            "{} ({} FLOP/byte)",
            fig(&r.cpu_gflops_needed),
            sig(r.cpu_flops_per_byte.value, 3)
        ),
        prov(&r.cpu_gflops_needed),
        "2 FLOPs per parameter read; rarely binds below 4 bits/param".into(),
    );
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
    let mut o = String::new();
    say!(
        o,
        "headroom ceiling ram · experts in host RAM (spec 000 §6)"
    );
    let mut t = Rows::new();
    ram_rows(&mut t, &r, "RAM-bound");
    say!(o, "{}", t.0);
    say!(
        o,
        "RAM-bound ceiling: {} at {} GB/token",
        fig(&r.ceiling_tps),
        format_args!("{:.1}", r.bytes_per_token.value / 1e9)
    );
    emit(&o)
}

fn run_duty(a: DutyArgs) -> Result<()> {
    let d = offload::duty(&DutyInputs {
        arena_slots: a.arena_slots,
        experts: a.experts,
        miss_rate: a.miss_rate,
        lookups: a.lookups,
        slab_mib: a.slab_mib,
        compute_ms: a.compute_ms,
        wait_ms: a.wait_ms,
    })?;
    if a.json {
        return print_json(&DutyDoc::new(d));
    }
    let mut o = String::new();
    say!(
        o,
        "headroom ceiling duty · expert-offload duty cycle (spec 000 §2)"
    );
    let mut t = Rows::new();
    t.add(
        "resident experts",
        format!("≈{} %", d.resident.value.round()),
        prov(&d.resident),
        format!(
            "{} / {} arena slots = {} %",
            a.arena_slots,
            a.experts,
            sig(d.resident.value, 3)
        ),
    );
    t.add(
        "miss rate",
        sig(d.miss_rate.value, 3),
        prov(&d.miss_rate),
        d.miss_rate_from.to_string(),
    );
    let gb = d.pcie_bytes_per_token.value / 1e9;
    let gib = d.pcie_bytes_per_token.value / GIB;
    t.add(
        "PCIe bytes/token",
        format!("{} MiB/token", sig(d.pcie_mib_per_token, 3)),
        prov(&d.pcie_bytes_per_token),
        format!(
            "{} × {} lookups × {} MiB = {} GB = {} GiB",
            sig(d.miss_rate.value, 3),
            a.lookups,
            a.slab_mib,
            sig(gb, 3),
            sig(gib, 3)
        ),
    );
    t.add(
        "predicted GPU duty",
        format!("{} %", sig(d.predicted_duty.value, 3)),
        prov(&d.predicted_duty),
        format!(
            "{} ms / ({} + {} ms)",
            a.compute_ms, a.compute_ms, a.wait_ms
        ),
    );
    t.add(
        "decode rate",
        fig(&d.tokens_per_s),
        prov(&d.tokens_per_s),
        format!("one token per {} ms step", sig(d.step_ms.value, 4)),
    );
    match &d.gather_gbps {
        Some(g) => t.add(
            "effective gather rate",
            fig(g),
            prov(g),
            "PCIe bytes/token / wait: compare with the link's measured rate at this slab size"
                .into(),
        ),
        None => t.unknown("effective gather rate", "no wait"),
    }
    say!(o, "{}", t.0);
    say!(
        o,
        "If the observed utilization ≈ {} %, the low average is structural, not a fault. \
         ({} MiB = {} bytes)",
        sig(d.predicted_duty.value, 3),
        sig(d.pcie_mib_per_token, 4),
        sig(d.pcie_mib_per_token * MIB, 4)
    );
    emit(&o)
}

fn list(c: &Catalog, as_json: bool) -> Result<()> {
    if as_json {
        return print_json(&ListDoc::new(c));
    }
    let tf = |s: &Option<physics::Sourced>| {
        s.as_ref()
            .map(|s| sig(s.value, 4))
            .unwrap_or_else(|| "-".into())
    };
    let mut o = String::new();
    let mut g = output::table(vec![
        "GPU",
        "--gpu",
        "GiB",
        "GB/s",
        "BF16 TFLOPS",
        "FP8",
        "FP4",
        "aliases",
    ]);
    for x in &c.gpus {
        let bf16 = match (&x.bf16_tflops, &x.fp32_tflops) {
            (Some(s), _) => sig(s.value, 4),
            (None, Some(s)) => format!("{} (FP32)", sig(s.value, 4)),
            _ => "-".into(),
        };
        g.add_row(vec![
            x.name.clone(),
            x.id.clone(),
            sig(x.memory_gib.value, 4),
            sig(x.bandwidth_gbps.value, 4),
            bf16,
            tf(&x.fp8_tflops),
            tf(&x.fp4_tflops),
            x.aliases.join(", "),
        ]);
    }
    say!(o, "GPUs (dense tensor TFLOPS; sources: --list --json)\n{g}");
    let mut m = output::table(vec![
        "model",
        "--model",
        "params",
        "active",
        "layers",
        "attention",
        "experts",
        "dtype",
    ]);
    for x in &c.models {
        let experts = match (x.experts, x.experts_used) {
            (Some(e), Some(u)) => format!(
                "{u} of {e}{}",
                x.shared_experts
                    .filter(|s| *s > 0)
                    .map(|s| format!(" + {s} shared"))
                    .unwrap_or_default()
            ),
            _ => "-".into(),
        };
        let attn = match x.attention {
            Attention::Mla => "MLA".to_string(),
            a => format!(
                "{} {}/{}{}",
                if a == Attention::Mha { "MHA" } else { "GQA" },
                x.heads,
                x.kv_heads.unwrap_or(0),
                x.sliding_window
                    .map(|w| format!(", window {w}"))
                    .unwrap_or_default()
            ),
        };
        m.add_row(vec![
            x.name.clone(),
            x.id.clone(),
            params(x.params_total),
            params(x.params_active),
            x.layers.to_string(),
            attn,
            experts,
            match &x.expert_dtype {
                Some(e) => format!("{} (experts {e})", x.dtype),
                None => x.dtype.clone(),
            },
        ]);
    }
    say!(o, "Models\n{m}");
    emit(&o)
}
