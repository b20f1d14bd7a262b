//! `headroom route --trace FILE`: the router's traffic recorded as a `cachehit` trace.
//!
//! At start: a `stream` record (the block size and the tokenizers), a `replica` record for each
//! replica whose engine reports its KV pool, and each replica's prefix-cache counters as the
//! baseline. For each request that carried a prompt, once it ends: a `request` record with the
//! chain hashes of its prompt's full blocks, never its text nor its token ids. The token ids
//! come from the replica that served it (its own tokenizer, so the blocks are the engine's),
//! asked off the request path by one task behind a bounded queue: when it falls behind,
//! requests are dropped and counted rather than slowing the router. Every 10 s and at the end,
//! each replica's counters since the start (the ladder reads a replica's last record).
//!
//! Records are written in the order requests end, each flushed as it is written, so a killed
//! router leaves a readable trace.

pub mod tokenize;

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cachehit::{Counters, Record, Replica, Request, Stream};
use engines::{EngineConfig, Scraper};
use loadgen::{Client, ClientConfig, Input, TokenCounter};
use router::observe::{Capture, Exchange, Observer};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

/// Tokens per block when the first replica reports none (vLLM's default).
pub const DEFAULT_BLOCK_SIZE: u32 = 16;
/// How often the counters since the start are appended.
pub const COUNTERS_EVERY: Duration = Duration::from_secs(10);
/// Requests waiting for their token ids; past it they are dropped (and counted).
pub const QUEUE: usize = 1024;
/// Blocks cut shorter than this (SGLang's pages of 1 token, llama.cpp's slots, matched per
/// token) are hashed from a secret key: a block of a few tokens could otherwise be found again
/// by trying the vocabulary. Taps whose recordings are merged share the key through
/// `HEADROOM_TRACE_KEY` (any text); without it each recording draws its own.
pub const KEYED_UNDER: u32 = 16;
/// How long the end waits for the queue to empty.
const DRAIN: Duration = Duration::from_secs(60);

/// Writes records as JSON lines, each flushed as it is written.
pub struct Writer<W: Write> {
    out: W,
}

impl<W: Write> Writer<W> {
    pub fn new(out: W) -> Writer<W> {
        Writer { out }
    }

    pub fn write(&mut self, rec: &Record) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(rec)?;
        line.push(b'\n');
        self.out.write_all(&line)?;
        self.out.flush()
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot create the trace file {path}: {source}")]
    Create {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("writing the trace: {0}")]
    Write(#[from] std::io::Error),
}

/// One replica, as the recorder knows it.
struct Side {
    /// The bare URL (no credentials): what every record names.
    name: String,
    tokenizer: Option<TokenCounter>,
    /// Tokens per block, where the engine reports it.
    block_size: Option<u32>,
    /// The KV pool in blocks, where the engine reports it.
    num_blocks: Option<u64>,
    /// The engine, whose cache policy the ladder replays.
    engine: Option<cachehit::Engine>,
    /// llama.cpp's slots.
    slots: Option<u32>,
    scraper: Option<Scraper>,
    /// The counters at the start.
    baseline: Option<Reading>,
}

struct Inner {
    writer: Mutex<Writer<std::io::BufWriter<std::fs::File>>>,
    origin: Instant,
    block_size: u32,
    /// The chains' root where they are keyed (blocks under [`KEYED_UNDER`] tokens), else 0.
    key: u64,
    sides: Vec<Side>,
    recorded: AtomicU64,
    dropped: AtomicU64,
    /// Requests not recorded for a reason other than the queue: (no tokenizer, a prompt the
    /// tokenizer could not take or that failed, refused by the engine).
    untokenized: AtomicU64,
    refused: AtomicU64,
    /// The first write error, reported once.
    write_error: Mutex<Option<String>>,
}

impl Inner {
    fn write(&self, rec: &Record) {
        let mut w = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = w.write(rec) {
            let mut first = self.write_error.lock().unwrap_or_else(|e| e.into_inner());
            first.get_or_insert_with(|| e.to_string());
        }
    }

