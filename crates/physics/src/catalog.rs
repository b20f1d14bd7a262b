//! The GPU and model catalogs: `catalog/gpus.toml` and `catalog/models.toml`, embedded in the
//! binary, plus an optional user file in the same format that overrides or extends them.
//!
//! Every GPU figure carries its own `source`; every model entry carries the `source` of its
//! architecture figures and of its parameter counts.
//!
//! # Names resolve exactly or not at all
//!
//! A wrong card is worse than no card: `M40` taken as an A100 40GB prints a ceiling 5x too
//! high. So a name never matches by substring or by nearness. For GPUs:
//!
//! - [`normalize_gpu`]: take the device part of a pasted llama.cpp device line
//!   ([`device_part`]: `ggml_vulkan: 0 = AMD Radeon RX 7900 XT (RADV NAVI31) (radv) | uma: 0`
//!   and `Device 0: NVIDIA GeForce RTX 3060, compute capability 8.6` give the card's name);
//!   take the part after the last `/`; lower-case; drop spaces, `-` and `_`; drop the vendor
//!   and brand words `nvidia`, `geforce`, `amd`, `radeon`, `intel`, `apple`, `tesla`, `quadro`,
//!   `instinct`, `arc`, `graphics` where they stand as whole words; cut a trailing memory size
//!   (`12gb`, `24 GB`, `80GiB`, `16G`) off and keep it apart. A laptop part (`Laptop GPU`,
//!   `Mobile`, `Max-Q`) keeps those words, so it never becomes the desktop card, and its miss
//!   says so. A `VRAM: 12288 MiB` in the line picks between variants of one printed name.
//! - An entry answers to a name when the name's key equals one of its keys (its id, name and
//!   aliases, each normalised the same way, their own memory sizes cut off) and, when the
//!   name ended with a memory size, the entry's `memory_gib` equals it (within 0.5).
//! - One entry answers: found. Several: [`LookupError::Ambiguous`], listing each with its
//!   memory and bandwidth. None: [`LookupError::NotFound`], whose near names (by edit
//!   distance, each with its bandwidth) are said to be different cards.
//!
//! Several entries may share an alias (both RTX 3060s answer to "RTX 3060"; "RTX 3060 12GB"
//! then picks one). Loading rejects two entries with one id in a file, an entry whose own id
//! or name does not name it alone, and an alias that does not name its entry.
//!
//! Models match the same way on [`normalize`] (no brand words or memory sizes), with an
//! `-Instruct`/`-chat`/`-it` suffix dropped when nothing answers to the name with it.

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
    /// stack; an untied input embedding, a row lookup, left out). For a dense text model:
    /// `params_total`, less `vocab × hidden` when the embeddings are untied.
    pub params_active: f64,
    /// Whether the input embedding is also the output head (`tie_word_embeddings` in the
    /// config). Untied, the input table is a row lookup per token and not read whole.
    #[serde(default)]
    pub tied_embeddings: Option<bool>,
    pub layers: u64,
    pub hidden: u64,
    pub heads: u64,
    pub kv_heads: Option<u64>,
    pub head_dim: Option<u64>,
    pub vocab: Option<u64>,
    /// Feed-forward width of a dense layer (the config's `intermediate_size`): with it, a
    /// llama.cpp file type's bytes follow llama-quantize's per-tensor rules for this shape.
    #[serde(default)]
    pub intermediate: Option<u64>,
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

impl Model {
    /// Params of an untied input embedding (vocab × hidden), which a token reads one row of;
    /// `None` when tied or not stated.
    pub fn untied_input_params(&self) -> Option<f64> {
        match (self.tied_embeddings, self.vocab) {
            (Some(false), Some(v)) => Some(v as f64 * self.hidden as f64),
            _ => None,
        }
    }
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

/// What a lookup found when it did not find exactly one entry. Every command prints this one
/// Display, so a name fails the same way everywhere.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LookupError {
    /// Several entries answer to the name; each candidate reads "Name (figures)".
    #[error(
        "{kind} '{query}' is ambiguous: {}; give one of these names",
        .candidates.join(", ")
    )]
    Ambiguous {
        kind: &'static str,
        query: String,
        candidates: Vec<String>,
    },
    /// No entry answers to the name. `suggestions` are near names ("Name (figures)"), which
    /// are other entries, never this one.
    #[error(
        "{kind} '{query}' is not in the catalog{}{}{}{}",
        count_note(kind, query),
        laptop_note(kind, query),
        integrated_note(kind, query),
        near_names(.suggestions)
    )]
    NotFound {
        kind: &'static str,
        query: String,
        suggestions: Vec<String>,
    },
}

/// `2x RTX 3090`, `RTX 3090 x2`, `8 x H100`: one card is named per `--gpu`, and how several
/// work together is the engine's split, not the name: say how to give it.
fn count_note(kind: &str, query: &str) -> String {
    match (kind, gpu_count_in_name(query)) {
        ("GPU", Some((n, card))) => format!(
            " (one card per --gpu: for {n} of them split tensor-parallel, give --gpu \"{card}\" \
             --tp {n})"
        ),
        _ => String::new(),
    }
}

/// A count of cards written into a GPU name (`2x RTX 3090`, `RTX 3090 x2`, `2 x 3090`,
/// `4xA100`), with the name without it.
pub fn gpu_count_in_name(name: &str) -> Option<(u32, String)> {
    let w: Vec<&str> = name.split_whitespace().collect();
    let count = |s: &str| s.parse::<u32>().ok().filter(|n| *n >= 2);
    let is_x = |s: &str| s.eq_ignore_ascii_case("x");
    // `2x` / `x2` as a word, or glued to the name (`4xA100`): digits on the count's side only.
    fn glued_front(s: &str) -> Option<(u32, &str)> {
        let (n, card) = s.split_once(['x', 'X'])?;
        Some((n.parse::<u32>().ok().filter(|n| *n >= 2)?, card))
    }
    let found = match w.as_slice() {
        [n, x, rest @ ..] if is_x(x) && count(n).is_some() => Some((count(n)?, rest.to_vec())),
        [rest @ .., x, n] if is_x(x) && count(n).is_some() => Some((count(n)?, rest.to_vec())),
        [rest @ .., last] if last.len() > 1 && is_x(&last[..1]) && count(&last[1..]).is_some() => {
            Some((count(&last[1..])?, rest.to_vec()))
        }
        [first, rest @ ..] => glued_front(first).map(|(n, card)| {
            let mut r: Vec<&str> = Vec::new();
            if !card.is_empty() {
                r.push(card);
            }
            r.extend(rest);
            (n, r)
        }),
        [] => None,
    };
    found
        .filter(|(_, r)| !r.is_empty())
        .map(|(n, r)| (n, r.join(" ")))
}

/// A laptop part is never taken as the desktop card of the same number: say so.
fn laptop_note(kind: &str, query: &str) -> &'static str {
    if kind == "GPU" && is_laptop_name(query) {
        " (a laptop part: the desktop card of the same number has more cores or a wider, \
         faster memory bus, so it is a different entry)"
    } else {
        ""
    }
}

/// An integrated GPU reads the host's RAM, whose speed the name cannot tell: say how to get
/// its ceiling instead.
fn integrated_note(kind: &str, query: &str) -> &'static str {
    if kind == "GPU" && is_integrated_name(query) {
        " (if this is an integrated GPU, it reads the host's RAM, so its decode ceiling is that \
         RAM's bandwidth: `--gpu none --ram-bandwidth GBPS`, or `--gpu none --measure`)"
    } else {
        ""
    }
}

/// Whether a GPU name is one that integrated GPUs print: AMD's `Radeon 780M Graphics`, `Radeon
/// Vega 8 Graphics` and the generic `AMD Radeon Graphics` (also printed for some discrete
/// cards, hence the note's "if"), Intel's `UHD Graphics 770`, `Iris Xe Graphics`, `Arc 140T`,
/// Qualcomm's `Adreno X1-85`.
pub fn is_integrated_name(name: &str) -> bool {
    let lower = name
        .to_ascii_lowercase()
        .replace("(r)", "")
        .replace("(tm)", "");
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let after = |w: &str| words.iter().position(|x| *x == w).map(|i| &words[i + 1..]);
    // `Radeon 780M`, `Radeon 890M`: three digits and M right after "radeon" (an RX 6600M has
    // "rx" between them); `Radeon Vega 8 Graphics`; `Radeon Graphics`.
    let radeon = after("radeon").is_some_and(|r| match r {
        [m, ..]
            if m.len() == 4 && m.ends_with('m') && m[..3].bytes().all(|b| b.is_ascii_digit()) =>
        {
            true
        }
        ["vega", n, "graphics", ..] => n.bytes().all(|b| b.is_ascii_digit()),
        ["graphics", ..] => true,
        _ => false,
    });
    // `Arc 140V`, `Arc 130V`, `Arc 140T` (Lunar Lake and Arrow Lake), `Arc Graphics` (Meteor
    // Lake); the discrete Arcs are A/B-series names.
    let arc = after("arc").is_some_and(|r| match r {
        [m, ..] => {
            (m.len() == 4
                && (m.ends_with('v') || m.ends_with('t'))
                && m[..3].bytes().all(|b| b.is_ascii_digit()))
                || *m == "graphics"
        }
        _ => false,
    });
    // `UHD Graphics 770`, `Iris Xe Graphics`, `HD Graphics 630`, a bare `Intel Graphics`.
    let intel = words.contains(&"uhd")
        || words.contains(&"iris")
        || (words.contains(&"hd") && words.contains(&"graphics") && !words.contains(&"radeon"))
        || after("intel") == Some(&["graphics"][..]);
    // `Adreno X1-85`: Qualcomm's GPUs are all integrated (Snapdragon X laptops, phones).
    let adreno = words.contains(&"adreno");
    radeon || arc || intel || adreno
}

