//! The `headroom.gguf/1` document: what a GGUF file holds, from its header and tensor infos.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{
    expert_count, Bytes, MetadataEntry, Model, ModelFacts, Params, Shard, TensorInfo, Value,
};

pub const SCHEMA: &str = "headroom.gguf/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GgufDoc {
    pub schema: String,
    pub file: String,
    pub architecture: Option<String>,
    pub name: Option<String>,
    pub version: u32,
    pub file_bytes: u64,
    pub alignment: u64,
    pub data_offset: u64,
    pub tensor_info_end: u64,
    pub header_padding: u64,
    pub shards: Vec<ShardDoc>,
    pub params: Params,
    pub bytes: Bytes,
    pub experts: Experts,
    pub model: Option<ModelFacts>,
    pub types: Vec<TypeMix>,
    pub notes: Vec<String>,
    /// The first shard's metadata.
    pub metadata: Vec<MetadataEntry>,
    pub tensors: Vec<TensorDoc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardDoc {
    pub index: usize,
    pub path: String,
    pub file_bytes: u64,
    pub version: u32,
    pub split_no: Option<u64>,
    pub tensor_count: usize,
    pub metadata_count: usize,
    pub alignment: u64,
    pub tensor_info_end: u64,
    pub header_padding: u64,
    pub data_offset: u64,
    pub data_bytes: u64,
    pub tensor_bytes: u64,
    pub padding: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Experts {
    pub count: Option<u64>,
    pub used: Option<u64>,
    pub shared: Option<u64>,
    pub tensors: u64,
}

/// Tensors of one ggml type: how many, their params and bytes (by the type table).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypeMix {
    #[serde(rename = "type")]
    pub ty: String,
    pub tensors: u64,
    pub params: u64,
    pub bytes: u64,
    pub bits_per_param: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorDoc {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub type_id: u32,
    pub shape: Vec<u64>,
    pub n_elements: u64,
    pub shard: usize,
    pub offset: u64,
    pub size: u64,
    pub type_size: u64,
    pub padding: u64,
    pub experts: Option<u64>,
}

impl GgufDoc {
    /// The document of an opened model; `file` is the path it was opened by.
    pub fn new(file: &std::path::Path, model: &Model) -> GgufDoc {
        let first = &model.shards[0];
        let acc = model.accounting();
        GgufDoc {
            schema: SCHEMA.to_string(),
            file: file.display().to_string(),
            architecture: model.architecture().map(str::to_string),
            name: model
                .get("general.name")
                .and_then(Value::as_str)
                .map(str::to_string),
            version: first.version,
            file_bytes: model.file_bytes(),
            alignment: first.alignment,
            data_offset: first.data_offset,
            tensor_info_end: first.tensor_info_end,
            header_padding: first.header_padding(),
            shards: model
                .shards
                .iter()
                .enumerate()
                .map(|(i, s)| ShardDoc::new(i, s))
                .collect(),
            params: acc.params,
            bytes: acc.bytes,
            experts: Experts {
                count: acc
                    .n_experts
                    .or_else(|| model.arch_get("expert_count").and_then(Value::as_u64)),
                used: acc.n_experts_used,
                shared: model
                    .arch_get("expert_shared_count")
                    .and_then(Value::as_u64),
                tensors: acc.expert_tensors,
            },
            model: model.facts().ok(),
            types: type_mix(model),
            notes: acc.notes,
            metadata: first.metadata.iter().map(MetadataEntry::from).collect(),
            tensors: model.tensors().map(|(i, t)| TensorDoc::new(i, t)).collect(),
        }
    }
}

/// Tensors grouped by ggml type, the most bytes first.
fn type_mix(model: &Model) -> Vec<TypeMix> {
    let mut mix: BTreeMap<(u32, &'static str), TypeMix> = BTreeMap::new();
    for (_, t) in model.tensors() {
        let m = mix
            .entry((t.ggml_type.id, t.ggml_type.name))
            .or_insert(TypeMix {
                ty: t.ggml_type.name.to_string(),
                tensors: 0,
                params: 0,
                bytes: 0,
                bits_per_param: 0.0,
            });
        m.tensors += 1;
        m.params += t.n_elements;
        m.bytes += t.type_size;
    }
    let mut types: Vec<TypeMix> = mix.into_values().collect();
    for m in &mut types {
        m.bits_per_param = if m.params == 0 {
            0.0
        } else {
            m.bytes as f64 * 8.0 / m.params as f64
        };
    }
    types.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.ty.cmp(&b.ty)));
    types
}

impl ShardDoc {
    fn new(index: usize, s: &Shard) -> ShardDoc {
        ShardDoc {
            index,
            path: s.path.clone(),
            file_bytes: s.file_size,
            version: s.version,
            split_no: s.get("split.no").and_then(Value::as_u64),
            tensor_count: s.tensors.len(),
            metadata_count: s.metadata.len(),
            alignment: s.alignment,
            tensor_info_end: s.tensor_info_end,
            header_padding: s.header_padding(),
            data_offset: s.data_offset,
            data_bytes: s.data_bytes(),
            tensor_bytes: s.tensor_bytes(),
            padding: s.padding(),
        }
    }
}

impl TensorDoc {
    fn new(shard: usize, t: &TensorInfo) -> TensorDoc {
        TensorDoc {
            name: t.name.clone(),
            ty: t.ggml_type.name.to_string(),
            type_id: t.ggml_type.id,
            shape: t.shape().to_vec(),
            n_elements: t.n_elements,
            shard,
            offset: t.offset,
            size: t.size,
            type_size: t.type_size,
            padding: t.padding(),
            experts: expert_count(t),
        }
    }
}
