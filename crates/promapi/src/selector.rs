//! A user's series selector (`{job="vllm"}`), reduced to the label matchers every query of a
//! reading adds to the names it asks for, and the label names PromQL accepts.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    #[error(
        "selector {0:?}: a series selector is label matchers in braces, e.g. '{{job=\"vllm\"}}'"
    )]
    Braces(String),
    #[error("selector {0:?}: name no metric in the selector (headroom picks the engines' metrics); give label matchers only")]
    Metric(String),
    #[error(
        "--by {0:?}: a label name is letters, digits and underscores, not starting with a digit"
    )]
    Label(String),
}

/// A user's selector, reduced to the matchers inside its braces; the default matches every
/// series.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    matchers: String,
}

impl Selector {
    pub fn parse(s: &str) -> Result<Selector, SelectorError> {
        let t = s.trim();
        if t.is_empty() {
            return Ok(Selector {
                matchers: String::new(),
            });
        }
        if !t.starts_with('{') {
            return Err(if t.contains('{') {
                SelectorError::Metric(s.to_string())
            } else {
                SelectorError::Braces(s.to_string())
            });
        }
        if !t.ends_with('}') {
            return Err(SelectorError::Braces(s.to_string()));
        }
        let inner = t[1..t.len() - 1].trim().trim_end_matches(',').to_string();
        if inner.contains("__name__") {
            return Err(SelectorError::Metric(s.to_string()));
        }
        Ok(Selector { matchers: inner })
    }

    /// `name{matchers}`.
    pub fn metric(&self, name: &str) -> String {
        format!("{name}{{{}}}", self.matchers)
    }

    /// `{__name__=~"re",matchers}`.
    pub fn by_name_re(&self, re: &str) -> String {
        if self.matchers.is_empty() {
            format!("{{__name__=~\"{re}\"}}")
        } else {
            format!("{{__name__=~\"{re}\",{}}}", self.matchers)
        }
    }

    pub fn as_str(&self) -> String {
        format!("{{{}}}", self.matchers)
    }
}

/// A label name as PromQL accepts it.
pub fn check_label(l: &str) -> Result<(), SelectorError> {
    let ok = !l.is_empty()
        && !l.starts_with(|c: char| c.is_ascii_digit())
        && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(SelectorError::Label(l.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors() {
        assert_eq!(Selector::parse("").unwrap().as_str(), "{}");
        assert_eq!(
            Selector::parse(r#" {job="vllm", env=~"prod.*"} "#)
                .unwrap()
                .matchers,
            r#"job="vllm", env=~"prod.*""#
        );
        assert!(matches!(
            Selector::parse(r#"job="x""#),
            Err(SelectorError::Braces(_))
        ));
        assert!(matches!(
            Selector::parse(r#"up{job="x"}"#),
            Err(SelectorError::Metric(_))
        ));
        assert!(check_label("instance").is_ok());
        assert!(check_label("1x").is_err() && check_label("a-b").is_err());
    }
}
