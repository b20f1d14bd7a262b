//! What the log told of each request and each server instance: the records the ledger fills
//! and the envelope summarises (a leaf below both).

use crate::event::SlotSelection;
use serde::{Deserialize, Serialize};

/// Which engine wrote a request's line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Engine {
    #[serde(rename = "llama.cpp")]
    LlamaCpp,
    #[serde(rename = "halogen")]
    Halogen,
}

/// Why an instance begins where it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartReason {
    /// The first lines of the log (the process may have started before the log does).
    LogStart,
    /// A startup line: `build: …` or `loading model '…'`.
    Startup,
    /// A `model loaded` line after the previous process had already loaded its model.
    ModelLoaded,
    /// Task ids went backwards on a slot: the server restarted without its startup lines.
    TaskIdsRestarted,
    /// A journald prefix carried a process id not seen before.
    NewPid,
}

/// Provenance of a request's cached-token count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CachedFrom {
    /// A line named it (`kv cache rm [N, end)`, `memory_seq_rm [N, end)`).
    Logged,
    /// Computed from the release line: `n_tokens + 1 − prompt tokens − generated tokens`.
    Derived,
}

/// Speculative-decoding figures of one request.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Draft {
    /// Accepted / generated draft tokens (llama.cpp); absent for halogen.
    pub rate: Option<f64>,
    pub accepted: Option<u64>,
    pub generated: Option<u64>,
    /// Tokens committed per verification step: llama.cpp's `mean len`, halogen's `commit C/round`.
    pub mean_len: Option<f64>,
    /// halogen's verification rounds.
    pub rounds: Option<u64>,
}

/// One request as its engine logged it. Times are the engine's own, in milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    pub engine: Engine,
    /// llama.cpp slot id; `None` for halogen and for logs without ids.
    pub slot: Option<u32>,
    /// llama.cpp task id (unique within an instance).
    pub task: Option<u64>,
    /// 1-based line number of the request's first line.
    pub line: u64,
    /// Prompt tokens the engine computed (llama.cpp excludes tokens reused from the cache).
    pub prompt_tokens: Option<u32>,
    pub prompt_ms: Option<f64>,
    /// Prompt tokens per second as the engine printed it.
    pub prompt_tps: Option<f64>,
    pub gen_tokens: Option<u32>,
    pub gen_ms: Option<f64>,
    /// Generation tokens per second as the engine printed it (current llama.cpp divides by
    /// n_gen − 1 decode steps, older builds by n_gen).
    pub gen_tps: Option<f64>,
    pub total_ms: Option<f64>,
    pub graphs_reused: Option<u32>,
    pub draft: Option<Box<Draft>>,
    pub selected_by: Option<SlotSelection>,
    /// The LCP similarity that won the slot (`f_sim_best`).
    pub lcp_similarity: Option<f64>,
    /// The whole prompt, cached tokens included (`new prompt … n_prompt_tokens`), when logged.
    pub prompt_tokens_total: Option<u32>,
    /// Prompt tokens reused from the cache.
    pub cached_tokens: Option<u32>,
    /// Where `cached_tokens` came from.
    pub cached_tokens_from: Option<CachedFrom>,
    /// The slot released the request (`stop processing`).
    pub stopped: bool,
    /// Tokens in the slot's cache at release (`stop processing: n_tokens = N`).
    pub stop_n_tokens: Option<u32>,
    pub truncated: Option<bool>,
    /// A `cancel task` line named this task.
    pub cancelled: bool,
}

impl Request {
    pub(crate) fn new(engine: Engine, slot: Option<u32>, task: Option<u64>, line: u64) -> Self {
        Request {
            engine,
            slot,
            task,
            line,
            prompt_tokens: None,
            prompt_ms: None,
            prompt_tps: None,
            gen_tokens: None,
            gen_ms: None,
            gen_tps: None,
            total_ms: None,
            graphs_reused: None,
            draft: None,
            selected_by: None,
            lcp_similarity: None,
            prompt_tokens_total: None,
            cached_tokens: None,
            cached_tokens_from: None,
            stopped: false,
            stop_n_tokens: None,
            truncated: None,
            cancelled: false,
        }
    }

    /// Where `cached_tokens` came from.
    pub fn cached_from(&self) -> Option<CachedFrom> {
        self.cached_tokens_from
    }

    /// The engine printed this request's timings.
    pub fn timed(&self) -> bool {
        self.prompt_tokens.is_some() || self.gen_tokens.is_some()
    }

    /// Cached prompt tokens from the release line, when no line named them: the slot's cache
    /// at release holds the cached prefix, the computed prompt and every generated token but
    /// the last (sampled, never decoded). Not derived across a context shift (`truncated`) or
    /// speculative decoding (rejected drafts are rolled back in ways the log does not show).
    pub(crate) fn derive_cached(&mut self) {
        if self.cached_tokens.is_some() || self.engine != Engine::LlamaCpp || self.draft.is_some() {
            return;
        }
        let (Some(n), Some(p), Some(g), Some(false)) = (
            self.stop_n_tokens,
            self.prompt_tokens,
            self.gen_tokens,
            self.truncated,
        ) else {
            return;
        };
        if g == 0 {
            return;
        }
        let (n, p, g) = (u64::from(n), u64::from(p), u64::from(g));
        if let Some(c) = (n + 1).checked_sub(p + g).and_then(small) {
            self.cached_tokens = Some(c);
            self.cached_tokens_from = Some(CachedFrom::Derived);
        }
    }
}

/// Everything one server process logged, before summarising.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    pub pid: Option<u32>,
    pub started_by: StartReason,
    /// 1-based line numbers of the instance's first and last lines.
    pub first_line: u64,
    pub last_line: u64,
    pub model_loaded: bool,
    pub requests: Vec<Request>,
    /// `cancel task` lines.
    pub cancelled_tasks: u64,
    /// Slot selections by kind, including those whose task left no other line.
    pub lcp_selections: u64,
    pub lru_selections: u64,
    /// `tg_3s` of the mid-generation `n_gen = …` lines: decode speed over 3 s windows.
    #[serde(skip)]
    pub windowed_tps: Vec<f64>,
}

/// Token counts are kept in 32 bits (a request's tokens, not a day's); a count past that is
/// garbage and dropped.
pub(crate) fn small(n: u64) -> Option<u32> {
    u32::try_from(n).ok()
}
