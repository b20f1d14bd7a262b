//! Prompts of an exact token length, salted at the start.
//!
//! The body is deterministic text generated from a word list built into the crate, so every run
//! of every probe sends the same body; only the salt differs. The salt comes FIRST: a prefix
//! cache matches from the first token, so a fresh salt leaves nothing for any cache to serve.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::tokenize::{TokenCounter, Tokens};

/// Common English words; sentences drawn from them tokenize like ordinary prose.
const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "was",
    "that",
    "for",
    "it",
    "with",
    "as",
    "on",
    "be",
    "at",
    "by",
    "this",
    "had",
    "not",
    "are",
    "but",
    "from",
    "or",
    "have",
    "an",
    "they",
    "which",
    "one",
    "you",
    "were",
    "all",
    "we",
    "her",
    "she",
    "there",
    "would",
    "their",
    "will",
    "when",
    "who",
    "him",
    "been",
    "has",
    "more",
    "if",
    "no",
    "out",
    "so",
    "said",
    "what",
    "up",
    "its",
    "about",
    "than",
    "into",
    "them",
    "can",
    "only",
    "other",
    "time",
    "new",
    "some",
    "could",
    "these",
    "two",
    "may",
    "first",
    "then",
    "do",
    "any",
    "like",
    "my",
    "now",
    "over",
    "such",
    "our",
    "man",
    "me",
    "even",
    "most",
    "made",
    "after",
    "also",
    "did",
    "many",
    "before",
    "must",
    "through",
    "back",
    "years",
    "where",
    "much",
    "your",
    "way",
    "well",
    "down",
    "should",
    "because",
    "each",
    "just",
    "those",
    "people",
    "how",
    "too",
    "little",
    "state",
    "good",
    "very",
    "make",
    "world",
    "still",
    "own",
    "see",
    "men",
    "work",
    "long",
    "get",
    "here",
    "between",
    "both",
    "life",
    "being",
    "under",
    "never",
    "day",
    "same",
    "another",
    "know",
    "while",
    "last",
    "might",
    "us",
    "great",
    "old",
    "year",
    "off",
    "come",
    "since",
    "against",
    "go",
    "came",
    "right",
    "used",
    "take",
    "three",
    "house",
    "river",
    "mountain",
    "village",
    "market",
    "harbor",
    "winter",
    "summer",
    "garden",
    "letter",
    "window",
    "journey",
    "morning",
    "evening",
    "bridge",
    "forest",
    "engine",
    "station",
    "library",
    "kitchen",
    "valley",
    "road",
    "ship",
    "field",
    "water",
    "light",
    "stone",
    "paper",
    "music",
    "story",
    "school",
    "city",
    "table",
    "door",
    "voice",
    "friend",
    "family",
    "teacher",
    "doctor",
    "farmer",
    "sailor",
    "painter",
    "builder",
    "quiet",
    "bright",
    "narrow",
    "ancient",
    "careful",
    "distant",
    "gentle",
    "heavy",
    "simple",
    "strange",
    "warm",
    "early",
    "late",
    "small",
    "large",
    "green",
    "silver",
    "walked",
    "carried",
    "opened",
    "watched",
    "noticed",
    "remembered",
    "followed",
    "answered",
    "returned",
    "counted",
    "measured",
    "repaired",
    "wrote",
    "read",
    "crossed",
    "planted",
    "slowly",
    "quickly",
    "often",
    "rarely",
    "together",
    "alone",
    "again",
    "almost",
    "already",
];

/// splitmix64: a tiny deterministic generator (the corpus must never change between runs).
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The deterministic corpus as words with their punctuation: sentences of 6–17 words.
fn corpus_words(n_words: usize) -> Vec<String> {
    let mut state = 0x6865_6164_726f_6f6d; // "headroom"
    let mut out = Vec::with_capacity(n_words);
    let mut left_in_sentence = 0;
    while out.len() < n_words {
        if left_in_sentence == 0 {
            left_in_sentence = 6 + (splitmix(&mut state) % 12) as usize;
        }
        let w = WORDS[(splitmix(&mut state) % WORDS.len() as u64) as usize];
        let starts = out.is_empty() || out.last().is_some_and(|p: &String| p.ends_with('.'));
        let mut word = if starts {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect())
                .unwrap_or_default()
        } else {
            w.to_string()
        };
        left_in_sentence -= 1;
        if left_in_sentence == 0 {
            word.push('.');
        }
        out.push(word);
    }
    out
}

/// The first `n_words` words of the corpus, space-separated.
pub fn corpus_text(n_words: usize) -> String {
    corpus_words(n_words).join(" ")
}

