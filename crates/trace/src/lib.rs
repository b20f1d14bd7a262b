//! PyTorch-profiler (Kineto) trace attribution: where device time goes.
pub mod scan;
pub mod symbol;
