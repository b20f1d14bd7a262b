//! `router`: headroom's routing proxy for OpenAI-compatible LLM replicas.
//!
//! - Route by request shape: a request with more than one message is a continuation and goes
//!   to the replica that served its prefix; anything else is spread with a counter.
//! - Conversation identity is the model plus the canonical messages, first N KiB, taken so
//!   that turn k+1 finds turn k's replica whatever the length of the opening turn ([`key`]).
//! - Fail over before the first byte (connection failure, 502/503), never after; demoted
//!   replicas are probed and come back by themselves.
//!
//! Layout: [`key`] (request → conversation keys, pure), [`fleet`] (what a policy may ask of the
//! replicas, and the spreading counter: a leaf), [`policy`] (one type per policy behind
//! one trait, pure), [`affinity`] (the bounded LRU table), [`health`] (live/demoted, in
//! flight), [`metrics`] (Prometheus text), and the proxy, which owns retries: HTTP/1.1 handled
//! directly (`h1`: heads parsed in place, headers copied through as bytes, bodies relayed as they
//! arrive) over keep-alive connections to the replicas (`pool`).
use std::net::SocketAddr;
use std::time::Duration;

pub mod affinity;
pub mod doc;
pub mod fleet;
// Public for the fuzz targets (fuzz/) and the fault tests; not an API of the router.
#[doc(hidden)]
pub mod h1;
pub mod health;
pub mod key;
pub mod metrics;
pub mod observe;
pub mod policy;
mod pool;
mod proxy;

pub use policy::{PolicyKind, Route};
pub use proxy::{Event, EventSink, ReplicaStatus, Router, Summary, OWN_PREFIX};

/// Everything `headroom route` can be told.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    /// Replica base URLs, `http://host:port` (optionally with a path prefix).
    pub backends: Vec<String>,
    pub policy: PolicyKind,
    /// N: how many canonical bytes of a conversation make its identity.
    pub prefix_bytes: usize,
    /// Bound of the affinity table, in conversation keys.
    pub affinity_entries: usize,
    /// Largest request body accepted; larger gets a 413.
    pub max_body: usize,
    /// Time to open a connection to a replica.
    pub connect_timeout: Duration,
    /// For a streamed request (`"stream": true`): time from sending it to a replica to the
    /// replica's first response byte.
    pub first_byte_timeout: Duration,
    /// For any other request: time from sending it to the first response byte, which for a
    /// non-streamed generation is its end (the engine answers when it is done).
    pub request_timeout: Duration,
    /// Engine paths whose body carries a prompt, and the JSON fields that hold it (the first
    /// one present counts). Other paths with a body are read for OpenAI's `messages`/`prompt`.
    pub prompt_paths: Vec<PromptPath>,
    /// Time a client has to send its request head and body.
    pub client_timeout: Duration,
    /// How often demoted replicas are probed.
    pub probe_interval: Duration,
    /// How long a health probe waits for its answer. SGLang's `/health` generates a token and
    /// answers only at the scheduler's next report (up to 20 s while a long prefill runs), so a
    /// short wait would call a busy replica hung.
    pub probe_timeout: Duration,
    /// On SIGINT/SIGTERM, how long open responses may take to finish.
    pub drain: Duration,
    /// Accept loops, one thread and one runtime each (thread per core).
    pub workers: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 9000)),
            backends: Vec::new(),
            policy: PolicyKind::Shape,
            prefix_bytes: 4 << 10,
            affinity_entries: 65_536,
            max_body: 64 << 20,
            connect_timeout: Duration::from_secs(2),
            first_byte_timeout: Duration::from_secs(300),
            request_timeout: Duration::from_secs(3600),
            prompt_paths: Vec::new(),
            client_timeout: Duration::from_secs(60),
            probe_interval: Duration::from_secs(2),
            probe_timeout: Duration::from_secs(30),
            drain: Duration::from_secs(30),
            workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// A path of an engine's own API whose request body carries a prompt, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptPath {
    /// The path as the client sends it (`/completion`, `/generate`), without a query.
    pub path: String,
    /// The JSON fields that may hold the prompt, in order; `messages` is read as chat messages,
    /// any other field as a prompt (a string, or an array of strings or tokens).
    pub fields: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    #[error("backend {url:?}: {reason}")]
    Backend { url: String, reason: String },
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Config(String),
}
