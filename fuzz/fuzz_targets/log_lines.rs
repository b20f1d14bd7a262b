//! Engine logs (llama.cpp `print_timing` and slot lines, halogen `serve_api`, vLLM's periodic
//! stats lines): fed whole, and fed in two pieces split at any byte, the
//! miner gives the same report.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, log)) = data.split_first() else {
        return;
    };
    let whole = telemetry::mine(log).expect("a slice reads without error");
    let at = if log.is_empty() { 0 } else { cut as usize % log.len() };
    let mut m = telemetry::Miner::new();
    m.feed(&log[..at]);
    m.feed(&log[at..]);
    m.finish();
    let split = m.into_report();
    assert_eq!(
        format!("{whole:?}"),
        format!("{split:?}"),
        "a split at byte {at} changed the report"
    );
});
