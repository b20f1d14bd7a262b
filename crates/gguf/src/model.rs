//! A model as one or more shards: split-file discovery, and the parameter and byte accounting
//! (total, routed experts, one expert, active per token).

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::reader::{read_shard_from, ReadOptions, Shard, TensorInfo};
use crate::value::Value;
use crate::{GgufError, ModelFacts};

/// Read one GGUF file (one shard, whatever it says about splits).
pub fn read_shard(path: &Path, opts: &ReadOptions) -> Result<Shard, GgufError> {
    let name = path.display().to_string();
    let io = |error| GgufError::Io {
        path: name.clone(),
        error,
    };
    let file = File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    read_shard_from(file, len, &name, opts)
}

/// A model: its shards in split order (one for an unsplit file).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub shards: Vec<Shard>,
}

/// Element counts. A routed-expert tensor is one whose name holds `_exps.` (gguf-py's test)
/// with two or more dimensions; its slowest dimension counts the experts (ne2 for 3-D weights,
/// ne1 for 2-D biases), so one expert is a contiguous slice of size / n_experts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// All tensor elements.
    pub total: u64,
    /// Elements in routed-expert tensors, all experts.
    pub expert: u64,
    /// Elements of one expert: Σ over expert tensors of elements / n_experts.
    pub per_expert: u64,
    /// Everything not in routed-expert tensors (attention, norms, embeddings, shared experts).
    pub shared: u64,
    /// Elements of lookup tables a token reads one row of: the input embedding when the file
    /// has its own output head (untied), and per-layer token embeddings. Left out of `active`.
    #[serde(default)]
    pub gathered: u64,
    /// Elements read per token: shared less the gathered tables, plus the used experts' slices.
    pub active: u64,
}

/// Bytes of tensor data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bytes {
    /// Σ extents from consecutive offsets (each tensor's padding included), all shards.
    pub weights: u64,
    /// Σ sizes by the type table.
    pub type_table: u64,
    /// weights − type_table: padding after tensors (and any trailing bytes).
    pub padding: u64,
    /// Σ type-table sizes of routed-expert tensors.
    pub expert: u64,
    /// One expert's bytes: Σ over expert tensors of type size / n_experts.
    pub per_expert: u64,
    /// Σ type-table sizes of the gathered tables (see [`Params::gathered`]).
    #[serde(default)]
    pub gathered: u64,
    /// Bytes read per token: weights minus the unused experts' slices and the gathered tables.
    pub active: u64,
}

/// Parameter and byte accounting, with what it had to assume.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Accounting {
    pub params: Params,
    pub bytes: Bytes,
    /// Experts per routed-expert tensor (from the tensors), when all agree.
    pub n_experts: Option<u64>,
    /// `{arch}.expert_used_count`.
    pub n_experts_used: Option<u64>,
    /// Number of routed-expert tensors.
    pub expert_tensors: u64,
    /// Assumptions made, in words (empty when the figures need none).
    pub notes: Vec<String>,
}

/// Experts in a routed-expert tensor, or `None` for any other tensor.
pub fn expert_count(t: &TensorInfo) -> Option<u64> {
    let shape = t.shape();
    if t.name.contains("_exps.") && shape.len() >= 2 {
        shape.last().copied().filter(|&e| e > 0)
    } else {
        None
    }
}

/// Whether a tensor is a lookup table a token reads one row of (`get_rows` in llama.cpp), given
/// whether the file has its own output head. A tied input embedding is also the output head,
/// which every token reads whole, so it stays in the stream.
pub fn is_gathered(t: &TensorInfo, has_output_head: bool) -> bool {
    match t.name.as_str() {
        "token_embd.weight" => has_output_head,
        // Gemma 3n's per-layer embeddings: looked up by token id, never multiplied whole.
        "per_layer_token_embd.weight" => true,
        _ => false,
    }
}

/// Split-file name parts: `<prefix>-<no>-of-<count>.gguf` with zero-padded numbers.
struct SplitName {
    prefix: String,
    width: usize,
    count_text: String,
    no: u64,
    count: u64,
}

fn split_name(path: &Path) -> Option<SplitName> {
    let file = path.file_name()?.to_str()?;
    let stem = file.strip_suffix(".gguf")?;
    let (before, count_text) = stem.rsplit_once("-of-")?;
    let (prefix, no_text) = before.rsplit_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(no_text) || !digits(count_text) {
        return None;
    }
    Some(SplitName {
        prefix: prefix.to_string(),
        width: no_text.len(),
        count_text: count_text.to_string(),
        no: no_text.parse().ok()?,
        count: count_text.parse().ok()?,
    })
}

fn split_err(path: &str, what: String) -> GgufError {
    GgufError::Split {
        path: path.to_string(),
        what,
    }
}

