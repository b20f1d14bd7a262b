//! The types of the engines' flag tables (`engine/<name>.rs`, `FLAGS`): a row names a flag's
//! spellings, the config field it sets and, where a prescription turns a [`Knob`] with it, the
//! text it writes. [`crate::config`] reads a command line through the rows and writes a
//! prescription's flag from them.

use serde::{Deserialize, Serialize};

/// A serving concept the prescriptions turn, whose flag differs per engine. Each engine's flag
/// table marks the row that writes a knob; [`crate::flag`] reads it there, and the same row
/// reads the flag back from a command line. [`Knob::config_key`] names the config field the
/// knob moves, so a re-measure can check that the flag was applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Knob {
    MaxNumSeqs,
    MaxModelLen,
    GpuMemoryUtilization,
    PrefixCaching,
    /// An 8-bit KV cache (fp8 on vLLM/SGLang, q8_0 on llama.cpp).
    KvCache8bit,
    MaxNumBatchedTokens,
    TensorParallelSize,
    KvOffloading,
    /// A KV pool fixed in blocks (vLLM --num-gpu-blocks-override), whatever the memory.
    KvBlocksOverride,
    /// A KV pool fixed in bytes (vLLM --kv-cache-memory-bytes; its CPU build's
    /// VLLM_CPU_KVCACHE_SPACE), whatever the memory utilization.
    KvCacheMemoryBytes,
    /// A KV pool fixed in tokens (SGLang --max-total-tokens), whatever the memory share.
    KvPoolTokens,
}

impl Knob {
    pub const ALL: [Knob; 11] = [
        Knob::MaxNumSeqs,
        Knob::MaxModelLen,
        Knob::GpuMemoryUtilization,
        Knob::PrefixCaching,
        Knob::KvCache8bit,
        Knob::MaxNumBatchedTokens,
        Knob::TensorParallelSize,
        Knob::KvOffloading,
        Knob::KvBlocksOverride,
        Knob::KvCacheMemoryBytes,
        Knob::KvPoolTokens,
    ];

    /// The key of the diagnose document's `config` map that this knob moves; None where no
    /// config value reads it back.
    pub fn config_key(self) -> Option<&'static str> {
        Some(match self {
            Knob::MaxNumSeqs => "max_num_seqs",
            Knob::MaxModelLen => "max_model_len",
            Knob::GpuMemoryUtilization => "gpu_memory_utilization",
            Knob::PrefixCaching => "prefix_caching",
            Knob::KvCache8bit => "kv_cache_dtype",
            Knob::MaxNumBatchedTokens => "max_num_batched_tokens",
            Knob::TensorParallelSize => "tensor_parallel_size",
            Knob::KvPoolTokens => "kv_capacity_tokens",
            Knob::KvOffloading | Knob::KvBlocksOverride | Knob::KvCacheMemoryBytes => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    Model,
    ServedModelName,
    MaxNumSeqs,
    MaxModelLen,
    MaxNumBatchedTokens,
    GpuMemoryUtilization,
    MemFractionStatic,
    EnablePrefixCaching,
    EnableChunkedPrefill,
    KvCacheDtype,
    KvOffloadingSize,
    KvCacheMemoryBytes,
    MaxTotalTokens,
    DecodeLogInterval,
    TensorParallel,
    PipelineParallel,
    DataParallel,
    BlockSize,
    NumGpuBlocks,
    Quantization,
    Dtype,
    Speculative,
    NParallel,
    NCtx,
    CacheReuse,
    Ubatch,
    NBatch,
    Threads,
    NGpuLayers,
    KvUnified,
    ContBatching,
    FlashAttn,
    /// A known flag with no field (so its value is not mistaken for a positional).
    Ignore,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    /// Takes a value.
    Value,
    /// A boolean switch; the bool is its meaning when given bare (`--no-x` → false).
    Flag(bool),
    /// An optional value from a closed set, else bare.
    OptValue(&'static [&'static str]),
}

/// llama.cpp's `-fa` takes one of these, or nothing.
pub(crate) const FA_VALUES: &[&str] = &[
    "on", "off", "auto", "true", "false", "1", "0", "enabled", "disabled",
];

/// One row of an engine's flag table (`engine/<name>.rs`, `FLAGS`), read in both directions:
/// a command line's flag to the field it sets, and a prescription's knob to the text it writes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FlagRow {
    /// Its spellings on a command line.
    pub names: &'static [&'static str],
    pub field: Field,
    pub kind: Kind,
    /// The knob a prescription turns with this flag, and the text it writes (its first word
    /// is one of `names`: what is prescribed is read back).
    pub prescribes: Option<(Knob, &'static str)>,
}

impl FlagRow {
    /// The row also writes `knob`'s prescription, as `text`.
    pub(crate) const fn fix(self, knob: Knob, text: &'static str) -> FlagRow {
        FlagRow {
            prescribes: Some((knob, text)),
            ..self
        }
    }
}

/// A flag that takes a value.
pub(crate) const fn val(names: &'static [&'static str], field: Field) -> FlagRow {
    FlagRow {
        names,
        field,
        kind: Kind::Value,
        prescribes: None,
    }
}

/// A boolean switch; `bare` is its meaning when given without a value (`--no-x` → false).
pub(crate) const fn switch(names: &'static [&'static str], field: Field, bare: bool) -> FlagRow {
    FlagRow {
        names,
        field,
        kind: Kind::Flag(bare),
        prescribes: None,
    }
}

/// A flag with an optional value from a closed set.
pub(crate) const fn opt(
    names: &'static [&'static str],
    field: Field,
    accepted: &'static [&'static str],
) -> FlagRow {
    FlagRow {
        names,
        field,
        kind: Kind::OptValue(accepted),
        prescribes: None,
    }
}
