//! The PromQL a fleet reading sends: one query per kind of concept (gauges, counters,
//! histograms) covering every replica and every engine at once, each concept's result tagged
//! with a label so one answer carries them all. Names come from the adapters' table
//! ([`engines::adapters::promql`]); none is spelled here.

use engines::adapters::promql::{Combine, Concept, Kind, CONCEPTS};
use promapi::Selector;

/// The label each result is tagged with: the Sample field it fills.
pub const FIELD: &str = "headroom_field";
/// The histogram part: `bucket`, `sum` or `count`.
pub const PART: &str = "headroom_part";
/// The engine prefix of a series, in the engine-detection query.
pub const PREFIX: &str = "headroom_prefix";

/// `inner` combined per replica (`by`), the engine's way.
fn combine(c: Combine, by: &str, inner: &str) -> String {
    match c {
        Combine::Sum => format!("sum by ({by}) ({inner})"),
        Combine::Mean => format!("avg by ({by}) ({inner})"),
        Combine::MeanOverThenSum(l) => {
            // avg without the rank labels keeps `by`; guard against a `by` that is a rank.
            let l: Vec<&str> = l.iter().copied().filter(|x| *x != by).collect();
            if l.is_empty() {
                format!("sum by ({by}) ({inner})")
            } else {
                format!("sum by ({by}) (avg without ({}) ({inner}))", l.join(", "))
            }
        }
    }
}

/// `a or b or c …` as a balanced tree. Prometheus evaluates `or` left to right, copying and
/// re-hashing the left side at every level: a chain of n operands costs O(n²) in the series
/// carried, a tree O(n log n) (on 100 replicas' histograms: 1.5 CPU-s against 0.9).
pub fn or_all(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        _ => {
            let (l, r) = parts.split_at(parts.len() / 2);
            format!("({}) or ({})", or_all(l), or_all(r))
        }
    }
}

/// Renames in preference order: a replica takes a later name only where no earlier one has a
/// series (`unless on (by)` the earlier names' `presence`, the cheapest expression that has a
/// series exactly where the name does). Linear in the names, never nesting the whole expression
/// again.
fn prefer(alts: &[String], presence: &[String], on: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    for (i, a) in alts.iter().enumerate() {
        if i == 0 {
            parts.push(a.clone());
        } else {
            parts.push(format!(
                "({a}) unless on ({on}) ({})",
                or_all(&presence[..i])
            ));
        }
    }
    or_all(&parts)
}

fn tag(expr: &str, label: &str, value: &str) -> String {
    format!("label_replace({expr}, \"{label}\", \"{value}\", \"\", \"\")")
}

fn concept_expr(c: &Concept, sel: &Selector, by: &str, part: &str) -> String {
    concept_expr_over(c, &all_rows(c), sel, by, part, None)
}

/// A concept per replica for a dashboard panel: a gauge as is, a counter's per-second rate over
/// `range` (`$__rate_interval`), a histogram's `part` the same way; the same names, renames and
/// combining as a fleet reading.
pub fn panel_expr(c: &Concept, sel: &Selector, by: &str, part: &str, range: &str) -> String {
    concept_expr_over(c, &all_rows(c), sel, by, part, Some(range))
}

/// [`panel_expr`] over some engines' rows only, each with some of its names (those a store
/// holds), in the row's preference order.
pub fn panel_expr_of(
    c: &Concept,
    rows: &[(&[&str], Combine)],
    sel: &Selector,
    by: &str,
    part: &str,
    range: &str,
) -> String {
    concept_expr_over(c, rows, sel, by, part, Some(range))
}

fn all_rows(c: &Concept) -> Vec<(&'static [&'static str], Combine)> {
    c.engines().map(|n| (n.names, n.combine)).collect()
}

fn concept_expr_over(
    c: &Concept,
    rows: &[(&[&str], Combine)],
    sel: &Selector,
    by: &str,
    part: &str,
    rate_over: Option<&str>,
) -> String {
    // Engines never share a replica, so their expressions join with a plain `or`; only one
    // engine's renames need the preference.
    let mut per_engine = Vec::new();
    for &(names, combine) in rows {
        let expr = |name: &str, part: &str| {
            // Counters and histograms raw: their value at each point, differenced by the reader
            // (window::deltas), so a window's increase is the counter's own change between its
            // edges. increase() per step would tile the window: a counter that jumps (prompt
            // tokens in bursts, llama.cpp's counters credited when a request ends) counts 0 or
            // ~1.25× by where the jump falls against the step's samples.
            let inner = match c.kind {
                Kind::Gauge => sel.metric(name),
                Kind::Counter => sel.by_name_re(&format!("{name}_total|{name}")),
                Kind::Histogram => sel.metric(&format!("{name}_{part}")),
            };
            let inner = match rate_over {
                Some(r) if c.kind != Kind::Gauge => format!("rate({inner}[{r}])"),
                _ => inner,
            };
            let by = if c.kind == Kind::Histogram && part == "bucket" {
                format!("{by}, le")
            } else {
                by.to_string()
            };
            self::combine(combine, &by, &inner)
        };
        let alts: Vec<String> = names.iter().map(|n| expr(n, part)).collect();
        // A histogram has its buckets and sum exactly where it has its count: one series per
        // replica to test rather than one per bucket.
        let presence: Vec<String> = if c.kind == Kind::Histogram && part != "count" {
            names.iter().map(|n| expr(n, "count")).collect()
        } else {
            alts.clone()
        };
        per_engine.push(prefer(&alts, &presence, by));
    }
    or_all(&per_engine)
}

