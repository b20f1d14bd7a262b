//! The request stream, one JSON record per line (JSONL), and its preparation into block chains.
//!
//! ```text
//! {"replica":{"name":"a","num_blocks":2000,"block_size":16}}
//! {"request":{"t":0.5,"replica":"a","conversation":"c1","tokens":[1,2,3],"output_tokens":40}}
//! {"counters":{"replica":"a","prefix_hits":3200,"prefix_queries":9000}}
//! ```
//!
//! `replica` records give each replica's KV pool; `request` records the stream in arrival order
//! (token ids as the engine tokenized them; `replica` is where the router sent it, `conversation`
//! is optional); `counters` are the engine's own prefix-cache counters over the same window
//! (deltas), the referee of "achieved".
//!
//! A trace that must not hold prompts (`headroom route --trace`) gives each request's `blocks`
//! instead of its tokens: the chain hash of each full block ([`block_hash`], 16 hex digits) and
//! `prompt_tokens`, after one `stream` record that says how the blocks were cut:
//!
//! ```text
//! {"stream":{"block_size":16,"tokenizer":"vLLM POST /tokenize of http://a:8000"}}
//! {"request":{"replica":"a","blocks":["9f1c03e2a4b5c6d7","0c0ffee000000001"],"prompt_tokens":40}}
//! ```

use std::collections::HashMap;
use std::io::BufRead;

use serde::{Deserialize, Serialize};

use crate::lru::HashIndex;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Record {
    Stream(Stream),
    Replica(Replica),
    Request(Request),
    Counters(Counters),
}

/// How the stream's blocks were cut: the block size and the tokenizer that gave the token ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stream {
    pub block_size: u32,
    pub tokenizer: String,
    /// The wall clock (Unix seconds) at t = 0: recordings made side by side (one tap per
    /// replica behind another router) are merged on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin_unix: Option<f64>,
    /// Where the chains start from a secret key instead of 0 ([`block_chain_keyed`]): a
    /// fingerprint of the key (16 hex digits), never the key. Blocks of a few tokens could be
    /// found again by trying the vocabulary; keyed, they cannot. Recordings merge only with the
    /// same key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// A block's chain hash, written as 16 hex digits (a JSON number above 2^53 loses digits in
/// most readers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockId(pub u64);

impl Serialize for BlockId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:016x}", self.0))
    }
}

impl<'de> Deserialize<'de> for BlockId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        u64::from_str_radix(&text, 16)
            .map(BlockId)
            .map_err(|_| serde::de::Error::custom(format!("block {text:?} is not 16 hex digits")))
    }
}

/// One replica's KV pool, as the engine reports it (vLLM: `num_gpu_blocks` and `block_size` of
/// its cache config).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replica {
    pub name: String,
    pub num_blocks: u64,
    pub block_size: u32,
    /// The engine (`vllm`, `sglang`, `llama.cpp`), whose cache policy the replays follow
    /// (crate::pool); absent, vLLM's LRU over blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<crate::pool::Engine>,
    /// llama.cpp: its slots (`--parallel`, `total_slots` of /props).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<u32>,
    /// llama.cpp: `--slot-prompt-similarity` (0.1 where not given, its default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot_similarity: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    /// Arrival, seconds (any origin); informational.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t: Option<f64>,
    /// When the first token came back, seconds on the same clock as `t`: the engine looked the
    /// prefix up when it admitted the request, just before, not when it arrived (a request that
    /// queued for memory finds the cache as it was then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_first: Option<f64>,
    /// When the response ended, seconds on the same clock as `t`: with both on every request,
    /// a request's blocks are touched again when the engine frees them, as its pool orders
    /// eviction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_end: Option<f64>,
    /// The replica the router chose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica: Option<String>,
    /// A conversation (session) id; without one, a request that extends an earlier prompt token
    /// for token continues that prompt's conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    /// The prompt's token ids (or `blocks` and `prompt_tokens`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<u32>,
    /// Instead of tokens: the chain hash of each of the prompt's full blocks, root first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<BlockId>>,
    /// With `blocks`: the prompt's length in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u32>,
    /// Tokens generated: their full blocks join the cache, and the next turn's prompt, which
    /// carries them back, can hit them.
    #[serde(default)]
    pub output_tokens: u32,
    /// The prompt as text (a completion's), for the engine's tokenizer to cut (`headroom
    /// cachehit --tokenizer URL`); beside `tokens`, it lets a sample of them be checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// The prompt as a chat's `messages` (OpenAI's form), likewise: the engine's chat
    /// template applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<serde_json::Value>,
}

