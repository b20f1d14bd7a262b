//! The GPU and model catalogs: `catalog/gpus.toml` and `catalog/models.toml`, embedded in the
//! binary, plus an optional user file in the same format that overrides or extends them.
//!
//! Every GPU figure carries its own `source`; every model entry carries the `source` of its
//! architecture figures and of its parameter counts. Names are looked up loosely (see
//! [`normalize`]); an ambiguous name or a miss returns the candidates for a "did you mean" list.

use serde::{Deserialize, Serialize};

use crate::bits::weight_format;

const EMBEDDED_GPUS: &str = include_str!("../../../catalog/gpus.toml");
const EMBEDDED_MODELS: &str = include_str!("../../../catalog/models.toml");

/// A catalog figure and where it was published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sourced {
    pub value: f64,
    pub source: String,
}

/// One GPU. Throughput figures are dense (no sparsity) tensor-core rates per GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    pub id: String,
    pub name: String,
    pub vendor: String,
    pub aliases: Vec<String>,
    /// Memory per GPU, GiB (the marketing "GB" figure of these parts is the GiB count).
    pub memory_gib: Sourced,
    /// Peak memory bandwidth per GPU, GB/s (1e9 bytes/s).
    pub bandwidth_gbps: Sourced,
    /// Dense BF16/FP16 tensor TFLOPS (FP32 accumulate where the part distinguishes).
    pub bf16_tflops: Option<Sourced>,
    /// Dense FP8 tensor TFLOPS, where the part has FP8 tensor cores.
    pub fp8_tflops: Option<Sourced>,
    /// Dense FP4 tensor TFLOPS, where the part has FP4 tensor cores.
    pub fp4_tflops: Option<Sourced>,
    /// Vector FP32 TFLOPS: the compute figure for parts without 16-bit tensor cores.
    pub fp32_tflops: Option<Sourced>,
    /// The card's own PCIe link (the slot may train it narrower or slower).
    pub pcie: Option<SourcedLink>,
    pub note: Option<String>,
    /// "embedded" or the user catalog file it came from.
    pub origin: String,
}

/// A GPU's PCIe link and where it was published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourcedLink {
    pub gen: u8,
    pub lanes: u8,
    pub source: String,
}

impl SourcedLink {
    pub fn link(&self) -> crate::pcie::Link {
        crate::pcie::Link {
            gen: self.gen,
            lanes: self.lanes,
        }
    }
}

impl Gpu {
    /// Memory per GPU in bytes.
    pub fn memory_bytes(&self) -> f64 {
        self.memory_gib.value * GIB
    }
}

pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// Attention layout, which decides the KV cache size and the default attention coefficient.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Attention {
    /// Multi-head: kv_heads == heads.
    Mha,
    /// Grouped-query (MQA is the kv_heads == 1 case).
    Gqa,
    /// Multi-head latent attention (DeepSeek): one compressed latent per token per layer.
    Mla,
}

/// One model, as its published config describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    pub id: String,
    pub name: String,
    pub aliases: Vec<String>,
    pub arch: String,
    /// Where the architecture figures come from (the published config).
    pub source: String,
    /// Where the parameter counts come from (model card, or computed from the config).
    pub params_source: String,
    pub params_total: f64,
    /// Parameters read per decoded token (MoE: experts on the path; multimodal: the text
    /// stack). Equal to `params_total` for dense text models.
    pub params_active: f64,
    pub layers: u64,
    pub hidden: u64,
    pub heads: u64,
    pub kv_heads: Option<u64>,
    pub head_dim: Option<u64>,
    pub vocab: Option<u64>,
    pub attention: Attention,
    pub kv_lora_rank: Option<u64>,
    pub rope_dim: Option<u64>,
    pub sliding_window: Option<u64>,
    /// How many of `layers` use the sliding window (the rest attend to the full context).
    pub sliding_layers: Option<u64>,
    /// Attention FLOPs per layer per token² of prompt (prefill's quadratic term), when the
    /// default `2 × hidden` would be wrong for this model.
    pub attn_coeff: Option<f64>,
    pub experts: Option<u64>,
    pub experts_used: Option<u64>,
    pub shared_experts: Option<u64>,
    /// Layers that carry routed experts (DeepSeek keeps its first layers dense).
    pub moe_layers: Option<u64>,
    /// Parameters of one routed expert in one layer.
    pub params_per_expert: Option<f64>,
    /// Native checkpoint format of the weights (`bf16`, `fp8`, `mxfp4` ...).
    pub dtype: String,
    /// Format of the routed experts when it differs from `dtype` (gpt-oss: mxfp4 experts,
    /// bf16 elsewhere).
    pub expert_dtype: Option<String>,
    pub note: Option<String>,
    pub origin: String,
}

/// Catalog parse and validation errors, naming the file and the entry.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("{origin}: {message}")]
    Parse { origin: String, message: String },
    #[error("reading catalog {origin}: {message}")]
    Read { origin: String, message: String },
    #[error("{origin}: {kind} '{id}': {message}")]
    Invalid {
        origin: String,
        kind: &'static str,
        id: String,
        message: String,
    },
}

