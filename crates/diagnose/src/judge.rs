//! Where sources, physics and rules meet: a recorded window (every scrape and the endpoints'
//! answers), the target (GPU, model, the engine's command line) and the catalog in; the
//! `headroom.diagnose/1` document out. Samples → reset-free run → window statistics → config
//! with provenance → ceiling → rules → arbitration → [`Report`].
//!
//! The live scrape loop that takes a window lives in the binary; a replay and a live window
//! take the same path from here on.

use crate::ceiling::{resolve, Wanted};
use crate::report::{
    CeilingInfo, ConfigValue, Cost, Efficiency, Fired, Kv, Latency, Prefix, Quiet, Report,
    Requests, Scrapes, Shape, Sourced, SubWindow, Throughput, Timeline, Traffic, WindowInfo,
    SCHEMA,
};
use crate::rules::Finding;
use crate::{Config, Inputs, Verdict};
use engines::{Engine, EngineConfig, Recording, Sample};
use std::collections::BTreeMap;

/// Why a window could not be judged.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error("no scrape succeeded ({failed} failed){first}")]
    NoScrape { failed: usize, first: String },
    #[error(transparent)]
    Gguf(#[from] gguf::GgufError),
    #[error(transparent)]
    Physics(#[from] physics::PhysicsError),
}

/// What the window is judged against: the shape it was taken with (GPU, model, model file,
/// command line ...), and where a replayed recording came from (for messages).
#[derive(Debug, Clone)]
pub struct Target {
    pub shape: Shape,
    /// The recording file, when the window is a replay.
    pub replay: Option<String>,
}

/// Everything a diagnosis produced: the document, and the typed inputs and verdict it was
/// made from (for tests and tools that look past the document).
#[derive(Debug, Clone)]
pub struct Judged {
    pub report: Report,
    pub inputs: Inputs,
    pub verdict: Verdict,
}

fn sourced<T: serde::Serialize>(k: &Option<engines::Known<T>>) -> Option<Sourced> {
    let k = k.as_ref()?;
    let value = serde_json::to_value(&k.value)
        .ok()
        .and_then(|v| serde_json::from_value::<ConfigValue>(v).ok())?;
    Some(Sourced {
        value,
        source: match &k.note {
            Some(n) => format!("{} ({n})", k.source.as_str()),
            None => k.source.as_str().to_string(),
        },
    })
}

/// A window's samples as read, before judging: from a recording's scrapes ([`read`]), or from a
/// store's series (`fleet`), which then take the one path from samples to verdict
/// ([`judge_samples`]).
#[derive(Debug, Clone)]
pub struct Read {
    /// What is known of the server beside its samples (its command line, `/version`, `/props`);
    /// a store's window has none of it.
    pub header: engines::RecordingHeader,
    pub samples: Vec<Sample>,
    pub scrapes: Scrapes,
    /// Expositions that were cut, each named once.
    pub truncated: Vec<String>,
}

/// Judge a recorded window: [`read`], then [`judge_samples`].
pub fn judge(
    rec: &Recording,
    target: &Target,
    catalog: &physics::Catalog,
) -> Result<Judged, JudgeError> {
    judge_samples(read(rec, target), target, catalog)
}

/// A recording's samples. Failed or unparsable scrapes count against coverage.
pub fn read(rec: &Recording, target: &Target) -> Read {
    let mut scrapes = Scrapes::default();
    let mut truncated: Vec<String> = Vec::new();
    let mut samples: Vec<Sample> = Vec::new();
    // The final run of failed scrapes: (time and error of its first, its length).
    let mut failing: Option<(f64, String, usize)> = None;
    let mut ok_before_failing = 0usize;
    for line in &rec.scrapes {
        let parsed = line.parse(&rec.header.url);
        match &parsed {
            Ok(_) => failing = None,
            Err(e) => match &mut failing {
                Some((_, _, n)) => *n += 1,
                None => {
                    failing = Some((line.t, e.clone(), 1));
                    ok_before_failing = scrapes.ok;
                }
            },
        }
        match parsed {
            Ok(mut p) => {
                // An exposition stamped with its own clock is timed by it, so rates follow that
                // clock (0.0.4 timestamps are milliseconds). Recordings of emulators before the
                // clock gauge (engines::EMULATOR_CLOCK) were stamped this way.
                if let Some(ts) = p
                    .exposition
                    .samples()
                    .filter_map(|s| s.timestamp)
                    .reduce(f64::max)
                {
                    p.sample.t = ts / 1000.0;
                }
                if let Some(t) = &p.exposition.truncated {
                    let s = t.to_string();
                    if !truncated.contains(&s) {
                        truncated.push(s);
                    }
                }
                scrapes.ok += 1;
                samples.push(p.sample);
            }
            Err(e) => {
                scrapes.failed += 1;
                if scrapes.errors.len() < 5 {
                    scrapes.errors.push(e);
                }
            }
        }
    }
    if let Some(t) = &rec.truncated_tail {
        scrapes.errors.push(format!(
            "{}: the last line ({}, byte {}) was cut and skipped: {}",
            target.replay.as_deref().unwrap_or("the recording"),
            t.line,
            t.offset,
            t.msg
        ));
    }
    scrapes.judge_coverage();
    scrapes.stopped = failing
        .filter(|&(_, _, n)| n >= 2 && ok_before_failing > 0)
        .map(|(at, error, failed_since)| crate::report::Stopped {
            at,
            after_ok: ok_before_failing,
            failed_since,
            error,
        });
    Read {
        header: rec.header.clone(),
        samples,
        scrapes,
        truncated,
    }
}

/// Judge a window's samples: the one path from samples to the `headroom.diagnose/1` document
/// that `diagnose`, `watch`, `remeasure` and `fleet` take. A window with no usable sample is an
/// error.
pub fn judge_samples(
    read: Read,
    target: &Target,
    catalog: &physics::Catalog,
) -> Result<Judged, JudgeError> {
    let Read {
        header: rec_header,
        samples,
        mut scrapes,
        truncated,
    } = read;
    let shape = &target.shape;
    if samples.is_empty() {
        return Err(JudgeError::NoScrape {
            failed: scrapes.failed,
            first: scrapes
                .errors
                .first()
                .map(|e| format!(": {e}"))
                .unwrap_or_default(),
        });
    }
    let resets = engines::find_counter_resets(&samples).len();
    let (samples, cut_by_reset) = crate::window::longest_segment(&samples);
    let Some(last) = samples.last() else {
        unreachable!("a longest segment of a non-empty run is non-empty")
    };
    let engine = last.engine;

    // Config from every source the window holds, most trusted first (see EngineConfig::gather):
    // what the engine says about itself, then the live process's command line, then what the
    // user typed.
    let mut header = rec_header;
    if shape.engine_args.is_some() {
        header.engine_args = shape.engine_args.clone();
    }
    let (cfg, cfg_errors) = header.config(Some(last));
    for e in cfg_errors {
        scrapes.errors.push(format!("config: {e}"));
    }
    let version = header.version_string().and_then(Result::ok);
    let mut config = to_rule_config(&cfg, last);
    let mut config_sources = config_sources(&cfg, &config);
    // A vLLM command line that was read and left --max-num-seqs out runs vLLM's default, where
    // the version and the device (its CPU platform, read from the process, or --gpu) make it
    // certain.
    let line_read = header.cmdline.is_some() || header.engine_args.is_some();
    if let (true, Some(engines::Engine::Vllm), Some(v)) = (line_read, cfg.engine, &version) {
        let gpu = shape.gpu.as_deref().and_then(|g| catalog.gpu(g).ok());
        let on_cpu = header.vllm_on_cpu;
        if let Some(d) = crate::defaults::vllm_max_num_seqs(v, &cfg, on_cpu, gpu.map(|g| g.entry)) {
            config.max_num_seqs = Some(d.value);
            config_sources.insert(
                "max_num_seqs".into(),
                Sourced {
                    value: ConfigValue::Int(d.value as i64),
                    source: format!("default ({})", d.note),
                },
            );
        }
    }

    let served = last
        .model
        .clone()
        .or_else(|| cfg.served_model_name.as_ref().map(|k| k.value.clone()))
        .or_else(|| cfg.model.as_ref().map(|k| k.value.clone()));
    let window = crate::window::stats(samples, config.max_num_seqs);
    let sub_windows = crate::window::sub_windows(samples, shape.sub_windows, config.max_num_seqs);
    // llama.cpp names its model file in /props: when no model was given and that file is
    // readable here, its header gives the exact figures.
    let props_model = header
        .props_info()
        .and_then(Result::ok)
        .and_then(|p| p.model_path)
        .map(std::path::PathBuf::from)
        .filter(|p| shape.model.is_none() && p.is_file());
    let gguf_path = shape
        .gguf
        .as_ref()
        .map(std::path::PathBuf::from)
        .or(props_model);
    let spec = match gguf_path {
        Some(p) => {
            let facts = gguf::read_model_facts(&p)?;
            Some(physics::ModelSpec::from_gguf(
                &facts,
                &p.display().to_string(),
                &mut Vec::new(),
            )?)
        }
        None => None,
    };
    let (ceiling, physics) = resolve(
        &Wanted {
            gpu: shape.gpu.as_deref(),
            model: shape.model.as_deref(),
            served_model: served.as_deref(),
            spec,
            catalog,
            tp: shape.tp,
            dtype: shape
                .dtype
                .as_deref()
                .or(cfg.dtype.as_ref().map(|k| k.value.as_str())),
            quantization: shape
                .quantization
                .as_deref()
                .or(cfg.quantization.as_ref().map(|k| k.value.as_str())),
            llamacpp: engine == Engine::LlamaCpp,
        },
        &config,
        &window,
    );
    let inputs = Inputs {
        engine,
        window,
        sub_windows,
        config,
        physics,
    };
    let verdict = crate::diagnose(&inputs);
    let engine_version = version.or_else(|| {
        header
            .props_info()
            .and_then(Result::ok)
            .and_then(|p| p.build_info)
    });
    let timeline = timeline(samples, shape.sub_windows, &inputs);
    let mut report = report(
        shape,
        engine_version,
        WindowInfo {
            start: samples.first().map(|s| s.t),
            end: samples.last().map(|s| s.t),
            duration_s: inputs.window.duration_s,
            sub_windows: inputs.sub_windows.len(),
            resets,
            cut_by_reset,
            truncated,
        },
        scrapes,
        served,
        ceiling,
        config_sources,
        &inputs,
        &verdict,
    );
    report.timeline = timeline;
    report.simulated = samples.iter().any(|s| s.simulated)
        || header
            .version
            .as_ref()
            .and_then(|v| v.get("simulated"))
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false);
    Ok(Judged {
        report,
        inputs,
        verdict,
    })
}

