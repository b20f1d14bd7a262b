//! Each engine's prefix cache, as far as hits are concerned: which earlier prompts a request can
//! reuse, and what a new one pushes out.
//!
//! - **vLLM**: a pool of fixed-size blocks with an LRU free queue ([`Lru`] over the engine's
//!   block size).
//! - **SGLang**: a radix tree over tokens (pages of `--page-size` tokens, 1 by default), whose
//!   eviction pops the least recently accessed *leaf* until enough tokens are free
//!   (`RadixCache.evict` in sgl-project/sglang's python/sglang/srt/mem_cache/radix_cache.py: a heap
//!   of leaves by `last_access_time`, a parent pushed once its last child goes). A match stamps
//!   every node on its path (`_match_prefix_helper`), so a node is never older than its children:
//!   evicting leaves oldest first is evicting pages oldest first, the deepest first among equals,
//!   which is the [`Lru`] below over pages, with the pool `max_total_num_tokens` tokens. (The tree
//!   frees a whole leaf node, a run of tokens inserted together, where the replay frees pages one
//!   by one: it may keep a few pages SGLang dropped.)
//! - **llama.cpp**: `n` slots, each holding the tokens of its last request and nothing else
//!   ([`Slots`]). A request takes the idle slot whose tokens share the longest prefix with its
//!   prompt, if that prefix is more than `--slot-prompt-similarity` of the prompt (0.1 by default
//!   in llama.cpp's common/common.h; 0 turns it off); else the idle slot least recently used
//!   (`get_available_slot` in ggml-org/llama.cpp's tools/server/server-context.cpp). It reuses the
//!   common prefix of that slot's tokens and its prompt. llama.cpp's host-memory prompt cache
//!   (`--cache-ram`, which saves a slot's prompt before it is overwritten) is not replayed: run the
//!   server with `--cache-ram 0` for the rung to be its cache.

use serde::{Deserialize, Serialize};

use crate::lru::Lru;

/// The engine behind a replica, which picks its cache's replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Engine {
    #[serde(rename = "vllm")]
    Vllm,
    #[serde(rename = "sglang")]
    Sglang,
    #[serde(rename = "llama.cpp")]
    LlamaCpp,
    /// Any other engine: replayed as vLLM's LRU over blocks.
    #[serde(other, rename = "other")]
    Other,
}

impl Engine {
    /// How its cache is replayed, in a sentence.
    pub fn policy(self) -> &'static str {
        match self {
            Engine::Vllm | Engine::Other => "LRU over blocks",
            Engine::Sglang => "radix tree, least recently used leaves evicted",
            Engine::LlamaCpp => "slots, each keeping its last request",
        }
    }
}

/// llama.cpp's `--slot-prompt-similarity` where the server does not say (ggml-org/llama.cpp,
/// common/common.h).
pub const LLAMACPP_SLOT_SIMILARITY: f64 = 0.1;

/// One replica's cache in a replay.
pub(crate) enum Pool {
    Lru(Lru),
    Slots(Slots),
}

impl Pool {
    /// Leading units of `chain` a request could reuse here (for placement): the longest over
    /// the slots of a slot cache.
    pub(crate) fn leading(&self, chain: &[u64]) -> usize {
        match self {
            Pool::Lru(l) => l.leading(chain),
            Pool::Slots(s) => s
                .slots
                .iter()
                .map(|x| common(&x.chain, chain))
                .max()
                .unwrap_or(0),
        }
    }

    /// Request `i` is admitted: the units of `lookup` it reuses; it holds `blocks` (root first)
    /// until [`Pool::release`]. `prompt_units` is its prompt's length in units (for llama.cpp's
    /// similarity).
    pub(crate) fn admit(
        &mut self,
        i: usize,
        lookup: &[u64],
        blocks: &[u64],
        prompt_units: f64,
    ) -> usize {
        match self {
            Pool::Lru(l) => {
                let hit = l.leading(lookup);
                for h in blocks {
                    l.pin(*h);
                }
                hit
            }
            Pool::Slots(s) => s.admit(i, lookup, blocks, prompt_units),
        }
    }

    /// Request `i` ended: its blocks join the eviction queue deepest first (so its root is the
    /// most recent, as vLLM frees a request's blocks in reverse); its slot becomes idle.
    pub(crate) fn release(&mut self, i: usize, blocks: &[u64]) {
        match self {
            Pool::Lru(l) => {
                for h in blocks.iter().rev() {
                    l.unpin(*h);
                }
            }
            Pool::Slots(s) => s.release(i),
        }
    }
}

