//! `headroom cachehit TRACE`: the prefix-cache hit-rate ladder of a request stream. The replays
//! live in the `cachehit` crate; this file reads the trace, applies the pool flags and renders.

use std::io::BufReader;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use cachehit::{Replica, Trace};

use crate::output::{self, Exit};

#[derive(clap::Args, Debug)]
#[command(after_help = "\
The trace is JSON lines, one record each (docs/cachehit.md has the format):
  {\"replica\":{\"name\":\"a\",\"num_blocks\":2000,\"block_size\":16}}
  {\"request\":{\"replica\":\"a\",\"conversation\":\"c1\",\"tokens\":[128000,9125,...],\"output_tokens\":87,
               \"t\":12.5,\"t_first\":12.61,\"t_end\":15.2}}
  {\"counters\":{\"replica\":\"a\",\"prefix_hits\":812304,\"prefix_queries\":1204118}}
Only `tokens` is required (or, with --tokenizer, `prompt` text or chat `messages`). Token ids \
must be the engine's own (the prompt as the engine \
tokenized it, chat template included): another tokenizer cuts other blocks. Without \
`conversation` ids, a prompt that extends an earlier prompt token for token continues its \
conversation. `output_tokens` lets a next turn hit the blocks its reply filled. The times \
(any clock, seconds) let the as-routed rung hold each request's blocks while it ran.

The rungs, each a replay of the same stream over each replica's cache, with its engine's policy:
  shareable        one cache that never evicts: what any cache could hit
  capacity-bound   one pool of all the replicas' blocks together
  reachable        each replica its own pool, each conversation kept on one replica, placed
                   where its prefix is cached, at the balance observed
  as routed        each replica its own pool, the router's own choices
  achieved         the engines' own prefix-cache counters over the same window
The policies (a replica record's `engine`; `headroom route --trace` writes it): vLLM (and an \
engine not named), LRU over blocks of its block size (vllm-project/vllm, \
vllm/v1/core/block_pool.py); SGLang, its radix tree over pages (1 token by default) in \
max_total_num_tokens, least recently used leaves evicted first (sgl-project/sglang, \
python/sglang/srt/mem_cache/radix_cache.py); llama.cpp, `slots` slots each keeping its last \
request, a request taking the idle slot sharing the longest prefix if over \
`slot_similarity` of its prompt (default 0.1), else the least recently used \
(ggml-org/llama.cpp, tools/server/server-context.cpp, get_available_slot; its --cache-ram \
prompt cache is not replayed: run it with --cache-ram 0). The capacity-bound rung's one pool \
takes the first replica's policy.

The achieved rung reads each replica's last counters record. A counter the engine created \
after the recording began (SGLang's cached-token counter appears at its first hit) is read as 0 \
at the start where the engine was the same process; the output says so.

Each gap between two rungs has one cause (workload, capacity, split, routing, engine), printed \
with its size in points and its fix. Held against a simulated engine's real block pool in six \
scenarios, every rung came within 1.9 points of what that configuration really hit.

Where the pools come from: vLLM logs `GPU KV cache size: N tokens` at start (vllm/v1/core/\
kv_cache_utils.py at v0.32.0; blocks are N over the block size, 16 by default) and exports \
num_gpu_blocks as a label of its cache config info metric, which `headroom route --trace` \
reads; give them as records or with --pool.

Behind a router that does not say where it sent a request (sglang-router, a load balancer): \
put one recording tap in front of each replica, point the router at the taps, and give the \
ladder every tap's file:
  headroom route --listen 127.0.0.1:9001 --backend http://10.0.0.1:8000 --trace a.jsonl
  headroom route --listen 127.0.0.1:9002 --backend http://10.0.0.2:8000 --trace b.jsonl
  headroom cachehit a.jsonl b.jsonl

Examples:
  headroom cachehit trace.jsonl
  headroom cachehit trace.jsonl --pool a=2000 --pool b=2000 --block-size 16
  headroom cachehit prompts.jsonl --block-size 16 --json | jq '.fleet.shareable'
  headroom cachehit dataset.jsonl --tokenizer http://localhost:8000 --pool all=2900
      (records like {\"request\":{\"messages\":[{\"role\":\"user\",\"content\":\"...\"}]}})

JSON schema: docs/json/cachehit.md (headroom.cachehit/1).
Exit codes: 0 the ladder was printed, 1 a trace could not be read (or recordings could not be \
merged).")]
pub struct Args {
    /// The trace (JSON lines); `-` reads standard input. Several recordings of one stream (one
    /// `headroom route --trace` tap in front of each replica, behind another router) are
    /// merged on their wall clocks into one stream.
    #[arg(required = true, value_name = "TRACE")]
    pub trace: Vec<PathBuf>,
    /// A replica's KV pool in blocks, NAME=BLOCKS (repeatable); replaces a replica record of the
    /// same name. A bare BLOCKS names the one replica `all`.
    #[arg(long, value_name = "NAME=BLOCKS")]
    pub pool: Vec<String>,
    /// Tokens per KV block, for replicas given by --pool (vLLM's default is 16; SGLang's radix
    /// cache works per page, 1 token by default: 1, with the pool in tokens).
    #[arg(long, value_name = "TOKENS")]
    pub block_size: Option<u32>,
    /// The engine whose tokenizer cuts prompts given as text (`prompt` or `messages` records),
    /// e.g. http://localhost:8000: its own /tokenize, chat template included, as it cuts them.
    /// Where a request gives token ids and text both, a sample of 64 is checked against it.
    #[arg(long, value_name = "URL")]
    pub tokenizer: Option<String>,
    /// Print the headroom.cachehit/1 JSON document instead of the text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: Args) -> Result<Exit> {
    if a.trace.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        bail!("standard input (-) can be read once");
    }
    let mut parts = Vec::with_capacity(a.trace.len());
    for path in &a.trace {
        let part = if path.as_os_str() == "-" {
            let t = Trace::read(std::io::stdin().lock())
                .context("reading the trace from standard input")?;
            ("standard input".to_string(), t)
        } else {
            let f =
                std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
            let t = Trace::read(BufReader::new(f))
                .with_context(|| format!("reading {}", path.display()))?;
            (path.display().to_string(), t)
        };
        parts.push(part);
    }
    let mut trace = Trace::merge(parts)?;
    if let Some(url) = &a.tokenizer {
        tokenize(&mut trace, url)?;
    }
    let recorded = trace.replicas.first().map(|r| r.block_size);
    let block_size = match (a.block_size, recorded) {
        (Some(b), Some(r)) if b != r => {
            bail!("--block-size {b} differs from the trace's replicas ({r} tokens per block)")
        }
        (Some(0), _) => bail!("--block-size must be at least 1"),
        (Some(b), _) | (None, Some(b)) => b,
        (None, None) => 16,
    };
    for p in &a.pool {
        let (name, blocks) = match p.split_once('=') {
            Some((n, b)) => (n.trim().to_string(), b),
            None => ("all".to_string(), p.as_str()),
        };
        let num_blocks: u64 = blocks.trim().parse().with_context(|| {
            format!("--pool {p}: BLOCKS must be a whole number of KV blocks (NAME=BLOCKS)")
        })?;
        // The engine a recording named stays: it picks the replay's policy.
        let was = trace.replicas.iter().find(|r| r.name == name).cloned();
        trace.replicas.retain(|r| r.name != name);
        trace.replicas.push(Replica {
            name,
            num_blocks,
            block_size,
            engine: was.as_ref().and_then(|r| r.engine),
            slots: was.as_ref().and_then(|r| r.slots),
            slot_similarity: was.as_ref().and_then(|r| r.slot_similarity),
        });
    }
    if a.block_size.is_none() && recorded.is_none() && !trace.replicas.is_empty() {
        eprintln!("blocks of 16 tokens assumed (vLLM's default): give --block-size otherwise");
    }
    let n = trace.requests.len();
    if n > 100_000 {
        eprintln!("replaying {n} requests ...");
    }
    trace.block_size = Some(block_size);
    let ladder = cachehit::ladder(trace)?;
    if ladder.replicas.is_empty() {
        eprintln!(
            "no replica records and no --pool: only the shareable rung can be answered \
             (blocks of {block_size} tokens)"
        );
    }
    if a.json {
        output::json(&ladder)?;
    } else {
        output::emit(&render::cachehit::render(&ladder))?;
    }
    Ok(Exit::Ok)
}

/// Cuts the trace's text prompts with the engine's tokenizer at `url`, with progress on stderr
/// when there are many.
fn tokenize(trace: &mut Trace, url: &str) -> Result<()> {
    let progress = |done: u64, total: u64| {
        if total >= 1000 && (done.is_multiple_of(1000) || done == total) {
            eprint!("\rtokenizing prompts: {done} of {total}");
            if done == total {
                eprintln!();
            }
        }
    };
    super::common::runtime()?
        .block_on(routetrace::tokenize::tokenize_trace(trace, url, progress))?;
    Ok(())
}
