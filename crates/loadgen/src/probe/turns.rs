//! The turn probe: sequential-turn conversations, several in parallel. Each turn
//! re-sends the growing history plus a short new user message, so a turn after the first should
//! find its prefix cached: its TTFT should fall well below the first turn's even though its
//! context is longer. When it does not, cache hits are being lost (eviction, or a router that
//! spreads one conversation over replicas).

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::{Med, Progress};
use crate::client::{Client, GenCountSource};
use crate::conversation::Conversation;
use crate::error::{Error, Result};
use crate::prompt::{build_prompt, corpus_text, new_salt};
use crate::server::{Engine, ServerInfo};
use crate::tokenize::{CountBasis, TokenCounter};

#[derive(Debug, Clone)]
pub struct TurnsConfig {
    pub turns: u32,
    pub conversations: u32,
    /// Tokens of text in the first user message (the shared context of the conversation).
    pub context: u64,
    /// Tokens generated per turn (exactly: `ignore_eos`).
    pub gen: u32,
    pub model: Option<String>,
}

impl Default for TurnsConfig {
    fn default() -> Self {
        Self {
            turns: 8,
            conversations: 4,
            context: 2048,
            gen: 64,
            model: None,
        }
    }
}

/// Follow-up questions; each turn's new message is one of these plus its turn number.
const FOLLOW_UPS: &[&str] = &[
    "Summarize the last answer in one sentence.",
    "Which place in the text matters most, and why?",
    "List three people the text mentions.",
    "What happens next in the story?",
    "Rewrite the first sentence more simply.",
    "Which word appears most often?",
    "Give the text a short title.",
    "What season is it in the text?",
];

