//! Human text and tables for headroom's typed documents.
//!
//! Why one crate rather than a render module in each library: the libraries compute and own the
//! documents (`physics::doc::CeilingDoc`, `trace::doc::TraceDoc`, ...) and stay free of any
//! terminal concern, while every human form shares one table look, one set of number formats
//! and one CSV quoting. Keeping those together here means the binary only parses arguments,
//! calls a library and emits, and a new command's output reuses the helpers instead of copying
//! them. The binary's `output` module keeps the stdout path (closed pipe → exit 0).

pub mod attribute;
pub mod bench;
pub mod cachehit;
pub mod ceiling;
pub mod census;
pub mod check;
pub mod demo;
pub mod diagnose;
pub mod diagnose_gpu;
pub mod emulate;
pub mod fleet;
pub mod gguf;
pub mod history;
pub mod logs;
pub mod membw;
pub mod pcie;
pub mod probe;
pub mod regress;
pub mod route;
pub mod table;
pub mod trace;
pub mod watch;

pub use table::{csv_field, csv_row, plain_table, table};

/// A command's result in its three forms. `doc` is the typed document serialized: what
/// `--json` prints is what the store keeps and what readers deserialize.
pub trait Render {
    type Doc: serde::Serialize;
    /// The versioned document (`headroom.<cmd>/N`).
    fn doc(&self) -> &Self::Doc;
    /// The human form: tables and a few sentences, ending with a newline.
    fn human(&self) -> String;
    /// Rows for `--csv`, where the command has rows; `None` where it has none.
    fn csv(&self) -> Option<String> {
        None
    }
}
