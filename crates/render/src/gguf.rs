//! `headroom gguf`'s human summary and tensor CSV.

use std::fmt::Write as _;

use gguf::doc::GgufDoc;
use gguf::{Entry, Model};

use crate::Render;

/// A read file in its three forms; its CSV is the tensor table.
pub struct View {
    pub doc: GgufDoc,
    pub model: Model,
    /// Also the tensor table.
    pub tensors: bool,
    /// Also every metadata key.
    pub metadata: bool,
}

impl Render for View {
    type Doc = GgufDoc;
    fn doc(&self) -> &GgufDoc {
        &self.doc
    }
    fn human(&self) -> String {
        human(&self.doc, &self.model, self.tensors, self.metadata)
    }
    fn csv(&self) -> Option<String> {
        let mut out = crate::csv_row([
            "name",
            "type",
            "type_id",
            "shape",
            "n_elements",
            "shard",
            "offset",
            "size",
            "type_size",
            "padding",
            "experts",
        ]);
        for t in &self.doc.tensors {
            let shape: Vec<String> = t.shape.iter().map(u64::to_string).collect();
            out += &crate::csv_row([
                t.name.clone(),
                t.ty.clone(),
                t.type_id.to_string(),
                shape.join("x"),
                t.n_elements.to_string(),
                t.shard.to_string(),
                t.offset.to_string(),
                t.size.to_string(),
                t.type_size.to_string(),
                t.padding.to_string(),
                t.experts.map_or(String::new(), |e| e.to_string()),
            ]);
        }
        Some(out)
    }
}

/// 1,785,664
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let groups: Vec<String> = digits
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|g| String::from_utf8_lossy(g).into_owned())
        .collect();
    groups.join(",")
}

/// 134.52 M (decimal prefixes for counts).
fn count(n: u64) -> String {
    let f = n as f64;
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{:.1} K", f / 1e3),
        1_000_000..=999_999_999 => format!("{:.2} M", f / 1e6),
        _ => format!("{:.2} B", f / 1e9),
    }
}

