//! What sizing a bench round's prompts costs the client, before and after the kept fits: the
//! `--quick` suite's prompts of one round (16 tokens for decode, 96 for prefill, 16 for each
//! of 2 streams) sized by a full search each ([`build_prompt`], as every round did) and by one
//! [`PromptSizer`] kept across rounds (as `SuiteRun` now does), alternated round by round
//! against the same server in the same run, so drift of the machine falls on both alike.
//! Prints per-round wall time and /tokenize calls of each, and the ratio of the medians.
//!
//!   cargo run --release -p loadgen --example prompt_sizing -- URL [ROUNDS]

use std::time::Instant;

use loadgen::{build_prompt, discover, new_salt, Client, ClientConfig, PromptSizer, TokenCounter};

const ROUND: [u64; 4] = [16, 96, 16, 16];

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let url = args.next().ok_or("usage: prompt_sizing URL [ROUNDS]")?;
    let rounds: usize = args.next().map(|r| r.parse()).transpose()?.unwrap_or(20);
    let client = Client::new(&url, ClientConfig::default())?;
    let info = discover(&client).await?;
    let counter = TokenCounter::detect(&client, &info).await?;
    if !counter.is_exact() {
        return Err("the server has no tokenizer: nothing to size".into());
    }
    let mut sizer = PromptSizer::new(&counter);
    let (mut full_ms, mut kept_ms, mut full_calls, mut kept_calls) =
        (vec![], vec![], vec![], vec![]);
    for r in 0..rounds {
        // Alternate which goes first, so neither always follows the other.
        for kept in if r % 2 == 0 {
            [false, true]
        } else {
            [true, false]
        } {
            let (c0, t0) = (counter.tokenize_calls(), Instant::now());
            for &target in &ROUND {
                let p = if kept {
                    sizer.build(target, &new_salt()).await?
                } else {
                    build_prompt(&counter, target, &new_salt()).await?
                };
                if !p.is_exact() {
                    return Err(format!("a {target}-token prompt came out {}", p.tokens.n).into());
                }
            }
            let (ms, calls) = (
                t0.elapsed().as_secs_f64() * 1e3,
                (counter.tokenize_calls() - c0) as f64,
            );
            if kept {
                kept_ms.push(ms);
                kept_calls.push(calls);
            } else {
                full_ms.push(ms);
                full_calls.push(calls);
            }
            eprintln!(
                "round {} {}: {ms:.1} ms, {calls} calls",
                r + 1,
                if kept { "kept fits" } else { "full search" }
            );
        }
    }
    // The kept sizer's first round pays its searches; the rounds after it are what a bench pays.
    let steady = |v: &[f64]| v[1..].to_vec();
    println!(
        "{rounds} rounds of {ROUND:?} tokens: full search median {:.1} ms, {:.0} calls a round; \
kept fits median {:.1} ms, {:.1} calls a round (first round {:.1} ms, {} calls); \
ratio kept/full {:.3}",
        median(&full_ms),
        median(&full_calls),
        median(&steady(&kept_ms)),
        median(&steady(&kept_calls)),
        kept_ms[0],
        kept_calls[0],
        median(&steady(&kept_ms)) / median(&full_ms)
    );
    Ok(())
}