/// Upper bound on what the history adds per turn beyond `gen` (the follow-up and the chat
/// template's markers), used only to refuse conversations that cannot fit.
const TURN_OVERHEAD_TOKENS: u64 = 48;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TurnRecord {
    /// 1-based.
    pub conversation: u32,
    /// 1-based.
    pub turn: u32,
    /// The server's `usage.prompt_tokens` (the whole history as templated).
    pub prompt_tokens: Option<u64>,
    pub ttft_ms: f64,
    pub decode_tps: Option<f64>,
    pub gen_tokens: u64,
    pub gen_count: GenCountSource,
    pub cached_tokens: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TurnRow {
    pub turn: u32,
    pub ttft_ms: Med,
    pub decode_tps: Med,
    pub prompt_tokens: Med,
    pub cached_tokens: Med,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TurnsReport {
    pub server: ServerInfo,
    pub turns: u32,
    pub conversations: u32,
    pub context: u64,
    pub gen: u32,
    pub context_count: CountBasis,
    pub records: Vec<TurnRecord>,
    pub per_turn: Vec<TurnRow>,
    /// Turn 1 of every conversation: the whole context is new.
    pub first_ttft_ms: Med,
    /// Turns 2.. : only the new message should need prefill.
    pub warm_ttft_ms: Med,
    pub first_decode_tps: Med,
    pub warm_decode_tps: Med,
    /// Median warm TTFT / median first-turn TTFT (< 1: warm turns are faster).
    pub warm_over_first: Option<f64>,
    pub warm_faster: bool,
    pub summary: String,
}

/// Refusals (settings, a history that would outgrow the context) come before anything is sent.
pub async fn run_turns(
    client: &Client,
    info: &ServerInfo,
    cfg: &TurnsConfig,
    progress: &dyn Progress,
) -> Result<TurnsReport> {
    if cfg.turns < 2 || cfg.conversations == 0 || cfg.gen < 2 {
        return Err(Error::Refused(
            "turns needs --turns ≥ 2 (warm turns follow the first), --conversations ≥ 1 and \
--gen ≥ 2"
                .into(),
        ));
    }
    let final_len =
        cfg.context + u64::from(cfg.turns) * (u64::from(cfg.gen) + TURN_OVERHEAD_TOKENS);
    if let Some(ctx) = &info.context {
        if final_len > ctx.tokens {
            return Err(Error::Refused(format!(
                "{} turns of {} generated tokens on a {}-token context reach about {final_len} \
tokens, beyond the server's context of {} tokens ({}); nothing was sent",
                cfg.turns, cfg.gen, cfg.context, ctx.tokens, ctx.source
            )));
        }
    }
    let counter = &TokenCounter::detect(client, info).await?;
    let model = cfg.model.clone().or_else(|| info.model.clone());
    let cache_prompt = (info.engine == Some(Engine::LlamaCpp)).then_some(true);

    // Every conversation gets its own salt: conversations share no prefix with each other.
    let mut openers = Vec::new();
    for _ in 0..cfg.conversations {
        let p = build_prompt(counter, cfg.context, &new_salt()).await?;
        openers.push(format!(
            "{}\n\nRead the text above, then answer briefly.",
            p.text
        ));
    }

    progress.start(u64::from(cfg.turns) * u64::from(cfg.conversations), "turns");
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let mut set = JoinSet::new();
    for (i, opener) in openers.into_iter().enumerate() {
        let conv_id = i as u32 + 1;
        let (client, tx, model) = (client.clone(), tx.clone(), model.clone());
        let (turns, gen) = (cfg.turns, cfg.gen);
        set.spawn(async move {
            let mut conv = Conversation::new();
            let mut out = Vec::new();
            for turn in 1..=turns {
                let user = if turn == 1 {
                    opener.clone()
                } else {
                    let q = FOLLOW_UPS[(turn as usize + conv_id as usize) % FOLLOW_UPS.len()];
                    format!("Turn {turn}. {q} {}", corpus_text(4))
                };
                let mut req = conv.next_turn(user, gen);
                req.model = model.clone();
                req.ignore_eos = true;
                req.cache_prompt = cache_prompt;
                let rec = client.stream(&req).await?;
                conv.record_reply(&rec);
                let r = TurnRecord {
                    conversation: conv_id,
                    turn,
                    prompt_tokens: rec.prompt_tokens,
                    ttft_ms: rec.ttft_ms().unwrap_or(f64::NAN),
                    decode_tps: rec.decode_tps(),
                    gen_tokens: rec.completion_tokens,
                    gen_count: rec.completion_source,
                    cached_tokens: rec.cached_tokens.as_ref().map(|c| c.n),
                };
                let _ = tx.send(format!(
                    "conversation {conv_id} turn {turn}: ttft {:.0} ms, context {}",
                    r.ttft_ms,
                    r.prompt_tokens
                        .map(|n| n.to_string())
                        .unwrap_or_else(|| "?".into())
                ));
                out.push(r);
            }
            Ok::<_, Error>(out)
        });
    }
    drop(tx);

    let mut records = Vec::new();
    loop {
        tokio::select! {
            Some(msg) = rx.recv() => progress.step(&msg),
            joined = set.join_next() => match joined {
                None => break,
                Some(Ok(Ok(mut recs))) => records.append(&mut recs),
                Some(Ok(Err(e))) => {
                    set.abort_all();
                    return Err(e);
                }
                Some(Err(e)) => {
                    set.abort_all();
                    return Err(Error::Refused(format!("a conversation task failed: {e}")));
                }
            },
        }
    }
    while let Ok(msg) = rx.try_recv() {
        progress.step(&msg);
    }
    records.sort_by_key(|r| (r.conversation, r.turn));
    Ok(summarize(info, cfg, counter.basis().clone(), records))
}

/// Per-turn medians and the first-versus-warm comparison (pure).
pub fn summarize(
    info: &ServerInfo,
    cfg: &TurnsConfig,
    context_count: CountBasis,
    records: Vec<TurnRecord>,
) -> TurnsReport {
    let per_turn: Vec<TurnRow> = (1..=cfg.turns)
        .map(|t| {
            let of = || records.iter().filter(move |r| r.turn == t);
            TurnRow {
                turn: t,
                ttft_ms: Med::of(of().map(|r| Some(r.ttft_ms))),
                decode_tps: Med::of(of().map(|r| r.decode_tps)),
                prompt_tokens: Med::of(of().map(|r| r.prompt_tokens.map(|n| n as f64))),
                cached_tokens: Med::of(of().map(|r| r.cached_tokens.map(|n| n as f64))),
            }
        })
        .collect();
    let first = || records.iter().filter(|r| r.turn == 1);
    let warm = || records.iter().filter(|r| r.turn > 1);
    let first_ttft = Med::of(first().map(|r| Some(r.ttft_ms)));
    let warm_ttft = Med::of(warm().map(|r| Some(r.ttft_ms)));
    let ratio = match (warm_ttft.median, first_ttft.median) {
        (Some(w), Some(f)) if f > 0.0 => Some(w / f),
        _ => None,
    };
    let warm_faster = ratio.is_some_and(|r| r < 1.0);
    let summary = match ratio {
        Some(r) if r < 1.0 => format!(
            "warm turns reach their first token {:.1}× sooner than first turns (median {:.0} ms, \
n={} vs {:.0} ms, n={}) despite longer contexts: the prefix cache is kept between turns",
            1.0 / r,
            warm_ttft.median.unwrap_or(f64::NAN),
            warm_ttft.n,
            first_ttft.median.unwrap_or(f64::NAN),
            first_ttft.n
        ),
        Some(r) => format!(
            "warm turns are not faster than first turns (median {:.0} ms, n={} vs {:.0} ms, n={}; \
ratio {r:.2}): conversations lose their cached prefix between turns",
            warm_ttft.median.unwrap_or(f64::NAN),
            warm_ttft.n,
            first_ttft.median.unwrap_or(f64::NAN),
            first_ttft.n
        ),
        None => "too few timed turns to compare".to_string(),
    };
    TurnsReport {
        server: info.clone(),
        turns: cfg.turns,
        conversations: cfg.conversations,
        context: cfg.context,
        gen: cfg.gen,
        context_count,
        first_decode_tps: Med::of(first().map(|r| r.decode_tps)),
        warm_decode_tps: Med::of(warm().map(|r| r.decode_tps)),
        first_ttft_ms: first_ttft,
        warm_ttft_ms: warm_ttft,
        warm_over_first: ratio,
        warm_faster,
        summary,
        per_turn,
        records,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(conversation: u32, turn: u32, ttft: f64) -> TurnRecord {
        TurnRecord {
            conversation,
            turn,
            prompt_tokens: Some(1000 + 80 * u64::from(turn)),
            ttft_ms: ttft,
            decode_tps: Some(50.0),
            gen_tokens: 32,
            gen_count: GenCountSource::Usage,
            cached_tokens: Some(if turn == 1 { 0 } else { 1000 }),
        }
    }

    #[test]
    fn first_versus_warm() {
        let info = ServerInfo {
            engine: Some(Engine::LlamaCpp),
            model: None,
            context: None,
            slots: None,
        };
        let cfg = TurnsConfig {
            turns: 3,
            conversations: 2,
            ..TurnsConfig::default()
        };
        let recs = vec![
            rec(1, 1, 800.0),
            rec(1, 2, 90.0),
            rec(1, 3, 110.0),
            rec(2, 1, 1000.0),
            rec(2, 2, 100.0),
            rec(2, 3, 120.0),
        ];
        let basis = CountBasis::Default {
            chars_per_token: 4.0,
        };
        let r = summarize(&info, &cfg, basis.clone(), recs);
        assert_eq!(r.first_ttft_ms.median, Some(900.0));
        assert_eq!(r.first_ttft_ms.n, 2);
        assert_eq!(r.warm_ttft_ms.median, Some(105.0));
        assert_eq!(r.warm_ttft_ms.n, 4);
        assert!(r.warm_faster);
        assert_eq!(r.per_turn.len(), 3);
        assert_eq!(r.per_turn[1].ttft_ms.median, Some(95.0));
        let lost = summarize(&info, &cfg, basis, vec![rec(1, 1, 100.0), rec(1, 2, 150.0)]);
        assert!(!lost.warm_faster);
        assert!(lost.summary.contains("lose"));
    }
}
