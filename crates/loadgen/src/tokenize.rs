//! Token counts from the server's own tokenizer where it has one (llama.cpp and vLLM both serve
//! `POST /tokenize`), else a chars-per-token ratio: calibrated on a sample through the server's
//! `usage.prompt_tokens`, or a stated default. Every count carries its basis.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::client::{Client, StreamRequest};
use crate::corpus::corpus_text;
use crate::error::{Error, Result};
use crate::server::{Engine, ServerInfo};

/// Characters per token assumed when nothing on the server can count (English BPE text).
pub const DEFAULT_CHARS_PER_TOKEN: f64 = 4.0;

/// How a token count was obtained.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum CountBasis {
    /// Counted by the server's tokenizer: exact for the text as the server will tokenize it.
    Tokenizer { endpoint: String },
    /// Estimated with a ratio measured on a sample through the server.
    Calibrated {
        chars_per_token: f64,
        sample_chars: u64,
        sample_tokens: u64,
        via: String,
    },
    /// Estimated with a fixed ratio: no tokenizer and no usage counts were reachable.
    Default { chars_per_token: f64 },
}

impl CountBasis {
    pub fn is_exact(&self) -> bool {
        matches!(self, CountBasis::Tokenizer { .. })
    }

    /// One line for people.
    pub fn describe(&self) -> String {
        match self {
            CountBasis::Tokenizer { endpoint } => format!("exact, by {endpoint}"),
            CountBasis::Calibrated {
                chars_per_token,
                sample_chars,
                sample_tokens,
                via,
            } => format!(
                "estimated at {chars_per_token:.2} chars/token, calibrated on {sample_chars} chars = \
{sample_tokens} tokens by {via}"
            ),
            CountBasis::Default { chars_per_token } => {
                format!("estimate: default {chars_per_token} chars/token (no tokenizer reachable)")
            }
        }
    }
}

/// A token count and how it was obtained.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tokens {
    pub n: u64,
    pub basis: CountBasis,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    /// `POST /tokenize {content, add_special}` → `{tokens: [...]}`.
    LlamaCpp,
    /// `POST /tokenize {model, prompt, add_special_tokens}` → `{count, tokens}`.
    Vllm,
}

/// A request's prompt, to be turned into the token ids the engine computes for it.
#[derive(Debug, Clone, Copy)]
pub enum Input<'a> {
    /// A chat's `messages` (JSON, as the client sent them): the engine's chat template applies.
    Chat(&'a RawValue),
    /// A completion's `prompt` text.
    Prompt(&'a str),
}

#[derive(Serialize)]
struct VllmTokenize<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    messages: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt: Option<&'a str>,
}

#[derive(Serialize)]
struct ApplyTemplate<'a> {
    messages: &'a RawValue,
}

#[derive(Deserialize)]
struct Templated {
    prompt: String,
}

#[derive(Serialize)]
struct LlamaTokenize<'a> {
    content: &'a str,
    add_special: bool,
    parse_special: bool,
}

#[derive(Deserialize)]
struct TokenIds {
    tokens: Vec<u32>,
}

/// Counts tokens the way the server will.
#[derive(Clone)]
pub struct TokenCounter {
    client: Client,
    model: Option<String>,
    api: Option<Api>,
    /// The engine discovery named: SGLang serves vLLM's `/tokenize` dialect, and the label
    /// names the engine that answered, not the dialect's author.
    engine: Option<Engine>,
    basis: CountBasis,
    /// /tokenize calls made through this counter and its clones (what prompt sizing costs).
    calls: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl TokenCounter {
    /// Find the server's tokenizer; failing that, calibrate through `usage.prompt_tokens` of a
    /// one-token completion; failing that, the default ratio. Unreachable servers are errors.
    pub async fn detect(client: &Client, info: &ServerInfo) -> Result<Self> {
        let order = match info.engine {
            Some(Engine::Vllm | Engine::Sglang) => [Api::Vllm, Api::LlamaCpp],
            _ => [Api::LlamaCpp, Api::Vllm],
        };
        let mut counter = Self {
            client: client.clone(),
            model: info.model.clone(),
            api: None,
            engine: info.engine,
            basis: CountBasis::Default {
                chars_per_token: DEFAULT_CHARS_PER_TOKEN,
            },
            calls: Default::default(),
        };
        for api in order {
            match counter
                .tokenize_with(api, "Hello world, this is a test.")
                .await
            {
                Ok(n) if n > 0 => {
                    counter.api = Some(api);
                    counter.basis = CountBasis::Tokenizer {
                        endpoint: match api {
                            Api::LlamaCpp => "llama.cpp POST /tokenize".into(),
                            Api::Vllm => format!("{} POST /tokenize", counter.dialect_server()),
                        },
                    };
                    return Ok(counter);
                }
                Err(e @ (Error::Unreachable { .. } | Error::Timeout { .. })) => return Err(e),
                _ => {}
            }
        }
        let sample = corpus_text(400);
        let mut req = StreamRequest::text(sample.clone(), 1);
        req.model = info.model.clone();
        match client.stream(&req).await {
            Ok(rec) => {
                if let Some(pt) = rec.prompt_tokens.filter(|&n| n > 0) {
                    counter.basis = CountBasis::Calibrated {
                        chars_per_token: sample.len() as f64 / pt as f64,
                        sample_chars: sample.len() as u64,
                        sample_tokens: pt,
                        via: "usage.prompt_tokens of a 1-token completion".into(),
                    };
                }
            }
            Err(e @ (Error::Unreachable { .. } | Error::Timeout { .. })) => return Err(e),
            Err(_) => {}
        }
        Ok(counter)
    }

    /// A counter that never asks the server (for tests and offline use).
    pub fn estimate_only(client: &Client, chars_per_token: f64) -> Self {
        Self {
            client: client.clone(),
            model: None,
            api: None,
            engine: None,
            basis: CountBasis::Default { chars_per_token },
            calls: Default::default(),
        }
    }

    pub fn basis(&self) -> &CountBasis {
        &self.basis
    }

    pub fn is_exact(&self) -> bool {
        self.basis.is_exact()
    }

    /// Characters per token: measured, calibrated or default (exact counters use their
    /// calibration only to size first guesses).
    pub fn chars_per_token(&self) -> f64 {
        match &self.basis {
            CountBasis::Calibrated {
                chars_per_token, ..
            }
            | CountBasis::Default { chars_per_token } => *chars_per_token,
            CountBasis::Tokenizer { .. } => DEFAULT_CHARS_PER_TOKEN,
        }
    }

    /// Tokens in `text` as a prompt (special tokens such as BOS included, as the completion
    /// endpoints add them).
    pub async fn count(&self, text: &str) -> Result<Tokens> {
        match self.api {
            Some(api) => Ok(Tokens {
                n: self.tokenize_with(api, text).await?,
                basis: self.basis.clone(),
            }),
            None => Ok(Tokens {
                n: (text.len() as f64 / self.chars_per_token()).round() as u64,
                basis: self.basis.clone(),
            }),
        }
    }

    /// The server's tokenize endpoint(s), when it has one: token ids can be asked for.
    pub fn endpoint(&self) -> Option<String> {
        match self.api? {
            Api::LlamaCpp => Some("llama.cpp POST /apply-template + POST /tokenize".into()),
            Api::Vllm => Some(format!("{} POST /tokenize", self.dialect_server())),
        }
    }

    /// Who answers vLLM's `/tokenize` dialect here: SGLang where discovery said so, else vLLM.
    fn dialect_server(&self) -> &'static str {
        match self.engine {
            Some(Engine::Sglang) => Engine::Sglang.name(),
            _ => Engine::Vllm.name(),
        }
    }

