//! Rules that could not be judged for a missing fact, where that matters: a rule that would
//! outrank the primary (or would fire where nothing does) is named with the fact it needs and
//! the evidence that makes it a suspect, instead of letting a weaker rule win by default.

use super::{Derived, Evidence, Finding, RuleId, RULES};
use crate::inputs::Inputs;
use serde::{Deserialize, Serialize};

/// A rule left unjudged for want of a fact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unjudged {
    pub rule: RuleId,
    /// The one flag (or probe) that settles it, e.g. `--gpu`.
    pub needs: String,
    /// What was measured that makes it a suspect.
    pub hint: String,
}

/// Rules that could not judge for a missing fact, with what was measured that makes each a
/// suspect: every rule's [`crate::rules::Suspect`]s, in their order. A rule without such
/// evidence is not named: an unread fact alone is no suspicion.
pub fn suspects(inp: &Inputs, d: &Derived, quiet: &[Finding]) -> Vec<Unjudged> {
    let mut tests: Vec<_> = RULES
        .iter()
        .flat_map(|r| r.unjudged.iter().map(move |s| (r.id, s)))
        .collect();
    tests.sort_by_key(|(_, s)| s.order);
    let mut out = Vec::new();
    for (rule, s) in tests {
        let e = Evidence {
            inp,
            w: &inp.window,
            d,
            quiet,
            named: &out,
        };
        if let Some(hint) = (s.hint)(&e) {
            out.push(Unjudged {
                rule,
                needs: s.needs.to_string(),
                hint,
            });
        }
    }
    out
}