fn near_names(s: &[String]) -> String {
    if s.is_empty() {
        "; `headroom ceiling --list WORDS` searches the catalog, and a --catalog file can add \
         an entry"
            .to_string()
    } else {
        format!(
            "; near names are different entries, not this one: {} (`headroom ceiling --list \
             WORDS` searches the catalog, and a --catalog file can add an entry)",
            s.join(", ")
        )
    }
}

/// A successful lookup: the entry, and for a model found only without its chat-tuning
/// suffix, the name it was taken as.
#[derive(Debug, Clone, PartialEq)]
pub struct Found<'a, T> {
    pub entry: &'a T,
    /// `None` when the name matched as given; the entry's name when it matched only after
    /// dropping an `-Instruct`/`-chat`/`-it` suffix or a chip's GPU core count.
    pub loose_match: Option<String>,
}

/// The merged catalog.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub gpus: Vec<Gpu>,
    pub models: Vec<Model>,
}

/// Vendor and brand words dropped from GPU names wherever they stand as whole words:
/// `NVIDIA GeForce RTX 3090` and `RTX 3090` are one name.
pub const GPU_BRAND_WORDS: [&str; 11] = [
    "nvidia", "geforce", "amd", "radeon", "intel", "apple", "tesla", "quadro", "instinct", "arc",
    "graphics",
];

/// A GPU name in matching form: the key, and the memory size the name ended with.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuName {
    pub key: String,
    /// GiB (the marketing "GB" of these parts is the GiB count), when the name ended with one.
    pub memory_gib: Option<f64>,
    /// GiB the driver reported (`VRAM: 12288 MiB` in a pasted device line): a little under the
    /// marketed size, so it tells an 8 GB variant from a 12 GB one without naming either.
    pub reported_gib: Option<f64>,
}

/// A name's words: the part after the last `/` (an `org/` prefix), lower-cased, split at spaces,
/// `-` and `_`. A ` / ` between spaces lists alternatives and stays a word of the name: ROCm
/// names each die of both parts "AMD Instinct MI250X / MI250", which is not an MI250.
fn words(name: &str) -> Vec<String> {
    let base = if name.contains(" / ") {
        name
    } else {
        name.rsplit('/').next().unwrap_or(name)
    };
    base.split(|c: char| c.is_whitespace() || c == '-' || c == '_')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// `12gb`, `80gib`, `16g` → 12, 80, 16; anything else (`a10g`, `sxm4`) → `None`.
fn memory_word(w: &str) -> Option<f64> {
    let digits = ["gib", "gb", "g"].iter().find_map(|u| w.strip_suffix(u))?;
    memory_number(digits)
}

fn memory_number(w: &str) -> Option<f64> {
    if w.is_empty() || !w.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    w.parse().ok().filter(|v: &f64| *v > 0.0)
}

/// The device part of a line a llama.cpp backend prints when it lists its devices, as users
/// paste it: the name after `ggml_vulkan: 0 =` (older builds: `ggml_vulkan: Using`), `Device 0:`,
/// `Vulkan0:`, `CUDA0   :`, `GPU name:` or `found device:`, the bracket after the label in the
/// loader's `using device CUDA0 (...)`, or the name column of SYCL's device table; cut at
/// the first `|` (Vulkan's `| uma: 0 | fp16: 1 ...`) and the first `,` (CUDA's `, compute
/// capability 8.6, VMM: yes`, ROCm's `, gfx1100 (0x1100)`), without parenthesised words
/// (`(RADV NAVI31)`, `(radv)`, `(NVIDIA)`, `(AMD proprietary driver)`, `(R)`, `(TM)`) but for a
/// GPU core count. Also the `VRAM: 12288 MiB` that recent CUDA and ROCm builds print, or the
/// `(7708 MiB, 7573 MiB free)` of `--list-devices`, in GiB. A bare name comes back unchanged.
pub fn device_part(line: &str) -> (String, Option<f64>) {
    let lower = line.to_ascii_lowercase();
    // `N MiB` right after `at`: the size, in GiB.
    let mib_at = |at: usize| {
        let rest = lower[at..].trim_start();
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        let mib: f64 = digits.parse().ok()?;
        rest[digits.len()..]
            .trim_start()
            .starts_with("mib")
            .then_some(mib / 1024.0)
    };
    // `VRAM: 12288 MiB`, or the device list's `CUDA0: NAME (7708 MiB, 7573 MiB free)`.
    let vram = lower
        .find("vram:")
        .and_then(|i| mib_at(i + 5))
        .or_else(|| lower.match_indices('(').find_map(|(i, _)| mib_at(i + 1)));
    // `using device CUDA0 (NVIDIA GeForce RTX 5060 Ti) (0000:01:00.0) - 15055 MiB free` (model
    // loading) and `registered device CUDA0 (...)`: the name is the bracket after the label.
    for marker in ["using device ", "registered device "] {
        let Some(i) = lower.find(marker) else {
            continue;
        };
        let rest = &line[i + marker.len()..];
        let label_end = rest.find(' ').unwrap_or(rest.len());
        let after = rest[label_end..].trim_start();
        if !rest[..label_end].ends_with(|c: char| c.is_ascii_digit()) || !after.starts_with('(') {
            continue;
        }
        let mut depth = 0usize;
        for (k, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return (device_part(&after[1..k]).0, vram);
                    }
                }
                _ => {}
            }
        }
    }
    // The name follows the last of these markers (all ASCII, so byte offsets agree).
    let mut start = 0;
    for marker in [
        "gpu name:",
        "found device:",
        "picking default device:",
        "ggml_vulkan: using ",
    ] {
        if let Some(i) = lower.find(marker) {
            start = start.max(i + marker.len());
        }
    }
    if let Some(i) = lower.find("ggml_vulkan:") {
        if let Some(j) = lower[i..].find(" = ") {
            start = start.max(i + j + 3);
        }
    }
    for prefix in ["device ", "vulkan", "cuda", "rocm", "sycl"] {
        if let Some(i) = numbered_label(&lower, prefix) {
            start = start.max(i);
        }
    }
    let tail = &line[start..];
    // SYCL's table row: `| 0| [level_zero:gpu:0]| Intel Arc A770 Graphics| 12.55| ...`; any
    // other line: the part before the first `|`.
    let field = if tail.trim_start().starts_with('|') {
        tail.split('|')
            .map(str::trim)
            .find(|f| {
                let bracketed = f.starts_with('[') && f.ends_with(']');
                !f.is_empty() && !f.chars().all(|c| c.is_ascii_digit()) && !bracketed
            })
            .unwrap_or("")
    } else {
        tail.split('|').next().unwrap_or("").trim()
    };
    let field = field.split(',').next().unwrap_or("");
    // Brackets are driver and die decorations, except a GPU core count (`Apple M3 Max
    // (30-core GPU)`), which tells variants apart and is kept as words.
    let mut out = String::new();
    let mut group = String::new();
    let mut depth = 0usize;
    for c in field.chars() {
        match c {
            '(' => {
                depth += 1;
                if depth == 1 {
                    group.clear();
                }
            }
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 && group.to_ascii_lowercase().contains("-core") {
                    out.push(' ');
                    out.push_str(&group);
                    out.push(' ');
                }
            }
            _ if depth == 0 => out.push(c),
            _ => group.push(c),
        }
    }
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    // Recent Metal builds print `GPU name:   MTL0 (Apple M5 Max)`: the name is the bracket.
    let is_mtl = out
        .strip_prefix("MTL")
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    if is_mtl {
        if let (Some(a), Some(b)) = (field.find('('), field.rfind(')')) {
            if a < b {
                return (field[a + 1..b].trim().to_string(), vram);
            }
        }
    }
    (out, vram)
}

