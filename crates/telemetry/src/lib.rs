//! Engine log lines and their envelope.
//!
//! Production hosts forbid benchmarks, but the engine already measures every request and
//! writes it to its log. This crate reads those lines (llama.cpp's `slot print_timing` in its
//! current and older shapes, halogen's `serve_api`), groups them per request and per server
//! instance, and summarises each instance as an envelope whose every figure has its sample size.

mod event;
mod prefix;
mod scan;

pub use event::SlotSelection;