/// What a lookup found when it did not find exactly one entry.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LookupError {
    #[error("{kind} '{query}' is ambiguous; did you mean one of: {}", .candidates.join(", "))]
    Ambiguous {
        kind: &'static str,
        query: String,
        candidates: Vec<String>,
    },
    #[error("{kind} '{query}' is not in the catalog{}", did_you_mean(.suggestions))]
    NotFound {
        kind: &'static str,
        query: String,
        suggestions: Vec<String>,
    },
}

fn did_you_mean(s: &[String]) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!("; did you mean: {}", s.join(", "))
    }
}

/// A successful lookup: the entry and whether the name matched exactly or loosely.
#[derive(Debug, Clone, PartialEq)]
pub struct Found<'a, T> {
    pub entry: &'a T,
    /// `None` for an exact (normalized) match; the key that matched for a unique partial one.
    pub loose_match: Option<String>,
}

/// The merged catalog.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub gpus: Vec<Gpu>,
    pub models: Vec<Model>,
}

/// Lower-case, drop dashes, underscores and spaces, and a leading `org/` (Hugging Face repo ids),
/// so `H100-SXM`, `h100 sxm` and `h100_sxm` are one name.
pub fn normalize(name: &str) -> String {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.chars()
        .filter(|c| !matches!(c, '-' | '_' | ' '))
        .flat_map(|c| c.to_lowercase())
        .collect()
}

/// Model names often carry a chat-tuning suffix that does not change the architecture.
fn strip_tuning_suffix(n: &str) -> Option<&str> {
    ["instruct", "chat", "it"]
        .iter()
        .find_map(|s| n.strip_suffix(s))
        .filter(|r| !r.is_empty())
}

trait Named {
    fn id(&self) -> &str;
    fn name(&self) -> &str;
    fn aliases(&self) -> &[String];
    fn keys(&self) -> Vec<String> {
        let mut k = vec![normalize(self.id()), normalize(self.name())];
        k.extend(self.aliases().iter().map(|a| normalize(a)));
        k
    }
}

impl Named for Gpu {
    fn id(&self) -> &str {
        &self.id
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn aliases(&self) -> &[String] {
        &self.aliases
    }
}

impl Named for Model {
    fn id(&self) -> &str {
        &self.id
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn aliases(&self) -> &[String] {
        &self.aliases
    }
}

fn lookup<'a, T: Named>(
    entries: &'a [T],
    kind: &'static str,
    query: &str,
    strip_suffix: bool,
) -> Result<Found<'a, T>, LookupError> {
    let q = normalize(query);
    let mut queries = vec![q.clone()];
    if strip_suffix {
        if let Some(s) = strip_tuning_suffix(&q) {
            queries.push(s.to_string());
        }
    }
    for q in &queries {
        let exact: Vec<&T> = entries.iter().filter(|e| e.keys().contains(q)).collect();
        match exact.len() {
            0 => {}
            1 => {
                return Ok(Found {
                    entry: exact[0],
                    loose_match: None,
                })
            }
            _ => {
                return Err(LookupError::Ambiguous {
                    kind,
                    query: query.to_string(),
                    candidates: exact.iter().map(|e| e.name().to_string()).collect(),
                })
            }
        }
    }
    // A unique partial match ("3090" → RTX 3090); several are a "did you mean".
    let partial: Vec<(&T, String)> = entries
        .iter()
        .filter_map(|e| {
            e.keys()
                .into_iter()
                .find(|k| q.len() >= 2 && k.contains(q.as_str()))
                .map(|k| (e, k))
        })
        .collect();
    match partial.len() {
        0 => {}
        1 => {
            return Ok(Found {
                entry: partial[0].0,
                loose_match: Some(partial[0].0.name().to_string()),
            })
        }
        _ => {
            return Err(LookupError::Ambiguous {
                kind,
                query: query.to_string(),
                candidates: partial.iter().map(|(e, _)| e.name().to_string()).collect(),
            })
        }
    }
    // Suggestions: the entries nearest by edit distance, to a whole key or to its first
    // |query| characters (a typo in a shortened name), keeping only the nearest group.
    let qlen = q.chars().count();
    let near: Vec<(usize, &str)> = entries
        .iter()
        .filter_map(|e| {
            let d = e
                .keys()
                .iter()
                .map(|k| {
                    let head: String = k.chars().take(qlen).collect();
                    edit_distance(&q, k).min(edit_distance(&q, &head))
                })
                .min()?;
            (d <= (qlen / 3).max(2)).then_some((d, e.name()))
        })
        .collect();
    let best = near.iter().map(|(d, _)| *d).min();
    let near: Vec<(usize, &str)> = near.into_iter().filter(|(d, _)| Some(*d) == best).collect();
    Err(LookupError::NotFound {
        kind,
        query: query.to_string(),
        suggestions: near.iter().take(6).map(|(_, n)| n.to_string()).collect(),
    })
}

/// Levenshtein distance, for suggestions.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Largest user catalog read (see [`Catalog::from_user_reader`]).
pub const MAX_USER_FILE_BYTES: u64 = 4 << 20;

impl Catalog {
    /// The catalogs compiled into the binary.
    pub fn embedded() -> Result<Catalog, CatalogError> {
        let mut c = Catalog::default();
        c.merge(EMBEDDED_GPUS, "catalog/gpus.toml", true)?;
        c.merge(EMBEDDED_MODELS, "catalog/models.toml", true)?;
        Ok(c)
    }

