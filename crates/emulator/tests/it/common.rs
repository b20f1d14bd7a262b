//! The path `headroom diagnose` takes, in-process: scrape bodies → engines' parser and vLLM
//! adapter → window statistics → rules and arbitration. Config comes from what the server
//! exports (cache_config_info) merged with the command line the deployment would run with;
//! physics from the catalogued GPU and model, as diagnose gets them from --gpu / --model.

use diagnose::{window, Config, Inputs, Physics, Verdict, WindowStats};
use emulator::hardware::{configure, Configured};
use emulator::scenario::Scenario;
use emulator::sim::{run_virtual, VirtualOptions, VirtualRun};
use engines::{EngineConfig, Sample, Source};

/// Unix seconds at simulated time 0 in the suite.
pub const EPOCH: f64 = 1_750_000_000.0;

pub struct Diagnosed {
    pub verdict: Verdict,
    pub window: WindowStats,
    pub run: VirtualRun,
}

/// Parses every scrape with the engines crate; the sample time is the exposition's simulated
/// clock gauge (the adapter reads it).
pub fn samples(run: &VirtualRun) -> Vec<Sample> {
    run.scrapes
        .iter()
        .map(|sc| {
            let p = engines::parse_metrics(&sc.text, 0.0).expect("the exposition parses");
            assert!(p.exposition.truncated.is_none());
            assert!(
                p.exposition.samples().all(|s| s.timestamp.is_none()),
                "samples carry no timestamp, as vLLM's never do"
            );
            let s = p.sample;
            assert!((s.t - sc.t_unix).abs() < 0.002, "{} vs {}", s.t, sc.t_unix);
            s
        })
        .collect()
}

pub fn config(c: &Configured, labels: &std::collections::BTreeMap<String, String>) -> Config {
    let mut ec = EngineConfig::from_cache_config_labels(labels);
    ec.merge(EngineConfig::from_command_line(&c.command_line(), Source::EngineArgs).unwrap());
    let f = |k: &Option<engines::Known<u64>>| k.as_ref().map(|k| k.value as f64);
    Config {
        max_num_seqs: f(&ec.max_num_seqs),
        max_model_len: f(&ec.max_model_len),
        max_num_batched_tokens: f(&ec.max_num_batched_tokens),
        gpu_memory_utilization: ec.gpu_memory_utilization.as_ref().map(|k| k.value),
        prefix_caching: ec.enable_prefix_caching.as_ref().map(|k| k.value),
        kv_cache_dtype: ec.kv_cache_dtype.as_ref().map(|k| k.value.clone()),
        tensor_parallel_size: f(&ec.tensor_parallel_size),
        kv_capacity_tokens: match (&ec.num_gpu_blocks, &ec.block_size) {
            (Some(n), Some(b)) => Some((n.value * b.value) as f64),
            _ => None,
        },
        cpu_offload_gb: labels
            .get("cpu_offload_gb")
            .and_then(|v| v.parse::<f64>().ok()),
        // The emulator sizes its pool from the memory share; it has no fixed-size pool.
        kv_pool_cap: None,
        gauge_refresh_steps: None,
    }
}

pub fn physics(c: &Configured) -> Physics {
    let ce = &c.hardware.ceilings;
    Physics {
        decode_ceiling_tps: ce.decode_tps.value,
        ridge_batch: ce
            .ridge
            .get()
            .expect("catalogued GPU has a ridge")
            .batch
            .value,
        kv_headroom_gb: Some(ce.memory.kv_pool.value / 1e9),
        worst_request_gb: ce
            .memory
            .concurrency
            .get()
            .map(|k| k.bytes_per_sequence.value / 1e9)
            .or_else(|| {
                ce.model
                    .kv
                    .get()
                    .map(|kv| kv.bytes_per_sequence(u64::from(c.args.max_model_len)) / 1e9)
            }),
        min_tp: ce.memory.min_tp.tp,
        dtype_fallback: ce.model.bits.source == physics::BitsSource::Fallback,
    }
}

pub fn diagnose_run(c: &Configured, run: VirtualRun) -> Diagnosed {
    let all = samples(&run);
    let (seg, cut) = window::longest_segment(&all);
    assert_eq!(cut, 0, "a counter went backwards inside one run");
    let config = config(c, &all.last().unwrap().config_labels);
    let mns = config.max_num_seqs;
    let w = window::stats(seg, mns);
    let inputs = Inputs {
        engine: engines::Engine::Vllm,
        window: w.clone(),
        sub_windows: window::sub_windows(seg, 4, mns),
        config,
        physics: Some(physics(c)),
    };
    let verdict = diagnose::diagnose(&inputs);
    Diagnosed {
        verdict,
        window: w,
        run,
    }
}

pub fn diagnose_scenario(s: &Scenario) -> Diagnosed {
    let c = configure(s.gpu, s.model, &s.args).expect("scenario configures");
    let run = run_virtual(
        c.engine(),
        &s.load,
        s.seed,
        &VirtualOptions {
            epoch_unix_s: EPOCH,
            warmup_s: s.warmup_s,
            window_s: s.window_s,
            interval_s: s.interval_s,
        },
    );
    diagnose_run(&c, run)
}

/// One line per rule: fired/held/silenced, for failure messages.
pub fn describe(d: &Diagnosed) -> String {
    let v = &d.verdict;
    let w = &d.window;
    let g = |x: Option<diagnose::GaugeStats>| x.map(|g| format!("{:.2}/{:.2}", g.mean, g.peak));
    let mut s = format!(
        "primary {:?} ({:?})\nheld {:?}\nsilenced {:?}\nquiet:\n",
        v.primary.as_ref().map(|f| f.rule),
        v.primary.as_ref().and_then(|f| f.variant.clone()),
        v.held.iter().map(|f| f.rule).collect::<Vec<_>>(),
        v.silenced
            .iter()
            .map(|x| (x.rule, x.by))
            .collect::<Vec<_>>(),
    );
    for f in v.primary.iter().chain(&v.held).chain(&v.quiet) {
        s += &format!(
            "  {:?} fired={} {:?} {:?}\n",
            f.rule, f.fired, f.silent_reason, f.evidence
        );
    }
    s += &format!(
        "window: running {:?} waiting {:?} kv {:?} gen {:?} prompt {:?} preempt {:?} hit {:?} qr {:?} wall {:?} itl {:?} finished {:?}\nderived {:?}\nlayout {:?}\nsteps {} submitted {} rejected {} ({:?})",
        g(w.running),
        g(w.waiting),
        g(w.kv_usage),
        w.generation_tps,
        w.prompt_tps,
        w.preemptions_per_s,
        w.prefix_hit_rate,
        w.queue_ratio,
        w.seat_wall_cooccurred,
        w.itl.map(|d| d.mean),
        w.finished,
        v.derived,
        d.run.engine.layout(),
        d.run.steps,
        d.run.submitted,
        d.run.rejected,
        d.run.first_reject
    );
    s
}
