//! The checks as tables of cases over made-up windows; the live runs are in headroom's
//! integration tests (tests/it/check.rs).

use super::*;

/// A llama.cpp window: (prompt computed, prompt cached, predicted, running, waiting) per scrape.
fn llama(rows: &[(f64, f64, f64, f64, f64)]) -> Vec<Sample> {
    rows.iter()
        .enumerate()
        .map(|(i, &(p, c, g, r, w))| {
            let mut s = Sample::empty(i as f64, Engine::LlamaCpp);
            s.prompt_tokens = Some(p);
            s.cached_prompt_tokens = Some(c);
            s.generation_tokens_credited = Some(g);
            s.running = Some(r);
            s.waiting = Some(w);
            s
        })
        .collect()
}

fn run(input: u64, output: u64, failed: u64) -> ClientRun {
    ClientRun {
        tool: "vllm bench serve 0.32".into(),
        file: "r.json".into(),
        duration_s: 4.0,
        completed: 4,
        failed: Some(failed),
        incomplete: None,
        input_tokens: input,
        output_tokens: Some(output),
        tokenizer: Some("smollm2".into()),
        request_rate: None,
        max_concurrency: None,
        errors: vec![],
    }
}

fn outcome(f: &[Finding], k: CheckKind) -> Outcome {
    f.iter()
        .find(|f| f.check == k)
        .map(|f| f.outcome)
        .expect("every check reports")
}

fn evidence(f: &[Finding], k: CheckKind) -> String {
    f.iter()
        .find(|f| f.check == k)
        .map(|f| f.evidence.clone())
        .unwrap_or_default()
}

/// A clean run: counts equal, nothing cached, no queue, nothing failed.
fn clean() -> Vec<Sample> {
    llama(&[
        (0.0, 0.0, 0.0, 0.0, 0.0),
        (256.0, 0.0, 0.0, 4.0, 0.0),
        (512.0, 0.0, 0.0, 4.0, 0.0),
        (512.0, 0.0, 32.0, 2.0, 0.0),
        (512.0, 0.0, 64.0, 0.0, 0.0),
    ])
}

#[test]
fn a_clean_run_is_clear_where_it_can_judge() {
    let (counts, f) = findings(&clean(), Engine::LlamaCpp, Some(&run(512, 64, 0)));
    assert_eq!(counts.prompt_tokens, Some(512.0));
    for k in [
        CheckKind::PromptTokens,
        CheckKind::OutputTokens,
        CheckKind::CacheContamination,
        CheckKind::Saturation,
        CheckKind::FailedRequests,
    ] {
        assert_eq!(outcome(&f, k), Outcome::Clear, "{k:?}: {}", evidence(&f, k));
    }
    // llama.cpp has no preemption counter: silent, and says so.
    assert_eq!(outcome(&f, CheckKind::Preemptions), Outcome::Silent);
    assert!(evidence(&f, CheckKind::Preemptions).contains("llama.cpp exports no preemption"));
}

#[test]
fn token_accounting_names_the_higher_side() {
    // The engine's prompt tokens: 400 computed + 112 from the cache = 512 sent.
    let s = llama(&[(0.0, 0.0, 0.0, 0.0, 0.0), (400.0, 112.0, 64.0, 0.0, 0.0)]);
    let cases = [
        // (client input, client output, prompt outcome, output outcome, side named)
        (512, 64, Outcome::Clear, Outcome::Clear, "the same count"),
        // 3 % of 512 is 15.4: 500 is within, 490 beyond.
        (
            500,
            64,
            Outcome::Clear,
            Outcome::Clear,
            "the engine's count is higher",
        ),
        (
            490,
            64,
            Outcome::Fired,
            Outcome::Clear,
            "the engine's count is higher",
        ),
        (
            1024,
            64,
            Outcome::Fired,
            Outcome::Clear,
            "the client's count is higher",
        ),
        (512, 32, Outcome::Clear, Outcome::Fired, "the same count"),
    ];
    for (input, output, p, o, side) in cases {
        let (_, f) = findings(&s, Engine::LlamaCpp, Some(&run(input, output, 0)));
        assert_eq!(outcome(&f, CheckKind::PromptTokens), p, "{input}");
        assert_eq!(outcome(&f, CheckKind::OutputTokens), o, "{output}");
        let e = evidence(&f, CheckKind::PromptTokens);
        assert!(e.contains(side), "{input}: {e}");
        assert!(
            e.contains("512 prompt tokens (computed plus 112 served from its cache)"),
            "{e}"
        );
    }
}

#[test]
fn llama_cpp_without_the_cached_counter_cannot_count_prompts() {
    let mut s = clean();
    for x in &mut s {
        x.cached_prompt_tokens = None;
    }
    let (counts, f) = findings(&s, Engine::LlamaCpp, Some(&run(512, 64, 0)));
    assert_eq!(counts.prompt_tokens, None);
    assert_eq!(outcome(&f, CheckKind::PromptTokens), Outcome::Silent);
    assert!(evidence(&f, CheckKind::PromptTokens).contains("leaves out the tokens it served"));
    assert_eq!(outcome(&f, CheckKind::CacheContamination), Outcome::Silent);
}

