//! One module per engine: `engine/<name>.rs` holds what headroom knows of it, so adding an
//! engine is one file here (plus its captures under fixtures/).
//!
//! What an engine file holds (a new engine's file holds the same):
//! - `DEF`, its [`Definition`]: the metric-name prefix (engine detection, the store queries of
//!   fleet and census) and the `owned_by` its `/v1/models` answers with (loadgen's recognition);
//! - `SERIES`, its metrics as data: one row per [`crate::Sample`] field, every name the metric
//!   had (newest first: a rename is one more name in one row), its kind and how its series
//!   combine, and whether a store reader can read it too. The adapter reads the rows from a
//!   scrape; fleet and census build their PromQL from the same rows
//!   (`adapters::promql::CONCEPTS`);
//! - `fill`, the adapter: the rows, then what needs code (a figure derived from two series, a
//!   label read as config, a fallback for a counter created late);
//! - `FLAGS`, its flag table: each flag's spellings, the config field it sets and, where a
//!   prescription turns a [`crate::Knob`] with it, the text written (read back by the same row);
//! - its tests against real captures (every family it sends read or listed as unread, every
//!   family it asks for and does not send listed with why).
//!
//! Outside this folder a new engine still needs: a variant in [`crate::Engine`] (and in
//! [`Engine::ALL`](crate::Engine::ALL)), its arms in [`definition`], `adapters::fill`,
//! `adapters::series_of`, `config::flag_table` and `config::detect_launcher`, and its
//! capabilities where loadgen and diagnose branch on the engine.

pub mod llamacpp;
pub mod sglang;
pub mod tgi;
pub mod vllm;

use crate::sample::Sample;
use crate::series::{Series, View};
use crate::Engine;

/// An engine's identity as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Definition {
    pub engine: Engine,
    /// Every one of its metric names starts with this (`vllm:`, `tgi_` ...).
    pub prefix: &'static str,
    /// What its `/v1/models` entries say in `owned_by`, where that names the engine.
    pub owned_by: Option<&'static str>,
}

/// The definition of `e`.
pub fn definition(e: Engine) -> &'static Definition {
    match e {
        Engine::Vllm => &vllm::DEF,
        Engine::LlamaCpp => &llamacpp::DEF,
        Engine::Sglang => &sglang::DEF,
        Engine::Tgi => &tgi::DEF,
    }
}

/// Fills a sample from an exposition by the engine's adapter.
pub(crate) fn fill(engine: Engine, v: &View, s: &mut Sample) {
    match engine {
        Engine::Vllm => vllm::fill(v, s),
        Engine::LlamaCpp => llamacpp::fill(v, s),
        Engine::Sglang => sglang::fill(v, s),
        Engine::Tgi => tgi::fill(v, s),
    }
}

/// An engine's table.
pub(crate) fn series_of(engine: Engine) -> &'static [Series] {
    match engine {
        Engine::Vllm => vllm::SERIES,
        Engine::LlamaCpp => llamacpp::SERIES,
        Engine::Sglang => sglang::SERIES,
        Engine::Tgi => tgi::SERIES,
    }
}

/// The engine's flag table.
pub(crate) fn flags_of(engine: Engine) -> &'static [crate::flags::FlagRow] {
    match engine {
        Engine::Vllm => vllm::FLAGS,
        Engine::Sglang => sglang::FLAGS,
        Engine::Tgi => tgi::FLAGS,
        Engine::LlamaCpp => llamacpp::FLAGS,
    }
}

impl Engine {
    /// Its definition: metric prefix and how its server names itself.
    pub fn def(self) -> &'static Definition {
        definition(self)
    }

    /// Its metric-name prefix (`vllm:`, `llamacpp:`, `tgi_` ...).
    pub fn prefix(self) -> &'static str {
        self.def().prefix
    }

    /// The engine whose metric prefix `name` starts with.
    pub fn of_metric(name: &str) -> Option<Engine> {
        Engine::ALL
            .into_iter()
            .find(|e| name.starts_with(e.prefix()))
    }

    /// The engine an OpenAI-compatible `/v1/models` entry's `owned_by` names.
    pub fn of_owned_by(owned_by: &str) -> Option<Engine> {
        Engine::ALL
            .into_iter()
            .find(|e| e.def().owned_by == Some(owned_by))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_has_its_own_definition_and_prefix() {
        for e in Engine::ALL {
            assert_eq!(
                e.def().engine,
                e,
                "{e}: definition filed under another engine"
            );
            assert_eq!(Engine::of_metric(&format!("{}x", e.prefix())), Some(e));
            if let Some(o) = e.def().owned_by {
                assert_eq!(Engine::of_owned_by(o), Some(e));
            }
        }
        // No prefix is another's prefix: detection by prefix is unambiguous.
        for a in Engine::ALL {
            for b in Engine::ALL.into_iter().filter(|b| *b != a) {
                assert!(!a.prefix().starts_with(b.prefix()), "{a} / {b}");
            }
        }
    }
}
