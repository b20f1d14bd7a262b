//! Taking a window: scrape /metrics every interval (progress on stderr), ask the endpoints that
//! carry config once, and optionally record every scrape so the run can be replayed. Then
//! judge it: samples → reset-free run → window statistics → rules.

use super::physics::{resolve, Wanted};
use super::report::{Coverage, Report, Sourced};
use super::WindowRequest;
use anyhow::{bail, Context, Result};
use engines::{EngineConfig, Recorder, RecordingHeader, Sample, ScrapeRecord, Scraper};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// A window as taken: every scrape (body or error) and the endpoints' answers.
pub struct Collected {
    pub header: RecordingHeader,
    pub lines: Vec<ScrapeRecord>,
    /// A replay whose last line was cut: what the reader said.
    pub note: Option<String>,
}

/// Scrape the server for the window's duration.
pub async fn live(
    shape: &super::Shape,
    pid: Option<u32>,
    record: Option<&Path>,
    progress: bool,
) -> Result<Collected> {
    let url = shape.url.as_deref().context("no --url")?;
    let interval = Duration::from_secs_f64(shape.interval_s);
    let duration = Duration::from_secs_f64(shape.duration_s);
    // A scrape may take at most two intervals (bounded to 2–10 s): a busy server answers
    // /metrics late (llama.cpp queues it behind decode steps), but must not stretch the window.
    let timeout = (interval * 2).clamp(Duration::from_secs(2), Duration::from_secs(10));
    let scraper = Scraper::new(url, timeout)?;
    // Failed scrapes count against coverage and do not end the window, except when the first
    // one shows a mistake that waiting will not fix (wrong address, metrics off, not /metrics).
    let first = Scraper::new(url, Duration::from_secs(10))?
        .fetch_metrics()
        .await;
    if let Err(e) = &first {
        use engines::ScrapeError as E;
        if matches!(
            e,
            E::InvalidUrl { .. }
                | E::Unreachable { .. }
                | E::MetricsDisabled { .. }
                | E::NotPrometheus { .. }
                | E::HttpStatus { status: 404, .. }
        ) {
            bail!("{e}");
        }
    }
    let mut header = RecordingHeader::new(scraper.base_url(), shape.interval_s, super::now());
    header.engine_args = shape.engine_args.clone();
    if let Some(pid) = pid {
        header.cmdline = Some(engines::config::read_proc_cmdline(pid)?);
    }
    // Endpoints that carry config; each engine answers some of them, and a miss is kept as
    // the reason, not an error.
    for (path, slot) in [
        ("/v1/models", &mut header.models),
        ("/props", &mut header.props),
        ("/version", &mut header.version),
    ] {
        match scraper.get_json(path).await {
            Ok(v) => *slot = Some(v),
            Err(e) => {
                header
                    .endpoint_errors
                    .insert(path.to_string(), e.to_string());
            }
        }
    }
    let mut recorder = match record {
        Some(p) => Some(
            Recorder::create(p, &header)
                .with_context(|| format!("recording to {}", p.display()))?,
        ),
        None => None,
    };
    let bar = progress.then(|| {
        let b = indicatif::ProgressBar::new(duration.as_secs().max(1));
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} sampling {msg} [{bar:30}] {eta} left",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let mut lines = Vec::new();
    let mut push = |line: ScrapeRecord, lines: &mut Vec<ScrapeRecord>| -> Result<()> {
        if let Some(r) = recorder.as_mut() {
            r.record(&line)?;
        }
        lines.push(line);
        Ok(())
    };
    push(ScrapeRecord::from_fetch(&first, super::now()), &mut lines)?;
    let start = Instant::now();
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let (mut ok, mut failed) = (1usize, 0usize);
    while start.elapsed() < duration {
        tick.tick().await;
        let r = scraper.fetch_metrics().await;
        if r.is_ok() {
            ok += 1
        } else {
            failed += 1
        }
        push(ScrapeRecord::from_fetch(&r, super::now()), &mut lines)?;
        if let Some(b) = &bar {
            b.set_position(start.elapsed().as_secs().min(duration.as_secs()));
            b.set_message(format!("{url}: {ok} ok, {failed} failed"));
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(Collected {
        header,
        lines,
        note: None,
    })
}

pub fn replay(path: &Path) -> Result<Collected> {
    let rec = engines::read_recording(path)?;
    if rec.scrapes.is_empty() {
        bail!("{}: the recording holds no scrapes", path.display());
    }
    let note = rec.truncated_tail.map(|t| {
        format!(
            "{}: the last line ({}, byte {}) was cut and skipped: {}",
            path.display(),
            t.line,
            t.offset,
            t.msg
        )
    });
    Ok(Collected {
        header: rec.header,
        lines: rec.scrapes,
        note,
    })
}

fn sourced<T: serde::Serialize>(k: &Option<engines::Known<T>>) -> Option<Sourced> {
    k.as_ref().map(|k| Sourced {
        value: serde_json::to_value(&k.value).unwrap_or(Value::Null),
        source: match &k.note {
            Some(n) => format!("{} ({n})", k.source.as_str()),
            None => k.source.as_str().to_string(),
        },
    })
}

/// Parse every scrape, cut at resets, and judge the longest reset-free run.
pub fn judge(req: &WindowRequest, c: Collected, catalog: &::physics::Catalog) -> Result<Report> {
    let mut cov = Coverage::default();
    let mut samples: Vec<Sample> = Vec::new();
    for line in &c.lines {
        match line.parse(&c.header.url) {
            Ok(mut p) => {
                // An exposition stamped with its own clock (the emulator's simulated time) is
                // timed by it, so rates follow that clock (0.0.4 timestamps are milliseconds).
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
                    if !cov.truncated.contains(&s) {
                        cov.truncated.push(s);
                    }
                }
                cov.ok += 1;
                samples.push(p.sample);
            }
            Err(e) => {
                cov.failed += 1;
                if cov.errors.len() < 5 {
                    cov.errors.push(e);
                }
            }
        }
    }
    if let Some(n) = c.note {
        cov.errors.push(n);
    }
    if samples.is_empty() {
        bail!(
            "no scrape succeeded ({} failed){}",
            cov.failed,
            cov.errors
                .first()
                .map(|e| format!(": {e}"))
                .unwrap_or_default()
        );
    }
    cov.resets = engines::find_counter_resets(&samples).len();
    let (samples, cut) = diagnose::window::longest_segment(&samples);
    cov.cut_by_reset = cut;
    cov.start = samples.first().map(|s| s.t);
    cov.end = samples.last().map(|s| s.t);
    let last = samples.last().expect("non-empty run");
    let engine = last.engine;

    // Config from every source the window holds, most trusted first (see EngineConfig::gather):
    // the engine's command line, then what the engine says about itself.
    let mut header = c.header.clone();
    if req.shape.engine_args.is_some() {
        header.engine_args = req.shape.engine_args.clone();
    }
    let (cfg, cfg_errors) = header.config(Some(last));
    for e in cfg_errors {
        cov.errors.push(format!("config: {e}"));
    }
    let version = header.version_string().and_then(Result::ok);
    let config = to_rule_config(&cfg, last);
    let mut config_sources = BTreeMap::new();
    let mut put = |k: &str, s: Option<Sourced>| {
        if let Some(s) = s {
            config_sources.insert(k.to_string(), s);
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
    if let Some(k) = config.kv_capacity_tokens {
        let src = if cfg.num_gpu_blocks.is_some() {
            "derived (num_gpu_blocks × block_size)"
        } else {
            "engine"
        };
        config_sources.insert(
            "kv_capacity_tokens".into(),
            Sourced {
                value: json!(k),
                source: src.into(),
            },
        );
    }

    let served = last
        .model
        .clone()
        .or_else(|| cfg.served_model_name.as_ref().map(|k| k.value.clone()))
        .or_else(|| cfg.model.as_ref().map(|k| k.value.clone()));
    let window = diagnose::window::stats(samples, config.max_num_seqs);
    let sub_windows =
        diagnose::window::sub_windows(samples, req.shape.sub_windows, config.max_num_seqs);
    // llama.cpp names its model file in /props: when no model was given and that file is
    // readable here, its header gives the exact figures.
    let props_model = header
        .props_info()
        .and_then(Result::ok)
        .and_then(|p| p.model_path)
        .map(std::path::PathBuf::from)
        .filter(|p| req.target.model.is_none() && p.is_file());
    let spec = match req.target.gguf.as_ref().or(props_model.as_ref()) {
        Some(p) => Some(crate::cmd::ceiling::spec_from_gguf(p, &mut Vec::new())?),
        None => None,
    };
    let (ceiling, physics) = resolve(
        &Wanted {
            gpu: req.target.gpu.as_deref(),
            model: req.target.model.as_deref(),
            served_model: served.as_deref(),
            spec,
            catalog,
            tp: req.target.tp,
            dtype: req
                .target
                .dtype
                .as_deref()
                .or(cfg.dtype.as_ref().map(|k| k.value.as_str())),
            quantization: req
                .target
                .quantization
                .as_deref()
                .or(cfg.quantization.as_ref().map(|k| k.value.as_str())),
        },
        &config,
        &window,
    );
    let inputs = diagnose::Inputs {
        engine,
        window,
        sub_windows,
        config,
        physics,
    };
    let verdict = diagnose::diagnose(&inputs);
    Ok(Report {
        shape: req.shape.clone(),
        engine_version: version.or_else(|| {
            c.header
                .props
                .as_ref()
                .and_then(|p| p["build_info"].as_str().map(str::to_string))
        }),
        coverage: cov,
        served_model: served,
        ceiling,
        config_sources,
        inputs,
        verdict,
    })
}

/// The values the rules read, from the merged config and the engine's own figures.
fn to_rule_config(cfg: &EngineConfig, last: &Sample) -> diagnose::Config {
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
    diagnose::Config {
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
    }
}