/// Where the name starts after a `Device 0:` / `Vulkan0:` / `CUDA0   :` style label at the
/// start of the line or after whitespace, if there is one.
fn numbered_label(lower: &str, prefix: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(k) = lower[from..].find(prefix) {
        let i = from + k;
        from = i + prefix.len();
        if i > 0 && !lower[..i].ends_with(|c: char| c.is_whitespace() || c == ':') {
            continue;
        }
        let rest = &lower[i + prefix.len()..];
        let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
        // llama-server's device list pads the label: `  - CUDA0   : NVIDIA GeForce RTX 3070`.
        let pad = rest[digits..].len() - rest[digits..].trim_start_matches(' ').len();
        if digits > 0 && rest[digits + pad..].starts_with(':') {
            return Some(i + prefix.len() + digits + pad + 1);
        }
    }
    None
}

/// Words that mark a laptop part, which is a different card from the desktop one of the same
/// number (fewer cores, a narrower or slower memory bus).
const LAPTOP_WORDS: [&str; 4] = ["laptop", "mobile", "maxq", "max-q"];

/// Whether a GPU name names a laptop part (`RTX 4090 Laptop GPU`, `Quadro P5000 Max-Q`). A
/// `Max-Q Workstation Edition` is a desktop card's low-power edition, not a laptop part.
pub fn is_laptop_name(name: &str) -> bool {
    let (part, _) = device_part(name);
    let lower = part.to_lowercase();
    let laptop_word = lower
        .split(|c: char| c.is_whitespace() || c == '_')
        .any(|w| LAPTOP_WORDS.contains(&w))
        || lower.contains("max-q");
    laptop_word && !lower.contains("workstation")
}

/// The GPU matching rule's normal form. Take the device part of a pasted llama.cpp device line
/// ([`device_part`]); take the part after the last `/`; lower-case; split at spaces, `-` and
/// `_`; drop the whole words in [`GPU_BRAND_WORDS`]; a trailing memory size (`12gb`, `24 GB`,
/// `80GiB`, `16G`) is cut off and kept apart; the rest, joined, is the key.
/// `NVIDIA GeForce RTX 3090 24GB` → (`rtx3090`, 24); `Tesla V100-SXM2-32GB` → (`v100sxm2`,
/// 32); `A10G` → (`a10g`, none); `ggml_vulkan: 0 = AMD Radeon RX 7900 XT (RADV NAVI31) (radv)
/// | uma: 0` → (`rx7900xt`, none).
pub fn normalize_gpu(name: &str) -> GpuName {
    let (part, reported_gib) = device_part(name);
    let mut w: Vec<String> = core_count_words(words(&part))
        .into_iter()
        .filter(|w| !GPU_BRAND_WORDS.contains(&w.as_str()))
        .collect();
    let mut memory_gib = None;
    if let Some(m) = w.last().and_then(|l| memory_word(l)) {
        memory_gib = Some(m);
        w.pop();
    } else if w.len() >= 2 && matches!(w[w.len() - 1].as_str(), "gb" | "gib" | "g") {
        if let Some(m) = memory_number(&w[w.len() - 2]) {
            memory_gib = Some(m);
            w.truncate(w.len() - 2);
        }
    }
    GpuName {
        key: w.concat(),
        memory_gib,
        reported_gib,
    }
}

/// A GPU core count as users write it after an Apple chip (`40-core GPU`, `40 core`, `40 cores`,
/// `40 GPU cores`, `40core`, `40c`) reads as the one word `40c`, so every spelling names the
/// same variant.
fn core_count_words(w: Vec<String>) -> Vec<String> {
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    let is_core = |s: &str| s == "core" || s == "cores";
    let mut out = Vec::with_capacity(w.len());
    let mut i = 0;
    while i < w.len() {
        let word = w[i].as_str();
        let next = |k: usize| w.get(i + k).map(String::as_str).unwrap_or("");
        let joined = ["cores", "core"]
            .iter()
            .find_map(|c| word.strip_suffix(c))
            .filter(|n| digits(n));
        let (count, used) = if let Some(n) = joined {
            (Some(n), 1)
        } else if digits(word) && is_core(next(1)) {
            (Some(word), 2)
        } else if digits(word) && next(1) == "gpu" && is_core(next(2)) {
            (Some(word), 3)
        } else {
            (None, 1)
        };
        match count {
            Some(n) => {
                out.push(format!("{n}c"));
                // `40-core GPU`: the trailing GPU is part of the count.
                i += used + usize::from(used < 3 && next(used) == "gpu");
            }
            None => {
                out.push(word.to_string());
                i += 1;
            }
        }
    }
    out
}

