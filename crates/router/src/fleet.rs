//! What a policy and the affinity table may ask about the replicas, and the spreading counter
//! both use. A leaf: it depends on nothing else in the crate.
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a policy may ask about the replicas. `eligible` is false for a demoted replica and for
/// one that already failed this request.
pub trait Fleet {
    /// How many replicas there are, eligible or not.
    fn replicas(&self) -> usize;
    fn eligible(&self, replica: usize) -> bool;
    fn in_flight(&self, replica: usize) -> usize;
}

/// The spreading counter: the next eligible replica after the last one handed out.
/// A counter, not a prefix hash, so that new requests sharing a system prompt still spread.
#[derive(Debug, Default)]
pub struct Counter(AtomicUsize);

impl Counter {
    pub fn next(&self, fleet: &dyn Fleet) -> Option<usize> {
        let n = fleet.replicas();
        if n == 0 {
            return None;
        }
        let start = self.0.fetch_add(1, Ordering::Relaxed) % n;
        (0..n).map(|i| (start + i) % n).find(|r| fleet.eligible(*r))
    }
}
