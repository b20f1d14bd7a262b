//! Rules that could not be judged for a missing fact, where that matters: a rule that would
//! outrank the primary (or would fire where nothing does) is named with the fact it needs and
//! the evidence that makes it a suspect, instead of letting a weaker rule win by default.

use crate::rules::RuleId;
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
