//! The deterministic corpus every prompt is cut from, and the salts that make a prompt unique.
//! A leaf: the tokenizer calibrates on this text and the prompt builder cuts from it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

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
pub(crate) fn corpus_words(n_words: usize) -> Vec<String> {
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
