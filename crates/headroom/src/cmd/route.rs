//! `headroom route`: a prefix-cache-aware router in front of OpenAI-compatible replicas
//!. The router itself is the `router` crate; this file is its command line,
//! its startup and shutdown reports, and signal handling.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::args::{parse_duration, parse_size};
use anyhow::{Context, Result};
use router::doc::RouteDoc;
use router::{Config, Event, EventSink, PolicyKind, Router};

use crate::output::{self, Exit};

#[derive(clap::Args)]
#[command(after_help = "\
Policies:
  shape         (default) a request with more than one message is a continuation: it goes to
                the replica that served its prefix; anything else is spread with a counter
  round-robin   every request to the next replica (loses every other cache hit)
  pin           every request to the replica that served its first N KiB, new ones included
                (keeps every hit, can pile a shared prefix onto one card)
  least-loaded  the replica with the fewest requests in flight through this router

Conversation identity is the model plus the canonical messages, first --prefix-kib KiB, taken
at the end of each earlier turn, so turn k+1 finds turn k's replica whether the conversation
opens with a long system prompt or a few words. Design: docs/route.md.

Transparent: every path and method is forwarded, with the engine's status, headers and body
unchanged (OpenAI /v1/*, llama.cpp's /completion, /props, /slots, /tokenize, the web UI at /,
SGLang's /generate, vLLM's /tokenize ..., CORS preflight). A request whose body carries a prompt
is routed by the policy: OpenAI's `messages`/`prompt` on any path, and each engine's own prompt
fields on its own paths (/completion: prompt, /generate: text or inputs, /infill: input_extra
...). Everything else goes to the next live replica (a counter). Cache flushes and other
per-replica actions (SGLang's /flush_cache, vLLM's /reset_prefix_cache, llama.cpp's /slots
actions) reach one replica: send them to each replica's own address.

The router's own endpoints live under /headroom/, which no engine serves:
  /headroom/metrics  Prometheus text (headroom_route_*)
  /headroom/health   200 while at least one replica is live, else 503 (JSON: status, live)
/health itself is forwarded: a live replica's own /health answer, or the router's 503
(no_live_replica) when none is live, so a load balancer in front can keep probing /health.

Failover: a refused or broken connection, or a 502/503, before the first response byte demotes
the replica and retries on a live one; nothing is retried once bytes reached the client.
Demoted replicas are probed (GET /health, else /v1/models) and come back by themselves.

Timeouts: a streamed request (\"stream\": true) waits --first-byte-timeout for its first byte
(the first token); any other request waits --request-timeout, as a non-streamed generation
answers only when it is done. Nothing bounds a response once it has started.

Cancellation: a client that hangs up, before or after the first byte, has its request to the
replica dropped at once: an engine that watches its connections (llama-server, vLLM) then
frees the slot. A client that half-closes its sending side counts as hung up.

Recording (--trace FILE): each request that carries a prompt is written, once it ends, as the
chain hashes of its prompt's KV blocks (never its text nor its token ids), with its replica,
conversation, times and output tokens; with the replicas' KV pools and prefix-cache counters
(every 10 s and at the end). The token ids come from the serving replica's own /tokenize, asked
after the response, behind a bounded queue (dropped requests are counted at exit). Read it with
`headroom cachehit FILE`: the hit-rate ladder (docs/cachehit.md).

Every proxied response carries x-headroom-replica and x-headroom-route (pinned, spread or
failover). SIGINT/SIGTERM stop accepting and let open streams finish for up to --drain.

Examples:
  headroom route --backend http://gpu0:8000 --backend http://gpu1:8000
  headroom route --listen 0.0.0.0:9000 --prefix-kib 16 --backend http://a:8000 \\
      --backend http://b:8000
  headroom route --policy round-robin --backend http://a:8000 --backend http://b:8000
  headroom route --listen 127.0.0.1:0 --json --backend http://127.0.0.1:8080
  headroom route --trace route.jsonl --backend http://a:8000 --backend http://b:8000
  headroom cachehit route.jsonl         # the hit-rate ladder of what it recorded
  curl -s localhost:9000/headroom/metrics | grep headroom_route_pins_total
  curl -s localhost:9000/props          # llama-server's own endpoint, through the router

JSON schema, metric names and error bodies: docs/json/route.md (headroom.route/1).")]
pub struct Args {
    /// Address to listen on; port 0 picks a free port (the bound address is printed).
    #[arg(long, default_value = "127.0.0.1:9000", value_name = "ADDR")]
    listen: SocketAddr,
    /// A replica's base URL (http://host:port); repeat for each replica. A URL with userinfo
    /// (http://user:password@host:port) sends it to the replica as Basic auth when the client's
    /// request has no Authorization of its own; reports, logs, headers and metrics name the
    /// replica without it, and errors print the password as ***.
    #[arg(long = "backend", value_name = "URL", required = true)]
    backends: Vec<String>,
    /// Routing policy: shape, round-robin, pin or least-loaded.
    #[arg(long, default_value = "shape", value_parser = parse_policy)]
    policy: PolicyKind,
    /// Conversation identity: the first N KiB of the canonical conversation. Safe to raise
    /// above your longest shared system prompt (then conversations sharing it are told apart).
    #[arg(long, default_value_t = 4, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    prefix_kib: u32,
    /// Most conversation keys the affinity table holds (least recently used leave first).
    #[arg(long, default_value_t = 65_536, value_name = "N")]
    affinity_entries: usize,
    /// Largest request body accepted (4096, 512KiB, 64MiB ...); larger gets a JSON 413.
    #[arg(long, default_value = "64MiB", value_name = "SIZE", value_parser = parse_size)]
    max_body: u64,
    /// Time to open a connection to a replica (500ms, 2s ...).
    #[arg(long, default_value = "2s", value_name = "DURATION", value_parser = parse_duration)]
    connect_timeout: Duration,
    /// For a streamed request ("stream": true): time from sending it to a replica to its first
    /// response byte. Past it the replica is probed: if the probe answers, the client gets a 504
    /// and nothing is retried (the replica may still be prefilling a long prompt); if not, the
    /// replica is demoted as hung and the request fails over.
    #[arg(long, default_value = "300s", value_name = "DURATION", value_parser = parse_duration)]
    first_byte_timeout: Duration,
    /// For any other request (a non-streamed generation answers only when it is done): time
    /// from sending it to a replica to its first response byte; past it, as for
    /// --first-byte-timeout (a 504, or failover when the replica's probe fails too).
    #[arg(long, default_value = "1h", value_name = "DURATION", value_parser = parse_duration)]
    request_timeout: Duration,
    /// Time a client has to send its request head and body.
    #[arg(long, default_value = "60s", value_name = "DURATION", value_parser = parse_duration)]
    client_timeout: Duration,
    /// How often demoted replicas are probed.
    #[arg(long, default_value = "2s", value_name = "DURATION", value_parser = parse_duration)]
    probe_interval: Duration,
    /// How long a health probe (GET /health, else /v1/models) waits for its answer before the
    /// replica counts as down. SGLang's /health generates a token and can take up to 20 s while
    /// a long prefill runs; vLLM's and llama.cpp's answer at once.
    #[arg(long, default_value = "30s", value_name = "DURATION", value_parser = parse_duration)]
    probe_timeout: Duration,
    /// On SIGINT/SIGTERM, how long open responses may take to finish before they are cut.
    #[arg(long, default_value = "30s", value_name = "DURATION", value_parser = parse_duration)]
    drain: Duration,
    /// Accept loops, one thread each with its own connections to the replicas (thread per
    /// core; the kernel spreads client connections over them). Default: the CPU count.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    workers: Option<u16>,
    /// Print the startup and shutdown reports as JSON lines (headroom.route/1) on stdout.
    #[arg(long)]
    json: bool,
    /// Record the traffic as a prefix-cache trace in FILE (created or truncated), for
    /// `headroom cachehit FILE`: block hashes of each prompt, never its text.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
}

fn parse_policy(s: &str) -> Result<PolicyKind, String> {
    s.parse()
}

pub fn run(args: Args) -> Result<Exit> {
    // Worker 0 and the prober run on this thread; the router starts the other workers.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(serve(args))?;
    Ok(Exit::Ok)
}

/// A document as one line with its keys in alphabetical order, as route has always printed
/// them (through `serde_json::Value`, whose maps are sorted).
fn doc_line(doc: &RouteDoc) -> Result<()> {
    output::line(serde_json::to_value(doc)?)
}

async fn serve(args: Args) -> Result<()> {
    let max_body = usize::try_from(args.max_body)
        .context("--max-body is larger than this machine can hold")?;
    let config = Config {
        listen: args.listen,
        backends: args.backends,
        policy: args.policy,
        prefix_bytes: args.prefix_kib as usize * 1024,
        affinity_entries: args.affinity_entries,
        max_body,
        connect_timeout: args.connect_timeout,
        first_byte_timeout: args.first_byte_timeout,
        request_timeout: args.request_timeout,
        prompt_paths: engines::engine::all_prompt_paths()
            .into_iter()
            .map(|(path, fields)| router::PromptPath {
                path: path.to_string(),
                fields: fields.into_iter().map(String::from).collect(),
            })
            .collect(),
        client_timeout: args.client_timeout,
        probe_interval: args.probe_interval,
        probe_timeout: args.probe_timeout,
        drain: args.drain,
        workers: args.workers.map_or(Config::default().workers, usize::from),
    };
    let events: EventSink =
        Arc::new(|e: &Event| eprintln!("route: {}", render::route::describe(e)));
    let router = Router::bind(config.clone(), events)
        .await
        .with_context(|| format!("starting the router on {}", config.listen))?;
    let addr = router.local_addr();
    let replicas = router.replicas();
    let recorder = match &args.trace {
        Some(path) => {
            let names: Vec<String> = replicas.iter().map(|r| r.replica.clone()).collect();
            let started = routetrace::Recorder::start(path, &config.backends, &names)
                .await
                .context("--trace")?;
            for note in &started.notes {
                eprintln!("route: --trace: {note}");
            }
            router.observe(started.recorder.observer());
            Some(started.recorder)
        }
        None => None,
    };
    if args.json {
        doc_line(&RouteDoc::listening(&config, addr, &replicas))?;
    } else {
        output::emit(&render::route::listening(
            &config,
            addr,
            args.prefix_kib,
            &replicas,
        ))?;
    }
    let summary = router.serve(shutdown_signal()).await;
    if let (Some(recorder), Some(path)) = (recorder, &args.trace) {
        let t = recorder.finish().await;
        eprintln!(
            "route: --trace {}: {} request(s) recorded",
            path.display(),
            t.recorded
        );
        if t.dropped + t.unfinished > 0 {
            eprintln!(
                "route: --trace: {} request(s) not recorded: the tokenizer queue fell behind \
                 (the trace undercounts them)",
                t.dropped + t.unfinished
            );
        }
        if t.untokenized > 0 {
            eprintln!(
                "route: --trace: {} request(s) not recorded: no token ids for their prompt (a \
                 replica without /tokenize, a prompt of token ids, or /tokenize failed)",
                t.untokenized
            );
        }
        if t.refused > 0 {
            eprintln!(
                "route: --trace: {} request(s) not recorded: the engine refused them (4xx), so \
                 they looked no prefix up",
                t.refused
            );
        }
        if let Some(e) = t.write_error {
            eprintln!("route: --trace: writing the trace failed: {e}");
        }
    }
    if args.json {
        doc_line(&RouteDoc::stopped(&summary))?;
    } else {
        output::emit(&render::route::stopped(&summary))?;
    }
    Ok(())
}

/// Resolves on SIGINT or SIGTERM (SIGINT only where SIGTERM cannot be watched).
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
