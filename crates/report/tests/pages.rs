//! The pages from real documents: a diagnose window of the emulator's kv-pressure scenario
//! (`headroom diagnose --url … --gpu H100-SXM --model llama-3.1-8b --json`, kept in
//! tests/fixtures). The browser checks are in crates/headroom/tests/report.rs.

use diagnose::{Report, TimePoint};

fn fixture() -> Report {
    let text = include_str!("fixtures/diagnose-kv-pressure.json");
    serde_json::from_str(text).expect("the fixture reads as headroom.diagnose/1")
}

/// Stretches the fixture's timeline to a 10-minute window scraped each second (600 steps,
/// the most a timeline keeps), cycling its measured points.
fn ten_minutes(mut r: Report) -> Report {
    let src = r.timeline.points.clone();
    assert!(!src.is_empty());
    r.timeline.points = (0..diagnose::window::MAX_TIMELINE_POINTS)
        .map(|i| TimePoint {
            t_s: (i + 1) as f64,
            ..src[i % src.len()].clone()
        })
        .collect();
    let n = r.timeline.sub_windows.len().max(1);
    for (k, w) in r.timeline.sub_windows.iter_mut().enumerate() {
        w.start_s = 600.0 * k as f64 / n as f64;
        w.end_s = 600.0 * (k + 1) as f64 / n as f64;
    }
    r.window.duration_s = 600.0;
    r
}

fn polyline_vertices(page: &str, chart: &str, series: &str) -> usize {
    let svg = &page[page.find(&format!("data-chart=\"{chart}\"")).unwrap()..];
    let svg = &svg[..svg.find("</svg>").unwrap()];
    let g = &svg[svg.find(&format!("data-series=\"{series}\"")).unwrap()..];
    let g = &g[..g.find("</g>").unwrap()];
    g.split(" points=\"")
        .skip(1)
        .map(|p| p[..p.find('"').unwrap()].split_whitespace().count())
        .sum::<usize>()
        + g.matches("<circle").count()
}

#[test]
fn a_ten_minute_window_is_one_small_self_contained_page() {
    let r = ten_minutes(fixture());
    let page = report::diagnose(&r);
    // 600 steps × 6 series plotted and tabled: the budget is 1 MB.
    assert!(page.len() < 1_000_000, "{} bytes", page.len());
    eprintln!("10-minute diagnose page: {} bytes", page.len());
    assert_eq!(
        polyline_vertices(&page, "generation", "generation tok/s"),
        600
    );
    assert!(page.contains("Content-Security-Policy"));
    assert!(!page.contains("<script"));
    // Nothing is fetched: no src or href attribute, no url(…) in the CSS.
    for bad in [" src=", " href=", "url(", "@import"] {
        assert!(!page.contains(bad), "{bad} in the page");
    }
}

#[test]
fn the_page_says_what_the_document_says() {
    let r = fixture();
    let page = report::diagnose(&r);
    let primary = r.primary.as_ref().expect("kv-pressure has a primary");
    assert!(page.contains(&format!("data-primary=\"{}\"", primary.rule.as_str())));
    for e in &primary.evidence {
        let escaped = e
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        assert!(page.contains(&escaped), "evidence {e:?} on the page");
    }
    for step in primary.fix.iter().filter_map(|s| s.flag.as_ref()) {
        assert!(page.contains(step.as_str()), "fix flag {step}");
    }
    // Each sub-window is a band, labelled with its number and what fired on it alone.
    assert_eq!(
        page.matches("<rect class=\"band").count(),
        5 * r.timeline.sub_windows.len()
    );
    // The ceiling line, when the ceiling is known.
    if let Some(c) = r.ceiling.aggregate_at_ridge_tps {
        assert!(page.contains(&format!("ceiling {} tok/s", report::svg::num(c))));
    }
}

#[test]
fn strings_from_the_server_are_escaped() {
    let mut r = fixture();
    let evil = "<script>alert(1)</script>\"><img src=x>";
    r.model = Some(evil.into());
    r.served_model = Some(evil.into());
    if let Some(p) = r.primary.as_mut() {
        p.evidence.push(evil.into());
    }
    let page = report::diagnose(&r);
    assert!(!page.contains("<script"));
    assert!(!page.contains("<img"));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x&gt;"));
}

