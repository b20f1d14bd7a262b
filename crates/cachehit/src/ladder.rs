//! The ladder: each rung a replay of the same stream under fewer idealisations, so each gap
//! between two rungs has one cause.
//!
//! | rung             | replayed with                                               |
//! |------------------|-------------------------------------------------------------|
//! | shareable        | one cache that never evicts                                 |
//! | capacity-bound   | one cache the size of all the replicas' pools together      |
//! | reachable        | the replicas' own pools, each conversation kept on one      |
//! |                  | replica, placed where its prefix is cached (at the observed |
//! |                  | balance)                                                     |
//! | as routed        | the replicas' own pools, the router's own choices            |
//! | achieved         | nothing: the engines' counters                               |
//!
//! Each replica's cache is replayed with its engine's policy (crate::pool): LRU over blocks for
//! vLLM (and an engine the trace does not name), LRU over pages for SGLang's radix tree (which
//! evicts least recently used leaves: the same order), slots that keep their last request for
//! llama.cpp. The capacity-bound rung's one pool takes the first replica's policy. A running
//! request holds its blocks (they fill the pool and cannot be evicted); when it ends they join
//! the queue deepest first, so its root is the most recent, as vLLM frees a request's blocks in
//! reverse.
//!
//! Time: "as routed" replays the configuration the trace observed, so it uses the trace's own
//! times where every request has them (admission at the first token, release at the end). The
//! rungs that imagine another configuration (one pool, another placement) cannot borrow those
//! durations: a request ends as it is admitted, in arrival order. Borrowing them was tried once
//! while this was built, against the emulator test's scenarios: capacity-bound came out 5.3
//! points off in one of them, against 1.9 untimed (crates/cachehit/tests/emulator.rs holds the
//! untimed figure; the timed variant was not kept).
//!
//! Two requests admitted together both miss what neither has computed yet; a replay admits one
//! after the other, so at high concurrency of identical new prefixes a rung can exceed what an
//! engine would get by that much.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::{Deserialize, Serialize};

use crate::lru::Lru;
use crate::pool::{Engine, Pool, Slots, LLAMACPP_SLOT_SIMILARITY};
use crate::trace::{prepare, ConversationsFrom, Prepared, Replica, Trace, TraceError};

/// Hit tokens over prompt tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Share {
    pub hit_tokens: f64,
    pub prompt_tokens: f64,
}

impl Share {
    pub fn rate(&self) -> f64 {
        if self.prompt_tokens > 0.0 {
            self.hit_tokens / self.prompt_tokens
        } else {
            0.0
        }
    }
    fn add(&mut self, hit: f64, prompt: f64) {
        self.hit_tokens += hit;
        self.prompt_tokens += prompt;
    }
}

/// The rungs of one replica or of the fleet; `None` where the trace cannot say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rungs {
    pub shareable: Share,
    pub capacity_bound: Share,
    /// Fleet only: the best placement of conversations.
    pub reachable: Option<Share>,
    /// The router's own choices (needs each request's replica).
    pub as_routed: Option<Share>,
    /// The engines' counters (needs counters records).
    pub achieved: Option<Share>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplicaLadder {
    pub name: String,
    pub num_blocks: u64,
    /// How its cache was replayed: its engine's policy (crate::pool).
    #[serde(default)]
    pub policy: String,
    pub requests: u64,
    /// Counters read as 0 at the window's start because the engine created them since (its
    /// counters record's `created_late`): the achieved rung assumes so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counters_created_late: Vec<String>,
    /// Over this replica's own stream: shareable with an unbounded cache, capacity-bound with
    /// its pool (equal to its as-routed rung).
    pub rungs: Rungs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// Prompt tokens whose prefix never appeared before, in whole blocks.
    Workload,
    /// Evicted before they were asked for again.
    Capacity,
    /// A prefix shared by conversations on several replicas is computed once on each.
    Split,
    /// The router sent a request away from the replica that held its prefix.
    Routing,
    /// The engine hit less than a replay of its own stream.
    Engine,
}

