//! `headroom cachehit` end to end: a trace with every loss planted, read back as the typed
//! document; the rungs in order and each planted loss named; the mistakes a user makes, refused
//! with what to do. (The rungs' accuracy against a real block pool is the cachehit crate's
//! emulator test.)

use std::io::Write;

use cachehit::{Cause, Counters, Ladder, Record, Replica, Request};

use crate::util::{headroom, EmulateProc, Headroom};

/// 61 conversations over 2 system prompts of 20 blocks, 3 turns each, sent round-robin by
/// request to 2 replicas of 150 blocks: with an odd count each conversation changes replica at
/// every turn (routing), the pools are smaller than the working set (capacity), and the
/// counters report half the replay (engine).
fn planted() -> Vec<Record> {
    let mut recs: Vec<Record> = ["a", "b"]
        .iter()
        .map(|n| {
            Record::Replica(Replica {
                name: n.to_string(),
                num_blocks: 150,
                block_size: 16,
                engine: None,
                slots: None,
                slot_similarity: None,
            })
        })
        .collect();
    let mut next = 1000u32;
    let mut fresh = |n: usize| -> Vec<u32> {
        (0..n)
            .map(|_| {
                next += 1;
                next
            })
            .collect()
    };
    let system: Vec<Vec<u32>> = vec![fresh(320), fresh(320)];
    let mut convs: Vec<Vec<u32>> = (0..61).map(|c| system[c % 2].clone()).collect();
    let mut i = 0;
    for _turn in 0..3 {
        for (c, conv) in convs.iter_mut().enumerate() {
            conv.extend(fresh(50));
            recs.push(Record::Request(Request {
                t: None,
                t_first: None,
                t_end: None,
                replica: Some(["a", "b"][i % 2].to_string()),
                conversation: Some(format!("c{c}")),
                tokens: conv.clone(),
                output_tokens: 30,
                blocks: None,
                prompt_tokens: None,
                prompt: None,
                messages: None,
            }));
            i += 1;
            conv.extend(fresh(30));
        }
    }
    recs
}

fn write(recs: &[Record]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    for r in recs {
        writeln!(f, "{}", serde_json::to_string(r).unwrap()).unwrap();
    }
    f
}

fn ladder_of(path: &str, extra: &[&str]) -> Ladder {
    Headroom::cmd(&["cachehit", path, "--json"])
        .args(extra)
        .json()
}

#[test]
fn each_planted_loss_is_named_in_order_with_its_fix() {
    let mut recs = planted();
    // Counters: half of what the replay of each replica's stream finds (computed below).
    let f = write(&recs);
    let first = ladder_of(f.path().to_str().unwrap(), &[]);
    for r in &first.replicas {
        let s = r.rungs.as_routed.expect("every request routed");
        recs.push(Record::Counters(Counters {
            replica: r.name.clone(),
            prefix_hits: s.hit_tokens / 2.0,
            prefix_queries: s.prompt_tokens,
            created_late: Vec::new(),
        }));
    }
    let f = write(&recs);
    let l = ladder_of(f.path().to_str().unwrap(), &[]);
    assert_eq!(l.schema, cachehit::SCHEMA);
    assert_eq!((l.requests, l.conversations), (183, 61));
    let fl = &l.fleet;
    let (s, c, r, a, e) = (
        fl.shareable.rate(),
        fl.capacity_bound.rate(),
        fl.reachable.unwrap().rate(),
        fl.as_routed.unwrap().rate(),
        fl.achieved.unwrap().rate(),
    );
    assert!(s >= c && c >= r && r > a && a > e, "{s} {c} {r} {a} {e}");
    // Every prompt after a conversation's first shares its system prompt and history.
    assert!(s > 0.8, "{s}");
    let causes: Vec<Cause> = l.gaps.iter().map(|g| g.cause).collect();
    for want in [
        Cause::Workload,
        Cause::Capacity,
        Cause::Routing,
        Cause::Engine,
    ] {
        assert!(causes.contains(&want), "{want:?} missing from {causes:?}");
    }
    // The engine gap is exactly the planted half of as-routed.
    let engine = l.gaps.iter().find(|g| g.cause == Cause::Engine).unwrap();
    assert!(
        (engine.points - a / 2.0 * 100.0).abs() < 0.01,
        "{}",
        engine.points
    );
    // Gaps largest first, and the capacity fix names a pool that holds the working set.
    assert!(l.gaps.windows(2).all(|w| w[0].points >= w[1].points));
    assert!(l.working_set_blocks > l.pool_blocks, "{l:?}");
    let cap = l.gaps.iter().find(|g| g.cause == Cause::Capacity).unwrap();
    assert!(
        cap.fix.contains(&l.working_set_blocks.to_string()),
        "{}",
        cap.fix
    );

    // The text says the same.
    let (code, text, _) = headroom(&["cachehit", f.path().to_str().unwrap()]);
    assert_eq!(code, 0);
    for want in [
        "shareable",
        "capacity-bound",
        "as routed",
        "achieved",
        "routing",
        "fix:",
    ] {
        assert!(text.contains(want), "{want} missing:\n{text}");
    }

    // Pools large enough for everything: the capacity gap closes.
    let big = ladder_of(
        f.path().to_str().unwrap(),
        &["--pool", "a=100000", "--pool", "b=100000"],
    );
    assert!(
        big.gaps.iter().all(|g| g.cause != Cause::Capacity),
        "{:?}",
        big.gaps
    );
    assert_eq!(big.fleet.capacity_bound, big.fleet.shareable);
}

