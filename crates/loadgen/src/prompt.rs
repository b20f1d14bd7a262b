//! Prompts of an exact token length, salted at the start.
//!
//! The body is deterministic text generated from a word list built into the crate, so every run
//! of every probe sends the same body; only the salt differs. The salt comes FIRST: a prefix
//! cache matches from the first token, so a fresh salt leaves nothing for any cache to serve.

use serde::Serialize;

use crate::corpus::corpus_words;
pub use crate::corpus::{corpus_text, new_salt};
use crate::error::{Error, Result};
use crate::tokenize::{TokenCounter, Tokens};

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

/// Counts tokens of a prompt: the server's tokenizer (or, in unit tests, a stand-in with the
/// same contract).
pub(crate) trait Count {
    async fn tokens(&self, text: &str) -> Result<u64>;
}

impl Count for TokenCounter {
    async fn tokens(&self, text: &str) -> Result<u64> {
        Ok(self.count(text).await?.n)
    }
}

/// The corpus body for a target: enough words at a pessimistic 2 chars/token, plus slack, and
/// the end offset of each word prefix (`ends[k]`: the first k words, `ends[0] = 0`).
fn corpus_body(target: u64, chars_per_token: f64) -> (String, Vec<usize>) {
    let n_words = ((target as f64 * chars_per_token.max(2.0) / 3.0) as usize).max(16) * 2 + 64;
    let words = corpus_words(n_words);
    let mut body = String::new();
    let mut ends = Vec::with_capacity(words.len() + 1);
    ends.push(0);
    for w in &words {
        body.push(' ');
        body.push_str(w);
        ends.push(body.len());
    }
    (body, ends)
}

fn check_target(target: u64) -> Result<()> {
    if target == 0 || target > MAX_PROMPT_TOKENS {
        return Err(Error::Refused(format!(
            "prompt length {target} tokens is outside 1..={MAX_PROMPT_TOKENS}"
        )));
    }
    Ok(())
}

/// A fit of the corpus to a target: the first `words` words of the body, then `filler`, after
/// the salt's head, counted `n` tokens (≤ target; = target unless the fillers ran out).
#[derive(Debug, Clone, PartialEq)]
struct Fit {
    words: usize,
    filler: String,
    n: u64,
}

/// Largest k with count(head + k words) ≤ target (bracket outward from `guess` with steps
/// doubling from `step`, then bisect), then fillers to close the last gap.
async fn search<C: Count>(
    c: &C,
    head: &str,
    body: &str,
    ends: &[usize],
    target: u64,
    guess: usize,
    step: usize,
) -> Result<Fit> {
    let count_k = |k: usize| {
        let t = format!("{head}{}", &body[..ends[k]]);
        async move { c.tokens(&t).await }
    };
    let base = count_k(0).await?;
    if base > target {
        return Err(Error::Refused(format!(
            "a {target}-token prompt is shorter than its salt ({base} tokens)"
        )));
    }
    let last = ends.len() - 1;
    let guess = guess.clamp(1, last);
    let mut step = step.max(1);
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
    let cur = format!("{head}{}", &body[..ends[lo]]);
    let mut filler = String::new();
    let mut n = count_k(lo).await?;
    let mut calls = 0;
    'fill: while n < target && calls < MAX_FILL_CALLS {
        for f in FILLERS {
            if calls >= MAX_FILL_CALLS {
                break 'fill;
            }
            let cand = format!("{cur}{filler}{f}");
            let k = c.tokens(&cand).await?;
            calls += 1;
            if k <= target && k > n {
                filler.push_str(f);
                n = k;
                continue 'fill;
            }
        }
        break; // every filler overshoots or adds nothing
    }
    Ok(Fit {
        words: lo,
        filler,
        n,
    })
}

/// First search for a target: the guess from the chars-per-token estimate, steps of 1/16 of it.
async fn first_fit<C: Count>(
    c: &C,
    head: &str,
    body: &str,
    ends: &[usize],
    target: u64,
    chars_per_token: f64,
) -> Result<Fit> {
    let guess = ends
        .partition_point(|&e| (e + head.len()) as f64 <= target as f64 * chars_per_token)
        .saturating_sub(1);
    search(c, head, body, ends, target, guess, (guess / 16).max(4)).await
}

/// Tries at re-using a fit for a new salt before searching again: the body of the last fit is
/// counted once behind the new salt; a salt that counts d tokens more or less moves the fit by
/// d words (the corpus' words are a token each, nearly all) and counts again.
const REFIT_TRIES: usize = 3;