/// One gap between two rungs, in percentage points of prompt tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gap {
    pub cause: Cause,
    pub points: f64,
    pub why: String,
    pub fix: String,
}

/// The document's schema tag.
pub const SCHEMA: &str = "headroom.cachehit/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ladder {
    pub schema: String,
    pub block_size: u32,
    /// The tokenizer that cut a trace of blocks (its stream record); `None` for token ids.
    pub tokenizer: Option<String>,
    /// Text prompts cut by the engine's tokenizer, and the trace's ids checked against it.
    #[serde(default)]
    pub tokenized: Option<crate::Tokenized>,
    pub requests: u64,
    pub conversations: u64,
    pub conversations_from: ConversationsFrom,
    /// The fleet's pool, blocks (sum of the replicas').
    pub pool_blocks: u64,
    /// Distinct blocks the stream leaves in a cache.
    pub distinct_blocks: u64,
    /// The smallest single pool whose capacity-bound rung is within [`WORKING_SET_POINTS`] of
    /// shareable: the pool that holds the working set.
    pub working_set_blocks: u64,
    pub fleet: Rungs,
    pub replicas: Vec<ReplicaLadder>,
    /// Largest first; gaps under [`SMALL_POINTS`] are left out.
    pub gaps: Vec<Gap>,
}

/// How close to shareable a pool must come to hold the working set, percentage points.
pub const WORKING_SET_POINTS: f64 = 1.0;
/// A gap smaller than this is not named, percentage points.
pub const SMALL_POINTS: f64 = 1.0;

/// Replays `stream` over `pools`, each request to the pool `place` picks; returns per-pool shares.
///
/// Timed (and every request has its times), a request looks up its prefix on admission (its
/// first token, else its arrival) and holds (pins) every block it will fill, output included,
/// until it ends; then its blocks join the eviction queue deepest first, so its root is the
/// most recent, as vLLM frees a request's blocks in reverse. Untimed, each request ends as it
/// is admitted, in arrival order.
fn replay(
    stream: &[Prepared],
    bs: f64,
    pools: &mut [Pool],
    timed: bool,
    mut place: impl FnMut(usize, &Prepared, &[Pool]) -> usize,
) -> Vec<Share> {
    let timed = timed && stream.iter().all(|q| q.span.is_some());
    let mut order: Vec<usize> = (0..stream.len()).collect();
    if timed {
        order.sort_by(|&a, &b| {
            let (sa, sb) = (
                stream[a].span.unwrap_or_default(),
                stream[b].span.unwrap_or_default(),
            );
            sa.0.total_cmp(&sb.0).then(a.cmp(&b))
        });
    }
    let mut shares = vec![Share::default(); pools.len()];
    // Requests still running: (end, index, pool), earliest end first.
    let mut running: BinaryHeap<Reverse<(Time, usize, usize)>> = BinaryHeap::new();
    for i in order {
        let q = &stream[i];
        if let (true, Some((t, _))) = (timed, q.span) {
            while let Some(Reverse((e, j, r))) = running.peek().copied() {
                if e.0 > t {
                    break;
                }
                running.pop();
                pools[r].release(j, &stream[j].blocks);
            }
        }
        let r = place(i, q, pools);
        let units = q.prompt_tokens as f64 / bs;
        let hit = pools[r].admit(i, &q.blocks[..q.lookup], &q.blocks, units);
        shares[r].add(hit as f64 * bs, q.prompt_tokens as f64);
        match (timed, q.span) {
            (true, Some((_, e))) => running.push(Reverse((Time(e), i, r))),
            _ => pools[r].release(i, &q.blocks),
        }
    }
    while let Some(Reverse((_, j, r))) = running.pop() {
        pools[r].release(j, &stream[j].blocks);
    }
    shares
}

