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
//! - `PROMPT_PATHS` (in `DEF`), the API paths whose body carries a prompt, for the router;
//! - `fill`, the adapter: the rows, then what needs code (a figure derived from two series, a
//!   label read as config, a fallback for a counter created late);
//! - `FLAGS`, its flag table: each flag's spellings, the config field it sets and, where a
//!   prescription turns a [`crate::Knob`] with it, the text written (read back by the same row);
//! - its tests against real captures (every family it sends read or listed as unread, every
//!   family it asks for and does not send listed with why).
//!
//! - `DEF` also holds its identity (document id, display name), how a command line launches it
//!   ([`Launcher`] rows: `EngineConfig::from_argv` detects the engine by them; whether the first
//!   positional word is the model) and its
//!   capabilities (`cached_tokens_hint`: whether and how responses report cached tokens).
//!
//! - its names' evidence under `fixtures/<engine>-<version>/`: a real capture (`*.prom`) or,
//!   where none is public, the families its released source registers
//!   (`families-from-source.txt`), each with a SOURCES.md; `captures.rs` fails on a name
//!   neither has.
//!
//! Outside this folder a new engine needs its variant in [`crate::Engine`] (and in
//! [`Engine::ALL`](crate::Engine::ALL)) and its arm in [`definition`]; the compiler then names
//! every `match` on the engine that must say how the new one behaves. LMDeploy was added so:
//! its file, the variant, the arm and its fixture folder (no test or list elsewhere names it).

pub mod llamacpp;
pub mod lmdeploy;
pub mod sglang;
pub mod tgi;
pub mod vllm;

use crate::flags::FlagRow;
use crate::sample::Sample;
use crate::series::{Series, View};
use crate::Engine;

/// An engine's identity, tables, adapter and capabilities as data: everything headroom branches
/// on an engine for is read from here.
#[derive(Clone, Copy)]
pub struct Definition {
    pub engine: Engine,
    /// The document spelling (`llama.cpp`), as serialized.
    pub id: &'static str,
    /// The project's own name for it, for sentences (`vLLM`, `SGLang`).
    pub name: &'static str,
    /// Every one of its metric names starts with this (`vllm:`, `tgi_` ...).
    pub prefix: &'static str,
    /// What its `/v1/models` entries say in `owned_by`, where that names the engine.
    pub owned_by: Option<&'static str>,
    /// How a command line that starts it looks.
    pub launchers: &'static [Launcher],
    /// Whether the first positional word after the launcher is the model (`vllm serve MODEL`).
    pub model_positional: bool,
    /// The paths of its HTTP API whose body carries a prompt, and in which field (the router
    /// keeps a conversation on the replica holding its prefix by them).
    pub prompt_paths: &'static [crate::prompt::PromptPath],
    /// Its metrics as data ([`Series`] rows).
    pub(crate) series: &'static [Series],
    /// Its flag table, read in both directions.
    pub(crate) flags: &'static [FlagRow],
    /// The adapter: the rows, then what needs code.
    pub(crate) fill: fn(&View, &mut Sample),
    /// Why a response carried no cached-token count, and the switch (if any) that makes the
    /// engine send one (cited in the engine file).
    pub cached_tokens_hint: &'static str,
    /// Its prompt-token counter counts only the tokens it computed, not those served from its
    /// prompt cache (llama.cpp), so the prompt tokens it was sent are that counter plus its
    /// cached-token counter. False where the prompt counter counts every prompt token.
    pub prompt_tokens_exclude_cached: bool,
}

