//! Where every figure comes from, and how it prints.
//!
//! The convention : a ceiling computed from published specifications
//! prints `(est)`; a value derived from such a ceiling carries a leading `~`; a figure that rests
//! on a fallback says so. A figure that would be false is not a `Figure` at all but an
//! [`Known::Unknown`] with its reason.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Where a figure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    /// Observed on a live server (scrape, probe, log).
    Measured,
    /// A flag the engine was started with, or one the user passed to headroom.
    EngineFlag,
    /// The GPU or model catalog (embedded or a user `--catalog` file).
    Catalog,
    /// Read from the model file itself (GGUF header and tensor infos).
    ModelFile,
    /// Computed from other figures.
    Derived,
    /// A labelled default used because nothing better was known (e.g. bf16 weights).
    Fallback,
}

impl Provenance {
    pub fn label(self) -> &'static str {
        match self {
            Provenance::Measured => "measured",
            Provenance::EngineFlag => "flag",
            Provenance::Catalog => "catalog",
            Provenance::ModelFile => "model file",
            Provenance::Derived => "derived",
            Provenance::Fallback => "fallback",
        }
    }

    /// The provenance of a value computed from `inputs`: a fallback anywhere taints the result
    /// (so it is never silent), otherwise it is `Derived`.
    pub fn derive(inputs: &[Provenance]) -> Provenance {
        if inputs.contains(&Provenance::Fallback) {
            Provenance::Fallback
        } else {
            Provenance::Derived
        }
    }
}

/// How sure a figure is, which decides its printed mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    /// As given or exactly computed from given values: printed bare.
    Exact,
    /// A ceiling from published specifications: printed with `(est)`.
    Est,
    /// Derived from an estimate: printed with a leading `~`.
    Approx,
}

impl Mark {
    /// The mark a value derived from inputs of these marks carries: anything computed from an
    /// estimate is approximate.
    pub fn derive(inputs: &[Mark]) -> Mark {
        if inputs.iter().any(|m| *m != Mark::Exact) {
            Mark::Approx
        } else {
            Mark::Exact
        }
    }
}

/// One number with its unit, provenance and mark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figure {
    pub value: f64,
    /// A name from the code (`tok/s`, `bytes`); owned only when read back from a document.
    pub unit: Cow<'static, str>,
    pub provenance: Provenance,
    pub mark: Mark,
}

impl Figure {
    pub fn new(value: f64, unit: &'static str, provenance: Provenance, mark: Mark) -> Figure {
        Figure {
            value,
            unit: Cow::Borrowed(unit),
            provenance,
            mark,
        }
    }

    /// `12,300 tok/s (est)`, `~61,600 tok/s`, `16.1 GB` ... (three significant figures).
    pub fn render(&self) -> String {
        render_value(self.value, &self.unit, self.mark)
    }
}

/// Renders a value with its unit and mark (see the module docs).
/// Byte units (`bytes`, `bytes/token`, `bytes/s`) scale to decimal kB, MB, GB, TB.
pub fn render_value(value: f64, unit: &str, mark: Mark) -> String {
    let (value, unit) = scale_bytes(value, unit);
    let num = sig(value, 3);
    let body = if unit.is_empty() {
        num
    } else if unit == "%" {
        format!("{num} %")
    } else {
        format!("{num} {unit}")
    };
    match mark {
        Mark::Exact => body,
        Mark::Est => format!("{body} (est)"),
        Mark::Approx => format!("~{body}"),
    }
}

fn scale_bytes(value: f64, unit: &str) -> (f64, String) {
    let Some(rest) = unit.strip_prefix("bytes") else {
        return (value, unit.to_string());
    };
    let steps = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")];
    match steps.iter().find(|(f, _)| value.abs() >= *f) {
        Some((f, name)) => (value / f, format!("{name}{rest}")),
        None => (value, format!("B{rest}")),
    }
}

pub use numbers::fmt::sig;