impl Request {
    /// Whether the prompt is given as text (or messages) alone, with no token ids or blocks.
    pub fn untokenized(&self) -> bool {
        self.tokens.is_empty()
            && self.blocks.is_none()
            && (self.prompt.is_some() || self.messages.is_some())
    }
}

/// Text prompts cut by the engine's own tokenizer, and the trace's own token ids checked
/// against it on a sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tokenized {
    /// The engine's tokenizer asked, e.g. `vLLM POST /tokenize of http://a:8000`.
    pub endpoint: String,
    /// Requests given as text that it cut.
    pub requests: u64,
    /// The trace's token ids against the engine's, on requests that gave both.
    pub check: Option<TokenizerCheck>,
}

/// The trace's token ids against the engine's tokenizer on a sample of prompts: past the first
/// token where the two differ, the trace's blocks are not the engine's, so the share of tokens
/// past it bounds how much of the ladder rests on blocks the engine never cut.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenizerCheck {
    /// Prompts sampled (evenly over the stream).
    pub sampled: u64,
    /// Of them, those whose ids equal the engine's.
    pub identical: u64,
    /// The sampled prompts' tokens, as the trace gives them.
    pub tokens: u64,
    /// Of them, those at or past the first difference from the engine's ids.
    pub past_first_difference: u64,
}

/// The engine's prefix-cache counters over the trace's window (deltas since its start): tokens
/// served from the cache and prompt tokens looked up. A replica's last record counts, so a
/// recorder may append its running delta as it goes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counters {
    pub replica: String,
    pub prefix_hits: f64,
    pub prefix_queries: f64,
    /// Counters the engine did not export yet when the window began, read as 0 there
    /// (`prefix_hits`, `prefix_queries`): SGLang creates `sglang:cached_tokens_total` at its
    /// first cache hit. The recorder assumes so only when the engine is the same process at
    /// both ends (its start time, or its other counters did not go back).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created_late: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    /// Tokens per block where no replica record gives it (the caller's choice; 16 if unset).
    pub block_size: Option<u32>,
    /// How the blocks of a trace of blocks were cut.
    pub stream: Option<Stream>,
    pub replicas: Vec<Replica>,
    pub requests: Vec<Request>,
    pub counters: Vec<Counters>,
    /// Set where text prompts were cut by the engine's tokenizer (outside this crate, which
    /// does no I/O).
    pub tokenized: Option<Tokenized>,
}

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("line {line}, column {column}: {message}")]
    Parse {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("reading the trace: {0}")]
    Io(#[from] std::io::Error),
    #[error("the trace holds no request records")]
    Empty,
    #[error("replica {0:?} is described twice")]
    DuplicateReplica(String),
    #[error(
        "request {index} names replica {name:?}, which no replica record describes (known: \
         {known}): give its KV pool (a replica record, or --pool {name}=BLOCKS)"
    )]
    UnknownReplica {
        index: usize,
        name: String,
        known: String,
    },
    #[error("counters name replica {0:?}, which no replica record describes")]
    UnknownCounters(String),
    #[error("request {0} has no tokens")]
    EmptyPrompt(usize),
    #[error(
        "request {0} gives its prompt as text: give --tokenizer URL (the engine that serves it) \
         so that its blocks are cut as the engine cuts them"
    )]
    Untokenized(usize),
    #[error(
        "request {0} gives both tokens and blocks, or blocks without prompt_tokens, or more \
         blocks than its prompt_tokens fill"
    )]
    BadBlocks(usize),
    #[error(
        "request {0} gives blocks, but no stream record says how they were cut \
         ({{\"stream\":{{\"block_size\":16,\"tokenizer\":...}}}})"
    )]
    BlocksWithoutStream(usize),
    #[error(
        "the blocks were cut {cut} tokens at a time, the replicas' pools hold {pool}: the \
         hashes cannot be compared"
    )]
    StreamBlockSize { cut: u32, pool: u32 },
    #[error(
        "the replicas' block sizes differ ({0}): the ladder compares replicas block for block"
    )]
    MixedBlockSize(String),
    #[error("the trace describes no replica (a replica record gives its KV pool)")]
    NoReplicas,
    #[error("replica {0:?} has a block size of 0")]
    ZeroBlockSize(String),
    #[error("{0} cut its blocks {1} tokens at a time, {2} cut them {3} at a time")]
    MergeBlockSize(String, u32, String, u32),
    #[error(
        "{0} says no wall clock for its start (a stream record's origin_unix, which `headroom \
         route --trace` writes): several recordings are merged by time"
    )]
    MergeNoClock(String),
    #[error("{0}: request {1} has no arrival time (t): several recordings are merged by time")]
    MergeUntimed(String, usize),
    #[error(
        "{0} and {1} hashed their blocks with different keys (or one with none): give both taps \
         the same HEADROOM_TRACE_KEY"
    )]
    MergeKey(String, String),
    #[error("replica {0:?} is described differently in {1} and {2}")]
    MergeReplica(String, String, String),
}