    /// The token ids the engine computes for `input`, chat template included, by the server's
    /// own tokenizer: vLLM's `/tokenize` takes the messages (or prompt) as its completions do;
    /// llama.cpp's `/apply-template` renders a chat, whose text `/tokenize` then cuts with
    /// special tokens parsed, as its chat endpoint does. `model` is the request's own (else the
    /// served one). A server without a tokenizer is a refusal.
    pub async fn token_ids(&self, input: Input<'_>, model: Option<&str>) -> Result<Vec<u32>> {
        let Some(api) = self.api else {
            return Err(Error::Refused(format!(
                "{} serves no /tokenize: token ids cannot be read",
                self.client.base_url()
            )));
        };
        self.calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let url = self.client.url("/tokenize");
        let v = match (api, input) {
            (Api::Vllm, input) => {
                let (messages, prompt) = match input {
                    Input::Chat(m) => (Some(m), None),
                    Input::Prompt(p) => (None, Some(p)),
                };
                let body = VllmTokenize {
                    model: model.or(self.model.as_deref()),
                    messages,
                    prompt,
                };
                self.client
                    .post_json("/tokenize", &body_value(&url, &body)?)
                    .await?
            }
            (Api::LlamaCpp, input) => {
                let templated;
                let content = match input {
                    Input::Chat(messages) => {
                        let v = self
                            .client
                            .post_json(
                                "/apply-template",
                                &body_value(&url, &ApplyTemplate { messages })?,
                            )
                            .await?;
                        templated = read::<Templated>(&self.client.url("/apply-template"), v)?;
                        templated.prompt.as_str()
                    }
                    Input::Prompt(p) => p,
                };
                let body = LlamaTokenize {
                    content,
                    add_special: true,
                    parse_special: true,
                };
                self.client
                    .post_json("/tokenize", &body_value(&url, &body)?)
                    .await?
            }
        };
        Ok(read::<TokenIds>(&url, v)?.tokens)
    }

    /// /tokenize calls made so far through this counter and its clones.
    pub fn tokenize_calls(&self) -> u64 {
        self.calls.load(std::sync::atomic::Ordering::Relaxed)
    }

    async fn tokenize_with(&self, api: Api, text: &str) -> Result<u64> {
        self.calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let url = self.client.url("/tokenize");
        let v = match api {
            Api::LlamaCpp => {
                self.client
                    .post_json(
                        "/tokenize",
                        &json!({"content": text, "add_special": true, "parse_special": true}),
                    )
                    .await?
            }
            Api::Vllm => {
                let mut body = json!({"prompt": text, "add_special_tokens": true});
                if let Some(m) = &self.model {
                    body["model"] = json!(m);
                }
                self.client.post_json("/tokenize", &body).await?
            }
        };
        let n = match api {
            Api::LlamaCpp => v
                .get("tokens")
                .and_then(Value::as_array)
                .map(|a| a.len() as u64),
            Api::Vllm => v.get("count").and_then(Value::as_u64).or_else(|| {
                v.get("tokens")
                    .and_then(Value::as_array)
                    .map(|a| a.len() as u64)
            }),
        };
        n.ok_or_else(|| Error::Protocol {
            url,
            at: "body".into(),
            detail: "no token list or count in the /tokenize answer".into(),
        })
    }
}

/// An answer read as its typed shape.
fn read<T: serde::de::DeserializeOwned>(url: &str, v: Value) -> Result<T> {
    serde_json::from_value(v).map_err(|e| Error::Protocol {
        url: url.to_string(),
        at: "body".into(),
        detail: e.to_string(),
    })
}

/// A request body as the JSON value `Client::post_json` sends.
fn body_value<T: Serialize>(url: &str, body: &T) -> Result<Value> {
    serde_json::to_value(body).map_err(|e| Error::Refused(format!("{url}: {e}")))
}