impl Model {
    /// Open a GGUF file; when it is one shard of a split model (`split.count` > 1), find and
    /// read every sibling `<name>-0000N-of-0000M.gguf` beside it, whichever shard was named.
    pub fn open(path: &Path, opts: &ReadOptions) -> Result<Model, GgufError> {
        let first = read_shard(path, opts)?;
        let count = first
            .get("split.count")
            .and_then(Value::as_u64)
            .unwrap_or(1);
        if count <= 1 {
            return Model::from_shards(vec![first]);
        }
        let shown = path.display().to_string();
        let name = split_name(path).ok_or_else(|| {
            split_err(
                &shown,
                format!(
                    "split.count is {count} but the file name does not follow <name>-00001-of-{count:05}.gguf, \
                     so its sibling shards cannot be found"
                ),
            )
        })?;
        if name.count != count || name.no == 0 || name.no > count {
            return Err(split_err(
                &shown,
                format!(
                    "the name says shard {} of {} but split.count is {count}",
                    name.no, name.count
                ),
            ));
        }
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut given = Some(first);
        let mut shards = Vec::new();
        for no in 1..=count {
            let sibling: PathBuf = dir.join(format!(
                "{}-{:0w$}-of-{}.gguf",
                name.prefix,
                no,
                name.count_text,
                w = name.width
            ));
            if no == name.no {
                shards.extend(given.take());
                continue;
            }
            if !sibling.exists() {
                return Err(split_err(
                    &sibling.display().to_string(),
                    format!("shard {no} of {count} is missing (named by {shown})"),
                ));
            }
            shards.push(read_shard(&sibling, opts)?);
        }
        Model::from_shards(shards)
    }

    /// Assemble shards given in split order, checking that they belong together.
    pub fn from_shards(shards: Vec<Shard>) -> Result<Model, GgufError> {
        let count = shards.len() as u64;
        if count == 0 {
            return Err(split_err("(none)", "no shards".into()));
        }
        if count > 1 {
            for (i, s) in shards.iter().enumerate() {
                let no = s.get("split.no").and_then(Value::as_u64);
                let c = s.get("split.count").and_then(Value::as_u64);
                if no != Some(i as u64) || c != Some(count) {
                    return Err(split_err(
                        &s.path,
                        format!(
                            "expected split.no = {i} and split.count = {count}, found {} and {}",
                            no.map_or("none".into(), |v| v.to_string()),
                            c.map_or("none".into(), |v| v.to_string())
                        ),
                    ));
                }
            }
            let mut seen = std::collections::HashSet::new();
            for s in &shards {
                for t in &s.tensors {
                    if !seen.insert(t.name.as_str()) {
                        return Err(split_err(
                            &s.path,
                            format!("tensor '{}' appears in more than one shard", t.name),
                        ));
                    }
                }
            }
            let total: u64 = shards.iter().map(|s| s.tensors.len() as u64).sum();
            if let Some(want) = shards[0].get("split.tensors.count").and_then(Value::as_u64) {
                if want != total {
                    return Err(split_err(
                        &shards[0].path,
                        format!("split.tensors.count is {want} but the {count} shards hold {total} tensors"),
                    ));
                }
            }
        }
        Ok(Model { shards })
    }

