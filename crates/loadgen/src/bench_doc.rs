//! The `headroom.bench` document (docs/json/bench.md): written by `headroom bench`, stored in
//! the history, read back by `headroom regress`. One type, serialized by the producer and
//! deserialized by every reader; older stored versions are upgraded in [`BenchDoc::read`],
//! the one place documents are read back.
//!
//! Fields are in alphabetical order: the order the documents have always been written in.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::bench_suite::{BenchMetric, Sampling, SuiteConfig};
use crate::tokenize::CountBasis;
use engines::identity::{EngineCounters, Identity};

/// The schema this build writes.
pub const SCHEMA: &str = "headroom.bench/2";
/// Schemas [`BenchDoc::read`] upgrades.
pub const READS: &[&str] = &["headroom.bench/1", "headroom.bench/2"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchDoc {
    /// Every prompt had exactly its target length by the server's tokenizer.
    pub all_exact: bool,
    /// Unix seconds when the document was made.
    pub created: f64,
    pub engine_counters: EngineCounters,
    pub identity: Identity,
    pub label: Option<String>,
    pub metrics: Vec<BenchMetric>,
    pub notes: Vec<String>,
    #[serde(serialize_with = "keys_sorted")]
    pub prompt_count: CountBasis,
    /// The history run id: printed on stdout (null with `--no-save`), absent in the store.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub saved_run_id: Option<Option<i64>>,
    /// How the repeat count was reached when it was not fixed (absent: `--repeats` fixed it,
    /// or the run predates adaptive sampling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<Sampling>,
    pub schema: String,
    pub suite: SuiteConfig,
    /// One line for `history --bench`.
    pub summary: String,
    pub url: String,
    /// Seconds the measured part took (after the warm-up).
    pub wall_s: f64,
}

/// Through a JSON value, whose object keys are sorted: an internally tagged enum writes its
/// tag first, and version 1 documents have `kind` after `endpoint`.
fn keys_sorted<S: serde::Serializer>(v: &CountBasis, s: S) -> Result<S::Ok, S::Error> {
    serde_json::to_value(v)
        .map_err(serde::ser::Error::custom)?
        .serialize(s)
}

/// A field that is present (even as null) is `Some`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<i64>>, D::Error> {
    Option::<i64>::deserialize(d).map(Some)
}

#[derive(Debug, thiserror::Error)]
pub enum DocError {
    #[error("not a bench document: schema {0:?} (this build reads {READS:?})")]
    Schema(String),
    #[error("a {schema} document that does not read as one: {source}")]
    Shape {
        schema: String,
        source: serde_json::Error,
    },
}

impl BenchDoc {
    /// Reads a stored or printed document of any version this build knows, upgraded to the
    /// current one. Version 1 spelled the engine as a name (`vLLM`, `unknown engine`); its
    /// suite had no warm-up repeat and timed everything on the client.
    pub fn read(v: &Value) -> Result<BenchDoc, DocError> {
        let schema = v
            .get("schema")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut v = v.clone();
        match schema.as_str() {
            "headroom.bench/2" => {}
            "headroom.bench/1" => {
                if let Some(e) = v.pointer_mut("/identity/engine") {
                    *e = match e.as_str() {
                        Some("vLLM") => "vllm".into(),
                        Some("SGLang") => "sglang".into(),
                        Some("TGI") => "tgi".into(),
                        Some("llama.cpp") => "llama.cpp".into(),
                        _ => Value::Null,
                    };
                }
            }
            _ => return Err(DocError::Schema(schema)),
        }
        serde_json::from_value(v).map_err(|source| DocError::Shape { schema, source })
    }

    pub fn metric(&self, name: &str) -> Option<&BenchMetric> {
        self.metrics.iter().find(|m| m.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engines::Engine;

    /// A document `headroom bench` 1 wrote against a real llama-server (paths shortened; the
    /// engine respelled `vLLM` to exercise the upgrade).
    fn v1() -> Value {
        serde_json::from_str(include_str!("../tests/data/bench-v1.json")).unwrap()
    }

    #[test]
    fn version_1_reads_and_writes_back_unchanged_but_the_engine_spelling() {
        let raw = v1();
        let d = BenchDoc::read(&raw).unwrap();
        assert_eq!(d.identity.engine, Some(Engine::Vllm));
        assert_eq!(d.suite.version, 1);
        assert_eq!(d.suite.warmup_repeats, 0);
        assert!(d.metrics.iter().all(|m| m.clock.is_none()));
        let mut back = serde_json::to_value(&d).unwrap();
        assert_eq!(back["identity"]["engine"], "vllm");
        back["identity"]["engine"] = "vLLM".into();
        assert_eq!(back, raw);
        // Byte for byte, as the document was printed.
        let mut expected = raw.clone();
        expected["identity"]["engine"] = "vllm".into();
        let (got, want) = (
            serde_json::to_string_pretty(&d).unwrap(),
            serde_json::to_string_pretty(&expected).unwrap(),
        );
        let first = got.lines().zip(want.lines()).position(|(a, b)| a != b);
        assert!(got == want, "first differing line: {first:?}");
        let mut unknown = raw.clone();
        unknown["identity"]["engine"] = "unknown engine".into();
        assert_eq!(BenchDoc::read(&unknown).unwrap().identity.engine, None);
    }

    #[test]
    fn unknown_fields_and_schemas_are_refused() {
        let mut raw = v1();
        raw["metrics"][0]["surprise"] = 1.into();
        let e = BenchDoc::read(&raw).unwrap_err().to_string();
        assert!(e.contains("surprise"), "{e}");
        let mut raw = v1();
        raw["schema"] = "headroom.diagnose/1".into();
        assert!(matches!(BenchDoc::read(&raw), Err(DocError::Schema(_))));
    }

    #[test]
    fn saved_run_id_is_printed_even_when_null() {
        let mut d = BenchDoc::read(&v1()).unwrap();
        assert_eq!(d.saved_run_id, None);
        assert!(!serde_json::to_string(&d).unwrap().contains("saved_run_id"));
        d.saved_run_id = Some(None);
        let s = serde_json::to_string(&d).unwrap();
        assert!(s.contains("\"saved_run_id\":null"), "{s}");
        let back: BenchDoc = serde_json::from_str(&s).unwrap();
        assert_eq!(back.saved_run_id, Some(None));
    }
}
