//! A simulated vLLM engine, honestly labelled as a simulation and driven by the same physics as
//! the ceilings. See docs/emulator.md for what it models and what it does not.
//!
//! Data flows one way: [`args::EngineArgs`] and [`cost::Figures`] size the pool
//! ([`cost::layout`]); [`engine::Engine`] steps the batch in simulated time; [`metrics`] prints
//! the vLLM V1 exposition.

pub mod api;
pub mod args;
pub mod cost;
pub mod demo;
pub mod doc;
pub mod engine;
pub mod hardware;
pub mod kv;
pub mod metrics;
pub mod scenario;
pub mod server;
pub mod sim;
pub mod tokenizer;

pub use args::{ArgOverrides, ArgsError, EngineArgs};
pub use cost::{Figures, Layout};
pub use engine::{Engine, FinishReason, Reject, ReqId, StepOutput, Usage};
