//! What an engine module reads an exposition with: the [`View`] by metric name, how series that
//! differ only in some labels combine ([`Agg`]), and the [`Series`] rows its `SERIES` table is
//! made of. A leaf: the engine modules and the adapters both read it, it reads neither.

use crate::prom::{Exposition, PromSample};
use crate::sample::{Histogram, Sample};
use std::collections::BTreeMap;

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
/// (`adapters::promql::CONCEPTS`).
#[derive(Clone, Copy)]
pub(crate) struct Series {
    /// The [`Sample`] field the adapter fills, by its Rust name.
    pub field: &'static str,
    pub kind: Kind,
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
    kind: Kind,
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
    series(Kind::Gauge, field, names, agg)
}

/// A cumulative count.
pub(crate) const fn counter(
    field: &'static str,
    names: &'static [&'static str],
    agg: Agg<'static>,
) -> Series {
    series(Kind::Counter, field, names, agg)
}

/// A cumulative histogram (`_bucket{le}`, `_sum`, `_count`).
pub(crate) const fn histogram(
    field: &'static str,
    names: &'static [&'static str],
    agg: Agg<'static>,
) -> Series {
    series(Kind::Histogram, field, names, agg)
}

/// Fills each row's field from the exposition.
pub(crate) fn read_series(v: &View, s: &mut Sample, table: &[Series]) {
    for r in table {
        match r.kind {
            Kind::Gauge | Kind::Counter => {
                let x = if r.kind == Kind::Gauge {
                    v.gauge(r.names, r.agg)
                } else {
                    v.counter(r.names, r.agg)
                };
                if let Some(slot) = scalar_mut(s, r.field) {
                    *slot = x;
                }
            }
            Kind::Histogram => {
                if let Some(slot) = histogram_mut(s, r.field) {
                    *slot = v.histogram(r.names, r.agg);
                }
            }
        }
    }
}

/// Read access to an exposition by metric name, with the aggregation rules above.
pub(crate) struct View<'a> {
    e: &'a Exposition,
    /// Every family name an adapter asked for, present or not: the tests diff it against a real
    /// engine's exposition, so a family the engine sends and no adapter reads is seen.
    pub(crate) asked: std::cell::RefCell<std::collections::BTreeSet<String>>,
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

/// Every `Option<f64>` field of a [`Sample`] by its Rust name, read and written.
macro_rules! scalar_fields {
    ($($f:ident),* $(,)?) => {
        /// The named scalar field of a sample; None when `field` names no scalar field.
        pub fn scalar_mut<'a>(s: &'a mut Sample, field: &str) -> Option<&'a mut Option<f64>> {
            match field {
                $(stringify!($f) => Some(&mut s.$f),)*
                _ => None,
            }
        }

        /// The named scalar field's value in a sample; None when unset or not a scalar field.
        pub fn scalar(s: &Sample, field: &str) -> Option<f64> {
            match field {
                $(stringify!($f) => s.$f,)*
                _ => None,
            }
        }
    };
}

scalar_fields!(
    running,
    waiting,
    swapped,
    kv_usage,
    prefix_hit_rate_gauge,
    kv_capacity_tokens,
    waiting_for_capacity,
    prompt_tokens,
    generation_tokens,
    generation_tokens_credited,
    preemptions,
    requests_finished,
    prefix_queries,
    prefix_hits,
    cached_prompt_tokens,
    prompt_tokens_computed,
    admission_rejections,
    prompt_seconds,
    generation_seconds,
    decode_calls,
    busy_slots_per_decode,
    steps,
    steps_decode,
    step_seconds,
    step_seconds_decode,
    prefill_chunks,
    spec_drafts,
    spec_draft_tokens,
    spec_accepted_tokens,
);

/// Sets the named scalar field of a sample; false when `field` names no scalar field.
pub fn set_scalar(s: &mut Sample, field: &str, v: f64) -> bool {
    match scalar_mut(s, field) {
        Some(slot) => {
            *slot = Some(v);
            true
        }
        None => false,
    }
}

/// The named histogram field of a sample; None when `field` names no histogram field.
pub fn histogram_mut<'a>(s: &'a mut Sample, field: &str) -> Option<&'a mut Option<Histogram>> {
    Some(match field {
        "ttft" => &mut s.ttft,
        "itl" => &mut s.itl,
        "e2e" => &mut s.e2e,
        "queue_time" => &mut s.queue_time,
        "prompt_len" => &mut s.prompt_len,
        "gen_len" => &mut s.gen_len,
        "prefill_time" => &mut s.prefill_time,
        "decode_time" => &mut s.decode_time,
        "preemptions_per_request" => &mut s.preemptions_per_request,
        _ => return None,
    })
}
