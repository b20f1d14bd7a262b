//! PyTorch-profiler (Kineto) trace attribution: where device time goes.
//!
//! [`analyze`] streams a trace's JSON once with bounded memory and ranks device events
//! (`kernel`, `gpu_memcpy`, `gpu_memset`) by summed duration, by full name, stripped symbol,
//! stream and device; it measures the device span and busy time (the union of intervals), keeps
//! `gpu_user_annotation` spans out of device time (and says how much they would have inflated
//! it), and windows the trace to ProfilerSteps. A truncated trace yields its complete part and
//! where it stopped. Decompression and file handling stay with the caller: the core reads any
//! `Read` of JSON bytes.
pub mod analyze;
pub mod doc;
pub mod input;
pub mod scan;
pub mod symbol;
pub mod union;

pub use analyze::{
    analyze, is_truncation, scan_steps, DeviceCat, NameRow, Options, Report, Stats, Step,
    StepRange, StepRangeError, TraceError, Vendor, Window,
};
pub use scan::{Stop, StopKind};

pub mod verdict;
pub use verdict::{verdict, Verdict, WallSource, PLAN_THRESHOLD};
