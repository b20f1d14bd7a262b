//! Each typed document, read back from the command's real `--json` output: the library's struct
//! (with `deny_unknown_fields`) must take every key the command prints, and docs/json/<page>
//! must name every key.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::util::Headroom;

use testpeers::schema::undocumented;

/// Parses `bytes` as `T` and checks the page documents every key; returns the document.
fn read_back<T: serde::de::DeserializeOwned + serde::Serialize>(bytes: &[u8], page: &str) -> T {
    let doc: T = serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("{page}: the output does not read back: {e}"));
    let value: serde_json::Value = serde_json::from_slice(bytes).expect("JSON");
    // Reading back loses nothing: the typed document serializes to the same JSON.
    // Through text, as the command prints it: `to_value` would widen an f32 to its f64 digits
    // (1e-5 becomes 9.999999747378752e-6) where the printed text keeps the f32's own.
    let again: serde_json::Value =
        serde_json::from_str(&serde_json::to_string(&doc).expect("serialize")).expect("JSON");
    assert_eq!(again, value, "{page}");
    let missing = undocumented(&value, page, &[]);
    assert!(
        missing.is_empty(),
        "docs/json/{page} does not name {missing:?}"
    );
    doc
}

#[test]
fn cachehit_document_reads_back() {
    // Two replicas, three conversations of two turns sharing a 32-token prefix, counters for
    // both: every rung and gap is present.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let mut lines = vec![
        r#"{"stream":{"block_size":16,"tokenizer":"test"}}"#.to_string(),
        r#"{"replica":{"name":"a","num_blocks":4,"block_size":16}}"#.to_string(),
        r#"{"replica":{"name":"b","num_blocks":4,"block_size":16}}"#.to_string(),
    ];
    let mut k = 0;
    for turn in 0..2u32 {
        for c in 0..3u32 {
            let tokens: Vec<String> = (0..32u32)
                .chain((0..(20 * (turn + 1))).map(|i| 1000 * (c + 1) + i))
                .map(|t| t.to_string())
                .collect();
            lines.push(format!(
                r#"{{"request":{{"replica":"{}","conversation":"c{c}","tokens":[{}],"output_tokens":4}}}}"#,
                ["a", "b"][k % 2],
                tokens.join(",")
            ));
            k += 1;
        }
    }
    lines.push(r#"{"counters":{"replica":"a","prefix_hits":16,"prefix_queries":150}}"#.into());
    lines.push(r#"{"counters":{"replica":"b","prefix_hits":16,"prefix_queries":150}}"#.into());
    std::fs::write(&path, lines.join("\n")).unwrap();
    let out = Headroom::cmd(&["cachehit", path.to_str().unwrap(), "--json"]).stdout_bytes();
    let doc: cachehit::Ladder = read_back(&out, "cachehit.md");
    assert_eq!(doc.schema, cachehit::SCHEMA);
    assert!(doc.fleet.achieved.is_some() && !doc.gaps.is_empty());
}

#[test]
fn trace_documents_read_back() {
    for name in [
        "hta_v100_df_index_resolver.json.gz",
        "hta_mi250_minitoy_train_rocm6.2.json.gz",
        "tracelens_b200_eager_trace.json.gz",
    ] {
        let t = testpeers::fixture(&format!("traces/{name}"));
        let out = Headroom::cmd(&["trace", t.to_str().unwrap(), "--json", "--tokens", "64"])
            .stdout_bytes();
        let doc: trace::doc::TraceDoc = read_back(&out, "trace.md");
        assert_eq!(doc.schema, trace::doc::SCHEMA);
        assert_eq!(
            doc.kernels.len(),
            doc.kernels_total,
            "{name}: all rows in --json"
        );
    }
    // A window over ProfilerSteps: the window and its steps are documented too.
    let t = testpeers::fixture("traces/hta_v100_df_index_resolver.json.gz");
    let out =
        Headroom::cmd(&["trace", t.to_str().unwrap(), "--json", "--steps", "3..5"]).stdout_bytes();
    let doc: trace::doc::TraceDoc = read_back(&out, "trace.md");
    assert!(doc.window.is_some());
}

#[test]
fn gguf_document_reads_back() {
    let Some(model) = testpeers::peer("HEADROOM_MODEL") else {
        return;
    };
    let out = Headroom::cmd(&["gguf", &model, "--json"]).stdout_bytes();
    let doc: gguf::doc::GgufDoc = read_back(&out, "gguf.md");
    assert_eq!(doc.schema, gguf::doc::SCHEMA);
    // The metadata reads back with its GGUF types: the f32 epsilon stays an f32.
    let eps = doc
        .metadata
        .iter()
        .find(|e| e.key.ends_with("layer_norm_rms_epsilon"))
        .expect("an rms epsilon in a llama file");
    assert!(matches!(eps.value, gguf::Value::F32(_)), "{:?}", eps.value);
}

#[test]
fn logs_document_reads_back() {
    let log = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../telemetry/tests/data/llama-server-11434-restart.log");
    let out = Headroom::cmd(&["logs", "--file", log.to_str().unwrap(), "--json"]).stdout_bytes();
    let doc: telemetry::doc::LogsDoc = read_back(&out, "logs.md");
    assert_eq!(doc.schema, telemetry::doc::SCHEMA);
    assert!(doc.is_final);
    assert_eq!(doc.instances.len(), 2, "the log holds a restart");
}

#[test]
fn route_documents_read_back() {
    use std::io::{BufRead, BufReader};
    let mut child = Headroom::cmd(&[
        "route",
        "--listen",
        "127.0.0.1:0",
        "--backend",
        "http://127.0.0.1:9",
        "--workers",
        "1",
        "--json",
    ])
    .stdout_io(Stdio::piped())
    .stderr_io(Stdio::null())
    .spawn();
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let listening = lines.next().expect("a line").expect("read");
    let a: router::doc::RouteDoc = read_back(listening.as_bytes(), "route.md");
    let router::doc::RouteDoc::Listening { listen, .. } = &a else {
        panic!("the first line is not the listening one: {a:?}");
    };
    // The router watches for SIGINT once it serves: wait for its own /headroom/health to answer, or the
    // signal could arrive before the handler and kill it outright.
    let port: u16 = listen.rsplit(':').next().unwrap().parse().expect("a port");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while testpeers::get(port, "/headroom/health").is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "the router did not answer /headroom/health"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // SIGINT, as Ctrl-C sends it: the router drains and prints its shutdown line.
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let stopped = lines.next().expect("a second line").expect("read");
    assert!(child.wait().expect("wait").success());
    let a: router::doc::RouteDoc = read_back(listening.as_bytes(), "route.md");
    assert!(
        matches!(a, router::doc::RouteDoc::Listening { .. }),
        "{a:?}"
    );
    let b: router::doc::RouteDoc = read_back(stopped.as_bytes(), "route.md");
    assert!(matches!(b, router::doc::RouteDoc::Stopped { .. }), "{b:?}");
}

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

/// Every ceiling schema read back into physics::doc: catalog GPUs and models (dense, MoE, MLA,
/// sliding window), options, no GPU, CPU only, the RAM bound, the GGUF file, ram, duty
/// (with and without a wait) and the list.
#[test]
fn ceiling_documents_read_back() {
    use physics::doc::{CeilingDoc, DutyDoc, ListDoc, RamDoc};
    let ordinary = [
        "--gpu H100-SXM --model llama-3.1-8b",
        "--gpu H200 --model deepseek-v3 --ram-bandwidth 42 --price-per-hour 3",
        "--gpu l40s --model gemma-3-27b --max-model-len 32768 --kv-cache-dtype fp8 --context 8192",
        "--gpu h100-sxm --model qwen3-30b-a3b --tp 2 --dtype fp8 --prompt-tokens 2048",
        "--gpu tesla-p40 --model mixtral-8x7b --quantization q4_k --ram-bandwidth 20 --shared-gb 0",
        "--model gpt-oss-120b",
        "--gpu none --ram-bandwidth 80 --model llama-3.1-8b --quantization Q4_K_M",
    ];
    let mut docs = vec![];
    for line in ordinary {
        let mut args = words("ceiling --json");
        args.extend(words(line));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let doc: CeilingDoc = read_back(&Headroom::cmd(&args).stdout_bytes(), "ceiling.md");
        assert_eq!(doc.schema, physics::doc::CEILING, "{line}");
        docs.push(doc);
    }
    // What each case must show: known ceilings, a RAM bound, and the unknowns with reasons.
    assert!(docs[0].ceilings.get().is_some());
    assert!(matches!(docs[1].ram_bound, Some(physics::Known::Known(_))));
    assert!(docs[5].ceilings.reason().is_some() && docs[5].model_figures.is_some());
    assert!(docs[6].options.cpu_only && docs[6].ceilings.reason().is_some());
    assert!(matches!(docs[6].ram_bound, Some(physics::Known::Known(_))));
    // A GPU or model the catalog lacks is an error before any document (never a neighbour's).
    for line in [
        "ceiling --json --gpu nosuchgpu --model llama-3.1-8b",
        "ceiling --json --gpu h100-sxm --model nosuchmodel --ram-bandwidth 42",
    ] {
        let args = words(line);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = crate::util::headroom(&args);
        assert_eq!(code, 1, "{line}: {err}");
        assert!(out.is_empty(), "{line}: {out}");
    }
    if let Some(model) = testpeers::peer("HEADROOM_MODEL") {
        let out = Headroom::cmd(&["ceiling", "--gpu", "RTX-3090", "--gguf", &model, "--json"])
            .stdout_bytes();
        let doc: CeilingDoc = read_back(&out, "ceiling.md");
        assert!(doc.model_entry.is_none() && doc.ceilings.get().is_some());
    }
    let ram = "ceiling ram --experts-per-token 240 --expert-params 35.4e6 --bits 3 \
               --bandwidth-gbps 42 --json";
    let args = words(ram);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let doc: RamDoc = read_back(&Headroom::cmd(&args).stdout_bytes(), "ceiling.md");
    assert_eq!(doc.schema, physics::doc::RAM);
    for wait in ["400", "0"] {
        let duty = format!(
            "ceiling duty --arena-slots 6574 --experts 24576 --lookups 480 --slab-mib 2.344 \
             --compute-ms 100 --wait-ms {wait} --json"
        );
        let args = words(&duty);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let doc: DutyDoc = read_back(&Headroom::cmd(&args).stdout_bytes(), "ceiling.md");
        assert_eq!(doc.schema, physics::doc::DUTY);
        assert_eq!(doc.duty.gather_gbps.is_none(), wait == "0");
    }
    let doc: ListDoc = read_back(
        &Headroom::cmd(&["ceiling", "--list", "--json"]).stdout_bytes(),
        "ceiling.md",
    );
    assert_eq!(doc.schema, physics::doc::LIST);
    assert!(!doc.gpus.is_empty() && !doc.models.is_empty());
}

#[test]
fn emulate_documents_read_back() {
    use emulator::doc::{EmulateDoc, ScenariosDoc, SCHEMA, SCHEMA_SCENARIOS};
    let doc: ScenariosDoc = read_back(
        &Headroom::cmd(&["emulate", "--list-scenarios", "--json"]).stdout_bytes(),
        "emulate.md",
    );
    assert_eq!(doc.schema, SCHEMA_SCENARIOS);
    assert_eq!(doc.scenarios.len(), emulator::scenario::all().len());
    // The served deployment: one line, printed once it listens; --duration ends it.
    let doc: EmulateDoc = read_back(
        &Headroom::cmd(&[
            "emulate",
            "--scenario",
            "kv-pressure",
            "--port",
            "0",
            "--duration",
            "1s",
            "--json",
        ])
        .stdout_bytes(),
        "emulate.md",
    );
    assert_eq!(doc.schema, SCHEMA);
    assert_eq!(doc.scenario.as_deref(), Some("kv-pressure"));
    assert!(doc.simulated && doc.url.starts_with("http://"));
}

#[test]
fn demo_documents_read_back() {
    use emulator::demo::{Demo, LoadReport};
    // Both load drivers: replayed inside the engine (the default) and sent over HTTP. The
    // before and after diagnose documents are checked against diagnose.md by the diagnose
    // tests; here the whole demo document reads back and prints the same JSON again.
    for http in [false, true] {
        let mut args = vec!["demo", "--scenario", "kv-pressure", "--json", "--quiet"];
        if http {
            args.push("--http-load");
        }
        let out = Headroom::cmd(&args).stdout_bytes();
        let doc: Demo = serde_json::from_slice(&out)
            .unwrap_or_else(|e| panic!("demo.md: the output does not read back: {e}"));
        // The wire format against the typed document's own printing.
        let value: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
        let again: serde_json::Value =
            serde_json::from_str(&serde_json::to_string(&doc).unwrap()).unwrap();
        assert_eq!(again, value, "http {http}");
        assert_eq!(doc.schema, emulator::demo::SCHEMA);
        for load in std::iter::once(&doc.load.before).chain(doc.load.after.as_ref()) {
            match (http, load) {
                (false, LoadReport::Engine { sent, refused }) => {
                    assert!(*sent > 0 && *refused == 0, "{load:?}")
                }
                (true, LoadReport::Http(r)) => {
                    assert!(r.sent > 0 && r.completed > 0, "{r:?}");
                    assert_eq!(r.sent, r.completed + r.cut + r.failed, "{r:?}");
                }
                _ => panic!("http {http}: {load:?}"),
            }
        }
    }
}
