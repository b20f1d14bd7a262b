//! Raw Prometheus series in, one typed [`Sample`] out, by the engine's adapter (its `fill` in
//! `engine/<name>.rs`, where its metric names live). This module holds what every adapter
//! shares: detection by prefix, the read view and how series combine.

pub mod promql;

use crate::prom::Exposition;
use crate::sample::{Engine, Sample};
use crate::series::View;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AdaptError {
    #[error(
        "no LLM engine metrics in this exposition (looked for the prefixes {}); {count} families seen, e.g. {seen}",
        Engine::ALL.map(|e| e.prefix()).join(", ")
    )]
    UnknownEngine { count: usize, seen: String },
}

/// The engine whose metric prefix names the most families, or None when no family has one.
pub fn detect_engine(e: &Exposition) -> Option<Engine> {
    let mut best: Option<(usize, Engine)> = None;
    for engine in Engine::ALL {
        let prefix = engine.prefix();
        let n = e
            .families
            .iter()
            .filter(|f| f.name.starts_with(prefix))
            .count();
        if n > 0 && best.map(|(b, _)| n > b).unwrap_or(true) {
            best = Some((n, engine));
        }
    }
    best.map(|(_, e)| e)
}

/// The gauge headroom's emulator exports its simulated clock in (unix seconds). A sample whose
/// exposition carries it is timed by it rather than by the scrape's wall clock, so rates follow
/// simulated time at any `--speed`. No real engine exports it.
pub const EMULATOR_CLOCK: &str = "headroom_emulator_clock_seconds";

/// Maps a parsed exposition to a [`Sample`] taken at `t` (unix seconds), or at the
/// [`EMULATOR_CLOCK`] when the exposition carries it.
pub fn to_sample(e: &Exposition, t: f64) -> Result<Sample, AdaptError> {
    let engine = detect_engine(e).ok_or_else(|| AdaptError::UnknownEngine {
        count: e.families.len(),
        seen: e
            .families
            .iter()
            .take(6)
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    })?;
    let clock = e
        .series(EMULATOR_CLOCK)
        .map(|c| c.value)
        .find(|c| c.is_finite());
    let mut s = Sample::empty(clock.unwrap_or(t), engine);
    s.simulated = clock.is_some();
    crate::engine::fill(engine, &View::new(e), &mut s);
    Ok(s)
}

/// Checks a real engine's exposition against what its adapter asks for: every family it sends
/// is read or listed in `unread` (with the reason it carries no evidence), every family asked
/// for and not sent is listed in `absent` (with why), and both lists stay true.
#[cfg(test)]
pub(crate) fn assert_families_placed(text: &str, unread: &[(&str, &str)], absent: &[(&str, &str)]) {
    use std::collections::BTreeSet;
    let e = crate::prom::parse(text).expect("a real exposition parses");
    let sent: BTreeSet<String> = e
        .families
        .iter()
        .map(|f| match f.kind {
            // Adapters ask for a counter by its base name and match `name(_total)?`.
            crate::prom::MetricType::Counter => f.name.strip_suffix("_total").unwrap_or(&f.name),
            _ => &f.name,
        })
        .map(str::to_string)
        .collect();
    let v = View::new(&e);
    let engine = detect_engine(&e).expect("an engine's exposition");
    crate::engine::fill(engine, &v, &mut Sample::empty(0.0, engine));
    let asked = v.asked.into_inner();
    let listed = |set: &[(&str, &str)], f: &str| set.iter().any(|(n, _)| *n == f);
    let unplaced: Vec<&String> = sent
        .iter()
        .filter(|f| !asked.contains(*f) && !listed(unread, f))
        .collect();
    assert!(
        unplaced.is_empty(),
        "sent, neither read nor listed: {unplaced:?}"
    );
    let missing: Vec<&String> = asked
        .iter()
        .filter(|f| !sent.contains(*f) && !listed(absent, f))
        .collect();
    assert!(
        missing.is_empty(),
        "asked for, not sent, not listed: {missing:?}"
    );
    for (f, _) in unread {
        assert!(sent.contains(*f), "{f} listed as sent but not in the body");
        assert!(!asked.contains(*f), "{f} is read; drop it from the list");
    }
    for (f, _) in absent {
        assert!(!sent.contains(*f), "{f} listed as absent but sent");
    }
}

#[cfg(test)]
pub(crate) fn sample_of(text: &str) -> Sample {
    let e = crate::prom::parse(text).expect("test exposition parses");
    to_sample(&e, 0.0).expect("test exposition has an engine")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::series::Agg;

    #[test]
    fn detects_by_prefix_majority() {
        for (text, want) in [
            (
                "vllm:num_requests_running 1\nprocess_cpu_seconds_total 2\n",
                Some(Engine::Vllm),
            ),
            ("sglang:num_running_reqs 1\n", Some(Engine::Sglang)),
            ("llamacpp:requests_processing 1\n", Some(Engine::LlamaCpp)),
            (
                "tgi_queue_size 1\ntgi_batch_current_size 2\n",
                Some(Engine::Tgi),
            ),
            ("python_gc_objects_collected_total 3\n", None),
        ] {
            let e = crate::prom::parse(text).unwrap();
            assert_eq!(detect_engine(&e), want, "{text}");
        }
        let e = crate::prom::parse("http_requests_total 1\nprocess_open_fds 3\n").unwrap();
        match to_sample(&e, 1.0) {
            Err(AdaptError::UnknownEngine { count: 2, seen }) => {
                assert!(seen.contains("http_requests_total"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_emulator_clock_times_the_sample() {
        let e = crate::prom::parse(
            "vllm:num_requests_running 1\nheadroom_emulator_clock_seconds 1.7e9\n",
        )
        .unwrap();
        assert_eq!(to_sample(&e, 5.0).unwrap().t, 1.7e9);
        let e = crate::prom::parse("vllm:num_requests_running 1\n").unwrap();
        assert_eq!(to_sample(&e, 5.0).unwrap().t, 5.0);
    }

    #[test]
    fn mean_over_replicas_then_sum() {
        let text = "x{tp_rank=\"0\",dp_rank=\"0\"} 4\nx{tp_rank=\"1\",dp_rank=\"0\"} 4\nx{tp_rank=\"0\",dp_rank=\"1\"} 2\nx{tp_rank=\"1\",dp_rank=\"1\"} 2\n";
        let e = crate::prom::parse(text).unwrap();
        let v = View::new(&e);
        assert_eq!(v.gauge(&["x"], Agg::Sum), Some(12.0));
        assert_eq!(v.gauge(&["x"], Agg::Mean), Some(3.0));
        assert_eq!(
            v.gauge(&["x"], Agg::MeanOverThenSum(&["tp_rank"])),
            Some(6.0)
        );
        assert_eq!(v.gauge(&["y"], Agg::Sum), None);
    }
}