/// A fresh salt: five corpus words (~40 bits) drawn from the clock, the process id and a
/// counter. Words, not hex: hex digits cost a token each, words about one per word.
pub fn new_salt() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut s = nanos ^ (u64::from(std::process::id()) << 32);
    s ^= COUNTER
        .fetch_add(1, Ordering::Relaxed)
        .wrapping_mul(0x2545_f491_4f6c_dd1d);
    (0..5)
        .map(|_| WORDS[(splitmix(&mut s) % WORDS.len() as u64) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

/// A built prompt and its measured (or estimated) length.
#[derive(Debug, Clone, Serialize)]
pub struct BuiltPrompt {
    pub text: String,
    pub salt: String,
    pub target: u64,
    /// The prompt's length as counted, with the basis of the count.
    pub tokens: Tokens,
}

impl BuiltPrompt {
    /// The server's tokenizer counted exactly `target` tokens.
    pub fn is_exact(&self) -> bool {
        self.tokens.basis.is_exact() && self.tokens.n == self.target
    }
}

/// Largest prompt this builder makes (a guard, not a server limit).
pub const MAX_PROMPT_TOKENS: u64 = 4 << 20;

/// Pieces that usually add one token each, to close the last gap after the word search.
const FILLERS: &[&str] = &[" a", ".", ",", " I", " the", " of", "\n", " and", ";", "!"];

/// Bound on tokenizer calls while closing the gap, so a strange tokenizer cannot loop us.
const MAX_FILL_CALLS: usize = 48;

/// Build `salt` + corpus text of exactly `target` tokens where the server tokenizes; otherwise
/// the estimate's length (the returned count says which).
pub async fn build_prompt(counter: &TokenCounter, target: u64, salt: &str) -> Result<BuiltPrompt> {
    if target == 0 || target > MAX_PROMPT_TOKENS {
        return Err(Error::Refused(format!(
            "prompt length {target} tokens is outside 1..={MAX_PROMPT_TOKENS}"
        )));
    }
    // The salt's first word is the prompt's first token: no shared bracket or marker before it,
    // or every prompt would share (and hit) that one cached token.
    let head = format!("{salt}:");
    let cpt = counter.chars_per_token();
    // Enough words for the target at a pessimistic 2 chars/token, plus slack.
    let n_words = ((target as f64 * cpt.max(2.0) / 3.0) as usize).max(16) * 2 + 64;
    let words = corpus_words(n_words);
    let mut text = head.clone();
    let mut ends = Vec::with_capacity(words.len() + 1);
    ends.push(text.len());
    for w in &words {
        text.push(' ');
        text.push_str(w);
        ends.push(text.len());
    }

    if !counter.is_exact() {
        let want_chars = (target as f64 * cpt).round() as usize;
        let k = ends.partition_point(|&e| e <= want_chars).saturating_sub(1);
        let text = text[..ends[k]].to_string();
        let tokens = counter.count(&text).await?;
        return Ok(BuiltPrompt {
            text,
            salt: salt.to_string(),
            target,
            tokens,
        });
    }

    // Largest k with count(prefix of k words) ≤ target: bracket from an estimate, then bisect.
    let count_k = |k: usize| {
        let t = &text[..ends[k]];
        async move { counter.count(t).await.map(|c| c.n) }
    };
    let base = count_k(0).await?;
    if base > target {
        return Err(Error::Refused(format!(
            "a {target}-token prompt is shorter than its salt ({base} tokens)"
        )));
    }
    let last = ends.len() - 1;
    let guess = (ends.partition_point(|&e| e as f64 <= target as f64 * cpt) - 1).clamp(1, last);
    // Bracket [lo, hi) outward from the guess with doubling steps, then bisect.
    let mut step = (guess / 16).max(4);
    let (mut lo, mut hi);
    if count_k(guess).await? <= target {
        lo = guess;
        loop {
            if lo == last {
                return Err(Error::Refused(format!(
                    "the built-in corpus is too short for {target} tokens at this tokenizer"
                )));
            }
            let p = (lo + step).min(last);
            if count_k(p).await? <= target {
                lo = p;
                step *= 2;
            } else {
                hi = p;
                break;
            }
        }
    } else {
        hi = guess;
        loop {
            let p = hi.saturating_sub(step);
            if p == 0 {
                lo = 0; // count_k(0) ≤ target was checked above
                break;
            }
            if count_k(p).await? <= target {
                lo = p;
                break;
            }
            hi = p;
            step *= 2;
        }
    }
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if count_k(mid).await? <= target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let mut cur = text[..ends[lo]].to_string();
    let mut n = count_k(lo).await?;
    let mut calls = 0;
    'fill: while n < target && calls < MAX_FILL_CALLS {
        for f in FILLERS {
            if calls >= MAX_FILL_CALLS {
                break 'fill;
            }
            let cand = format!("{cur}{f}");
            let c = counter.count(&cand).await?.n;
            calls += 1;
            if c <= target && c > n {
                cur = cand;
                n = c;
                continue 'fill;
            }
        }
        break; // every filler overshoots or adds nothing
    }
    Ok(BuiltPrompt {
        text: cur,
        salt: salt.to_string(),
        target,
        tokens: Tokens {
            n,
            basis: counter.basis().clone(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_is_deterministic_prose() {
        let a = corpus_text(200);
        assert_eq!(a, corpus_text(200));
        assert!(corpus_text(300).starts_with(&a));
        assert!(a.chars().next().unwrap().is_uppercase());
        assert!(a.matches(". ").count() >= 10, "{a}");
        // Pinned so that a change to the generator (which would change every prompt) is seen.
        assert_eq!(corpus_text(6), "Painter three never noticed will another");
    }

    #[test]
    fn salts_differ() {
        let s: std::collections::HashSet<String> = (0..1000).map(|_| new_salt()).collect();
        assert_eq!(s.len(), 1000);
        assert!(s.iter().all(|x| x.split(' ').count() == 5));
    }
}
