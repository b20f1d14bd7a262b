//! A window that is mostly missing is not a verdict: the share of scrapes that answered, the
//! 80 % bar, and the server that stopped answering, through the whole judge on the real vLLM
//! 0.32.0 capture (fixtures/vllm-0.32/). And the simulated label: read from the exposition.

use diagnose::report::MIN_SHARE_OK;
use diagnose::{judge, Report, Target};
use engines::{RawScrape, Recording, RecordingHeader, ScrapeError, ScrapeRecord};

fn body() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/vllm-0.32/metrics-8-clients.prom"
    ))
    .expect("the real capture")
}

/// `pattern`: one scrape a second from t = 1000, `o` answered, `x` failed (connection refused).
fn window(pattern: &str, body: &str) -> Recording {
    window_with(pattern, |_| body.to_string())
}

fn window_with(pattern: &str, body: impl Fn(f64) -> String) -> Recording {
    let header = RecordingHeader::new("http://127.0.0.1:18100", 1.0, 1000.0);
    let scrapes = pattern
        .chars()
        .enumerate()
        .map(|(i, c)| {
            let t = 1000.0 + i as f64;
            let r = if c == 'o' {
                Ok(RawScrape {
                    t,
                    body: body(t),
                    elapsed_s: 0.01,
                })
            } else {
                Err(ScrapeError::Unreachable {
                    url: "http://127.0.0.1:18100/metrics".into(),
                    cause: "connection refused".into(),
                })
            };
            ScrapeRecord::from_fetch(&r, t)
        })
        .collect();
    Recording {
        header,
        scrapes,
        truncated_tail: None,
    }
}

fn judged(rec: &Recording) -> Report {
    let target = Target {
        shape: crate::shape(rec.scrapes.len() as f64, None),
        replay: None,
    };
    judge(rec, &target, &physics::Catalog::embedded().unwrap())
        .unwrap()
        .report
}

#[test]
fn four_of_thirteen_is_incomplete_and_the_stop_is_named() {
    let r = judged(&window("ooooxxxxxxxxx", &body()));
    let s = &r.scrapes;
    assert_eq!((s.ok, s.failed), (4, 9));
    assert!(s.incomplete);
    assert!((s.share_ok.unwrap() - 4.0 / 13.0).abs() < 1e-12);
    let st = s.stopped.as_ref().unwrap();
    assert_eq!((st.at, st.after_ok, st.failed_since), (1004.0, 4, 9));
    assert!(st.error.contains("connection refused"), "{}", st.error);
    // Read back from its JSON, as remeasure and history do.
    let back: Report = serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
    assert_eq!(back.scrapes, r.scrapes);
}

#[test]
fn the_bar_is_80_percent_and_one_late_scrape_is_not_a_stop() {
    assert_eq!(MIN_SHARE_OK, 0.8);
    // 8 of 10: at the bar, complete.
    let r = judged(&window("ooooxoooxo", &body()));
    assert!(!r.scrapes.incomplete && r.scrapes.stopped.is_none());
    // 7 of 10: under it.
    let r = judged(&window("oooxoooxox", &body()));
    assert!(r.scrapes.incomplete);
    // One failed scrape at the end: not a stop (a late answer), two are.
    assert!(judged(&window("oooooooooox", &body()))
        .scrapes
        .stopped
        .is_none());
    let r = judged(&window("ooooooooooxx", &body()));
    assert!(!r.scrapes.incomplete, "10 of 12 answered");
    assert_eq!(r.scrapes.stopped.as_ref().map(|s| s.after_ok), Some(10));
}

#[test]
fn a_real_engines_capture_is_not_simulated_and_the_emulator_clock_makes_it_so() {
    let real = judged(&window("ooo", &body()));
    assert!(!real.simulated);
    let b = body();
    let r = judged(&window_with("ooo", |t| {
        format!("{b}# TYPE headroom_emulator_clock_seconds gauge\nheadroom_emulator_clock_seconds {t}\n")
    }));
    assert!(r.simulated);
    // Or the emulator's /version.
    let mut rec = window("ooo", &body());
    rec.header.version = Some(serde_json::json!({"version": "0.11.0", "simulated": true}));
    assert!(judged(&rec).simulated);
}