/// A GPU name without its core count (`Apple M1 Max 24-core GPU` → `Apple M1 Max`), when it
/// has one: a chip catalogued as one entry for all its core counts (one memory bandwidth) is
/// still named by it.
fn strip_core_count(name: &str) -> Option<String> {
    let (part, _) = device_part(name);
    let w = core_count_words(words(&part));
    let is_count = |x: &String| {
        x.strip_suffix('c')
            .is_some_and(|n| memory_number(n).is_some())
    };
    w.iter().any(is_count).then(|| {
        w.iter()
            .filter(|x| !is_count(x))
            .cloned()
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// The model matching form: the part after the last `/` (a Hugging Face `org/`), lower-cased,
/// without spaces, `-`, `_` and `:` (Ollama's `llama3.1:8b` is `llama-3.1-8b`).
pub fn normalize(name: &str) -> String {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.chars()
        .filter(|c| !matches!(c, '-' | '_' | ' ' | ':'))
        .flat_map(|c| c.to_lowercase())
        .collect()
}

/// A model name without its last word when that word is a chat-tuning suffix (`-Instruct`,
/// `-chat`, `-it`), which does not change the architecture.
fn strip_tuning_suffix(name: &str) -> Option<String> {
    let w = words(name);
    let (last, rest) = w.split_last()?;
    (["instruct", "chat", "it"].contains(&last.as_str()) && !rest.is_empty())
        .then(|| rest.concat().replace(':', ""))
}

/// One catalog kind, as the matching rule sees it.
trait Named {
    const KIND: &'static str;
    fn id(&self) -> &str;
    fn name(&self) -> &str;
    fn aliases(&self) -> &[String];
    /// A name in the form entries are matched in.
    type Query;
    fn query(name: &str) -> Self::Query;
    /// Whether `q` names this entry, whose [`Named::keys`] are `keys`.
    fn answers(&self, q: &Self::Query, keys: &[String]) -> bool;
    /// The entry's name with the figures that tell it from its neighbours.
    fn describe(&self) -> String;
    /// The keys, for suggestions.
    fn keys(&self) -> Vec<String>;
    /// The name with a word dropped that does not change the entry it names (a model's
    /// `-Instruct`, a chip's GPU core count), when it has one.
    fn loosened(name: &str) -> Option<String>;
    /// Whether this entry may answer to a loosened name: not for one variant among several.
    fn answers_loosely(&self) -> bool {
        true
    }
    /// Among several entries that answer, whether this one fits the name more closely.
    fn closer(&self, _q: &Self::Query) -> bool {
        true
    }
}

impl Named for Gpu {
    const KIND: &'static str = "GPU";
    fn id(&self) -> &str {
        &self.id
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn aliases(&self) -> &[String] {
        &self.aliases
    }
    type Query = GpuName;
    fn query(name: &str) -> GpuName {
        normalize_gpu(name)
    }
    fn answers(&self, q: &GpuName, keys: &[String]) -> bool {
        let size = self.memory_gib.value;
        !q.key.is_empty()
            && keys.contains(&q.key)
            && q.memory_gib.is_none_or(|m| (m - size).abs() <= 0.5)
            // A driver never reports more than the card holds.
            && q.reported_gib.is_none_or(|r| r <= size + 0.5)
    }
    /// A dedicated card's report is its size less what the driver keeps back, within 15 %
    /// under it; a unified-memory chip reports a share of the host's RAM. So the floor picks
    /// between variants that both fit a report, and never rejects the only one.
    fn closer(&self, q: &GpuName) -> bool {
        q.reported_gib
            .is_none_or(|r| r >= self.memory_gib.value * 0.85)
    }
    fn describe(&self) -> String {
        format!(
            "{} ({} GiB, {} GB/s)",
            self.name, self.memory_gib.value, self.bandwidth_gbps.value
        )
    }
    fn keys(&self) -> Vec<String> {
        std::iter::once(&self.id)
            .chain(std::iter::once(&self.name))
            .chain(&self.aliases)
            .map(|n| normalize_gpu(n).key)
            .collect()
    }
    fn loosened(name: &str) -> Option<String> {
        strip_core_count(name)
    }
    /// An entry that names its own core count is one variant of its chip: a count it does not
    /// name is another part, never this one.
    fn answers_loosely(&self) -> bool {
        std::iter::once(&self.name)
            .chain(&self.aliases)
            .all(|n| strip_core_count(n).is_none())
    }
}

impl Named for Model {
    const KIND: &'static str = "model";
    fn id(&self) -> &str {
        &self.id
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn aliases(&self) -> &[String] {
        &self.aliases
    }
    type Query = String;
    fn query(name: &str) -> String {
        normalize(name)
    }
    fn answers(&self, q: &String, keys: &[String]) -> bool {
        !q.is_empty() && keys.contains(q)
    }
    fn describe(&self) -> String {
        // A dense model's untied input embedding is not worth a second count in a name list.
        let lookup = self.untied_input_params().unwrap_or(0.0);
        if self.params_active < self.params_total - lookup {
            format!(
                "{} ({:.1}B params, {:.1}B read per token)",
                self.name,
                self.params_total / 1e9,
                self.params_active / 1e9
            )
        } else {
            format!("{} ({:.2}B params)", self.name, self.params_total / 1e9)
        }
    }
    fn keys(&self) -> Vec<String> {
        std::iter::once(&self.id)
            .chain(std::iter::once(&self.name))
            .chain(&self.aliases)
            .map(|n| normalize(n))
            .collect()
    }
    fn loosened(name: &str) -> Option<String> {
        strip_tuning_suffix(name)
    }
}

/// Entries with their keys normalized once: matching a name against all of them is then one
/// normalization and string comparisons (normalizing every key per query made loading the
/// catalog, which checks every name against every entry, take a second of CPU).
struct Keyed<'a, T> {
    entries: &'a [T],
    keys: Vec<Vec<String>>,
}

impl<'a, T: Named> Keyed<'a, T> {
    fn new(entries: &'a [T]) -> Self {
        Keyed {
            entries,
            keys: entries.iter().map(Named::keys).collect(),
        }
    }

    /// The entries `name` names.
    fn answering(&self, name: &str) -> Vec<&'a T> {
        let q = T::query(name);
        let found: Vec<&'a T> = self
            .entries
            .iter()
            .zip(&self.keys)
            .filter(|(e, keys)| e.answers(&q, keys))
            .map(|(e, _)| e)
            .collect();
        let closer: Vec<&'a T> = found.iter().copied().filter(|e| e.closer(&q)).collect();
        if found.len() > 1 && !closer.is_empty() {
            closer
        } else {
            found
        }
    }
}

/// The matching rule: exactly one entry answers to the name, or the name is ambiguous (every
/// candidate listed) or unknown (near names listed as other entries). Never a substring.
fn lookup<'a, T: Named>(keyed: &Keyed<'a, T>, query: &str) -> Result<Found<'a, T>, LookupError> {
    let matching = |q: &str| keyed.answering(q);
    let ambiguous = |found: &[&T]| LookupError::Ambiguous {
        kind: T::KIND,
        query: query.to_string(),
        candidates: found.iter().map(|e| e.describe()).collect(),
    };
    match matching(query).as_slice() {
        [one] => {
            return Ok(Found {
                entry: one,
                loose_match: None,
            })
        }
        [] => {}
        several => return Err(ambiguous(several)),
    }
    if let Some(s) = T::loosened(query) {
        match matching(&s).as_slice() {
            [one] if one.answers_loosely() => {
                return Ok(Found {
                    entry: one,
                    loose_match: Some(one.name().to_string()),
                })
            }
            several if several.len() > 1 && several.iter().all(|e| e.answers_loosely()) => {
                return Err(ambiguous(several))
            }
            _ => {}
        }
    }
    Err(LookupError::NotFound {
        kind: T::KIND,
        query: query.to_string(),
        suggestions: suggestions(keyed.entries, query),
    })
}

/// Near names for a miss: the entries nearest by edit distance, to a whole key or to its first
/// |query| characters (a typo in a shortened name), keeping only the nearest group.
fn suggestions<T: Named>(entries: &[T], query: &str) -> Vec<String> {
    let q = if T::KIND == "GPU" {
        normalize_gpu(query).key
    } else {
        normalize(query)
    };
    let qlen = q.chars().count();
    if qlen == 0 {
        return Vec::new();
    }
    let near: Vec<(usize, &T)> = entries
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
            (d <= (qlen / 3).max(2)).then_some((d, e))
        })
        .collect();
    let best = near.iter().map(|(d, _)| *d).min();
    near.into_iter()
        .filter(|(d, _)| Some(*d) == best)
        .take(6)
        .map(|(_, e)| e.describe())
        .collect()
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
        let mut ids = std::collections::HashSet::new();
        for raw in file.gpu {
            let gpu = ctx.gpu(raw)?;
            if !ids.insert(normalize(&gpu.id)) {
                return Err(ctx.invalid("gpu", &gpu.id, "a second entry with this id"));
            }
            upsert(&mut self.gpus, gpu, |g| &g.id);
        }
        let mut ids = std::collections::HashSet::new();
        for raw in file.model {
            let model = ctx.model(raw)?;
            if !ids.insert(normalize(&model.id)) {
                return Err(ctx.invalid("model", &model.id, "a second entry with this id"));
            }
            upsert(&mut self.models, model, |m| &m.id);
        }
        self.check_names_resolve(origin)
    }

    /// Every entry's id and name resolve to exactly that entry, and every alias resolves to a
    /// set that holds it (several entries may share an alias: both RTX 3060s answer to
    /// "RTX 3060", and the memory size then tells them apart).
    fn check_names_resolve(&self, origin: &str) -> Result<(), CatalogError> {
        fn check<T: Named>(
            entries: &[T],
            kind: &'static str,
            origin: &str,
        ) -> Result<(), CatalogError> {
            let invalid = |e: &T, message: String| CatalogError::Invalid {
                origin: origin.to_string(),
                kind,
                id: e.id().to_string(),
                message,
            };
            let keyed = Keyed::new(entries);
            for (i, e) in entries.iter().enumerate() {
                for own in [e.id(), e.name()] {
                    let answering = keyed.answering(own);
                    if answering.len() != 1 || !std::ptr::eq(answering[0], e) {
                        let others: Vec<&str> = answering
                            .iter()
                            .filter(|x| !std::ptr::eq(**x, e))
                            .map(|x| x.id())
                            .collect();
                        return Err(invalid(
                            e,
                            format!(
                                "its name '{own}' must name it alone, but also names '{}'",
                                others.join("', '")
                            ),
                        ));
                    }
                }
                let own_keys = &keyed.keys[i];
                if let Some(a) = e
                    .aliases()
                    .iter()
                    .find(|a| !e.answers(&T::query(a), own_keys))
                {
                    return Err(invalid(
                        e,
                        format!("alias '{a}' does not name it (a memory size that differs?)"),
                    ));
                }
            }
            Ok(())
        }
        check(&self.gpus, "gpu", origin)?;
        check(&self.models, "model", origin)
    }

    /// The entries whose id, name or an alias holds `words` (lower case, spaces, `-` and `_`
    /// ignored): a search for `--list`, not the matching rule, so `3090` finds the 3090 Ti too.
    pub fn holding(&self, words: &str) -> Catalog {
        use crate::bits::squash;
        let w = squash(words);
        let holds = |id: &str, name: &str, aliases: &[String]| {
            std::iter::once(id)
                .chain(std::iter::once(name))
                .chain(aliases.iter().map(String::as_str))
                .any(|n| squash(n).contains(&w))
        };
        Catalog {
            gpus: (self.gpus.iter())
                .filter(|g| holds(&g.id, &g.name, &g.aliases))
                .cloned()
                .collect(),
            models: (self.models.iter())
                .filter(|m| holds(&m.id, &m.name, &m.aliases))
                .cloned()
                .collect(),
        }
    }

    /// Find a GPU by name (see the module doc for the rule).
    pub fn gpu(&self, name: &str) -> Result<Found<'_, Gpu>, LookupError> {
        lookup(&Keyed::new(&self.gpus), name)
    }

    /// Find a model by name: an `org/` prefix is ignored, and an `-Instruct`/`-it`/`-chat`
    /// suffix when nothing matches with it.
    pub fn model(&self, name: &str) -> Result<Found<'_, Model>, LookupError> {
        lookup(&Keyed::new(&self.models), name)
    }

    /// The catalog with every entry's matching keys worked out once, for many lookups (the
    /// published runs' 178 cards and models): [`Catalog::gpu`] works them out per call.
    pub fn index(&self) -> Index<'_> {
        Index {
            gpus: Keyed::new(&self.gpus),
            models: Keyed::new(&self.models),
        }
    }
}

/// [`Catalog::index`]: lookups by the same rule, without normalizing every key each time.
pub struct Index<'a> {
    gpus: Keyed<'a, Gpu>,
    models: Keyed<'a, Model>,
}

