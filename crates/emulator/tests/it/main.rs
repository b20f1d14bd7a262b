//! The emulator's integration tests: one binary, a module per concern.

mod common;
mod exposition_python;
mod exposition_vllm;
mod http;
mod physics;
mod scenarios;
