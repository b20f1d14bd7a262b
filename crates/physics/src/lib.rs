//! Pure math and catalogs: ceilings, ridge, KV, MoE RAM-bound, offload duty cycle, cost.
//!
//! No I/O: the catalogs are embedded TOML text, a user catalog is parsed from a string the caller
//! read, and every function takes values and returns values.
//!
//! # Using it
//!
//! ```
//! use physics::{Catalog, Ceilings, ModelSpec, Options};
//!
//! let cat = Catalog::embedded().unwrap();
//! let gpu = cat.gpu("H100-SXM").unwrap().entry;
//! let model = ModelSpec::from_catalog(cat.model("llama-3.1-8b").unwrap().entry);
//! let opts = Options { max_model_len: Some(8192), ..Options::default() };
//! let c = Ceilings::compute(gpu, &model, &opts).unwrap();
//! // 3350 GB/s × 8e9 / (7.505e9 params read per token × 16 bits) ≈ 223 tok/s (the untied
//! // input embedding is a row lookup, not read whole), printed "223 tok/s (est)".
//! assert_eq!(c.decode_tps.render(), "223 tok/s (est)");
//! assert!(c.memory.fits);
//! ```
//!
//! - [`Catalog`]: `embedded()`, `with_user_file(text, origin)`, `gpu(name)` / `model(name)`
//!   exact lookups (a normalised name, never a substring; see the `catalog` module doc)
//!   returning [`Found`], or a [`LookupError`]: ambiguous with every candidate, or unknown
//!   with near names said to be different entries.
//! - [`ModelSpec`]: the model as the math sees it (`from_catalog`, or fill it from a model file).
//! - [`Options`]: tp, the bits chain inputs (engine quantization/dtype, `--quantization`,
//!   `--dtype`), KV dtype, prompt length, `--max-model-len`, `--gpu-memory-utilization`,
//!   context, price per GPU-hour.
//! - [`ModelFigures::compute`]: the GPU-free figures (bits resolution, weight footprint, decode
//!   stream, KV geometry); [`Ceilings::compute`]: everything for one GPU type (decode, prefill,
//!   ridge, memory and concurrency, smallest TP, cost).
//! - [`offload::ram_bound`] / [`offload::ram_bound_for_model`]: host-RAM-bound MoE ceiling;
//!   [`offload::duty`]: expert-offload duty cycle.
//! - The bare formulas for callers with their own numbers: [`ceilings::decode_ceiling`],
//!   [`ceilings::prefill_ceiling`], [`ceilings::ridge_batch`], [`ceilings::cost_per_million`].
//!
//! Each figure is a [`Figure`] (value, unit, [`Provenance`], [`Mark`]); a figure that cannot be
//! known is a [`Known::Unknown`] carrying its reason, never a guessed number. An uncatalogued GPU
//! or model is the caller's "Hardware ceiling unknown" (see [`UNKNOWN_CEILING`]).

pub mod bits;
pub mod catalog;
pub mod ceilings;
pub mod doc;
pub mod kv;
pub mod mix;
pub mod offload;
pub mod pcie;
pub mod provenance;
pub mod scoreboard;
pub mod spec;

pub use bits::{resolve_bits, weight_format, BitsResolution, BitsSource, ComputeClass};
pub use catalog::{
    Attention, Catalog, CatalogError, Found, Gpu, LookupError, Model, Sourced, SourcedLink,
};
pub use ceilings::{Ceilings, GpuFigures, ModelFigures};
pub use kv::Kv;
pub use mix::MixShape;
pub use provenance::{Figure, Known, Mark, Provenance};
pub use spec::{FileBytes, ModelSpec, Moe, Options};

/// The words every renderer prints when the GPU or model is not catalogued.
pub const UNKNOWN_CEILING: &str = "Hardware ceiling unknown";

/// Invalid inputs to the math (the user's flags), named.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PhysicsError {
    #[error("{flag} '{name}' is not a known format; known: {known}")]
    UnknownFormat {
        flag: &'static str,
        name: String,
        known: String,
    },
    #[error("{0}")]
    InvalidInput(String),
}
