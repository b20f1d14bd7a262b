//! `headroom cachehit --tokenizer URL`: a trace's text prompts cut by the engine's own tokenizer,
//! and the trace's own token ids checked against it on a sample.
//!
//! A trace of prompts (a benchmark dataset, a mirror, an access log) has no token ids; the
//! blocks the ladder compares must be the engine's, so the engine that serves the prompts cuts
//! them (`/tokenize`, chat template included, as `headroom route --trace` asks it). A trace that
//! gives token ids from another tokenizer and the text beside them is checked on an even sample:
//! past the first token where the ids differ, its blocks are not the engine's.

use std::sync::Arc;
use std::time::Duration;

use cachehit::{Tokenized, TokenizerCheck, Trace};
use loadgen::{Client, ClientConfig, Input, TokenCounter};
use serde_json::value::RawValue;
use tokio::task::JoinSet;

/// Prompts compared with the engine's ids when the trace gives both.
pub const CHECK_SAMPLE: usize = 64;
/// `/tokenize` calls in flight.
const IN_FLIGHT: usize = 8;

#[derive(Debug, thiserror::Error)]
pub enum TokenizeError {
    #[error("--tokenizer {url}: {message}")]
    Engine { url: String, message: String },
    #[error(
        "--tokenizer {url} serves no tokenizer headroom can ask (vLLM's or SGLang's POST \
         /tokenize, llama.cpp's /apply-template and /tokenize)"
    )]
    NoTokenizer { url: String },
    #[error("request {index}: the engine could not tokenize its prompt: {message}")]
    Request { index: usize, message: String },
    #[error("request {index}: its messages are not a JSON array of chat messages")]
    Messages { index: usize },
}

/// A prompt as text, owned so that it can travel to a task.
enum Text {
    Chat(Box<RawValue>),
    Prompt(String),
}

impl Text {
    fn of(q: &cachehit::Request, index: usize) -> Result<Option<Text>, TokenizeError> {
        if let Some(m) = &q.messages {
            if !m.is_array() {
                return Err(TokenizeError::Messages { index });
            }
            let raw = serde_json::value::to_raw_value(m)
                .map_err(|_| TokenizeError::Messages { index })?;
            return Ok(Some(Text::Chat(raw)));
        }
        Ok(q.prompt.clone().map(Text::Prompt))
    }

    fn input(&self) -> Input<'_> {
        match self {
            Text::Chat(m) => Input::Chat(m),
            Text::Prompt(p) => Input::Prompt(p),
        }
    }
}

/// Cuts every request that gives its prompt as text alone with the tokenizer of the engine at
/// `url`, checks up to [`CHECK_SAMPLE`] requests that give both text and token ids, then drops
/// the text. `progress(done, total)` is called as the prompts are cut.
pub async fn tokenize_trace(
    trace: &mut Trace,
    url: &str,
    progress: impl Fn(u64, u64),
) -> Result<(), TokenizeError> {
    // Every message and the document name the URL without its credentials.
    let bare = engines::scrape::without_credentials(url);
    let engine = |message: String| TokenizeError::Engine {
        url: bare.clone(),
        message,
    };
    let cfg = ClientConfig {
        idle_timeout: Duration::from_secs(30),
        ..ClientConfig::default()
    };
    let client = Client::new(url, cfg).map_err(|e| engine(e.to_string()))?;
    let info = loadgen::server::discover(&client)
        .await
        .map_err(|e| engine(e.to_string()))?;
    let counter = TokenCounter::detect(&client, &info)
        .await
        .map_err(|e| engine(e.to_string()))?;
    let Some(endpoint) = counter.endpoint() else {
        return Err(TokenizeError::NoTokenizer { url: bare.clone() });
    };
    let counter = Arc::new(counter);

    let cut: Vec<usize> = (0..trace.requests.len())
        .filter(|&i| trace.requests[i].untokenized())
        .collect();
    let both: Vec<usize> = (0..trace.requests.len())
        .filter(|&i| {
            let q = &trace.requests[i];
            !q.tokens.is_empty() && (q.prompt.is_some() || q.messages.is_some())
        })
        .collect();
    let sample: Vec<usize> = if both.len() <= CHECK_SAMPLE {
        both
    } else {
        (0..CHECK_SAMPLE)
            .map(|k| both[k * both.len() / CHECK_SAMPLE])
            .collect()
    };

    let jobs: Vec<usize> = cut.iter().chain(&sample).copied().collect();
    let total = jobs.len() as u64;
    let mut ids: Vec<(usize, Vec<u32>)> = Vec::with_capacity(jobs.len());
    let mut set = JoinSet::new();
    let mut next = 0;
    let mut done = 0u64;
    while next < jobs.len() || !set.is_empty() {
        while next < jobs.len() && set.len() < IN_FLIGHT {
            let index = jobs[next];
            next += 1;
            let Some(text) = Text::of(&trace.requests[index], index)? else {
                continue;
            };
            let counter = Arc::clone(&counter);
            // The served model's template: a trace names no model.
            set.spawn(async move {
                let r = counter.token_ids(text.input(), None).await;
                (index, r.map_err(|e| e.to_string()))
            });
        }
        let Some(joined) = set.join_next().await else {
            break;
        };
        let (index, r) = joined.map_err(|e| engine(e.to_string()))?;
        let tokens = r.map_err(|message| TokenizeError::Request { index, message })?;
        ids.push((index, tokens));
        done += 1;
        progress(done, total);
    }

    let mut check = TokenizerCheck {
        sampled: 0,
        identical: 0,
        tokens: 0,
        past_first_difference: 0,
    };
    let mut checked = false;
    let mut tokenized = 0u64;
    for (index, engine_ids) in ids {
        let q = &mut trace.requests[index];
        if q.tokens.is_empty() {
            if engine_ids.is_empty() {
                return Err(TokenizeError::Request {
                    index,
                    message: "the engine cut it into no tokens".into(),
                });
            }
            q.tokens = engine_ids;
            tokenized += 1;
        } else {
            checked = true;
            let first = q
                .tokens
                .iter()
                .zip(&engine_ids)
                .position(|(a, b)| a != b)
                .unwrap_or(q.tokens.len().min(engine_ids.len()));
            let same = q.tokens == engine_ids;
            check.sampled += 1;
            check.identical += u64::from(same);
            check.tokens += q.tokens.len() as u64;
            if !same {
                check.past_first_difference += (q.tokens.len() - first) as u64;
            }
        }
    }
    for q in &mut trace.requests {
        q.prompt = None;
        q.messages = None;
    }
    trace.tokenized = Some(Tokenized {
        endpoint: format!("{endpoint} of {bare}"),
        requests: tokenized,
        check: checked.then_some(check),
    });
    Ok(())
}
