//! The six real Kineto traces in fixtures/traces, against figures derived independently:
//! tests/ref/kineto_reference.py (stdlib json, exact decimals, the whole file in memory) and the
//! counts that fixtures/traces/SOURCES.md states.

use crate::util::*;
use serde_json::Value;
use std::collections::BTreeMap;
use trace::{analyze, DeviceCat, Options, Report, StepRange, StopKind};

fn ours(name: &str, steps: Option<StepRange>) -> Report {
    let (src, _) = trace::input::open(&fixture(name)).unwrap();
    analyze(
        src,
        &Options {
            steps,
            known_steps: None,
        },
    )
    .or_else(|e| match e {
        trace::TraceError::NeedsStepPass => {
            let (s, _) = trace::input::open(&fixture(name)).unwrap();
            let known = trace::scan_steps(s).unwrap();
            let (s, _) = trace::input::open(&fixture(name)).unwrap();
            analyze(
                s,
                &Options {
                    steps,
                    known_steps: Some(known),
                },
            )
        }
        e => Err(e),
    })
    .unwrap()
}

fn i(v: &Value) -> i64 {
    v.as_i64()
        .unwrap_or_else(|| panic!("integer expected, got {v}"))
}

/// Every figure the reference computes, compared exactly (integers of ns).
fn compare(name: &str, r: &Report, reference: &Value) {
    assert!(r.stopped.is_none(), "{name}: {:?}", r.stopped);
    assert_eq!(
        r.events,
        reference["events"].as_u64().unwrap(),
        "{name}: events"
    );

    let mut names = BTreeMap::new();
    for n in &r.names {
        names.insert(
            format!("{}\t{}", n.cat.as_str(), n.name),
            (
                n.stats.total_ns,
                n.stats.count,
                n.stats.min_ns,
                n.stats.max_ns,
            ),
        );
    }
    let want: BTreeMap<String, (i64, u64, i64, i64)> = reference["names"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                (i(&v[0]), v[1].as_u64().unwrap(), i(&v[2]), i(&v[3])),
            )
        })
        .collect();
    assert_eq!(names, want, "{name}: per-name total/count/min/max");

    let streams: BTreeMap<String, (i64, u64)> = r
        .streams
        .iter()
        .map(|s| {
            (
                format!("{}/{}", s.device, s.stream),
                (s.stats.total_ns, s.stats.count),
            )
        })
        .collect();
    let want: BTreeMap<String, (i64, u64)> = reference["streams"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), (i(&v[0]), v[1].as_u64().unwrap())))
        .collect();
    assert_eq!(streams, want, "{name}: per-stream");

    let count = |c: DeviceCat| -> u64 {
        r.names
            .iter()
            .filter(|n| n.cat == c)
            .map(|n| n.stats.count)
            .sum()
    };
    for c in [DeviceCat::Kernel, DeviceCat::Memcpy, DeviceCat::Memset] {
        assert_eq!(
            count(c),
            reference["counts"][c.as_str()].as_u64().unwrap(),
            "{name}: {c:?} count"
        );
    }
    assert_eq!(
        r.device_total_ns,
        i(&reference["device_total_ns"]),
        "{name}: device sum"
    );
    assert_eq!(r.busy_ns, i(&reference["busy_ns"]), "{name}: busy union");
    match reference["span"].as_array() {
        Some(s) => assert_eq!(r.span, Some((i(&s[0]), i(&s[1]))), "{name}: span"),
        None => assert_eq!(r.span, None),
    }
    let ann = &reference["annotation"];
    assert_eq!(
        r.annotations.stats.count,
        ann["count"].as_u64().unwrap(),
        "{name}: annotations"
    );
    assert_eq!(
        r.annotations.stats.total_ns,
        i(&ann["total_ns"]),
        "{name}: annotation sum"
    );
    match ann["inflation"].as_f64() {
        Some(x) => {
            let got = r.annotation_inflation().unwrap();
            assert!(
                (got - x).abs() <= 1e-12 * x,
                "{name}: inflation {got} vs {x}"
            );
        }
        None => assert_eq!(r.annotation_inflation(), None),
    }
    let rt = &r.runtime;
    let classes = [&rt.launch, &rt.sync, &rt.memory, &rt.other];
    assert_eq!(
        classes.iter().map(|s| s.count).sum::<u64>(),
        reference["runtime"][0].as_u64().unwrap(),
        "{name}: runtime calls, all classes"
    );
    assert_eq!(
        classes.iter().map(|s| s.total_ns).sum::<i64>(),
        i(&reference["runtime"][1]),
        "{name}: runtime time"
    );
    assert_eq!(
        (r.overhead.count as i64, r.overhead.total_ns),
        (i(&reference["overhead"][0]), i(&reference["overhead"][1]))
    );
    assert_eq!(
        (r.cuda_sync.count as i64, r.cuda_sync.total_ns),
        (i(&reference["cuda_sync"][0]), i(&reference["cuda_sync"][1]))
    );

    let mut steps: Vec<(u64, i64, i64, bool)> = r
        .steps
        .iter()
        .map(|s| (s.number, s.ts_ns, s.dur_ns, s.on_device))
        .collect();
    let mut want: Vec<(u64, i64, i64, bool)> = reference["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s[0].as_u64().unwrap(),
                i(&s[1]),
                i(&s[2]),
                s[3].as_bool().unwrap(),
            )
        })
        .collect();
    steps.sort();
    want.sort();
    assert_eq!(steps, want, "{name}: ProfilerSteps");

    let census: BTreeMap<String, u64> = r
        .census
        .iter()
        .map(|e| (format!("{}\t{}", e.ph, e.cat), e.count))
        .collect();
    let want: BTreeMap<String, u64> = reference["census"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect();
    assert_eq!(census, want, "{name}: (ph, cat) census");

    // Derived views must add up to the same device time.
    let sym_total: i64 = r.symbols.iter().map(|s| s.stats.total_ns).sum();
    let sym_count: u64 = r.symbols.iter().map(|s| s.stats.count).sum();
    assert_eq!(sym_total, r.device_total_ns, "{name}: symbol rows");
    assert_eq!(
        sym_count,
        r.names.iter().map(|n| n.stats.count).sum::<u64>()
    );
    assert!(r.symbols.len() <= r.names.len());
    assert_eq!(
        r.devices.iter().map(|d| d.stats.total_ns).sum::<i64>(),
        r.device_total_ns
    );
}

