//! What a conversation key costs: `router::key::facts` on chat bodies of growing length, for
//! two identity lengths N. Run: cargo run --release -p router --example key_cost
use std::time::Instant;

use serde_json::json;

fn body(turns: usize, words_per_message: usize) -> Vec<u8> {
    let text = |t: usize, who: &str| {
        format!(
            "{who} {t}: {}",
            "lorem ipsum dolor sit amet ".repeat(words_per_message / 5)
        )
    };
    let mut messages = vec![json!({"role": "system", "content": text(0, "system")})];
    for t in 0..turns {
        messages.push(json!({"role": "user", "content": text(t, "user")}));
        messages.push(json!({"role": "assistant", "content": text(t, "assistant")}));
    }
    messages.push(json!({"role": "user", "content": "and now?"}));
    serde_json::to_vec(&json!({"model": "m", "stream": true, "messages": messages})).unwrap()
}

fn main() {
    println!(
        "{:>10} {:>9} {:>8} {:>12}",
        "body bytes", "messages", "N KiB", "µs per body (fastest of 15 batches)"
    );
    for (turns, words) in [(1, 40), (4, 200), (16, 400), (64, 800)] {
        let b = body(turns, words);
        for n_kib in [4usize, 64] {
            // The fastest of 15 batches: on a shared machine a mean measures the neighbours.
            let iters = (500_000 / b.len()).clamp(5, 5_000);
            let mut sink = 0u64;
            let mut us = f64::INFINITY;
            for _ in 0..15 {
                let start = Instant::now();
                for _ in 0..iters {
                    let f = router::key::facts(std::hint::black_box(&b), n_kib << 10);
                    sink ^= f.whole.unwrap_or(0) ^ f.history.len() as u64;
                }
                us = us.min(start.elapsed().as_secs_f64() * 1e6 / iters as f64);
            }
            println!(
                "{:>10} {:>9} {:>8} {:>12.1}",
                b.len(),
                2 * turns + 2,
                n_kib,
                us
            );
            std::hint::black_box(sink);
        }
    }
}
