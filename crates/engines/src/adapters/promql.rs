//! The adapters' names for a Prometheus server to aggregate: for each concept a [`Sample`] field
//! holds, every engine's metric names (newest first) and how an engine's series combine. A
//! reader of a Prometheus store (`headroom fleet`, `headroom census`) builds its PromQL from this
//! table and fills the same `Sample` fields the adapters fill from one scrape; a test below feeds every name here
//! through the adapters, so the table cannot drift from them.
//!
//! Derived concepts the adapters compute from two series (SGLang and TGI KV usage as used over
//! capacity) are not here: a store reader leaves them unread rather than guess.

use crate::sample::{Histogram, Sample};

/// How a concept's value reads over time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A level: read as is at each step.
    Gauge,
    /// Cumulative: read as `increase` per step, so the store handles resets.
    Counter,
    /// Cumulative `_bucket{le}`, `_sum`, `_count`.
    Histogram,
}

/// How one server's series of a concept combine into one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// Sum every series (data-parallel engines, finish reasons ...).
    Sum,
    /// Average every series (a 0–1 fraction reported once per engine).
    Mean,
    /// Average over these labels (tensor-parallel ranks of one scheduler), then sum.
    MeanOverThenSum(&'static [&'static str]),
}

/// One engine's names for a concept, in preference order (a renamed metric's new name first).
/// Counter names are base names: the exposed name is `name_total` or `name`.
#[derive(Debug, Clone, Copy)]
pub struct Names {
    pub names: &'static [&'static str],
    pub combine: Combine,
}

/// A [`Sample`] field a store reader can fill, with its kind and every engine's names.
#[derive(Debug, Clone, Copy)]
pub struct Concept {
    /// The Sample field's name (also the tag a reader labels its results with).
    pub field: &'static str,
    pub kind: Kind,
    pub engines: &'static [Names],
}

/// vLLM's config-as-labels gauge (`cache_config_info`): a store reader passes its labels to the
/// same config parser the scrape path uses.
pub const CACHE_CONFIG_INFO: &str = "vllm:cache_config_info";

const SUM: Combine = Combine::Sum;
const SGL: Combine = Combine::MeanOverThenSum(&["tp_rank", "pp_rank", "moe_ep_rank"]);

const fn n(names: &'static [&'static str], combine: Combine) -> Names {
    Names { names, combine }
}

/// Every concept a store reader fills, engine names as the adapters read them
/// (shared/research/metrics.md).
pub const CONCEPTS: &[Concept] = &[
    Concept {
        field: "running",
        kind: Kind::Gauge,
        engines: &[
            n(&["vllm:num_requests_running"], SUM),
            n(&["sglang:num_running_reqs"], SGL),
            n(&["llamacpp:requests_processing"], SUM),
            n(&["tgi_batch_current_size"], SUM),
        ],
    },
    Concept {
        field: "waiting",
        kind: Kind::Gauge,
        engines: &[
            n(&["vllm:num_requests_waiting"], SUM),
            n(&["sglang:num_queue_reqs", "sglang:num_queue_req"], SGL),
            n(&["llamacpp:requests_deferred"], SUM),
            n(&["tgi_queue_size"], SUM),
        ],
    },
    Concept {
        field: "swapped",
        kind: Kind::Gauge,
        engines: &[n(&["vllm:num_requests_swapped"], SUM)],
    },
    Concept {
        field: "kv_usage",
        kind: Kind::Gauge,
        engines: &[
            n(
                &["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"],
                Combine::Mean,
            ),
            n(&["llamacpp:kv_cache_usage_ratio"], SUM),
        ],
    },
    Concept {
        field: "prompt_tokens",
        kind: Kind::Counter,
        engines: &[
            n(&["vllm:prompt_tokens"], SUM),
            n(&["sglang:prompt_tokens"], SGL),
            n(&["llamacpp:prompt_tokens"], SUM),
        ],
    },
    Concept {
        field: "generation_tokens",
        kind: Kind::Counter,
        engines: &[
            n(&["vllm:generation_tokens"], SUM),
            n(&["sglang:generation_tokens"], SGL),
            n(&["llamacpp:tokens_predicted"], SUM),
        ],
    },
    Concept {
        field: "preemptions",
        kind: Kind::Counter,
        engines: &[
            n(&["vllm:num_preemptions"], SUM),
            n(&["sglang:num_retracted_requests"], SGL),
        ],
    },
    Concept {
        field: "requests_finished",
        kind: Kind::Counter,
        engines: &[
            n(&["vllm:request_success"], SUM),
            n(&["sglang:num_requests"], SGL),
            n(&["tgi_request_success"], SUM),
        ],
    },
    Concept {
        field: "prefix_queries",
        kind: Kind::Counter,
        engines: &[n(
            &["vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries"],
            SUM,
        )],
    },
    Concept {
        field: "prefix_hits",
        kind: Kind::Counter,
        engines: &[n(
            &["vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits"],
            SUM,
        )],
    },
    Concept {
        field: "cached_prompt_tokens",
        kind: Kind::Counter,
        engines: &[
            n(&["vllm:prompt_tokens_cached"], SUM),
            n(&["sglang:cached_tokens"], SGL),
            n(&["llamacpp:prompt_tokens_cached"], SUM),
        ],
    },
    Concept {
        field: "decode_calls",
        kind: Kind::Counter,
        engines: &[n(&["llamacpp:n_decode"], SUM)],
    },
    Concept {
        field: "ttft",
        kind: Kind::Histogram,
        engines: &[
            n(&["vllm:time_to_first_token_seconds"], SUM),
            n(&["sglang:time_to_first_token_seconds"], SGL),
        ],
    },
    Concept {
        field: "itl",
        kind: Kind::Histogram,
        engines: &[
            n(
                &[
                    "vllm:inter_token_latency_seconds",
                    "vllm:time_per_output_token_seconds",
                ],
                SUM,
            ),
            n(&["tgi_request_mean_time_per_token_duration"], SUM),
        ],
    },
    Concept {
        field: "e2e",
        kind: Kind::Histogram,
        engines: &[
            n(&["vllm:e2e_request_latency_seconds"], SUM),
            n(&["sglang:e2e_request_latency_seconds"], SGL),
            n(&["tgi_request_duration"], SUM),
        ],
    },
    Concept {
        field: "queue_time",
        kind: Kind::Histogram,
        engines: &[
            n(&["vllm:request_queue_time_seconds"], SUM),
            n(&["sglang:queue_time_seconds"], SGL),
            n(&["tgi_request_queue_duration"], SUM),
        ],
    },
    Concept {
        field: "prompt_len",
        kind: Kind::Histogram,
        engines: &[
            n(&["vllm:request_prompt_tokens"], SUM),
            n(&["sglang:prompt_tokens_histogram"], SGL),
            n(&["tgi_request_input_length"], SUM),
        ],
    },
    Concept {
        field: "gen_len",
        kind: Kind::Histogram,
        engines: &[
            n(&["vllm:request_generation_tokens"], SUM),
            n(&["sglang:generation_tokens_histogram"], SGL),
            n(&["tgi_request_generated_tokens"], SUM),
        ],
    },
];