/// The last fit behind a new head: the same words and filler when the new head counts as many
/// tokens as the old, else shifted by the difference. `Some` only for an exact hit.
async fn refit<C: Count>(
    c: &C,
    head: &str,
    body: &str,
    ends: &[usize],
    target: u64,
    last: &Fit,
) -> Result<Option<Fit>> {
    if last.n != target {
        return Ok(None); // the fillers did not close it last time: search afresh
    }
    let mut k = last.words;
    for _ in 0..REFIT_TRIES {
        let n = c
            .tokens(&format!("{head}{}{}", &body[..ends[k]], last.filler))
            .await?;
        if n == target {
            return Ok(Some(Fit {
                words: k,
                filler: last.filler.clone(),
                n,
            }));
        }
        let next = k as i64 - (n as i64 - target as i64);
        if next < 0 || next as usize >= ends.len() {
            break;
        }
        k = next as usize;
    }
    Ok(None)
}

/// Build `salt` + corpus text of exactly `target` tokens where the server tokenizes; otherwise
/// the estimate's length (the returned count says which).
pub async fn build_prompt(counter: &TokenCounter, target: u64, salt: &str) -> Result<BuiltPrompt> {
    check_target(target)?;
    // The salt's first word is the prompt's first token: no shared bracket or marker before it,
    // or every prompt would share (and hit) that one cached token.
    let head = format!("{salt}:");
    let cpt = counter.chars_per_token();
    let (body, ends) = corpus_body(target, cpt);
    if !counter.is_exact() {
        let want_chars = (target as f64 * cpt).round() as usize;
        let k = ends
            .partition_point(|&e| head.len() + e <= want_chars)
            .saturating_sub(1);
        let text = format!("{head}{}", &body[..ends[k]]);
        let tokens = counter.count(&text).await?;
        return Ok(BuiltPrompt {
            text,
            salt: salt.to_string(),
            target,
            tokens,
        });
    }
    let fit = first_fit(counter, &head, &body, &ends, target, cpt).await?;
    Ok(BuiltPrompt {
        text: format!("{head}{}{}", &body[..ends[fit.words]], fit.filler),
        salt: salt.to_string(),
        target,
        tokens: Tokens {
            n: fit.n,
            basis: counter.basis().clone(),
        },
    })
}

/// Kept fits, by target: the corpus body for that target, its word ends, the last fit.
type Fits = std::collections::HashMap<u64, (String, Vec<usize>, Fit)>;

/// Sizes prompts for one server over many rounds: [`build_prompt`]'s contract (salt + corpus
/// text of exactly the target's tokens by the server's tokenizer, the count and its basis
/// returned), but the fit found for a target is kept, so the next prompt of that length costs
/// one /tokenize call when its salt counts as the last one did (a few more when it does not),
/// not the ~10–20 of a bisection. Every prompt is still counted by the server before it is
/// returned: a kept fit that no longer hits falls back to the full search.
pub struct PromptSizer {
    counter: TokenCounter,
    fits: Fits,
}

impl PromptSizer {
    pub fn new(counter: &TokenCounter) -> Self {
        Self {
            counter: counter.clone(),
            fits: Fits::new(),
        }
    }

    /// A prompt of `target` tokens behind `salt` (see the type's comment).
    pub async fn build(&mut self, target: u64, salt: &str) -> Result<BuiltPrompt> {
        check_target(target)?;
        if !self.counter.is_exact() {
            return build_prompt(&self.counter, target, salt).await;
        }
        let head = format!("{salt}:");
        let cpt = self.counter.chars_per_token();
        let (text, n) = sized(&mut self.fits, &self.counter, &head, target, cpt).await?;
        Ok(BuiltPrompt {
            text,
            salt: salt.to_string(),
            target,
            tokens: Tokens {
                n,
                basis: self.counter.basis().clone(),
            },
        })
    }
}

