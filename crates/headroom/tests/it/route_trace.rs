//! `headroom route --trace` in front of two emulated vLLM replicas, read back by
//! `headroom cachehit`: the trace holds no prompt text and no credentials, and its ladder's
//! "achieved" is the emulators' own counters while "as routed" replays them within 3 points.

use cachehit::{Ladder, Trace};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::util::{words, Chat, EmulateProc, Headroom, RouteProc};

const CONVERSATIONS: usize = 6;
const TURNS: usize = 4;
const MAX_TOKENS: u32 = 24;

/// One server-sent event of a streamed chat.
#[derive(Deserialize)]
struct Chunk {
    choices: Vec<ChunkChoice>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    delta: Delta,
}

#[derive(Deserialize)]
struct Delta {
    content: Option<String>,
}

/// Each emulator's prefix-cache (hits, queries), as the engines crate reads its /metrics.
fn counters(emus: &[EmulateProc]) -> Vec<(f64, f64)> {
    emus.iter()
        .map(|e| {
            let (code, body) = testpeers::get(e.port(), "/metrics").expect("/metrics answers");
            assert_eq!(code, 200);
            let s = engines::parse_metrics(&body, 0.0)
                .expect("the emulator's /metrics parses")
                .sample;
            (
                s.prefix_hits.expect("prefix hits"),
                s.prefix_queries.expect("prefix queries"),
            )
        })
        .collect()
}

/// The assistant's reply: the message of a JSON answer, or the deltas of a stream (whose body
/// may be chunked: a line that is not a whole event is skipped).
fn reply(text: &str, stream: bool) -> String {
    if !stream {
        let chat: Chat = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
        return chat
            .choices
            .into_iter()
            .next()
            .and_then(|c| c.message.content)
            .unwrap_or_default();
    }
    text.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Chunk>(d).ok())
        .filter_map(|c| c.choices.into_iter().next()?.delta.content)
        .collect()
}

/// Conversations through the router, every turn carrying the whole history back (replies
/// included) plus a new user message; all open with one shared system prompt, so where the
/// router spreads them matters. Sent one at a time, every conversation's turn t before any
/// turn t+1 (no two requests admitted in one engine step). Turn 2 is streamed, asking for the
/// usage chunk.
fn converse(port: u16) {
    let system = format!("You keep the lighthouse log. {}", words(7, 90));
    let mut convs: Vec<Vec<Value>> = (0..CONVERSATIONS)
        .map(|c| {
            vec![
                json!({"role": "system", "content": system}),
                json!({"role": "user", "content": words(100 + c as u64, 40)}),
            ]
        })
        .collect();
    for turn in 0..TURNS {
        for (c, messages) in convs.iter_mut().enumerate() {
            if turn > 0 {
                let seed = 1000 + (c * TURNS + turn) as u64;
                messages.push(json!({"role": "user", "content": words(seed, 30)}));
            }
            let stream = turn == 2;
            let mut body = json!({"model": "llama-3.1-8b", "messages": messages,
                                  "max_tokens": MAX_TOKENS, "temperature": 0});
            if stream {
                body = json!({"model": "llama-3.1-8b", "messages": messages,
                              "max_tokens": MAX_TOKENS, "stream": true,
                              "stream_options": {"include_usage": true}});
            }
            let (code, text) =
                testpeers::post_json(port, "/v1/chat/completions", &body.to_string())
                    .expect("the router answers");
            assert_eq!(code, 200, "turn {turn} of conversation {c}: {text}");
            messages.push(json!({"role": "assistant", "content": reply(&text, stream)}));
        }
    }
}