/// 93.81 MiB (binary prefixes for bytes).
fn bytes(n: u64) -> String {
    let f = n as f64;
    const K: f64 = 1024.0;
    if f < K {
        format!("{n} B")
    } else if f < K * K {
        format!("{:.1} KiB", f / K)
    } else if f < K * K * K {
        format!("{:.2} MiB", f / (K * K))
    } else {
        format!("{:.2} GiB", f / (K * K * K))
    }
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

/// Plain aligned columns: the first `left` columns flush left, the rest flush right.
fn table(head: &[&str], rows: &[Vec<String>], left: usize) -> String {
    let mut w: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: Vec<&str>, out: &mut String| {
        let mut l = String::from("  ");
        for (i, c) in cells.iter().enumerate() {
            let pad = w[i] - c.chars().count();
            if i < left {
                l.push_str(c);
                l.push_str(&" ".repeat(pad));
            } else {
                l.push_str(&" ".repeat(pad));
                l.push_str(c);
            }
            l.push_str("  ");
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(head.to_vec(), &mut out);
    for r in rows {
        line(r.iter().map(String::as_str).collect(), &mut out);
    }
    out
}

fn human(r: &GgufDoc, model: &Model, with_tensors: bool, with_metadata: bool) -> String {
    let mut o = String::new();
    let kv = |o: &mut String, k: &str, v: String| {
        let _ = writeln!(o, "{k:<13} {v}");
    };
    let shards = model.shards.len();
    kv(
        &mut o,
        "file",
        format!(
            "{} (GGUF v{}, {} bytes = {}{})",
            r.file,
            r.version,
            thousands(r.file_bytes),
            bytes(r.file_bytes),
            if shards > 1 {
                format!(", {shards} shards")
            } else {
                String::new()
            }
        ),
    );
    kv(
        &mut o,
        "architecture",
        match (r.architecture.as_deref(), r.name.as_deref()) {
            (Some(a), Some(n)) => format!("{a}  \"{n}\""),
            (Some(a), None) => a.to_string(),
            (None, _) => "- (no general.architecture)".to_string(),
        },
    );
    if let Some(f) = &r.model {
        kv(&mut o, "layers", opt(f.n_layers));
        kv(&mut o, "hidden", opt(f.hidden));
        let per_layer = f.kv_heads_per_layer.as_ref().map_or(String::new(), |l| {
            format!(" (per layer: {l:?}; largest shown)")
        });
        kv(
            &mut o,
            "heads",
            format!(
                "{} query, {} kv{per_layer}; head dim {} (K) / {} (V)",
                opt(f.n_heads),
                opt(f.n_kv_heads),
                opt(f.head_dim),
                opt(f.head_dim_v)
            ),
        );
        if f.kv_lora_rank.is_some() {
            kv(
                &mut o,
                "mla",
                format!(
                    "kv_lora_rank {}, rope dim {}",
                    opt(f.kv_lora_rank),
                    opt(f.rope_dim)
                ),
            );
        }
        if let Some(w) = f.sliding_window {
            kv(&mut o, "sliding", format!("window {w}"));
        }
        kv(&mut o, "context", opt(f.context_length));
        kv(&mut o, "vocab", opt(f.vocab_size));
    }
    let p = &r.params;
    let b = &r.bytes;
    if r.experts.tensors > 0 {
        kv(
            &mut o,
            "experts",
            format!(
                "{} routed, {} used per token, {} shared ({} expert-major *_exps tensors)",
                opt(r.experts.count),
                opt(r.experts.used),
                opt(r.experts.shared),
                r.experts.tensors
            ),
        );
        kv(
            &mut o,
            "params",
            format!(
                "{} total = {} outside routed experts + {} in experts ({} per expert); {} active per token{}",
                count(p.total),
                count(p.shared),
                count(p.expert),
                count(p.per_expert),
                count(p.active),
                gathered_note(p.gathered)
            ),
        );
    } else {
        kv(&mut o, "experts", "none (dense)".to_string());
        let read = if p.gathered > 0 {
            format!(
                "; {} read per token{}",
                count(p.active),
                gathered_note(p.gathered)
            )
        } else {
            String::new()
        };
        kv(
            &mut o,
            "params",
            format!("{} total ({}){read}", count(p.total), thousands(p.total)),
        );
    }
    let bpp = if p.total == 0 {
        0.0
    } else {
        b.weights as f64 * 8.0 / p.total as f64
    };
    kv(
        &mut o,
        "weights",
        format!(
            "{} ({} bytes from consecutive offsets) = {} by type table + {} padding; {bpp:.2} bits/param",
            bytes(b.weights),
            thousands(b.weights),
            thousands(b.type_table),
            thousands(b.padding)
        ),
    );
    if r.experts.tensors > 0 {
        kv(
            &mut o,
            "per token",
            format!(
                "{} read per token ({} per expert slice)",
                bytes(b.active),
                bytes(b.per_expert)
            ),
        );
    } else if b.gathered > 0 {
        kv(
            &mut o,
            "per token",
            format!("{} read per token", bytes(b.active)),
        );
    }
    let mix: Vec<String> = r
        .types
        .iter()
        .map(|m| format!("{} ×{}", m.ty, m.tensors))
        .collect();
    kv(
        &mut o,
        "types",
        format!("{} tensors: {}", r.tensors.len(), mix.join(", ")),
    );
    kv(
        &mut o,
        "alignment",
        format!(
            "{}; tensor infos end at byte {}, data starts at byte {} ({} bytes of header padding)",
            r.alignment,
            thousands(r.tensor_info_end),
            thousands(r.data_offset),
            r.header_padding
        ),
    );
    for n in &r.notes {
        kv(&mut o, "note", n.clone());
    }

    if shards > 1 {
        let rows: Vec<Vec<String>> = r
            .shards
            .iter()
            .map(|s| {
                vec![
                    (s.index + 1).to_string(),
                    s.path.to_string(),
                    s.tensor_count.to_string(),
                    s.alignment.to_string(),
                    thousands(s.data_offset),
                    thousands(s.data_bytes),
                    thousands(s.padding),
                ]
            })
            .collect();
        o.push_str("\nshards\n");
        o.push_str(&table(
            &[
                "#",
                "file",
                "tensors",
                "align",
                "data offset",
                "data bytes",
                "padding",
            ],
            &rows,
            2,
        ));
    }

    let rows: Vec<Vec<String>> = r
        .types
        .iter()
        .map(|m| {
            vec![
                m.ty.to_string(),
                m.tensors.to_string(),
                count(m.params),
                bytes(m.bytes),
                numbers::fmt::percent(if b.type_table == 0 {
                    0.0
                } else {
                    m.bytes as f64 / b.type_table as f64
                }),
                format!("{:.3}", m.bits_per_param),
            ]
        })
        .collect();
    o.push_str("\ntypes (bytes by type table)\n");
    o.push_str(&table(
        &["type", "tensors", "params", "bytes", "share", "bits/param"],
        &rows,
        1,
    ));

    if with_metadata {
        o.push_str("\nmetadata\n");
        let rows: Vec<Vec<String>> = model.shards[0]
            .metadata
            .iter()
            .map(|e| vec![e.key.clone(), e.value.type_label(), metadata_text(e)])
            .collect();
        o.push_str(&table(&["key", "type", "value"], &rows, 3));
    }

    if with_tensors {
        let multi = shards > 1;
        let rows: Vec<Vec<String>> = r
            .tensors
            .iter()
            .map(|t| {
                let mut row = vec![
                    t.name.to_string(),
                    t.ty.to_string(),
                    format!("{:?}", t.shape),
                    thousands(t.offset),
                    thousands(t.size),
                    thousands(t.padding),
                ];
                if multi {
                    row.push((t.shard + 1).to_string());
                }
                row
            })
            .collect();
        o.push_str("\ntensors (shape in ggml order, ne0 first; offset absolute in its file; size from consecutive offsets)\n");
        let mut head = vec!["name", "type", "shape", "offset", "size", "padding"];
        if multi {
            head.push("shard");
        }
        o.push_str(&table(&head, &rows, 3));
    } else {
        o.push_str(
            "\n(--tensors for the tensor table, --metadata for every key, --json for all of it)\n",
        );
    }
    o
}

fn metadata_text(e: &Entry) -> String {
    use gguf::Value;
    const SHOWN: usize = 96;
    let text = match &e.value {
        Value::LongString(n) => format!("({n}-byte string)"),
        Value::Array(a) if a.items.is_none() => format!("({} elements)", a.len),
        Value::String(s) => format!("{s:?}"),
        v => serde_json::to_string(v).unwrap_or_default(),
    };
    let one_line = text.replace('\n', "\\n");
    if one_line.chars().count() > SHOWN {
        let cut: String = one_line.chars().take(SHOWN).collect();
        let extra = match &e.value {
            Value::Array(a) => format!(" ({} elements)", a.len),
            Value::String(s) => format!(" ({} bytes)", s.len()),
            _ => String::new(),
        };
        format!("{cut}…{extra}")
    } else {
        one_line
    }
}

/// Why `active` is below the total: the lookup tables a token reads one row of.
fn gathered_note(gathered: u64) -> String {
    if gathered == 0 {
        return String::new();
    }
    format!(
        " (not counted: {} in embedding tables a token reads one row of, an untied input \
         embedding or per-layer embeddings)",
        count(gathered)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formats() {
        for (n, want) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1785664, "1,785,664"),
            (u64::MAX, "18,446,744,073,709,551,615"),
        ] {
            assert_eq!(thousands(n), want);
        }
        for (n, want) in [
            (9999, "9999"),
            (98_304, "98.3 K"),
            (134_515_008, "134.52 M"),
            (30_532_122_624, "30.53 B"),
        ] {
            assert_eq!(count(n), want);
        }
        for (n, want) in [
            (1023, "1023 B"),
            (1536, "1.5 KiB"),
            (98_362_432, "93.81 MiB"),
            (3 << 30, "3.00 GiB"),
        ] {
            assert_eq!(bytes(n), want);
        }
    }

    #[test]
    fn table_aligns() {
        let t = table(
            &["name", "n"],
            &[
                vec!["a".into(), "100".into()],
                vec!["long".into(), "2".into()],
            ],
            1,
        );
        assert_eq!(t, "  name    n\n  a     100\n  long    2\n");
    }
}
