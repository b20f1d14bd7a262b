//! Where each engine's HTTP API carries the prompt: the rows each engine module lists as
//! `PROMPT_PATHS`, for a router that keeps a conversation on the replica holding its prefix.
//! A leaf: the rows are data in each engine's definition (`Definition::prompt_paths`), merged
//! by `engine::all_prompt_paths` for `headroom route`.

/// One path of an engine's API whose request body carries a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromptPath {
    /// The path as a client sends it, without a query.
    pub path: &'static str,
    /// The JSON fields that hold the prompt, the first one present counting: `messages` is a
    /// chat (a list of role/content messages), any other field a prompt (a string, or a list
    /// of strings or token ids).
    pub fields: &'static [&'static str],
}

/// Shorthand for a row.
pub(crate) const fn at(path: &'static str, fields: &'static [&'static str]) -> PromptPath {
    PromptPath { path, fields }
}

#[cfg(test)]
mod tests {
    use crate::engine::all_prompt_paths;

    #[test]
    fn rows_are_paths_with_fields_and_merge_by_path() {
        let all = all_prompt_paths();
        for (path, fields) in &all {
            assert!(path.starts_with('/') && !path.contains('?'), "{path}");
            assert!(!fields.is_empty(), "{path} names no field");
        }
        let generate = &all.iter().find(|(p, _)| *p == "/generate").unwrap().1;
        assert!(generate.contains(&"text") && generate.contains(&"inputs"));
        let chat = &all
            .iter()
            .find(|(p, _)| *p == "/v1/chat/completions")
            .unwrap()
            .1;
        assert_eq!(chat, &vec!["messages"]);
    }
}
