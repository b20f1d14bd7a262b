//! "Why is my prefix-cache hit rate low?": the hit-rate ladder.
//!
//! A request stream (token ids, the replica each went to, the replicas' KV pools and the
//! engines' own counters) is replayed under fewer and fewer idealisations, from a cache that
//! never evicts down to the router's real choices, and set against the engines' counters. Each
//! gap between two rungs has one cause (the workload, capacity, the split across replicas,
//! routing, the engine) and one fix. See [`ladder`] for the rungs.

pub mod hash;
pub mod ladder;
mod lru;
pub mod pool;
pub mod trace;

pub use ladder::{ladder, placement, Cause, Gap, Ladder, ReplicaLadder, Rungs, Share, SCHEMA};
pub use pool::Engine;
pub use trace::{
    block_chain, block_chain_keyed, block_hash, key_fingerprint, BlockId, ConversationsFrom,
    Counters, Record, Replica, Request, Stream, Tokenized, TokenizerCheck, Trace, TraceError,
};