/// The window as plotted: the steps, and each sub-window's span, statistics and the rules that
/// fired on it alone (the same evaluation `seen_in` counts).
fn timeline(samples: &[Sample], n: usize, inputs: &Inputs) -> Timeline {
    let t0 = samples.first().map_or(0.0, |s| s.t);
    let spans = crate::window::sub_window_spans(samples.len(), n);
    let sub_windows = spans
        .iter()
        .zip(&inputs.sub_windows)
        .map(|(&(lo, hi), w)| SubWindow {
            start_s: samples[lo].t - t0,
            end_s: samples[hi].t - t0,
            generation_tps: w.generation_tps,
            prompt_tps: w.prompt_tps,
            preemptions_per_s: w.preemptions_per_s,
            running: w.running,
            waiting: w.waiting,
            kv_usage: w.kv_usage,
            fired: crate::rules::evaluate(inputs, w)
                .1
                .iter()
                .filter(|f| f.fired)
                .map(|f| f.rule)
                .collect(),
        })
        .collect();
    Timeline {
        points: crate::window::timeline_points(samples),
        sub_windows,
    }
}

/// The document's `config` map: each value the rules read, with its source.
fn config_sources(cfg: &EngineConfig, config: &Config) -> BTreeMap<String, Sourced> {
    let mut out = BTreeMap::new();
    let mut put = |k: &str, s: Option<Sourced>| {
        if let Some(s) = s {
            out.insert(k.to_string(), s);
        }
    };
    put(
        "max_num_seqs",
        sourced(&cfg.max_num_seqs).or_else(|| sourced(&cfg.n_parallel)),
    );
    put(
        "max_model_len",
        sourced(&cfg.max_model_len).or_else(|| sourced(&cfg.n_ctx_per_slot)),
    );
    put(
        "max_num_batched_tokens",
        sourced(&cfg.max_num_batched_tokens).or_else(|| sourced(&cfg.ubatch)),
    );
    put(
        "gpu_memory_utilization",
        sourced(&cfg.gpu_memory_utilization).or_else(|| sourced(&cfg.mem_fraction_static)),
    );
    put("prefix_caching", sourced(&cfg.enable_prefix_caching));
    put("kv_cache_dtype", sourced(&cfg.kv_cache_dtype));
    put("tensor_parallel_size", sourced(&cfg.tensor_parallel_size));
    put("block_size", sourced(&cfg.block_size));
    put("num_gpu_blocks", sourced(&cfg.num_gpu_blocks));
    put("n_ctx", sourced(&cfg.n_ctx));
    put("quantization", sourced(&cfg.quantization));
    put("dtype", sourced(&cfg.dtype));
    // SGLang: how often its scheduler gauges refresh (the stale-gauge caveat reads it).
    put("decode_log_interval", sourced(&cfg.decode_log_interval));
    if let Some(g) = config.cpu_offload_gb {
        out.insert(
            "cpu_offload_gb".into(),
            Sourced {
                value: ConfigValue::Float(g),
                source: "metrics_labels".into(),
            },
        );
    }
    if let Some(k) = config.kv_capacity_tokens {
        let src = if cfg.num_gpu_blocks.is_some() {
            "derived (num_gpu_blocks × block_size)"
        } else {
            "engine"
        };
        out.insert(
            "kv_capacity_tokens".into(),
            Sourced {
                value: ConfigValue::Float(k),
                source: src.into(),
            },
        );
    }
    out
}

