//! `headroom probe depth|prefix|turns`: ask a live OpenAI-compatible server what its counters
//! cannot answer. The measuring lives in the loadgen crate; this file parses
//! arguments, draws progress on stderr and emits the document; the table, chart and CSV are
//! drawn by `render::probe`.

use std::time::Duration;

use crate::cmd::progress::Bar;
use anyhow::{Context, Result};
use loadgen::probe::{
    self, DepthConfig, PrefixConfig, ProbeDoc, ProbeReport, Progress, TurnsConfig,
};
use loadgen::{discover, Client, ClientConfig, ServerInfo};
use std::path::PathBuf;

const EXAMPLES: &str = "Examples:
  headroom probe depth  --url http://127.0.0.1:8000 --depths 512,2k,8k,16k --gen 128 --repeats 3
  headroom probe prefix --url http://127.0.0.1:8080 --tokens 4k
  headroom probe turns  --url http://127.0.0.1:8000 --turns 8 --conversations 4 --context 2k
  headroom probe depth  --url http://gpu-box:8000 --model Qwen/Qwen3-8B --json > depth.json
  headroom probe turns  --url http://router:9000 --csv > turns.csv
  headroom probe depth  --url http://127.0.0.1:8000 --html depth.html

Token sizes accept a k suffix (2k = 2048). Progress goes to stderr; --json and --csv go to stdout.";

#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(subcommand)]
    probe: Which,
}

#[derive(clap::Subcommand)]
enum Which {
    /// Is decode context-bound? Sweep decode rate across prompt depth and fit a line.
    #[command(after_help = "Examples:
  headroom probe depth --url http://127.0.0.1:8000 --depths 512,2k,8k,16k
  headroom probe depth --url http://127.0.0.1:8080 --depths 64,512,1k,2k --gen 32 --repeats 2 --json
  headroom probe depth --url http://127.0.0.1:8080 --max-repeats 20 --max-time 15m

Each round sends every depth a salted prompt cold, then the same prompt warm. Prompt lengths are
exact where the server tokenizes (llama.cpp and vLLM /tokenize), otherwise estimated (the output
says which). Decode tok/s is the engine's own (llama-server's timings) where every response
carries it, else the streamed token arrival times after the first token; the output says which.
After --repeats rounds, and after each round past them, the slope is judged (each look at its
share of 5 %); rounds stop when it decides, at --max-repeats, or at --max-time.
Verdict: flat (up to the deepest depth probed, context is not the cost: KV/attention tuning can
win back at most the interval's worst fall there), context-bound (the
drop per 10k tokens is reported), or inconclusive (the interval is too wide; the fall it could
have detected is said).
Depths beyond the server's context are refused before anything is sent.")]
    Depth(DepthArgs),
    /// Is the prefix cache hit? One prompt twice to an idle server, plus a salted control.
    #[command(after_help = "Examples:
  headroom probe prefix --url http://127.0.0.1:8080
  headroom probe prefix --url http://127.0.0.1:8000 --tokens 8k --repeats 3 --json

Refuses a busy server (running or waiting requests on /metrics, or busy llama.cpp /slots)
unless --force: a busy server's TTFT says nothing about its cache. The verdict reads the engine's
own cached-token count (llama.cpp timings.cache_n, usage.prompt_tokens_details.cached_tokens)
where reported, else warm against cold TTFT.")]
    Prefix(PrefixArgs),
    /// Do agent-loop turns keep their cache? Sequential-turn conversations in parallel.
    #[command(after_help = "Examples:
  headroom probe turns --url http://127.0.0.1:8000 --turns 8 --conversations 4 --context 2k
  headroom probe turns --url http://router:9000 --turns 6 --conversations 8 --csv

Each turn re-sends the whole history plus a short new message, as an agent loop does. Warm turns
(2..) should reach their first token much sooner than first turns despite longer contexts; when
they do not, cached prefixes are being lost (eviction, or a router spreading a conversation).")]
    Turns(TurnsArgs),
}

