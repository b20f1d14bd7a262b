//! The turn client's unit: a conversation that re-sends its whole history each turn, as an
//! agent loop does. This is the traffic shape that shows whether prefix-cache hits survive
//!; a batch of distinct prompts hides the problem.

use crate::client::{ChatMessage, StreamRecord, StreamRequest};

/// A conversation's history; each turn appends the user message and the reply.
#[derive(Debug, Clone, Default)]
pub struct Conversation {
    pub messages: Vec<ChatMessage>,
    /// Turns completed (replies recorded).
    pub turns: u32,
}

impl Conversation {
    pub fn new() -> Self {
        Self::default()
    }

    /// Start with a system message.
    pub fn with_system(system: impl Into<String>) -> Self {
        Self {
            messages: vec![ChatMessage::new("system", system)],
            turns: 0,
        }
    }

    /// Append the next user message and return the request carrying the whole history.
    pub fn next_turn(&mut self, user: impl Into<String>, max_tokens: u32) -> StreamRequest {
        self.messages.push(ChatMessage::new("user", user));
        StreamRequest::chat(self.messages.clone(), max_tokens)
    }

    /// Record the assistant's reply so the next turn re-sends it.
    pub fn record_reply(&mut self, reply: &StreamRecord) {
        self.messages
            .push(ChatMessage::new("assistant", reply.text.clone()));
        self.turns += 1;
    }

    /// A turn after the first re-sends earlier context: the continuation a router should pin.
    pub fn is_continuation(&self) -> bool {
        self.messages.iter().filter(|m| m.role != "system").count() > 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn history_grows_by_user_and_reply() {
        let mut c = Conversation::with_system("be brief");
        let r = c.next_turn("first", 8);
        assert_eq!(r.body()["messages"].as_array().unwrap().len(), 2);
        assert!(!c.is_continuation());
        let reply = StreamRecord {
            token_times: vec![Duration::from_millis(1)],
            total: Duration::from_millis(2),
            text: "ok".into(),
            completion_tokens: 1,
            completion_source: crate::client::GenCountSource::Chunks,
            prompt_tokens: None,
            cached_tokens: None,
            finish_reason: None,
            engine_timings: None,
        };
        c.record_reply(&reply);
        let r = c.next_turn("second", 8);
        let m = r.body()["messages"].as_array().unwrap().clone();
        assert_eq!(m.len(), 4);
        assert_eq!(m[2]["role"], "assistant");
        assert_eq!(m[2]["content"], "ok");
        assert!(c.is_continuation());
        assert_eq!(c.turns, 1);
    }
}
