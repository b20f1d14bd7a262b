//! What changed between two runs' identities: engine version, build, model file, settings.
//!
//! An identity is flattened to `field → value` text by the caller; fields are compared as
//! text. A field present on one side only is a change too (a setting one engine reports and
//! the other does not is worth naming: a new default appeared or went away).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Change {
    pub field: String,
    /// None: the baseline did not record this field.
    pub baseline: Option<String>,
    /// None: the latest run did not record this field.
    pub latest: Option<String>,
}

impl Change {
    /// "build b6500 → b6612", "settings.ubatch (unrecorded) → 1".
    pub fn describe(&self) -> String {
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(unrecorded)".into());
        format!(
            "{} {} → {}",
            self.field,
            show(&self.baseline),
            show(&self.latest)
        )
    }
}

/// Fields that identify the engine and the model come first, in this order; the rest
/// (settings) follow alphabetically.
const LEADING: &[&str] = &[
    "engine",
    "version",
    "build",
    "model_header_fnv1a64",
    "model_size_bytes",
    "model_path",
    "served_model",
    "gpu",
];

/// Every field whose value differs, leading identity fields first.
pub fn diff(baseline: &BTreeMap<String, String>, latest: &BTreeMap<String, String>) -> Vec<Change> {
    let mut out: Vec<Change> = Vec::new();
    let keys: std::collections::BTreeSet<&String> = baseline.keys().chain(latest.keys()).collect();
    for k in keys {
        let (b, l) = (baseline.get(k), latest.get(k));
        if b != l {
            out.push(Change {
                field: k.clone(),
                baseline: b.cloned(),
                latest: l.cloned(),
            });
        }
    }
    let rank = |f: &str| {
        LEADING
            .iter()
            .position(|l| *l == f)
            .unwrap_or(LEADING.len())
    };
    out.sort_by(|a, b| {
        rank(&a.field)
            .cmp(&rank(&b.field))
            .then(a.field.cmp(&b.field))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn changes_are_named_identity_first() {
        let a = m(&[
            ("build", "b6500-abc"),
            ("model_header_fnv1a64", "00ff"),
            ("settings.n_ctx", "8192"),
            ("settings.speculative", "false"),
            ("served_model", "smol"),
        ]);
        let b = m(&[
            ("build", "b6612-def"),
            ("model_header_fnv1a64", "00ff"),
            ("settings.n_ctx", "8192"),
            ("settings.speculative", "true"),
            ("settings.ubatch", "1"),
            ("served_model", "smol"),
        ]);
        let d = diff(&a, &b);
        let fields: Vec<&str> = d.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(fields, ["build", "settings.speculative", "settings.ubatch"]);
        assert_eq!(d[0].describe(), "build b6500-abc → b6612-def");
        assert_eq!(d[2].describe(), "settings.ubatch (unrecorded) → 1");
        assert!(diff(&a, &a).is_empty());
    }
}
