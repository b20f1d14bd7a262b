//! GGUF reader: header and tensor infos only, never the data.
//!
//! Reads through a buffer, never maps or reads the tensor data, and checks every length the
//! file claims against the bytes that remain before allocating or skipping: truncated, corrupt
//! or hostile files give an error naming the file and byte offset.
//!
//! - [`read_shard_from`] / [`read_shard`]: one file: metadata (all value types, nested arrays),
//!   tensor infos, data offset aligned to `general.alignment`, and each tensor's extent from
//!   consecutive offsets with its type-table size and padding beside it.
//! - [`Model::open`]: one file or all shards of a split model; [`Model::accounting`] gives
//!   total / expert / per-expert / gathered / active params and bytes.
//!
//! Contract used by `headroom ceiling --gguf` (keep these names; add fields freely):
//! [`ModelFacts`] and [`read_model_facts`].

use std::path::Path;

pub mod doc;
mod model;
mod reader;
mod types;
mod value;

pub use model::{expert_count, read_shard, Accounting, Bytes, Model, Params};
pub use reader::{
    read_shard_from, ReadOptions, Shard, TensorInfo, DEFAULT_ALIGNMENT, MAX_ARRAY_DEPTH, MAX_DIMS,
    MAX_NAME_BYTES,
};
pub use types::{GgmlType, GGML_TYPES};
pub use value::{Array, Entry, MetadataEntry, Value, ValueType};

/// What a GGUF file says about its model, for the ceiling math. `None` where the file's
/// metadata does not say. Params are element counts of the weight tensors.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFacts {
    /// `general.architecture`, e.g. "llama", "qwen3moe", "deepseek2".
    pub architecture: String,
    /// `general.name` when present.
    pub name: Option<String>,
    pub n_layers: Option<u64>,
    pub hidden: Option<u64>,
    /// `attention.head_count`; the largest value when the file gives one per layer.
    pub n_heads: Option<u64>,
    /// `attention.head_count_kv` (the largest when per layer); absent means n_heads, as
    /// llama.cpp reads it.
    pub n_kv_heads: Option<u64>,
    /// Per-head K/V width (`attention.key_length`, else hidden / n_heads).
    pub head_dim: Option<u64>,
    pub context_length: Option<u64>,
    pub n_experts: Option<u64>,
    pub n_experts_used: Option<u64>,
    pub n_shared_experts: Option<u64>,
    /// Sliding-window width, where the architecture has one.
    pub sliding_window: Option<u64>,
    /// MLA compressed KV width (`attention.kv_lora_rank`), where present; the decoupled rope
    /// part cached beside it is `rope_dim`.
    pub kv_lora_rank: Option<u64>,
    /// `rope.dimension_count` (for MLA, the decoupled rope part of each cached K).
    pub rope_dim: Option<u64>,
    /// All weight elements.
    pub params_total: u64,
    /// Elements in routed-expert tensors (3-D `*_exps`).
    pub params_expert: u64,
    /// Elements read per token: total − expert + expert × used / n_experts, less the tables a
    /// token reads one row of (`params_gathered`).
    pub params_active: u64,
    /// Elements of the lookup tables left out of `params_active`: an untied input embedding
    /// (the file has its own `output.weight`) and per-layer token embeddings.
    pub params_gathered: u64,
    /// Bytes of tensor data, from consecutive offsets (all shards).
    pub weight_bytes: u64,
    /// Bytes read per token: non-expert bytes + expert bytes × used / n_experts, less the
    /// gathered tables' bytes.
    pub active_bytes: u64,
    /// Elements of one routed expert (summed over its tensors in every layer).
    pub params_per_expert: u64,
    /// Per-head V width (`attention.value_length`, else head_dim).
    pub head_dim_v: Option<u64>,
    /// `attention.head_count_kv` when the file gives one value per layer.
    pub kv_heads_per_layer: Option<Vec<u64>>,
    /// `vocab_size`, else the length of `tokenizer.ggml.tokens`.
    pub vocab_size: Option<u64>,
}

/// Errors name what went wrong and where (file, byte offset).
#[derive(Debug, thiserror::Error)]
pub enum GgufError {
    /// The OS error is part of the message (not a `source`), so chains print it once.
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("{path}: at byte {offset}: {what}")]
    Format {
        path: String,
        offset: u64,
        what: String,
    },
    #[error(
        "{path}: at byte {offset}: tensor '{tensor}' has unknown ggml type id {id} \
         (known ids: 0-3, 6-30, 34, 35, 39-42)"
    )]
    UnknownType {
        path: String,
        offset: u64,
        id: u32,
        tensor: String,
    },
    #[error("{path}: {what}")]
    Split { path: String, what: String },
}

impl GgufError {
    /// The byte offset the error points at, when it points at one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            GgufError::Format { offset, .. } | GgufError::UnknownType { offset, .. } => {
                Some(*offset)
            }
            _ => None,
        }
    }
}

/// Read the model facts of a GGUF file (and its split shards), scanning headers only.
pub fn read_model_facts(path: &Path) -> Result<ModelFacts, GgufError> {
    Model::open(path, &ReadOptions::default())?.facts()
}

#[cfg(test)]
mod tests;
