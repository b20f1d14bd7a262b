//! Raw Prometheus series in, one typed [`Sample`] out, by the engine's adapter (its `fill` in
//! `engine/<name>.rs`, where its metric names live). This module holds what every adapter
//! shares: detection by prefix, the read view and how series combine.

pub mod promql;

use crate::engine::{llamacpp, sglang, tgi, vllm};

use crate::prom::{Exposition, PromSample};
use crate::sample::{Engine, Histogram, Sample};
use std::collections::BTreeMap;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AdaptError {
    #[error(
        "no LLM engine metrics in this exposition (looked for the prefixes {}); {count} families seen, e.g. {seen}",
        Engine::ALL.map(|e| e.prefix()).join(", ")
    )]
    UnknownEngine { count: usize, seen: String },
}

/// The engine whose metric prefix names the most families, or None when no family has one.
pub fn detect_engine(e: &Exposition) -> Option<Engine> {
    let mut best: Option<(usize, Engine)> = None;
    for engine in Engine::ALL {
        let prefix = engine.prefix();
        let n = e
            .families
            .iter()
            .filter(|f| f.name.starts_with(prefix))
            .count();
        if n > 0 && best.map(|(b, _)| n > b).unwrap_or(true) {
            best = Some((n, engine));
        }
    }
    best.map(|(_, e)| e)
}

/// The gauge headroom's emulator exports its simulated clock in (unix seconds). A sample whose
/// exposition carries it is timed by it rather than by the scrape's wall clock, so rates follow
/// simulated time at any `--speed`. No real engine exports it.
pub const EMULATOR_CLOCK: &str = "headroom_emulator_clock_seconds";

/// Maps a parsed exposition to a [`Sample`] taken at `t` (unix seconds), or at the
/// [`EMULATOR_CLOCK`] when the exposition carries it.
pub fn to_sample(e: &Exposition, t: f64) -> Result<Sample, AdaptError> {
    let engine = detect_engine(e).ok_or_else(|| AdaptError::UnknownEngine {
        count: e.families.len(),
        seen: e
            .families
            .iter()
            .take(6)
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    })?;
    let clock = e
        .series(EMULATOR_CLOCK)
        .map(|c| c.value)
        .find(|c| c.is_finite());
    let mut s = Sample::empty(clock.unwrap_or(t), engine);
    s.simulated = clock.is_some();
    fill(engine, &View::new(e), &mut s);
    Ok(s)
}

fn fill(engine: Engine, v: &View, s: &mut Sample) {
    match engine {
        Engine::Vllm => vllm::fill(v, s),
        Engine::LlamaCpp => llamacpp::fill(v, s),
        Engine::Sglang => sglang::fill(v, s),
        Engine::Tgi => tgi::fill(v, s),
    }
}

/// How series that differ only in some labels are combined.
#[derive(Clone, Copy)]
pub(crate) enum Agg<'a> {
    /// Sum every series (counts across data-parallel engines, finish reasons ...).
    Sum,
    /// Average every series (a 0–1 fraction reported once per engine).
    Mean,
    /// Average over these labels (replicas that report the same state, e.g. tensor-parallel
    /// ranks of one scheduler), then sum over the rest.
    MeanOverThenSum(&'a [&'a str]),
}

/// One concept an engine exports under one metric, as data in its engine module's `SERIES`
/// (renamed metrics list every name, newest first: a rename is one more name in one row). The
/// adapter reads every row from a scrape ([`read_series`]); where `store` names a field, the
/// store readers (`fleet`, `census`) read the same names from a Prometheus
/// ([`promql::CONCEPTS`]).
#[derive(Clone, Copy)]
pub(crate) struct Series {
    /// The [`Sample`] field the adapter fills, by its Rust name.
    pub field: &'static str,
    pub kind: promql::Kind,
    /// Counters by base name (the exposed name is `name_total` or `name`).
    pub names: &'static [&'static str],
    pub agg: Agg<'static>,
    /// The field a store reader fills from these names; None where a store cannot give the
    /// concept (the adapter derives it from raw values that a store's increases do not keep).
    pub store: Option<&'static str>,
}

impl Series {
    /// Read by the adapter only.
    pub(crate) const fn adapter_only(self) -> Series {
        Series {
            store: None,
            ..self
        }
    }
    /// A store reader fills `field` from these names instead.
    pub(crate) const fn store_as(self, field: &'static str) -> Series {
        Series {
            store: Some(field),
            ..self
        }
    }
}