impl<'a> Index<'a> {
    pub fn gpu(&self, name: &str) -> Result<Found<'a, Gpu>, LookupError> {
        lookup(&self.gpus, name)
    }

    pub fn model(&self, name: &str) -> Result<Found<'a, Model>, LookupError> {
        lookup(&self.models, name)
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
    tied_embeddings: Option<bool>,
    layers: u64,
    hidden: u64,
    heads: u64,
    kv_heads: Option<u64>,
    head_dim: Option<u64>,
    vocab: Option<u64>,
    intermediate: Option<u64>,
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
        let gathered = match (r.tied_embeddings, r.vocab) {
            (Some(false), Some(v)) => v as f64 * r.hidden as f64,
            (Some(false), None) => {
                return Err(bad(
                    "tied_embeddings = false needs vocab (the input table's rows)".into(),
                ))
            }
            _ => 0.0,
        };
        // A dense model reads everything but an untied input embedding; an MoE or multimodal
        // entry states its count (its params_source says what it includes).
        let active = r.params_active.unwrap_or(total - gathered);
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
            tied_embeddings: r.tied_embeddings,
            layers: r.layers,
            hidden: r.hidden,
            heads: r.heads,
            kv_heads: r.kv_heads,
            head_dim: r.head_dim,
            vocab: r.vocab,
            intermediate: r.intermediate,
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
            ("NVIDIA A100-SXM4-80GB", "a100-sxm-80gb"),
            ("A100 PCIe 40GB", "a100-pcie-40gb"),
            ("A100 PCIe 80GB", "a100-pcie-80gb"),
            ("L40S", "l40s"),
            ("L4", "l4"),
            ("A10G", "a10g"),
            ("Tesla V100-SXM2-32GB", "v100-sxm2-32gb"),
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

    /// ROCm names each die of an MI250X or MI250 "AMD Instinct MI250X / MI250": that name must
    /// not become the whole two-die module (twice the die's bandwidth), bare or pasted.
    #[test]
    fn an_mi250_die_is_never_the_whole_module() {
        let c = cat();
        let bare = c.gpu("AMD Instinct MI250X / MI250").unwrap().entry;
        assert_eq!(bare.id, "mi250x-mi250-gcd");
        assert_eq!(c.gpu("MI250").unwrap().entry.id, "mi250");
        let line =
            "Device 0: AMD Instinct MI250X / MI250, gfx90a:sramecc+:xnack- (0x90a), VMM: no, \
                    Wave Size: 64, VRAM: 65520 MiB";
        let die = c.gpu(line).unwrap().entry;
        assert_eq!(die.id, "mi250x-mi250-gcd");
        assert_eq!(
            die.bandwidth_gbps.value * 2.0,
            c.gpu("MI250X").unwrap().entry.bandwidth_gbps.value
        );
    }

    /// ROCm and RADV print every gfx906 Instinct card "AMD Instinct MI60 / MI50": bare, it names
    /// the three cards; with the VRAM llama.cpp reports, only those of that size.
    #[test]
    fn the_gfx906_name_is_ambiguous_among_the_cards_it_covers() {
        let c = cat();
        let among = |q: &str| -> Vec<String> {
            match c.gpu(q) {
                Err(LookupError::Ambiguous { candidates, .. }) => candidates,
                other => panic!("{q}: {other:?}"),
            }
        };
        let describe = |id: &str| c.gpus.iter().find(|g| g.id == id).unwrap().describe();
        let mut bare = among("AMD Instinct MI60 / MI50");
        bare.sort();
        let mut all: Vec<String> = ["mi50-16gb", "mi50-32gb", "mi60"]
            .iter()
            .map(|id| describe(id))
            .collect();
        all.sort();
        assert_eq!(bare, all);
        let rocm =
            "  Device 0: AMD Instinct MI60 / MI50, gfx906:sramecc+:xnack- (0x906), VMM: no, \
                    Wave Size: 64, VRAM: 32752 MiB";
        let mut big = among(rocm);
        big.sort();
        let mut want = vec![describe("mi50-32gb"), describe("mi60")];
        want.sort();
        assert_eq!(big, want);
        let small =
            "  Device 0: AMD Instinct MI60 / MI50, gfx906:sramecc+:xnack- (0x906), VMM: no, \
                     Wave Size: 64, VRAM: 16368 MiB (16348 MiB free)";
        assert_eq!(c.gpu(small).unwrap().entry.id, "mi50-16gb");
        // Neither half of the name is read as a card of its own.
        assert!(c.gpu("MI60").is_ok_and(|f| f.entry.id == "mi60"));
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
            ("MI250X GCD", "mi250x-mi250-gcd"),
            ("RX 7900 XTX", "rx-7900-xtx"),
            ("RX 9070", "rx-9070"),
            ("9070 GRE", "rx-9070-gre"),
            ("RX 6300", "rx-6300"),
            ("MI300A", "mi300a"),
            ("Intel(R) Data Center GPU Max 1100", "intel-max-1100"),
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
        let l40 = c
            .gpu("L40")
            .unwrap()
            .entry
            .bf16_tflops
            .clone()
            .unwrap()
            .value;
        let l40s = c
            .gpu("L40S")
            .unwrap()
            .entry
            .bf16_tflops
            .clone()
            .unwrap()
            .value;
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
            ("Qwen/Qwen2.5-0.5B-Instruct", "qwen2.5-0.5b"),
            ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"),
            ("Qwen2.5-72B-Instruct", "qwen2.5-72b"),
            ("Qwen/Qwen2.5-Coder-32B-Instruct", "qwen2.5-32b"),
            ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "qwen2.5-32b"),
            ("deepseek-ai/DeepSeek-R1-Distill-Llama-8B", "llama-3.1-8b"),
            ("mistralai/Mistral-7B-Instruct-v0.3", "mistral-7b-v0.3"),
            ("mistralai/Mistral-7B-Instruct-v0.1", "mistral-7b-v0.1"),
            ("mistralai/Mistral-Nemo-Instruct-2407", "mistral-nemo-12b"),
            (
                "mistralai/Mistral-Small-24B-Instruct-2501",
                "mistral-small-24b",
            ),
            ("meta-llama/Llama-2-13b-chat-hf", "llama-2-13b"),
            ("meta-llama/Llama-2-70b-hf", "llama-2-70b"),
            ("microsoft/Phi-3-mini-4k-instruct", "phi-3-mini"),
            ("microsoft/phi-4", "phi-4"),
            ("zai-org/GLM-4.5-Air", "glm-4.5-air"),
            ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3-30b-a3b"),
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

    /// Every embedded model says whether its input embedding is also the output head. A dense
    /// text model with untied tables reads vocab × hidden fewer params per token than it holds
    /// (the input table is a row lookup); a tied one reads them all.
    #[test]
    fn untied_input_embeddings_are_not_read_per_token() {
        let c = cat();
        for m in &c.models {
            let tied = m
                .tied_embeddings
                .unwrap_or_else(|| panic!("{}: tied_embeddings", m.id));
            let table = (m.vocab.expect("vocab") * m.hidden) as f64;
            // Multimodal and MoE entries state their count; their params_source says what it is.
            let multimodal = ["gemma-3-4b", "gemma-3-12b", "gemma-3-27b"];
            if m.experts.is_some() || multimodal.contains(&m.id.as_str()) {
                assert!(m.params_active < m.params_total, "{}", m.id);
                continue;
            }
            let left_out = m.params_total - m.params_active;
            assert_eq!(left_out, if tied { 0.0 } else { table }, "{}", m.id);
        }
        let llama = c.model("Llama-3.1-8B-Instruct").unwrap().entry;
        assert_eq!(llama.params_active, 8_030_261_248.0 - 128_256.0 * 4096.0);
        let spec = crate::ModelSpec::from_catalog(llama);
        assert_eq!(spec.params_gathered, Some(128_256.0 * 4096.0));
        assert_eq!(
            crate::ModelSpec::from_catalog(c.model("llama-3.2-1b").unwrap().entry).params_gathered,
            None
        );
        // A user entry with untied tables and no vocab cannot say what it reads.
        let bad = "[[model]]\nid='x'\nname='x'\narch='llama'\nparams_total=1e9\nlayers=2\n\
                   hidden=64\nheads=2\nkv_heads=2\nhead_dim=32\nattention='gqa'\ndtype='bf16'\n\
                   tied_embeddings=false\n";
        let err = Catalog::with_user_file(bad, "user.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("needs vocab"), "{err}");
    }

    /// The catalog against an independently kept table of the datasheets' dense figures: id, memory,
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

    /// Each figure names a public document (a datasheet, whitepaper, spec page or a URL) or
    /// says how it was derived, and no internal note; sparse datasheet figures are said to be
    /// halved.
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
                let public = [
                    "datasheet",
                    "whitepaper",
                    "spec page",
                    "AWS",
                    "derived",
                    "https://",
                    "github.com/",
                ];
                assert!(
                    public.iter().any(|p| s.source.contains(p))
                        && !s.source.contains("research")
                        && !s.source.contains("spec 0"),
                    "{}: {}",
                    g.id,
                    s.source
                );
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

    /// Loose names people type, in both directions: each resolves to exactly one entry, is
    /// ambiguous (with every candidate), or is unknown, never a neighbour.
    #[test]
    fn names_resolve_exactly_or_not_at_all() {
        let c = cat();
        let found = [
            ("3090", "rtx-3090"),
            ("rtx 3090", "rtx-3090"),
            ("GeForce RTX 3090", "rtx-3090"),
            ("NVIDIA GeForce RTX 3090 24GB", "rtx-3090"),
            ("nvidia-geforce-rtx-3090-24g", "rtx-3090"),
            ("L40S", "l40s"),
            ("NVIDIA L40S", "l40s"),
            ("RX 9070 XT", "rx-9070-xt"),
            ("AMD Radeon RX 9070 XT 16 GB", "rx-9070-xt"),
            ("H100 80GB HBM3", "h100-sxm"),
            ("NVIDIA H100 80GB HBM3", "h100-sxm"),
            ("H100 94GB", "h100-nvl"),
            ("NVIDIA H100 PCIe", "h100-pcie"),
            ("Tesla V100-SXM2-32GB", "v100-sxm2-32gb"),
            ("Tesla V100-SXM2-16GB", "v100-sxm2-16gb"),
            ("Tesla V100-PCIE-32GB", "v100-pcie-32gb"),
            ("NVIDIA A100-SXM4-40GB", "a100-sxm-40gb"),
            ("NVIDIA A100-PCIE-40GB", "a100-pcie-40gb"),
            ("NVIDIA A100 80GB PCIe", "a100-pcie-80gb"),
            ("A100 SXM 80GiB", "a100-sxm-80gb"),
            ("Tesla P40", "tesla-p40"),
            ("AMD Instinct MI300X", "mi300x"),
            ("NVIDIA A10G", "a10g"),
            ("NVIDIA H200", "h200-sxm"),
            ("nvidia/h200", "h200-sxm"),
        ];
        for (q, id) in found {
            match c.gpu(q) {
                Ok(f) => assert_eq!(f.entry.id, id, "{q}"),
                Err(e) => panic!("{q}: {e}"),
            }
        }
        let ambiguous: &[(&str, &[&str])] = &[
            ("H100", &["h100-sxm", "h100-pcie", "h100-nvl"]),
            ("H100 80GB", &["h100-sxm", "h100-pcie"]),
            (
                "A100",
                &[
                    "a100-sxm-40gb",
                    "a100-sxm-80gb",
                    "a100-pcie-40gb",
                    "a100-pcie-80gb",
                ],
            ),
            ("A100 40GB", &["a100-sxm-40gb", "a100-pcie-40gb"]),
            ("A100 80GB", &["a100-sxm-80gb", "a100-pcie-80gb"]),
            ("A100 SXM", &["a100-sxm-40gb", "a100-sxm-80gb"]),
            ("V100 32GB", &["v100-sxm2-32gb", "v100-pcie-32gb"]),
        ];
        for (q, ids) in ambiguous {
            match c.gpu(q) {
                Err(LookupError::Ambiguous { candidates, .. }) => {
                    assert_eq!(candidates.len(), ids.len(), "{q}: {candidates:?}");
                    for id in *ids {
                        let g = c.gpus.iter().find(|g| g.id == *id).unwrap();
                        assert!(
                            candidates.contains(&g.describe()),
                            "{q}: {candidates:?} lacks {id}"
                        );
                    }
                }
                other => panic!("{q}: {other:?}"),
            }
        }
        // The loose names that once became a neighbour (M40 was the A100 40GB, P4 the P40, L40
        // the L40S, RX 9070 the XT, 309 the 3090, RTX 3060 a "did you mean" 3090) now reach
        // their own entry, or ask for the memory size between variants of the same card.
        let own: &[(&str, &str)] = &[
            ("P4", "tesla-p4"),
            ("Tesla P4", "tesla-p4"),
            ("L40", "l40"),
            ("L40S", "l40s"),
            ("RX 9070", "rx-9070"),
            ("RX 9070 XT", "rx-9070-xt"),
            ("RTX-3060 12GB", "rtx-3060-12gb"),
            ("NVIDIA GeForce RTX 3060 8GB", "rtx-3060-8gb"),
            ("RTX 3060 Ti", "rtx-3060-ti"),
            ("Tesla M40 24GB", "tesla-m40-24gb"),
            ("T4", "tesla-t4"),
            ("A10", "a10"),
        ];
        for (q, id) in own {
            match c.gpu(q) {
                Ok(f) => assert_eq!(f.entry.id, *id, "{q}"),
                other => panic!("{q}: {other:?}"),
            }
        }
        for (q, ids) in [
            ("M40", &["tesla-m40-24gb", "tesla-m40-12gb"][..]),
            ("RTX 3060", &["rtx-3060-12gb", "rtx-3060-8gb"][..]),
        ] {
            match c.gpu(q) {
                Err(LookupError::Ambiguous { candidates, .. }) => {
                    assert_eq!(candidates.len(), ids.len(), "{q}: {candidates:?}")
                }
                other => panic!("{q} should ask for the memory size: {other:?}"),
            }
        }
        // Fragments, sizes no variant has, and uncatalogued parts: unknown, never a neighbour.
        for q in [
            "309",
            "RTX 3090 48GB",
            "A100 48GB",
            "H100 SXM 94GB",
            "4090 Ti",
            "GeForce",
            "24GB",
            "",
            "MI300",
            "RX 9070 XTX",
        ] {
            match c.gpu(q) {
                Err(LookupError::NotFound { .. }) => {}
                other => panic!("{q:?} should be unknown: {other:?}"),
            }
        }
    }

    /// Apple chips as users name them with a GPU core count (llama.cpp's Apple Silicon
    /// thread lists "M1 Max 24-core", "M2 Ultra 76-core"): a chip with one entry for every core
    /// count (one bandwidth) answers to any count, as a loose match; a chip with an entry per
    /// count answers only to the counts it has.
    #[test]
    fn apple_core_counts_name_their_chip() {
        let c = cat();
        for (q, id, loose) in [
            ("M4 Max 40-core", "apple-m4-max-40c", false),
            ("Apple M4 Max (32-core GPU)", "apple-m4-max-32c", false),
            ("m3 max 30 core", "apple-m3-max-30c", false),
            ("M3 Max 40 GPU cores", "apple-m3-max-40c", false),
            ("M5 Pro 16-core GPU", "apple-m5-pro", false),
            ("M1 Max 24-core", "apple-m1-max", true),
            ("M1 Max 32c", "apple-m1-max", true),
            ("M2 Ultra 76-core", "apple-m2-ultra", true),
            ("Apple M1 Pro (14-core GPU)", "apple-m1-pro", true),
            ("M2 8-core GPU", "apple-m2", true),
        ] {
            match c.gpu(q) {
                Ok(f) => {
                    assert_eq!(f.entry.id, id, "{q}");
                    assert_eq!(f.loose_match.is_some(), loose, "{q}");
                }
                Err(e) => panic!("{q}: {e}"),
            }
        }
        // A count the chip's variants do not have is another part: unknown, never a neighbour.
        for q in [
            "M3 Max 35-core",
            "M5 Pro 18-core",
            "M5 Max 32-core",
            "M4 Max 36c",
        ] {
            match c.gpu(q) {
                Err(LookupError::NotFound { .. }) => {}
                other => panic!("{q:?} should be unknown: {other:?}"),
            }
        }
    }

    /// A count written into the name is an error that says how to give it, never a card.
    #[test]
    fn a_count_of_cards_in_the_name_points_to_tp() {
        for (q, n, card) in [
            ("2x RTX 3090", 2, "RTX 3090"),
            ("RTX 3090 x2", 2, "RTX 3090"),
            ("2 x 3090", 2, "3090"),
            ("4xA100", 4, "A100"),
            ("8x H100 SXM", 8, "H100 SXM"),
            ("H100 X8", 8, "H100"),
        ] {
            assert_eq!(gpu_count_in_name(q), Some((n, card.to_string())), "{q}");
        }
        for q in [
            "RTX 3090",
            "7900 XTX",
            "MI300X",
            "A10G",
            "Xeon",
            "1x RTX 3090",
            "x2",
        ] {
            assert_eq!(gpu_count_in_name(q), None, "{q}");
        }
        let e = cat().gpu("2x RTX 3090").unwrap_err().to_string();
        assert!(e.contains("--gpu \"RTX 3090\" --tp 2"), "{e}");
    }

    #[test]
    fn ambiguity_and_misses_read_the_same_everywhere() {
        let c = cat();
        let e = c.gpu("A100 80GB").unwrap_err().to_string();
        assert_eq!(
            e,
            "GPU 'A100 80GB' is ambiguous: A100 SXM 80GB (80 GiB, 2039 GB/s), \
             A100 PCIe 80GB (80 GiB, 1935 GB/s); give one of these names"
        );
        // A near name is offered with its figures, as a different card.
        let e = c.gpu("RTX-3090 Tii").unwrap_err().to_string();
        assert!(
            e.starts_with("GPU 'RTX-3090 Tii' is not in the catalog; near names are different entries, not this one: ")
                && e.contains("GeForce RTX 3090 Ti (24 GiB, "),
            "{e}"
        );
        match c.gpu("H10O") {
            Err(LookupError::NotFound { suggestions, .. }) => {
                assert_eq!(suggestions.len(), 3, "{suggestions:?}");
                assert!(suggestions.iter().all(|n| n.starts_with("H100")));
            }
            other => panic!("{other:?}"),
        }
        match c.gpu("quantum-9000") {
            Err(e @ LookupError::NotFound { .. }) => {
                assert!(e.to_string().contains("ceiling --list"), "{e}");
                assert!(!e.to_string().contains("near names"), "{e}");
            }
            other => panic!("{other:?}"),
        }
        match c.model("llama-3.1-8c") {
            Err(LookupError::NotFound { suggestions, .. }) => {
                assert_eq!(suggestions[0], "Llama 3.1 8B (8.03B params)")
            }
            other => panic!("{other:?}"),
        }
        // No substring: "qwen3" is no model, and its near names are listed.
        match c.model("qwen3") {
            Err(LookupError::NotFound { .. }) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn gpu_names_normalise_by_the_rule() {
        let n = |s: &str| {
            let g = normalize_gpu(s);
            (g.key, g.memory_gib)
        };
        assert_eq!(
            n("NVIDIA GeForce RTX 3090 24GB"),
            ("rtx3090".into(), Some(24.0))
        );
        assert_eq!(n("Tesla V100-SXM2-32GB"), ("v100sxm2".into(), Some(32.0)));
        assert_eq!(n("RTX 3060 12 GB"), ("rtx3060".into(), Some(12.0)));
        assert_eq!(n("mi300x_192gib"), ("mi300x".into(), Some(192.0)));
        assert_eq!(n("A770 16G"), ("a770".into(), Some(16.0)));
        assert_eq!(n("Intel Arc A770"), ("a770".into(), None));
        assert_eq!(n("A10G"), ("a10g".into(), None));
        assert_eq!(n("Apple M2 Max"), ("m2max".into(), None));
        // Brand words only as whole words: "arcturus" and "teslax" keep theirs.
        assert_eq!(n("Arcturus"), ("arcturus".into(), None));
        assert_eq!(n("H100 80GB HBM3"), ("h10080gbhbm3".into(), None));
        // Every spelling of a GPU core count is one word.
        for s in [
            "Apple M3 Max (40-core GPU)",
            "M3 Max 40-core",
            "m3 max 40 cores",
            "M3 Max 40 GPU cores",
            "M3 Max 40core",
            "M3 Max 40c",
        ] {
            assert_eq!(n(s), ("m3max40c".into(), None), "{s}");
        }
        assert_eq!(
            n("M1 Max 24-core GPU 64GB"),
            ("m1max24c".into(), Some(64.0))
        );
        assert_eq!(normalize("meta-llama/Llama-3.1-8B"), "llama3.18b");
        assert_eq!(normalize("llama3.1:8b"), "llama3.18b");
    }

    /// fixtures/scoreboards/device_names.toml: names exactly as llama.cpp prints them in device
    /// lines users paste publicly. Each, bare or as the whole pasted line, resolves to its own
    /// entry, to an ambiguity naming exactly its variants, or to nothing: never a neighbour.
    #[test]
    fn printed_device_names_resolve_to_their_own_entry() {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Row {
            printed: String,
            line: String,
            backend: String,
            source: String,
            expect: String,
            #[serde(default)]
            among: Vec<String>,
            #[serde(default)]
            note: Option<String>,
        }
        #[derive(Deserialize)]
        struct File {
            name: Vec<Row>,
        }
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/scoreboards/device_names.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        let file: File = toml::from_str(&text).unwrap();
        let c = cat();
        let mut failures = Vec::new();
        for row in &file.name {
            assert!(
                ["CUDA", "ROCm", "Vulkan", "Metal", "SYCL", "MUSA"].contains(&row.backend.as_str()),
                "{}: backend {}",
                row.printed,
                row.backend
            );
            assert!(row.source.starts_with("https://"), "{}", row.source);
            if row.expect == "none" {
                assert!(
                    row.note.is_some(),
                    "{}: say why it is not catalogued",
                    row.printed
                );
            }
            for q in [&row.printed, &row.line] {
                let got = c.gpu(q);
                let ok = match (row.expect.as_str(), &got) {
                    ("none", Err(LookupError::NotFound { .. })) => true,
                    ("ambiguous", Err(LookupError::Ambiguous { candidates, .. })) => {
                        candidates.len() == row.among.len()
                            && row.among.iter().all(|id| {
                                c.gpus
                                    .iter()
                                    .any(|g| &g.id == id && candidates.contains(&g.describe()))
                            })
                    }
                    (id, Ok(f)) => f.entry.id == id,
                    _ => false,
                };
                if !ok {
                    failures.push(format!("{q:?}: expected {}, got {got:?}", row.expect));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        // A laptop part says why its desktop namesake is not it.
        let e = c
            .gpu("NVIDIA GeForce RTX 5070 Ti Laptop GPU")
            .unwrap_err()
            .to_string();
        assert!(e.contains("a laptop part"), "{e}");
        // An integrated GPU's name says how to get its ceiling from the host's RAM.
        for name in [
            "AMD Radeon 780M Graphics",
            "AMD Radeon Graphics (RADV PHOENIX)",
            "AMD Radeon(TM) Vega 8 Graphics",
            "Intel(R) UHD Graphics 770",
            "Intel(R) Iris(R) Xe Graphics",
            "Intel(R) Arc(TM) 140T GPU (16GB)",
            "Intel(R) Arc(TM) Graphics",
            "Qualcomm(R) Adreno(TM) X1-85 GPU",
        ] {
            assert!(is_integrated_name(name), "{name}");
            let e = c.gpu(name).unwrap_err().to_string();
            assert!(e.contains("--gpu none --ram-bandwidth"), "{e}");
        }
        // Lunar Lake's Arc 140V has its memory on the package: catalogued, the driver's
        // "(16GB)" bracket dropped.
        assert_eq!(
            c.gpu("Intel(R) Arc(TM) 140V GPU (16GB)").unwrap().entry.id,
            "arc-140v"
        );
        for name in [
            "AMD Radeon RX 6600M",
            "Intel(R) Arc(TM) A770 Graphics",
            "Radeon RX 7800 XT",
            "NVIDIA GeForce RTX 4070 Laptop GPU",
        ] {
            assert!(!is_integrated_name(name), "{name}");
        }
        // The RTX PRO 6000's 300 W Max-Q Workstation Edition is a desktop card, not a laptop part.
        assert!(is_laptop_name("Quadro P5000 Max-Q"));
        assert!(!is_laptop_name(
            "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"
        ));
    }

    #[test]
    fn pasted_device_lines_reduce_to_the_device_name() {
        let d = |s: &str| device_part(s);
        assert_eq!(
            d("ggml_vulkan: 0 = AMD Radeon RX 7900 XT (RADV NAVI31) (radv) | uma: 0 | fp16: 1"),
            ("AMD Radeon RX 7900 XT".into(), None)
        );
        assert_eq!(
            d("  Device 0: NVIDIA GeForce RTX 3060, compute capability 8.6, VMM: yes"),
            ("NVIDIA GeForce RTX 3060".into(), None)
        );
        let (n, v) = d("Device 0: AMD Radeon RX 6700 XT, gfx1030 (0x1030), VMM: no, Wave Size: 32, VRAM: 12272 MiB");
        assert_eq!(n, "AMD Radeon RX 6700 XT");
        assert!((v.unwrap() - 11.98).abs() < 0.01);
        assert_eq!(
            d("ggml_metal_device_init: GPU name:   Apple M2 Max").0,
            "Apple M2 Max"
        );
        assert_eq!(
            d("ggml_metal_init: found device: Apple M1 Pro").0,
            "Apple M1 Pro"
        );
        assert_eq!(d("GPU name:   MTL0 (Apple M5 Max)").0, "Apple M5 Max");
        assert_eq!(
            d("| 0|[level_zero:gpu:0]|     Intel(R) Arc(TM) A770 Graphics|  1.3|  512|").0,
            "Intel Arc A770 Graphics"
        );
        assert_eq!(d("RTX 3090").0, "RTX 3090");
        // llama-server's device list, its label padded and the memory in a bracket.
        assert_eq!(
            d("  - CUDA0   : NVIDIA GeForce RTX 3070 (8191 MiB, 7114 MiB free)").0,
            "NVIDIA GeForce RTX 3070"
        );
        assert_eq!(
            d("  CUDA0: Quadro P4000 (8107 MiB, 8022 MiB free)").0,
            "Quadro P4000"
        );
        // The model loader's line names the device in a bracket after its label.
        assert_eq!(
            d("llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 5060 Ti) (0000:01:00.0) - 15055 MiB free").0,
            "NVIDIA GeForce RTX 5060 Ti"
        );
        assert_eq!(
            d("llama_load_model_from_file: using device Vulkan0 (AMD Radeon RX 6700 XT (RADV NAVI22)) - 12032 MiB free").0,
            "AMD Radeon RX 6700 XT"
        );
        // A reported VRAM picks between variants that print one name, and only a size the
        // driver could report for the part: 12 GB tells the 3060s apart, 24 GB fits neither.
        let c = cat();
        let line = |mib: u32| {
            format!("Device 0: NVIDIA GeForce RTX 3060, compute capability 8.6, VMM: yes, VRAM: {mib} MiB")
        };
        assert_eq!(c.gpu(&line(12044)).unwrap().entry.id, "rtx-3060-12gb");
        assert_eq!(c.gpu(&line(7971)).unwrap().entry.id, "rtx-3060-8gb");
        assert!(matches!(
            c.gpu(&line(24000)),
            Err(LookupError::NotFound { .. })
        ));
        // `llama-server --list-devices` gives the size in brackets, total first, then free.
        let listed = "  CUDA0: NVIDIA GeForce RTX 3060 (11909 MiB, 11623 MiB free)";
        assert_eq!(
            d(listed),
            (
                "NVIDIA GeForce RTX 3060".to_string(),
                Some(11909.0 / 1024.0)
            )
        );
        assert_eq!(c.gpu(listed).unwrap().entry.id, "rtx-3060-12gb");
        // A unified-memory chip reports a share of the host's RAM, under the entry's largest
        // configuration: it still names the chip (the floor only picks between variants).
        let shared =
            "  Vulkan0: AMD Radeon 8060S Graphics (RADV GFX1151) (65536 MiB, 60000 MiB free)";
        assert_eq!(c.gpu(shared).unwrap().entry.id, "radeon-8060s");
        let metal = "Device 0: Apple M1 Max, VRAM: 49152 MiB";
        assert_eq!(c.gpu(metal).unwrap().entry.id, "apple-m1-max");
    }

    /// The load check's promise: every entry's id and name name exactly that entry.
    #[test]
    fn every_id_and_name_resolves_to_its_own_entry() {
        let c = cat();
        for g in &c.gpus {
            for n in [&g.id, &g.name] {
                assert_eq!(c.gpu(n).map(|f| &f.entry.id), Ok(&g.id), "{n}");
            }
        }
        for m in &c.models {
            for n in [&m.id, &m.name] {
                assert_eq!(c.model(n).map(|f| &f.entry.id), Ok(&m.id), "{n}");
            }
        }
    }

    /// `--model` values as users type them: Hugging Face repo ids, Ollama tags.
    #[test]
    fn model_names_users_type() {
        let c = cat();
        let found = [
            ("meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b", None),
            (
                "meta-llama/Meta-Llama-3.1-8B-Instruct",
                "llama-3.1-8b",
                Some("Llama 3.1 8B"),
            ),
            ("llama3.1:8b", "llama-3.1-8b", None),
            ("llama3.1:70b", "llama-3.1-70b", None),
            ("llama3.3:70b", "llama-3.1-70b", None),
            ("llama3.2:3b", "llama-3.2-3b", None),
            ("qwen3:8b", "qwen3-8b", None),
            ("qwen3:30b", "qwen3-30b-a3b", None),
            ("qwen3:30b-a3b", "qwen3-30b-a3b", None),
            ("qwen3:235b", "qwen3-235b-a22b", None),
            ("gemma3:27b", "gemma-3-27b", None),
            ("gemma2:9b", "gemma-2-9b", None),
            ("gpt-oss:20b", "gpt-oss-20b", None),
            ("mixtral:8x7b", "mixtral-8x7b", None),
            ("deepseek-r1:671b", "deepseek-v3", None),
            ("deepseek-v2:16b", "deepseek-v2-lite", None),
            ("smollm2:135m", "smollm2-135m", None),
            ("Qwen/Qwen3-8B-Instruct", "qwen3-8b", Some("Qwen3-8B")),
            ("qwen2.5:7b", "qwen2.5-7b", None),
            ("qwen2.5:0.5b", "qwen2.5-0.5b", None),
            ("qwen2.5:1.5b", "qwen2.5-1.5b", None),
            ("qwen2.5:3b", "qwen2.5-3b", None),
            ("qwen2.5:14b", "qwen2.5-14b", None),
            ("qwen2.5:32b", "qwen2.5-32b", None),
            ("qwen2.5:72b", "qwen2.5-72b", None),
            ("qwen2.5-coder:32b", "qwen2.5-32b", None),
            ("deepseek-r1:32b", "qwen2.5-32b", None),
            ("deepseek-r1:70b", "llama-3.1-70b", None),
            ("mistral:7b", "mistral-7b-v0.3", None),
            ("mistral-nemo:12b", "mistral-nemo-12b", None),
            ("mistral-small:24b", "mistral-small-24b", None),
            ("llama2:13b", "llama-2-13b", None),
            ("llama2:70b", "llama-2-70b", None),
            ("phi3:mini", "phi-3-mini", None),
            ("phi4:14b", "phi-4", None),
            ("qwen3-coder:30b", "qwen3-30b-a3b", None),
            ("Qwen/Qwen2.5-14B-Chat", "qwen2.5-14b", Some("Qwen2.5-14B")),
        ];
        for (q, id, loose) in found {
            let f = c.model(q).unwrap_or_else(|e| panic!("{q}: {e}"));
            assert_eq!(f.entry.id, id, "{q}");
            assert_eq!(f.loose_match.as_deref(), loose, "{q}");
        }
        // Uncatalogued models and fragments: unknown, never a neighbour.
        for q in [
            "Qwen/Qwen2-7B-Instruct",
            "llama3.1",
            "llama",
            "qwen3:1.7b",
            "Llama-3.1-8",
            "gemma-3-27",
            "it",
            "-Instruct",
        ] {
            match c.model(q) {
                Err(LookupError::NotFound { .. }) => {}
                other => panic!("{q:?} should be unknown: {other:?}"),
            }
        }
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
        // A name that names another entry too.
        let e = Catalog::with_user_file(
            "[[gpu]]\nid='x'\nname='H200'\nvendor='v'\nmemory_gib=141\nbandwidth_gbps=100\nbf16_tflops=1\n",
            "dup.toml",
        )
        .unwrap_err();
        assert!(e.to_string().contains("also names 'h200-sxm'"), "{e}");
        // A shared alias is fine (the memory size tells them apart), and so is an alias whose
        // memory size is the entry's own; one that differs is refused.
        let shared = "[[gpu]]\nid='rtx-3060-12gb'\nname='RTX 3060 12GB'\nvendor='v'\naliases=['RTX 3060']\nmemory_gib=12\nbandwidth_gbps=360\nbf16_tflops=1\n\
                      [[gpu]]\nid='rtx-3060-8gb'\nname='RTX 3060 8GB'\nvendor='v'\naliases=['RTX 3060']\nmemory_gib=8\nbandwidth_gbps=240\nbf16_tflops=1\n";
        let c = Catalog::with_user_file(shared, "3060.toml").unwrap();
        assert_eq!(
            c.gpu("NVIDIA GeForce RTX 3060 12GB").unwrap().entry.id,
            "rtx-3060-12gb"
        );
        assert_eq!(c.gpu("RTX 3060 8 GB").unwrap().entry.id, "rtx-3060-8gb");
        assert!(matches!(
            c.gpu("rtx 3060"),
            Err(LookupError::Ambiguous { .. })
        ));
        let e = Catalog::with_user_file(
            "[[gpu]]\nid='x'\nname='x'\nvendor='v'\naliases=['X 16GB']\nmemory_gib=8\nbandwidth_gbps=100\nbf16_tflops=1\n",
            "alias.toml",
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("alias 'X 16GB' does not name it"),
            "{e}"
        );
        // Two entries with one id in a file.
        let e = Catalog::with_user_file(
            "[[gpu]]\nid='x'\nname='x'\nvendor='v'\nmemory_gib=8\nbandwidth_gbps=100\nbf16_tflops=1\n\
             [[gpu]]\nid='x'\nname='y'\nvendor='v'\nmemory_gib=8\nbandwidth_gbps=100\nbf16_tflops=1\n",
            "twice.toml",
        )
        .unwrap_err();
        assert!(e.to_string().contains("a second entry with this id"), "{e}");
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