impl Trace {
    /// Reads JSONL records; blank lines are skipped, a bad line is named by its number.
    pub fn read(r: impl BufRead) -> Result<Trace, TraceError> {
        let mut t = Trace::default();
        for (i, line) in r.lines().enumerate() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            let rec: Record = serde_json::from_str(&line).map_err(|e| {
                // serde's own location is within this one line: say which line of the file.
                let text = e.to_string();
                let message = match text.rfind(" at line ") {
                    Some(k) => text[..k].to_string(),
                    None => text,
                };
                TraceError::Parse {
                    line: i + 1,
                    column: e.column(),
                    message,
                }
            })?;
            match rec {
                Record::Stream(st) => t.stream = Some(st),
                Record::Replica(r) => t.replicas.push(r),
                Record::Request(mut r) => {
                    // The parser grows each list by doubling; a long trace keeps them all.
                    r.tokens.shrink_to_fit();
                    if let Some(b) = r.blocks.as_mut() {
                        b.shrink_to_fit();
                    }
                    t.requests.push(r);
                }
                Record::Counters(c) => t.counters.push(c),
            }
        }
        Ok(t)
    }

    /// Several recordings of one stream as one trace: one `headroom route --trace` tap in front
    /// of each replica, behind a router that does not say where it sent a request. Times are
    /// moved onto the earliest recording's clock by each stream record's `origin_unix`, and the
    /// requests ordered by arrival. `parts` are (name for messages, trace); one part is returned
    /// as it is.
    pub fn merge(mut parts: Vec<(String, Trace)>) -> Result<Trace, TraceError> {
        if parts.len() == 1 {
            return Ok(parts.remove(0).1);
        }
        let mut cut: Option<(String, u32)> = None;
        let mut key: Option<(String, Option<String>)> = None;
        for (name, t) in &parts {
            if let Some(st) = &t.stream {
                match &key {
                    Some((n0, k0)) if *k0 != st.key => {
                        return Err(TraceError::MergeKey(n0.clone(), name.clone()))
                    }
                    None => key = Some((name.clone(), st.key.clone())),
                    _ => {}
                }
                match &cut {
                    Some((n0, b0)) if *b0 != st.block_size => {
                        return Err(TraceError::MergeBlockSize(
                            n0.clone(),
                            *b0,
                            name.clone(),
                            st.block_size,
                        ))
                    }
                    None => cut = Some((name.clone(), st.block_size)),
                    _ => {}
                }
            }
        }
        let mut origins = Vec::with_capacity(parts.len());
        for (name, t) in &parts {
            if t.requests.is_empty() {
                origins.push(None);
                continue;
            }
            let origin = t.stream.as_ref().and_then(|s| s.origin_unix);
            let Some(origin) = origin else {
                return Err(TraceError::MergeNoClock(name.clone()));
            };
            if let Some(i) = t.requests.iter().position(|q| q.t.is_none()) {
                return Err(TraceError::MergeUntimed(name.clone(), i));
            }
            origins.push(Some(origin));
        }
        let zero = origins
            .iter()
            .flatten()
            .copied()
            .fold(f64::INFINITY, f64::min);
        let mut out = Trace::default();
        let mut tokenizers: Vec<String> = Vec::new();
        let mut described: HashMap<String, (String, Replica)> = HashMap::new();
        for ((name, t), origin) in parts.into_iter().zip(origins) {
            if let Some(st) = t.stream {
                if !tokenizers.contains(&st.tokenizer) {
                    tokenizers.push(st.tokenizer);
                }
            }
            out.block_size = out.block_size.or(t.block_size);
            for r in t.replicas {
                match described.get(&r.name) {
                    Some((_, seen)) if seen == &r => continue,
                    Some((first, _)) => {
                        return Err(TraceError::MergeReplica(r.name, first.clone(), name))
                    }
                    None => {
                        described.insert(r.name.clone(), (name.clone(), r.clone()));
                        out.replicas.push(r);
                    }
                }
            }
            let shift = origin.map_or(0.0, |o| o - zero);
            out.requests.extend(t.requests.into_iter().map(|mut q| {
                for x in [&mut q.t, &mut q.t_first, &mut q.t_end] {
                    if let Some(v) = x.as_mut() {
                        *v += shift;
                    }
                }
                q
            }));
            out.counters.extend(t.counters);
        }
        out.stream = cut.map(|(_, block_size)| Stream {
            block_size,
            tokenizer: tokenizers.join("; "),
            origin_unix: zero.is_finite().then_some(zero),
            key: key.and_then(|(_, k)| k),
        });
        out.requests
            .sort_by(|a, b| a.t.unwrap_or_default().total_cmp(&b.t.unwrap_or_default()));
        Ok(out)
    }

    /// Checks what the ladder relies on: named replicas exist, one block size, no empty prompt.
    pub fn validate(&self) -> Result<(), TraceError> {
        if self.requests.is_empty() {
            return Err(TraceError::Empty);
        }
        let mut names = HashMap::new();
        for r in &self.replicas {
            if r.block_size == 0 {
                return Err(TraceError::ZeroBlockSize(r.name.clone()));
            }
            if names.insert(r.name.as_str(), ()).is_some() {
                return Err(TraceError::DuplicateReplica(r.name.clone()));
            }
        }
        let sizes: Vec<String> = self
            .replicas
            .iter()
            .map(|r| format!("{} {}", r.name, r.block_size))
            .collect();
        if self
            .replicas
            .windows(2)
            .any(|w| w[0].block_size != w[1].block_size)
        {
            return Err(TraceError::MixedBlockSize(sizes.join(", ")));
        }
        let known = || {
            self.replicas
                .iter()
                .map(|r| r.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let known = || match known() {
            k if k.is_empty() => "none".to_string(),
            k => k,
        };
        if let (Some(st), Some(r)) = (&self.stream, self.replicas.first()) {
            if st.block_size != r.block_size {
                return Err(TraceError::StreamBlockSize {
                    cut: st.block_size,
                    pool: r.block_size,
                });
            }
        }
        for (index, q) in self.requests.iter().enumerate() {
            if q.untokenized() {
                return Err(TraceError::Untokenized(index));
            }
            match (&q.blocks, q.prompt_tokens) {
                (None, _) if q.tokens.is_empty() => return Err(TraceError::EmptyPrompt(index)),
                (None, _) => {}
                (Some(b), Some(n)) if q.tokens.is_empty() && n > 0 => {
                    let Some(st) = &self.stream else {
                        return Err(TraceError::BlocksWithoutStream(index));
                    };
                    if b.len() as u64 * u64::from(st.block_size.max(1)) > u64::from(n) {
                        return Err(TraceError::BadBlocks(index));
                    }
                }
                (Some(_), Some(0)) => return Err(TraceError::EmptyPrompt(index)),
                (Some(_), _) => return Err(TraceError::BadBlocks(index)),
            }
            if let Some(name) = &q.replica {
                if !names.contains_key(name.as_str()) {
                    return Err(TraceError::UnknownReplica {
                        index,
                        name: name.clone(),
                        known: known(),
                    });
                }
            }
        }
        for c in &self.counters {
            if !names.contains_key(c.replica.as_str()) {
                return Err(TraceError::UnknownCounters(c.replica.clone()));
            }
        }
        Ok(())
    }
}

/// Chain hash of one full block: FNV-1a 64 over the parent's hash and the block's token ids, so
/// equal hashes mean equal prefixes (what vLLM's block hashes and SGLang's radix paths both key).
pub fn block_hash(parent: u64, tokens: &[u32]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    };
    for b in parent.to_le_bytes() {
        eat(b);
    }
    for t in tokens {
        for b in t.to_le_bytes() {
            eat(b);
        }
    }
    h
}

