//! The engines crate's integration tests, one binary: each module is a former test file;
//! `util` holds what they share.

mod live_llama;
mod model_identity;
mod real_capture;
mod scrape_errors;
mod tree;
mod util;
