//! The trace crate's integration tests, one binary (one build, one link): each module is a
//! former test file; `util` holds the shared fixture and reference-Python helpers.

mod fixtures;
mod hta;
mod util;
