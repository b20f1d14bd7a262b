//! The discrete-step continuous-batching engine, shaped after vLLM V1's scheduler.
//!
//! Each [`Engine::step`]:
//! 1. schedules the running requests first, in order: a decode row is one token, an unfinished
//!    prompt is a chunk of at most the remaining `--max-num-batched-tokens` budget. When a
//!    request's next tokens need a KV block and none is free, the last running request is
//!    preempted (its blocks freed, its progress dropped: recompute), possibly itself;
//! 2. if nothing was preempted, admits waiting requests in arrival order while the budget lasts,
//!    fewer than `--max-num-seqs` run, and the pool has blocks for the first chunk (after a
//!    prefix-cache hit). A request that does not fit blocks the queue behind it;
//! 3. takes the step's time from the roofline ([`crate::cost::step_time`]), advances the
//!    simulated clock, and samples one token for every request whose known tokens are all
//!    computed. A request finishes at its `max_tokens` (or at `--max-model-len`).
//!
//! Metrics are recorded as vLLM does (times measured from arrival), plus the step ledger.

use std::collections::VecDeque;

use serde::Serialize;

use crate::args::EngineArgs;
use crate::cost::{layout, step_time, Figures, Layout, StepLoad};
use crate::kv::{block_hash, BlockPool, IdMap};
use crate::metrics::{EngineMetrics, Exposition};
use crate::tokenizer::output_token;

pub type ReqId = u64;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FinishReason {
    Stop,
    Length,
    Abort,
}

impl FinishReason {
    pub fn as_str(self) -> &'static str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
            FinishReason::Abort => "abort",
        }
    }

    fn index(self) -> usize {
        match self {
            FinishReason::Stop => 0,
            FinishReason::Length => 1,
            FinishReason::Abort => 2,
        }
    }
}

/// Token counts of one request, as the OpenAI `usage` object reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    /// Prompt tokens served from the prefix cache at the request's first admission.
    pub cached_tokens: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finished {
    pub id: ReqId,
    pub reason: FinishReason,
    pub usage: Usage,
}

/// A generated token: the request, its position in the output (0-based) and its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Emitted {
    pub id: ReqId,
    pub index: u32,
    pub token: u32,
}

/// What one step did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepOutput {
    /// Simulated seconds the step took (0 when nothing could be scheduled).
    pub dt: f64,
    pub tokens: Vec<Emitted>,
    pub finished: Vec<Finished>,
    /// Requests scheduled, and how many of them carried a prefill chunk.
    pub scheduled: usize,
    pub prefill_chunks: usize,
    pub preempted: usize,
}

/// Why a request was refused at the door (HTTP 400 on a real server).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Reject {
    #[error("the prompt is empty")]
    EmptyPrompt,
    #[error(
        "This model's maximum context length is {max_model_len} tokens. However, you requested \
         {total} tokens ({prompt} in the messages, {max_tokens} in the completion). Please \
         reduce the length of the messages or completion."
    )]
    TooLong {
        max_model_len: u32,
        total: u64,
        prompt: u32,
        max_tokens: u32,
    },
    #[error(
        "the emulated KV pool holds {capacity} tokens and this request needs {needed}: it could \
         never run (raise --gpu-memory-utilization or lower --max-model-len)"
    )]
    PoolTooSmall { capacity: usize, needed: u64 },
}

#[derive(Debug, Clone)]
struct Seq {
    tokens: Vec<u32>,
    prompt_len: usize,
    max_tokens: usize,
    max_tokens_param: Option<u32>,
    num_computed: usize,
    blocks: Vec<u32>,
    /// Chain hashes of the full blocks of `tokens`, computed as needed.
    hashes: Vec<u64>,
    /// Leading blocks already registered in the prefix cache.
    registered: usize,
    arrival: f64,
    scheduled_at: Option<f64>,
    first_token_at: Option<f64>,
    last_token_at: Option<f64>,
    cached_tokens: usize,
}

impl Seq {
    fn output_len(&self) -> usize {
        self.tokens.len() - self.prompt_len
    }