#[derive(clap::Args)]
struct Common {
    /// The server's base URL (OpenAI-compatible; a trailing /v1 is fine).
    #[arg(long)]
    url: String,
    /// Model name to send (default: the first model the server lists).
    #[arg(long)]
    model: Option<String>,
    /// Bearer token for servers that need one (default: the HEADROOM_API_KEY variable).
    #[arg(long)]
    api_key: Option<String>,
    /// Seconds to wait for a request's first token (queueing and prefill of long prompts).
    #[arg(long, default_value_t = 600, value_name = "S")]
    timeout: u64,
    /// Seconds of silence allowed between streamed tokens.
    #[arg(long, default_value_t = 60, value_name = "S")]
    idle_timeout: u64,
    /// Print the report as JSON (schema headroom.probe/1, see docs/json/probe.md).
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print every sample as CSV.
    #[arg(long)]
    csv: bool,
    /// Also write a self-contained HTML page (`-` for stdout): depth plots tok/s against depth
    /// with the fit and its interval; prefix and turns plot cold against warm.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(clap::Args)]
struct DepthArgs {
    #[command(flatten)]
    common: Common,
    /// Prompt depths in tokens, comma-separated (k = 1024).
    #[arg(long, default_value = "512,2k,8k,16k", value_parser = parse_token_list)]
    depths: TokenList,
    /// Tokens generated per request.
    #[arg(long, default_value_t = 128)]
    gen: u32,
    /// Rounds (every depth cold then warm) before the first look at the slope.
    #[arg(long, default_value_t = 3)]
    repeats: u32,
    /// The most rounds: one more at a time until the slope's interval decides.
    #[arg(long, default_value_t = 12)]
    max_repeats: u32,
    /// No round starts after this long (90, 2s, 5m).
    #[arg(long, value_parser = crate::args::parse_duration, default_value = "10m")]
    max_time: Duration,
}

#[derive(clap::Args)]
struct PrefixArgs {
    #[command(flatten)]
    common: Common,
    /// Prompt length in tokens (k = 1024).
    #[arg(long, default_value = "2k", value_parser = parse_tokens)]
    tokens: u64,
    /// Tokens generated per request.
    #[arg(long, default_value_t = 16)]
    gen: u32,
    /// Cold/warm/salted triples.
    #[arg(long, default_value_t = 1)]
    repeats: u32,
    /// Run even on a busy server, or one whose load cannot be read.
    #[arg(long)]
    force: bool,
}

#[derive(clap::Args)]
struct TurnsArgs {
    #[command(flatten)]
    common: Common,
    /// Turns per conversation (the first is cold; the rest should be warm).
    #[arg(long, default_value_t = 8)]
    turns: u32,
    /// Conversations run in parallel (also the in-flight request limit).
    #[arg(long, default_value_t = 4)]
    conversations: u32,
    /// Tokens of text in each conversation's first message (k = 1024).
    #[arg(long, default_value = "2k", value_parser = parse_tokens)]
    context: u64,
    /// Tokens generated per turn.
    #[arg(long, default_value_t = 64)]
    gen: u32,
}

#[derive(Clone)]
struct TokenList(Vec<u64>);

use crate::args::parse_tokens;

fn parse_token_list(s: &str) -> std::result::Result<TokenList, String> {
    let v = s
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(parse_tokens)
        .collect::<std::result::Result<Vec<_>, _>>()?;
    if v.is_empty() {
        return Err("no depths given".into());
    }
    Ok(TokenList(v))
}

pub fn run(args: Args) -> Result<crate::output::Exit> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(async {
        match args.probe {
            Which::Depth(a) => depth(a).await,
            Which::Prefix(a) => prefix(a).await,
            Which::Turns(a) => turns(a).await,
        }
    })?;
    Ok(crate::output::Exit::Ok)
}

struct Setup {
    client: Client,
    info: ServerInfo,
    bar: Bar,
}