/// The values the rules read, from the merged config and the engine's own figures (a replay, a
/// live window and a fleet's store reading all take this one path).
pub fn to_rule_config(cfg: &EngineConfig, last: &Sample) -> Config {
    let f = |k: &Option<engines::Known<u64>>| k.as_ref().map(|k| k.value as f64);
    let max_num_seqs = f(&cfg.max_num_seqs).or(cfg
        .n_parallel
        .as_ref()
        .filter(|k| k.value > 0)
        .map(|k| k.value as f64));
    let kv_capacity_tokens = match (&cfg.num_gpu_blocks, &cfg.block_size) {
        (Some(n), Some(b)) => Some(n.value as f64 * b.value as f64),
        // llama.cpp: the whole context is the KV pool, shared by the slots.
        _ => f(&cfg.n_ctx).or(last.kv_capacity_tokens),
    };
    Config {
        max_num_seqs,
        max_model_len: f(&cfg.max_model_len).or(f(&cfg.n_ctx_per_slot)),
        max_num_batched_tokens: f(&cfg.max_num_batched_tokens).or(f(&cfg.ubatch)),
        gpu_memory_utilization: cfg
            .gpu_memory_utilization
            .as_ref()
            .or(cfg.mem_fraction_static.as_ref())
            .map(|k| k.value),
        prefix_caching: cfg.enable_prefix_caching.as_ref().map(|k| k.value),
        kv_cache_dtype: cfg.kv_cache_dtype.as_ref().map(|k| k.value.clone()),
        tensor_parallel_size: f(&cfg.tensor_parallel_size),
        kv_capacity_tokens,
        cpu_offload_gb: last
            .config_labels
            .get("cpu_offload_gb")
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0),
        kv_pool_cap: pool_cap(&last.config_labels).or(cfg
            .max_total_tokens
            .as_ref()
            .map(|k| crate::inputs::PoolCap::Tokens(k.value))),
        gauge_refresh_steps: cfg.decode_log_interval.as_ref().map(|k| k.value as f64),
    }
}