/// The chain hashes of a prompt's full blocks, root first: what a trace of blocks holds in
/// place of the token ids (the partly filled last block is left out).
pub fn block_chain(tokens: &[u32], block_size: u32) -> Vec<BlockId> {
    block_chain_keyed(tokens, block_size, 0)
}

/// [`block_chain`] from a secret `key` in place of the root's parent: without the key, a chain
/// of short blocks cannot be matched against guessed tokens.
pub fn block_chain_keyed(tokens: &[u32], block_size: u32, key: u64) -> Vec<BlockId> {
    chain_from(tokens, block_size.max(1) as usize, key)
        .into_iter()
        .map(BlockId)
        .collect()
}

/// The fingerprint a stream record gives of its key: equal keys, equal fingerprints.
pub fn key_fingerprint(key: u64) -> String {
    format!("{:016x}", block_hash(block_hash(key, &[]), &[0x6b6579]))
}

fn chain(tokens: &[u32], bs: usize) -> Vec<u64> {
    chain_from(tokens, bs, 0)
}

fn chain_from(tokens: &[u32], bs: usize, root: u64) -> Vec<u64> {
    let mut parent = root;
    tokens
        .chunks_exact(bs)
        .map(|c| {
            parent = block_hash(parent, c);
            parent
        })
        .collect()
}

