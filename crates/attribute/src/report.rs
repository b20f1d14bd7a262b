//! The histograms and the self-checks that come before them.

use numbers::fmt::percent;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{AddressStats, Attributor};

/// The `--json` document of `headroom attribute` (docs/json/attribute.md).
pub const SCHEMA: &str = "headroom.attribute/1";

/// Largest gap share (samples in a mapped part outside every tensor, over the part's samples)
/// that still counts as ≈ 0. Inter-tensor padding is at most `alignment` bytes per tensor, so
/// uniform reads land there a tiny fraction of the time; a wrong extent table loses whole
/// tensor tails (the spec's first run lost 59 %).
pub const GAP_MAX_SHARE: f64 = 0.01;
/// A MoE block is flat when its samples lie within this fraction of its expected share, plus
/// [`FLAT_SIGMAS`] Poisson standard deviations (√expected) for sampling noise.
pub const FLAT_TOLERANCE: f64 = 0.25;
pub const FLAT_SIGMAS: f64 = 4.0;
/// Fewest expected samples per MoE block before flatness is judged at all.
pub const FLAT_MIN_EXPECTED: f64 = 20.0;

/// The sampled event and what it measures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub name: String,
    pub measures: String,
}

impl Event {
    /// The event by its perf name, with what its samples mean.
    pub fn describe(name: &str) -> Event {
        let n = name.to_ascii_lowercase();
        let measures = if n.starts_with("ibs_op") {
            "AMD IBS op sampling: retired micro-ops, loads among them, each with its data \
             address: where the CPU really reads"
        } else if n.contains("mem-loads") || n.contains("mem_inst_retired") || n.contains("ldlat") {
            "Intel PEBS load sampling: retired loads with their data address: where the CPU \
             really reads"
        } else if n == "page-faults" || n == "faults" || n.contains("page_fault") {
            "page faults: the first touch of each page of a mapping (and touches again after \
             the page was evicted or unmapped), not every load; one fault can map a whole \
             page-cache folio and its cached neighbours, which then never fault; a populated, \
             resident mapping (llama.cpp maps with MAP_POPULATE) faults only after eviction"
        } else {
            "perf's data address for each sample of this event (what the event samples decides \
             what the histogram means)"
        };
        Event {
            name: name.to_string(),
            measures: measures.to_string(),
        }
    }
}

/// A self-check's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    Pass,
    Fail,
    /// Could not be judged (too few samples, not a MoE model): says why in `says`.
    Unknown,
}

/// One self-check: the measured value against its threshold, in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// `gap`, `parts_nonzero` or `moe_blocks_flat`.
    pub name: String,
    pub status: CheckStatus,
    pub measured: String,
    pub threshold: String,
    pub says: String,
}

/// One part file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartRow {
    pub path: String,
    /// VMAs mapping it.
    pub vmas: usize,
    pub tensors: usize,
    /// Samples inside a tensor.
    pub samples: u64,
    /// Samples before the first tensor (the header and metadata).
    pub header: u64,
    /// Samples in the data section outside every tensor extent.
    pub gap: u64,
}

/// One tensor's samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TensorRow {
    pub name: String,
    /// Index into `parts`.
    pub part: usize,
    pub layer: Option<u32>,
    pub samples: u64,
    /// samples / attributed.
    pub share: f64,
}

/// One layer (`blk.N.`): all its tensors, and its routed-expert tensors alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerRow {
    pub layer: u32,
    pub samples: u64,
    pub expert_samples: u64,
}

/// One MoE block's samples per expert (all its routed-expert tensors summed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpertBlock {
    pub layer: u32,
    pub samples: Vec<u64>,
}

/// The `headroom.attribute/1` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub event: Event,
    pub addresses: AddressStats,
    /// Addresses in no VMA of the model's files (the process's own heap, stack, code …).
    pub outside: u64,
    /// Addresses inside a tensor.
    pub attributed: u64,
    pub parts: Vec<PartRow>,
    /// The self-checks, in order; believe the histograms only when `trusted`.
    pub checks: Vec<Check>,
    /// Every check passed.
    pub trusted: bool,
    /// Tensors with samples, most first.
    pub tensors: Vec<TensorRow>,
    pub layers: Vec<LayerRow>,
    pub experts: Vec<ExpertBlock>,
    /// Per expert index, summed over the MoE blocks.
    pub expert_totals: Vec<u64>,
}

