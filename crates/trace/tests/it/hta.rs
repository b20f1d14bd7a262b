//! Cross-check with HolisticTraceAnalysis (PyPI `holistictraceanalysis`, in $HEADROOM_PY) where
//! its definitions match ours, accounting for where they differ instead of copying them:
//!
//! - HTA drops the last ProfilerStep by default: tests/ref/hta_breakdown.py passes
//!   `include_last_profiler_step=True`, and HTA then keeps every kernel of these traces.
//! - HTA rounds float timestamps (ts = ceil(ts), end = floor(ts + dur)): with
//!   HTA_DISABLE_NS_ROUNDING=1 its sums must equal ours; with rounding on, each event loses
//!   less than 2 µs, never gains, and integer-µs traces are untouched.
//! - HTA takes every row with an integer `stream` arg for device work, so a CPU op that carries
//!   one (Triton launches in the B200 trace) lands in its kernel table: those rows are reported
//!   by category, checked to be non-device, and left out of the comparison.

use crate::util::*;
use serde_json::Value;
use std::collections::BTreeMap;
use trace::{analyze, Options, Report};

fn ours(name: &str) -> Report {
    let (src, _) = trace::input::open(&fixture(name)).unwrap();
    analyze(src, &Options::default()).unwrap()
}

/// HTA's Python, or None (skip) / panic (CI) when it is not installed there.
fn hta_python() -> Option<std::path::PathBuf> {
    testpeers::python_with("hta.trace_analysis", "holistictraceanalysis")
}

struct Row {
    sum_us: f64,
    min_us: f64,
    max_us: f64,
    count: u64,
}

/// HTA's device rows per name, after checking that its breakdown row is exactly its device rows
/// plus rows of non-device categories.
/// (kernel name, category, rows) of a non-device row HTA counted as device work.
type Stray = (String, String, u64);

fn hta_rows(trace: &Value) -> (BTreeMap<String, Row>, Vec<Stray>) {
    let mut rows = BTreeMap::new();
    let mut strays = vec![];
    for (name, k) in trace["kernels"].as_object().unwrap() {
        let mut other_sum = 0.0;
        for (cat, v) in k["other"].as_object().unwrap() {
            assert!(
                !["kernel", "gpu_memcpy", "gpu_memset"].contains(&cat.as_str()),
                "{name}: {cat}"
            );
            other_sum += v[1].as_f64().unwrap();
            strays.push((name.clone(), cat.clone(), v[0].as_u64().unwrap()));
        }
        let d = &k["device"];
        if d.is_null() {
            continue;
        }
        let row = Row {
            sum_us: d["sum"].as_f64().unwrap(),
            min_us: d["min"].as_f64().unwrap(),
            max_us: d["max"].as_f64().unwrap(),
            count: d["count"].as_u64().unwrap(),
        };
        let total = k["sum"].as_f64().unwrap();
        assert!(
            (row.sum_us + other_sum - total).abs() <= 1e-6 * total.max(1.0),
            "{name}: HTA's breakdown row is its device rows plus the strays"
        );
        rows.insert(name.clone(), row);
    }
    (rows, strays)
}

#[test]
fn hta_unrounded_equals_ours() {
    let Some(py) = hta_python() else {
        return;
    };
    let paths: Vec<String> = TRACES
        .iter()
        .map(|t| fixture(t).to_str().unwrap().to_string())
        .collect();
    let mut args = vec![script("hta_breakdown.py").to_str().unwrap().to_string()];
    args.extend(paths);
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let out = run_json(&py, &args, &[("HTA_DISABLE_NS_ROUNDING", "1")]);
    assert_eq!(out.len(), TRACES.len());
    for (name, trace) in TRACES.iter().zip(&out) {
        let r = ours(name);
        let (rows, strays) = hta_rows(trace);
        assert_eq!(rows.len(), r.names.len(), "{name}: same kernel names");
        for n in &r.names {
            let h = rows
                .get(&n.name)
                .unwrap_or_else(|| panic!("{name}: HTA lacks {}", n.name));
            let us = |ns: i64| ns as f64 / 1e3;
            assert_eq!(h.count, n.stats.count, "{name}: {}", n.name);
            assert!(
                (h.sum_us - us(n.stats.total_ns)).abs() <= 1e-6 * us(n.stats.total_ns).max(1.0),
                "{name}: {} sum {} vs {}",
                n.name,
                h.sum_us,
                us(n.stats.total_ns)
            );
            assert!(
                (h.min_us - us(n.stats.min_ns)).abs() < 1e-6,
                "{name}: {} min",
                n.name
            );
            assert!(
                (h.max_us - us(n.stats.max_ns)).abs() < 1e-6,
                "{name}: {} max",
                n.name
            );
        }
        if name.contains("b200") {
            // The one Triton launch whose cpu_op carries `stream`: HTA counts its 74 µs of CPU.
            assert_eq!(strays.len(), 1, "{strays:?}");
            assert_eq!(strays[0].1, "cpu_op");
        } else {
            assert!(strays.is_empty(), "{name}: {strays:?}");
        }
        eprintln!(
            "{name}: HTA (unrounded, last step kept) = ours on {} names; {} stray non-device rows",
            rows.len(),
            strays.len()
        );
    }
}

#[test]
fn hta_rounding_only_loses_under_two_microseconds_per_event() {
    let Some(py) = hta_python() else {
        return;
    };
    // Float-timestamp (ns-precision) traces, small enough to load a second time. Integer-µs
    // traces (V100) are untouched by the rounding and already equal in the unrounded test.
    let names = [
        "hta_mi250_minitoy_train_rocm6.2.json.gz",
        "hta_a100_nccl_data.json.gz",
        "tracelens_b200_eager_trace.json.gz",
    ];
    let mut args = vec![script("hta_breakdown.py").to_str().unwrap().to_string()];
    args.extend(
        names
            .iter()
            .map(|t| fixture(t).to_str().unwrap().to_string()),
    );
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let out = run_json(&py, &args, &[("HTA_DISABLE_NS_ROUNDING", "0")]);
    for (name, trace) in names.iter().zip(&out) {
        assert_eq!(trace["rounded"], Value::Bool(true));
        let r = ours(name);
        let (rows, _) = hta_rows(trace);
        let mut lost = 0.0;
        for n in &r.names {
            let h = &rows[&n.name];
            let sum = n.stats.total_ns as f64 / 1e3;
            assert_eq!(h.count, n.stats.count, "{name}: {}", n.name);
            assert!(
                h.sum_us <= sum + 1e-6,
                "{name}: {}: rounding never adds ({} > {sum})",
                n.name,
                h.sum_us
            );
            assert!(
                h.sum_us > sum - 2.0 * n.stats.count as f64,
                "{name}: {}: under 2 µs lost per event",
                n.name
            );
            assert!(
                h.min_us <= n.stats.min_ns as f64 / 1e3 + 1e-6
                    && h.min_us > n.stats.min_ns as f64 / 1e3 - 2.0
            );
            assert!(
                h.max_us <= n.stats.max_ns as f64 / 1e3 + 1e-6
                    && h.max_us > n.stats.max_ns as f64 / 1e3 - 2.0
            );
            lost += sum - h.sum_us;
        }
        assert!(
            lost > 0.0,
            "{name}: float timestamps: HTA's rounding must show"
        );
        eprintln!(
            "{name}: HTA's ns rounding drops {lost:.3} µs of {:.3} µs",
            r.device_total_ns as f64 / 1e3
        );
    }
}