    /// Appends each replica's counters since the start.
    async fn counters(&self) {
        for s in &self.sides {
            let (Some(scraper), Some(b)) = (&s.scraper, &s.baseline) else {
                continue;
            };
            let Ok(now) = scraper.scrape_metrics().await else {
                continue;
            };
            if let Some(c) = since(b, &Reading::of(&now), &s.name) {
                self.write(&Record::Counters(c));
            }
        }
    }

    async fn request(&self, x: Exchange) {
        // A 4xx is the engine refusing the request before it looked any prefix up.
        if x.status.is_some_and(|s| (400..500).contains(&s)) {
            self.refused.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let Some(side) = self.sides.get(x.replica) else {
            return;
        };
        let prompt = prompt_of(&x.body);
        let tokens = match (&side.tokenizer, &prompt) {
            // Token ids in the body are what the engine looks up: no tokenizer needed.
            (_, Some((Prompt::Ids(ids), _))) => Ok(ids.clone()),
            (Some(t), Some((Prompt::Chat(m), model))) => {
                t.token_ids(Input::Chat(m), model.as_deref()).await
            }
            (Some(t), Some((Prompt::Text(text), model))) => {
                t.token_ids(Input::Prompt(text), model.as_deref()).await
            }
            _ => {
                self.untokenized.fetch_add(1, Ordering::Relaxed);
                return;
            }
        };
        let Ok(tokens) = tokens else {
            self.untokenized.fetch_add(1, Ordering::Relaxed);
            return;
        };
        if tokens.is_empty() {
            self.untokenized.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let since = |t: Instant| t.saturating_duration_since(self.origin).as_secs_f64();
        let rec = Request {
            t: Some(since(x.arrived)),
            t_first: x.first_byte.map(since),
            t_end: Some(since(x.ended)),
            replica: Some(side.name.clone()),
            conversation: x.conversation.map(|k| format!("{k:016x}")),
            tokens: Vec::new(),
            blocks: Some(cachehit::block_chain_keyed(
                &tokens,
                self.block_size,
                self.key,
            )),
            prompt_tokens: Some(u32::try_from(tokens.len()).unwrap_or(u32::MAX)),
            output_tokens: output_tokens(&x.response),
            prompt: None,
            messages: None,
        };
        self.write(&Record::Request(rec));
        self.recorded.fetch_add(1, Ordering::Relaxed);
    }
}

/// A prompt taken from a request body, owned so the body can go.
enum Prompt {
    Chat(Box<RawValue>),
    Text(String),
    /// Token ids the client sent (`prompt: [..]`, SGLang's `input_ids`).
    Ids(Vec<u32>),
}

/// The fields of the bodies the engines take: OpenAI's chat (`messages`) and completions
/// (`prompt`), and SGLang's native `/generate` (`text` or `input_ids`).
#[derive(Deserialize)]
struct Body<'a> {
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(default)]
    messages: Option<Box<RawValue>>,
    #[serde(borrow, default)]
    prompt: Option<&'a RawValue>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input_ids: Option<&'a RawValue>,
}

/// The chat messages, else a prompt (text or token ids), and the model a request names. A
/// batch (several prompts in one body) is not recorded: its prompts are not one request.
fn prompt_of(body: &[u8]) -> Option<(Prompt, Option<String>)> {
    let b: Body = serde_json::from_slice(body).ok()?;
    let model = b.model.map(Cow::into_owned);
    if let Some(m) = b.messages {
        return Some((Prompt::Chat(m), model));
    }
    if let Some(ids) = b.input_ids {
        let ids: Vec<u32> = serde_json::from_str(ids.get()).ok()?;
        return Some((Prompt::Ids(ids), model));
    }
    let raw = b.prompt.or(b.text)?;
    if let Ok(text) = serde_json::from_str::<String>(raw.get()) {
        return Some((Prompt::Text(text), model));
    }
    let ids: Vec<u32> = serde_json::from_str(raw.get()).ok()?;
    Some((Prompt::Ids(ids), model))
}

#[derive(Deserialize)]
struct WithUsage {
    #[serde(default)]
    usage: Option<Usage>,
    /// SGLang's `/generate` counts in `meta_info` (each streamed chunk holds the running total).
    #[serde(default)]
    meta_info: Option<Usage>,
}

#[derive(Deserialize)]
struct Usage {
    #[serde(default)]
    completion_tokens: Option<u32>,
}

/// `usage.completion_tokens` of the answer (`meta_info.completion_tokens` for SGLang's
/// `/generate`): the whole JSON body, else the last server-sent event that carries it (an
/// OpenAI stream has usage only when the client asked for it); else 0.
pub fn output_tokens(c: &Capture) -> u32 {
    let usage = |data: &[u8]| {
        let w = serde_json::from_slice::<WithUsage>(data).ok()?;
        w.usage
            .and_then(|u| u.completion_tokens)
            .or(w.meta_info.and_then(|u| u.completion_tokens))
    };
    if !c.truncated {
        if let Some(n) = usage(&c.bytes) {
            return n;
        }
    }
    c.bytes
        .split(|&b| b == b'\n')
        .rev()
        .filter_map(|line| line.strip_prefix(b"data:"))
        .find_map(usage)
        .unwrap_or(0)
}

/// The chains' secret root: from `text` (HEADROOM_TRACE_KEY) where given, else drawn at random.
fn trace_key(text: Option<&str>) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let k = match text {
        Some(t) => cachehit::block_hash(
            0x6865_6164_726f_6f6d,
            &t.bytes().map(u32::from).collect::<Vec<_>>(),
        ),
        None => std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish(),
    };
    k.max(1)
}

