//! The probes that put to a live server the questions its counters cannot answer
//! (spec 000 §1, §8): is decode context-bound, is the prefix cache hit, do agent-loop turns
//! keep their cache.

pub mod depth;
pub mod prefix;
pub mod turns;

pub use depth::{run_depth, DepthConfig, DepthReport, DepthSample, DepthVerdict};
pub use prefix::{run_prefix, CacheVerdict, PrefixConfig, PrefixReport, PrefixRun};
pub use turns::{run_turns, TurnRecord, TurnsConfig, TurnsReport};

use serde::Serialize;

use crate::stats::median;

/// Where a probe reports its progress (the binary draws a bar on stderr).
pub trait Progress: Send + Sync {
    /// `total` requests are about to be sent.
    fn start(&self, _total: u64, _what: &str) {}
    /// One request finished.
    fn step(&self, _msg: &str) {}
    /// A remark worth a line of its own.
    fn note(&self, _msg: &str) {}
}

/// Progress that goes nowhere.
pub struct Quiet;
impl Progress for Quiet {}

/// Median with its sample size (a number without its n is not reported).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Med {
    pub median: Option<f64>,
    pub n: usize,
}

impl Med {
    pub fn of(values: impl IntoIterator<Item = Option<f64>>) -> Self {
        let v: Vec<f64> = values.into_iter().flatten().collect();
        Self {
            median: median(&v),
            n: v.len(),
        }
    }
}