/// Sets the named scalar field of a sample; false when `field` is not a scalar concept.
pub fn set_scalar(s: &mut Sample, field: &str, v: f64) -> bool {
    let slot = match field {
        "running" => &mut s.running,
        "waiting" => &mut s.waiting,
        "swapped" => &mut s.swapped,
        "kv_usage" => &mut s.kv_usage,
        "prompt_tokens" => &mut s.prompt_tokens,
        "generation_tokens" => &mut s.generation_tokens,
        "preemptions" => &mut s.preemptions,
        "requests_finished" => &mut s.requests_finished,
        "prefix_queries" => &mut s.prefix_queries,
        "prefix_hits" => &mut s.prefix_hits,
        "cached_prompt_tokens" => &mut s.cached_prompt_tokens,
        "decode_calls" => &mut s.decode_calls,
        _ => return false,
    };
    *slot = Some(v);
    true
}

/// The named histogram field of a sample; None when `field` is not a histogram concept.
pub fn histogram_mut<'a>(s: &'a mut Sample, field: &str) -> Option<&'a mut Option<Histogram>> {
    Some(match field {
        "ttft" => &mut s.ttft,
        "itl" => &mut s.itl,
        "e2e" => &mut s.e2e,
        "queue_time" => &mut s.queue_time,
        "prompt_len" => &mut s.prompt_len,
        "gen_len" => &mut s.gen_len,
        _ => return None,
    })
}

/// The named field's value in a sample, for the consistency test and readers that compare.
pub fn scalar(s: &Sample, field: &str) -> Option<f64> {
    match field {
        "running" => s.running,
        "waiting" => s.waiting,
        "swapped" => s.swapped,
        "kv_usage" => s.kv_usage,
        "prompt_tokens" => s.prompt_tokens,
        "generation_tokens" => s.generation_tokens,
        "preemptions" => s.preemptions,
        "requests_finished" => s.requests_finished,
        "prefix_queries" => s.prefix_queries,
        "prefix_hits" => s.prefix_hits,
        "cached_prompt_tokens" => s.cached_prompt_tokens,
        "decode_calls" => s.decode_calls,
        _ => None,
    }
}

/// The engine a metric name belongs to, by its prefix.
pub fn engine_of(name: &str) -> Option<crate::Engine> {
    crate::Engine::of_metric(name)
}

fn escape(v: &str) -> String {
    v.replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', r"\n")
}

fn le(x: f64) -> String {
    if x.is_infinite() {
        "+Inf".into()
    } else {
        format!("{x:?}")
    }
}

