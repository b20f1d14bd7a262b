//! A simulated vLLM engine, honestly labelled as a simulation and driven by the same physics as
//! the ceilings. See docs/emulator.md for what it models and what it does not.

pub mod tokenizer;