/// A replica's prefix-cache counters as one scrape read them, each where the engine exports
/// it, and what tells one process from a restarted one.
#[derive(Debug, Clone, Default, PartialEq)]
struct Reading {
    /// Tokens served from the prefix cache.
    hits: Option<f64>,
    /// Prompt tokens looked up.
    queries: Option<f64>,
    /// `process_start_time_seconds`, where exported.
    started: Option<f64>,
    /// Counters that only grow within one process: prompt tokens, generated tokens, finished
    /// requests.
    others: [Option<f64>; 3],
}

impl Reading {
    fn of(s: &engines::Scrape) -> Reading {
        let x = &s.parsed.sample;
        let (hits, queries) = match x.prefix_cache_tokens() {
            Some((h, q)) => (Some(h), Some(q)),
            None if x.prefix_hits.is_some() || x.prefix_queries.is_some() => {
                (x.prefix_hits, x.prefix_queries)
            }
            // SGLang and llama.cpp count cached prompt tokens against prompt tokens; a counter
            // not yet created has counted nothing.
            None => {
                let cached = x.cached_prompt_tokens;
                let looked_up = x.prompt_tokens.map(|p| {
                    if x.engine.def().prompt_tokens_exclude_cached {
                        p + cached.unwrap_or(0.0)
                    } else {
                        p
                    }
                });
                (cached, looked_up)
            }
        };
        Reading {
            hits,
            queries,
            started: s
                .parsed
                .exposition
                .series("process_start_time_seconds")
                .next()
                .map(|p| p.value),
            others: [x.prompt_tokens, x.generation_tokens, x.requests_finished],
        }
    }
}