/// vLLM prints an unset option as "None" in `cache_config_info`; a block override outranks a
/// byte budget (vLLM sizes the pool from the override when both are given).
fn pool_cap(labels: &std::collections::BTreeMap<String, String>) -> Option<crate::inputs::PoolCap> {
    let set = |k: &str| {
        labels
            .get(k)
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|v| *v > 0)
    };
    set("num_gpu_blocks_override")
        .map(crate::inputs::PoolCap::Blocks)
        .or_else(|| set("kv_cache_memory_bytes").map(crate::inputs::PoolCap::Bytes))
}

/// Dollars per million output tokens at the measured throughput, only when enough completions
/// cover mean running (the turnover gate); else the reason.
fn cost(shape: &Shape, inputs: &Inputs) -> Cost {
    let none = |why: String| Cost {
        per_million_output_tokens: None,
        reason: Some(why),
    };
    let Some(price) = shape.price_per_hour else {
        return none("no --price-per-hour".into());
    };
    let w = &inputs.window;
    let (Some(gen), Some(fin), Some(run)) = (w.generation_tps, w.finished, w.running) else {
        return none("throughput, completions or running not measured".into());
    };
    if fin < run.mean.max(1.0) {
        return none(format!(
            "turnover gate: {fin:.0} completions do not cover mean running {:.1}",
            run.mean
        ));
    }
    if gen <= 0.0 {
        return none("no tokens generated".into());
    }
    Cost {
        per_million_output_tokens: Some(physics::ceilings::cost_per_million(price, gen)),
        reason: None,
    }
}

