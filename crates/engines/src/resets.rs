//! Counter resets: an engine restart inside a window sets every cumulative counter back to zero,
//! so a rate taken across it would be negative or too small. These helpers find the scrapes
//! where that happened so the window can be cut or split there.

use crate::sample::Sample;
use serde::Serialize;
use std::ops::Range;

impl Sample {
    /// Every cumulative counter of the sample by field name, histogram counts and sums included
    /// (`ttft.count` ...). Not included: gauges, llama.cpp's busy_slots_per_decode (an
    /// average that may fall), and llama.cpp's generation_tokens where it is derived from that
    /// average (two 6-digit figures multiplied can dip by a few units without a restart; its
    /// decode_calls factor is a counter, so a restart is still seen).
    pub fn counters(&self) -> Vec<(&'static str, Option<f64>)> {
        let h = |x: &Option<crate::Histogram>, f: fn(&crate::Histogram) -> f64| x.as_ref().map(f);
        let derived_generation =
            self.engine == crate::Engine::LlamaCpp && self.busy_slots_per_decode.is_some();
        vec![
            ("prompt_tokens", self.prompt_tokens),
            (
                "generation_tokens",
                self.generation_tokens.filter(|_| !derived_generation),
            ),
            (
                "generation_tokens_credited",
                self.generation_tokens_credited,
            ),
            ("preemptions", self.preemptions),
            ("requests_finished", self.requests_finished),
            ("prefix_queries", self.prefix_queries),
            ("prefix_hits", self.prefix_hits),
            ("cached_prompt_tokens", self.cached_prompt_tokens),
            ("prompt_seconds", self.prompt_seconds),
            ("generation_seconds", self.generation_seconds),
            ("decode_calls", self.decode_calls),
            ("steps", self.steps),
            ("steps_decode", self.steps_decode),
            ("step_seconds", self.step_seconds),
            ("step_seconds_decode", self.step_seconds_decode),
            ("prefill_chunks", self.prefill_chunks),
            ("spec_drafts", self.spec_drafts),
            ("spec_draft_tokens", self.spec_draft_tokens),
            ("spec_accepted_tokens", self.spec_accepted_tokens),
            ("ttft.count", h(&self.ttft, |x| x.count)),
            ("ttft.sum", h(&self.ttft, |x| x.sum)),
            ("itl.count", h(&self.itl, |x| x.count)),
            ("itl.sum", h(&self.itl, |x| x.sum)),
            ("e2e.count", h(&self.e2e, |x| x.count)),
            ("e2e.sum", h(&self.e2e, |x| x.sum)),
            ("queue_time.count", h(&self.queue_time, |x| x.count)),
            ("queue_time.sum", h(&self.queue_time, |x| x.sum)),
            ("prompt_len.count", h(&self.prompt_len, |x| x.count)),
            ("prompt_len.sum", h(&self.prompt_len, |x| x.sum)),
            ("gen_len.count", h(&self.gen_len, |x| x.count)),
            ("gen_len.sum", h(&self.gen_len, |x| x.sum)),
        ]
    }
}

/// A scrape at which at least one counter went down.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CounterReset {
    /// Index into the samples: the first sample after the restart.
    pub index: usize,
    /// Unix seconds of that sample.
    pub t: f64,
    /// The counters that decreased, by field name.
    pub counters: Vec<&'static str>,
}

/// Indices where any cumulative counter decreased, comparing each counter with the last sample
/// that had it (a scrape missing a counter neither hides nor fakes a reset).
pub fn find_counter_resets(samples: &[Sample]) -> Vec<CounterReset> {
    let mut last: Vec<Option<f64>> = Vec::new();
    let mut out = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        let now = s.counters();
        if last.is_empty() {
            last = vec![None; now.len()];
        }
        let mut dropped = Vec::new();
        for (j, (name, v)) in now.iter().enumerate() {
            if let (Some(prev), Some(cur)) = (last[j], v) {
                if *cur < prev {
                    dropped.push(*name);
                }
            }
        }
        if !dropped.is_empty() {
            // After a restart every counter starts over: forget the old values.
            last = vec![None; now.len()];
            out.push(CounterReset {
                index: i,
                t: s.t,
                counters: dropped,
            });
        }
        for (j, (_, v)) in now.iter().enumerate() {
            if v.is_some() {
                last[j] = *v;
            }
        }
    }
    out
}

/// The runs of samples between resets: `[0, r1), [r1, r2), ... [rn, len)`. Rates are valid
/// within a run only.
pub fn split_at_resets(samples: &[Sample]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for r in find_counter_resets(samples) {
        out.push(start..r.index);
        start = r.index;
    }
    if start < samples.len() || samples.is_empty() {
        out.push(start..samples.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::{Engine, Histogram};

    fn s(t: f64, gen: Option<f64>, ttft_count: Option<f64>) -> Sample {
        let mut x = Sample::empty(t, Engine::Vllm);
        x.generation_tokens = gen;
        x.ttft = ttft_count.map(|c| Histogram {
            buckets: vec![(f64::INFINITY, c)],
            sum: c * 0.1,
            count: c,
        });
        x
    }

    #[test]
    fn finds_restarts_and_splits() {
        let v = vec![
            s(0.0, Some(100.0), Some(5.0)),
            s(1.0, Some(150.0), Some(6.0)),
            s(2.0, None, None), // a scrape without the families: not a reset
            s(3.0, Some(160.0), Some(6.0)),
            s(4.0, Some(3.0), Some(0.0)), // restart
            s(5.0, Some(40.0), Some(1.0)),
            s(6.0, Some(40.0), Some(0.0)), // only the histogram dropped: still a restart
        ];
        let r = find_counter_resets(&v);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].index, r[0].t), (4, 4.0));
        assert_eq!(
            r[0].counters,
            vec!["generation_tokens", "ttft.count", "ttft.sum"]
        );
        assert_eq!(r[1].index, 6);
        assert_eq!(r[1].counters, vec!["ttft.count", "ttft.sum"]);
        assert_eq!(split_at_resets(&v), vec![0..4, 4..6, 6..7]);
        assert_eq!(split_at_resets(&v[..4]), vec![0..4]);
        assert_eq!(split_at_resets(&[]), vec![0..0]);
        // Equal values (llama.cpp's 6-digit printing) are not a reset.
        let flat = vec![s(0.0, Some(1.23457e6), None), s(1.0, Some(1.23457e6), None)];
        assert!(find_counter_resets(&flat).is_empty());
    }
}