#[test]
fn a_recorded_trace_holds_no_prompts_and_its_ladder_matches_the_engines_counters() {
    let emus = [
        EmulateProc::start(&["--speed", "50"]),
        EmulateProc::start(&["--speed", "50"]),
    ];
    // The second replica is given with a password: it reaches the replica, never the trace.
    let backends = [
        emus[0].url.clone(),
        format!("http://keeper:s3cr3tpass@{}", emus[1].addr()),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("route.jsonl");
    let path_s = path.to_str().unwrap();
    let before = counters(&emus);
    let router = RouteProc::start(&backends, &["--trace", path_s]);
    converse(router.port());
    router.stop();
    let after = counters(&emus);

    let text = std::fs::read_to_string(&path).unwrap();
    for secret in ["lighthouse", "harbour", "s3cr3tpass", "keeper:"] {
        assert!(
            !text.contains(secret),
            "{secret:?} reached the trace:\n{text}"
        );
    }
    let trace = Trace::read(text.as_bytes()).unwrap();
    trace.validate().unwrap();
    let names: Vec<String> = emus.iter().map(|e| e.url.clone()).collect();
    let stream = trace.stream.as_ref().expect("a stream record");
    assert_eq!(stream.block_size, 16);
    assert!(
        stream.tokenizer.contains("vLLM POST /tokenize of"),
        "{stream:?}"
    );
    assert_eq!(
        trace.replicas.iter().map(|r| &r.name).collect::<Vec<_>>(),
        names.iter().collect::<Vec<_>>()
    );
    assert!(trace.replicas.iter().all(|r| r.num_blocks > 0));
    assert_eq!(trace.requests.len(), CONVERSATIONS * TURNS);
    for q in &trace.requests {
        assert!(q.tokens.is_empty(), "token ids reached the trace");
        assert!(q.blocks.as_ref().is_some_and(|b| !b.is_empty()));
        assert!(q.t.is_some() && q.t_first.is_some() && q.t_end.is_some());
        // Every answer's usage, the streamed ones' from their final usage chunk.
        assert_eq!(q.output_tokens, MAX_TOKENS, "{q:?}");
    }
    for n in &names {
        assert!(
            trace.counters.iter().any(|c| &c.replica == n),
            "no counters for {n}"
        );
    }

    let ladder: Ladder = Headroom::cmd(&["cachehit", path_s, "--json"]).json();
    assert_eq!(ladder.conversations, CONVERSATIONS as u64);
    matches_the_engines(&ladder, &before, &after);
}

/// The ladder's achieved rung is the emulators' own counter deltas, and "as routed" is within 3
/// points of it: the emulator has no engine-side loss (same tokens every turn, no salt, no
/// reset) and the requests were sent one at a time, so a replay of what each replica was sent
/// is what it hit.
fn matches_the_engines(ladder: &Ladder, before: &[(f64, f64)], after: &[(f64, f64)]) {
    let achieved = ladder.fleet.achieved.as_ref().expect("achieved");
    let (hits, queries) = before
        .iter()
        .zip(after)
        .fold((0.0, 0.0), |(h, q), (b, a)| (h + a.0 - b.0, q + a.1 - b.1));
    assert!(queries > 0.0);
    assert_eq!(
        (achieved.hit_tokens, achieved.prompt_tokens),
        (hits, queries),
        "achieved is the emulators' own counter deltas"
    );
    let routed = ladder.fleet.as_routed.as_ref().expect("as routed");
    let gap = (routed.rate() - achieved.rate()).abs() * 100.0;
    assert!(
        gap <= 3.0,
        "as routed {:.1} % vs achieved {:.1} %",
        routed.rate() * 100.0,
        achieved.rate() * 100.0
    );
    assert!(achieved.rate() > 0.3, "{achieved:?}");
}

/// Behind a router that does not say where it sent a request: one recording tap (`headroom
/// route --trace` with one backend) in front of each replica, a round-robin router in front of
/// the taps, and `headroom cachehit` given both taps' files. The merged ladder's achieved is
/// the emulators' own counters, and as routed holds within 3 points of it, as with one router.
#[test]
fn taps_behind_another_router_merge_into_one_ladder() {
    let emus = [
        EmulateProc::start(&["--speed", "50"]),
        EmulateProc::start(&["--speed", "50"]),
    ];
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<String> = ["a.jsonl", "b.jsonl"]
        .iter()
        .map(|f| dir.path().join(f).to_str().unwrap().to_string())
        .collect();
    let before = counters(&emus);
    let taps: Vec<RouteProc> = emus
        .iter()
        .zip(&paths)
        .map(|(e, p)| RouteProc::start(std::slice::from_ref(&e.url), &["--trace", p]))
        .collect();
    let tap_urls: Vec<String> = taps.iter().map(|t| format!("http://{}", t.addr)).collect();
    let front = RouteProc::start(&tap_urls, &["--policy", "round-robin"]);
    converse(front.port());
    front.stop();
    for t in taps {
        t.stop();
    }
    let after = counters(&emus);

    let ladder: Ladder = Headroom::cmd(&["cachehit", &paths[0], &paths[1], "--json"]).json();
    assert_eq!(ladder.replicas.len(), 2);
    // Each tap keys a conversation by its opening turn, as one router would.
    assert_eq!(ladder.conversations, CONVERSATIONS as u64);
    matches_the_engines(&ladder, &before, &after);
}