const fn series(
    kind: promql::Kind,
    field: &'static str,
    names: &'static [&'static str],
    agg: Agg<'static>,
) -> Series {
    Series {
        field,
        kind,
        names,
        agg,
        store: Some(field),
    }
}

/// A level, read as is.
pub(crate) const fn gauge(
    field: &'static str,
    names: &'static [&'static str],
    agg: Agg<'static>,
) -> Series {
    series(promql::Kind::Gauge, field, names, agg)
}

/// A cumulative count.
pub(crate) const fn counter(
    field: &'static str,
    names: &'static [&'static str],
    agg: Agg<'static>,
) -> Series {
    series(promql::Kind::Counter, field, names, agg)
}

/// A cumulative histogram (`_bucket{le}`, `_sum`, `_count`).
pub(crate) const fn histogram(
    field: &'static str,
    names: &'static [&'static str],
    agg: Agg<'static>,
) -> Series {
    series(promql::Kind::Histogram, field, names, agg)
}

/// Fills each row's field from the exposition.
pub(crate) fn read_series(v: &View, s: &mut Sample, table: &[Series]) {
    for r in table {
        match r.kind {
            promql::Kind::Gauge | promql::Kind::Counter => {
                let x = if r.kind == promql::Kind::Gauge {
                    v.gauge(r.names, r.agg)
                } else {
                    v.counter(r.names, r.agg)
                };
                if let Some(slot) = promql::scalar_mut(s, r.field) {
                    *slot = x;
                }
            }
            promql::Kind::Histogram => {
                if let Some(slot) = promql::histogram_mut(s, r.field) {
                    *slot = v.histogram(r.names, r.agg);
                }
            }
        }
    }
}

/// An engine's table.
pub(crate) fn series_of(engine: Engine) -> &'static [Series] {
    match engine {
        Engine::Vllm => vllm::SERIES,
        Engine::LlamaCpp => llamacpp::SERIES,
        Engine::Sglang => sglang::SERIES,
        Engine::Tgi => tgi::SERIES,
    }
}

/// Read access to an exposition by metric name, with the aggregation rules above.
pub(crate) struct View<'a> {
    e: &'a Exposition,
    /// Every family name an adapter asked for, present or not: the tests diff it against a real
    /// engine's exposition, so a family the engine sends and no adapter reads is seen.
    asked: std::cell::RefCell<std::collections::BTreeSet<String>>,
}

impl<'a> View<'a> {
    pub fn new(e: &'a Exposition) -> Self {
        View {
            e,
            asked: Default::default(),
        }
    }

