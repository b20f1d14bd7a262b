//! Engine log lines and their envelope.
//!
//! Production hosts forbid benchmarks, but the engine already measures every request and
//! writes it to its log. This crate reads those lines (llama.cpp's `slot print_timing` in its
//! current and older shapes, halogen's `serve_api`) and vLLM's periodic stats line, groups them
//! per request and per server instance, and summarises each instance as an envelope whose every
//! figure has its sample size.
//!
//! ```
//! let log = b"slot print_timing: id  0 | task 5 | prompt eval time =      43.83 ms /    13 tokens (    3.37 ms per token,   296.61 tokens per second)\n\
//! slot print_timing: id  0 | task 5 |        eval time =     432.34 ms /    45 tokens (    9.82 ms per token,   101.77 tokens per second)\n";
//! let report = telemetry::mine(&log[..]).unwrap();
//! let inst = &report.instances[0];
//! assert_eq!(inst.instance.requests[0].gen_tokens, Some(45));
//! assert_eq!(inst.envelope.decode_tps_median, Some(101.77));
//! ```

mod dist;
mod envelope;
mod event;
mod holes;
mod ledger;
mod mapped;
mod parallel;
mod prefix;
mod record;
mod scan;
mod vllm;

pub use envelope::{
    Dist, DraftEnvelope, Envelope, GraphsReused, InstanceReport, PrefixCache, PromptAtLongest,
    Totals, LONGEST_BAND, SHORT_PROMPT_TOKENS,
};
pub use event::SlotSelection;
pub use ledger::{
    CachedFrom, Draft, Engine, Instance, Miner, Report, Request, StartReason, MAX_LINE,
};
pub use parallel::{mine_file_into, mine_parallel, mine_parallel_into};
pub use vllm::{VllmInterval, VllmStats};

use std::io::Read;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("reading the log at byte {offset}: {source}")]
    Read {
        offset: u64,
        #[source]
        source: std::io::Error,
    },
    #[error("mining the log: {0}")]
    Worker(String),
}

/// Reads a whole log and summarises it.
pub fn mine<R: Read>(r: R) -> Result<Report, Error> {
    let mut m = Miner::new();
    feed_reader(&mut m, r)?;
    m.finish();
    Ok(m.into_report())
}

/// Feeds everything `r` yields into `m` (without finishing: a partial last line waits).
/// Returns the number of bytes read.
pub fn feed_reader<R: Read>(m: &mut Miner, mut r: R) -> Result<u64, Error> {
    let mut buf = vec![0u8; 1 << 20];
    let mut offset = 0u64;
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok(offset),
            Ok(n) => {
                m.feed(&buf[..n]);
                offset += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(source) => return Err(Error::Read { offset, source }),
        }
    }
}

pub mod dmon;
pub mod doc;
