//! Prometheus text exposition (a `/metrics` body), then the engine adapters that read it.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(exposition) = engines::prom::parse(&text) {
        let _ = engines::detect_engine(&exposition);
        let _ = engines::to_sample(&exposition, 1.0);
    }
});
