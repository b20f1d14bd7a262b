//! Which tensors, layers and experts a process actually reads.
//!
//! 1. Addresses go to the `/proc/PID/maps` VMAs that map the model's part files ([`maps`]);
//!    several VMAs per part is normal.
//! 2. File offset: `foff = pgoff + (addr − vma_start)`.
//! 3. Tensor extents from consecutive offsets (the `gguf` crate's scan, [`extents`]), never
//!    from a type-size table.
//! 4. Histograms per tensor, per layer and per expert (expert-major rows: index =
//!    offset within the tensor / (span / n_experts)).
//!
//! Before any histogram is believed, [`Report::checks`] says whether the attribution holds: the
//! gap (samples in a mapped part outside every tensor) ≈ 0, every tensor-bearing part nonzero,
//! and MoE blocks flat (top-k fires every block every token, so a non-flat block histogram is
//! mis-attribution first, not a finding).

pub mod addresses;
pub mod extents;
pub mod maps;
mod report;

pub use addresses::{parse_addresses, AddressStats};
pub use extents::{part_from_shard, Extent, Part};
pub use maps::{parse_maps, Vma};
pub use report::{
    Check, CheckStatus, Event, ExpertBlock, LayerRow, PartRow, Report, TensorRow, SCHEMA,
};

use std::path::Path;

