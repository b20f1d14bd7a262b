//! The telemetry crate's integration tests, one binary: each module is a former test file.

mod real_log;
mod vllm_log;