impl Report {
    /// The MoE blocks' experts with samples, per block (what a test of chosen experts reads).
    pub fn touched_experts(&self) -> BTreeMap<u32, Vec<usize>> {
        self.experts
            .iter()
            .map(|b| {
                let hit = b
                    .samples
                    .iter()
                    .enumerate()
                    .filter(|(_, &c)| c > 0)
                    .map(|(i, _)| i)
                    .collect();
                (b.layer, hit)
            })
            .collect()
    }
}

pub(crate) fn build(a: &Attributor, event: Event, stats: AddressStats) -> Report {
    let attributed: u64 = a.tensor_samples.iter().flatten().sum();
    let parts: Vec<PartRow> = a
        .parts
        .iter()
        .enumerate()
        .map(|(i, p)| PartRow {
            path: p.path.clone(),
            vmas: a.vmas.iter().filter(|v| v.3 == i).count(),
            tensors: p.extents.len(),
            samples: a.tensor_samples[i].iter().sum(),
            header: a.part_header[i],
            gap: a.part_gap[i],
        })
        .collect();

    let mut tensors = Vec::new();
    let mut layers: BTreeMap<u32, LayerRow> = BTreeMap::new();
    // Per MoE layer: expert samples per index, expert-tensor bytes, expert-tensor samples.
    let mut blocks: BTreeMap<u32, (Vec<u64>, u64, u64)> = BTreeMap::new();
    for (pi, p) in a.parts.iter().enumerate() {
        for (ti, e) in p.extents.iter().enumerate() {
            let s = a.tensor_samples[pi][ti];
            if s > 0 {
                tensors.push(TensorRow {
                    name: e.name.clone(),
                    part: pi,
                    layer: e.layer,
                    samples: s,
                    share: s as f64 / attributed.max(1) as f64,
                });
            }
            let Some(l) = e.layer else { continue };
            let row = layers.entry(l).or_insert(LayerRow {
                layer: l,
                samples: 0,
                expert_samples: 0,
            });
            row.samples += s;
            if e.experts.is_some() {
                row.expert_samples += s;
                let b = blocks.entry(l).or_insert((Vec::new(), 0, 0));
                let per = &a.expert_samples[pi][ti];
                if b.0.len() < per.len() {
                    b.0.resize(per.len(), 0);
                }
                for (k, c) in per.iter().enumerate() {
                    b.0[k] += c;
                }
                b.1 += e.len;
                b.2 += s;
            }
        }
    }
    tensors.sort_by(|x, y| y.samples.cmp(&x.samples).then(x.name.cmp(&y.name)));
    let mut expert_totals: Vec<u64> = Vec::new();
    for (counts, _, _) in blocks.values() {
        if expert_totals.len() < counts.len() {
            expert_totals.resize(counts.len(), 0);
        }
        for (k, c) in counts.iter().enumerate() {
            expert_totals[k] += c;
        }
    }

    let checks = vec![
        gap_check(&parts),
        nonzero_check(&parts),
        flat_check(&blocks),
    ];
    // Flatness may be unknowable (a dense model); the other two must pass.
    let trusted = checks.iter().all(|c| c.status != CheckStatus::Fail)
        && checks[..2].iter().all(|c| c.status == CheckStatus::Pass);
    Report {
        schema: SCHEMA.into(),
        event,
        addresses: stats,
        outside: a.outside,
        attributed,
        parts,
        checks,
        trusted,
        tensors,
        layers: layers.into_values().collect(),
        experts: blocks
            .into_iter()
            .map(|(layer, (samples, _, _))| ExpertBlock { layer, samples })
            .collect(),
        expert_totals,
    }
}

fn gap_check(parts: &[PartRow]) -> Check {
    let gap: u64 = parts.iter().map(|p| p.gap).sum();
    let inside: u64 = parts.iter().map(|p| p.samples + p.gap).sum();
    let threshold = format!(
        "≤ {} of the samples in the data sections",
        percent(GAP_MAX_SHARE)
    );
    if inside == 0 {
        return Check {
            name: "gap".into(),
            status: CheckStatus::Unknown,
            measured: "no sample in any data section".into(),
            threshold,
            says: "nothing to judge".into(),
        };
    }
    let share = gap as f64 / inside as f64;
    let pass = share <= GAP_MAX_SHARE;
    Check {
        name: "gap".into(),
        status: if pass {
            CheckStatus::Pass
        } else {
            CheckStatus::Fail
        },
        measured: format!(
            "{gap} of {inside} samples ({}) outside every tensor",
            percent(share)
        ),
        threshold,
        says: if pass {
            "the extents cover what was read".into()
        } else {
            "the extent table under-covers the tensors (a wrong per-element size loses every \
             tensor's tail; a uniform gap across parts is the tell): mis-attribution, not a \
             finding"
                .into()
        },
    }
}

