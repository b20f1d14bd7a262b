//! The router's own metrics, rendered in Prometheus text format at `/metrics`. Each series'
//! meaning is documented in docs/json/route.md; that text is the contract.
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::policy::Route;

/// Why a replica attempt failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// Could not connect, or the connection closed before the first response byte.
    Connection,
    /// Answered 502 or 503 before the first byte.
    Status,
    /// No first byte within --first-byte-timeout.
    Timeout,
    /// The response had started and was cut.
    Stream,
}

impl FailureKind {
    pub const ALL: [FailureKind; 4] = [
        FailureKind::Connection,
        FailureKind::Status,
        FailureKind::Timeout,
        FailureKind::Stream,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Connection => "connection",
            FailureKind::Status => "status",
            FailureKind::Timeout => "timeout",
            FailureKind::Stream => "stream",
        }
    }
}

/// Requests the router answered itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejection {
    BodyTooLarge,
    BodyUnreadable,
    NoLiveReplica,
    UpstreamTimeout,
    NotFound,
    /// A head that is not HTTP/1.x, too large, or framed in a way the router does not take.
    BadRequest,
}

impl Rejection {
    pub const ALL: [Rejection; 6] = [
        Rejection::BodyTooLarge,
        Rejection::BodyUnreadable,
        Rejection::NoLiveReplica,
        Rejection::UpstreamTimeout,
        Rejection::NotFound,
        Rejection::BadRequest,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Rejection::BodyTooLarge => "body_too_large",
            Rejection::BodyUnreadable => "body_unreadable",
            Rejection::NoLiveReplica => "no_live_replica",
            Rejection::UpstreamTimeout => "upstream_timeout",
            Rejection::NotFound => "not_found",
            Rejection::BadRequest => "bad_request",
        }
    }
}

#[derive(Debug, Default)]
pub struct ReplicaCounters {
    pub requests: AtomicU64,
    pub failures: [AtomicU64; 4],
    pub demotions: AtomicU64,
    pub restores: AtomicU64,
    pub pins: AtomicU64,
    pub repinned: AtomicU64,
}

/// A fixed-bucket histogram of seconds, lock-free.
#[derive(Debug)]
pub struct Histogram {
    bounds: &'static [f64],
    counts: Vec<AtomicU64>,
    sum_ns: AtomicU64,
    count: AtomicU64,
}

/// Routing overhead is microseconds; the buckets resolve 5 µs to 10 ms.
pub const OVERHEAD_BUCKETS: &[f64] = &[
    0.000_005, 0.000_01, 0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005,
    0.01,
];

impl Histogram {
    pub fn new(bounds: &'static [f64]) -> Self {
        Histogram {
            bounds,
            counts: bounds.iter().map(|_| AtomicU64::new(0)).collect(),
            sum_ns: AtomicU64::new(0),
            count: AtomicU64::new(0),
        }
    }

