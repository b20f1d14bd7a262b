//! headroom's integration tests: one binary (one link, one set of shared helpers in util.rs);
//! a module per command or peer. Live servers take `testpeers::serial()`, so across modules
//! only one runs at a time; a test that starts no engine (emulators, a backfilled store) takes
//! no lock and runs beside it.

mod attribute;
mod bench;
mod cachehit;
mod ceiling;
mod census;
mod check;
mod dashboard;
mod diagnose;
mod diagnose_gpu;
mod documents;
mod fleet;
mod fleet_serve;
mod gguf;
mod hostile;
mod install;
mod logs;
mod names;
mod pcie;
mod pipes;
mod probe;
mod probe_emulated;
mod prom_vllm;
mod report;
mod route;
mod route_trace;
mod route_vllm;
mod scenarios;
mod security;
mod sglang;
mod standalone;
mod store_access;
mod trace;
mod util;
mod vllm;
mod watch;
mod window_checks;