#[test]
fn a_run_saved_before_timelines_says_so() {
    let mut r = fixture();
    r.timeline = Default::default();
    let page = report::diagnose(&r);
    assert!(page.contains("saved before headroom recorded the window"));
    assert!(!page.contains("data-chart="));
}

/// `headroom probe … --json` as printed before the probe documents were typed (by the build
/// before this one, against llama-server; see fixtures/SOURCES.md).
const PROBES: [(&str, &str); 3] = [
    ("depth", include_str!("fixtures/probe-depth.json")),
    ("prefix", include_str!("fixtures/probe-prefix.json")),
    ("turns", include_str!("fixtures/probe-turns.json")),
];

#[test]
fn probe_documents_read_back_byte_for_byte() {
    for (probe, text) in PROBES {
        let doc = loadgen::probe::ProbeDoc::read(text).expect("reads as headroom.probe/1");
        assert_eq!(doc.probe(), probe);
        // The typed document prints exactly what the untyped envelope printed.
        let again = serde_json::to_string_pretty(&doc).unwrap() + "\n";
        assert_eq!(again, text, "{probe}");
    }
    let other = PROBES[0].1.replace("headroom.probe/1", "headroom.probe/9");
    let e = loadgen::probe::ProbeDoc::read(&other).unwrap_err();
    assert!(e.to_string().contains("headroom.probe/9"), "{e}");
}

#[test]
fn probe_pages_plot_every_sample() {
    for (probe, text) in PROBES {
        let doc = loadgen::probe::ProbeDoc::read(text).unwrap();
        let page = report::probe(&doc);
        assert!(page.len() < 100_000, "{probe}: {} bytes", page.len());
        assert!(!page.contains("<script"));
        match &doc.report {
            loadgen::probe::ProbeReport::Depth(r) => {
                let rates = r.samples.iter().filter(|s| s.decode_tps.is_some()).count();
                assert_eq!(
                    polyline_vertices(&page, "depth", "cold")
                        + polyline_vertices(&page, "depth", "warm"),
                    rates
                );
                assert!(page.contains("class=\"fit\"") && page.contains("class=\"fitband\""));
                assert!(page.contains(&format!("data-verdict=\"{}\"", r.verdict.as_str())));
            }
            loadgen::probe::ProbeReport::Prefix(r) => {
                let svg = &page[page.find("data-chart=\"prefix\"").unwrap()..];
                let svg = &svg[..svg.find("</svg>").unwrap()];
                assert_eq!(svg.matches("<rect class=\"bar\"").count(), r.runs.len());
            }
            loadgen::probe::ProbeReport::Turns(r) => {
                assert_eq!(
                    polyline_vertices(&page, "turns", "first turn")
                        + polyline_vertices(&page, "turns", "warm turns"),
                    r.records.len()
                );
            }
        }
    }
}

#[test]
fn a_hostile_model_name_on_a_probe_page_is_text() {
    let mut doc = loadgen::probe::ProbeDoc::read(PROBES[0].1).unwrap();
    let evil = "<script>alert(1)</script>";
    if let loadgen::probe::ProbeReport::Depth(r) = &mut doc.report {
        r.server.model = Some(evil.into());
        r.reason = evil.into();
    }
    let page = report::probe(&doc);
    assert!(!page.contains("<script"));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
}

/// The regress page's ratio axis is linear: equal ratio steps are equal distances, and the
/// noise band is drawn symmetric about 1.
#[test]
fn the_ratio_axis_is_linear_with_the_noise_band() {
    let rows = [
        report::svg::Interval {
            name: "a".into(),
            ratio: 0.5,
            low: 0.4,
            high: 0.6,
            class: "worse",
        },
        report::svg::Interval {
            name: "b".into(),
            ratio: 1.5,
            low: 1.4,
            high: 1.6,
            class: "better",
        },
    ];
    let svg = report::svg::intervals("r", &rows, Some(0.05)).into_string();
    let cx: Vec<f64> = svg
        .split("<circle cx=\"")
        .skip(1)
        .map(|c| c[..c.find('"').unwrap()].parse().unwrap())
        .collect();
    // The number after the first `pat` in the chart.
    let after = |pat: &str| -> f64 {
        let v = &svg[svg.find(pat).unwrap() + pat.len()..];
        v[..v.find('"').unwrap()].parse().unwrap()
    };
    let one = after("<line class=\"ref\" x1=\"");
    assert_eq!(cx.len(), 2);
    // 0.5 and 1.5 sit at equal distances either side of 1 (a log axis would not).
    assert!(((one - cx[0]) - (cx[1] - one)).abs() < 0.2, "{cx:?} {one}");
    let x = after("<rect class=\"noise\" x=\"");
    let w = after("width=\"");
    assert!(((one - x) - w / 2.0).abs() < 0.2, "band centred on 1");
}

