//! diagnose's integration tests: one binary.

mod coverage;
mod defaults;
mod props;
mod rules;
mod vllm_032;

/// A replayed window's shape: `duration_s` long, read at one interval, nothing else named but
/// the GPU.
pub(crate) fn shape(duration_s: f64, gpu: Option<&str>) -> diagnose::Shape {
    diagnose::Shape {
        url: None,
        duration_s,
        interval_s: duration_s,
        gpu: gpu.map(str::to_string),
        model: None,
        gguf: None,
        engine_args: None,
        tp: None,
        dtype: None,
        quantization: None,
        price_per_hour: None,
        sub_windows: 0,
    }
}
