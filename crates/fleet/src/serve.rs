//! `headroom fleet --serve ADDR`: the fleet re-read every interval and its verdicts exposed for
//! Prometheus to scrape, so alerting and dashboards consume what `fleet` prints.
//!
//! Series (docs/fleet-serve.md lists them with their labels). Per replica: the primary as an
//! info-style series (`headroom_fleet_primary{replica, engine, rule, title, fix} 1`, rule
//! `none` when nothing fired), each rule's state (`headroom_fleet_rule_fired{replica, rule}`
//! 1 or 0, one per rule), efficiency against the ceiling, generation, load share and outlier.
//! Fleet-wide: replicas, imbalance, and headroom's own health (evaluations, failures, the last
//! attempt and success, queries sent).
//!
//! Cardinality is bounded: at most (5 + the number of rules) series per replica, one primary
//! series per replica at a time (its labels change only when the verdict does), plus 10
//! fleet-wide series; no label carries a number, a URL, a selector or an error text.
//!
//! A failed evaluation (the store away, a query refused) drops every per-replica series until a
//! reading succeeds again: a verdict is never older than the last reading that made it. The
//! health series say what happened. No secret is exposed: nothing here knows the store's
//! credentials, and the store is named by no label.

use crate::{FleetDoc, FleetError, Reading, Request};
use diagnose::RuleId;
use http_body_util::Full;
use hyper::body::Bytes;
use std::convert::Infallible;
use std::fmt::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// headroom's own record of its evaluations.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Health {
    pub evaluations: u64,
    pub failures: u64,
    /// Unix seconds.
    pub last_attempt: Option<f64>,
    pub last_success: Option<f64>,
    pub last_duration_s: Option<f64>,
    /// Queries sent to the store since the start.
    pub queries: u64,
}

/// What the endpoint serves: the latest successful document (None after a failure) and the
/// health.
#[derive(Default)]
pub struct State {
    pub doc: Option<FleetDoc>,
    pub health: Health,
    /// The last failure, for the log line (never exposed as a label).
    pub last_error: Option<String>,
}

/// Label value escaping of the Prometheus text format: backslash, double quote, line feed.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

fn sample(out: &mut String, name: &str, labels: &[(&str, &str)], v: f64) {
    let l: Vec<String> = labels
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
        .collect();
    if l.is_empty() {
        let _ = writeln!(out, "{name} {v}");
    } else {
        let _ = writeln!(out, "{name}{{{}}} {v}", l.join(","));
    }
}

/// The fix in one label value: the first step's flag and value (`--max-num-seqs 128`), or its
/// text cut to 120 characters where the step is a sentence.
fn fix_label(p: &crate::Primary) -> String {
    match p.fix.first() {
        None => String::new(),
        Some(s) => match (&s.flag, &s.value) {
            (Some(f), Some(v)) => format!("{f} {v}"),
            (Some(f), None) => f.clone(),
            _ => s.text.chars().take(120).collect(),
        },
    }
}

/// How a per-replica series reads its value from the document.
type Figure = fn(&crate::Replica, &FleetDoc) -> Option<f64>;