/// A time that orders (the trace's times are finite: serde_json reads no NaN).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Time(f64);
impl Eq for Time {}
impl PartialOrd for Time {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Time {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

fn total(shares: &[Share]) -> Share {
    let mut t = Share::default();
    for s in shares {
        t.add(s.hit_tokens, s.prompt_tokens);
    }
    t
}

fn one_pool(stream: &[Prepared], bs: f64, capacity: usize) -> Share {
    replay(
        stream,
        bs,
        &mut [Pool::Lru(Lru::new(capacity))],
        false,
        |_, _, _| 0,
    )[0]
}

/// Each replica's cache, empty, with its engine's policy (crate::pool).
fn pools(replicas: &[Replica]) -> Vec<Pool> {
    replicas.iter().map(pool).collect()
}

fn pool(r: &Replica) -> Pool {
    match r.engine {
        Some(Engine::LlamaCpp) => Pool::Slots(Slots::new(
            r.slots.unwrap_or(1) as usize,
            r.slot_similarity.unwrap_or(LLAMACPP_SLOT_SIMILARITY),
        )),
        _ => Pool::Lru(Lru::new(
            usize::try_from(r.num_blocks).unwrap_or(usize::MAX),
        )),
    }
}

/// All the replicas' caches as one, with the first one's policy: their blocks (or slots)
/// together.
fn fleet_pool(replicas: &[Replica]) -> Pool {
    match replicas.first() {
        None => Pool::Lru(Lru::new(usize::MAX)),
        Some(first) => pool(&Replica {
            num_blocks: replicas
                .iter()
                .fold(0u64, |a, r| a.saturating_add(r.num_blocks)),
            slots: first
                .slots
                .map(|_| replicas.iter().map(|r| r.slots.unwrap_or(1)).sum()),
            ..first.clone()
        }),
    }
}

/// The best placement a router could make at the observed balance: a conversation stays where
/// its first request went; a new one goes to the replica holding the longest prefix of it,
/// among those not ahead of their share of requests (ties: the one furthest behind its share).
/// Returns each pool's share and each request's replica.
fn reachable(
    stream: &[Prepared],
    bs: f64,
    replicas: &[Replica],
    targets: &[f64],
) -> (Vec<Share>, Vec<usize>) {
    let mut pools = pools(replicas);
    let mut home: Vec<Option<usize>> = Vec::new();
    let mut sent = vec![0u64; replicas.len()];
    let mut placed = vec![0; stream.len()];
    let mut n = 0u64;
    let shares = replay(stream, bs, &mut pools, false, |i, q, pools| {
        if home.len() <= q.conversation {
            home.resize(q.conversation + 1, None);
        }
        let r = match home[q.conversation] {
            Some(r) => r,
            None => {
                let behind = |r: usize| targets[r] * (n + 1) as f64 - sent[r] as f64;
                let open: Vec<usize> = (0..pools.len()).filter(|&r| behind(r) > -1.0).collect();
                let best = open
                    .iter()
                    .copied()
                    .max_by(|&a, &b| {
                        let (ha, hb) = (
                            pools[a].leading(&q.blocks[..q.lookup]),
                            pools[b].leading(&q.blocks[..q.lookup]),
                        );
                        ha.cmp(&hb).then(behind(a).total_cmp(&behind(b)))
                    })
                    .unwrap_or(0);
                home[q.conversation] = Some(best);
                best
            }
        };
        sent[r] += 1;
        n += 1;
        placed[i] = r;
        r
    });
    (shares, placed)
}

/// The observed balance: each replica's share of the routed requests (equal shares when the
/// trace does not say where requests went).
fn balance(stream: &[Prepared], n: usize) -> (bool, Vec<f64>) {
    let routed = n > 0 && stream.iter().all(|q| q.replica.is_some());
    let mut sent = vec![0u64; n];
    for q in stream {
        if let Some(r) = q.replica {
            sent[r] += 1;
        }
    }
    let targets = if routed {
        sent.iter()
            .map(|s| *s as f64 / stream.len() as f64)
            .collect()
    } else {
        vec![1.0 / n.max(1) as f64; n]
    };
    (routed, targets)
}

/// The reachable rung's placement: for each request, the index of the replica it goes to.
/// (A router that wants that rung routes this way; the tests run it on real pools.)
pub fn placement(t: &Trace) -> Result<Vec<usize>, TraceError> {
    t.validate()?;
    if t.replicas.is_empty() {
        return Err(TraceError::NoReplicas);
    }
    let bs = t.replicas[0].block_size as usize;
    let (stream, _, _) = prepare(t, bs);
    let (_, targets) = balance(&stream, t.replicas.len());
    Ok(reachable(&stream, bs as f64, &t.replicas, &targets).1)
}

/// The ladder of a trace: every rung the trace allows, and the gaps between them.
/// The trace is consumed: its requests are freed once their block chains are taken, which halves
/// the peak memory of a long trace.
pub fn ladder(mut t: Trace) -> Result<Ladder, TraceError> {
    t.validate()?;
    // The stream in arrival order where every request says when it arrived: a recorder writes
    // each request when it ends.
    if t.requests.iter().all(|q| q.t.is_some()) {
        t.requests
            .sort_by(|a, b| a.t.unwrap_or_default().total_cmp(&b.t.unwrap_or_default()));
    }
    // Without replica records the fleet is one replica of unknown pool: only shareable is known,
    // and an unbounded pool stands in for capacity so that its rung equals shareable.
    let bs_u32 = t
        .replicas
        .first()
        .map(|r| r.block_size)
        .or(t.stream.as_ref().map(|s| s.block_size))
        .or(t.block_size)
        .unwrap_or(16)
        .max(1);
    let bs = bs_u32 as usize;
    let bsf = bs as f64;
    let (stream, conversations, conversations_from) = prepare(&t, bs);
    let t = Trace {
        requests: Vec::new(),
        ..t
    };
    let n = t.replicas.len();
    let pool_blocks: u64 = t.replicas.iter().map(|r| r.num_blocks).sum();

    // The pool that never evicts ends holding every distinct block the stream fills.
    let mut unbounded = [Pool::Lru(Lru::new(usize::MAX))];
    let shareable = replay(&stream, bsf, &mut unbounded, false, |_, _, _| 0)[0];
    let distinct_blocks = match &unbounded[0] {
        Pool::Lru(l) => l.len() as u64,
        Pool::Slots(_) => 0,
    };
    drop(unbounded);
    let capacity_bound = replay(
        &stream,
        bsf,
        &mut [fleet_pool(&t.replicas)],
        false,
        |_, _, _| 0,
    )[0];

    // The working set: bisect the pool size (LRU hits grow with capacity, as a stack algorithm).
    let goal = shareable.rate() - WORKING_SET_POINTS / 100.0;
    let (mut lo, mut hi) = (0usize, distinct_blocks as usize);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if one_pool(&stream, bsf, mid).rate() >= goal {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let working_set_blocks = lo as u64;

    let (routed, targets) = balance(&stream, n);
    let reach = (n > 0).then(|| reachable(&stream, bsf, &t.replicas, &targets).0);
    let as_routed: Option<Vec<Share>> = routed.then(|| {
        let mut pools = pools(&t.replicas);
        replay(&stream, bsf, &mut pools, true, |_, q, _| {
            q.replica.unwrap_or(0)
        })
    });
    // The last counters record of a replica is its delta over the trace (a recorder may
    // append a running delta as it goes).
    let last_counters: Vec<Option<&crate::Counters>> = t
        .replicas
        .iter()
        .map(|r| t.counters.iter().rev().find(|c| c.replica == r.name))
        .collect();
    let achieved: Vec<Option<Share>> = last_counters
        .iter()
        .map(|c| {
            c.map(|c| Share {
                hit_tokens: c.prefix_hits,
                prompt_tokens: c.prefix_queries,
            })
        })
        .collect();
    let fleet_achieved = (!achieved.is_empty() && achieved.iter().all(Option::is_some))
        .then(|| total(&achieved.iter().flatten().copied().collect::<Vec<_>>()));

    // Each replica's own stream with a cache that never evicts: one pass, a pool per replica.
    let own_shareable: Option<Vec<Share>> = routed.then(|| {
        let mut pools: Vec<Pool> = (0..n).map(|_| Pool::Lru(Lru::new(usize::MAX))).collect();
        replay(&stream, bsf, &mut pools, false, |_, q, _| {
            q.replica.unwrap_or(0)
        })
    });
    let replicas = t
        .replicas
        .iter()
        .enumerate()
        .map(|(r, rep)| {
            let routed_r = as_routed.as_ref().map(|v| v[r]);
            ReplicaLadder {
                name: rep.name.clone(),
                num_blocks: rep.num_blocks,
                policy: rep.engine.unwrap_or(Engine::Vllm).policy().to_string(),
                requests: stream.iter().filter(|q| q.replica == Some(r)).count() as u64,
                counters_created_late: last_counters[r]
                    .map(|c| c.created_late.clone())
                    .unwrap_or_default(),
                rungs: Rungs {
                    shareable: own_shareable.as_ref().map(|v| v[r]).unwrap_or_default(),
                    capacity_bound: routed_r.unwrap_or_default(),
                    reachable: None,
                    as_routed: routed_r,
                    achieved: achieved[r],
                },
            }
        })
        .collect();

    let fleet = Rungs {
        shareable,
        capacity_bound,
        reachable: reach.as_deref().map(total),
        as_routed: as_routed.as_deref().map(total),
        achieved: fleet_achieved,
    };
    let gaps = gaps(&fleet, bs_u32, pool_blocks, working_set_blocks, n);
    Ok(Ladder {
        schema: SCHEMA.into(),
        block_size: bs_u32,
        tokenizer: t.stream.as_ref().map(|s| s.tokenizer.clone()),
        tokenized: t.tokenized.clone(),
        requests: stream.len() as u64,
        conversations: conversations as u64,
        conversations_from,
        pool_blocks,
        distinct_blocks,
        working_set_blocks,
        fleet,
        replicas,
        gaps,
    })
}

fn gaps(f: &Rungs, bs: u32, pool: u64, working_set: u64, n: usize) -> Vec<Gap> {
    let pts = |a: f64, b: f64| (a - b) * 100.0;
    let mut out = vec![
        Gap {
            cause: Cause::Workload,
            points: pts(1.0, f.shareable.rate()),
            why: format!(
                "prompt tokens whose prefix never appeared earlier in whole blocks of {bs} tokens"
            ),
            fix: "none on the serving side: shared content (system prompt, tools, documents) \
                  must come first and be byte-identical for a prefix to repeat"
                .into(),
        },
        Gap {
            cause: Cause::Capacity,
            points: pts(f.shareable.rate(), f.capacity_bound.rate()),
            why: format!("evicted before asked for again: the pools hold {pool} blocks"),
            fix: format!(
                "a KV pool of {working_set} blocks in all holds the working set (capacity-bound \
                 within {WORKING_SET_POINTS} pt of shareable): more memory for KV (a higher GPU \
                 memory share, an fp8 KV cache, a shorter max model length) or more replicas"
            ),
        },
    ];
    let mut above = f.capacity_bound.rate();
    if let Some(r) = f.reachable {
        out.push(Gap {
            cause: Cause::Split,
            points: pts(above, r.rate()),
            why: format!(
                "prefixes shared across conversations are computed once on each of {n} replicas, \
                 and each replica has its own pool"
            ),
            fix: "none needed below a few points; above, fewer and larger replicas".into(),
        });
        above = r.rate();
    }
    if let Some(r) = f.as_routed {
        out.push(Gap {
            cause: Cause::Routing,
            points: pts(above, r.rate()),
            why: "requests sent away from the replica that held their prefix".into(),
            fix: "a prefix-aware policy that keeps each conversation on one replica \
                  (headroom route, sglang-router --policy cache_aware)"
                .into(),
        });
        above = r.rate();
    }
    if let Some(a) = f.achieved {
        out.push(Gap {
            cause: Cause::Engine,
            points: pts(above, a.rate()),
            why: "the engines hit less than a replay of the stream they were sent".into(),
            fix: "check that turns tokenize to the same prefix (/tokenize on two turns), and \
                  for cache_salt, LoRA adapters, or a cache reset in the window"
                .into(),
        });
    }
    out.retain(|g| g.points.abs() >= SMALL_POINTS);
    out.sort_by(|a, b| b.points.total_cmp(&a.points));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Request;

    fn req(tokens: Vec<u32>, replica: &str) -> Request {
        Request {
            t: None,
            t_first: None,
            t_end: None,
            replica: Some(replica.into()),
            conversation: None,
            tokens,
            blocks: None,
            prompt_tokens: None,
            output_tokens: 0,
            prompt: None,
            messages: None,
        }
    }

    fn replica(engine: Engine, num_blocks: u64, block_size: u32, slots: Option<u32>) -> Replica {
        Replica {
            name: "a".into(),
            num_blocks,
            block_size,
            engine: Some(engine),
            slots,
            slot_similarity: None,
        }
    }

    fn routed(t: Trace) -> Share {
        ladder(t).unwrap().fleet.as_routed.unwrap()
    }

    #[test]
    fn sglang_reuses_every_token_of_a_prefix_and_evicts_the_least_recent_leaf() {
        // Pages of 1 token, a pool of 12 tokens. A = 1..=8 (8 tokens), B = 1..=5 then 20, 21
        // (shares 5 tokens with A), C = A again.
        let a: Vec<u32> = (1..=8).collect();
        let b: Vec<u32> = vec![1, 2, 3, 4, 5, 20, 21];
        let t = Trace {
            replicas: vec![replica(Engine::Sglang, 12, 1, None)],
            requests: vec![req(a.clone(), "a"), req(b, "a"), req(a, "a")],
            ..Trace::default()
        };
        // A misses; B hits its 5 shared tokens (token-granular, not whole blocks), inserts 20
        // and 21: 10 tokens held. C hits 7 (its last token is always computed): A's leaf 6..8
        // was not evicted (10 ≤ 12).
        assert_eq!(routed(t.clone()).hit_tokens, 12.0);
        // A pool of 8 tokens: B's 2 new tokens push out A's least recent leaf tokens (8, then
        // 7; the shared path 1..5 is newer, stamped by B's match): C hits 1..6 only.
        let mut small = t.clone();
        small.replicas[0].num_blocks = 8;
        assert_eq!(routed(small).hit_tokens, 5.0 + 6.0);
        // The same stream in vLLM's blocks of 4: B hits one block (4 tokens) of its 5.
        let mut vllm = t;
        vllm.replicas[0] = replica(Engine::Vllm, 3, 4, None);
        assert_eq!(routed(vllm).hit_tokens, 4.0 + 4.0);
    }

    #[test]
    fn llama_cpp_reuses_only_what_its_slot_kept() {
        // One slot: A, B (unrelated), A again: B overwrote A's slot, the third request misses.
        let a: Vec<u32> = (1..=10).collect();
        let b: Vec<u32> = (50..=60).collect();
        let t = Trace {
            replicas: vec![replica(Engine::LlamaCpp, 0, 1, Some(1))],
            requests: vec![req(a.clone(), "a"), req(b, "a"), req(a, "a")],
            ..Trace::default()
        };
        let l = ladder(t.clone()).unwrap();
        assert_eq!(l.fleet.as_routed.unwrap().hit_tokens, 0.0);
        // An unbounded cache would have hit A's 9 reusable tokens again.
        assert_eq!(l.fleet.shareable.hit_tokens, 9.0);
        assert_eq!(l.replicas[0].policy, "slots, each keeping its last request");
        // Two slots: B takes the other one (A's shares nothing: LRU), A finds its slot.
        let mut two = t;
        two.replicas[0].slots = Some(2);
        assert_eq!(routed(two).hit_tokens, 9.0);
    }
}