    fn ask(&self, name: &str) {
        let base = name.strip_suffix("_total").unwrap_or(name);
        self.asked.borrow_mut().insert(base.to_string());
    }
    /// Samples printed as the first of `names` that has any (names in preference order, so a
    /// renamed metric lists its new name first).
    fn first_present(&self, names: &[String]) -> Vec<&'a PromSample> {
        for n in names {
            let v: Vec<&'a PromSample> = self
                .e
                .samples()
                .filter(|s| s.name == *n && !s.value.is_nan())
                .collect();
            if !v.is_empty() {
                return v;
            }
        }
        Vec::new()
    }

    pub fn has(&self, name: &str) -> bool {
        self.ask(name);
        self.e.series(name).next().is_some()
    }

    /// The first sample that satisfies `pred`.
    pub fn any_sample(&self, mut pred: impl FnMut(&PromSample) -> bool) -> Option<&'a PromSample> {
        self.e.samples().find(|s| pred(s))
    }

    /// A gauge, by exact name (alternatives in preference order).
    pub fn gauge(&self, names: &[&str], agg: Agg) -> Option<f64> {
        names.iter().for_each(|n| self.ask(n));
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        combine(&self.first_present(&names), agg)
    }

    /// A counter, matched as `name(_total)?` (alternatives in preference order).
    pub fn counter(&self, names: &[&str], agg: Agg) -> Option<f64> {
        names.iter().for_each(|n| self.ask(n));
        let mut all = Vec::new();
        for n in names {
            all.push(format!("{n}_total"));
            all.push(n.to_string());
        }
        combine(&self.first_present(&all), agg)
    }

    /// A counter's series whose `label` equals `value`, matched as `name(_total)?`; None when
    /// the family or that label value is absent.
    pub fn counter_where(&self, name: &str, label: &str, value: &str, agg: Agg) -> Option<f64> {
        self.ask(name);
        let names = [format!("{name}_total"), name.to_string()];
        let v: Vec<&PromSample> = self
            .first_present(&names)
            .into_iter()
            .filter(|s| s.label(label) == Some(value))
            .collect();
        combine(&v, agg)
    }

    /// A gauge's series whose `label` equals `value`.
    pub fn gauge_where(&self, name: &str, label: &str, value: &str, agg: Agg) -> Option<f64> {
        self.ask(name);
        let v: Vec<&PromSample> = self
            .first_present(&[name.to_string()])
            .into_iter()
            .filter(|s| s.label(label) == Some(value))
            .collect();
        combine(&v, agg)
    }

    /// A histogram (or a summary's sum and count) by family name, first alternative present.
    pub fn histogram(&self, names: &[&str], agg: Agg) -> Option<Histogram> {
        names.iter().for_each(|n| self.ask(n));
        for n in names {
            if let Some(h) = self.histogram_one(n, agg) {
                return Some(h);
            }
        }
        None
    }

    fn histogram_one(&self, name: &str, agg: Agg) -> Option<Histogram> {
        let bucket_name = format!("{name}_bucket");
        let buckets: Vec<&PromSample> = self.e.series(&bucket_name).collect();
        let sum = combine(
            &self.e.series(&format!("{name}_sum")).collect::<Vec<_>>(),
            agg,
        );
        let count = combine(
            &self.e.series(&format!("{name}_count")).collect::<Vec<_>>(),
            agg,
        );
        if buckets.is_empty() && count.is_none() {
            return None;
        }
        // Group bucket samples by their bound, then combine each group across series.
        let mut by_le: Vec<(f64, Vec<&PromSample>)> = Vec::new();
        for b in buckets {
            let Some(le) = b.label("le").and_then(crate::prom::parse_value) else {
                continue;
            };
            if le.is_nan() {
                continue;
            }
            match by_le.iter_mut().find(|(x, _)| *x == le) {
                Some((_, v)) => v.push(b),
                None => by_le.push((le, vec![b])),
            }
        }
        by_le.sort_by(|a, b| a.0.total_cmp(&b.0));
        let buckets: Vec<(f64, f64)> = by_le
            .into_iter()
            .filter_map(|(le, v)| combine(&v, agg).map(|c| (le, c)))
            .collect();
        // `_count` equals the +Inf bucket; either will do. Without a sum the mean is unknown, and
        // a histogram with a made-up sum would lie, so it is left unread.
        let inf = buckets
            .last()
            .filter(|(le, _)| le.is_infinite())
            .map(|(_, c)| *c);
        Some(Histogram {
            buckets,
            sum: sum?,
            count: count.or(inf)?,
        })
    }

    /// The first series' label of the first family with that name, for identity labels
    /// (model_name) that are the same on every series.
    pub fn label_of(&self, prefix: &str, key: &str) -> Option<String> {
        self.e
            .samples()
            .filter(|s| s.name.starts_with(prefix))
            .find_map(|s| s.label(key).map(str::to_string))
            .filter(|v| !v.is_empty())
    }

    /// Labels of the first series named `name`, preferring the one with `engine="0"`, minus the
    /// labels in `skip`.
    pub fn info_labels(&self, name: &str, skip: &[&str]) -> BTreeMap<String, String> {
        self.ask(name);
        let series: Vec<&PromSample> = self.e.series(name).collect();
        let pick = series
            .iter()
            .find(|s| s.label("engine") == Some("0"))
            .or_else(|| series.first());
        pick.map(|s| {
            s.labels
                .iter()
                .filter(|(k, _)| !skip.contains(&k.as_str()))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
    }
}

/// Checks a real engine's exposition against what its adapter asks for: every family it sends
/// is read or listed in `unread` (with the reason it carries no evidence), every family asked
/// for and not sent is listed in `absent` (with why), and both lists stay true.
#[cfg(test)]
pub(crate) fn assert_families_placed(text: &str, unread: &[(&str, &str)], absent: &[(&str, &str)]) {
    use std::collections::BTreeSet;
    let e = crate::prom::parse(text).expect("a real exposition parses");
    let sent: BTreeSet<String> = e
        .families
        .iter()
        .map(|f| match f.kind {
            // Adapters ask for a counter by its base name and match `name(_total)?`.
            crate::prom::MetricType::Counter => f.name.strip_suffix("_total").unwrap_or(&f.name),
            _ => &f.name,
        })
        .map(str::to_string)
        .collect();
    let v = View::new(&e);
    let engine = detect_engine(&e).expect("an engine's exposition");
    fill(engine, &v, &mut Sample::empty(0.0, engine));
    let asked = v.asked.into_inner();
    let listed = |set: &[(&str, &str)], f: &str| set.iter().any(|(n, _)| *n == f);
    let unplaced: Vec<&String> = sent
        .iter()
        .filter(|f| !asked.contains(*f) && !listed(unread, f))
        .collect();
    assert!(
        unplaced.is_empty(),
        "sent, neither read nor listed: {unplaced:?}"
    );
    let missing: Vec<&String> = asked
        .iter()
        .filter(|f| !sent.contains(*f) && !listed(absent, f))
        .collect();
    assert!(
        missing.is_empty(),
        "asked for, not sent, not listed: {missing:?}"
    );
    for (f, _) in unread {
        assert!(sent.contains(*f), "{f} listed as sent but not in the body");
        assert!(!asked.contains(*f), "{f} is read; drop it from the list");
    }
    for (f, _) in absent {
        assert!(!sent.contains(*f), "{f} listed as absent but sent");
    }
}

fn combine(samples: &[&PromSample], agg: Agg) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    match agg {
        Agg::Sum => Some(samples.iter().map(|s| s.value).sum()),
        Agg::Mean => Some(samples.iter().map(|s| s.value).sum::<f64>() / samples.len() as f64),
        Agg::MeanOverThenSum(replica) => {
            // (labels that identify a group, sum, members).
            #[allow(clippy::type_complexity)]
            let mut groups: Vec<(Vec<(&str, &str)>, f64, usize)> = Vec::new();
            for s in samples {
                let mut key: Vec<(&str, &str)> = s
                    .labels
                    .iter()
                    .filter(|(k, _)| !replica.contains(&k.as_str()) && k != "le")
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                key.sort();
                match groups.iter_mut().find(|(k, _, _)| *k == key) {
                    Some(g) => {
                        g.1 += s.value;
                        g.2 += 1;
                    }
                    None => groups.push((key, s.value, 1)),
                }
            }
            Some(groups.iter().map(|(_, sum, n)| sum / *n as f64).sum())
        }
    }
}