#[test]
fn all_six_traces_match_the_reference() {
    let Some(py) = testpeers::python() else {
        return;
    };
    for name in TRACES {
        let path = fixture(name);
        let reference = run_json(
            &py,
            &[
                script("kineto_reference.py").to_str().unwrap(),
                "summary",
                path.to_str().unwrap(),
            ],
            &[],
        );
        let r = ours(name, None);
        compare(name, &r, &reference[0]);
        eprintln!(
            "{name}: {} device events, sum {} ns, busy {} ns, {} annotations: match",
            r.names.iter().map(|n| n.stats.count).sum::<u64>(),
            r.device_total_ns,
            r.busy_ns,
            r.annotations.stats.count
        );
    }
}

#[test]
fn step_windows_match_the_reference() {
    let Some(py) = testpeers::python() else {
        return;
    };
    for (name, first, last) in [
        ("hta_v100_df_index_resolver.json.gz", 3, 5),
        ("hta_a100_nccl_data.json.gz", 4, 5),
        ("hta_mi250_minitoy_train_rocm6.2.json.gz", 1, 1),
    ] {
        let path = fixture(name);
        let reference = run_json(
            &py,
            &[
                script("kineto_reference.py").to_str().unwrap(),
                "summary",
                path.to_str().unwrap(),
                &first.to_string(),
                &last.to_string(),
            ],
            &[],
        );
        let r = ours(name, Some(StepRange { first, last }));
        let w = r.window.unwrap();
        let rw = reference[0]["window"].as_array().unwrap();
        assert_eq!(
            (w.start_ns, w.end_ns),
            (i(&rw[0]), i(&rw[1])),
            "{name}: window"
        );
        assert_eq!(
            r.outside_window,
            reference[0]["outside_window"].as_u64().unwrap(),
            "{name}"
        );
        if !name.contains("mi250") {
            // Multi-step training traces: the window must actually leave steps out.
            assert!(r.outside_window > 0, "{name}: the window left nothing out");
        }
        compare(name, &r, &reference[0]);
    }
}