/// The exposition of `state` (Prometheus text format 0.0.4).
pub fn exposition(state: &State) -> String {
    let mut o = String::new();
    if let Some(doc) = &state.doc {
        family(
            &mut o,
            "headroom_fleet_primary",
            "gauge",
            "The replica's primary finding, 1, with its rule (none when no rule fired), title and fix as labels.",
        );
        for r in &doc.replicas {
            let (rule, title, fix) = match &r.primary {
                Some(p) => (p.rule.as_str(), p.title.clone(), fix_label(p)),
                None => ("none", String::new(), String::new()),
            };
            sample(
                &mut o,
                "headroom_fleet_primary",
                &[
                    ("replica", &r.replica),
                    ("engine", r.engine.as_str()),
                    ("rule", rule),
                    ("title", &title),
                    ("fix", &fix),
                ],
                1.0,
            );
        }
        family(
            &mut o,
            "headroom_fleet_rule_fired",
            "gauge",
            "1 when the rule fired over the window (as the primary or held behind it), else 0.",
        );
        for r in &doc.replicas {
            for rule in RuleId::ALL {
                let fired =
                    r.primary.as_ref().is_some_and(|p| p.rule == rule) || r.held.contains(&rule);
                sample(
                    &mut o,
                    "headroom_fleet_rule_fired",
                    &[("replica", &r.replica), ("rule", rule.as_str())],
                    if fired { 1.0 } else { 0.0 },
                );
            }
        }
        let per_replica: [(&str, &str, Figure); 4] = [
            (
                "headroom_fleet_efficiency_ratio",
                "Generation over the ceiling's aggregate at the ridge batch, 0-1 (only with --gpu and --model).",
                |r, _| r.figures.efficiency,
            ),
            (
                "headroom_fleet_generation_tokens_per_second",
                "Generated tokens per second over the window.",
                |r, _| r.figures.generation_tps,
            ),
            (
                "headroom_fleet_load_share_ratio",
                "The replica's share of the fleet's load, 0-1.",
                |r, d| d.imbalance.shares.get(&r.replica).copied(),
            ),
            (
                "headroom_fleet_outlier",
                "1 when the replica is named an outlier (its primary differs from most, or it generates under half its peers' median per running sequence).",
                |r, d| Some(if d.outliers.iter().any(|o| o.replica == r.replica) { 1.0 } else { 0.0 }),
            ),
        ];
        for (name, help, get) in per_replica {
            family(&mut o, name, "gauge", help);
            for r in &doc.replicas {
                if let Some(v) = get(r, doc).filter(|v| v.is_finite()) {
                    sample(&mut o, name, &[("replica", &r.replica)], v);
                }
            }
        }
        family(&mut o, "headroom_fleet_replicas", "gauge", "Replicas read.");
        sample(
            &mut o,
            "headroom_fleet_replicas",
            &[],
            doc.replicas.len() as f64,
        );
        family(
            &mut o,
            "headroom_fleet_imbalance",
            "gauge",
            "1 when the busiest replica carries at least 2x the others' median load.",
        );
        sample(
            &mut o,
            "headroom_fleet_imbalance",
            &[],
            if doc.imbalance.fired { 1.0 } else { 0.0 },
        );
        family(
            &mut o,
            "headroom_fleet_window_seconds",
            "gauge",
            "The window each evaluation reads.",
        );
        sample(
            &mut o,
            "headroom_fleet_window_seconds",
            &[],
            doc.window.duration_s,
        );
    }
    let h = &state.health;
    let health: [(&str, &str, &str, Option<f64>); 6] = [
        (
            "headroom_fleet_evaluations_total",
            "counter",
            "Evaluations attempted.",
            Some(h.evaluations as f64),
        ),
        (
            "headroom_fleet_evaluation_failures_total",
            "counter",
            "Evaluations that failed (the store away, a query refused, no replica found).",
            Some(h.failures as f64),
        ),
        (
            "headroom_fleet_store_queries_total",
            "counter",
            "Queries sent to the store.",
            Some(h.queries as f64),
        ),
        (
            "headroom_fleet_last_evaluation_timestamp_seconds",
            "gauge",
            "When the last evaluation started (unix seconds).",
            h.last_attempt,
        ),
        (
            "headroom_fleet_last_success_timestamp_seconds",
            "gauge",
            "When the last successful evaluation started (unix seconds); 0 before the first.",
            Some(h.last_success.unwrap_or(0.0)),
        ),
        (
            "headroom_fleet_last_evaluation_duration_seconds",
            "gauge",
            "How long the last evaluation took.",
            h.last_duration_s,
        ),
    ];
    for (name, kind, help, v) in health {
        family(&mut o, name, kind, help);
        if let Some(v) = v {
            sample(&mut o, name, &[], v);
        }
    }
    family(
        &mut o,
        "headroom_fleet_last_evaluation_success",
        "gauge",
        "1 when the last evaluation succeeded, else 0.",
    );
    let ok = h.last_attempt.is_some() && h.last_attempt == h.last_success;
    sample(
        &mut o,
        "headroom_fleet_last_evaluation_success",
        &[],
        if ok { 1.0 } else { 0.0 },
    );
    o
}

