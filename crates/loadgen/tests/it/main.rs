//! The loadgen crate's integration tests, one binary: each module is a former test file;
//! `util` holds what they share.

mod depth;
mod llama;
mod local;
mod util;
mod vllm;
