//! The probes that put to a live server the questions its counters cannot answer
//!: is decode context-bound, is the prefix cache hit, do agent-loop turns
//! keep their cache.

pub mod depth;
pub mod doc;
pub mod prefix;
pub mod turns;

pub use crate::progress::{Progress, Quiet};
pub use depth::{run_depth, DepthConfig, DepthReport, DepthSample, DepthStop, DepthVerdict};
pub use doc::{ProbeDoc, ProbeReport};
pub use prefix::{run_prefix, CacheVerdict, PrefixConfig, PrefixReport, PrefixRun};
pub use turns::{run_turns, TurnRecord, TurnsConfig, TurnsReport};

#[cfg(test)]
mod hint_tests {
    use super::*;

    #[test]
    fn only_vllm_is_told_its_flag() {
        let flag = "--enable-prompt-tokens-details";
        assert!(cached_tokens_hint(Some(Engine::Vllm)).contains(flag));
        for e in [
            Some(Engine::LlamaCpp),
            Some(Engine::Sglang),
            Some(Engine::Tgi),
            None,
        ] {
            assert!(!cached_tokens_hint(e).contains(flag), "{e:?}");
        }
        assert!(cached_tokens_hint(Some(Engine::Sglang)).contains("--enable-cache-report"));
    }
}

use serde::Serialize;

use crate::server::Engine;
use crate::stats::median;

/// Why a response carried no cached-token count, and what would make the engine send one.
/// Each engine names its own switch (its definition, cited there); none is named for an engine
/// that would not know it.
pub fn cached_tokens_hint(engine: Option<Engine>) -> String {
    match engine {
        Some(e) => e.def().cached_tokens_hint.into(),
        None => "the engine is unknown, so no switch that makes it report them can be named".into(),
    }
}

/// Median with its sample size (a number without its n is not reported).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct Med {
    pub median: Option<f64>,
    pub n: usize,
}

impl Med {
    pub fn of(values: impl IntoIterator<Item = Option<f64>>) -> Self {
        let v: Vec<f64> = values.into_iter().flatten().collect();
        Self {
            median: median(&v),
            n: v.len(),
        }
    }
}
