//! Physics agreement: the emulator's decode sits where the ceilings say it must. Batch-1 decode
//! lands within 90–100 % of the decode ceiling, and throughput against batch size rises
//! linearly while memory-bound and flattens at the compute roof past the ridge.

use emulator::hardware::configure;
use emulator::sim::{run_virtual, VirtualOptions};
use emulator::ArgOverrides;
use loadgen::traffic::{Arrival, Length, LoadShape};

const PAIRS: &[(&str, &str)] = &[
    ("H100-SXM", "llama-3.1-8b"),
    ("A100-SXM4-80GB", "qwen3-8b"),
    ("L4", "llama-3.2-3b"),
    ("H200", "qwen3-32b"),
    ("MI300X", "llama-3.1-70b"),
];

fn args() -> ArgOverrides {
    ArgOverrides {
        max_num_seqs: Some(4096),
        max_num_batched_tokens: Some(32_768),
        max_model_len: Some(4096),
        ..Default::default()
    }
}

/// Aggregate decode tok/s at batch `b`: `b` requests of 8 prompt tokens admitted together,
/// measured over the decode-only steps of the step ledger.
fn decode_tps_at(gpu: &str, model: &str, b: usize) -> f64 {
    let c = configure(gpu, model, &args()).unwrap();
    let mut e = c.engine();
    for k in 0..b {
        let prompt: Vec<u32> = (0..8).map(|i| (k * 8 + i) as u32).collect();
        e.add_request(prompt, Some(64), 0.0).unwrap();
    }
    let first = e.step();
    assert_eq!(
        first.scheduled, b,
        "{gpu} × {model}: all {b} admitted in one step"
    );
    while e.has_work() {
        let o = e.step();
        assert_eq!(
            o.prefill_chunks, 0,
            "{gpu} × {model} at batch {b}: KV ran out"
        );
    }
    let m = e.metrics();
    assert_eq!(m.steps_decode, 63.0);
    b as f64 * m.steps_decode / m.step_seconds_decode
}

#[test]
fn batch_one_decode_is_90_to_100_percent_of_the_ceiling() {
    for &(gpu, model) in PAIRS {
        let c = configure(gpu, model, &args()).unwrap();
        let ceiling = c.hardware.ceilings.decode_tps.value;
        let tps = decode_tps_at(gpu, model, 1);
        let share = tps / ceiling;
        eprintln!("{gpu} × {model}: batch-1 decode {tps:.1} tok/s = {:.1}% of the {ceiling:.1} tok/s ceiling", share * 100.0);
        assert!(
            (0.90..=1.0).contains(&share),
            "{gpu} × {model}: {tps:.1} tok/s = {:.1}% of {ceiling:.1}",
            share * 100.0
        );
    }
}

#[test]
fn batch_one_through_the_metrics_diagnose_reads() {
    // One closed-loop client, generation rate from the scraped counters over a 2-minute window.
    let c = configure("H100-SXM", "llama-3.1-8b", &args()).unwrap();
    let shape = LoadShape {
        arrival: Arrival::Closed {
            clients: 1,
            think_s: 0.0,
        },
        prompt_words: Length::Fixed { n: 32 },
        output_tokens: Length::Fixed { n: 1024 },
        families: None,
        chat: false,
        stream: false,
    };
    let run = run_virtual(
        c.engine(),
        &shape,
        1,
        &VirtualOptions {
            epoch_unix_s: 1.75e9,
            warmup_s: 10.0,
            window_s: 120.0,
            interval_s: 5.0,
        },
    );
    let gen = |i: usize| {
        let s = engines::parse_metrics(&run.scrapes[i].text, 0.0)
            .unwrap()
            .sample;
        (s.generation_tokens.unwrap(), run.scrapes[i].t_unix)
    };
    let (g0, t0) = gen(0);
    let (g1, t1) = gen(run.scrapes.len() - 1);
    let share = (g1 - g0) / (t1 - t0) / c.hardware.ceilings.decode_tps.value;
    assert!((0.90..=1.0).contains(&share), "{:.1}%", share * 100.0);
}

#[test]
fn throughput_bends_toward_the_ridge() {
    for &(gpu, model) in PAIRS {
        let c = configure(gpu, model, &args()).unwrap();
        let ceiling = c.hardware.ceilings.decode_tps.value;
        let ridge = c.hardware.ceilings.ridge.get().unwrap().batch.value;
        // The compute roof: decode ceiling × ridge = FLOPs / (2 × active params).
        let roof = ceiling * ridge;
        let t1 = decode_tps_at(gpu, model, 1);
        let mut prev = 0.0;
        let batches: Vec<usize> = [
            1.0,
            2.0,
            4.0,
            ridge / 8.0,
            ridge / 2.0,
            ridge,
            2.0 * ridge,
            3.0 * ridge,
        ]
        .iter()
        .map(|b| (b.round() as usize).max(1))
        .collect();
        for &b in &batches {
            let t = decode_tps_at(gpu, model, b);
            eprintln!(
                "{gpu} × {model}: batch {b:>5} → {t:>8.0} tok/s ({:.0}% of the roof)",
                100.0 * t / roof
            );
            let ctx = format!(
                "{gpu} × {model} at batch {b} (ridge {ridge:.0}): {t:.0} tok/s, roof {roof:.0}"
            );
            assert!(t > prev, "{ctx}: throughput fell");
            assert!(t <= roof * 1.0001, "{ctx}: above the compute roof");
            let linear = t1 * b as f64;
            if (b as f64) <= ridge / 8.0 {
                // Memory-bound: each extra sequence costs only its KV reads.
                assert!(t >= 0.9 * linear, "{ctx}: not linear ({linear:.0})");
            }
            if (b as f64) >= 2.0 * ridge {
                // Compute-bound: flat at the roof, far below linear.
                assert!(t >= 0.85 * roof, "{ctx}: not at the roof");
                assert!(t < 0.6 * linear, "{ctx}: still linear");
            }
            prev = t;
        }
    }
}