    fn ensure_hashes(&mut self, full_blocks: usize, bs: usize) {
        while self.hashes.len() < full_blocks {
            let b = self.hashes.len();
            let parent = if b == 0 { 0 } else { self.hashes[b - 1] };
            self.hashes
                .push(block_hash(parent, &self.tokens[b * bs..(b + 1) * bs]));
        }
    }
}

#[derive(Debug, Clone)]
pub struct Engine {
    args: EngineArgs,
    fig: Figures,
    layout: Layout,
    pool: BlockPool,
    now: f64,
    seqs: IdMap<Seq>,
    waiting: VecDeque<ReqId>,
    running: Vec<ReqId>,
    next_id: ReqId,
    metrics: EngineMetrics,
    /// The prefix the step ledger is exported under (`vllm` unless set).
    ledger_prefix: String,
}

impl Engine {
    pub fn new(args: EngineArgs, fig: Figures) -> Engine {
        let bs = args.block_size as usize;
        let layout = layout(
            &fig,
            args.gpu_memory_utilization,
            args.max_num_batched_tokens,
            args.max_model_len,
            bs,
        );
        let pool = BlockPool::new(layout.num_gpu_blocks, bs, args.enable_prefix_caching);
        let metrics = EngineMetrics::new(args.max_model_len);
        Engine {
            args,
            fig,
            layout,
            pool,
            now: 0.0,
            seqs: IdMap::default(),
            waiting: VecDeque::new(),
            running: Vec::new(),
            next_id: 0,
            metrics,
            ledger_prefix: "vllm".to_string(),
        }
    }

    pub fn args(&self) -> &EngineArgs {
        &self.args
    }

