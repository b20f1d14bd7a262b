//! diagnose's integration tests: one binary.

mod props;
mod rules;