/// Counts that SOURCES.md states for each file (hand-counted when the fixtures were copied).
#[test]
fn counts_stated_in_sources_md() {
    let cases: &[(&str, u64, u64, u64, u64)] = &[
        // (file, kernels, memcpy, memset, gpu_user_annotation)
        ("hta_mi250_minitoy_train_rocm6.2.json.gz", 14, 2, 0, 2),
        ("hta_a100_nccl_data.json.gz", 2_700, 960, 114, 30),
    ];
    for &(name, k, c, s, a) in cases {
        let r = ours(name, None);
        let count = |cat: DeviceCat| -> u64 {
            r.names
                .iter()
                .filter(|n| n.cat == cat)
                .map(|n| n.stats.count)
                .sum()
        };
        assert_eq!(
            (
                count(DeviceCat::Kernel),
                count(DeviceCat::Memcpy),
                count(DeviceCat::Memset),
                r.annotations.stats.count
            ),
            (k, c, s, a),
            "{name}"
        );
    }
    let r = ours("hta_v100_df_index_resolver.json.gz", None);
    assert_eq!(
        r.names
            .iter()
            .filter(|n| n.cat == DeviceCat::Kernel)
            .map(|n| n.stats.count)
            .sum::<u64>(),
        19_370
    );
    assert_eq!(r.cpu_steps().count(), 5);
    let r = ours("tracelens_h100_owlv2.json.gz", None);
    assert_eq!(
        r.names
            .iter()
            .filter(|n| n.cat == DeviceCat::Memset)
            .map(|n| n.stats.count)
            .sum::<u64>(),
        750
    );
    assert_eq!(
        r.names
            .iter()
            .filter(|n| n.cat == DeviceCat::Kernel)
            .map(|n| n.stats.count)
            .sum::<u64>(),
        4_330
    );
    let r = ours("tracelens_mi300_owlv2.json.gz", None);
    assert_eq!(
        r.names
            .iter()
            .filter(|n| n.cat == DeviceCat::Memset)
            .count(),
        0,
        "MI300 has no gpu_memset"
    );
}

#[test]
fn vendors_and_kineto_generations() {
    let r = ours("tracelens_mi300_owlv2.json.gz", None);
    assert_eq!(r.vendor, trace::Vendor::Rocm);
    assert!(r.runtime.hip_calls > 0 && r.runtime.cuda_calls == 0);
    assert!(r.gemm_tensile > 0, "Cijk_ GEMMs");
    assert!(r
        .symbols
        .iter()
        .any(|s| s.symbol.starts_with("Cijk_") && !s.symbol.contains("_MT")));
    let r = ours("hta_mi250_minitoy_train_rocm6.2.json.gz", None);
    assert_eq!(r.vendor, trace::Vendor::Rocm);
    assert_eq!(r.devices[0].device, 2);
    assert_eq!(r.devices[0].name.as_deref(), Some("AMD Radeon Graphics"));

    // New Kineto: cuda_driver and overhead categories.
    let r = ours("tracelens_b200_eager_trace.json.gz", None);
    assert_eq!(r.vendor, trace::Vendor::Cuda);
    assert_eq!(r.runtime.driver_events, 221);
    assert_eq!(r.overhead.count, 9);
    assert!(
        r.runtime.launch.count >= 768,
        "cudaLaunchKernel, cudaLaunchKernelExC and cuLaunchKernel(Ex)"
    );
    assert!(r.census.iter().any(|e| e.cat == "ac2g"));
    // Old Kineto (2022): integer timestamps, no cuda_driver.
    let r = ours("hta_v100_df_index_resolver.json.gz", None);
    assert_eq!(r.runtime.driver_events, 0);
    assert_eq!(r.runtime.launch.count, 19_370);
}