/// A value, or the reason it is not known. An unknown prints `-` with its reason; it never
/// becomes a wrong number.
#[derive(Debug, Clone, PartialEq)]
pub enum Known<T> {
    Known(T),
    Unknown { reason: String },
}

impl<T> Known<T> {
    pub fn unknown(reason: impl Into<String>) -> Known<T> {
        Known::Unknown {
            reason: reason.into(),
        }
    }

    pub fn as_ref(&self) -> Known<&T> {
        match self {
            Known::Known(t) => Known::Known(t),
            Known::Unknown { reason } => Known::Unknown {
                reason: reason.clone(),
            },
        }
    }

    /// The value, when known.
    pub fn get(&self) -> Option<&T> {
        match self {
            Known::Known(t) => Some(t),
            Known::Unknown { .. } => None,
        }
    }

    /// The reason, when unknown.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Known::Known(_) => None,
            Known::Unknown { reason } => Some(reason),
        }
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Known<U> {
        match self {
            Known::Known(t) => Known::Known(f(t)),
            Known::Unknown { reason } => Known::Unknown { reason },
        }
    }

    pub fn and_then<U>(self, f: impl FnOnce(T) -> Known<U>) -> Known<U> {
        match self {
            Known::Known(t) => f(t),
            Known::Unknown { reason } => Known::Unknown { reason },
        }
    }
}

impl<T> From<Result<T, String>> for Known<T> {
    fn from(r: Result<T, String>) -> Self {
        match r {
            Ok(t) => Known::Known(t),
            Err(reason) => Known::Unknown { reason },
        }
    }
}

/// A known value serializes as itself; an unknown one as `{"unknown": "<reason>"}`.
impl<T: Serialize> Serialize for Known<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Known::Known(t) => t.serialize(s),
            Known::Unknown { reason } => {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("unknown", reason)?;
                m.end()
            }
        }
    }
}

/// Reads back what `Serialize` wrote: `{"unknown": "<reason>"}` is unknown, anything else the
/// value. (No value type here has a field named `unknown`.)
impl<'de, T: Deserialize<'de>> Deserialize<'de> for Known<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Unknown {
            unknown: String,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either<T> {
            Unknown(Unknown),
            Known(T),
        }
        Ok(match Either::deserialize(d)? {
            Either::Unknown(u) => Known::Unknown { reason: u.unknown },
            Either::Known(t) => Known::Known(t),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_render() {
        assert_eq!(render_value(208.4, "tok/s", Mark::Est), "208 tok/s (est)");
        assert_eq!(
            render_value(61_634.0, "tok/s", Mark::Approx),
            "~61,600 tok/s"
        );
        assert_eq!(render_value(16.06, "GB", Mark::Exact), "16.1 GB");
        assert_eq!(render_value(26.75, "%", Mark::Exact), "26.8 %");
        assert_eq!(
            render_value(3.716e9, "bytes/token", Mark::Exact),
            "3.72 GB/token"
        );
        assert_eq!(
            render_value(131_072.0, "bytes/token", Mark::Exact),
            "131 kB/token"
        );
        assert_eq!(render_value(512.0, "bytes", Mark::Approx), "~512 B");
    }

    #[test]
    fn fallback_taints_and_estimates_spread() {
        use Provenance::*;
        assert_eq!(Provenance::derive(&[Catalog, EngineFlag]), Derived);
        assert_eq!(Provenance::derive(&[Catalog, Fallback]), Fallback);
        assert_eq!(Mark::derive(&[Mark::Exact, Mark::Exact]), Mark::Exact);
        assert_eq!(Mark::derive(&[Mark::Exact, Mark::Est]), Mark::Approx);
    }

    #[test]
    fn unknown_serializes_with_reason() {
        let k: Known<u32> = Known::unknown("no --gpu");
        assert_eq!(
            serde_json::to_string(&k).unwrap(),
            r#"{"unknown":"no --gpu"}"#
        );
        let k: Known<u32> = Known::Known(3);
        assert_eq!(serde_json::to_string(&k).unwrap(), "3");
    }
}
