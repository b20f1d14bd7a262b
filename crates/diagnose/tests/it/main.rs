//! diagnose's integration tests: one binary.

mod defaults;
mod props;
mod rules;
mod vllm_032;