    pub fn figures(&self) -> &Figures {
        &self.fig
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn metrics(&self) -> &EngineMetrics {
        &self.metrics
    }

    /// Simulated seconds since the engine started.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Moves the clock forward over idle time (never back).
    pub fn advance_to(&mut self, t: f64) {
        if t > self.now {
            self.now = t;
        }
    }

    pub fn has_work(&self) -> bool {
        !self.running.is_empty() || !self.waiting.is_empty()
    }

    pub fn num_running(&self) -> usize {
        self.running.len()
    }

    pub fn num_waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Checks a request against the limits a real server enforces at the door, and resolves
    /// its output length (`max_tokens` absent = up to `--max-model-len`).
    pub fn check(&self, prompt_len: usize, max_tokens: Option<u32>) -> Result<u32, Reject> {
        if prompt_len == 0 {
            return Err(Reject::EmptyPrompt);
        }
        let mml = self.args.max_model_len;
        let prompt = u32::try_from(prompt_len).unwrap_or(u32::MAX);
        let too_long = |max_tokens: u32| Reject::TooLong {
            max_model_len: mml,
            total: u64::from(prompt) + u64::from(max_tokens),
            prompt,
            max_tokens,
        };
        if prompt >= mml {
            return Err(too_long(max_tokens.unwrap_or(0)));
        }
        let mt = max_tokens.unwrap_or(mml - prompt).max(1);
        let total = u64::from(prompt) + u64::from(mt);
        if total > u64::from(mml) {
            return Err(too_long(mt));
        }
        // The last generated token never needs KV; everything before it does.
        if total - 1 > self.layout.kv_capacity_tokens as u64 {
            return Err(Reject::PoolTooSmall {
                capacity: self.layout.kv_capacity_tokens,
                needed: total - 1,
            });
        }
        Ok(mt)
    }

    /// Queues a request that arrived at simulated time `arrival`.
    pub fn add_request(
        &mut self,
        prompt: Vec<u32>,
        max_tokens: Option<u32>,
        arrival: f64,
    ) -> Result<ReqId, Reject> {
        let mt = self.check(prompt.len(), max_tokens)?;
        let id = self.next_id;
        self.next_id += 1;
        let prompt_len = prompt.len();
        let mut tokens = prompt;
        tokens.reserve(mt as usize);
        self.seqs.insert(
            id,
            Seq {
                tokens,
                prompt_len,
                max_tokens: mt as usize,
                max_tokens_param: max_tokens,
                num_computed: 0,
                blocks: Vec::new(),
                hashes: Vec::new(),
                registered: 0,
                arrival,
                scheduled_at: None,
                first_token_at: None,
                last_token_at: None,
                cached_tokens: 0,
            },
        );
        self.waiting.push_back(id);
        self.metrics.waiting = self.waiting.len() as f64;
        Ok(id)
    }

    /// Drops a request (the client went away). Returns its usage when it was known.
    pub fn abort(&mut self, id: ReqId) -> Option<Usage> {
        let s = self.seqs.remove(&id)?;
        self.waiting.retain(|&w| w != id);
        self.running.retain(|&r| r != id);
        self.pool.free(&s.blocks);
        self.metrics.success[FinishReason::Abort.index()] += 1.0;
        self.refresh_gauges();
        Some(Usage {
            prompt_tokens: s.prompt_len as u32,
            completion_tokens: s.output_len() as u32,
            cached_tokens: s.cached_tokens as u32,
        })
    }

    fn refresh_gauges(&mut self) {
        self.metrics.running = self.running.len() as f64;
        self.metrics.waiting = self.waiting.len() as f64;
        self.metrics.kv_usage = self.pool.usage();
    }

    /// Grows a running request's blocks to hold `upto` tokens.
    fn grow(&mut self, id: ReqId, upto: usize) -> bool {
        let bs = self.pool.block_size();
        let s = self.seqs.get_mut(&id).expect("running request exists");
        let need = upto.div_ceil(bs).saturating_sub(s.blocks.len());
        if need == 0 {
            return true;
        }
        match self.pool.allocate(need) {
            Some(b) => {
                s.blocks.extend(b);
                true
            }
            None => false,
        }
    }

    fn preempt(&mut self, id: ReqId) {
        let s = self.seqs.get_mut(&id).expect("preempted request exists");
        self.pool.free(&s.blocks);
        s.blocks.clear();
        s.num_computed = 0;
        s.registered = 0;
        self.metrics.preemptions += 1.0;
        self.waiting.push_front(id);
    }

    /// One scheduler step. Call only while [`Engine::has_work`].
    pub fn step(&mut self) -> StepOutput {
        let bs = self.pool.block_size();
        let mut budget = self.args.max_num_batched_tokens as usize;
        let mut sched: Vec<(ReqId, usize, usize)> = Vec::new();
        let mut out = StepOutput::default();

        // 1. Running requests, in order; preempt from the back when blocks run out.
        let mut i = 0;
        while i < self.running.len() && budget > 0 {
            let id = self.running[i];
            let s = &self.seqs[&id];
            let c0 = s.num_computed;
            let n = (s.tokens.len() - c0).min(budget);
            let mut scheduled = false;
            loop {
                if self.grow(id, c0 + n) {
                    scheduled = true;
                    break;
                }
                let victim = self.running.pop().expect("the request itself is running");
                self.preempt(victim);
                out.preempted += 1;
                if victim == id {
                    break;
                }
            }
            if !scheduled {
                break;
            }
            sched.push((id, c0, n));
            budget -= n;
            i += 1;
        }

        // 2. Waiting requests, unless this step preempted. Without chunked prefill a prompt
        // larger than the budget left is skipped this step (it keeps its place in the queue).
        let mut skipped: Vec<ReqId> = Vec::new();
        if out.preempted == 0 {
            while budget > 0 && self.running.len() < self.args.max_num_seqs as usize {
                let Some(&id) = self.waiting.front() else {
                    break;
                };
                let caching = self.pool.caching();
                let s = self.seqs.get_mut(&id).expect("waiting request exists");
                let total = s.tokens.len();
                let hits = if caching {
                    // At least one token is always computed, so the hit stops before the last.
                    let max_blocks = (total - 1) / bs;
                    s.ensure_hashes(max_blocks, bs);
                    self.pool.lookup(&s.hashes[..max_blocks])
                } else {
                    Vec::new()
                };
                let hit_tokens = hits.len() * bs;
                if !self.args.enable_chunked_prefill && total - hit_tokens > budget {
                    skipped.push(id);
                    self.waiting.pop_front();
                    continue;
                }
                let n = (total - hit_tokens).min(budget);
                let need = (hit_tokens + n).div_ceil(bs) - hits.len();
                if !self.pool.can_allocate(&hits, need) {
                    break;
                }
                self.pool.touch(&hits);
                let fresh = self.pool.allocate(need).expect("checked above");
                let s = self.seqs.get_mut(&id).expect("waiting request exists");
                s.registered = hits.len();
                s.blocks = hits;
                s.blocks.extend(fresh);
                s.num_computed = hit_tokens;
                if caching {
                    self.metrics.prefix_queries += total as f64;
                    self.metrics.prefix_hits += hit_tokens as f64;
                }
                if s.scheduled_at.is_none() {
                    s.scheduled_at = Some(self.now);
                    s.cached_tokens = hit_tokens;
                }
                self.waiting.pop_front();
                self.running.push(id);
                sched.push((id, hit_tokens, n));
                budget -= n;
            }
        }

        for id in skipped.into_iter().rev() {
            self.waiting.push_front(id);
        }

        if sched.is_empty() {
            self.refresh_gauges();
            return out;
        }

        // 3. Cost of the step.
        let mut load = StepLoad::default();
        let mut decode_only = true;
        for &(id, c0, n) in &sched {
            let s = &self.seqs[&id];
            let (c0f, nf) = (c0 as f64, n as f64);
            load.tokens += nf;
            load.kv_tokens += c0f + nf;
            load.attn_pairs += (c0f + nf) * (c0f + nf) - c0f * c0f;
            load.seqs += 1;
            let decode_row = n == 1 && c0 + 1 == s.tokens.len() && c0 >= s.prompt_len;
            if !decode_row {
                decode_only = false;
                out.prefill_chunks += 1;
            }
        }
        let dt = step_time(&self.fig, &self.layout, &load).total;
        self.now += dt;
        out.dt = dt;
        out.scheduled = sched.len();
        let m = &mut self.metrics;
        m.steps += 1.0;
        m.step_seconds += dt;
        if decode_only {
            m.steps_decode += 1.0;
            m.step_seconds_decode += dt;
        }
        m.prefill_chunks += out.prefill_chunks as f64;
        m.iteration_tokens.observe(load.tokens);

        // 4. Results: KV is computed, full blocks join the prefix cache, tokens are sampled.
        let now = self.now;
        let seed = self.args.seed;
        let mml = self.args.max_model_len as usize;
        let mut done = Vec::new();
        for &(id, c0, n) in &sched {
            let s = self.seqs.get_mut(&id).expect("scheduled request exists");
            s.num_computed = c0 + n;
            if self.pool.caching() {
                let full = s.num_computed / bs;
                s.ensure_hashes(full, bs);
                for b in s.registered..full {
                    self.pool.cache_block(s.blocks[b], s.hashes[b]);
                }
                s.registered = s.registered.max(full);
            }
            if s.num_computed < s.tokens.len() {
                continue; // a prompt chunk that does not finish the prompt
            }
            let index = s.output_len() as u32;
            let (token, _) = output_token(seed, id, index);
            s.tokens.push(token);
            let m = &mut self.metrics;
            m.generation_tokens += 1.0;
            match (s.first_token_at, s.last_token_at) {
                (None, _) => {
                    s.first_token_at = Some(now);
                    m.ttft.observe(now - s.arrival);
                    m.prompt_tokens += s.prompt_len as f64;
                    m.prompt_tokens_cached += s.cached_tokens as f64;
                }
                (Some(_), Some(last)) => m.inter_token_latency.observe(now - last),
                (Some(_), None) => {}
            }
            s.last_token_at = Some(now);
            out.tokens.push(Emitted { id, index, token });
            if s.output_len() >= s.max_tokens || s.tokens.len() >= mml {
                done.push(id);
            }
        }
        for id in done {
            out.finished.push(self.finish(id, FinishReason::Length));
        }
        self.refresh_gauges();
        out
    }

    fn finish(&mut self, id: ReqId, reason: FinishReason) -> Finished {
        let s = self.seqs.remove(&id).expect("finished request exists");
        self.running.retain(|&r| r != id);
        self.pool.free(&s.blocks);
        let m = &mut self.metrics;
        m.success[reason.index()] += 1.0;
        let gen = s.output_len();
        let first = s.first_token_at.unwrap_or(self.now);
        let last = s.last_token_at.unwrap_or(self.now);
        let sched = s.scheduled_at.unwrap_or(s.arrival);
        m.e2e.observe(self.now - s.arrival);
        m.queue_time.observe(sched - s.arrival);
        m.prefill_time.observe(first - sched);
        m.decode_time.observe(last - first);
        m.inference_time.observe(last - sched);
        m.request_prompt_tokens.observe(s.prompt_len as f64);
        m.request_generation_tokens.observe(gen as f64);
        m.request_max_num_generation_tokens.observe(gen as f64);
        m.request_params_n.observe(1.0);
        if let Some(mt) = s.max_tokens_param {
            m.request_params_max_tokens.observe(f64::from(mt));
        }
        if gen > 1 {
            m.request_time_per_output_token
                .observe((last - first) / (gen - 1) as f64);
        }
        Finished {
            id,
            reason,
            usage: Usage {
                prompt_tokens: s.prompt_len as u32,
                completion_tokens: gen as u32,
                cached_tokens: s.cached_tokens as u32,
            },
        }
    }

    /// Export the step ledger under `prefix:` (a fork's, e.g. `radiance`) rather than `vllm:`;
    /// latency and the rest stay under `vllm:`, as on the engine the spec measured.
    pub fn set_ledger_prefix(&mut self, prefix: &str) {
        self.ledger_prefix = prefix.to_string();
    }

    /// The /metrics body at the current simulated time, with the clock's epoch (unix seconds
    /// at simulated time 0).
    pub fn render_metrics(&self, epoch_unix_s: f64) -> String {
        self.render_metrics_at(epoch_unix_s, self.now)
    }

    /// The /metrics body stamped at simulated time `t` (an idle server's clock runs on).
    pub fn render_metrics_at(&self, epoch_unix_s: f64, t: f64) -> String {
        let cfg = self.args.cache_config_labels(
            self.layout.num_gpu_blocks,
            self.layout.offloaded_bytes / 1e9,
        );
        crate::metrics::render(
            &self.metrics,
            &Exposition {
                model_name: &self.args.served_model_name,
                engine: "0",
                created_unix_s: epoch_unix_s,
                clock_unix_s: epoch_unix_s + t.max(self.now),
                cache_config: &cfg,
                ledger_prefix: &self.ledger_prefix,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cost::tests::h100_8b;

    fn args() -> EngineArgs {
        EngineArgs {
            served_model_name: "m".into(),
            max_num_seqs: 256,
            max_model_len: 8192,
            max_num_batched_tokens: 2048,
            gpu_memory_utilization: 0.9,
            enable_prefix_caching: true,
            enable_chunked_prefill: true,
            kv_cache_dtype: "auto".into(),
            tensor_parallel_size: 1,
            quantization: None,
            block_size: 16,
            seed: 1,
        }
    }

    fn prompt(n: usize, salt: u32) -> Vec<u32> {
        (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761) ^ salt)
            .collect()
    }

    fn run_to_idle(e: &mut Engine) -> Vec<StepOutput> {
        let mut outs = Vec::new();
        for _ in 0..1_000_000 {
            if !e.has_work() {
                return outs;
            }
            outs.push(e.step());
        }
        panic!("engine never went idle");
    }

    #[test]
    fn one_request_prefills_in_chunks_then_decodes() {
        let mut e = Engine::new(args(), h100_8b());
        let id = e.add_request(prompt(5000, 1), Some(10), 0.0).unwrap();
        let outs = run_to_idle(&mut e);
        // 5000 tokens at a 2048 budget: 3 chunk steps (the last samples the first token), then
        // 9 decode steps.
        assert_eq!(outs.len(), 12);
        assert_eq!(outs.iter().filter(|o| o.prefill_chunks > 0).count(), 3);
        assert!(outs[0].tokens.is_empty() && outs[2].tokens.len() == 1);
        let fin = &outs.last().unwrap().finished[0];
        assert_eq!((fin.id, fin.reason), (id, FinishReason::Length));
        assert_eq!(fin.usage.completion_tokens, 10);
        let m = e.metrics();
        assert_eq!((m.prompt_tokens, m.generation_tokens), (5000.0, 10.0));
        assert_eq!(
            (m.steps, m.steps_decode, m.prefill_chunks),
            (12.0, 9.0, 3.0)
        );
        assert!(m.step_seconds > m.step_seconds_decode);
        assert_eq!(m.success, [0.0, 1.0, 0.0]);
        assert_eq!((m.ttft.count(), m.inter_token_latency.count()), (1, 9));
        assert_eq!((m.running, m.waiting, m.kv_usage), (0.0, 0.0, 0.0));
    }

    #[test]
    fn a_prompt_chunk_holds_the_decode_rows_in_its_step() {
        // Chunked-prefill interference: a decoding request's tokens come one per
        // step; when a 2048-token chunk of another prompt shares the step, that token waits for
        // the whole chunk. The step ledger books the step as a chunk step, not a decode step.
        let mut e = Engine::new(args(), h100_8b());
        e.add_request(prompt(32, 1), Some(200), 0.0).unwrap();
        let mut decode_dt = Vec::new();
        for _ in 0..10 {
            let o = e.step();
            if o.prefill_chunks == 0 {
                decode_dt.push(o.dt);
            }
        }
        let decode_only = decode_dt.last().copied().expect("decode-only steps");
        let before = e.metrics().inter_token_latency.sum();
        let steps_decode = e.metrics().steps_decode;
        e.add_request(prompt(6000, 2), Some(4), e.now()).unwrap();
        let o = e.step();
        assert_eq!(
            o.prefill_chunks, 1,
            "the long prompt's first chunk joins the step"
        );
        assert_eq!(
            o.tokens.len(),
            1,
            "the decoding request still gets its token"
        );
        // The decode row's inter-token gap is the chunk step's time, several decode steps long.
        let waited = e.metrics().inter_token_latency.sum() - before;
        assert!((waited - o.dt).abs() < 1e-12, "{waited} vs {}", o.dt);
        assert!(
            o.dt > 5.0 * decode_only,
            "chunk step {} vs decode {decode_only}",
            o.dt
        );
        assert_eq!(e.metrics().steps_decode, steps_decode);
    }

    #[test]
    fn a_shared_prefix_hits_the_cache() {
        let mut e = Engine::new(args(), h100_8b());
        let shared = prompt(640, 7);
        let mut a = shared.clone();
        a.extend(prompt(100, 8));
        let mut b = shared.clone();
        b.extend(prompt(100, 9));
        e.add_request(a, Some(4), 0.0).unwrap();
        run_to_idle(&mut e);
        e.add_request(b, Some(4), e.now()).unwrap();
        let outs = run_to_idle(&mut e);
        let usage = outs.last().unwrap().finished[0].usage;
        assert_eq!(usage.cached_tokens, 640);
        let m = e.metrics();
        assert_eq!(m.prefix_queries, 1480.0);
        assert_eq!(m.prefix_hits, 640.0);
        assert_eq!(m.prompt_tokens_cached, 640.0);

        let mut off = args();
        off.enable_prefix_caching = false;
        let mut e = Engine::new(off, h100_8b());
        let mut a = shared.clone();
        a.push(1);
        e.add_request(a.clone(), Some(4), 0.0).unwrap();
        run_to_idle(&mut e);
        e.add_request(a, Some(4), e.now()).unwrap();
        let outs = run_to_idle(&mut e);
        assert_eq!(outs.last().unwrap().finished[0].usage.cached_tokens, 0);
        assert_eq!(e.metrics().prefix_queries, 0.0);
    }

    #[test]
    fn max_num_seqs_bounds_the_batch() {
        let mut a = args();
        a.max_num_seqs = 4;
        let mut e = Engine::new(a, h100_8b());
        for k in 0..10 {
            e.add_request(prompt(32, k), Some(50), 0.0).unwrap();
        }
        e.step();
        assert_eq!((e.num_running(), e.num_waiting()), (4, 6));
        run_to_idle(&mut e);
        assert_eq!(e.metrics().success[1], 10.0);
    }

    #[test]
    fn kv_exhaustion_preempts_by_recompute() {
        // A pool of ~20 blocks × 16 = 320 tokens; four requests that each grow to 150 tokens.
        let mut f = h100_8b();
        let mut a = args();
        a.max_model_len = 320;
        a.max_num_batched_tokens = 64;
        f.vram_bytes = (f.weight_bytes
            + crate::cost::reserve_bytes(&f, 64)
            + 20.5 * 16.0 * f.kv_bytes_per_token)
            / 0.9;
        let mut e = Engine::new(a, f);
        assert_eq!(e.layout().num_gpu_blocks, 20);
        for k in 0..4 {
            e.add_request(prompt(30, k), Some(120), 0.0).unwrap();
        }
        let outs = run_to_idle(&mut e);
        let m = e.metrics();
        assert!(m.preemptions > 0.0, "no preemption");
        assert_eq!(m.success[1], 4.0);
        assert_eq!(m.generation_tokens, 480.0, "recompute re-emits nothing");
        assert!(outs.iter().any(|o| o.preempted > 0));
        // Prompt tokens are counted once per request even when recomputed.
        assert_eq!(m.prompt_tokens, 120.0);
    }

    #[test]
    fn without_chunked_prefill_prompts_are_admitted_whole() {
        let mut a = args();
        a.enable_chunked_prefill = false;
        a.max_num_batched_tokens = 8192;
        let mut e = Engine::new(a, h100_8b());
        let big = e.add_request(prompt(6000, 1), Some(4), 0.0).unwrap();
        e.add_request(prompt(5000, 2), Some(4), 0.0).unwrap();
        e.add_request(prompt(1000, 3), Some(4), 0.0).unwrap();
        let o = e.step();
        // 6000 fits; 5000 does not fit the 2192 left and is skipped; 1000 does.
        assert_eq!((o.scheduled, o.prefill_chunks), (2, 2));
        assert_eq!(e.num_waiting(), 1);
        assert_eq!(o.tokens.len(), 2, "both prompts done in one step");
        assert!(o.tokens.iter().any(|t| t.id == big));
        run_to_idle(&mut e);
        assert_eq!(e.metrics().prefill_chunks, 3.0);
    }

    #[test]
    fn the_door_rejects_what_cannot_run() {
        let e = Engine::new(args(), h100_8b());
        assert!(matches!(e.check(0, None), Err(Reject::EmptyPrompt)));
        assert!(matches!(
            e.check(8192, Some(1)),
            Err(Reject::TooLong { .. })
        ));
        assert!(matches!(
            e.check(8000, Some(500)),
            Err(Reject::TooLong { total: 8500, .. })
        ));
        assert_eq!(e.check(8000, None), Ok(192));
        let msg = e.check(8000, Some(500)).unwrap_err().to_string();
        assert!(msg.contains("maximum context length is 8192"), "{msg}");
    }

    #[test]
    fn abort_frees_the_request() {
        let mut e = Engine::new(args(), h100_8b());
        let id = e.add_request(prompt(100, 1), Some(100), 0.0).unwrap();
        e.step();
        assert!(e.metrics().kv_usage > 0.0);
        assert!(e.abort(id).is_some());
        assert!(!e.has_work());
        assert_eq!(e.metrics().kv_usage, 0.0);
        assert_eq!(e.metrics().success[2], 1.0);
        assert!(e.abort(id).is_none());
    }

    #[test]
    fn same_seed_same_run() {
        let go = |seed| {
            let mut a = args();
            a.seed = seed;
            let mut e = Engine::new(a, h100_8b());
            for k in 0..20 {
                e.add_request(
                    prompt(200 + 37 * k as usize, k),
                    Some(30 + k),
                    f64::from(k) * 0.01,
                )
                .unwrap();
            }
            let toks: Vec<u32> = run_to_idle(&mut e)
                .iter()
                .flat_map(|o| o.tokens.iter().map(|t| t.token))
                .collect();
            (toks, e.render_metrics(1.7e9))
        };
        assert_eq!(go(3), go(3));
        assert_ne!(go(3).0, go(4).0);
    }
}