async fn setup(c: &Common, max_in_flight: usize) -> Result<Setup> {
    let client = Client::new(
        &c.url,
        ClientConfig {
            first_token_timeout: Duration::from_secs(c.timeout),
            idle_timeout: Duration::from_secs(c.idle_timeout),
            max_in_flight,
            api_key: c
                .api_key
                .clone()
                .or_else(|| std::env::var("HEADROOM_API_KEY").ok()),
            ..ClientConfig::default()
        },
    )?;
    let bar = Bar::new(c.quiet, "probe ", "requests");
    bar.note(&format!("asking {} what it serves", client.base_url()));
    let mut info = discover(&client).await?;
    if let Some(m) = &c.model {
        info.model = Some(m.clone());
    }
    Ok(Setup { client, info, bar })
}

async fn depth(a: DepthArgs) -> Result<()> {
    let s = setup(&a.common, 1).await?;
    let cfg = DepthConfig {
        depths: a.depths.0,
        gen: a.gen,
        repeats: a.repeats,
        max_repeats: a.max_repeats,
        max_time: Some(a.max_time),
        model: a.common.model.clone(),
        ..DepthConfig::default()
    };
    if s.info.context.is_none() {
        s.bar.note(
            "the server does not report its context length: depths cannot be checked in advance",
        );
    }
    let r = probe::run_depth(&s.client, &s.info, &cfg, &s.bar)
        .await
        .context("depth probe")?;
    s.bar.finish();
    emit(
        &a.common,
        r,
        ProbeReport::Depth,
        render::probe::depth_csv,
        render::probe::depth_human,
    )
}

async fn prefix(a: PrefixArgs) -> Result<()> {
    let s = setup(&a.common, 1).await?;
    let cfg = PrefixConfig {
        tokens: a.tokens,
        gen: a.gen,
        repeats: a.repeats,
        force: a.force,
        model: a.common.model.clone(),
        ..PrefixConfig::default()
    };
    let r = probe::run_prefix(&s.client, &s.info, &cfg, &s.bar)
        .await
        .context("prefix probe")?;
    s.bar.finish();
    emit(
        &a.common,
        r,
        ProbeReport::Prefix,
        render::probe::prefix_csv,
        render::probe::prefix_human,
    )
}

async fn turns(a: TurnsArgs) -> Result<()> {
    let s = setup(&a.common, a.conversations.max(1) as usize).await?;
    let cfg = TurnsConfig {
        turns: a.turns,
        conversations: a.conversations,
        context: a.context,
        gen: a.gen,
        model: a.common.model.clone(),
    };
    let r = probe::run_turns(&s.client, &s.info, &cfg, &s.bar)
        .await
        .context("turns probe")?;
    s.bar.finish();
    emit(
        &a.common,
        r,
        ProbeReport::Turns,
        render::probe::turns_csv,
        render::probe::turns_human,
    )
}

/// The typed document (`headroom.probe/1`) goes to --json and to the page; the table or CSV is
/// rendered from the report before it is wrapped.
fn emit<T>(
    c: &Common,
    r: T,
    wrap: fn(T) -> ProbeReport,
    csv: fn(&T) -> String,
    human: fn(&T) -> String,
) -> Result<()> {
    let text = if c.json {
        None
    } else if c.csv {
        Some(csv(&r))
    } else {
        Some(human(&r))
    };
    let doc = ProbeDoc::new(wrap(r));
    if let Some(path) = &c.html {
        super::common::write_page(path, &::report::probe(&doc))?;
    }
    match text {
        None => crate::output::json(&doc),
        Some(t) => crate::output::emit(&t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_sizes() {
        assert_eq!(parse_tokens("512"), Ok(512));
        assert_eq!(parse_tokens("2k"), Ok(2048));
        assert_eq!(parse_tokens("16K"), Ok(16384));
        assert_eq!(parse_tokens("1.5k"), Ok(1536));
        assert!(parse_tokens("0").is_err());
        assert!(parse_tokens("lots").unwrap_err().contains("lots"));
        assert_eq!(
            parse_token_list("64, 512,1k").unwrap().0,
            vec![64, 512, 1024]
        );
        assert!(parse_token_list(",").is_err());
    }
}
