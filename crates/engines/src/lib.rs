//! Prometheus text parsing, scraping, and one adapter per engine (vLLM V0/V1, llama.cpp,
//! SGLang, TGI) that turns raw series into one typed [`Sample`].
pub mod sample;
pub use sample::*;
pub mod prom;
