//! The emulator over HTTP on loopback: the OpenAI endpoints with loadgen's real client, the
//! /metrics body through the engines parser, and the simulated clock in the timestamps.

use std::net::SocketAddr;
use std::time::Duration;

use emulator::hardware::configure;
use emulator::server::{EmulatorServer, ServerConfig};
use emulator::ArgOverrides;
use loadgen::traffic::{drive, Arrival, DriveOptions, Families, Length, LoadShape};
use loadgen::{ChatMessage, Client, ClientConfig, StreamRequest};
use serde_json::json;

const SPEED: f64 = 50.0;

async fn start(o: ArgOverrides) -> EmulatorServer {
    let c = configure("H100-SXM", "llama-3.1-8b", &o).unwrap();
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    EmulatorServer::start(
        ServerConfig {
            configured: c,
            speed: SPEED,
            drive: None,
            ledger_prefix: None,
        },
        addr,
    )
    .await
    .unwrap()
}

fn client(url: &str) -> Client {
    Client::new(
        url,
        ClientConfig {
            first_token_timeout: Duration::from_secs(20),
            idle_timeout: Duration::from_secs(20),
            max_in_flight: 64,
            ..Default::default()
        },
    )
    .unwrap()
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn openai_endpoints_and_usage() {
    rt().block_on(async {
        let srv = start(ArgOverrides {
            max_model_len: Some(4096),
            ..Default::default()
        })
        .await;
        let c = client(&srv.url());
        let models = c.get_json("/v1/models").await.unwrap();
        assert_eq!(models["data"][0]["id"], "llama-3.1-8b");
        assert_eq!(models["data"][0]["max_model_len"], 4096);
        assert_eq!(models["data"][0]["owned_by"], "vllm");
        let info = loadgen::discover(&c).await.unwrap();
        assert_eq!(info.engine, Some(loadgen::Engine::Vllm));
        assert_eq!(info.context.unwrap().tokens, 4096);
        let v = c.get_json("/version").await.unwrap();
        assert_eq!(v["simulated"], true);
        // Its own document, typed, unknown keys refused.
        let state: emulator::doc::EmulatorState =
            serde_json::from_value(c.get_json("/emulator").await.unwrap()).unwrap();
        assert!(state.simulated);
        assert_eq!(state.args.max_model_len, 4096);
        assert!(
            state.command_line.contains("--max-model-len 4096"),
            "{state:?}"
        );
        assert!(state.figures.decode_ceiling_tps > 0.0 && state.sim_seconds >= 0.0);
        assert!(c.get_text("/health").await.unwrap().is_empty());

        // Tokenize: one token per word.
        let t = c
            .post_json(
                "/tokenize",
                &json!({"model": "llama-3.1-8b", "prompt": "one two three"}),
            )
            .await
            .unwrap();
        assert_eq!(t["count"], 3);

        // The same 200-word prompt twice: the second is served from the prefix cache (whole
        // 16-token blocks, never the last token).
        let prompt: String = (0..200).map(|i| format!("p{i} ")).collect();
        let body = json!({"prompt": prompt, "max_tokens": 12, "stream": false});
        let a = c.post_json("/v1/completions", &body).await.unwrap();
        assert_eq!(a["usage"]["prompt_tokens"], 200);
        assert_eq!(a["usage"]["completion_tokens"], 12);
        assert_eq!(a["choices"][0]["finish_reason"], "length");
        assert_eq!(
            a["choices"][0]["text"]
                .as_str()
                .unwrap()
                .split_whitespace()
                .count(),
            12
        );
        let b = c.post_json("/v1/completions", &body).await.unwrap();
        assert_eq!(b["usage"]["prompt_tokens_details"]["cached_tokens"], 192);

        // Streaming, through loadgen's own SSE client.
        let mut req = StreamRequest::text("hello there streaming world", 20);
        req.model = Some("llama-3.1-8b".into());
        let rec = c.stream(&req).await.unwrap();
        assert_eq!(rec.completion_tokens, 20);
        assert_eq!(rec.token_times.len(), 20);
        assert_eq!(rec.prompt_tokens, Some(4));
        assert_eq!(rec.finish_reason.as_deref(), Some("length"));
        let chat = StreamRequest::chat(
            vec![
                ChatMessage::new("system", "be brief"),
                ChatMessage::new("user", "hi"),
            ],
            7,
        );
        let rec = c.stream(&chat).await.unwrap();
        assert_eq!(rec.completion_tokens, 7);
        // <|system|> be brief <|user|> hi <|assistant|>
        assert_eq!(rec.prompt_tokens, Some(6));
        let full = c
            .post_json(
                "/v1/chat/completions",
                &json!({"messages": [{"role": "user", "content": "x y"}], "max_tokens": 3}),
            )
            .await
            .unwrap();
        assert_eq!(full["object"], "chat.completion");
        assert_eq!(full["usage"]["completion_tokens"], 3);

        // Errors in vLLM's words.
        for (path, body, status, words) in [
            (
                "/v1/completions",
                json!({"prompt": "x", "model": "nope"}),
                404,
                "does not exist",
            ),
            (
                "/v1/completions",
                json!({"prompt": "a b", "max_tokens": 5000}),
                400,
                "maximum context length is 4096",
            ),
            (
                "/v1/chat/completions",
                json!({"messages": "x"}),
                400,
                "messages is required",
            ),
        ] {
            match c.post_json(path, &body).await {
                Err(loadgen::Error::Http {
                    status: s, message, ..
                }) => {
                    assert_eq!(s, status, "{message}");
                    assert!(message.contains(words), "{message}");
                }
                other => panic!("{path} {body}: {other:?}"),
            }
        }

        // /metrics: the engines parser reads what was done.
        let text = c.get_text("/metrics").await.unwrap();
        let p = engines::parse_metrics(&text, 0.0).unwrap();
        let s = p.sample;
        assert_eq!(s.engine_generation.as_deref(), Some("v1"));
        assert_eq!(s.requests_finished, Some(5.0));
        assert_eq!(s.generation_tokens, Some(12.0 + 12.0 + 20.0 + 7.0 + 3.0));
        assert_eq!(s.prefix_hits, Some(192.0));
        assert_eq!(
            s.config_labels.get("block_size").map(String::as_str),
            Some("16")
        );
        assert!(s.steps.unwrap() >= 54.0 && s.steps_decode.unwrap() > 0.0);
        assert_eq!(s.prompt_len.unwrap().count, 5.0);
        srv.shutdown();
    });
}

#[test]
fn the_clock_gauge_runs_on_the_simulated_clock() {
    rt().block_on(async {
        let srv = start(ArgOverrides::default()).await;
        let c = client(&srv.url());
        let ts = |text: &str| -> f64 {
            let p = engines::parse_metrics(text, 0.0).unwrap();
            assert!(p.exposition.samples().all(|s| s.timestamp.is_none()));
            p.sample.t
        };
        let t0 = ts(&c.get_text("/metrics").await.unwrap());
        let wall = std::time::Instant::now();
        tokio::time::sleep(Duration::from_millis(400)).await;
        let t1 = ts(&c.get_text("/metrics").await.unwrap());
        let sim = t1 - t0;
        let expect = wall.elapsed().as_secs_f64() * SPEED;
        assert!(
            (sim - expect).abs() < 0.25 * expect,
            "sim {sim:.2}s vs {expect:.2}s"
        );
        srv.shutdown();
    });
}

#[test]
fn a_dropped_client_aborts_its_request() {
    rt().block_on(async {
        let srv = start(ArgOverrides::default()).await;
        let c = client(&srv.url());
        let body = json!({"prompt": "a b c", "max_tokens": 4000, "stream": true});
        let url = format!("{}/v1/completions", srv.url());
        let resp = reqwest::Client::new()
            .post(&url)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        drop(resp);
        let mut aborted = 0.0;
        for _ in 0..100 {
            tokio::time::sleep(Duration::from_millis(20)).await;
            let text = c.get_text("/metrics").await.unwrap();
            let line = text
                .lines()
                .find(|l| l.starts_with("vllm:request_success_total") && l.contains("\"abort\""))
                .unwrap()
                .to_string();
            aborted = line.split(' ').nth(1).unwrap().parse().unwrap();
            if aborted == 1.0 {
                break;
            }
        }
        assert_eq!(aborted, 1.0);
        assert_eq!(srv.snapshot().running, 0);
        srv.shutdown();
    });
}

#[test]
fn loadgen_drives_the_emulator() {
    rt().block_on(async {
        let srv = start(ArgOverrides::default()).await;
        let shape = LoadShape {
            arrival: Arrival::Closed {
                clients: 16,
                think_s: 0.0,
            },
            prompt_words: Length::Uniform { min: 100, max: 300 },
            output_tokens: Length::Uniform { min: 20, max: 60 },
            families: Some(Families {
                count: 2,
                shared_words: 64,
            }),
            chat: false,
            stream: false,
        };
        let r = drive(
            client(&srv.url()),
            &shape,
            7,
            &DriveOptions {
                time_scale: SPEED,
                duration: Duration::from_millis(1500),
                model: None,
                max_in_flight: 64,
                stop: None,
            },
        )
        .await;
        assert_eq!(r.failed, 0, "{:?}", r.first_error);
        assert!(r.completed > 50, "{r:?}");
        assert!(r.cached_tokens > 0, "{r:?}");
        let mut stream_shape = shape.clone();
        stream_shape.stream = true;
        stream_shape.chat = true;
        let r = drive(
            client(&srv.url()),
            &stream_shape,
            8,
            &DriveOptions {
                time_scale: SPEED,
                duration: Duration::from_millis(800),
                model: Some("llama-3.1-8b".into()),
                max_in_flight: 64,
                stop: None,
            },
        )
        .await;
        assert_eq!(r.failed, 0, "{:?}", r.first_error);
        assert!(r.completed > 10, "{r:?}");
        // A stop ends a long drive at once; open requests are cut, not failed.
        let (tx, rx) = tokio::sync::watch::channel(false);
        let c = client(&srv.url());
        let long = shape.clone();
        let t = std::time::Instant::now();
        let task = tokio::spawn(async move {
            drive(
                c,
                &long,
                9,
                &DriveOptions {
                    time_scale: 1.0,
                    duration: Duration::from_secs(60),
                    model: None,
                    max_in_flight: 64,
                    stop: Some(rx),
                },
            )
            .await
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        tx.send(true).unwrap();
        let r = task.await.unwrap();
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        assert_eq!(r.failed, 0, "{:?}", r.first_error);
        assert!(r.cut > 0 && r.sent >= 16, "{r:?}");
        srv.shutdown();
    });
}

#[test]
fn a_driven_run_steps_exactly_like_its_virtual_replay() {
    // The server replays the scenario's load in simulated time; its trajectory (steps and tokens)
    // must be the one the virtual run computes, whatever the wall clock did.
    let s = emulator::scenario::find("concurrency-saturation").unwrap();
    let c = configure(s.gpu, s.model, &s.args).unwrap();
    let (steps, gen) = rt().block_on(async {
        let srv = EmulatorServer::start(
            ServerConfig {
                configured: c.clone(),
                speed: 200.0,
                drive: Some((s.load.clone(), s.seed)),
                ledger_prefix: None,
            },
            "127.0.0.1:0".parse().unwrap(),
        )
        .await
        .unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let text = client(&srv.url()).get_text("/metrics").await.unwrap();
        srv.shutdown();
        let p = engines::parse_metrics(&text, 0.0).unwrap().sample;
        (p.steps.unwrap() as u64, p.generation_tokens.unwrap())
    });
    assert!(steps > 100, "{steps}");
    // Replay: the same engine and load, step by step, to the same step count.
    let mut e = c.engine();
    let mut load = emulator::sim::SimLoad::new(&s.load, s.seed, 0.0);
    let mut n = 0;
    while n < steps {
        let now = e.now();
        load.submit_due(&mut e, now);
        if !e.has_work() {
            e.advance_to(load.next_time().unwrap());
            continue;
        }
        let out = e.step();
        if out.scheduled > 0 {
            n += 1;
        }
        for f in &out.finished {
            load.on_finished(f.id, e.now());
        }
    }
    assert_eq!(e.metrics().generation_tokens, gen);
}
