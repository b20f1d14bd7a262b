//! Kineto (PyTorch profiler) trace JSON: the streaming event reader, the steps pass and the
//! attribution; a cut or garbled trace yields its complete part or an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let steps = trace::scan_steps(data).ok();
    let opts = trace::Options {
        steps: None,
        known_steps: steps,
    };
    let _ = trace::analyze(data, &opts);
});