fn all_of(kind: Kind, sel: &Selector, by: &str) -> String {
    let parts: Vec<String> = CONCEPTS
        .iter()
        .filter(|c| c.kind == kind)
        .map(|c| tag(&concept_expr(c, sel, by, ""), FIELD, c.field))
        .collect();
    or_all(&parts)
}

/// Every gauge concept, per replica, as is (a range query reads it at each step).
pub fn gauges(sel: &Selector, by: &str) -> String {
    all_of(Kind::Gauge, sel, by)
}

/// Every counter concept, per replica, as its raw value at each point.
pub fn counters(sel: &Selector, by: &str) -> String {
    all_of(Kind::Counter, sel, by)
}

/// One query per histogram concept (the Sample field it fills, and the query), per replica (and
/// `le`), as raw values at each point: buckets, sum and count. Apart, not
/// one `or` of all: the store's `or` copies its operands at every level, and the histograms'
/// buckets are most of the series a fleet reading carries (on 100 replicas, 0.56 CPU-s for six
/// queries against 0.75 for one). The buckets go untagged (their `le` tells them from the
/// tagged sum and count): relabelling every bucket series cost a third of the query.
pub fn histograms(sel: &Selector, by: &str) -> Vec<(&'static str, String)> {
    CONCEPTS
        .iter()
        .filter(|c| c.kind == Kind::Histogram)
        .map(|c| {
            let parts = [
                concept_expr(c, sel, by, "bucket"),
                tag(&concept_expr(c, sel, by, "sum"), PART, "sum"),
                tag(&concept_expr(c, sel, by, "count"), PART, "count"),
            ];
            (c.field, or_all(&parts))
        })
        .collect()
}

/// Families per replica and engine prefix (the adapters' engine detection: the prefix that names
/// the most families wins). The prefix is tagged after the count, on one row per replica, not
/// by a regex over every series.
pub fn engines(sel: &Selector, by: &str) -> String {
    let parts: Vec<String> = engines::Engine::ALL
        .iter()
        .map(|e| e.prefix())
        .map(|p| {
            tag(
                &format!(
                    "count by ({by}) (group by ({by}, __name__) ({}))",
                    sel.by_name_re(&format!("{p}.+"))
                ),
                PREFIX,
                p,
            )
        })
        .collect();
    or_all(&parts)
}

/// vLLM's config-as-labels gauge, per series (the adapters read it the same way).
pub fn cache_config(sel: &Selector) -> String {
    sel.metric(engines::adapters::promql::CACHE_CONFIG_INFO)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn or_is_a_balanced_tree() {
        let p = |n: usize| (0..n).map(|i| format!("x{i}")).collect::<Vec<_>>();
        assert_eq!(or_all(&p(1)), "x0");
        assert_eq!(or_all(&p(3)), "(x0) or ((x1) or (x2))");
        assert_eq!(
            or_all(&p(4)),
            "((x0) or (x1)) or ((x2) or (x3))",
            "depth log2(n), not n"
        );
    }

    #[test]
    fn one_query_covers_every_concept_and_engine() {
        let sel = Selector::parse(r#"{job="v"}"#).unwrap();
        let g = gauges(&sel, "instance");
        for name in [
            "vllm:num_requests_running",
            "sglang:num_queue_reqs",
            "tgi_queue_size",
        ] {
            assert!(g.contains(&format!("{name}{{job=\"v\"}}")), "{name} in {g}");
        }
        // Preference: the old name counts only where the new one is absent.
        assert!(g.contains("unless on (instance)"), "{g}");
        let c = counters(&sel, "pod");
        assert!(
            c.contains(r#"sum by (pod) ({__name__=~"vllm:prompt_tokens_total|vllm:prompt_tokens",job="v"})"#),
            "{c}"
        );
        assert!(
            !c.contains("increase("),
            "raw values, differenced by the reader: {c}"
        );
        let h = histograms(&sel, "instance");
        assert_eq!(h.len(), 6, "one query per histogram concept");
        // The old ITL name counts where the new one has no count series (not no buckets).
        assert!(h[1].1.contains("(sum by (instance, le) (vllm:time_per_output_token_seconds_bucket{job=\"v\"})) unless on (instance) (sum by (instance) (vllm:inter_token_latency_seconds_count{job=\"v\"}))"), "{}", h[1].1);
        assert_eq!(h[0].0, "ttft");
        assert!(
            h[0].1.contains(
                "sum by (instance, le) (vllm:time_to_first_token_seconds_bucket{job=\"v\"})"
            ),
            "{}",
            h[0].1
        );
    }
}
