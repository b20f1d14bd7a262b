//! Property tests of the window statistics (issue 20): histogram quantiles are monotone in q
//! and stay inside what the buckets can tell, and counter resets never give a negative rate.
//! The quantile under test is `diagnose::window::quantile` (Prometheus-style interpolation).
use diagnose::window::{quantile, stats};
use engines::{split_at_resets, Engine, Histogram, Sample};
use proptest::prelude::*;

/// Cumulative buckets as an engine exports them: increasing finite bounds (latencies and
/// lengths, so not negative), non-decreasing counts, and the +Inf bucket last.
fn buckets() -> impl Strategy<Value = Vec<(f64, f64)>> {
    (
        prop::collection::vec((0.001f64..100.0, 0u32..1000), 1..12),
        0u32..100,
    )
        .prop_map(|(steps, inf_extra)| {
            let (mut le, mut c) = (0.0, 0.0);
            let mut out: Vec<(f64, f64)> = steps
                .into_iter()
                .map(|(w, n)| {
                    le += w;
                    c += n as f64;
                    (le, c)
                })
                .collect();
            out.push((f64::INFINITY, c + inf_extra as f64));
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn quantiles_are_monotone_in_q(b in buckets(), qs in prop::collection::vec(0.0f64..=1.0, 2..8)) {
        let mut qs = qs;
        qs.sort_by(f64::total_cmp);
        let values: Vec<Option<f64>> = qs.iter().map(|&q| quantile(&b, q)).collect();
        for w in values.windows(2) {
            if let (Some(a), Some(c)) = (w[0], w[1]) {
                prop_assert!(a <= c, "q {qs:?} gave {values:?} for {b:?}");
            }
        }
    }

    #[test]
    fn a_quantile_stays_inside_the_bucket_that_holds_its_rank(b in buckets(), q in 0.0f64..=1.0) {
        let total = b.last().unwrap().1;
        let Some(v) = quantile(&b, q) else {
            prop_assert!(total == 0.0, "no quantile from {b:?}");
            return Ok(());
        };
        prop_assert!(v.is_finite(), "{v} from {b:?}");
        let highest = b.iter().rev().find(|x| x.0.is_finite()).map_or(0.0, |x| x.0);
        prop_assert!((0.0..=highest).contains(&v), "{v} outside 0..={highest} for {b:?}");
        // The bucket that holds the rank bounds the answer: the buckets cannot tell more.
        let rank = q * total;
        let i = b.iter().position(|x| x.1 >= rank).unwrap();
        let lower = if i == 0 { 0.0 } else { b[i - 1].0 };
        let upper = if b[i].0.is_finite() { b[i].0 } else { lower };
        prop_assert!(
            v >= lower - 1e-9 * lower.abs() && v <= upper + 1e-9 * upper.abs(),
            "q {q}: {v} outside its bucket [{lower}, {upper}] of {b:?}"
        );
    }

    /// Counters that rise and sometimes restart from zero (an engine restart): every window
    /// split at the resets has non-decreasing counters, and no rate is ever negative, whether
    /// the statistics are taken per window or over the whole unsplit run.
    #[test]
    fn counter_resets_never_give_a_negative_rate(
        steps in prop::collection::vec((0.0f64..500.0, prop::bool::weighted(0.1), 0u32..50), 2..40)
    ) {
        let (mut gen, mut prompt, mut ttft) = (1000.0, 5000.0, 10.0);
        let samples: Vec<Sample> = steps
            .iter()
            .enumerate()
            .map(|(i, &(inc, reset, obs))| {
                if reset {
                    (gen, prompt, ttft) = (0.0, 0.0, 0.0);
                }
                gen += inc;
                prompt += 3.0 * inc;
                ttft += obs as f64;
                let mut s = Sample::empty(i as f64, Engine::Vllm);
                s.generation_tokens = Some(gen);
                s.prompt_tokens = Some(prompt);
                s.requests_finished = Some(ttft);
                s.ttft = Some(Histogram {
                    buckets: vec![(0.1, ttft / 2.0), (1.0, ttft), (f64::INFINITY, ttft)],
                    sum: ttft * 0.3,
                    count: ttft,
                });
                s
            })
            .collect();
        let mut windows = split_at_resets(&samples);
        windows.push(0..samples.len()); // and unsplit
        for w in windows {
            let part = &samples[w.clone()];
            if w.end < samples.len() || w.start > 0 {
                for pair in part.windows(2) {
                    prop_assert!(pair[1].generation_tokens >= pair[0].generation_tokens);
                }
            }
            let st = stats(part, None);
            for (name, rate) in [
                ("generation_tps", st.generation_tps),
                ("prompt_tps", st.prompt_tps),
                ("finished_per_s", st.finished_per_s),
                ("finished", st.finished),
            ] {
                if let Some(r) = rate {
                    prop_assert!(r >= 0.0 && r.is_finite(), "{name} = {r} over {w:?}");
                }
            }
            if let Some(d) = st.ttft {
                prop_assert!(d.count >= 0.0 && d.mean >= 0.0, "{d:?} over {w:?}");
                for p in [d.p50, d.p95].into_iter().flatten() {
                    prop_assert!((0.0..=1.0).contains(&p), "a ttft quantile {p} outside its buckets");
                }
            }
        }
    }
}
