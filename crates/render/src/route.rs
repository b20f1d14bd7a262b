//! `headroom route`'s human lines: the listening banner with its replica table, the events, and
//! the summary at shutdown.

use std::net::SocketAddr;

use comfy_table::{Cell, CellAlignment, Table};
use router::{Config, Event, ReplicaStatus, Summary};

/// The banner printed once the router listens.
pub fn listening(
    config: &Config,
    addr: SocketAddr,
    prefix_kib: u32,
    replicas: &[ReplicaStatus],
) -> String {
    format!(
            "headroom route: listening on http://{addr}  policy {}, identity = first {} KiB, max body {} bytes, {} workers\n{}\n\
             Ctrl-C or SIGTERM stops accepting and drains open streams (up to {:?}).\n",
            config.policy.as_str(),
            prefix_kib,
            config.max_body,
            config.workers,
            startup_table(replicas),
            config.drain
    )
}

/// What the router did, printed when it stops.
pub fn stopped(summary: &Summary) -> String {
    format!(
        "{}\nresponses: {} pinned, {} spread, {} failover; {} answered by the router; {}\n",
        summary_table(summary),
        summary.pinned,
        summary.spread,
        summary.failover,
        summary.rejected,
        if summary.drained {
            "drained cleanly".to_string()
        } else {
            format!(
                "drain time ran out, {} connection(s) cut",
                summary.cut_connections
            )
        }
    )
}

/// One event as the line route prints on stderr.
pub fn describe(e: &Event) -> String {
    match e {
        Event::Demoted { replica, reason } => format!("{replica} demoted ({reason}); probing it"),
        Event::Restored { replica } => format!("{replica} answers its probe again: live"),
        Event::PublicBind { addr } => format!(
            "warning: listening on {addr}, reachable from other hosts; the router has no authentication (--listen 127.0.0.1:PORT keeps it local)"
        ),
        Event::Draining { connections } => {
            format!("stopping: no new connections, draining {connections} open")
        }
        Event::DrainTimedOut { connections } => {
            format!("drain time ran out; cutting {connections} connection(s)")
        }
    }
}

fn startup_table(replicas: &[ReplicaStatus]) -> Table {
    let mut t = crate::table(vec!["#", "replica", "state"]);
    for (i, r) in replicas.iter().enumerate() {
        let state = if r.live {
            "live"
        } else {
            "demoted (no answer to the probe; retried every --probe-interval)"
        };
        t.add_row(vec![Cell::new(i), Cell::new(&r.replica), Cell::new(state)]);
    }
    t
}

fn summary_table(summary: &Summary) -> Table {
    let mut t = crate::table(vec![
        "replica",
        "state",
        "requests",
        "pinned",
        "failures",
        "demotions",
    ]);
    for r in &summary.replicas {
        t.add_row(vec![
            Cell::new(&r.replica),
            Cell::new(if r.live { "live" } else { "demoted" }),
            Cell::new(r.requests).set_alignment(CellAlignment::Right),
            Cell::new(r.pins).set_alignment(CellAlignment::Right),
            Cell::new(r.failures).set_alignment(CellAlignment::Right),
            Cell::new(r.demotions).set_alignment(CellAlignment::Right),
        ]);
    }
    t
}