fn nonzero_check(parts: &[PartRow]) -> Check {
    let bearing: Vec<&PartRow> = parts.iter().filter(|p| p.tensors > 0).collect();
    let zero: Vec<&str> = bearing
        .iter()
        .filter(|p| p.samples == 0)
        .map(|p| p.path.as_str())
        .collect();
    let pass = zero.is_empty() && !bearing.is_empty();
    Check {
        name: "parts_nonzero".into(),
        status: if pass {
            CheckStatus::Pass
        } else {
            CheckStatus::Fail
        },
        measured: format!(
            "{} of {} tensor-bearing parts have tensor samples",
            bearing.len() - zero.len(),
            bearing.len()
        ),
        threshold: "every tensor-bearing part > 0".into(),
        says: if pass {
            "every part was seen".into()
        } else {
            format!(
                "no tensor sample in {}: unmapped, not sampled, or (page faults) already \
                 resident for the whole window",
                zero.join(", ")
            )
        },
    }
}

fn flat_check(blocks: &BTreeMap<u32, (Vec<u64>, u64, u64)>) -> Check {
    let threshold = format!(
        "each block within {} + {FLAT_SIGMAS}·√expected of its byte-weighted share",
        percent(FLAT_TOLERANCE)
    );
    let unknown = |measured: String, says: &str| Check {
        name: "moe_blocks_flat".into(),
        status: CheckStatus::Unknown,
        measured,
        threshold: threshold.clone(),
        says: says.into(),
    };
    if blocks.len() < 2 {
        return unknown(
            format!("{} MoE block(s)", blocks.len()),
            "not a MoE model with two or more blocks: nothing to compare",
        );
    }
    let bytes: u64 = blocks.values().map(|b| b.1).sum();
    let samples: u64 = blocks.values().map(|b| b.2).sum();
    let expected = |b: &(Vec<u64>, u64, u64)| samples as f64 * b.1 as f64 / bytes.max(1) as f64;
    let least = blocks.values().map(expected).fold(f64::INFINITY, f64::min);
    if least < FLAT_MIN_EXPECTED {
        return unknown(
            format!("{samples} expert samples over {} blocks", blocks.len()),
            "too few samples per block to judge flatness (want ≥ 20 expected per block)",
        );
    }
    // Blocks off their share, worst first: (layer, samples, expected).
    let mut off: Vec<(u32, u64, f64)> = blocks
        .iter()
        .filter_map(|(&l, b)| {
            let e = expected(b);
            let dev = (b.2 as f64 - e).abs();
            (dev > FLAT_TOLERANCE * e + FLAT_SIGMAS * e.sqrt()).then_some((l, b.2, e))
        })
        .collect();
    off.sort_by(|x, y| {
        let r = |t: &(u32, u64, f64)| (t.1 as f64 - t.2).abs() / t.2;
        r(y).total_cmp(&r(x))
    });
    let (lo, hi) = blocks
        .values()
        .fold((u64::MAX, 0), |(lo, hi), b| (lo.min(b.2), hi.max(b.2)));
    let measured = format!(
        "{} blocks, {lo}–{hi} expert samples per block; {} off their share",
        blocks.len(),
        off.len()
    );
    if off.is_empty() {
        Check {
            name: "moe_blocks_flat".into(),
            status: CheckStatus::Pass,
            measured,
            threshold,
            says: "flat per block, as top-k routing in every block makes it".into(),
        }
    } else {
        let list: Vec<String> = off
            .iter()
            .take(5)
            .map(|(l, s, e)| format!("blk.{l} {s} vs ~{e:.0}"))
            .collect();
        Check {
            name: "moe_blocks_flat".into(),
            status: CheckStatus::Fail,
            measured,
            threshold,
            says: format!(
                "non-flat blocks ({}{}): top-k fires every block every token, so this is \
                 mis-attribution (wrong extents or wrong maps) first, not a finding",
                list.join(", "),
                if off.len() > 5 { ", …" } else { "" }
            ),
        }
    }
}