/// The kept fit for `target` behind `head` if it still hits, else a full search (kept for the
/// next call): the prompt's text and its count.
async fn sized<C: Count>(
    fits: &mut Fits,
    c: &C,
    head: &str,
    target: u64,
    cpt: f64,
) -> Result<(String, u64)> {
    let (body, ends, f) = match fits.entry(target) {
        std::collections::hash_map::Entry::Vacant(e) => {
            let (body, ends) = corpus_body(target, cpt);
            let f = first_fit(c, head, &body, &ends, target, cpt).await?;
            let (body, ends, f) = e.insert((body, ends, f));
            (body, ends, f)
        }
        std::collections::hash_map::Entry::Occupied(e) => {
            let (body, ends, last) = e.into_mut();
            *last = match refit(c, head, body, ends, target, last).await? {
                Some(f) => f,
                None => first_fit(c, head, body, ends, target, cpt).await?,
            };
            (body, ends, last)
        }
    };
    Ok((format!("{head}{}{}", &body[..ends[f.words]], f.filler), f.n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in tokenizer with the server's contract (a deterministic count of a text, BOS
    /// included) and a tally of its calls: a run of letters with its leading space is a token,
    /// two when longer than 7 letters; any other character is a token. Salts of five words then
    /// count 6–11 tokens, so salts differ in length as they do on a real BPE.
    struct Words {
        calls: std::cell::Cell<u64>,
    }

    impl Count for Words {
        async fn tokens(&self, text: &str) -> Result<u64> {
            self.calls.set(self.calls.get() + 1);
            let mut n = 1;
            let mut run = 0;
            let mut space = false;
            for ch in text.chars() {
                if ch.is_alphabetic() {
                    run += 1;
                    continue;
                }
                if run > 0 {
                    n += if run > 7 { 2 } else { 1 };
                    run = 0;
                } else if space {
                    n += 1; // a space not followed by a word
                }
                space = ch == ' ';
                if !space {
                    n += 1;
                }
            }
            if run > 0 {
                n += if run > 7 { 2 } else { 1 };
            } else if space {
                n += 1;
            }
            Ok(n)
        }
    }

    fn block<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn kept_fits_give_exact_lengths_for_a_call_or_few() {
        let w = Words {
            calls: std::cell::Cell::new(0),
        };
        block(async {
            for target in [16u64, 96, 333] {
                let mut fits = Fits::new();
                let mut refits = Vec::new();
                let mut first = 0;
                for i in 0..60 {
                    let head = format!("{}:", new_salt());
                    let before = w.calls.get();
                    let (text, n) = sized(&mut fits, &w, &head, target, 4.0).await.unwrap();
                    let calls = w.calls.get() - before;
                    assert_eq!(n, target, "{text}");
                    assert_eq!(w.tokens(&text).await.unwrap(), target, "{text}");
                    assert!(text.starts_with(&head));
                    // The same prompt a full search finds, whenever the salt counts as the one
                    // the kept fit was found behind (then the kept words are the largest prefix).
                    let (body, ends) = corpus_body(target, 4.0);
                    let full = first_fit(&w, &head, &body, &ends, target, 4.0)
                        .await
                        .unwrap();
                    if calls == 1 {
                        let f = format!("{head}{}{}", &body[..ends[full.words]], full.filler);
                        assert_eq!(text, f, "target {target}");
                    }
                    if i == 0 {
                        first = calls;
                    } else {
                        refits.push(calls);
                    }
                }
                let mean = refits.iter().sum::<u64>() as f64 / refits.len() as f64;
                let ones = refits.iter().filter(|&&c| c == 1).count();
                // A search costs ≥ 6 calls (the salt, a bracket, a bisection); a kept fit one
                // when the salt counts as the last did, one more per shift otherwise.
                assert!(first >= 6, "target {target}: first search {first} calls");
                assert!(
                    mean <= 3.0,
                    "target {target}: {mean} calls a prompt, {refits:?}"
                );
                assert!(
                    ones >= 10,
                    "target {target}: {ones} one-call prompts, {refits:?}"
                );
            }
        });
    }

    #[test]
    fn a_longer_salt_shifts_the_kept_fit_by_its_difference() {
        let w = Words {
            calls: std::cell::Cell::new(0),
        };
        block(async {
            let mut fits = Fits::new();
            let (_, n) = sized(&mut fits, &w, "a b:", 96, 4.0).await.unwrap();
            assert_eq!(n, 96);
            let words = fits[&96].2.words;
            // Four more tokens of salt: four fewer words, found by one count and one shift.
            let long = "a b c d e f:";
            assert_eq!(
                w.tokens(long).await.unwrap(),
                w.tokens("a b:").await.unwrap() + 4
            );
            let before = w.calls.get();
            let (text, n) = sized(&mut fits, &w, long, 96, 4.0).await.unwrap();
            assert_eq!((n, w.calls.get() - before), (96, 2), "{text}");
            assert_eq!(fits[&96].2.words, words - 4);
            // And an empty target is refused before any call.
            assert!(check_target(0).is_err());
        });
    }
}
