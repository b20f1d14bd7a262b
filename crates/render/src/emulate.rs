//! `headroom emulate`'s deployment table and scenario list.

use comfy_table::Cell;
use emulator::hardware::Configured;
use emulator::scenario::Scenario;

fn gb(x: f64) -> String {
    format!("{:.1} GB", x / 1e9)
}

/// The deployment as a table.
pub fn deployment(c: &Configured) -> String {
    let f = &c.hardware.figures;
    let e = c.engine();
    let l = e.layout();
    let mut t = crate::plain_table();
    let mut row = |k: &str, v: String| {
        t.add_row(vec![Cell::new(k), Cell::new(v)]);
    };
    row(
        "GPU × model",
        format!("{} × {} (tp {})", f.gpu, f.model, f.tp),
    );
    row(
        "weights",
        format!(
            "{} ({} weights, {} compute rate)",
            gb(l.weight_bytes),
            c.hardware.ceilings.model.bits.format,
            f.compute_precision
        ),
    );
    row(
        "VRAM split",
        format!(
            "{} usable = {} weights + {} reserve + {} KV pool",
            gb(l.usable_bytes),
            gb(l.weight_bytes - l.offloaded_bytes),
            gb(l.reserve_bytes),
            gb(l.kv_pool_bytes)
        ),
    );
    if l.offloaded_bytes > 0.0 {
        row("in host memory", gb(l.offloaded_bytes));
    }
    row(
        "KV pool",
        format!(
            "{} blocks × {} = {} tokens ({} B/token)",
            l.num_gpu_blocks, l.block_size, l.kv_capacity_tokens, f.kv_bytes_per_token
        ),
    );
    row(
        "decode ceiling",
        format!("{:.1} tok/s per sequence (est)", f.decode_ceiling_tps()),
    );
    row(
        "ridge batch",
        format!("{:.0} sequences (est)", f.ridge_batch()),
    );
    row("as vLLM", c.command_line());
    for w in &l.warnings {
        row("warning", w.clone());
    }
    format!("{t}\n")
}

/// The scenario list (`headroom emulate --list-scenarios`).
pub fn scenarios(all: &[Scenario]) -> comfy_table::Table {
    let mut t = crate::table(vec!["scenario", "primary", "GPU × model", "what it is"]);
    for s in all {
        t.add_row(vec![
            s.name.to_string(),
            s.expect.primary.unwrap_or("none").to_string(),
            format!("{} × {}", s.gpu, s.model),
            s.summary.to_string(),
        ]);
    }
    t
}