    pub fn observe(&self, d: Duration) {
        let s = d.as_secs_f64();
        if let Some(i) = self.bounds.iter().position(|b| s <= *b) {
            self.counts[i].fetch_add(1, Ordering::Relaxed);
        }
        self.sum_ns
            .fetch_add(d.as_nanos().min(u64::MAX as u128) as u64, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    fn render(&self, name: &str, out: &mut String) {
        let mut cumulative = 0;
        for (b, c) in self.bounds.iter().zip(&self.counts) {
            cumulative += c.load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{le=\"{b}\"}} {cumulative}");
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {count}");
        let _ = writeln!(
            out,
            "{name}_sum {}",
            self.sum_ns.load(Ordering::Relaxed) as f64 / 1e9
        );
        let _ = writeln!(out, "{name}_count {count}");
    }
}

#[derive(Debug)]
pub struct Metrics {
    pub replicas: Vec<ReplicaCounters>,
    pub routes: [AtomicU64; 3],
    pub rejections: [AtomicU64; 6],
    pub overhead: Histogram,
    /// Clients that hung up before their response ended (the replica's request was dropped).
    pub client_closed: AtomicU64,
}

/// What `/metrics` needs besides the counters: names and the current state.
pub struct Snapshot<'a> {
    pub names: &'a [String],
    pub live: Vec<bool>,
    pub in_flight: Vec<usize>,
    pub pinned_conversations: usize,
}

impl Metrics {
    pub fn new(replicas: usize) -> Self {
        Metrics {
            replicas: (0..replicas).map(|_| ReplicaCounters::default()).collect(),
            routes: Default::default(),
            rejections: Default::default(),
            overhead: Histogram::new(OVERHEAD_BUCKETS),
            client_closed: AtomicU64::new(0),
        }
    }

    pub fn failure(&self, r: usize, kind: FailureKind) {
        let i = FailureKind::ALL
            .iter()
            .position(|k| *k == kind)
            .unwrap_or(0);
        self.replicas[r].failures[i].fetch_add(1, Ordering::Relaxed);
    }

    pub fn failures(&self, r: usize, kind: FailureKind) -> u64 {
        let i = FailureKind::ALL
            .iter()
            .position(|k| *k == kind)
            .unwrap_or(0);
        self.replicas[r].failures[i].load(Ordering::Relaxed)
    }

    pub fn route(&self, route: Route) {
        let i = Route::ALL.iter().position(|k| *k == route).unwrap_or(0);
        self.routes[i].fetch_add(1, Ordering::Relaxed);
    }

    pub fn client_closed(&self) {
        self.client_closed.fetch_add(1, Ordering::Relaxed);
    }

    pub fn reject(&self, why: Rejection) {
        let i = Rejection::ALL.iter().position(|k| *k == why).unwrap_or(0);
        self.rejections[i].fetch_add(1, Ordering::Relaxed);
    }

    pub fn render(&self, snap: &Snapshot) -> String {
        let mut out = String::with_capacity(4096);
        let per_replica = |out: &mut String,
                           name: &str,
                           kind: &str,
                           help: &str,
                           value: &dyn Fn(usize) -> String| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
            for (r, replica) in snap.names.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "{name}{{replica=\"{}\"}} {}",
                    escape(replica),
                    value(r)
                );
            }
        };
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed).to_string();
        per_replica(
            &mut out,
            "headroom_route_requests_total",
            "counter",
            "Requests sent to the replica, each failover attempt counted on the replica it tried.",
            &|r| load(&self.replicas[r].requests),
        );
        per_replica(
            &mut out,
            "headroom_route_in_flight",
            "gauge",
            "Requests sent to the replica whose response has not finished.",
            &|r| snap.in_flight[r].to_string(),
        );
        let _ = writeln!(out, "# HELP headroom_route_failures_total Failed attempts on the replica, by kind: connection (refused, reset or closed before the first byte), status (502/503 before the first byte), timeout (no first byte in time), stream (cut after the first byte).\n# TYPE headroom_route_failures_total counter");
        for (r, replica) in snap.names.iter().enumerate() {
            for (i, kind) in FailureKind::ALL.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "headroom_route_failures_total{{replica=\"{}\",kind=\"{}\"}} {}",
                    escape(replica),
                    kind.as_str(),
                    load(&self.replicas[r].failures[i])
                );
            }
        }
        per_replica(
            &mut out,
            "headroom_route_demotions_total",
            "counter",
            "Times the replica went from live to demoted.",
            &|r| load(&self.replicas[r].demotions),
        );
        per_replica(
            &mut out,
            "headroom_route_restores_total",
            "counter",
            "Times a probe found the demoted replica healthy and made it live again.",
            &|r| load(&self.replicas[r].restores),
        );
        per_replica(
            &mut out,
            "headroom_route_live",
            "gauge",
            "1 when the replica takes requests, 0 while demoted.",
            &|r| u8::from(snap.live[r]).to_string(),
        );
        per_replica(
            &mut out,
            "headroom_route_pins_total",
            "counter",
            "Requests sent to the replica because their conversation was pinned there.",
            &|r| load(&self.replicas[r].pins),
        );
        per_replica(
            &mut out,
            "headroom_route_repinned_total",
            "counter",
            "Conversations moved off the replica to live ones when it was demoted.",
            &|r| load(&self.replicas[r].repinned),
        );
        let _ = writeln!(out, "# HELP headroom_route_client_closed_total Clients that hung up before their response ended; each one's request to the replica was dropped, which cancels it there.\n# TYPE headroom_route_client_closed_total counter\nheadroom_route_client_closed_total {}", load(&self.client_closed));
        let _ = writeln!(out, "# HELP headroom_route_responses_total Proxied responses by route: pinned, spread, failover.\n# TYPE headroom_route_responses_total counter");
        for (i, route) in Route::ALL.iter().enumerate() {
            let _ = writeln!(
                out,
                "headroom_route_responses_total{{route=\"{}\"}} {}",
                route.as_str(),
                load(&self.routes[i])
            );
        }
        let _ = writeln!(out, "# HELP headroom_route_rejected_total Requests the router answered itself, by reason.\n# TYPE headroom_route_rejected_total counter");
        for (i, why) in Rejection::ALL.iter().enumerate() {
            let _ = writeln!(
                out,
                "headroom_route_rejected_total{{reason=\"{}\"}} {}",
                why.as_str(),
                load(&self.rejections[i])
            );
        }
        let _ = writeln!(out, "# HELP headroom_route_affinity_entries Conversation keys held in the affinity table.\n# TYPE headroom_route_affinity_entries gauge\nheadroom_route_affinity_entries {}", snap.pinned_conversations);
        let _ = writeln!(out, "# HELP headroom_route_overhead_seconds Router time per request, from the whole request body in hand to the first attempt handed to the connection pool: body parse, conversation key, policy, request rewrite. Upstream time excluded.\n# TYPE headroom_route_overhead_seconds histogram");
        self.overhead
            .render("headroom_route_overhead_seconds", &mut out);
        out
    }
}

