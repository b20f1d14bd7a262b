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