fn fired(f: &Finding) -> Fired {
    Fired::from(f)
}

impl From<&Finding> for Fired {
    fn from(f: &Finding) -> Fired {
        Fired {
            rule: f.rule,
            title: f.rule.title().to_string(),
            variant: f.variant.clone(),
            evidence: f.evidence.clone(),
            fix: f.fix.clone(),
            seen_in: f.seen_in,
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn report(
    shape: &Shape,
    engine_version: Option<String>,
    window: WindowInfo,
    scrapes: Scrapes,
    served: Option<String>,
    ceiling: CeilingInfo,
    config: BTreeMap<String, Sourced>,
    inputs: &Inputs,
    v: &Verdict,
) -> Report {
    let w = &inputs.window;
    let d = &v.derived;
    let dist = |x: Option<crate::Dist>| x.filter(|d| d.count > 0.0);
    Report {
        schema: SCHEMA.to_string(),
        engine: inputs.engine,
        engine_version,
        model: ceiling.model.clone().or(served.clone()),
        served_model: served,
        gpu: ceiling.gpu.clone(),
        shape: shape.clone(),
        window,
        scrapes,
        ceiling,
        efficiency: Efficiency {
            efficiency: d.efficiency,
            config_relative: d.config_efficiency,
            speculation_suspected: d.speculation_suspected,
            occupancy: d.occupancy,
            occupancy_wall: d.occupancy_wall.map(str::to_string),
            soft_field: d.soft_field,
            seat_target: d.seat_target,
            prompt_gen_ratio: d.prompt_gen_ratio,
        },
        cost: cost(shape, inputs),
        requests: Requests {
            running: w.running,
            waiting: w.waiting,
            swapped: w.swapped,
            max_num_seqs: inputs.config.max_num_seqs,
            queue_ratio: w.queue_ratio,
            finished_per_s: w.finished_per_s,
            finished: w.finished,
            preemptions_per_request: w.preemptions_per_request,
            admission_rejections: w.admission_rejections,
        },
        latency: Latency {
            ttft_s: dist(w.ttft),
            tpot_s: dist(w.itl),
            e2e_s: dist(w.e2e),
            queue_s: dist(w.queue_time),
        },
        kv: Kv {
            usage: w.kv_usage,
            capacity_tokens: inputs.config.kv_capacity_tokens,
        },
        prefix: Prefix {
            hit_rate: w.prefix_hit_rate,
            hit_tokens_per_s: w.prefix_hit_tps,
            caching: inputs.config.prefix_caching,
        },
        throughput: Throughput {
            generation_tokens_per_s: w.generation_tps,
            prompt_tokens_per_s: w.prompt_tps,
        },
        traffic: Traffic {
            mean_prompt_tokens: w.mean_prompt_tokens(),
            mean_output_tokens: w.mean_gen_tokens(),
        },
        config,
        primary: v.primary.as_ref().map(fired),
        held: v.held.iter().map(fired).collect(),
        next: v.next.as_ref().map(fired),
        silenced: v.silenced.clone(),
        quiet: v
            .quiet
            .iter()
            .map(|f| Quiet {
                rule: f.rule,
                silent_reason: f.silent_reason.clone(),
                evidence: f.evidence.clone(),
            })
            .collect(),
        unjudged: v.unjudged.clone(),
        fallback: v.fallback.clone(),
        boundary: v.boundary.clone(),
        sub_window_generation_tps: inputs
            .sub_windows
            .iter()
            .map(|s| s.generation_tps)
            .collect(),
        saved_run_id: None,
        timeline: Timeline::default(),
        simulated: false,
        gpu_telemetry: None,
    }
}
