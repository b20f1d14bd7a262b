//! A user catalog (TOML with `[[gpu]]` and `[[model]]` tables), laid over an empty catalog
//! with and without the embedded catalogs' rule that every figure cites a source, then looked
//! up by name.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for strict in [false, true] {
        let mut c = physics::Catalog::default();
        if c.merge(text, "fuzz.toml", strict).is_ok() {
            let _ = c.gpu("H100");
            let _ = c.model("llama-3-8b");
        }
    }
});
