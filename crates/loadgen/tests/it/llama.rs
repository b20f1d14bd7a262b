//! The client against a real llama-server with SmolLM2: exact prompt lengths by its tokenizer,
//! limits and load as it reports them, per-token timing and its cache count.

use crate::util::rt;
use loadgen::{
    build_prompt, current_load, discover, new_salt, Client, ClientConfig, CountBasis, Engine,
    PromptSizer, StreamRequest, TokenCounter,
};

#[test]
fn exact_prompts_limits_timing_and_cache() {
    let _one_at_a_time = testpeers::serial();
    let Some(server) = testpeers::LlamaServer::start(&["-c", "4096", "-np", "2", "--metrics"])
    else {
        return;
    };
    rt().block_on(async {
        let client = Client::new(&server.url, ClientConfig::default()).unwrap();
        let info = discover(&client).await.unwrap();
        assert_eq!(info.engine, Some(Engine::LlamaCpp));
        assert_eq!(info.slots, Some(2));
        // -c 4096 over 2 slots: /props already reports the per-slot figure.
        let ctx = info.context.clone().unwrap();
        assert_eq!(ctx.tokens, 2048, "{ctx:?}");

        let counter = TokenCounter::detect(&client, &info).await.unwrap();
        assert_eq!(
            counter.basis(),
            &CountBasis::Tokenizer {
                endpoint: "llama.cpp POST /tokenize".into()
            }
        );

        // The builder hits each target exactly, and the server's usage agrees.
        for target in [12u64, 64, 333, 1000] {
            let p = build_prompt(&counter, target, &new_salt()).await.unwrap();
            assert!(p.is_exact(), "target {target}: built {} tokens", p.tokens.n);
            assert!(p.text.starts_with(&format!("{}:", p.salt)));
            let mut req = StreamRequest::text(p.text.clone(), 8);
            req.ignore_eos = true;
            req.cache_prompt = Some(true);
            let cold = client.stream(&req).await.unwrap();
            assert_eq!(cold.prompt_tokens, Some(target), "usage.prompt_tokens");
            assert_eq!(cold.completion_tokens, 8);
            assert_eq!(cold.token_times.len(), 8, "one chunk per token");
            assert!(cold.decode_tps().unwrap() > 0.0);
            assert!(cold.ttft().unwrap() <= cold.total);
            let c = cold.cached_tokens.clone().unwrap();
            assert_eq!(c.n, 0, "a fresh salt must not hit: {c:?}");
            if target >= 64 {
                let warm = client.stream(&req).await.unwrap();
                let w = warm.cached_tokens.unwrap();
                assert!(w.n + 1 >= target, "warm cached {} of {target}", w.n);
            }
        }

        // A sizer kept across rounds (as bench keeps one a server): every prompt exact by the
        // server's own count, the kept fits far cheaper than a search each. Not timing: the
        // calls depend only on the tokenizer and the salts (measured: a search of these
        // lengths 6-10 calls, a kept fit 1, or 2-4 when the salt counts differently; the bound,
        // half a search's calls a prompt, holds even with three fallbacks to a full search).
        let mut sizer = PromptSizer::new(&counter);
        let (mut searches, mut kept) = (0, 0);
        for round in 0..12 {
            for target in [16u64, 96] {
                let before = counter.tokenize_calls();
                let p = sizer.build(target, &new_salt()).await.unwrap();
                let calls = counter.tokenize_calls() - before;
                assert!(p.is_exact(), "target {target}: built {} tokens", p.tokens.n);
                assert!(p.text.starts_with(&format!("{}:", p.salt)));
                if round == 0 {
                    searches += calls;
                } else {
                    kept += calls;
                }
                if round % 4 == 1 {
                    let mut req = StreamRequest::text(p.text.clone(), 1);
                    req.ignore_eos = true;
                    let rec = client.stream(&req).await.unwrap();
                    assert_eq!(rec.prompt_tokens, Some(target), "usage.prompt_tokens");
                }
            }
        }
        assert!(searches >= 12, "two first searches took {searches} calls");
        assert!(
            kept * 4 <= 22 * searches,
            "22 kept-fit prompts took {kept} calls, two searches {searches}"
        );

        let load = current_load(&client).await.unwrap().unwrap();
        assert!(load.is_idle(), "{load:?}");
        // The engine's own gauges, not /slots (engines names them; the source names the engine).
        assert!(
            load.source == "llama.cpp /metrics running and waiting gauges",
            "{}",
            load.source
        );
    });
}

#[test]
fn load_from_slots_without_metrics_and_calibrated_fallback() {
    let _one_at_a_time = testpeers::serial();
    let Some(server) = testpeers::LlamaServer::start(&["-c", "2048", "-np", "1"]) else {
        return;
    };
    rt().block_on(async {
        let client = Client::new(&server.url, ClientConfig::default()).unwrap();
        let load = current_load(&client).await.unwrap().unwrap();
        assert!(load.source.contains("/slots"), "{load:?}");
        assert!(load.is_idle());
        // With the tokenizer hidden from detection (an unknown engine pretending it has none),
        // the estimate path still builds a prompt whose length is labelled as an estimate.
        let est = TokenCounter::estimate_only(&client, 4.0);
        let p = build_prompt(&est, 500, &new_salt()).await.unwrap();
        assert!(!p.is_exact());
        assert!(matches!(p.tokens.basis, CountBasis::Default { .. }));
        let real = TokenCounter::detect(&client, &discover(&client).await.unwrap())
            .await
            .unwrap()
            .count(&p.text)
            .await
            .unwrap()
            .n;
        // The default ratio is an estimate: within a factor of two on English prose.
        assert!(real > 250 && real < 1000, "{real}");
    });
}
