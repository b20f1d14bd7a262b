//! The `headroom ceiling` documents (docs/json/ceiling.md): one type per schema, serialized by
//! the command and read back by deserializing. Their keys print in alphabetical order (the
//! command writes them through `serde_json::Value`, as version 1 always has).

use serde::{Deserialize, Serialize};

use crate::ceilings::{Ceilings, GpuFigures, ModelFigures};
use crate::offload::{self, Duty, RamBound};
use crate::provenance::Known;
use crate::{Catalog, Gpu, Model, ModelSpec, Options, PhysicsError};

pub const CEILING: &str = "headroom.ceiling/1";
pub const RAM: &str = "headroom.ceiling.ram/1";
pub const DUTY: &str = "headroom.ceiling.duty/1";
pub const LIST: &str = "headroom.ceiling.list/1";

/// `headroom.ceiling/1`: one GPU type × one model × the deployment options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CeilingDoc {
    pub schema: String,
    /// The catalog entry `--gpu` named; unknown when not given or not catalogued.
    pub gpu: Known<Gpu>,
    /// The model as the math sees it (catalog or model file).
    pub model: Known<ModelSpec>,
    /// The catalog entry, when the model came from the catalog.
    pub model_entry: Option<Model>,
    pub options: CeilingOptions,
    /// GPU-free figures; `None` only when the model is unknown.
    pub model_figures: Option<ModelFigures>,
    /// Unknown when the GPU or the model is.
    pub ceilings: Known<GpuFigures>,
    /// With a RAM bandwidth: the host-RAM-bound ceiling.
    pub ram_bound: Option<Known<RamBound>>,
    pub notes: Vec<String>,
}

/// The options as given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CeilingOptions {
    pub tp: u32,
    pub dtype: Option<String>,
    pub quantization: Option<String>,
    pub kv_cache_dtype: Option<String>,
    pub prompt_tokens: Option<f64>,
    pub max_model_len: Option<u64>,
    pub gpu_memory_utilization: f64,
    pub context: Option<u64>,
    pub price_per_hour: Option<f64>,
    pub ram_bandwidth_gbps: Option<f64>,
    pub shared_gb: Option<f64>,
    /// `--gpu none`: CPU-only serving; the decode ceiling is the host-RAM-bound one.
    #[serde(default)]
    pub cpu_only: bool,
}

/// Experts in host RAM: the measured bandwidth, and the GB per token read besides the routed
/// experts (`None`: the rest of the decode stream).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RamRequest {
    pub bandwidth_gbps: f64,
    pub shared_gb: Option<f64>,
    /// How the bandwidth was obtained (`--ram-bandwidth`: engine flag; `--measure`: measured).
    pub provenance: crate::Provenance,
    /// CPU-only serving (`--gpu none`): every active weight streams from host RAM.
    pub cpu_only: bool,
}

impl CeilingDoc {
    /// Everything physics can say about `gpu` × `model` under `opts`: the model figures when
    /// the model is known, the ceilings when both are, the RAM-bound ceiling when asked.
    /// `notes` are the caller's remarks (how loose names were resolved ...).
    pub fn compute(
        gpu: Known<Gpu>,
        model: Known<ModelSpec>,
        model_entry: Option<Model>,
        opts: &Options,
        ram: Option<RamRequest>,
        notes: Vec<String>,
    ) -> Result<CeilingDoc, PhysicsError> {
        let model_figures = match model.get() {
            Some(spec) => Some(ModelFigures::compute(spec, opts)?),
            None => None,
        };
        let ceilings = match (gpu.get(), model.get()) {
            (Some(g), Some(spec)) => Known::Known(Ceilings::compute(g, spec, opts)?.figures),
            (None, _) => Known::unknown(gpu.reason().unwrap_or_default()),
            (_, None) => Known::unknown(model.reason().unwrap_or_default()),
        };
        let ram_bound = match (ram, model.get(), &model_figures) {
            (Some(r), Some(spec), Some(f)) => {
                let mut rb = offload::ram_bound_for_model(
                    spec,
                    f,
                    r.bandwidth_gbps,
                    r.shared_gb.map(|g| g * 1e9),
                )?;
                if let Known::Known(b) = &mut rb {
                    b.bandwidth.provenance = r.provenance;
                    if r.cpu_only {
                        b.notes.push(
                            "CPU only: the decode ceiling is host RAM bandwidth / bytes per \
                             token, for one sequence"
                                .into(),
                        );
                    }
                }
                Some(rb)
            }
            (Some(_), _, _) => Some(Known::unknown(model.reason().unwrap_or_default())),
            (None, _, _) => None,
        };
        Ok(CeilingDoc {
            schema: CEILING.into(),
            options: CeilingOptions {
                tp: opts.tp,
                dtype: opts.dtype.clone(),
                quantization: opts.quantization.clone(),
                kv_cache_dtype: opts.kv_cache_dtype.clone(),
                prompt_tokens: opts.prompt_tokens.as_ref().map(|p| p.value),
                max_model_len: opts.max_model_len,
                gpu_memory_utilization: opts.gpu_memory_utilization,
                context: opts.context,
                price_per_hour: opts.price_per_hour,
                ram_bandwidth_gbps: ram.map(|r| r.bandwidth_gbps),
                shared_gb: ram.and_then(|r| r.shared_gb),
                cpu_only: ram.is_some_and(|r| r.cpu_only),
            },
            gpu,
            model,
            model_entry,
            model_figures,
            ceilings,
            ram_bound,
            notes,
        })
    }
}

/// `headroom.ceiling.ram/1`: the host-RAM-bound ceiling from raw figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RamDoc {
    pub schema: String,
    pub ram_bound: RamBound,
}

impl RamDoc {
    pub fn new(ram_bound: RamBound) -> RamDoc {
        RamDoc {
            schema: RAM.into(),
            ram_bound,
        }
    }
}

/// `headroom.ceiling.duty/1`: the expert-offload duty cycle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DutyDoc {
    pub schema: String,
    pub duty: Duty,
}

impl DutyDoc {
    pub fn new(duty: Duty) -> DutyDoc {
        DutyDoc {
            schema: DUTY.into(),
            duty,
        }
    }
}

/// `headroom.ceiling.list/1`: what is catalogued.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListDoc {
    pub schema: String,
    pub gpus: Vec<Gpu>,
    pub models: Vec<Model>,
}

impl ListDoc {
    pub fn new(c: &Catalog) -> ListDoc {
        ListDoc {
            schema: LIST.into(),
            gpus: c.gpus.clone(),
            models: c.models.clone(),
        }
    }
}
