//! Tensor extents: where each tensor's bytes lie in its part file.

use serde::{Deserialize, Serialize};

/// One tensor's bytes in its file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extent {
    pub name: String,
    /// Absolute file offset of the first byte.
    pub start: u64,
    /// Bytes up to the next tensor's start (sorted by offset); the last to the end of the file.
    pub len: u64,
    /// `blk.N.` in the name.
    pub layer: Option<u32>,
    /// Experts in a routed-expert tensor (`_exps.`), else `None`.
    pub experts: Option<u64>,
}

/// One model file and its tensors, sorted by start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// The path as `/proc/PID/maps` shows it (absolute, canonical).
    pub path: String,
    pub extents: Vec<Extent>,
}

impl Part {
    /// A part from extents in any order (sorted here).
    pub fn new(path: impl Into<String>, mut extents: Vec<Extent>) -> Part {
        extents.sort_by_key(|e| e.start);
        Part {
            path: path.into(),
            extents,
        }
    }
}

/// Extents from consecutive offsets, as the `gguf` crate computes them (`TensorInfo::size`):
/// never a type-size table, which silently under-covers every tensor when one per-element size
/// is wrong.
pub fn part_from_shard(path: &str, shard: &gguf::Shard) -> Part {
    let extents = shard
        .tensors
        .iter()
        .map(|t| Extent {
            name: t.name.clone(),
            start: t.offset,
            len: t.size,
            layer: layer_of(&t.name),
            experts: gguf::expert_count(t),
        })
        .collect();
    Part::new(path, extents)
}

/// `blk.12.ffn_up_exps.weight` → 12.
pub fn layer_of(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("blk.")?;
    let (n, _) = rest.split_once('.')?;
    n.parse().ok()
}