/// A sample written back as its engine's exposition: each concept the table holds under the
/// engine's first name, vLLM's config labels as `cache_config_info`. The adapters read it back
/// into the same fields, so a window filled from a store can be saved as a recording and
/// replayed into `diagnose`.
pub fn exposition(s: &Sample) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for c in CONCEPTS {
        let Some(name) = c
            .engines
            .iter()
            .flat_map(|n| n.names.first())
            .find(|n| engine_of(n) == Some(s.engine))
        else {
            continue;
        };
        match c.kind {
            Kind::Gauge | Kind::Counter => {
                let Some(v) = scalar(s, c.field) else {
                    continue;
                };
                if c.kind == Kind::Counter {
                    let _ = writeln!(out, "# TYPE {name}_total counter\n{name}_total {v:?}");
                } else {
                    let _ = writeln!(out, "# TYPE {name} gauge\n{name} {v:?}");
                }
            }
            Kind::Histogram => {
                let mut s2 = s.clone();
                let Some(Some(h)) = histogram_mut(&mut s2, c.field).map(|h| h.take()) else {
                    continue;
                };
                let _ = writeln!(out, "# TYPE {name} histogram");
                for (b, n) in &h.buckets {
                    let _ = writeln!(out, "{name}_bucket{{le=\"{}\"}} {n:?}", le(*b));
                }
                let _ = writeln!(out, "{name}_sum {:?}\n{name}_count {:?}", h.sum, h.count);
            }
        }
    }
    if s.engine == crate::Engine::Vllm && !s.config_labels.is_empty() {
        let labels: Vec<String> = s
            .config_labels
            .iter()
            .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
            .collect();
        let _ = writeln!(
            out,
            "# TYPE {CACHE_CONFIG_INFO} gauge\n{CACHE_CONFIG_INFO}{{{}}} 1.0",
            labels.join(",")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name in the table, exposed alone beside a marker of its engine's prefix, fills the
    /// same field through the adapters: the table and the adapters cannot disagree.
    #[test]
    fn every_name_fills_its_field_through_the_adapters() {
        let mut checked = 0;
        for c in CONCEPTS {
            for e in c.engines {
                for name in e.names {
                    let text = match c.kind {
                        Kind::Gauge => format!("{name} 7\n"),
                        Kind::Counter => format!("# TYPE {name}_total counter\n{name}_total 7\n"),
                        Kind::Histogram => format!(
                            "# TYPE {name} histogram\n{name}_bucket{{le=\"1.0\"}} 3\n{name}_bucket{{le=\"+Inf\"}} 7\n{name}_sum 5\n{name}_count 7\n"
                        ),
                    };
                    let e = crate::prom::parse(&text).unwrap();
                    let mut s =
                        crate::to_sample(&e, 0.0).unwrap_or_else(|err| panic!("{name}: {err}"));
                    match c.kind {
                        Kind::Histogram => {
                            let h = histogram_mut(&mut s, c.field)
                                .unwrap_or_else(|| panic!("{} is no histogram field", c.field));
                            assert_eq!(
                                h.as_ref().map(|h| h.count),
                                Some(7.0),
                                "{name} → {}",
                                c.field
                            );
                        }
                        _ => assert_eq!(scalar(&s, c.field), Some(7.0), "{name} → {}", c.field),
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 30, "{checked}");
    }

    #[test]
    fn a_sample_written_back_reads_the_same() {
        for engine in [
            crate::Engine::Vllm,
            crate::Engine::LlamaCpp,
            crate::Engine::Sglang,
        ] {
            let mut s = Sample::empty(12.5, engine);
            s.running = Some(3.0);
            s.waiting = Some(1.0);
            s.generation_tokens = Some(1234.5);
            s.prompt_tokens = Some(1e7);
            if engine == crate::Engine::LlamaCpp {
                s.decode_calls = Some(217.0);
            } else {
                s.ttft = Some(Histogram {
                    buckets: vec![(0.1, 2.0), (1.0, 5.0), (f64::INFINITY, 6.0)],
                    sum: 3.25,
                    count: 6.0,
                });
            }
            if engine == crate::Engine::Vllm {
                s.config_labels
                    .insert("enable_prefix_caching".into(), "False".into());
                s.config_labels.insert("block_size".into(), "16".into());
            }
            let text = exposition(&s);
            let back = crate::parse_metrics(&text, 12.5).unwrap().sample;
            for f in [
                "running",
                "waiting",
                "generation_tokens",
                "prompt_tokens",
                "decode_calls",
            ] {
                assert_eq!(scalar(&back, f), scalar(&s, f), "{engine:?} {f}\n{text}");
            }
            assert_eq!(back.ttft, s.ttft, "{engine:?}\n{text}");
            assert_eq!(back.config_labels, s.config_labels, "{engine:?}\n{text}");
        }
    }
}