    /// The embedded catalogs with a user file's `[[gpu]]` and `[[model]]` entries laid over
    /// them: an entry whose id matches an embedded one replaces it, others are added. Figures in
    /// a user file may be bare numbers; their source then reads "user catalog <origin>".
    pub fn with_user_file(text: &str, origin: &str) -> Result<Catalog, CatalogError> {
        let mut c = Catalog::embedded()?;
        c.merge(text, origin, false)?;
        Ok(c)
    }

    /// [`Catalog::with_user_file`] on what `r` yields, read with a bound: a catalog is a few
    /// KiB of TOML, so a larger input (a device, a sparse file, the wrong file) is refused
    /// after [`MAX_USER_FILE_BYTES`] instead of read whole. `origin` names it in errors.
    pub fn from_user_reader(r: impl std::io::Read, origin: &str) -> Result<Catalog, CatalogError> {
        use std::io::Read;
        let read = |message: String| CatalogError::Read {
            origin: origin.to_string(),
            message,
        };
        let mut bytes = Vec::new();
        r.take(MAX_USER_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| read(e.to_string()))?;
        if bytes.len() as u64 > MAX_USER_FILE_BYTES {
            return Err(read(format!(
                "larger than {} MiB: not a catalog",
                MAX_USER_FILE_BYTES >> 20
            )));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            read(format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ))
        })?;
        Catalog::with_user_file(&text, origin)
    }

    /// Parse `text` (a TOML file with `[[gpu]]` and/or `[[model]]` tables) and lay its entries
    /// over this catalog. `require_sources` rejects figures without a source (the embedded
    /// catalogs must cite every figure).
    pub fn merge(
        &mut self,
        text: &str,
        origin: &str,
        require_sources: bool,
    ) -> Result<(), CatalogError> {
        let file: RawFile = toml::from_str(text).map_err(|e| CatalogError::Parse {
            origin: origin.to_string(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let ctx = Ctx {
            origin,
            require_sources,
        };
        for raw in file.gpu {
            let gpu = ctx.gpu(raw)?;
            upsert(&mut self.gpus, gpu, |g| &g.id);
        }
        for raw in file.model {
            let model = ctx.model(raw)?;
            upsert(&mut self.models, model, |m| &m.id);
        }
        self.check_unique_names(origin)
    }

    /// Aliases may be shared (one name for two memory sizes: the lookup then asks for the
    /// size); an entry's own id and name may not be a key of any other entry, so each entry
    /// stays reachable by its id and its name.
    fn check_unique_names(&self, origin: &str) -> Result<(), CatalogError> {
        fn check<T: Named>(
            entries: &[T],
            kind: &'static str,
            origin: &str,
        ) -> Result<(), CatalogError> {
            for (i, e) in entries.iter().enumerate() {
                for own in [normalize(e.id()), normalize(e.name())] {
                    if let Some(other) = entries
                        .iter()
                        .enumerate()
                        .find(|(j, o)| *j != i && o.keys().contains(&own))
                    {
                        return Err(CatalogError::Invalid {
                            origin: origin.to_string(),
                            kind,
                            id: e.id().to_string(),
                            message: format!("name '{own}' is also used by '{}'", other.1.id()),
                        });
                    }
                }
            }
            Ok(())
        }
        check(&self.gpus, "gpu", origin)?;
        check(&self.models, "model", origin)
    }

    /// Find a GPU by a loose name.
    pub fn gpu(&self, name: &str) -> Result<Found<'_, Gpu>, LookupError> {
        lookup(&self.gpus, "GPU", name, false)
    }

    /// Find a model by a loose name (an `org/` prefix and an `-Instruct`/`-it`/`-chat` suffix are
    /// ignored when nothing matches with them).
    pub fn model(&self, name: &str) -> Result<Found<'_, Model>, LookupError> {
        lookup(&self.models, "model", name, true)
    }
}

