//! A `headroom record` file (JSONL: a header line, then one scrape per line), replayed through
//! today's parser and adapters, and its header's engine config gathered.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(rec) = engines::record::parse_recording(data, "fuzz.jsonl") {
        let replay = rec.replay();
        let first = replay.iter().find_map(|(_, p)| p.as_ref().ok());
        let _ = rec.header.config(first.map(|p| &p.sample));
    }
});