    /// Metadata lookup. The first shard carries the model's metadata; the others usually only
    /// their split keys, so the first one to have the key wins.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.shards.iter().find_map(|s| s.get(key))
    }

    pub fn architecture(&self) -> Option<&str> {
        self.get("general.architecture").and_then(Value::as_str)
    }

    /// `{architecture}.{suffix}`.
    pub fn arch_get(&self, suffix: &str) -> Option<&Value> {
        let arch = self.architecture()?;
        self.get(&format!("{arch}.{suffix}"))
    }

    /// Every tensor with the index of its shard.
    pub fn tensors(&self) -> impl Iterator<Item = (usize, &TensorInfo)> {
        self.shards
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.tensors.iter().map(move |t| (i, t)))
    }

    pub fn file_bytes(&self) -> u64 {
        self.shards.iter().map(|s| s.file_size).sum()
    }

    /// Params and bytes: total, routed experts, one expert, active per token.
    pub fn accounting(&self) -> Accounting {
        let mut notes = Vec::new();
        let used_meta = self.arch_get("expert_used_count").and_then(Value::as_u64);
        let count_meta = self.arch_get("expert_count").and_then(Value::as_u64);

        let (mut total, mut expert, mut per_expert) = (0u64, 0u64, 0u64);
        let (mut weights, mut type_table, mut expert_bytes, mut per_expert_bytes) =
            (0u64, 0u64, 0u64, 0u64);
        let (mut unused_params, mut unused_bytes) = (0u64, 0u64);
        let (mut gathered, mut gathered_bytes) = (0u64, 0u64);
        let mut counts = std::collections::BTreeSet::new();
        let mut expert_tensors = 0u64;
        let has_output_head = self.tensors().any(|(_, t)| t.name == "output.weight");
        for (_, t) in self.tensors() {
            total += t.n_elements;
            weights += t.size;
            type_table += t.type_size;
            if is_gathered(t, has_output_head) {
                gathered += t.n_elements;
                gathered_bytes += t.type_size;
            }
            let Some(e) = expert_count(t) else { continue };
            expert_tensors += 1;
            counts.insert(e);
            let (p1, b1) = (t.n_elements / e, t.type_size / e);
            expert += t.n_elements;
            expert_bytes += t.type_size;
            per_expert += p1;
            per_expert_bytes += b1;
            let used = match used_meta {
                Some(u) => u.min(e),
                None => e,
            };
            unused_params += p1 * (e - used);
            unused_bytes += b1 * (e - used);
        }
        if expert_tensors > 0 {
            if used_meta.is_none() {
                notes.push(
                    "routed-expert tensors but no expert_used_count: active counts every expert"
                        .to_string(),
                );
            }
            if let Some(u) = used_meta {
                if counts.iter().any(|&e| u > e) {
                    notes.push(format!(
                        "expert_used_count {u} exceeds the experts in some tensors"
                    ));
                }
            }
            if counts.len() > 1 {
                notes.push(format!(
                    "expert tensors disagree on the expert count: {counts:?}"
                ));
            }
            if let Some(m) = count_meta {
                if counts.iter().any(|&e| e != m) {
                    notes.push(format!(
                        "expert_count is {m} but expert tensors hold {counts:?}"
                    ));
                }
            }
        } else if count_meta.is_some_and(|c| c > 1) {
            notes.push(format!(
                "expert_count is {} but no *_exps tensors were found: active = total",
                count_meta.unwrap_or(0)
            ));
        }
        Accounting {
            params: Params {
                total,
                expert,
                per_expert,
                shared: total - expert,
                gathered,
                active: total - unused_params - gathered,
            },
            bytes: Bytes {
                weights,
                type_table,
                padding: weights - type_table,
                expert: expert_bytes,
                per_expert: per_expert_bytes,
                gathered: gathered_bytes,
                active: weights - unused_bytes - gathered_bytes,
            },
            n_experts: if counts.len() == 1 {
                counts.first().copied()
            } else {
                None
            },
            n_experts_used: used_meta,
            expert_tensors,
            notes,
        }
    }

    /// The figures the ceiling needs.
    pub fn facts(&self) -> Result<ModelFacts, GgufError> {
        let first = &self.shards[0];
        let architecture =
            self.architecture()
                .map(str::to_string)
                .ok_or_else(|| GgufError::Format {
                    path: first.path.clone(),
                    offset: 0,
                    what: "no general.architecture string in the metadata".into(),
                })?;
        let u = |suffix: &str| self.arch_get(suffix).and_then(Value::as_u64);
        // Per-layer keys may be a scalar or one value per layer (OpenELM, Nemotron-NAS).
        let per_layer = |suffix: &str| -> (Option<u64>, Option<Vec<u64>>) {
            match self.arch_get(suffix) {
                Some(v @ Value::Array(_)) => {
                    let list = v.as_u64_list();
                    (list.as_ref().and_then(|l| l.iter().copied().max()), list)
                }
                Some(v) => (v.as_u64(), None),
                None => (None, None),
            }
        };
        let acc = self.accounting();
        let n_layers = u("block_count");
        let hidden = u("embedding_length");
        let (n_heads, _) = per_layer("attention.head_count");
        let (kv_max, kv_list) = per_layer("attention.head_count_kv");
        // llama.cpp reads an absent head_count_kv as n_heads (plain multi-head attention).
        let n_kv_heads = kv_max.or(n_heads);
        let head_dim = u("attention.key_length").or_else(|| match (hidden, n_heads) {
            (Some(h), Some(n)) if n > 0 => Some(h / n),
            _ => None,
        });
        let head_dim_v = u("attention.value_length").or(head_dim);
        let vocab_size = u("vocab_size")
            .or_else(|| self.get("tokenizer.ggml.tokens").and_then(Value::array_len));
        Ok(ModelFacts {
            architecture,
            name: self
                .get("general.name")
                .and_then(Value::as_str)
                .map(str::to_string),
            n_layers,
            hidden,
            n_heads,
            n_kv_heads,
            head_dim,
            context_length: u("context_length"),
            n_experts: u("expert_count").or(acc.n_experts),
            n_experts_used: acc.n_experts_used,
            n_shared_experts: u("expert_shared_count"),
            sliding_window: u("attention.sliding_window"),
            kv_lora_rank: u("attention.kv_lora_rank"),
            rope_dim: u("rope.dimension_count"),
            params_total: acc.params.total,
            params_expert: acc.params.expert,
            params_active: acc.params.active,
            params_gathered: acc.params.gathered,
            weight_bytes: acc.bytes.weights,
            active_bytes: acc.bytes.active,
            params_per_expert: acc.params.per_expert,
            head_dim_v,
            kv_heads_per_layer: kv_list,
            vocab_size,
        })
    }
}
