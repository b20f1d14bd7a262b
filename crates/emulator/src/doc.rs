//! `headroom emulate --json`'s documents (docs/json/emulate.md): the deployment a running
//! emulator serves, and the scenario list. Printed through `serde_json::Value`, so their keys
//! come out in alphabetical order as version 1 has always printed them.

use loadgen::traffic::LoadShape;
use serde::{Deserialize, Serialize};

use crate::cost::{Figures, Layout};
use crate::hardware::Configured;
use crate::scenario::Scenario;
use crate::{ArgOverrides, EngineArgs};

pub const SCHEMA: &str = "headroom.emulate/1";
pub const SCHEMA_SCENARIOS: &str = "headroom.emulate.scenarios/1";

/// `headroom.emulate/1`: one deployment, served.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmulateDoc {
    pub schema: String,
    /// Where it listens (with `--port 0`, the port it picked).
    pub url: String,
    /// Always true.
    pub simulated: bool,
    /// Simulated seconds per wall second.
    pub speed: f64,
    pub seed: u64,
    /// The scenario whose deployment was started from.
    pub scenario: Option<String>,
    /// The scenario's load is replayed inside the engine.
    pub drive: bool,
    pub gpu: String,
    pub model: String,
    /// Catalog id (the default served name).
    pub model_id: String,
    /// The deployment as a vLLM command line.
    pub command_line: String,
    pub args: EngineArgs,
    pub layout: Layout,
    pub figures: StepFigures,
    /// Deployments a real vLLM would refuse, served anyway.
    pub warnings: Vec<String>,
}

/// What a step costs (docs/json/emulate.md `figures`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepFigures {
    /// One sequence, tok/s.
    pub decode_ceiling_tps: f64,
    pub ridge_batch: f64,
    pub bandwidth_bytes_per_s: f64,
    /// FLOP/s at `compute_precision`.
    pub flops: f64,
    pub compute_precision: String,
    pub weight_bytes: f64,
    /// Weights read per step.
    pub stream_bytes: f64,
    pub kv_bytes_per_token: f64,
    /// Catalog sources and formulas.
    pub sources: Vec<String>,
}

impl EmulateDoc {
    /// The document of `c` served at `url`.
    pub fn new(
        c: &Configured,
        url: String,
        speed: f64,
        seed: u64,
        scenario: Option<&str>,
        drive: bool,
    ) -> EmulateDoc {
        let f = &c.hardware.figures;
        let layout = c.engine().layout().clone();
        EmulateDoc {
            schema: SCHEMA.into(),
            url,
            simulated: true,
            speed,
            seed,
            scenario: scenario.map(str::to_string),
            drive,
            gpu: f.gpu.clone(),
            model: f.model.clone(),
            model_id: c.hardware.model_id.clone(),
            command_line: c.command_line(),
            args: c.args.clone(),
            warnings: layout.warnings.clone(),
            layout,
            figures: StepFigures::of(f),
        }
    }
}

impl StepFigures {
    pub fn of(f: &Figures) -> StepFigures {
        StepFigures {
            decode_ceiling_tps: f.decode_ceiling_tps(),
            ridge_batch: f.ridge_batch(),
            bandwidth_bytes_per_s: f.bandwidth,
            flops: f.flops,
            compute_precision: f.compute_precision.clone(),
            weight_bytes: f.weight_bytes,
            stream_bytes: f.stream_bytes,
            kv_bytes_per_token: f.kv_bytes_per_token,
            sources: f.sources.clone(),
        }
    }
}

/// `GET /emulator`: the deployment as the emulator models it, and its live clock
/// (docs/json/emulate.md § `GET /emulator`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmulatorState {
    /// Always true.
    pub simulated: bool,
    /// Simulated seconds per wall second.
    pub speed: f64,
    /// Unix time of simulated second 0.
    pub epoch_unix_s: f64,
    /// Simulated seconds since the start.
    pub sim_seconds: f64,
    /// Times the simulation fell behind the wall clock and was re-anchored (the CPU could not
    /// keep up: simulated time slows rather than skips).
    pub lags: u64,
    /// The scenario's load is replayed inside the engine.
    pub drive: bool,
    pub gpu: String,
    pub model: String,
    /// The deployment as a vLLM command line.
    pub command_line: String,
    pub args: EngineArgs,
    pub layout: Layout,
    pub figures: StepFigures,
}

/// `headroom.emulate.scenarios/1`: the scenario suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenariosDoc {
    pub schema: String,
    pub scenarios: Vec<ScenarioEntry>,
}

/// One scenario as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioEntry {
    pub name: String,
    pub summary: String,
    pub gpu: String,
    pub model: String,
    /// The flags it sets; null = vLLM's default.
    pub args: ArgOverrides,
    pub load: LoadShape,
    pub warmup_s: f64,
    pub window_s: f64,
    pub interval_s: f64,
    pub expect: ExpectEntry,
}

/// What the diagnosis of a scenario must say (`scenario::Expect`, owned).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectEntry {
    pub primary: Option<String>,
    pub variant: Option<String>,
    /// [rule, by] pairs.
    pub silenced: Vec<(String, String)>,
    pub held: Vec<String>,
    pub never: Vec<String>,
    /// The sentence of the rule it checks.
    pub spec: String,
}

impl ScenariosDoc {
    pub fn new(all: &[Scenario]) -> ScenariosDoc {
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        ScenariosDoc {
            schema: SCHEMA_SCENARIOS.into(),
            scenarios: all
                .iter()
                .map(|s| ScenarioEntry {
                    name: s.name.into(),
                    summary: s.summary.into(),
                    gpu: s.gpu.into(),
                    model: s.model.into(),
                    args: s.args.clone(),
                    load: s.load.clone(),
                    warmup_s: s.warmup_s,
                    window_s: s.window_s,
                    interval_s: s.interval_s,
                    expect: ExpectEntry {
                        primary: s.expect.primary.map(str::to_string),
                        variant: s.expect.variant.map(str::to_string),
                        silenced: s
                            .expect
                            .silenced
                            .iter()
                            .map(|(a, b)| (a.to_string(), b.to_string()))
                            .collect(),
                        held: owned(s.expect.held),
                        never: owned(s.expect.never),
                        spec: s.expect.spec.into(),
                    },
                })
                .collect(),
        }
    }
}