#[cfg(test)]
pub(crate) fn sample_of(text: &str) -> Sample {
    let e = crate::prom::parse(text).expect("test exposition parses");
    to_sample(&e, 0.0).expect("test exposition has an engine")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_prefix_majority() {
        for (text, want) in [
            (
                "vllm:num_requests_running 1\nprocess_cpu_seconds_total 2\n",
                Some(Engine::Vllm),
            ),
            ("sglang:num_running_reqs 1\n", Some(Engine::Sglang)),
            ("llamacpp:requests_processing 1\n", Some(Engine::LlamaCpp)),
            (
                "tgi_queue_size 1\ntgi_batch_current_size 2\n",
                Some(Engine::Tgi),
            ),
            ("python_gc_objects_collected_total 3\n", None),
        ] {
            let e = crate::prom::parse(text).unwrap();
            assert_eq!(detect_engine(&e), want, "{text}");
        }
        let e = crate::prom::parse("http_requests_total 1\nprocess_open_fds 3\n").unwrap();
        match to_sample(&e, 1.0) {
            Err(AdaptError::UnknownEngine { count: 2, seen }) => {
                assert!(seen.contains("http_requests_total"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_emulator_clock_times_the_sample() {
        let e = crate::prom::parse(
            "vllm:num_requests_running 1\nheadroom_emulator_clock_seconds 1.7e9\n",
        )
        .unwrap();
        assert_eq!(to_sample(&e, 5.0).unwrap().t, 1.7e9);
        let e = crate::prom::parse("vllm:num_requests_running 1\n").unwrap();
        assert_eq!(to_sample(&e, 5.0).unwrap().t, 5.0);
    }

    #[test]
    fn mean_over_replicas_then_sum() {
        let text = "x{tp_rank=\"0\",dp_rank=\"0\"} 4\nx{tp_rank=\"1\",dp_rank=\"0\"} 4\nx{tp_rank=\"0\",dp_rank=\"1\"} 2\nx{tp_rank=\"1\",dp_rank=\"1\"} 2\n";
        let e = crate::prom::parse(text).unwrap();
        let v = View::new(&e);
        assert_eq!(v.gauge(&["x"], Agg::Sum), Some(12.0));
        assert_eq!(v.gauge(&["x"], Agg::Mean), Some(3.0));
        assert_eq!(
            v.gauge(&["x"], Agg::MeanOverThenSum(&["tp_rank"])),
            Some(6.0)
        );
        assert_eq!(v.gauge(&["y"], Agg::Sum), None);
    }
}
