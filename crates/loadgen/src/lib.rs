//! OpenAI-compatible client for headroom: streaming requests timed per token, the server's own
//! tokenizer for exact prompt lengths, server limits and load, the turn client, and the probes
//! built on them (depth, prefix, turns).

pub mod bench_doc;
pub mod bench_suite;
pub mod client;
pub mod conversation;
pub mod corpus;
pub mod error;
pub mod load;
pub mod probe;
pub mod progress;
pub mod prompt;
pub mod server;
pub mod sse;
pub mod stats;
pub mod tokenize;
pub mod traffic;
pub mod vllm_clock;

pub use client::{
    CachedTokens, ChatMessage, Client, ClientConfig, EngineTimings, GenCountSource, Prompt,
    StreamRecord, StreamRequest,
};
pub use conversation::Conversation;
pub use error::{Error, Result};
pub use load::{current_load, Load};
pub use prompt::{build_prompt, new_salt, BuiltPrompt, PromptSizer};
pub use server::{discover, ContextLimit, Engine, ServerInfo};
pub use tokenize::{CountBasis, Input, TokenCounter, Tokens};