/// Records one evaluation's outcome.
pub fn record(
    state: &mut State,
    started: f64,
    took: Duration,
    queries: u64,
    outcome: Result<Reading, FleetError>,
) {
    let h = &mut state.health;
    h.evaluations += 1;
    h.last_attempt = Some(started);
    h.last_duration_s = Some(took.as_secs_f64());
    h.queries = queries;
    match outcome {
        Ok(r) => {
            h.last_success = Some(started);
            state.doc = Some(r.doc);
            state.last_error = None;
        }
        Err(e) => {
            h.failures += 1;
            state.doc = None;
            state.last_error = Some(e.to_string());
        }
    }
}

/// Serves `state` on `listener` (GET /metrics; / says where to look) until the task is dropped.
pub async fn expose(listener: tokio::net::TcpListener, state: Arc<Mutex<State>>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let state = state.clone();
        tokio::spawn(async move {
            let svc =
                hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let state = state.clone();
                    async move {
                        let (code, ctype, body) = match (req.method(), req.uri().path()) {
                            (&hyper::Method::GET, "/metrics") => {
                                let text =
                                    exposition(&state.lock().unwrap_or_else(|p| p.into_inner()));
                                (200, "text/plain; version=0.0.4; charset=utf-8", text)
                            }
                            (&hyper::Method::GET, "/") => (
                                200,
                                "text/plain; charset=utf-8",
                                "headroom fleet --serve: the fleet's verdicts are at /metrics\n"
                                    .to_string(),
                            ),
                            _ => (
                                404,
                                "text/plain; charset=utf-8",
                                "not found: GET /metrics\n".to_string(),
                            ),
                        };
                        let resp = hyper::Response::builder()
                            .status(code)
                            .header("content-type", ctype)
                            .body(Full::new(Bytes::from(body)))
                            .unwrap_or_default();
                        Ok::<_, Infallible>(resp)
                    }
                });
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, svc)
                .await;
        });
    }
}

/// Evaluates the fleet every `interval` forever, each reading ending at its own start, and
/// records each outcome in `state`; `on_eval` sees each (for a log line).
pub async fn evaluate_every(
    prom: &promapi::Prometheus,
    req: &Request,
    interval: Duration,
    state: Arc<Mutex<State>>,
    mut on_eval: impl FnMut(&State),
) {
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        let clock = Instant::now();
        let mut r = req.clone();
        r.at = started;
        let outcome = crate::read(prom, &r).await;
        let mut s = state.lock().unwrap_or_else(|p| p.into_inner());
        record(
            &mut s,
            started,
            clock.elapsed(),
            prom.queries() as u64,
            outcome,
        );
        on_eval(&s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }

    #[test]
    fn before_any_evaluation_only_health_is_exposed() {
        let text = exposition(&State::default());
        assert!(!text.contains("headroom_fleet_primary"), "{text}");
        assert!(
            text.contains("headroom_fleet_last_evaluation_success 0"),
            "{text}"
        );
        assert!(
            text.contains("headroom_fleet_last_success_timestamp_seconds 0"),
            "{text}"
        );
        // The exposition parses as Prometheus text, every sample under a declared family.
        let e = engines::prom::parse(&text).expect("the exposition parses");
        assert!(e
            .families
            .iter()
            .any(|f| f.name == "headroom_fleet_evaluations_total"));
    }

    #[test]
    fn a_failure_drops_the_verdicts_and_counts() {
        let mut s = State::default();
        record(
            &mut s,
            10.0,
            Duration::from_millis(5),
            3,
            Err(FleetError::Window(-1.0)),
        );
        assert_eq!(s.health.failures, 1);
        assert!(s.doc.is_none() && s.last_error.is_some());
        let text = exposition(&s);
        assert!(
            text.contains("headroom_fleet_evaluation_failures_total 1"),
            "{text}"
        );
        assert!(
            text.contains("headroom_fleet_last_evaluation_timestamp_seconds 10"),
            "{text}"
        );
    }
}