#[test]
fn a_prompt_list_alone_answers_shareable_and_says_what_is_missing() {
    let recs: Vec<Record> = planted()
        .into_iter()
        .filter_map(|r| match r {
            Record::Request(mut q) => {
                q.replica = None;
                q.conversation = None;
                Some(Record::Request(q))
            }
            _ => None,
        })
        .collect();
    let f = write(&recs);
    let p = f.path().to_str().unwrap();
    let l = ladder_of(p, &[]);
    assert!(l.replicas.is_empty() && l.fleet.as_routed.is_none() && l.fleet.achieved.is_none());
    // Conversations are found by prefix: each later turn extends the one before.
    assert_eq!(l.conversations, 61);
    let (code, text, err) = headroom(&["cachehit", p]);
    assert_eq!(code, 0);
    assert!(err.contains("only the shareable rung"), "{err}");
    assert!(text.contains("Not in this trace"), "{text}");
}

#[test]
fn mistakes_are_refused_with_what_to_do() {
    let recs = planted();
    let f = write(&recs);
    let p = f.path().to_str().unwrap();
    // A pool that is not a number.
    let (code, _, err) = headroom(&["cachehit", p, "--pool", "a=lots"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("--pool a=lots") && err.contains("NAME=BLOCKS"),
        "{err}"
    );
    // A block size that contradicts the records.
    let (code, _, err) = headroom(&["cachehit", p, "--block-size", "32"]);
    assert_eq!(code, 1);
    assert!(err.contains("--block-size 32 differs"), "{err}");
    // Requests routed to a replica no record describes.
    let only_requests: Vec<Record> = recs
        .into_iter()
        .filter(|r| matches!(r, Record::Request(_)))
        .collect();
    let g = write(&only_requests);
    let (code, _, err) = headroom(&["cachehit", g.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("--pool a=BLOCKS"), "{err}");
    // A misspelt field, named by its line.
    let mut h = tempfile::NamedTempFile::new().unwrap();
    writeln!(h, "{{\"request\":{{\"tokens\":[1,2]}}}}").unwrap();
    writeln!(h, "{{\"request\":{{\"token\":[1,2]}}}}").unwrap();
    let (code, _, err) = headroom(&["cachehit", h.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("line 2") && err.contains("unknown field `token`"),
        "{err}"
    );
}

/// A trace of chat prompts (a benchmark dataset's) is cut by the engine's own tokenizer with
/// `--tokenizer`; ids given beside the text are checked against it on a sample: the engine's
/// own pass, ids cut without the chat template are named as differing, with the share of tokens
/// past the first difference. Without `--tokenizer`, text is refused with what to give.
#[test]
fn text_prompts_are_cut_by_the_engines_tokenizer_and_foreign_ids_are_named() {
    let emu = EmulateProc::start(&["--speed", "50"]);
    let system = crate::util::words(3, 120);
    let chat = |c: u64| {
        serde_json::json!([
            {"role": "system", "content": system},
            {"role": "user", "content": crate::util::words(10 + c, 40)}
        ])
    };
    let request = |c: u64| Request {
        t: None,
        t_first: None,
        t_end: None,
        replica: None,
        conversation: None,
        tokens: Vec::new(),
        blocks: None,
        prompt_tokens: None,
        output_tokens: 0,
        prompt: None,
        messages: Some(chat(c)),
    };
    let text: Vec<Record> = (0..6).map(|c| Record::Request(request(c))).collect();
    let f = write(&text);
    let p = f.path().to_str().unwrap();
    let (code, _, err) = headroom(&["cachehit", p]);
    assert_eq!(code, 1);
    assert!(err.contains("--tokenizer URL"), "{err}");

    let l = ladder_of(p, &["--tokenizer", &emu.url]);
    let t = l.tokenized.as_ref().expect("tokenized");
    assert_eq!((t.requests, t.check.as_ref()), (6, None));
    assert!(t.endpoint.contains("/tokenize"), "{t:?}");
    // The shared system prompt repeats across the 6 prompts: shareable is well above zero.
    assert!(l.fleet.shareable.hit_tokens > 0.0, "{:?}", l.fleet);

    // The same prompts with the engine's own ids beside them: all identical.
    let own: Vec<Vec<u32>> = (0..6)
        .map(|c| {
            let body = serde_json::json!({"messages": chat(c)}).to_string();
            let (code, text) = testpeers::post_json(emu.port(), "/tokenize", &body).unwrap();
            assert_eq!(code, 200, "{text}");
            let v: TokenIds = serde_json::from_str(&text).unwrap();
            v.tokens
        })
        .collect();
    let with = |ids: &dyn Fn(usize) -> Vec<u32>| -> Vec<Record> {
        (0..6)
            .map(|c| {
                let mut q = request(c as u64);
                q.tokens = ids(c);
                Record::Request(q)
            })
            .collect()
    };
    let g = write(&with(&|c| own[c].clone()));
    let l = ladder_of(g.path().to_str().unwrap(), &["--tokenizer", &emu.url]);
    let c = l.tokenized.and_then(|t| t.check).expect("a check");
    assert_eq!((c.sampled, c.identical, c.past_first_difference), (6, 6, 0));

    // Ids cut from the user message alone (no template, no system prompt): they differ from
    // the first token, so every sampled token lies past the first difference.
    let foreign: Vec<Vec<u32>> = (0..6)
        .map(|c| {
            let body = serde_json::json!({"prompt": crate::util::words(10 + c, 40)}).to_string();
            let (_, text) = testpeers::post_json(emu.port(), "/tokenize", &body).unwrap();
            serde_json::from_str::<TokenIds>(&text).unwrap().tokens
        })
        .collect();
    let h = write(&with(&|c| foreign[c].clone()));
    let hp = h.path().to_str().unwrap();
    let l = ladder_of(hp, &["--tokenizer", &emu.url]);
    let c = l.tokenized.and_then(|t| t.check).expect("a check");
    assert_eq!(c.sampled, 6);
    assert_eq!(c.identical, 0);
    assert!(
        c.past_first_difference > 0 && c.past_first_difference <= c.tokens,
        "{c:?}"
    );
    let (code, text, _) = headroom(&["cachehit", hp, "--tokenizer", &emu.url]);
    assert_eq!(code, 0);
    assert!(
        text.contains("differ from") && text.contains("on 6 of 6 sampled prompts"),
        "{text}"
    );

    // An engine that is not there is named.
    let (code, _, err) = headroom(&["cachehit", p, "--tokenizer", "http://127.0.0.1:9"]);
    assert_eq!(code, 1);
    assert!(err.contains("--tokenizer http://127.0.0.1:9"), "{err}");
}

#[derive(serde::Deserialize)]
struct TokenIds {
    tokens: Vec<u32>,
}
