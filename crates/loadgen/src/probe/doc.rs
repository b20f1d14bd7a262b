//! The `headroom.probe/1` document (docs/json/probe.md): `schema`, `probe` naming which probe
//! ran, then that probe's report. One type, serialized by `headroom probe --json` and read back
//! by the page (`--html`).

use serde::{Deserialize, Serialize};

use super::{DepthReport, PrefixReport, TurnsReport};

/// The schema this build writes and reads.
pub const SCHEMA: &str = "headroom.probe/1";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProbeDoc {
    pub schema: String,
    /// The report, tagged by `probe`; its fields follow `probe` at the top level.
    #[serde(flatten)]
    pub report: ProbeReport,
}

/// Which probe ran, and what it found.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "probe", rename_all = "kebab-case")]
pub enum ProbeReport {
    Depth(DepthReport),
    Prefix(PrefixReport),
    Turns(TurnsReport),
}

#[derive(Debug, thiserror::Error)]
pub enum DocError {
    #[error("not a probe document: schema {0:?} (this build reads {SCHEMA:?})")]
    Schema(String),
    #[error("a {SCHEMA} document that does not read as one: {0}")]
    Shape(serde_json::Error),
}

impl ProbeDoc {
    pub fn new(report: ProbeReport) -> ProbeDoc {
        ProbeDoc {
            schema: SCHEMA.to_string(),
            report,
        }
    }

    /// Reads a printed or stored document, refusing another schema by name.
    pub fn read(text: &str) -> Result<ProbeDoc, DocError> {
        #[derive(Deserialize)]
        struct Head {
            schema: String,
        }
        let head: Head = serde_json::from_str(text).map_err(DocError::Shape)?;
        if head.schema != SCHEMA {
            return Err(DocError::Schema(head.schema));
        }
        serde_json::from_str(text).map_err(DocError::Shape)
    }

    /// `depth`, `prefix` or `turns`.
    pub fn probe(&self) -> &'static str {
        match self.report {
            ProbeReport::Depth(_) => "depth",
            ProbeReport::Prefix(_) => "prefix",
            ProbeReport::Turns(_) => "turns",
        }
    }
}