/// The counters record of `replica` from `b` (the start) to `now`: `None` where the engine
/// restarted between them (its start time moved, or a counter went back) or does not export
/// both counters now. A counter present now but absent at the start is one the engine created
/// since (SGLang creates `sglang:cached_tokens_total` at its first cache hit): it counted from
/// 0, which is assumed, and said in `created_late`, only where the same process is proven (the
/// same start time, or another counter present at both ends that did not go back).
fn since(b: &Reading, now: &Reading, replica: &str) -> Option<Counters> {
    let (h, q) = (now.hits?, now.queries?);
    let mut both = b
        .others
        .iter()
        .zip(&now.others)
        .chain([(&b.hits, &now.hits), (&b.queries, &now.queries)])
        .filter_map(|(x, y)| Some((*x.as_ref()?, *y.as_ref()?)))
        .peekable();
    let same_process = match (b.started, now.started) {
        (Some(x), Some(y)) => x == y,
        _ => both.peek().is_some() && both.all(|(x, y)| y >= x),
    };
    if !same_process {
        return None;
    }
    let mut created_late = Vec::new();
    let mut start = |v: Option<f64>, name: &str| {
        v.unwrap_or_else(|| {
            created_late.push(name.to_string());
            0.0
        })
    };
    let (h0, q0) = (
        start(b.hits, "prefix_hits"),
        start(b.queries, "prefix_queries"),
    );
    // A counter that went back means the engine restarted: the delta is unknown.
    if h < h0 || q < q0 {
        return None;
    }
    Some(Counters {
        replica: replica.to_string(),
        prefix_hits: h - h0,
        prefix_queries: q - q0,
        created_late,
    })
}

/// What the recorder did, for the report at the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub recorded: u64,
    /// Dropped because the tokenizer queue was full.
    pub dropped: u64,
    /// Not recorded: no tokenizer on the replica, a prompt it could not take, or it failed.
    pub untokenized: u64,
    /// Not recorded: the engine refused them (4xx), so they looked nothing up.
    pub refused: u64,
    /// Still queued when the end's wait ran out.
    pub unfinished: u64,
    pub write_error: Option<String>,
}

/// A recording in progress.
pub struct Recorder {
    inner: Arc<Inner>,
    tx: mpsc::Sender<Option<Exchange>>,
    queued: Arc<AtomicU64>,
    worker: tokio::task::JoinHandle<()>,
    ticker: tokio::task::JoinHandle<()>,
}

/// A started recorder and what its start found worth saying (a replica with no pool, or no
/// tokenizer).
pub struct Started {
    pub recorder: Recorder,
    pub notes: Vec<String>,
}

