//! PyTorch-profiler (Kineto) trace attribution.
