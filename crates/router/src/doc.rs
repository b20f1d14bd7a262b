//! The `headroom.route/1` documents: one JSON line when the router listens, one when it stops.

use serde::{Deserialize, Serialize};

use crate::{Config, ReplicaStatus, Summary};

pub const SCHEMA: &str = "headroom.route/1";

/// A line of `headroom route --json`, told apart by its `event`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case", deny_unknown_fields)]
pub enum RouteDoc {
    /// The router is bound and serving.
    Listening {
        schema: String,
        /// The bound address (port 0 resolved).
        listen: String,
        policy: String,
        prefix_kib: u64,
        affinity_entries: usize,
        max_body: usize,
        workers: usize,
        replicas: Vec<ReplicaState>,
    },
    /// The router stopped (SIGINT/SIGTERM) and drained.
    Stopped {
        schema: String,
        drained: bool,
        cut_connections: usize,
        responses: Responses,
        /// Requests the router answered itself (413, 502 with no live replica ...).
        rejected: u64,
        replicas: Vec<ReplicaTotals>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplicaState {
    pub replica: String,
    pub live: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Responses {
    pub pinned: u64,
    pub spread: u64,
    pub failover: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplicaTotals {
    pub replica: String,
    pub live: bool,
    pub requests: u64,
    pub pins: u64,
    pub failures: u64,
    pub demotions: u64,
}

impl RouteDoc {
    /// The startup line: the configuration as bound, and each replica's first probe.
    pub fn listening(
        config: &Config,
        listen: std::net::SocketAddr,
        replicas: &[ReplicaStatus],
    ) -> RouteDoc {
        RouteDoc::Listening {
            schema: SCHEMA.to_string(),
            listen: listen.to_string(),
            policy: config.policy.as_str().to_string(),
            prefix_kib: (config.prefix_bytes / 1024) as u64,
            affinity_entries: config.affinity_entries,
            max_body: config.max_body,
            workers: config.workers,
            replicas: replicas
                .iter()
                .map(|r| ReplicaState {
                    replica: r.replica.clone(),
                    live: r.live,
                })
                .collect(),
        }
    }

    /// The shutdown line: what was routed, and how.
    pub fn stopped(s: &Summary) -> RouteDoc {
        RouteDoc::Stopped {
            schema: SCHEMA.to_string(),
            drained: s.drained,
            cut_connections: s.cut_connections,
            responses: Responses {
                pinned: s.pinned,
                spread: s.spread,
                failover: s.failover,
            },
            rejected: s.rejected,
            replicas: s
                .replicas
                .iter()
                .map(|r| ReplicaTotals {
                    replica: r.replica.clone(),
                    live: r.live,
                    requests: r.requests,
                    pins: r.pins,
                    failures: r.failures,
                    demotions: r.demotions,
                })
                .collect(),
        }
    }
}

/// The body of an error the router answers itself, shaped like OpenAI's so clients print the
/// message (docs/json/route.md § Error bodies).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    pub error: RouteError,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteError {
    pub message: String,
    /// Always `headroom_route`: tells the router's errors from a replica's.
    #[serde(rename = "type")]
    pub kind: String,
    /// One of the `reason`s of `headroom_route_rejected_total`.
    pub code: String,
    /// 413: the `--max-body` in force, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_body: Option<usize>,
    /// 503: every replica and whether it is live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<Vec<ReplicaState>>,
    /// 503: one per try that failed before the first byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<Vec<Attempt>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attempt {
    pub replica: String,
    /// A sentence: why the try failed.
    pub failure: String,
}

impl ErrorBody {
    pub fn new(code: &str, message: String) -> ErrorBody {
        ErrorBody {
            error: RouteError {
                message,
                kind: "headroom_route".to_string(),
                code: code.to_string(),
                max_body: None,
                replicas: None,
                attempts: None,
            },
        }
    }
}

/// The body of the router's own `GET /health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HealthBody {
    /// `ok`, `no_live_replica` or `draining`.
    pub status: String,
    /// Replicas live now.
    pub live: usize,
    /// Replicas configured.
    pub replicas: usize,
}
