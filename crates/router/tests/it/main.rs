//! The router crate's integration tests, one binary: each module is a former test file (each
//! keeps its own fake replicas and router starter; they differ by what they fake).

mod faults;
mod proxy;
mod wire;
