//! OpenAI-compatible client for headroom: streaming requests timed per token, the server's own
//! tokenizer for exact prompt lengths, server limits and load, the turn client, and the probes
//! built on them (depth, prefix, turns).

pub mod client;
pub mod error;
pub mod sse;
pub mod stats;

pub use client::{
    CachedTokens, ChatMessage, Client, ClientConfig, EngineTimings, GenCountSource, Prompt,
    StreamRecord, StreamRequest,
};
pub use error::{Error, Result};
