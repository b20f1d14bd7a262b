//! Prometheus text parsing, scraping, and one adapter per engine (vLLM V0/V1, llama.cpp,
//! SGLang, TGI) that turns raw series into one typed [`Sample`].
pub mod adapters;
pub mod config;
pub mod engine;
mod flags;
pub mod identity;
pub mod process;
pub mod prom;
pub mod prompt;
pub mod sample;
pub mod scrape;
mod series;

pub use adapters::{detect_engine, to_sample, AdaptError, EMULATOR_CLOCK};
pub use config::{flag, ConfigError, EngineConfig, Knob, Known, Source};
pub use prom::{Exposition, PromError, Truncation};
pub use record::{read_recording, RecordError, Recorder, Recording, RecordingHeader, ScrapeRecord};
pub use resets::{find_counter_resets, split_at_resets, CounterReset};
pub use sample::*;
pub use scrape::{ModelsInfo, Props, RawScrape, Scrape, ScrapeError, Scraper, SlotInfo};
/// Why a /metrics body gave no [`Sample`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error(transparent)]
    Prom(#[from] PromError),
    #[error(transparent)]
    Adapt(#[from] AdaptError),
}

/// A parsed /metrics body: the typed sample and the exposition it came from (which says whether
/// the body was truncated and what was cut).
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub sample: Sample,
    pub exposition: Exposition,
}

/// Parses a /metrics body taken at `t` (unix seconds) and maps it with the engine's adapter.
/// This is what a live scrape and a replay both call, so a replay re-parses with today's adapter.
pub fn parse_metrics(text: &str, t: f64) -> Result<Parsed, ParseError> {
    let exposition = prom::parse(text)?;
    let sample = to_sample(&exposition, t)?;
    Ok(Parsed { sample, exposition })
}
pub mod record;
pub mod resets;
