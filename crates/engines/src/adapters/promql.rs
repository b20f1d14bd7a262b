//! The concepts a Prometheus store can give: for each [`Sample`] field a reader of a store
//! (`headroom fleet`, `headroom census`) fills, its kind, and every engine's names and how its
//! series combine, read from the same `SERIES` rows of the engine modules that the adapters read
//! a scrape by. A test below feeds every name through the adapters.
//!
//! Derived concepts the adapters compute from two series (SGLang and TGI KV usage as used over
//! capacity) are not here: a store reader leaves them unread rather than guess.

use crate::sample::Sample;
use crate::series::Agg;
pub use crate::series::{histogram_mut, scalar, scalar_mut, set_scalar, Kind};

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

/// A [`Sample`] field a store reader can fill, and its kind; each engine's names for it are in
/// its engine module's `SERIES` ([`Concept::engines`]).
#[derive(Debug, Clone, Copy)]
pub struct Concept {
    /// The Sample field's name (also the tag a reader labels its results with).
    pub field: &'static str,
    pub kind: Kind,
}

impl Concept {
    /// Every engine's names for this concept, as its engine module lists them.
    pub fn engines(&self) -> impl Iterator<Item = Names> + '_ {
        self.rows().map(|(_, n)| n)
    }

    /// [`Concept::engines`] with the engine each row belongs to.
    pub fn rows(&self) -> impl Iterator<Item = (crate::Engine, Names)> + '_ {
        crate::Engine::ALL.into_iter().flat_map(move |e| {
            e.def()
                .series
                .iter()
                .filter(move |r| r.store == Some(self.field))
                .map(move |r| {
                    (
                        e,
                        Names {
                            names: r.names,
                            combine: match r.agg {
                                Agg::Sum => Combine::Sum,
                                Agg::Mean => Combine::Mean,
                                Agg::MeanOverThenSum(l) => Combine::MeanOverThenSum(l),
                            },
                        },
                    )
                })
        })
    }
}

/// vLLM's config-as-labels gauge (`cache_config_info`): a store reader passes its labels to the
/// same config parser the scrape path uses.
pub const CACHE_CONFIG_INFO: &str = crate::engine::vllm::CACHE_CONFIG_INFO;

const fn c(field: &'static str, kind: Kind) -> Concept {
    Concept { field, kind }
}

/// Every concept a store reader fills.
pub const CONCEPTS: &[Concept] = &[
    c("running", Kind::Gauge),
    c("waiting", Kind::Gauge),
    c("swapped", Kind::Gauge),
    c("kv_usage", Kind::Gauge),
    c("prompt_tokens", Kind::Counter),
    c("generation_tokens", Kind::Counter),
    c("preemptions", Kind::Counter),
    c("requests_finished", Kind::Counter),
    c("prefix_queries", Kind::Counter),
    c("prefix_hits", Kind::Counter),
    c("cached_prompt_tokens", Kind::Counter),
    c("decode_calls", Kind::Counter),
    c("ttft", Kind::Histogram),
    c("itl", Kind::Histogram),
    c("e2e", Kind::Histogram),
    c("queue_time", Kind::Histogram),
    c("prompt_len", Kind::Histogram),
    c("gen_len", Kind::Histogram),
];

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
            .engines()
            .filter_map(|n| n.names.first().copied())
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
    use crate::Histogram;

    /// Every name in the table, exposed alone beside a marker of its engine's prefix, fills the
    /// same field through the adapters: the table and the adapters cannot disagree.
    #[test]
    fn every_name_fills_its_field_through_the_adapters() {
        let mut checked = 0;
        for c in CONCEPTS {
            for e in c.engines() {
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

    /// Every row of every engine's table names a field of its kind, and every row a store
    /// reader reads fills a concept of the same kind: a typo or a gauge read as a counter fails
    /// here, not silently in a store's window.
    #[test]
    fn every_series_row_names_a_field_of_its_kind() {
        for e in crate::Engine::ALL {
            for r in e.def().series {
                let mut s = Sample::empty(0.0, e);
                let ok = match r.kind {
                    Kind::Histogram => histogram_mut(&mut s, r.field).is_some(),
                    _ => scalar_mut(&mut s, r.field).is_some(),
                };
                assert!(ok, "{e:?}: {} is no {:?} field of Sample", r.field, r.kind);
                for n in r.names {
                    assert_eq!(engine_of(n), Some(e), "{e:?} row {}: {n}", r.field);
                }
                if let Some(f) = r.store {
                    let c = CONCEPTS
                        .iter()
                        .find(|c| c.field == f)
                        .unwrap_or_else(|| panic!("{e:?}: {f} is no store concept"));
                    assert_eq!(c.kind, r.kind, "{e:?} {f}");
                }
            }
        }
        for c in CONCEPTS {
            assert!(
                c.engines().next().is_some(),
                "{}: no engine gives it",
                c.field
            );
        }
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