impl Recorder {
    /// Creates (or truncates) `path`, asks each replica for its tokenizer, pool and counters,
    /// and writes the opening records. `backends` are the URLs as given (credentials reach the
    /// replicas, never the file); `names` the same replicas' bare URLs, in the same order.
    pub async fn start(
        path: &Path,
        backends: &[String],
        names: &[String],
    ) -> Result<Started, RecordError> {
        let file = std::fs::File::create(path).map_err(|source| RecordError::Create {
            path: path.display().to_string(),
            source,
        })?;
        let mut notes = Vec::new();
        let mut sides = Vec::new();
        for (url, name) in backends.iter().zip(names) {
            let side = side(url, name, &mut notes).await;
            sides.push(side);
        }
        let block_size = sides
            .first()
            .and_then(|s| s.block_size)
            .unwrap_or(DEFAULT_BLOCK_SIZE);
        let key = if block_size < KEYED_UNDER {
            trace_key(std::env::var("HEADROOM_TRACE_KEY").ok().as_deref())
        } else {
            0
        };
        let tokenizer = sides
            .iter()
            .filter_map(|s| {
                let t = s.tokenizer.as_ref()?.endpoint()?;
                Some(format!("{t} of {}", s.name))
            })
            .collect::<Vec<_>>()
            .join("; ");
        // t = 0 on both clocks: the monotonic one times the records, the wall clock lets
        // recordings made side by side (a tap per replica) be merged.
        let origin = Instant::now();
        let origin_unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs_f64());
        let mut w = Writer::new(std::io::BufWriter::new(file));
        w.write(&Record::Stream(Stream {
            block_size,
            tokenizer,
            origin_unix,
            key: (key != 0).then(|| cachehit::key_fingerprint(key)),
        }))?;
        for s in &sides {
            if let (Some(bs), Some(blocks)) = (s.block_size, s.num_blocks) {
                w.write(&Record::Replica(Replica {
                    name: s.name.clone(),
                    num_blocks: blocks,
                    block_size: bs,
                    engine: s.engine,
                    slots: s.slots,
                    // llama.cpp does not say its --slot-prompt-similarity: the ladder takes
                    // its default.
                    slot_similarity: None,
                }))?;
            }
        }
        for s in &sides {
            // A counter the engine has not created yet gets its record at the first tick.
            if s.baseline
                .as_ref()
                .is_some_and(|b| b.hits.is_some() && b.queries.is_some())
            {
                // The delta since the start, zero now: a replica that serves nothing still
                // has counters for the ladder.
                w.write(&Record::Counters(Counters {
                    replica: s.name.clone(),
                    prefix_hits: 0.0,
                    prefix_queries: 0.0,
                    created_late: Vec::new(),
                }))?;
            }
        }
        let inner = Arc::new(Inner {
            writer: Mutex::new(w),
            origin,
            block_size,
            key,
            sides,
            recorded: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            untokenized: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            write_error: Mutex::new(None),
        });
        let (tx, mut rx) = mpsc::channel::<Option<Exchange>>(QUEUE);
        let queued = Arc::new(AtomicU64::new(0));
        let (i, q) = (inner.clone(), queued.clone());
        let worker = tokio::spawn(async move {
            // `None` is the end: everything sent before it has been recorded.
            while let Some(Some(x)) = rx.recv().await {
                i.request(x).await;
                q.fetch_sub(1, Ordering::Relaxed);
            }
        });
        let i = inner.clone();
        let ticker = tokio::spawn(async move {
            let mut every = tokio::time::interval(COUNTERS_EVERY);
            every.tick().await;
            loop {
                every.tick().await;
                i.counters().await;
            }
        });
        Ok(Started {
            recorder: Recorder {
                inner,
                tx,
                queued,
                worker,
                ticker,
            },
            notes,
        })
    }

    /// What the router calls with each request that carried a prompt: queued, or dropped and
    /// counted when the queue is full (never waits).
    pub fn observer(&self) -> Observer {
        let (tx, inner, queued) = (self.tx.clone(), self.inner.clone(), self.queued.clone());
        Arc::new(move |x: Exchange| {
            queued.fetch_add(1, Ordering::Relaxed);
            if tx.try_send(Some(x)).is_err() {
                queued.fetch_sub(1, Ordering::Relaxed);
                inner.dropped.fetch_add(1, Ordering::Relaxed);
            }
        })
    }

    /// Records what is queued (waiting up to a minute), appends the final counters, and says
    /// what was recorded. Call once the router has stopped.
    pub async fn finish(self) -> Summary {
        self.ticker.abort();
        let mut worker = self.worker;
        let drained = match self.tx.send(None).await {
            Ok(()) => tokio::time::timeout(DRAIN, &mut worker).await.is_ok(),
            Err(_) => true,
        };
        if !drained {
            worker.abort();
        }
        self.inner.counters().await;
        let i = &self.inner;
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let write_error = i
            .write_error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        Summary {
            recorded: load(&i.recorded),
            dropped: load(&i.dropped),
            untokenized: load(&i.untokenized),
            refused: load(&i.refused),
            unfinished: if drained { 0 } else { load(&self.queued) },
            write_error,
        }
    }
}

