//! `headroom cachehit`: the ladder as a table (fleet, then each replica), then the gaps, largest
//! first, each with its cause and fix.

use cachehit::{Cause, ConversationsFrom, Ladder, Rungs, Share};
use numbers::fmt::{percent, UNREAD};

use crate::table::table;

fn cell(s: Option<Share>) -> String {
    s.filter(|s| s.prompt_tokens > 0.0)
        .map_or_else(|| UNREAD.to_string(), |s| percent(s.rate()))
}

fn cause(c: Cause) -> &'static str {
    match c {
        Cause::Workload => "workload",
        Cause::Capacity => "capacity",
        Cause::Split => "split",
        Cause::Routing => "routing",
        Cause::Engine => "engine",
    }
}

/// Reads one rung of a fleet's or a replica's ladder.
type Rung = fn(&Rungs) -> Option<Share>;

pub fn render(l: &Ladder) -> String {
    let mut out = String::new();
    let from = match l.conversations_from {
        ConversationsFrom::Trace => "from the trace",
        ConversationsFrom::Inferred => {
            "inferred: a prompt that extends an earlier one continues it"
        }
    };
    let tokens = if l.block_size == 1 { "token" } else { "tokens" };
    out.push_str(&format!(
        "Prefix-cache hit-rate ladder: {} requests, {} conversations ({from}), blocks of {} {tokens}\n",
        l.requests, l.conversations, l.block_size,
    ));
    let pools = if l.replicas.is_empty() {
        "no KV pool given".to_string()
    } else {
        let n = l.replicas.len();
        let replicas = if n == 1 { "replica" } else { "replicas" };
        format!("{n} {replicas}, {} KV blocks in all", l.pool_blocks)
    };
    out.push_str(&format!(
        "{pools}; the stream leaves {} distinct blocks, and a pool of {} holds its working set\n",
        l.distinct_blocks, l.working_set_blocks,
    ));
    if let Some(t) = &l.tokenizer {
        out.push_str(&format!("Blocks cut by {t}\n"));
    }
    if let Some(t) = &l.tokenized {
        out.push_str(&tokenized(t));
    }
    out.push('\n');
    let mut header = vec!["rung".to_string(), "fleet".to_string()];
    header.extend(l.replicas.iter().map(|r| r.name.clone()));
    let mut t = table(header);
    let rows: [(&str, Rung); 5] = [
        ("shareable (no eviction)", |r| Some(r.shareable)),
        ("capacity-bound (one pool)", |r| Some(r.capacity_bound)),
        ("reachable (best placement)", |r| r.reachable),
        ("as routed", |r| r.as_routed),
        ("achieved (engine counters)", |r| r.achieved),
    ];
    for (i, (name, get)) in rows.iter().enumerate() {
        let mut row = vec![name.to_string(), cell(get(&l.fleet))];
        for r in &l.replicas {
            // A replica's own pool is its capacity bound; its rung rows are shareable, as
            // routed and achieved only.
            let v = match i {
                1 | 2 => None,
                _ => get(&r.rungs),
            };
            row.push(cell(v));
        }
        t.add_row(row);
    }
    out.push_str(&t.to_string());
    out.push('\n');
    if l.gaps.is_empty() {
        out.push_str(&format!(
            "\nNo gap of {} points or more between two rungs.\n",
            cachehit::ladder::SMALL_POINTS
        ));
    } else {
        out.push_str("\nWhere the hits go, largest first (points of prompt tokens):\n");
        for g in &l.gaps {
            out.push_str(&format!(
                "  {:<9} {:>5.1}  {}\n            fix: {}\n",
                cause(g.cause),
                g.points,
                g.why,
                g.fix
            ));
        }
    }
    let policies: Vec<String> = l
        .replicas
        .iter()
        .map(|r| format!("{}: {}", r.name, r.policy))
        .collect();
    if !policies.is_empty() {
        out.push_str(&format!("\nCaches replayed as: {}.\n", policies.join("; ")));
    }
    for r in &l.replicas {
        if !r.counters_created_late.is_empty() {
            out.push_str(&format!(
                "Achieved on {} reads {} as 0 at the start: the engine created the counter \
                 since (SGLang creates its cached-token counter at its first hit), in the same \
                 process.\n",
                r.name,
                r.counters_created_late.join(" and ")
            ));
        }
    }
    let missing: Vec<&str> = [
        (
            l.replicas.is_empty(),
            "capacity-bound (no pool: given as shareable)",
        ),
        (
            l.fleet.reachable.is_none(),
            "reachable (no replica records)",
        ),
        (
            l.fleet.as_routed.is_none(),
            "as routed (requests without a replica)",
        ),
        (
            l.fleet.achieved.is_none(),
            "achieved (no counters for every replica)",
        ),
    ]
    .iter()
    .filter(|(m, _)| *m)
    .map(|(_, w)| *w)
    .collect();
    if !missing.is_empty() {
        out.push_str(&format!("\nNot in this trace: {}.\n", missing.join("; ")));
    }
    out
}

/// What the engine's tokenizer cut, and how the trace's own ids compared with it.
fn tokenized(t: &cachehit::Tokenized) -> String {
    let mut out = String::new();
    if t.requests > 0 {
        out.push_str(&format!(
            "{} text prompts cut by {}\n",
            t.requests, t.endpoint
        ));
    }
    if let Some(c) = &t.check {
        let share = percent(c.past_first_difference as f64 / c.tokens.max(1) as f64);
        if c.identical == c.sampled {
            out.push_str(&format!(
                "The trace's token ids equal {}'s on all {} sampled prompts\n",
                t.endpoint, c.sampled
            ));
        } else {
            out.push_str(&format!(
                "The trace's token ids differ from {}'s on {} of {} sampled prompts: {share} of \
                 the sampled tokens lie past the first difference, where the trace's blocks are \
                 not the engine's (the rungs may be off by as much); cut the ids with the \
                 engine's tokenizer, chat template included\n",
                t.endpoint,
                c.sampled - c.identical,
                c.sampled
            ));
        }
    }
    out
}
