//! The stand-in tokenizer. A real engine tokenizes with the model's vocabulary; the emulator has
//! no vocabulary, so it counts one token per whitespace-separated word and names each token by a
//! hash of the word. That is deterministic, costs nothing, and keeps what the scheduler needs:
//! a prompt length, and token ids equal exactly where the texts are equal (prefix caching).

/// FNV-1a, 32 bits: the token id of a word.
pub fn word_id(word: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in word.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Token id of the word `w{id:x}` that load generators write for word id `id` (the same as
/// [`word_id`] of that text, without building it).
pub fn hex_word_id(id: u32) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    let mut eat = |b: u8| {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    };
    eat(b'w');
    let digits = if id == 0 {
        1
    } else {
        8 - id.leading_zeros() / 4
    };
    for k in (0..digits).rev() {
        let d = ((id >> (4 * k)) & 0xf) as u8;
        eat(if d < 10 { b'0' + d } else { b'a' + d - 10 });
    }
    h
}

/// Token ids of a text: one per whitespace-separated word.
pub fn encode(text: &str) -> Vec<u32> {
    text.split_whitespace().map(word_id).collect()
}

/// Number of tokens `encode` would return, without building the list.
pub fn count(text: &str) -> usize {
    text.split_whitespace().count()
}

/// Chat messages as one token sequence, the way a chat template wraps them: a role marker token
/// before each message's words, and an assistant marker at the end (the generation prompt).
pub fn encode_chat<'a>(messages: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<u32> {
    let mut out = Vec::new();
    for (role, content) in messages {
        out.push(word_id(&format!("<|{role}|>")));
        out.extend(encode(content));
    }
    out.push(word_id("<|assistant|>"));
    out
}

/// Words the emulated model "generates". The text carries no meaning; it is there so clients
/// receive real tokens with a stable count (each streamed piece is one word = one token).
const VOCAB: [&str; 32] = [
    "the",
    "model",
    "is",
    "a",
    "simulation",
    "of",
    "decode",
    "steps",
    "and",
    "each",
    "token",
    "costs",
    "one",
    "read",
    "weights",
    "plus",
    "cache",
    "bytes",
    "when",
    "batch",
    "grows",
    "past",
    "ridge",
    "compute",
    "binds",
    "prefill",
    "chunks",
    "share",
    "with",
    "requests",
    "in",
    "flight",
];

/// The `index`-th generated token of request `request` under `seed`: its id and its text.
pub fn output_token(seed: u64, request: u64, index: u32) -> (u32, &'static str) {
    let mut x = seed ^ request.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (u64::from(index) << 32);
    // SplitMix64 finaliser: a cheap, well-mixed hash of (seed, request, index).
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    let w = VOCAB[(x % VOCAB.len() as u64) as usize];
    (word_id(w), w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_tokens() {
        assert_eq!(count("  the quick\tbrown\nfox "), 4);
        let a = encode("system prompt shared here then a question");
        let b = encode("system prompt shared here then another question");
        assert_eq!(a.len(), 7);
        assert_eq!(a[..5], b[..5]);
        assert_ne!(a[5], b[5]);
        assert_eq!(word_id("a"), 0xe40c_292c); // FNV-1a test vector
        assert!(encode("").is_empty());
    }

    #[test]
    fn hex_words_hash_like_their_text() {
        for id in [0u32, 1, 9, 10, 15, 16, 255, 0xabc, 0x1234_5678, u32::MAX] {
            assert_eq!(hex_word_id(id), word_id(&format!("w{id:x}")), "{id:x}");
        }
    }

    #[test]
    fn chat_markers_wrap_messages() {
        let t = encode_chat([("system", "be brief"), ("user", "hi there")]);
        // <|system|> be brief <|user|> hi there <|assistant|>
        assert_eq!(t.len(), 7);
        assert_eq!(t[0], word_id("<|system|>"));
        assert_eq!(t[6], word_id("<|assistant|>"));
    }

    #[test]
    fn output_is_deterministic_and_varied() {
        let a: Vec<_> = (0..50).map(|i| output_token(7, 3, i).1).collect();
        let b: Vec<_> = (0..50).map(|i| output_token(7, 3, i).1).collect();
        assert_eq!(a, b);
        let distinct: std::collections::BTreeSet<_> = a.iter().collect();
        assert!(distinct.len() > 10, "{distinct:?}");
        assert_ne!(
            a,
            (0..50).map(|i| output_token(8, 3, i).1).collect::<Vec<_>>()
        );
        let (id, w) = output_token(1, 1, 1);
        assert_eq!(id, word_id(w));
    }
}