/// Asks one replica for its tokenizer, KV pool and counters.
async fn side(url: &str, name: &str, notes: &mut Vec<String>) -> Side {
    let mut side = Side {
        name: name.to_string(),
        tokenizer: None,
        block_size: None,
        num_blocks: None,
        engine: None,
        slots: None,
        scraper: None,
        baseline: None,
    };
    let cfg = ClientConfig {
        idle_timeout: Duration::from_secs(30),
        ..ClientConfig::default()
    };
    if let Ok(client) = Client::new(url, cfg) {
        let tokenizer = match loadgen::server::discover(&client).await {
            Ok(info) => TokenCounter::detect(&client, &info).await.ok(),
            Err(_) => None,
        };
        side.tokenizer = tokenizer.filter(|t| t.endpoint().is_some());
    }
    if side.tokenizer.is_none() {
        notes.push(format!(
            "{name} serves no tokenizer route can use (vLLM's or llama.cpp's /tokenize): its \
             requests are not recorded"
        ));
    }
    let scraper = Scraper::new(url, Duration::from_secs(10)).ok();
    let scrape = match &scraper {
        Some(s) => s.scrape_metrics().await.ok(),
        None => None,
    };
    let sample = scrape.as_ref().map(|s| &s.parsed.sample);
    let pool = sample
        .as_ref()
        .map(|s| EngineConfig::from_cache_config_labels(&s.config_labels));
    side.block_size = pool
        .as_ref()
        .and_then(|c| c.block_size.as_ref())
        .and_then(|k| u32::try_from(k.value).ok());
    side.num_blocks = pool
        .as_ref()
        .and_then(|c| c.num_gpu_blocks.as_ref())
        .map(|k| k.value);
    side.engine = sample.map(|s| match s.engine {
        engines::Engine::Vllm => cachehit::Engine::Vllm,
        engines::Engine::Sglang => cachehit::Engine::Sglang,
        engines::Engine::LlamaCpp => cachehit::Engine::LlamaCpp,
        _ => cachehit::Engine::Other,
    });
    match (side.engine, &scraper) {
        // SGLang's radix tree holds pages of --page-size tokens (1 by default, which
        // /get_server_info gives) in a pool of max_total_num_tokens tokens.
        (Some(cachehit::Engine::Sglang), Some(scr)) => {
            let info = scr
                .get_json("/get_server_info")
                .await
                .ok()
                .and_then(|v| serde_json::from_value::<SglangServerInfo>(v).ok());
            let page = match info {
                Some(i) => i.page_size.unwrap_or(1),
                None => {
                    notes.push(format!(
                        "{name}: SGLang's /get_server_info gave no page size; its radix tree is \
                         replayed at SGLang's default page of 1 token"
                    ));
                    1
                }
            }
            .max(1);
            side.block_size = u32::try_from(page).ok();
            side.num_blocks = sample
                .and_then(|s| s.kv_capacity_tokens)
                .map(|t| (t / page as f64).floor() as u64);
        }
        // llama.cpp's slots each keep their last request, matched per token.
        (Some(cachehit::Engine::LlamaCpp), Some(scr)) => {
            if let Ok(p) = scr.props().await {
                side.slots = p.total_slots.and_then(|n| u32::try_from(n).ok());
                side.block_size = Some(1);
                side.num_blocks = side
                    .slots
                    .zip(p.n_ctx_per_slot)
                    .map(|(n, c)| u64::from(n) * c);
            }
        }
        _ => {}
    }
    if side.num_blocks.is_none() || side.block_size.is_none() {
        notes.push(format!(
            "{name} reports no KV pool (blocks and block size): give --pool {name}=BLOCKS to \
             headroom cachehit"
        ));
    }
    side.baseline = scrape.as_ref().map(Reading::of);
    side.scraper = scraper;
    side
}

/// What the tap reads of SGLang's `GET /get_server_info` (its server arguments; `page_size`
/// is `--page-size`, absent in versions before paged radix caches).
#[derive(serde::Deserialize)]
struct SglangServerInfo {
    page_size: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use cachehit::{BlockId, Trace};

    /// Counts flushes, so the test sees one per record.
    struct Flushes {
        bytes: Vec<u8>,
        flushes: usize,
    }