/// Label values: backslash, quote and newline escaped (Prometheus text format).
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_cumulative() {
        let h = Histogram::new(OVERHEAD_BUCKETS);
        h.observe(Duration::from_micros(3));
        h.observe(Duration::from_micros(40));
        h.observe(Duration::from_millis(50));
        let mut out = String::new();
        h.render("x", &mut out);
        assert!(out.contains("x_bucket{le=\"0.000005\"} 1\n"), "{out}");
        assert!(out.contains("x_bucket{le=\"0.00005\"} 2\n"), "{out}");
        assert!(out.contains("x_bucket{le=\"0.01\"} 2\n"), "{out}");
        assert!(out.contains("x_bucket{le=\"+Inf\"} 3\n"), "{out}");
        assert!(out.contains("x_count 3\n"));
        assert!(out.contains("x_sum 0.050043\n"), "{out}");
    }

    #[test]
    fn render_names_every_replica() {
        let m = Metrics::new(2);
        m.failure(1, FailureKind::Stream);
        m.route(Route::Failover);
        m.reject(Rejection::BodyTooLarge);
        let names = vec!["http://a:1".to_string(), "http://b\"2".to_string()];
        let text = m.render(&Snapshot {
            names: &names,
            live: vec![true, false],
            in_flight: vec![3, 0],
            pinned_conversations: 7,
        });
        assert!(text.contains("headroom_route_in_flight{replica=\"http://a:1\"} 3\n"));
        assert!(text.contains("headroom_route_live{replica=\"http://b\\\"2\"} 0\n"));
        assert!(text.contains(
            "headroom_route_failures_total{replica=\"http://b\\\"2\",kind=\"stream\"} 1\n"
        ));
        assert!(text.contains("headroom_route_responses_total{route=\"failover\"} 1\n"));
        assert!(text.contains("headroom_route_rejected_total{reason=\"body_too_large\"} 1\n"));
        assert!(text.contains("headroom_route_affinity_entries 7\n"));
    }
}
