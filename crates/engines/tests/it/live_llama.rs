//! Against a real llama-server (HEADROOM_LLAMA_SERVER with HEADROOM_MODEL, `--metrics -np 2`):
//! scrape, send one completion, scrape again; the counters moved by exactly what the server
//! reported for that request. /props, /slots, /v1/models and the process's own command line give
//! the configuration. The two scrapes are recorded and replayed.

use engines::config::Source;
use engines::record::{read_recording, Recorder, RecordingHeader, ScrapeRecord};
use engines::{Engine, EngineConfig, Scraper};
use std::time::{Duration, Instant};
use testpeers::LlamaServer;

#[test]
fn llama_server_counters_move_by_one_request() {
    let _one_at_a_time = testpeers::serial();
    let Some(server) =
        LlamaServer::start(&["--metrics", "-np", "2", "-c", "2048", "-t", "2", "--slots"])
    else {
        return;
    };
    let pid = server.pid();
    let url = server.url.clone();
    let rt = crate::util::rt();
    let s = Scraper::new(&url, Duration::from_secs(10)).unwrap();

    // Wait (bounded) until the model is loaded: /metrics answers 503 while loading.
    let deadline = Instant::now() + Duration::from_secs(120);
    let before = loop {
        match rt.block_on(s.scrape_metrics()) {
            Ok(x) => break x,
            Err(e) if Instant::now() < deadline => {
                eprintln!("waiting for llama-server: {e}");
                std::thread::sleep(Duration::from_millis(300));
            }
            Err(e) => panic!(
                "llama-server not ready after 120 s: {e}\n{}",
                std::fs::read_to_string(&server.log).unwrap_or_default()
            ),
        }
    };
    let b = &before.parsed.sample;
    assert_eq!(b.engine, Engine::LlamaCpp);
    assert!(before.parsed.exposition.truncated.is_none());
    assert_eq!((b.running, b.waiting), (Some(0.0), Some(0.0)));

    // One completion, bounded in tokens and time.
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(120))
        .no_proxy()
        .build()
        .unwrap();
    let resp: serde_json::Value = rt
        .block_on(async {
            client
                .post(format!("{url}/completion"))
                .json(&serde_json::json!({"prompt": "The capital of France is", "n_predict": 8, "temperature": 0}))
                .send()
                .await?
                .error_for_status()?
                .json()
                .await
        })
        .expect("completion");
    let predicted = resp["tokens_predicted"].as_f64().expect("tokens_predicted");
    let prompt_n = resp["timings"]["prompt_n"]
        .as_f64()
        .expect("timings.prompt_n");
    let prompt_ms = resp["timings"]["prompt_ms"].as_f64().unwrap();
    assert!(predicted >= 1.0 && prompt_n >= 1.0, "{resp}");

    let after = rt.block_on(s.scrape_metrics()).unwrap();
    let a = &after.parsed.sample;
    let d = |x: Option<f64>, y: Option<f64>| x.unwrap() - y.unwrap();
    assert_eq!(d(a.generation_tokens, b.generation_tokens), predicted);
    assert_eq!(d(a.prompt_tokens, b.prompt_tokens), prompt_n);
    // Prompt seconds moved by the request's own prompt time (printed with 6 digits).
    let dps = d(a.prompt_seconds, b.prompt_seconds);
    assert!(
        (dps - prompt_ms / 1000.0).abs() <= 1e-3 + 1e-5 * prompt_ms,
        "{dps} vs {prompt_ms} ms"
    );
    assert!(d(a.generation_seconds, b.generation_seconds) > 0.0);
    // One decode call per generated token after the first, plus the prompt batch (≥ predicted).
    let decodes = d(a.decode_calls, b.decode_calls);
    assert!(
        decodes >= predicted && decodes <= predicted + prompt_n,
        "{decodes} decodes for {predicted} tokens"
    );
    assert_eq!((a.running, a.waiting), (Some(0.0), Some(0.0)));
    assert!(engines::find_counter_resets(&[b.clone(), a.clone()]).is_empty());

    // Config: /props, /slots, /v1/models and the live process's argv.
    let props = rt.block_on(s.props()).unwrap();
    assert_eq!(props.total_slots, Some(2));
    assert_eq!(props.n_ctx_per_slot, Some(1024), "-c 2048 over 2 slots");
    assert_eq!(props.model_path.as_deref(), Some(server.model.as_str()));
    assert_eq!(props.endpoint_metrics, Some(true));
    let slots = rt.block_on(s.slots()).unwrap().expect("--slots given");
    assert_eq!(slots.len(), 2);
    assert!(slots.iter().all(|x| x.n_ctx == Some(1024)));
    let models = rt.block_on(s.models()).unwrap();
    assert_eq!(models.models[0].n_ctx_per_slot, Some(1024));
    let argv = engines::config::read_proc_cmdline(pid).unwrap();
    let (cfg, errs) = EngineConfig::gather(
        None,
        Some(&argv),
        Some(a),
        Some(&models),
        Some(&props),
        None,
    );
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(cfg.engine, Some(Engine::LlamaCpp));
    assert_eq!(
        cfg.n_parallel.as_ref().map(|k| (k.value, k.source)),
        Some((2, Source::PropsEndpoint))
    );
    assert_eq!(
        cfg.n_ctx.as_ref().map(|k| (k.value, k.source)),
        Some((2048, Source::ProcessCmdline))
    );
    assert_eq!(cfg.threads.as_ref().map(|k| k.value), Some(2));
    assert_eq!(cfg.n_ctx_per_slot.as_ref().map(|k| k.value), Some(1024));
    assert!(
        cfg.conflicts.is_empty(),
        "argv and /props agree: {:?}",
        cfg.conflicts
    );
    assert!(cfg.cache_reuse.is_none(), "not given, so unread");

    // Record both scrapes, read them back, replay: the same samples.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    let mut h = RecordingHeader::new(&url, 1.0, before.raw.t);
    h.cmdline = Some(argv);
    h.props = Some(rt.block_on(s.get_json("/props")).unwrap());
    let mut rec = Recorder::create(&path, &h).unwrap();
    for x in [&before, &after] {
        rec.record(&ScrapeRecord::from_fetch(&Ok(x.raw.clone()), 0.0))
            .unwrap();
    }
    drop(rec);
    let back = read_recording(&path).unwrap();
    let replayed: Vec<_> = back
        .replay()
        .into_iter()
        .map(|(_, r)| r.unwrap().sample)
        .collect();
    assert_eq!(replayed, vec![b.clone(), a.clone()]);
    let (cfg2, _) = back.header.config(replayed.last());
    assert_eq!(cfg2.n_parallel.map(|k| k.value), Some(2));
}