#[test]
fn a_warm_cache_fires_vllm_by_hits_and_llama_by_cached_tokens() {
    // llama.cpp: 6 computed, 762 cached of 768 sent (a real second run with the same seed).
    let s = llama(&[(0.0, 0.0, 0.0, 0.0, 0.0), (6.0, 762.0, 96.0, 0.0, 0.0)]);
    let (_, f) = findings(&s, Engine::LlamaCpp, None);
    assert_eq!(outcome(&f, CheckKind::CacheContamination), Outcome::Fired);
    assert!(evidence(&f, CheckKind::CacheContamination).starts_with("99.2 % of"));
    // vLLM: hits over lookups; 10 % exactly is not above the threshold.
    for (hits, expect) in [(100.0, Outcome::Clear), (101.0, Outcome::Fired)] {
        let s: Vec<Sample> = [0.0, 1000.0]
            .iter()
            .enumerate()
            .map(|(i, &q)| {
                let mut x = Sample::empty(i as f64, Engine::Vllm);
                x.prefix_queries = Some(q);
                x.prefix_hits = Some(if i == 0 { 0.0 } else { hits });
                x.preemptions = Some(0.0);
                x
            })
            .collect();
        let (_, f) = findings(&s, Engine::Vllm, None);
        assert_eq!(outcome(&f, CheckKind::CacheContamination), expect, "{hits}");
        assert_eq!(outcome(&f, CheckKind::Preemptions), Outcome::Clear);
    }
}

#[test]
fn saturation_by_share_or_by_growth() {
    let gauges = |rw: &[(f64, f64)]| {
        let rows: Vec<_> = rw.iter().map(|&(r, w)| (0.0, 0.0, 0.0, r, w)).collect();
        llama(&rows)
    };
    let cases: [(&[(f64, f64)], Outcome); 5] = [
        // Waiting ≥ running in 3 of 4 busy scrapes: most of the run.
        (
            &[(0.0, 0.0), (2.0, 4.0), (2.0, 2.0), (2.0, 2.0), (2.0, 0.0)],
            Outcome::Fired,
        ),
        // Half exactly is not most.
        (
            &[(2.0, 2.0), (2.0, 2.0), (2.0, 0.0), (2.0, 0.0)],
            Outcome::Clear,
        ),
        // A queue that grows by 2 while staying under running.
        (
            &[
                (8.0, 0.0),
                (8.0, 0.0),
                (8.0, 1.0),
                (8.0, 2.0),
                (8.0, 2.0),
                (8.0, 2.0),
            ],
            Outcome::Fired,
        ),
        (&[(8.0, 0.0), (8.0, 1.0), (8.0, 1.0)], Outcome::Clear),
        // Two busy scrapes: too few to judge.
        (
            &[(0.0, 0.0), (4.0, 4.0), (4.0, 4.0), (0.0, 0.0)],
            Outcome::Silent,
        ),
    ];
    for (rw, expect) in cases {
        let (_, f) = findings(&gauges(rw), Engine::LlamaCpp, None);
        assert_eq!(
            outcome(&f, CheckKind::Saturation),
            expect,
            "{rw:?}: {}",
            evidence(&f, CheckKind::Saturation)
        );
    }
}

#[test]
fn failed_requests_fire_and_quote_the_last_line_of_the_first_error() {
    let mut r = run(512, 64, 2);
    r.errors = vec![
        "Traceback (most recent call last):\n  ...\nServerDisconnectedError: Server disconnected\n"
            .into(),
    ];
    let (_, f) = findings(&clean(), Engine::LlamaCpp, Some(&r));
    assert_eq!(outcome(&f, CheckKind::FailedRequests), Outcome::Fired);
    let e = evidence(&f, CheckKind::FailedRequests);
    assert!(e.starts_with("2 of 6 requests failed"), "{e}");
    assert!(
        e.ends_with("first error: ServerDisconnectedError: Server disconnected"),
        "{e}"
    );
}

#[test]
fn without_a_result_or_samples_every_check_is_silent_and_says_why() {
    let (_, f) = findings(&[], Engine::Vllm, None);
    assert_eq!(f.len(), 6);
    for x in &f {
        assert_eq!(x.outcome, Outcome::Silent, "{x:?}");
        assert!(!x.evidence.is_empty());
    }
}

#[test]
fn the_busy_span_runs_from_the_scrape_before_work_to_the_last_that_saw_it() {
    // Idle at 0-2, running at 3-5, the counters credited at 6 (nothing running any more), idle
    // at 7-9: busy from t = 2 (the scrape before the first that saw work) to t = 6.
    let mut rows = vec![(0.0, 0.0, 0.0, 0.0, 0.0); 10];
    for r in &mut rows[3..6] {
        r.3 = 1.0;
    }
    for r in &mut rows[6..] {
        *r = (100.0, 0.0, 40.0, 0.0, 0.0);
    }
    assert_eq!(busy_span(&llama(&rows)), Some(4.0));
    // Without gauges, the counters alone: moves at 4 and 6 give 3 to 6.
    let mut s = llama(&rows);
    for x in &mut s {
        x.running = None;
        x.waiting = None;
    }
    s[4].prompt_tokens = Some(50.0);
    assert_eq!(busy_span(&s), Some(3.0));
    // No work at all: no span.
    assert_eq!(busy_span(&llama(&[(5.0, 0.0, 1.0, 0.0, 0.0); 4])), None);
}