#[test]
fn truncated_copies_keep_their_complete_part() {
    let Some(py) = testpeers::python() else {
        return;
    };
    for name in [
        "hta_mi250_minitoy_train_rocm6.2.json.gz",
        "hta_a100_nccl_data.json.gz",
    ] {
        let json = gunzip(&fixture(name));
        let off = run_json(
            &py,
            &[
                script("kineto_reference.py").to_str().unwrap(),
                "offsets",
                fixture(name).to_str().unwrap(),
            ],
            &[],
        );
        let events: Vec<(usize, usize, Option<i64>)> = off[0]["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e[0].as_u64().unwrap() as usize,
                    e[1].as_u64().unwrap() as usize,
                    e[2].as_i64(),
                )
            })
            .collect();
        let array_start = events[0].0;
        let mut cuts: Vec<usize> = (1..40)
            .map(|k| array_start + (json.len() - array_start) * k / 40)
            .collect();
        for k in [0, 1, events.len() / 2, events.len() - 1] {
            let (s, e, _) = events[k];
            cuts.extend([s, s + 1, e - 1, e, e + 1]);
        }
        cuts.push(json.len() - 1);
        for cut in cuts {
            let r = analyze(&json[..cut], &Options::default())
                .unwrap_or_else(|e| panic!("{name} cut {cut}: {e}"));
            let stop = r
                .stopped
                .clone()
                .unwrap_or_else(|| panic!("{name} cut {cut}: a prefix must stop"));
            assert!(
                matches!(stop.kind, StopKind::Truncated { .. }),
                "{name} cut {cut}: {stop}"
            );
            let complete: Vec<_> = events.iter().filter(|e| e.1 <= cut).collect();
            assert_eq!(r.events as usize, complete.len(), "{name} cut {cut}");
            assert_eq!(stop.events, r.events);
            let want: i64 = complete.iter().filter_map(|e| e.2).sum();
            assert_eq!(
                r.device_total_ns, want,
                "{name} cut {cut}: device sum of the complete part"
            );
            let lo = complete.last().map_or(array_start, |e| e.1) as u64;
            let hi = events.get(complete.len()).map_or(cut, |e| e.0.min(cut)) as u64;
            assert!(
                lo <= stop.offset && stop.offset <= hi,
                "{name} cut {cut}: stop at {} not in {lo}..={hi}",
                stop.offset
            );
        }
        // Inside the header, before traceEvents: not a trace yet.
        assert!(matches!(
            analyze(&json[..array_start / 2], &Options::default()),
            Err(trace::TraceError::NotATrace(_))
        ));
    }
}

#[test]
fn truncated_gzip_and_zero_filled_tails() {
    let Some(py) = testpeers::python() else {
        return;
    };
    let name = "hta_a100_nccl_data.json.gz";
    let gz = std::fs::read(fixture(name)).unwrap();
    let off = run_json(
        &py,
        &[
            script("kineto_reference.py").to_str().unwrap(),
            "offsets",
            fixture(name).to_str().unwrap(),
        ],
        &[],
    );
    let events: Vec<(u64, u64, Option<i64>)> = off[0]["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e[0].as_u64().unwrap(),
                e[1].as_u64().unwrap(),
                e[2].as_i64(),
            )
        })
        .collect();
    let check = |r: &Report, what: &str| {
        let stop = r
            .stopped
            .clone()
            .unwrap_or_else(|| panic!("{what}: must stop"));
        let complete: Vec<_> = events.iter().filter(|e| e.1 <= stop.offset).collect();
        assert_eq!(r.events as usize, complete.len(), "{what}: {stop}");
        assert_eq!(
            r.device_total_ns,
            complete.iter().filter_map(|e| e.2).sum::<i64>(),
            "{what}"
        );
        stop
    };

    // The client timed out while the .gz was landing: the file ends mid-stream.
    for frac in [0.3, 0.77] {
        let cut = (gz.len() as f64 * frac) as usize;
        let (src, _) = trace::input::decode(std::io::Cursor::new(gz[..cut].to_vec())).unwrap();
        let r = analyze(src, &Options::default()).unwrap();
        let stop = check(&r, &format!("gzip cut at {cut}"));
        match &stop.kind {
            StopKind::Truncated { io, .. } => assert!(io.is_some(), "the inflater's error is kept"),
            k => panic!("{k:?}"),
        }
        assert!(r.events > 1000);
    }

    // A preallocated file that was only partly written: zeros from some byte on.
    let mut json = gunzip(&fixture(name));
    let from = json.len() * 3 / 5;
    json[from..].fill(0);
    let r = analyze(&json[..], &Options::default()).unwrap();
    let stop = check(&r, "zero-filled tail");
    assert!(stop.offset <= from as u64);
    assert!(stop.to_string().contains(&format!("byte {}", stop.offset)));
}