/// `headroom census --prometheus … --json` over a backfilled day (fixtures/SOURCES.md): planted
/// step-time contention behind a restart, with the step ledger under `radiance:`.
const CENSUS: &str = include_str!("fixtures/census-contention.json");

fn census_fixture() -> census::CensusDoc {
    serde_json::from_str(CENSUS).expect("the fixture reads as headroom.census/1")
}

#[test]
fn census_document_reads_back_typed() {
    let doc = census_fixture();
    assert_eq!(doc.schema, census::SCHEMA);
    assert_eq!(serde_json::to_string_pretty(&doc).unwrap() + "\n", CENSUS);
}

#[test]
fn census_page_plots_every_bucket_and_lag() {
    let doc = census_fixture();
    let page = report::census(&doc);
    eprintln!("census page: {} bytes", page.len());
    assert!(page.len() < 100_000, "{} bytes", page.len());
    assert!(!page.contains("<script"));
    for bad in [" src=", " href=", "url(", "@import"] {
        assert!(!page.contains(bad), "{bad} in the page");
    }
    let per_stream = doc
        .buckets
        .iter()
        .filter(|b| b.decode_tps_per_stream.is_some())
        .count();
    assert!(per_stream > 1, "the fixture has per-stream decode");
    assert_eq!(
        polyline_vertices(&page, "buckets", "decode tok/s per stream"),
        per_stream
    );
    let lags = doc.lags.as_ref().expect("the fixture has lags");
    assert!(!lags.lagged.is_empty());
    assert_eq!(polyline_vertices(&page, "lags", "r"), lags.lagged.len());
    assert_eq!(polyline_vertices(&page, "lags", "lag 0"), 1);
    assert_eq!(
        polyline_vertices(&page, "lags", "excess"),
        lags.lagged.len()
    );
    // The threshold band is drawn.
    assert!(page.contains("<rect class=\"noise\""));
    // One table row per bucket; a quantile that is a bucket bound keeps its sign.
    let table = &page[page.find("<table class=\"buckets\"").unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    assert_eq!(table.matches("<tr>").count(), 1 + doc.buckets.len());
    for b in &doc.buckets {
        for q in [b.ttft_p50, b.ttft_p95].into_iter().flatten() {
            let sign = q.bound.map(|b| b.sign()).unwrap_or("");
            let cell = format!("{sign}{}", numbers::fmt::seconds(q.seconds));
            assert!(table.contains(&cell), "TTFT {cell} in the bucket table");
        }
    }
    assert!(
        table.contains("≤ "),
        "the fixture has bucket-bound quantiles"
    );
    let v = doc.verdict.as_ref().unwrap();
    assert!(page.contains(&format!("data-verdict=\"{}\"", v.shape.name())));
    for e in v.evidence.iter().chain(&doc.unavailable).chain(&doc.notes) {
        let escaped = e
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        assert!(page.contains(&escaped), "{e:?} on the page");
    }
    // The ledger's two phases.
    let l = doc
        .ledger
        .as_ref()
        .expect("the fixture has the step ledger");
    assert!(page.contains(&format!(
        "{} ms",
        report::svg::num(l.chunk_step_ms.unwrap())
    )));
}

#[test]
fn a_hostile_selector_on_the_census_page_is_text() {
    let mut doc = census_fixture();
    let evil = "<script>alert(1)</script>\"><img src=x>";
    doc.source.selector = Some(evil.into());
    doc.source.instance = Some(evil.into());
    doc.unavailable.push(evil.into());
    if let Some(v) = doc.verdict.as_mut() {
        v.reason = evil.into();
    }
    let page = report::census(&doc);
    assert!(!page.contains("<script"));
    assert!(!page.contains("<img"));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x&gt;"));
}
