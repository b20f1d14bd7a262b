//! One module per engine: `engine/<name>.rs` holds what headroom knows of it, so adding an
//! engine is one file here (plus its captures under fixtures/).
//!
//! What an engine file holds today:
//! - `DEF`, its [`Definition`]: the metric-name prefix (engine detection, the store queries of
//!   fleet and census) and the `owned_by` its `/v1/models` answers with (loadgen's recognition);
//! - `fill`, the adapter: each [`crate::Sample`] concept from its exposition, names per version
//!   newest first (a rename is one more name in the list), and how its series combine;
//! - `FLAGS`, its flag table: each flag's spellings, the config field it sets and, where a
//!   prescription turns a [`crate::Knob`] with it, the text written (read back by the same row);
//! - its tests against real captures (every family it sends read or listed as unread).
//!
//! What a new engine also needs, outside this folder until it moves here: a variant in
//! [`crate::Engine`] (and in [`Engine::ALL`](crate::Engine::ALL)), its arm in [`definition`] and
//! in `adapters::fill`, its rows in `adapters::promql::CONCEPTS` (the store readers' names), its
//! arms in `config.rs`'s `flag_table` and `detect_launcher`, and its capabilities where
//! loadgen and diagnose branch on the engine.

pub(crate) mod llamacpp;
pub(crate) mod sglang;
pub(crate) mod tgi;
pub(crate) mod vllm;

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
