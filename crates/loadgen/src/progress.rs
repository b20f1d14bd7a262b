//! Where long work reports its progress: a leaf the probes and the bench suite both use.

/// Where a probe or the bench suite reports its progress (the binary draws a bar on stderr).
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