fn upsert<T>(list: &mut Vec<T>, item: T, id: impl Fn(&T) -> &String) {
    let key = normalize(id(&item));
    match list.iter_mut().find(|e| normalize(id(e)) == key) {
        Some(slot) => *slot = item,
        None => list.push(item),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    gpu: Vec<RawGpu>,
    #[serde(default)]
    model: Vec<RawModel>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawSourced {
    Full { value: f64, source: String },
    Bare(f64),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGpu {
    id: String,
    name: String,
    vendor: String,
    #[serde(default)]
    aliases: Vec<String>,
    memory_gib: RawSourced,
    bandwidth_gbps: RawSourced,
    bf16_tflops: Option<RawSourced>,
    fp8_tflops: Option<RawSourced>,
    fp4_tflops: Option<RawSourced>,
    fp32_tflops: Option<RawSourced>,
    pcie: Option<RawLink>,
    note: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLink {
    gen: u8,
    lanes: u8,
    source: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModel {
    id: String,
    name: String,
    #[serde(default)]
    aliases: Vec<String>,
    arch: String,
    source: Option<String>,
    params_source: Option<String>,
    params_total: f64,
    params_active: Option<f64>,
    layers: u64,
    hidden: u64,
    heads: u64,
    kv_heads: Option<u64>,
    head_dim: Option<u64>,
    vocab: Option<u64>,
    attention: Attention,
    kv_lora_rank: Option<u64>,
    rope_dim: Option<u64>,
    sliding_window: Option<u64>,
    sliding_layers: Option<u64>,
    attn_coeff: Option<f64>,
    experts: Option<u64>,
    experts_used: Option<u64>,
    shared_experts: Option<u64>,
    moe_layers: Option<u64>,
    params_per_expert: Option<f64>,
    dtype: String,
    expert_dtype: Option<String>,
    note: Option<String>,
}

struct Ctx<'a> {
    origin: &'a str,
    require_sources: bool,
}

impl Ctx<'_> {
    fn invalid(&self, kind: &'static str, id: &str, message: impl Into<String>) -> CatalogError {
        CatalogError::Invalid {
            origin: self.origin.to_string(),
            kind,
            id: id.to_string(),
            message: message.into(),
        }
    }

    fn sourced(&self, id: &str, field: &str, raw: RawSourced) -> Result<Sourced, CatalogError> {
        let (value, source) = match raw {
            RawSourced::Full { value, source } => (value, source),
            RawSourced::Bare(_) if self.require_sources => {
                return Err(self.invalid("gpu", id, format!("{field} has no source")))
            }
            RawSourced::Bare(value) => (value, format!("user catalog {}", self.origin)),
        };
        if !(value.is_finite() && value > 0.0) {
            return Err(self.invalid(
                "gpu",
                id,
                format!("{field} must be a positive number, got {value}"),
            ));
        }
        Ok(Sourced { value, source })
    }

    fn opt_sourced(
        &self,
        id: &str,
        field: &str,
        raw: Option<RawSourced>,
    ) -> Result<Option<Sourced>, CatalogError> {
        raw.map(|r| self.sourced(id, field, r)).transpose()
    }

    fn link(&self, id: &str, raw: RawLink) -> Result<SourcedLink, CatalogError> {
        crate::pcie::Link::new(raw.gen, raw.lanes)
            .map_err(|e| self.invalid("gpu", id, format!("pcie: {e}")))?;
        let source = match (raw.source, self.require_sources) {
            (Some(s), _) => s,
            (None, true) => return Err(self.invalid("gpu", id, "pcie has no source")),
            (None, false) => format!("user catalog {}", self.origin),
        };
        Ok(SourcedLink {
            gen: raw.gen,
            lanes: raw.lanes,
            source,
        })
    }

    fn gpu(&self, r: RawGpu) -> Result<Gpu, CatalogError> {
        let id = r.id.clone();
        let gpu = Gpu {
            memory_gib: self.sourced(&id, "memory_gib", r.memory_gib)?,
            bandwidth_gbps: self.sourced(&id, "bandwidth_gbps", r.bandwidth_gbps)?,
            bf16_tflops: self.opt_sourced(&id, "bf16_tflops", r.bf16_tflops)?,
            fp8_tflops: self.opt_sourced(&id, "fp8_tflops", r.fp8_tflops)?,
            fp4_tflops: self.opt_sourced(&id, "fp4_tflops", r.fp4_tflops)?,
            fp32_tflops: self.opt_sourced(&id, "fp32_tflops", r.fp32_tflops)?,
            pcie: r.pcie.map(|l| self.link(&id, l)).transpose()?,
            id: r.id,
            name: r.name,
            vendor: r.vendor,
            aliases: r.aliases,
            note: r.note,
            origin: self.origin.to_string(),
        };
        // No compute figure is allowed (Apple publishes none for M3 and later): the decode
        // ceiling needs only the bandwidth, and the prefill ceiling then reads unknown.
        Ok(gpu)
    }

    fn model(&self, r: RawModel) -> Result<Model, CatalogError> {
        let id = r.id.clone();
        let bad = |m: String| self.invalid("model", &id, m);
        let source = match (r.source, self.require_sources) {
            (Some(s), _) => s,
            (None, true) => return Err(bad("no source".into())),
            (None, false) => format!("user catalog {}", self.origin),
        };
        let params_source = match (r.params_source, self.require_sources) {
            (Some(s), _) => s,
            (None, true) => return Err(bad("no params_source".into())),
            (None, false) => source.clone(),
        };
        let total = r.params_total;
        let active = r.params_active.unwrap_or(total);
        if !(total.is_finite() && total > 0.0 && active > 0.0 && active <= total) {
            return Err(bad(format!(
                "params must satisfy 0 < params_active ({active}) <= params_total ({total})"
            )));
        }
        if r.layers == 0 || r.hidden == 0 || r.heads == 0 {
            return Err(bad("layers, hidden and heads must be positive".into()));
        }
        for (field, name) in [
            ("dtype", Some(&r.dtype)),
            ("expert_dtype", r.expert_dtype.as_ref()),
        ] {
            if let Some(n) = name {
                if weight_format(n).is_none() {
                    return Err(bad(format!("{field} '{n}' is not a known weight format")));
                }
            }
        }
        match r.attention {
            Attention::Mla => {
                if r.kv_lora_rank.is_none() || r.rope_dim.is_none() {
                    return Err(bad("MLA needs kv_lora_rank and rope_dim".into()));
                }
            }
            Attention::Mha | Attention::Gqa => match (r.kv_heads, r.head_dim) {
                (Some(kv), Some(hd)) if kv > 0 && hd > 0 && kv <= r.heads => {}
                _ => {
                    return Err(bad(
                        "MHA/GQA needs kv_heads (<= heads) and head_dim, both positive".into(),
                    ))
                }
            },
        }
        if let Some(sl) = r.sliding_layers {
            if r.sliding_window.is_none() || sl > r.layers {
                return Err(bad(
                    "sliding_layers needs sliding_window and must not exceed layers".into(),
                ));
            }
        }
        let moe = [r.experts, r.experts_used, r.moe_layers]
            .iter()
            .filter(|x| x.is_some())
            .count();
        if moe != 0 && (moe != 3 || r.params_per_expert.is_none()) {
            return Err(bad(
                "an MoE entry needs experts, experts_used, moe_layers and params_per_expert".into(),
            ));
        }
        if let (Some(e), Some(u), Some(ml), Some(pe)) =
            (r.experts, r.experts_used, r.moe_layers, r.params_per_expert)
        {
            let routed = e as f64 * ml as f64 * pe;
            if u == 0 || u > e || ml > r.layers || routed >= total {
                return Err(bad(format!(
                    "MoE figures are inconsistent: experts_used {u} of {e}, moe_layers {ml} of {}, \
                     routed params {routed:.3e} vs total {total:.3e}",
                    r.layers
                )));
            }
        }
        Ok(Model {
            id: r.id,
            name: r.name,
            aliases: r.aliases,
            arch: r.arch,
            source,
            params_source,
            params_total: total,
            params_active: active,
            layers: r.layers,
            hidden: r.hidden,
            heads: r.heads,
            kv_heads: r.kv_heads,
            head_dim: r.head_dim,
            vocab: r.vocab,
            attention: r.attention,
            kv_lora_rank: r.kv_lora_rank,
            rope_dim: r.rope_dim,
            sliding_window: r.sliding_window,
            sliding_layers: r.sliding_layers,
            attn_coeff: r.attn_coeff,
            experts: r.experts,
            experts_used: r.experts_used,
            shared_experts: r.shared_experts,
            moe_layers: r.moe_layers,
            params_per_expert: r.params_per_expert,
            dtype: r.dtype,
            expert_dtype: r.expert_dtype,
            note: r.note,
            origin: self.origin.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cat() -> Catalog {
        Catalog::embedded().expect("embedded catalogs parse")
    }

    #[test]
    fn hostile_user_catalogs_are_refused_with_bounded_memory() {
        let zeros = std::io::Read::take(std::io::repeat(0), 10 << 30);
        let e = Catalog::from_user_reader(zeros, "/dev/zero")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/dev/zero") && e.contains("larger than 4 MiB"),
            "{e}"
        );
        let e = Catalog::from_user_reader(&b"[[gpu]]\nid = \"a\xff\"\n"[..], "bad.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.toml") && e.contains("offset 15"), "{e}");
        let e = Catalog::from_user_reader(&b"[[gpu]]\nid = \"x"[..], "cut.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("cut.toml"), "{e}");
    }

    /// Every GPU the issue lists, by the names people type.
    #[test]
    fn issue_gpus_are_catalogued() {
        let c = cat();
        let cases = [
            ("H100-SXM", "h100-sxm"),
            ("h100 pcie", "h100-pcie"),
            ("H100_NVL", "h100-nvl"),
            ("H200", "h200-sxm"),
            ("B200", "b200"),
            ("A100-SXM-40GB", "a100-sxm-40gb"),
            ("a100 80gb", "a100-sxm-80gb"),
            ("A100 PCIe 40GB", "a100-pcie-40gb"),
            ("A100 PCIe 80GB", "a100-pcie-80gb"),
            ("L40S", "l40s"),
            ("L4", "l4"),
            ("A10G", "a10g"),
            ("V100", "v100-sxm2-32gb"),
            ("RTX-3090", "rtx-3090"),
            ("rtx_4090", "rtx-4090"),
            ("RTX 5090", "rtx-5090"),
            ("Tesla P40", "tesla-p40"),
            ("MI300X", "mi300x"),
            ("mi325x", "mi325x"),
            ("Radeon AI PRO R9700", "radeon-ai-pro-r9700"),
            ("RX 9070 XT", "rx-9070-xt"),
        ];
        for (q, id) in cases {
            let f = c.gpu(q).unwrap_or_else(|e| panic!("{q}: {e}"));
            assert_eq!(f.entry.id, id, "{q}");
            assert_eq!(f.loose_match, None, "{q} should match exactly");
        }
    }

    /// The cards self-hosters post llama.cpp scoreboards for, by the names they type; a name
    /// two memory sizes share is ambiguous until the size is given.
    #[test]
    fn self_hosted_gpus_are_catalogued() {
        let c = cat();
        assert!(c.gpus.len() >= 150, "{} GPUs", c.gpus.len());
        for (q, id) in [
            ("RTX 3060 12GB", "rtx-3060-12gb"),
            ("rtx 3060 8gb", "rtx-3060-8gb"),
            ("RTX 3080 10GB", "rtx-3080-10gb"),
            ("RTX 4060 Ti 16GB", "rtx-4060-ti-16gb"),
            ("NVIDIA GeForce RTX 4070", "rtx-4070"),
            ("RTX 5060 Ti 16GB", "rtx-5060-ti-16gb"),
            ("GTX 1080 Ti", "gtx-1080-ti"),
            ("RTX A6000", "rtx-a6000"),
            ("A4000", "rtx-a4000"),
            ("RTX 6000 Ada", "rtx-6000-ada"),
            ("RTX PRO 6000", "rtx-pro-6000-blackwell"),
            ("Tesla T4", "tesla-t4"),
            ("T4", "tesla-t4"),
            ("Tesla P100-PCIE-16GB", "tesla-p100-pcie-16gb"),
            ("Tesla M40 24GB", "tesla-m40-24gb"),
            ("L40", "l40"),
            ("A40", "a40"),
            ("MI50 32GB", "mi50-32gb"),
            ("MI250X", "mi250x"),
            ("RX 7900 XTX", "rx-7900-xtx"),
            ("RX 9070", "rx-9070"),
            ("Arc A770 16GB", "arc-a770-16gb"),
            ("B580", "arc-b580"),
            ("M2 Ultra", "apple-m2-ultra"),
            ("Apple M1 Max", "apple-m1-max"),
            ("M4 Max 40c", "apple-m4-max-40c"),
        ] {
            let f = c.gpu(q).unwrap_or_else(|e| panic!("{q}: {e}"));
            assert_eq!(f.entry.id, id, "{q}");
            assert_eq!(f.loose_match, None, "{q} should match exactly");
        }
        for (q, n) in [("RTX 3060", 2), ("M3 Max", 2), ("MI50", 2), ("P100", 2)] {
            match c.gpu(q) {
                Err(LookupError::Ambiguous { candidates, .. }) => {
                    assert_eq!(candidates.len(), n, "{q}: {candidates:?}")
                }
                other => panic!("{q}: {other:?}"),
            }
        }
        // Variants that differ are separate entries with different figures.
        let bw = |q: &str| c.gpu(q).unwrap().entry.bandwidth_gbps.value;
        assert!(bw("RTX 3060 12GB") > bw("RTX 3060 8GB"));
        let l40 = c.gpu("L40").unwrap().entry.bf16_tflops.clone().unwrap().value;
        let l40s = c.gpu("L40S").unwrap().entry.bf16_tflops.clone().unwrap().value;
        assert!(l40s > 1.9 * l40, "L40 {l40} vs L40S {l40s}");
    }

    /// Each entry is reachable by its own id and its own name, exactly.
    #[test]
    fn every_gpu_resolves_by_its_id_and_name() {
        let c = cat();
        for g in &c.gpus {
            for q in [&g.id, &g.name] {
                let f = c.gpu(q).unwrap_or_else(|e| panic!("{q}: {e}"));
                assert_eq!(f.entry.id, g.id, "{q}");
                assert_eq!(f.loose_match, None, "{q}");
            }
        }
    }

    #[test]
    fn issue_models_are_catalogued() {
        let c = cat();
        let cases = [
            ("llama-3.1-8b", "llama-3.1-8b"),
            ("Llama-3.3-70B-Instruct", "llama-3.1-70b"),
            ("meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b"),
            ("qwen3-8b", "qwen3-8b"),
            ("Qwen/Qwen3-30B-A3B", "qwen3-30b-a3b"),
            ("qwen3 235b a22b", "qwen3-235b-a22b"),
            ("DeepSeek-R1", "deepseek-v3"),
            ("mixtral-8x7b", "mixtral-8x7b"),
            ("gpt-oss-120b", "gpt-oss-120b"),
            ("gemma-3-27b-it", "gemma-3-27b"),
            ("SmolLM2-135M", "smollm2-135m"),
            ("HuggingFaceTB/SmolLM2-135M-Instruct", "smollm2-135m"),
        ];
        for (q, id) in cases {
            let f = c.model(q).unwrap_or_else(|e| panic!("{q}: {e}"));
            assert_eq!(f.entry.id, id, "{q}");
        }
    }

    #[test]
    fn smollm2_135m_matches_its_config() {
        let c = cat();
        let m = c.model("smollm2-135m").unwrap().entry;
        assert_eq!(
            (
                m.arch.as_str(),
                m.layers,
                m.hidden,
                m.heads,
                m.kv_heads,
                m.head_dim,
                m.vocab
            ),
            ("llama", 30, 576, 9, Some(3), Some(64), Some(49152))
        );
        // Tied embeddings: vocab × hidden once, plus 30 layers of attention, MLP and norms.
        let per_layer = 576 * 576 * 2 + 576 * 192 * 2 + 3 * 576 * 1536 + 2 * 576;
        assert_eq!(m.params_total, (49152 * 576 + 30 * per_layer + 576) as f64);
    }

    /// The catalog against shared/research/gguf-roofline.md §4 (dense figures): id, memory,
    /// bandwidth, BF16/FP16 dense, FP8 dense.
    #[test]
    fn gpu_figures_match_the_research_table() {
        let table: &[(&str, f64, f64, f64, Option<f64>)] = &[
            ("h100-sxm", 80.0, 3350.0, 989.0, Some(1979.0)),
            ("h100-pcie", 80.0, 2000.0, 756.0, Some(1513.0)),
            ("h100-nvl", 94.0, 3900.0, 835.0, Some(1671.0)),
            ("h200-sxm", 141.0, 4800.0, 989.0, Some(1979.0)),
            ("h200-nvl", 141.0, 4800.0, 835.0, Some(1671.0)),
            ("b200", 180.0, 7700.0, 2250.0, Some(4500.0)),
            ("a100-sxm-40gb", 40.0, 1555.0, 312.0, None),
            ("a100-sxm-80gb", 80.0, 2039.0, 312.0, None),
            ("a100-pcie-40gb", 40.0, 1555.0, 312.0, None),
            ("a100-pcie-80gb", 80.0, 1935.0, 312.0, None),
            ("l40s", 48.0, 864.0, 362.0, Some(733.0)),
            ("l4", 24.0, 300.0, 121.0, Some(242.0)),
            ("a10g", 24.0, 600.0, 70.0, None),
            ("v100-sxm2-32gb", 32.0, 900.0, 125.0, None),
            ("rtx-3090", 24.0, 936.0, 71.0, None),
            ("rtx-4090", 24.0, 1008.0, 165.0, Some(330.0)),
            ("rtx-5090", 32.0, 1792.0, 209.5, Some(419.0)),
            ("mi300x", 192.0, 5300.0, 1307.0, Some(2615.0)),
            ("mi325x", 256.0, 6000.0, 1307.0, Some(2615.0)),
            ("radeon-ai-pro-r9700", 32.0, 640.0, 191.0, Some(383.0)),
            ("rx-9070-xt", 16.0, 640.0, 195.0, Some(389.0)),
        ];
        let c = cat();
        for &(id, mem, bw, bf16, fp8) in table {
            let g = c.gpu(id).unwrap().entry;
            assert_eq!(g.memory_gib.value, mem, "{id} memory");
            assert_eq!(g.bandwidth_gbps.value, bw, "{id} bandwidth");
            assert_eq!(
                g.bf16_tflops.as_ref().map(|s| s.value),
                Some(bf16),
                "{id} bf16"
            );
            assert_eq!(g.fp8_tflops.as_ref().map(|s| s.value), fp8, "{id} fp8");
        }
        // P40: no tensor cores, the FP32 vector rate only.
        let p40 = c.gpu("p40").unwrap().entry;
        assert!(p40.bf16_tflops.is_none());
        assert_eq!(p40.fp32_tflops.as_ref().unwrap().value, 11.8);
        assert_eq!(p40.bandwidth_gbps.value, 346.0);
    }

    /// Each figure cites the research table or a public page (a URL), and says how it was
    /// read: recalled from the page, or derived from it as stated. NVIDIA datacenter datasheets
    /// print sparse tensor figures: their source says halved, dense, or derived.
    #[test]
    fn every_gpu_figure_has_a_source() {
        for g in cat().gpus {
            let figs = [
                Some(&g.memory_gib),
                Some(&g.bandwidth_gbps),
                g.bf16_tflops.as_ref(),
                g.fp8_tflops.as_ref(),
                g.fp4_tflops.as_ref(),
                g.fp32_tflops.as_ref(),
            ];
            for s in figs.into_iter().flatten() {
                let cited = s.source.contains("research §4") || s.source.contains("http");
                let how = s.source.contains("research §4")
                    || s.source.contains("[recall")
                    || s.source.contains("[read]")
                    || s.source.starts_with("derived");
                assert!(cited && how, "{}: {}", g.id, s.source);
            }
            let consumer = ["rtx", "gtx", "titan", "quadro", "a10g"];
            if g.vendor == "NVIDIA"
                && !g.id.starts_with("a100")
                && !g.id.starts_with("v100")
                && !consumer.iter().any(|p| g.id.starts_with(p))
            {
                for s in [g.bf16_tflops.as_ref(), g.fp8_tflops.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    let said = ["halved", "dense", "derived"];
                    assert!(
                        said.iter().any(|w| s.source.contains(w)),
                        "{}: {}",
                        g.id,
                        s.source
                    );
                }
            }
        }
        for m in cat().models {
            assert!(
                !m.source.is_empty() && !m.params_source.is_empty(),
                "{}",
                m.id
            );
        }
    }

    /// A PCIe link is in the catalog only with the page that states it: every link source
    /// names a URL and none is recalled. The parts whose published links were not found or
    /// disagree have none (`--link` gives it).
    #[test]
    fn every_pcie_link_cites_a_page() {
        let c = cat();
        for g in &c.gpus {
            if let Some(l) = &g.pcie {
                assert!(
                    l.source.contains("https://") && !l.source.contains("[recall"),
                    "{}: {}",
                    g.id,
                    l.source
                );
                // The width is stated, or a both-directions rate that only x16 gives.
                assert!(
                    l.source.contains("x16") || l.source.contains("16 lanes"),
                    "{}: {}",
                    g.id,
                    l.source
                );
            }
        }
        for id in ["b200", "h200-nvl", "radeon-ai-pro-r9700", "rx-9070-xt"] {
            let g = c.gpus.iter().find(|g| g.id == id).unwrap();
            assert!(g.pcie.is_none(), "{id} has a link: {:?}", g.pcie);
        }
        let link = |id: &str| {
            let g = c.gpus.iter().find(|g| g.id == id).unwrap();
            g.pcie.as_ref().map(|l| (l.gen, l.lanes))
        };
        assert_eq!(link("h100-sxm"), Some((5, 16)));
        assert_eq!(link("a10g"), Some((4, 16)));
        assert_eq!(link("v100-sxm2-32gb"), Some((3, 16)));
        assert_eq!(link("mi325x"), Some((5, 16)));
    }

    #[test]
    fn ambiguous_names_list_candidates() {
        let c = cat();
        match c.gpu("h100") {
            Err(LookupError::Ambiguous { candidates, .. }) => {
                assert_eq!(candidates.len(), 3, "{candidates:?}");
                assert!(candidates.iter().all(|n| n.starts_with("H100")));
            }
            other => panic!("{other:?}"),
        }
        match c.model("qwen3") {
            Err(e @ LookupError::Ambiguous { .. }) => {
                assert!(e.to_string().contains("did you mean"), "{e}");
                assert!(e.to_string().contains("Qwen3-8B"), "{e}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn misses_suggest_near_names() {
        let c = cat();
        match c.gpu("H10O-SXM") {
            Err(e @ LookupError::NotFound { .. }) => {
                assert!(e.to_string().contains("H100 SXM5 80GB"), "{e}")
            }
            other => panic!("{other:?}"),
        }
        match c.model("llama-3.1-8c") {
            Err(LookupError::NotFound { suggestions, .. }) => {
                assert_eq!(suggestions[0], "Llama 3.1 8B")
            }
            other => panic!("{other:?}"),
        }
        match c.gpu("H10O") {
            Err(LookupError::NotFound { suggestions, .. }) => {
                assert_eq!(suggestions.len(), 3, "{suggestions:?}");
                assert!(suggestions.iter().all(|n| n.starts_with("H100")));
            }
            other => panic!("{other:?}"),
        }
        match c.gpu("quantum-9000") {
            Err(LookupError::NotFound { suggestions, .. }) => assert!(suggestions.is_empty()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn unique_partial_names_match_loosely() {
        let c = cat();
        let f = c.gpu("AI PRO R97").unwrap();
        assert_eq!(f.entry.id, "radeon-ai-pro-r9700");
        assert!(f.loose_match.is_some());
        assert_eq!(normalize("H100 sxm_5-"), "h100sxm5");
        assert_eq!(normalize("meta-llama/Llama-3.1-8B"), "llama3.18b");
    }

    #[test]
    fn user_file_overrides_and_extends() {
        let text = r#"
[[gpu]]
id = "h100-sxm"
name = "H100 SXM (measured)"
vendor = "NVIDIA"
memory_gib = 80
bandwidth_gbps = 2900
bf16_tflops = 700

[[gpu]]
id = "my-card"
name = "My Card"
vendor = "Acme"
memory_gib = { value = 12, source = "box label" }
bandwidth_gbps = 360
fp32_tflops = 10
"#;
        let c = Catalog::with_user_file(text, "mine.toml").unwrap();
        let h = c.gpu("h100-sxm").unwrap().entry;
        assert_eq!(h.bandwidth_gbps.value, 2900.0);
        assert_eq!(h.bandwidth_gbps.source, "user catalog mine.toml");
        assert_eq!(h.origin, "mine.toml");
        let m = c.gpu("my card").unwrap().entry;
        assert_eq!(m.memory_gib.source, "box label");
        assert_eq!(c.gpus.len(), cat().gpus.len() + 1);
    }

    #[test]
    fn bad_catalogs_are_named_errors() {
        let e = Catalog::with_user_file("[[gpu]]\nid = 3\n", "bad.toml").unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with("bad.toml:") && s.contains("line 2"), "{s}");
        let e = Catalog::with_user_file("[[gpu]]\nid='x'\nname='x'\nvendor='v'\nmemory_gib=8\nbandwidth_gbps=-1\nbf16_tflops=1\n", "neg.toml")
            .unwrap_err();
        assert!(
            e.to_string().contains("bandwidth_gbps must be a positive"),
            "{e}"
        );
        // The embedded catalogs must cite every figure.
        let mut c = Catalog::default();
        let e = c
            .merge("[[gpu]]\nid='x'\nname='x'\nvendor='v'\nmemory_gib=8\nbandwidth_gbps=100\nbf16_tflops=1\n", "embedded", true)
            .unwrap_err();
        assert!(e.to_string().contains("has no source"), "{e}");
        // An entry whose own name another entry claims (aliases alone may be shared).
        let e = Catalog::with_user_file(
            "[[gpu]]\nid='x'\nname='H200'\nvendor='v'\naliases=[]\nmemory_gib=8\nbandwidth_gbps=100\nbf16_tflops=1\n",
            "dup.toml",
        )
        .unwrap_err();
        assert!(e.to_string().contains("also used by"), "{e}");
        let e = Catalog::with_user_file(
            "[[model]]\nid='m'\nname='m'\narch='x'\nparams_total=1e9\nlayers=2\nhidden=64\nheads=4\nattention='gqa'\ndtype='bf17'\n",
            "m.toml",
        )
        .unwrap_err();
        assert!(e.to_string().contains("dtype 'bf17'"), "{e}");
        let e = Catalog::with_user_file(
            "[[model]]\nid='m'\nname='m'\narch='x'\nparams_total=1e9\nlayers=2\nhidden=64\nheads=4\nattention='gqa'\ndtype='bf16'\n",
            "m.toml",
        )
        .unwrap_err();
        assert!(e.to_string().contains("kv_heads"), "{e}");
    }
}
