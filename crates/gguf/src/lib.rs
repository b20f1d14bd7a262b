//! GGUF reader: header and tensor infos only, never the data.
//!
//! Contract used by `headroom ceiling --gguf` (keep these names; add fields freely):
//! [`ModelFacts`] and [`read_model_facts`].

use std::path::Path;

/// What a GGUF file says about its model, for the ceiling math. `None` where the file's
/// metadata does not say. Params are element counts of the weight tensors.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ModelFacts {
    /// `general.architecture`, e.g. "llama", "qwen3moe", "deepseek2".
    pub architecture: String,
    /// `general.name` when present.
    pub name: Option<String>,
    pub n_layers: Option<u64>,
    pub hidden: Option<u64>,
    pub n_heads: Option<u64>,
    pub n_kv_heads: Option<u64>,
    /// Per-head K/V width (`attention.key_length`, else hidden / n_heads).
    pub head_dim: Option<u64>,
    pub context_length: Option<u64>,
    pub n_experts: Option<u64>,
    pub n_experts_used: Option<u64>,
    pub n_shared_experts: Option<u64>,
    /// Sliding-window width, where the architecture has one.
    pub sliding_window: Option<u64>,
    /// MLA compressed KV width (`attention.kv_lora_rank`) plus the rope part, where present.
    pub kv_lora_rank: Option<u64>,
    pub rope_dim: Option<u64>,
    /// All weight elements.
    pub params_total: u64,
    /// Elements in routed-expert tensors (3-D `*_exps`).
    pub params_expert: u64,
    /// Elements read per token: total − expert + expert × used / n_experts.
    pub params_active: u64,
    /// Bytes of tensor data, from consecutive offsets (all shards).
    pub weight_bytes: u64,
    /// Bytes read per token: non-expert bytes + expert bytes × used / n_experts.
    pub active_bytes: u64,
}

/// Errors name what went wrong and where (file, byte offset).
#[derive(Debug, thiserror::Error)]
pub enum GgufError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: at byte {offset}: {what}")]
    Format {
        path: String,
        offset: u64,
        what: String,
    },
}

/// Read the model facts of a GGUF file (and its split shards), scanning headers only.
pub fn read_model_facts(path: &Path) -> Result<ModelFacts, GgufError> {
    Err(GgufError::Format {
        path: path.display().to_string(),
        offset: 0,
        what: "GGUF reading is being built".into(),
    })
}