/// What went wrong, naming the input and the place.
#[derive(Debug, thiserror::Error)]
pub enum AttributeError {
    #[error("{source_name} line {line}: {what}")]
    Maps {
        source_name: String,
        line: usize,
        what: String,
    },
    #[error("{source_name} line {line}: {text} (want one hexadecimal address a line)")]
    Address {
        source_name: String,
        line: u64,
        text: String,
    },
    #[error("reading {what}: {error}")]
    Io { what: String, error: std::io::Error },
    #[error(transparent)]
    Gguf(#[from] gguf::GgufError),
    #[error("the maps show none of the model files ({wanted}); files mapped: {seen}")]
    NotMapped { wanted: String, seen: String },
}

/// Counters while addresses stream in; [`Attributor::report`] turns them into a [`Report`].
pub struct Attributor {
    parts: Vec<Part>,
    /// Model VMAs sorted by start: (start, end, pgoff, part index).
    vmas: Vec<(u64, u64, u64, usize)>,
    /// Index of the VMA the last attributed address fell in.
    last_vma: usize,
    /// Per part, the tensors' starts in file offsets, sorted (for the bisect).
    starts: Vec<Vec<u64>>,
    /// Per part, per tensor: samples.
    tensor_samples: Vec<Vec<u64>>,
    /// Per part, per tensor: samples per expert (empty for non-expert tensors).
    expert_samples: Vec<Vec<Vec<u64>>>,
    part_header: Vec<u64>,
    part_gap: Vec<u64>,
    outside: u64,
    total: u64,
}

impl Attributor {
    /// Keeps the VMAs whose file is one of `parts` (by path). A part no VMA maps stays in the
    /// report with zero samples (and fails the nonzero check if it bears tensors).
    pub fn new(vmas: &[Vma], parts: Vec<Part>) -> Result<Attributor, AttributeError> {
        let mut model_vmas: Vec<(u64, u64, u64, usize)> = vmas
            .iter()
            .filter_map(|v| {
                let i = parts.iter().position(|p| same_file(&p.path, &v.path))?;
                Some((v.start, v.end, v.pgoff, i))
            })
            .collect();
        if model_vmas.is_empty() {
            let mut seen: Vec<&str> = vmas
                .iter()
                .map(|v| v.path.as_str())
                .filter(|p| p.starts_with('/'))
                .collect();
            seen.sort_unstable();
            seen.dedup();
            return Err(AttributeError::NotMapped {
                wanted: parts
                    .iter()
                    .map(|p| p.path.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                seen: if seen.is_empty() {
                    "none".into()
                } else {
                    seen.join(", ")
                },
            });
        }
        model_vmas.sort_unstable_by_key(|v| v.0);
        let starts = parts
            .iter()
            .map(|p| p.extents.iter().map(|e| e.start).collect())
            .collect();
        let tensor_samples = parts.iter().map(|p| vec![0; p.extents.len()]).collect();
        let expert_samples = parts
            .iter()
            .map(|p| {
                p.extents
                    .iter()
                    .map(|e| vec![0; e.experts.unwrap_or(0) as usize])
                    .collect()
            })
            .collect();
        let n = parts.len();
        Ok(Attributor {
            parts,
            vmas: model_vmas,
            last_vma: 0,
            starts,
            tensor_samples,
            expert_samples,
            part_header: vec![0; n],
            part_gap: vec![0; n],
            outside: 0,
            total: 0,
        })
    }

    /// Attributes one sampled data address.
    #[inline]
    pub fn add(&mut self, addr: u64) {
        self.total += 1;
        // Samples cluster: try the VMA the previous one hit before bisecting.
        let last = self.vmas[self.last_vma];
        let (start, _, pgoff, part) = if addr >= last.0 && addr < last.1 {
            last
        } else {
            // Bisect the VMAs: the last one starting at or below addr.
            let i = self.vmas.partition_point(|v| v.0 <= addr);
            let Some(i) = i.checked_sub(1) else {
                self.outside += 1;
                return;
            };
            if addr >= self.vmas[i].1 {
                self.outside += 1;
                return;
            }
            self.last_vma = i;
            self.vmas[i]
        };
        let foff = pgoff + (addr - start);
        let starts = &self.starts[part];
        let t = starts.partition_point(|&s| s <= foff);
        let Some(t) = t.checked_sub(1) else {
            self.part_header[part] += 1;
            return;
        };
        let e = &self.parts[part].extents[t];
        let lo = foff - e.start;
        if lo >= e.len {
            self.part_gap[part] += 1;
            return;
        }
        self.tensor_samples[part][t] += 1;
        let experts = &mut self.expert_samples[part][t];
        if !experts.is_empty() {
            // Expert-major rows: expert k owns [k·span/n, (k+1)·span/n).
            let count = experts.len();
            let n = count as u64;
            // lo · n fits in u64 for any real tensor; u128 only past 2^64 / n bytes.
            let k = match lo.checked_mul(n) {
                Some(x) => x / e.len,
                None => (u128::from(lo) * u128::from(n) / u128::from(e.len)) as u64,
            };
            experts[(k as usize).min(count - 1)] += 1;
        }
    }

    /// The histograms and the self-checks.
    pub fn report(&self, event: Event, stats: AddressStats) -> Report {
        report::build(self, event, stats)
    }
}

/// Whether a maps path names the same file as a part path (maps show absolute, canonical
/// paths; a file replaced on disk shows ` (deleted)`, which is still the mapped one).
fn same_file(part: &str, mapped: &str) -> bool {
    let mapped = mapped.strip_suffix(" (deleted)").unwrap_or(mapped);
    part == mapped
}

/// Every `.gguf` file the maps show, in first-seen order: the parts to attribute to when the
/// user names none.
pub fn mapped_gguf_files(vmas: &[Vma]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in vmas {
        let p = v.path.strip_suffix(" (deleted)").unwrap_or(&v.path);
        if p.ends_with(".gguf") && !out.iter().any(|o| o == p) {
            out.push(p.to_string());
        }
    }
    out
}

/// Reads a part's tensor extents from its GGUF file (header only).
pub fn read_part(path: &Path) -> Result<Part, AttributeError> {
    let shard = gguf::read_shard(path, &gguf::ReadOptions::default())?;
    let canonical = std::fs::canonicalize(path)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string());
    Ok(part_from_shard(&canonical, &shard))
}

#[cfg(test)]
mod tests;
