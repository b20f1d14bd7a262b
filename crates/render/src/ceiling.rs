//! `headroom ceiling`'s human forms: the figures table, the RAM-bound and duty-cycle
//! arithmetic, and the catalogue listing.

use std::fmt::Write as _;

use comfy_table::{Cell, Table};
use physics::catalog::GIB;
use physics::ceilings::{GpuFigures, ModelFigures};
use physics::doc::CeilingDoc;
use physics::offload::{Duty, DutyInputs, RamBound, MIB};
use physics::provenance::{render_value, sig, Figure, Known, Mark};
use physics::{Attention, BitsSource, Catalog, ModelSpec, UNKNOWN_CEILING};

/// Appends a line to a String (which cannot fail).
macro_rules! say {
    ($o:expr, $($t:tt)*) => {{
        let _ = writeln!($o, $($t)*);
    }};
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
        let mut t = crate::table(vec!["figure", "value", "provenance", "basis"]);
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

/// The human form of a `headroom.ceiling/1` document: one table of figures, then the notes.
pub fn ceiling(doc: &CeilingDoc) -> String {
    let opts = &doc.options;
    let spec = doc.model.get();
    let figures = doc.model_figures.as_ref();
    let mut o = String::new();
    let gpu_name = doc
        .gpu
        .get()
        .map(|g| format!("{} × {}", g.name, opts.tp))
        .unwrap_or_else(|| {
            if opts.cpu_only {
                "CPU only (host RAM)".into()
            } else {
                "GPU unknown".into()
            }
        });
    let model_name = spec
        .map(|s| s.name.clone())
        .unwrap_or_else(|| "model unknown".into());
    say!(o, "headroom ceiling · {gpu_name} · {model_name}");
    if let Some(f) = figures {
        say!(o, "weights: {}", bits_label(f));
    }
    match doc.ceilings.reason() {
        Some(_) if opts.cpu_only => say!(
            o,
            "CPU only: no GPU figures; the decode ceiling is the host-RAM-bound row below"
        ),
        Some(reason) => say!(o, "{UNKNOWN_CEILING}: {reason}"),
        None => {}
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
    o
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
            "{} GB/s{tp} × 8e9 / ({} read per token × {} bits)",
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
                    "attention is {} of the FLOPs",
                    numbers::fmt::percent(p.attention_share)
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
            format!(
                "bytes read per token (routed experts: the used share{}), from the file",
                match spec.and_then(|s| s.params_gathered) {
                    Some(g) => format!("; {} in row-lookup embedding tables left out", params(g)),
                    None => String::new(),
                }
            ),
        ),
        None => (
            format!(
                "{} total params × {} bits",
                params(f.params_total.value),
                sig(f.weight_footprint.value * 8.0 / f.params_total.value, 3)
            ),
            format!(
                "{} params read per token{} × {bits} bits",
                params(f.params_active.value),
                match spec.and_then(|s| s.params_gathered) {
                    Some(g) => format!(
                        " (the {} untied input embedding is a row lookup, not read whole)",
                        params(g)
                    ),
                    None => String::new(),
                }
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
        // The spec's own precision ("3.7 GB/token"); the exact sum is beside it.
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

/// The human form of `headroom ceiling ram`.
pub fn ram(r: &RamBound) -> String {
    let mut o = String::new();
    say!(o, "headroom ceiling ram · experts in host RAM");
    let mut t = Rows::new();
    ram_rows(&mut t, r, "RAM-bound");
    say!(o, "{}", t.0);
    say!(
        o,
        "RAM-bound ceiling: {} at {} GB/token",
        fig(&r.ceiling_tps),
        format_args!("{:.1}", r.bytes_per_token.value / 1e9)
    );
    o
}

/// The human form of `headroom ceiling duty`: the duty-cycle arithmetic with its inputs.
pub fn duty(d: &Duty, inputs: &DutyInputs) -> String {
    let mut o = String::new();
    say!(o, "headroom ceiling duty · expert-offload duty cycle");
    let mut t = Rows::new();
    t.add(
        "resident experts",
        // The spec's worked example quotes the whole percentage.
        format!(
            "≈{}",
            numbers::fmt::percent(d.resident.value.round() / 100.0)
        ),
        prov(&d.resident),
        format!(
            "{} / {} arena slots = {}",
            inputs.arena_slots,
            inputs.experts,
            numbers::fmt::percent(d.resident.value / 100.0)
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
            inputs.lookups,
            inputs.slab_mib,
            sig(gb, 3),
            sig(gib, 3)
        ),
    );
    t.add(
        "predicted GPU duty",
        numbers::fmt::percent(d.predicted_duty.value / 100.0),
        prov(&d.predicted_duty),
        format!(
            "{} ms / ({} + {} ms)",
            inputs.compute_ms, inputs.compute_ms, inputs.wait_ms
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
        "If the observed utilization ≈ {}, the low average is structural, not a fault. \
         ({} MiB = {} bytes)",
        numbers::fmt::percent(d.predicted_duty.value / 100.0),
        sig(d.pcie_mib_per_token, 4),
        sig(d.pcie_mib_per_token * MIB, 4)
    );
    o
}

/// The human form of `headroom ceiling --list`: what is catalogued.
pub fn list(c: &Catalog) -> String {
    let tf = |s: &Option<physics::Sourced>| {
        s.as_ref()
            .map(|s| sig(s.value, 4))
            .unwrap_or_else(|| "-".into())
    };
    let mut o = String::new();
    let mut g = crate::table(vec![
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
    // A filtered list (`--list WORDS`) may hold no GPU or no model: that table is left out.
    if !c.gpus.is_empty() {
        say!(o, "GPUs (dense tensor TFLOPS; sources: --list --json)\n{g}");
    }
    let mut m = crate::table(vec![
        "model",
        "--model",
        "params",
        "read/token",
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
    if !c.models.is_empty() {
        say!(o, "Models\n{m}");
    }
    o
}