    impl Write for Flushes {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.bytes.extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            self.flushes += 1;
            Ok(())
        }
    }

    #[test]
    fn the_writer_flushes_each_record_and_cachehit_reads_them_back() {
        let mut w = Writer::new(Flushes {
            bytes: Vec::new(),
            flushes: 0,
        });
        let recs = [
            Record::Stream(Stream {
                block_size: 4,
                tokenizer: "vLLM POST /tokenize of http://a:8000".into(),
                origin_unix: Some(1.8e9),
                key: None,
            }),
            Record::Replica(Replica {
                name: "http://a:8000".into(),
                num_blocks: 10,
                block_size: 4,
                engine: None,
                slots: None,
                slot_similarity: None,
            }),
            Record::Request(Request {
                t: Some(0.5),
                t_first: Some(0.6),
                t_end: Some(0.9),
                replica: Some("http://a:8000".into()),
                conversation: Some("00000000000000ff".into()),
                tokens: Vec::new(),
                blocks: Some(cachehit::block_chain(&[1, 2, 3, 4, 5, 6, 7, 8, 9], 4)),
                prompt_tokens: Some(9),
                output_tokens: 3,
                prompt: None,
                messages: None,
            }),
            Record::Counters(Counters {
                replica: "http://a:8000".into(),
                prefix_hits: 4.0,
                prefix_queries: 9.0,
                created_late: Vec::new(),
            }),
        ];
        for (i, r) in recs.iter().enumerate() {
            w.write(r).unwrap();
            assert_eq!(w.out.flushes, i + 1, "flushed as written");
        }
        let out = w.into_inner().bytes;
        let text = String::from_utf8(out.clone()).unwrap();
        assert_eq!(text.lines().count(), 4);
        assert!(!text.contains("\"tokens\""), "{text}");
        let t = Trace::read(&out[..]).unwrap();
        t.validate().unwrap();
        assert_eq!(t.requests[0].blocks.as_ref().map(Vec::len), Some(2));
        assert_eq!(
            t.requests[0].blocks.as_ref().unwrap()[0],
            BlockId(cachehit::block_hash(0, &[1, 2, 3, 4]))
        );
    }

    #[test]
    fn a_hit_counter_created_after_the_start_counts_from_zero_in_the_same_process() {
        // SGLang before its first hit: prompt tokens, no cached tokens.
        let start = Reading {
            hits: None,
            queries: Some(100.0),
            started: None,
            others: [Some(100.0), Some(8.0), Some(1.0)],
        };
        let end = Reading {
            hits: Some(640.0),
            queries: Some(1100.0),
            started: None,
            others: [Some(1100.0), Some(48.0), Some(6.0)],
        };
        let c = since(&start, &end, "a").unwrap();
        assert_eq!((c.prefix_hits, c.prefix_queries), (640.0, 1000.0));
        assert_eq!(c.created_late, ["prefix_hits"]);
        // A restart in between: the prompt counter went back, nothing is assumed.
        let restarted = Reading {
            queries: Some(90.0),
            others: [Some(90.0), Some(4.0), Some(1.0)],
            ..end.clone()
        };
        assert_eq!(since(&start, &restarted, "a"), None);
        // The process start time decides where the engine exports it.
        let (s0, s1) = (Some(1.7e9), Some(1.7e9 + 60.0));
        let a = Reading {
            started: s0,
            ..start.clone()
        };
        assert!(since(
            &a,
            &Reading {
                started: s0,
                ..end.clone()
            },
            "a"
        )
        .is_some());
        assert_eq!(
            since(
                &a,
                &Reading {
                    started: s1,
                    ..end.clone()
                },
                "a"
            ),
            None
        );
        // Nothing to tell one process from another: no assumption.
        let bare = Reading {
            hits: None,
            queries: None,
            started: None,
            others: [None; 3],
        };
        let later = Reading {
            others: [None; 3],
            ..end.clone()
        };
        assert_eq!(since(&bare, &later, "a"), None);
        // Both present at both ends: the plain delta, nothing assumed.
        let c = since(
            &Reading {
                hits: Some(40.0),
                ..start
            },
            &end,
            "a",
        )
        .unwrap();
        assert_eq!((c.prefix_hits, c.created_late.len()), (600.0, 0));
    }

    #[test]
    fn a_key_given_is_the_same_in_every_tap_and_a_keyed_chain_hides_its_tokens() {
        let k = trace_key(Some("shared"));
        assert_eq!(k, trace_key(Some("shared")));
        assert_ne!(k, trace_key(Some("other")));
        assert_ne!(trace_key(None), trace_key(None));
        let tokens = [7, 8, 9];
        let keyed = cachehit::block_chain_keyed(&tokens, 1, k);
        assert_eq!(keyed, cachehit::block_chain_keyed(&tokens, 1, k));
        // Unkeyed, one token's block is a hash anyone can compute from the token.
        assert_ne!(keyed[0], BlockId(cachehit::block_hash(0, &[7])));
    }

    #[test]
    fn output_tokens_come_from_the_usage_of_a_body_or_a_stream() {
        let whole = Capture {
            bytes: br#"{"id":"x","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":7}}"#
                .to_vec(),
            truncated: false,
        };
        assert_eq!(output_tokens(&whole), 7);
        let stream = Capture {
            bytes: b"data: {\"choices\":[{}],\"usage\":null}\n\ndata: {\"choices\":[],\"usage\":{\"completion_tokens\":12}}\n\ndata: [DONE]\n\n".to_vec(),
            truncated: true,
        };
        assert_eq!(output_tokens(&stream), 12);
        let no_usage = Capture {
            bytes: b"data: {\"choices\":[{}]}\n\ndata: [DONE]\n\n".to_vec(),
            truncated: false,
        };
        assert_eq!(output_tokens(&no_usage), 0);
    }

    #[test]
    fn a_prompt_is_the_messages_else_a_text() {
        let (p, m) =
            prompt_of(br#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#).unwrap();
        assert!(matches!(p, Prompt::Chat(ref r) if r.get().contains("hi")));
        assert_eq!(m.as_deref(), Some("m"));
        let (p, _) = prompt_of(br#"{"prompt":"hello"}"#).unwrap();
        assert!(matches!(p, Prompt::Text(ref t) if t == "hello"));
        let (p, _) = prompt_of(br#"{"prompt":[1,2,3]}"#).unwrap();
        assert!(matches!(p, Prompt::Ids(ref i) if i == &[1, 2, 3]));
        assert!(prompt_of(br#"{"prompt":["a","b"]}"#).is_none(), "a batch");
        assert!(
            prompt_of(br#"{"prompt":[[1,2],[3]]}"#).is_none(),
            "a batch of ids"
        );
    }

    #[test]
    fn sglang_generate_gives_text_or_input_ids_and_counts_in_meta_info() {
        let (p, _) = prompt_of(br#"{"text":"hello","sampling_params":{}}"#).unwrap();
        assert!(matches!(p, Prompt::Text(ref t) if t == "hello"));
        let (p, _) = prompt_of(br#"{"input_ids":[5,6,7],"stream":true}"#).unwrap();
        assert!(matches!(p, Prompt::Ids(ref i) if i == &[5, 6, 7]));
        let whole = Capture {
            bytes: br#"{"text":"..","meta_info":{"prompt_tokens":9,"completion_tokens":5}}"#
                .to_vec(),
            truncated: false,
        };
        assert_eq!(output_tokens(&whole), 5);
        let stream = Capture {
            bytes: b"data: {\"text\":\"a\",\"meta_info\":{\"completion_tokens\":1}}\n\ndata: {\"text\":\"ab\",\"meta_info\":{\"completion_tokens\":2}}\n\ndata: [DONE]\n\n".to_vec(),
            truncated: false,
        };
        assert_eq!(output_tokens(&stream), 2);
    }
}
