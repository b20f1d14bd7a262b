//! The gguf crate's integration tests, one binary: each module is a former test file.

mod gguf_py;