/// One way a command line launches an engine; the engine's own flags follow the matched words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launcher {
    /// A program by its base name (`llama-server`, `/opt/bin/text-generation-launcher`).
    Program(&'static str),
    /// A program only as the command itself (argv[0]): a name too common to match anywhere.
    Command(&'static str),
    /// A program and its subcommand words (`vllm serve`, `lmdeploy serve api_server`).
    Subcommand(&'static str, &'static [&'static str]),
    /// A Python module or entry point (`python -m sglang.launch_server`): any word starting so.
    Module(&'static str),
}

impl Launcher {
    /// Where the engine's own flags start when `argv[i]` begins this launcher.
    fn matches(self, argv: &[String], i: usize) -> Option<usize> {
        let tok = argv[i].as_str();
        let base = tok.rsplit('/').next().unwrap_or(tok);
        match self {
            Launcher::Program(p) => (base == p).then_some(i + 1),
            Launcher::Command(p) => (i == 0 && base == p).then_some(1),
            Launcher::Subcommand(p, words) => {
                let follow = argv.get(i + 1..i + 1 + words.len())?;
                (base == p && follow.iter().zip(words).all(|(a, w)| a == w))
                    .then_some(i + 1 + words.len())
            }
            Launcher::Module(m) => tok.starts_with(m).then_some(i + 1),
        }
    }
}

/// Which engine an argv launches, and the index where its own flags start: the first word that
/// begins a launcher of any engine (engines in [`Engine::ALL`] order within a word).
pub(crate) fn detect_launcher(argv: &[String]) -> Option<(Engine, usize)> {
    (0..argv.len()).find_map(|i| {
        Engine::ALL.into_iter().find_map(|e| {
            e.def()
                .launchers
                .iter()
                .find_map(|l| l.matches(argv, i))
                .map(|start| (e, start))
        })
    })
}

impl Definition {
    /// The name a concept (a [`Sample`] field) is exposed under today: its row's newest name,
    /// with `_total` on a counter. For prose and errors that name a series, so a rename moves
    /// them too. None where the engine has no row for it.
    pub fn exposed(&self, field: &str) -> Option<String> {
        let row = self.series.iter().find(|r| r.field == field)?;
        let name = row.names.first()?;
        Some(match row.kind {
            crate::series::Kind::Counter => format!("{name}_total"),
            _ => name.to_string(),
        })
    }

    /// Every name a store reader fills the concept `field` from, each row's in preference
    /// order (its newest name first); empty where the engine has none.
    pub fn store_names(&self, field: &str) -> Vec<Vec<&'static str>> {
        self.series
            .iter()
            .filter(|r| r.store == Some(field))
            .map(|r| r.names.to_vec())
            .collect()
    }
}

/// Every engine's rows merged by path: a path two engines serve with different fields (SGLang's
/// `/generate` takes `text`, TGI's `inputs`) lists both, in engine order.
pub fn all_prompt_paths() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut out: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
    for row in Engine::ALL.iter().flat_map(|e| e.def().prompt_paths) {
        let i = match out.iter().position(|(p, _)| *p == row.path) {
            Some(i) => i,
            None => {
                out.push((row.path, Vec::new()));
                out.len() - 1
            }
        };
        for f in row.fields {
            if !out[i].1.contains(f) {
                out[i].1.push(f);
            }
        }
    }
    out
}

/// The definition of `e`.
pub fn definition(e: Engine) -> &'static Definition {
    match e {
        Engine::Vllm => &vllm::DEF,
        Engine::LlamaCpp => &llamacpp::DEF,
        Engine::Sglang => &sglang::DEF,
        Engine::Tgi => &tgi::DEF,
        Engine::Lmdeploy => &lmdeploy::DEF,
    }
}

/// Fills a sample from an exposition by the engine's adapter.
pub(crate) fn fill(engine: Engine, v: &View, s: &mut Sample) {
    (engine.def().fill)(v, s)
}

impl Engine {
    /// Its definition: identity, tables, adapter and capabilities.
    pub fn def(self) -> &'static Definition {
        definition(self)
    }

    /// The document spelling (`llama.cpp`), as serialized.
    pub fn as_str(self) -> &'static str {
        self.def().id
    }

    /// The project's own name for it, for sentences (`vLLM`, `SGLang`).
    pub fn name(self) -> &'static str {
        self.def().name
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
mod captures;

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

    #[test]
    fn a_concept_is_exposed_under_its_newest_name_with_a_counters_suffix() {
        let l = Engine::LlamaCpp.def();
        assert_eq!(
            l.exposed("decode_calls").as_deref(),
            Some("llamacpp:n_decode_total")
        );
        assert_eq!(
            l.exposed("running").as_deref(),
            Some("llamacpp:requests_processing")
        );
        assert_eq!(l.exposed("ttft"), None);
        // A histogram is named by its family.
        assert_eq!(
            Engine::Vllm.def().exposed("ttft").as_deref(),
            Some("vllm:time_to_first_token_seconds")
        );
    }
}