/// Leading units two chains share.
fn common(a: &[u64], b: &[u64]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

struct Slot {
    /// The units its last request computed (prompt and output), root first.
    chain: Vec<u64>,
    /// When it was last taken, in admissions (0: never).
    last_used: u64,
    /// The request running in it.
    holder: Option<usize>,
}

/// llama.cpp's slots.
pub(crate) struct Slots {
    slots: Vec<Slot>,
    similarity: f64,
    clock: u64,
}

impl Slots {
    pub(crate) fn new(n: usize, similarity: f64) -> Slots {
        Slots {
            slots: (0..n.max(1))
                .map(|_| Slot {
                    chain: Vec::new(),
                    last_used: 0,
                    holder: None,
                })
                .collect(),
            similarity,
            clock: 0,
        }
    }

    fn admit(&mut self, i: usize, lookup: &[u64], blocks: &[u64], prompt_units: f64) -> usize {
        let idle: Vec<usize> = (0..self.slots.len())
            .filter(|&k| self.slots[k].holder.is_none())
            .collect();
        // Every slot busy: llama.cpp queues the request until one ends; the replay, which
        // admits in order, gives it the least recently used slot.
        let candidates: Vec<usize> = if idle.is_empty() {
            (0..self.slots.len()).collect()
        } else {
            idle
        };
        let mut pick = None;
        if self.similarity != 0.0 {
            let mut best = 0.0;
            for &k in &candidates {
                let s = &self.slots[k];
                if s.chain.is_empty() {
                    continue;
                }
                let sim = common(&s.chain, lookup) as f64 / prompt_units.max(1.0);
                if sim > best && sim > self.similarity {
                    best = sim;
                    pick = Some(k);
                }
            }
        }
        // The least recently used; among equals the last one, as `<=` in llama.cpp's loop.
        let k = pick.unwrap_or_else(|| {
            let mut k = candidates[0];
            for &c in &candidates {
                if self.slots[c].last_used <= self.slots[k].last_used {
                    k = c;
                }
            }
            k
        });
        self.clock += 1;
        let s = &mut self.slots[k];
        let hit = common(&s.chain, lookup);
        s.chain.clear();
        s.chain.extend_from_slice(blocks);
        s.last_used = self.clock;
        s.holder = Some(i);
        hit
    }

    fn release(&mut self, i: usize) {
        for s in &mut self.slots {
            if s.holder == Some(i) {
                s.holder = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_takes_the_slot_that_shares_its_prefix_else_the_least_recent() {
        // Two slots, units of one token, similarity 0.5.
        let mut s = Slots::new(2, 0.5);
        // A = [1 2 3 4] into slot 0 (both empty: the least recent, the last among equals is
        // slot 1 in llama.cpp's loop).
        assert_eq!(s.admit(0, &[1, 2, 3], &[1, 2, 3, 4], 4.0), 0);
        s.release(0);
        let first = s
            .slots
            .iter()
            .position(|x| x.chain == [1, 2, 3, 4])
            .unwrap();
        assert_eq!(first, 1);
        // B = [9 9 9 9]: shares nothing, goes to the other (least recent) slot.
        assert_eq!(s.admit(1, &[9, 9, 9], &[9, 9, 9, 9], 4.0), 0);
        s.release(1);
        // C = [1 2 3 4 5 6]: 4 of 6 shared with A's slot (0.67 > 0.5): reuses 4 there.
        assert_eq!(s.admit(2, &[1, 2, 3, 4, 5], &[1, 2, 3, 4, 5, 6], 6.0), 4);
        s.release(2);
        assert_eq!(s.slots[first].chain, [1, 2, 3, 4, 5, 6]);
        // D = [1 2 7 7 7 7]: 2 of 6 shared (0.33, under 0.5): the least recent slot (B's),
        // which shares nothing.
        assert_eq!(s.admit(3, &[1, 2, 7, 7, 7], &[1, 2, 7, 7, 7, 7], 6.0), 0);
        // E = [1 2 3 4 5 6 8] while D runs: C's slot, 6 reused.
        assert_eq!(
            s.admit(4, &[1, 2, 3, 4, 5, 6], &[1, 2, 3, 4, 5, 6, 8], 7.0),
            6
        );
        s.release(3);
        s.release(4);
        // Similarity off (0): always the least recent slot, now D's: F = [1 2 9] reuses 2.
        s.similarity = 0.0;
        assert_eq!(s.admit(5, &[1, 2], &[1, 2, 9], 3.0), 2);
    }

    #[test]
    fn engines_are_spelled_as_headroom_spells_them() {
        let e: Vec<Engine> =
            serde_json::from_str(r#"["vllm","sglang","llama.cpp","tgi"]"#).unwrap();
        assert_eq!(
            e,
            [
                Engine::Vllm,
                Engine::Sglang,
                Engine::LlamaCpp,
                Engine::Other
            ]
        );
    }
}