/// One request as the replays see it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Prepared {
    pub prompt_tokens: u64,
    /// Every block the request holds, root first: the prompt's full blocks, those its output
    /// completes, and the partly filled last one (which is never cached).
    pub blocks: Vec<u64>,
    /// How many leading blocks a lookup may hit: the engine always computes the prompt's last
    /// token, so at most ⌊(len − 1) / block⌋ (vLLM, SGLang and llama.cpp alike).
    pub lookup: usize,
    /// Index into the replicas, where the router sent it.
    pub replica: Option<usize>,
    pub conversation: usize,
    /// Admission (first token, else arrival) and end, when the trace has both.
    pub span: Option<(f64, f64)>,
}

/// How conversations were known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConversationsFrom {
    /// The trace's `conversation` ids.
    Trace,
    /// A request that extends an earlier prompt token for token continues its conversation.
    Inferred,
}

/// Block chains, conversations, and the output blocks each request leaves for its next turn.
pub(crate) fn prepare(t: &Trace, bs: usize) -> (Vec<Prepared>, usize, ConversationsFrom) {
    let chains: Vec<Vec<u64>> = t
        .requests
        .iter()
        .map(|q| match &q.blocks {
            Some(b) => b.iter().map(|h| h.0).collect(),
            None => chain(&q.tokens, bs),
        })
        .collect();
    let len = |q: &Request| q.prompt_tokens.map_or(q.tokens.len(), |n| n as usize);
    let by_name: HashMap<&str, usize> = t
        .replicas
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name.as_str(), i))
        .collect();
    let explicit = t.requests.iter().all(|q| q.conversation.is_some());
    // Each request's predecessor in its conversation (if any) and its conversation number.
    let mut pred: Vec<Option<usize>> = vec![None; t.requests.len()];
    let mut conv: Vec<usize> = vec![0; t.requests.len()];
    let mut n_conv = 0usize;
    if explicit {
        let mut last: HashMap<&str, (usize, usize)> = HashMap::new();
        for (i, q) in t.requests.iter().enumerate() {
            let id = q.conversation.as_deref().unwrap_or_default();
            match last.get(id) {
                Some(&(p, c)) => {
                    pred[i] = Some(p);
                    conv[i] = c;
                }
                None => {
                    conv[i] = n_conv;
                    n_conv += 1;
                }
            }
            last.insert(id, (i, conv[i]));
        }
    } else {
        // Whole-prompt fingerprints of earlier requests; a later prompt that has one as a prefix
        // (the longest) continues it. Cost: one lookup per prompt token. A request given as
        // blocks is fingerprinted by its last full block: a later prompt holding that block
        // continues it (its partly filled tail cannot be compared).
        let mut whole: HashIndex<usize> = HashIndex::default();
        let mut last_block: HashIndex<usize> = HashIndex::default();
        for (i, q) in t.requests.iter().enumerate() {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            let mut best = None;
            for (k, tok) in q.tokens.iter().enumerate() {
                h = (h ^ u64::from(*tok)).wrapping_mul(0x0000_0100_0000_01b3);
                if let Some(&p) = whole.get(&h) {
                    if t.requests[p].tokens.len() == k + 1 && t.requests[p].tokens == q.tokens[..=k]
                    {
                        best = Some(p);
                    }
                }
            }
            for b in &chains[i] {
                if let Some(&p) = last_block.get(b) {
                    if best.is_none_or(|bp: usize| len(&t.requests[bp]) < len(&t.requests[p])) {
                        best = Some(p);
                    }
                }
            }
            match best {
                Some(p) => {
                    pred[i] = Some(p);
                    conv[i] = conv[p];
                }
                None => {
                    conv[i] = n_conv;
                    n_conv += 1;
                }
            }
            if q.blocks.is_some() {
                if let Some(b) = chains[i].last() {
                    last_block.insert(*b, i);
                }
            } else {
                whole.insert(h, i);
            }
        }
    }
    // The successor whose prompt carries this request's output back.
    let mut succ: Vec<Option<usize>> = vec![None; t.requests.len()];
    for (i, p) in pred.iter().enumerate() {
        if let Some(p) = *p {
            let (qp, qi) = (&t.requests[p], &t.requests[i]);
            let extends = if qp.blocks.is_none() && qi.blocks.is_none() {
                let (a, b) = (&qp.tokens, &qi.tokens);
                b.len() >= a.len() && b[..a.len()] == a[..]
            } else {
                let (a, b) = (&chains[p], &chains[i]);
                len(qi) >= len(qp) && b.len() >= a.len() && b[..a.len()] == a[..]
            };
            if succ[p].is_none() && extends {
                succ[p] = Some(i);
            }
        }
    }
    // Each request's chain moves into its Prepared; a successor (always later) is still there
    // to lend its hashes to the blocks its predecessor's output filled.
    let mut chains = chains;
    let mut prepared = Vec::with_capacity(t.requests.len());
    for (i, q) in t.requests.iter().enumerate() {
        let len = len(q);
        let out = q.output_tokens as usize;
        // The last sampled token is never computed, so it fills no block.
        let computed = if out == 0 { len } else { len + out - 1 };
        let full = computed / bs;
        let mut blocks = std::mem::take(&mut chains[i]);
        let prompt_blocks = blocks.len();
        for b in blocks.len()..full {
            let h = match succ[i] {
                Some(s) if b < chains[s].len() => chains[s][b],
                // Output no later prompt carries: it fills the pool and never hits.
                _ => block_hash(u64::MAX - i as u64, &[b as u32]),
            };
            blocks.push(h);
        }
        if computed % bs != 0 {
            // The partly filled last block: held while the request runs, never cached.
            blocks.push(block_hash(u64::MAX - i as u64, &[full as u32]));
        }
        prepared.push(Prepared {
            prompt_tokens: len as u64,
            blocks,
            // A trace of blocks may give fewer than the prompt fills: look up only those.
            lookup: ((len - 1) / bs).min(prompt_blocks),
            replica: q.replica.as_deref().and_then(|n| by_name.get(n).copied()),
            conversation: conv[i],
            span: q.t_first.or(q.t).zip(q.t_end),
        });
    }
    let from = if explicit {
        ConversationsFrom::Trace
    } else {
        ConversationsFrom::Inferred
    };
    (prepared, n_conv, from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(tokens: Vec<u32>, out: u32) -> Request {
        Request {
            t: None,
            t_first: None,
            t_end: None,
            replica: None,
            conversation: None,
            blocks: None,
            prompt_tokens: None,
            tokens,
            output_tokens: out,
            prompt: None,
            messages: None,
        }
    }

    #[test]
    fn records_round_trip_and_a_bad_line_is_named() {
        let text = r#"{"replica":{"name":"a","num_blocks":10,"block_size":4}}

{"request":{"replica":"a","tokens":[1,2,3,4,5],"output_tokens":3}}
{"counters":{"replica":"a","prefix_hits":0,"prefix_queries":5}}
"#;
        let t = Trace::read(text.as_bytes()).unwrap();
        assert_eq!(
            (t.replicas.len(), t.requests.len(), t.counters.len()),
            (1, 1, 1)
        );
        t.validate().unwrap();
        let bad = "{\"request\":{\"tokens\":[1]}}\n{\"request\":{\"tokenz\":[1]}}\n";
        let e = Trace::read(bad.as_bytes()).unwrap_err().to_string();
        assert!(
            e.starts_with("line 2, column 20: unknown field `tokenz`"),
            "{e}"
        );
    }

    #[test]
    fn validation_names_what_is_wrong() {
        let mut t = Trace {
            block_size: None,
            stream: None,
            replicas: vec![Replica {
                name: "a".into(),
                num_blocks: 4,
                block_size: 16,
                engine: None,
                slots: None,
                slot_similarity: None,
            }],
            requests: vec![req(vec![1], 0)],
            counters: vec![],
            tokenized: None,
        };
        t.requests[0].replica = Some("b".into());
        let e = t.validate().unwrap_err().to_string();
        assert!(e.contains("\"b\"") && e.contains("known: a"), "{e}");
        t.requests[0].replica = None;
        t.replicas.push(Replica {
            name: "c".into(),
            num_blocks: 4,
            block_size: 32,
            engine: None,
            slots: None,
            slot_similarity: None,
        });
        assert!(matches!(t.validate(), Err(TraceError::MixedBlockSize(_))));
    }

    #[test]
    fn a_turn_that_extends_a_prompt_continues_it_and_hits_its_output_blocks() {
        // Block size 4. Turn 1: 6 prompt tokens + 7 output (12 computed: 3 full blocks).
        // Turn 2 carries all 13 back plus 3 new tokens.
        let t1: Vec<u32> = (0..6).collect();
        let mut t2: Vec<u32> = (0..13).collect();
        t2.extend([90, 91, 92]);
        let other: Vec<u32> = (100..110).collect();
        let trace = Trace {
            requests: vec![req(t1, 7), req(other, 0), req(t2.clone(), 0)],
            ..Trace::default()
        };
        let (p, n, from) = prepare(&trace, 4);
        assert_eq!((n, from), (2, ConversationsFrom::Inferred));
        assert_eq!(p[2].conversation, p[0].conversation);
        assert_ne!(p[1].conversation, p[0].conversation);
        // Turn 1 fills exactly 3 blocks (no partial one), the third is turn 2's third block.
        assert_eq!(p[0].blocks.len(), 3);
        assert_eq!(p[0].lookup, 1);
        assert_eq!(p[0].blocks[..], chain(&t2, 4)[..3]);
        // Turn 2 may hit ⌊15/4⌋ = 3 blocks.
        assert_eq!(p[2].lookup, 3);
    }

    #[test]
    fn a_block_chain_is_the_hashes_the_replay_cuts() {
        let tokens: Vec<u32> = (0..10).collect();
        let ids = block_chain(&tokens, 4);
        assert_eq!(ids.len(), 2);
        assert_eq!(
            ids.iter().map(|b| b.0).collect::<Vec<_>>(),
            chain(&tokens, 4)
        );
    }

    fn tap(name: &str, origin: Option<f64>, times: &[f64]) -> (String, Trace) {
        let trace = Trace {
            stream: Some(Stream {
                block_size: 4,
                tokenizer: format!("vLLM POST /tokenize of {name}"),
                origin_unix: origin,
                key: None,
            }),
            replicas: vec![Replica {
                name: name.into(),
                num_blocks: 10,
                block_size: 4,
                engine: None,
                slots: None,
                slot_similarity: None,
            }],
            requests: times
                .iter()
                .map(|&t| Request {
                    t: Some(t),
                    t_end: Some(t + 0.5),
                    replica: Some(name.into()),
                    ..req(vec![1, 2, 3, 4, 5], 1)
                })
                .collect(),
            counters: vec![Counters {
                replica: name.into(),
                prefix_hits: 4.0,
                prefix_queries: 10.0,
                created_late: Vec::new(),
            }],
            ..Trace::default()
        };
        (format!("{name}.jsonl"), trace)
    }

    #[test]
    fn taps_merge_on_the_wall_clock_in_arrival_order() {
        // b started recording 2 s after a: its t = 0.5 is a's t = 2.5.
        let merged = Trace::merge(vec![
            tap("a", Some(1000.0), &[1.0, 3.0]),
            tap("b", Some(1002.0), &[0.5]),
        ])
        .unwrap();
        merged.validate().unwrap();
        let order: Vec<(Option<&str>, Option<f64>, Option<f64>)> = merged
            .requests
            .iter()
            .map(|q| (q.replica.as_deref(), q.t, q.t_end))
            .collect();
        assert_eq!(
            order,
            [
                (Some("a"), Some(1.0), Some(1.5)),
                (Some("b"), Some(2.5), Some(3.0)),
                (Some("a"), Some(3.0), Some(3.5))
            ]
        );
        assert_eq!(merged.replicas.len(), 2);
        assert_eq!(merged.counters.len(), 2);
        let st = merged.stream.unwrap();
        assert_eq!((st.block_size, st.origin_unix), (4, Some(1000.0)));
        assert!(st.tokenizer.contains(" of a") && st.tokenizer.contains(" of b"));
    }

    #[test]
    fn merging_refuses_what_cannot_be_put_on_one_clock() {
        let e = Trace::merge(vec![tap("a", Some(1.0), &[1.0]), tap("b", None, &[1.0])]);
        assert!(
            matches!(e, Err(TraceError::MergeNoClock(ref n)) if n == "b.jsonl"),
            "{e:?}"
        );
        let (n, mut untimed) = tap("b", Some(1.0), &[1.0]);
        untimed.requests[0].t = None;
        let e = Trace::merge(vec![tap("a", Some(1.0), &[1.0]), (n, untimed)]);
        assert!(matches!(e, Err(TraceError::MergeUntimed(_, 0))), "{e:?}");
        let (n, mut cut8) = tap("b", Some(1.0), &[1.0]);
        cut8.stream.as_mut().unwrap().block_size = 8;
        let e = Trace::merge(vec![tap("a", Some(1.0), &[1.0]), (n, cut8)]);
        assert!(
            matches!(e, Err(TraceError::MergeBlockSize(_, 4, _, 8))),
            "{e:?}"
        );
        let (_, mut again) = tap("a", Some(1.0), &[2.0]);
        again.replicas[0].num_blocks = 20;
        let e = Trace::merge(vec![tap("a", Some(1.0), &[1.0]), ("a2".into(), again)]);
        assert!(matches!(e, Err(TraceError::MergeReplica(..))), "{e:?}");
    }
}
