//! One engine's window as aligned steps (what the store's range queries return), and the proof
//! that the window is one shape: a restart (a counter reset) or a build change (the step
//! ledger appearing or vanishing while the engine kept reporting) splits it, and only the
//! latest piece is censused.

use crate::ledger::Counters;
use serde::{Deserialize, Serialize};

/// Per-step series, every vector `t.len()` long; `None` where the store had no value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Steps {
    /// Each step's end, unix seconds.
    pub t: Vec<f64>,
    pub step_s: f64,
    /// Prompt (prefill) tokens per second.
    pub prefill: Vec<Option<f64>>,
    /// Generated (decode) tokens per second, pooled over the batch, as the engine's counter
    /// credits them (llama.cpp: when a request ends).
    pub decode: Vec<Option<f64>>,
    /// The decode cadence per stream where the engine counts its steps as they happen and its
    /// generated tokens only when a request ends (llama.cpp): engine steps (llama_decode calls)
    /// per second, in the steps where a request was in process at every scrape. Each call gives
    /// every generating slot one token (the server caps a step's batch at n_batch, so one step
    /// is one call), so this is the token rate of a stream that generates through the step.
    /// None for engines whose token counter counts as it happens.
    pub cadence: Option<Vec<Option<f64>>>,
    /// Mean running sequences in the step.
    pub running: Vec<Option<f64>>,
    /// Preemptions counted in the step (`vllm:num_preemptions_total`).
    pub preemptions: Vec<Option<f64>>,
    /// TTFT bucket increases in the step: (le, cumulative count), ascending le.
    pub ttft: Vec<Vec<(f64, f64)>>,
    /// The step ledger's increase in the step.
    pub ledger: Vec<Option<Counters>>,
    /// Engine steps and the tokens in them, increase in the step; what they count is
    /// `step_count`.
    pub iterations: Vec<Option<(f64, f64)>>,
    pub step_count: StepCount,
    /// Counter resets seen in the step (a restart).
    pub resets: Vec<f64>,
}

/// What [`Steps::iterations`] counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StepCount {
    /// vLLM's `iteration_tokens_total` histogram: (engine iterations, tokens scheduled).
    #[default]
    Iterations,
    /// llama.cpp's llama_decode calls (`n_decode_total`), and the prompt plus generated tokens
    /// they carried (each generated token is fed back once, but a request's last one never is:
    /// the tokens are over by at most one per request finished). The calls count as they
    /// happen, the tokens when a prompt is done and when a request ends: only sums over many
    /// requests pair them.
    DecodeCalls,
}

/// A piece of the window between two shape changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    pub start: f64,
    pub end: f64,
    pub points: usize,
    /// Why the piece ends where it does (None for the last piece).
    pub ended_by: Option<String>,
    /// The piece the census reads.
    pub censused: bool,
}

impl Steps {
    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// Steps [a, b).
    pub fn slice(&self, a: usize, b: usize) -> Steps {
        Steps {
            t: self.t[a..b].to_vec(),
            step_s: self.step_s,
            prefill: self.prefill[a..b].to_vec(),
            decode: self.decode[a..b].to_vec(),
            cadence: self.cadence.as_ref().map(|c| c[a..b].to_vec()),
            running: self.running[a..b].to_vec(),
            preemptions: self.preemptions[a..b].to_vec(),
            ttft: self.ttft[a..b].to_vec(),
            ledger: self.ledger[a..b].to_vec(),
            iterations: self.iterations[a..b].to_vec(),
            step_count: self.step_count,
            resets: self.resets[a..b].to_vec(),
        }
    }

    /// Whether the engine reported at step i (its token counters).
    fn engine_up(&self, i: usize) -> bool {
        self.decode[i].is_some() || self.prefill[i].is_some()
    }

    /// The pieces of one shape, and each boundary's reason. A boundary step (the one holding
    /// the reset, or the first of the new metric set) starts the next piece, except a reset
    /// step, which is dropped: its increase mixes two containers.
    pub fn segments(&self) -> Vec<(usize, usize, Option<String>)> {
        let mut cuts: Vec<(usize, String)> = Vec::new();
        let mut ledger_seen: Option<bool> = None;
        for i in 0..self.len() {
            if self.resets[i] > 0.0 {
                cuts.push((
                    i,
                    format!(
                        "a counter reset at {} (the engine restarted)",
                        self.t[i] as i64
                    ),
                ));
            }
            if self.engine_up(i) {
                let has = self.ledger[i].is_some();
                if let Some(prev) = ledger_seen {
                    if prev != has {
                        let what = if has {
                            "the step ledger first reported"
                        } else {
                            "the step ledger stopped"
                        };
                        cuts.push((
                            i,
                            format!(
                                "{what} at {} while the engine kept reporting (a build change)",
                                self.t[i] as i64
                            ),
                        ));
                    }
                }
                ledger_seen = Some(has);
            }
        }
        cuts.sort_by_key(|c| c.0);
        let mut out: Vec<(usize, usize, Option<String>)> = Vec::new();
        let mut start = 0;
        for (i, why) in cuts {
            if i <= start && !out.is_empty() {
                // No step between two boundaries: one boundary with both reasons.
                if let Some(last) = out.last_mut() {
                    let r = last.2.get_or_insert_with(String::new);
                    r.push_str("; then ");
                    r.push_str(&why);
                }
            } else if i > start {
                out.push((start, i, Some(why)));
            }
            start = start.max(if self.resets[i] > 0.0 { i + 1 } else { i });
        }
        out.push((start, self.len(), None));
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn blank(n: usize, step_s: f64) -> Steps {
        Steps {
            t: (0..n).map(|i| 1_000_000.0 + step_s * i as f64).collect(),
            step_s,
            prefill: vec![Some(0.0); n],
            decode: vec![Some(100.0); n],
            cadence: None,
            running: vec![Some(4.0); n],
            preemptions: vec![Some(0.0); n],
            ttft: vec![Vec::new(); n],
            ledger: vec![None; n],
            iterations: vec![None; n],
            step_count: StepCount::Iterations,
            resets: vec![0.0; n],
        }
    }

    #[test]
    fn one_shape_is_one_segment() {
        let s = blank(50, 30.0);
        assert_eq!(s.segments(), vec![(0, 50, None)]);
    }

    #[test]
    fn a_restart_and_a_build_change_split_the_window() {
        let mut s = blank(100, 30.0);
        s.resets[40] = 1.0;
        for l in s.ledger.iter_mut().skip(41) {
            *l = Some(Counters::default());
        }
        let seg = s.segments();
        // [0,40) ends at the reset; the reset step is dropped; the ledger first reports at 41.
        assert_eq!(seg.len(), 2, "{seg:?}");
        assert_eq!((seg[0].0, seg[0].1), (0, 40));
        let why = seg[0].2.as_deref().unwrap();
        assert!(
            why.contains("restarted") && why.contains("build change"),
            "{why}"
        );
        assert_eq!(seg[1], (41, 100, None));
    }

    #[test]
    fn a_gap_in_the_engine_is_not_a_build_change() {
        let mut s = blank(20, 30.0);
        for i in 0..20 {
            s.ledger[i] = Some(Counters::default());
        }
        // A scrape gap: nothing reported at all for three steps.
        for i in 8..11 {
            s.ledger[i] = None;
            s.decode[i] = None;
            s.prefill[i] = None;
        }
        assert_eq!(s.segments(), vec![(0, 20, None)]);
    }
}
