//! Each typed document, read back from the command's real `--json` output: the library's struct
//! (with `deny_unknown_fields`) must take every key the command prints, and docs/json/<page>
//! must name every key.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use testpeers::schema::undocumented;

fn headroom(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_headroom"))
        .args(args)
        .output()
        .expect("run headroom");
    assert!(
        out.status.success(),
        "headroom {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Parses `bytes` as `T` and checks the page documents every key; returns the document.
fn read_back<T: serde::de::DeserializeOwned + serde::Serialize>(bytes: &[u8], page: &str) -> T {
    let doc: T = serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("{page}: the output does not read back: {e}"));
    let value: serde_json::Value = serde_json::from_slice(bytes).expect("JSON");
    // Reading back loses nothing: the typed document serializes to the same JSON.
    assert_eq!(
        serde_json::to_value(&doc).expect("serialize"),
        value,
        "{page}"
    );
    let missing = undocumented(&value, page, &[]);
    assert!(
        missing.is_empty(),
        "docs/json/{page} does not name {missing:?}"
    );
    doc
}

#[test]
fn trace_documents_read_back() {
    for name in [
        "hta_v100_df_index_resolver.json.gz",
        "hta_mi250_minitoy_train_rocm6.2.json.gz",
        "tracelens_b200_eager_trace.json.gz",
    ] {
        let t = testpeers::fixture(&format!("traces/{name}"));
        let out = headroom(&["trace", t.to_str().unwrap(), "--json", "--tokens", "64"]);
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
    let out = headroom(&["trace", t.to_str().unwrap(), "--json", "--steps", "3..5"]);
    let doc: trace::doc::TraceDoc = read_back(&out, "trace.md");
    assert!(doc.window.is_some());
}

#[test]
fn gguf_document_reads_back() {
    let Some(model) = testpeers::peer("HEADROOM_MODEL") else {
        return;
    };
    let out = headroom(&["gguf", &model, "--json"]);
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
    let out = headroom(&["logs", "--file", log.to_str().unwrap(), "--json"]);
    let doc: telemetry::doc::LogsDoc = read_back(&out, "logs.md");
    assert_eq!(doc.schema, telemetry::doc::SCHEMA);
    assert!(doc.is_final);
    assert_eq!(doc.instances.len(), 2, "the log holds a restart");
}

#[test]
fn route_documents_read_back() {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_headroom"))
        .args([
            "route",
            "--listen",
            "127.0.0.1:0",
            "--backend",
            "http://127.0.0.1:9",
            "--workers",
            "1",
            "--json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the router");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let listening = lines.next().expect("a line").expect("read");
    let a: router::doc::RouteDoc = read_back(listening.as_bytes(), "route.md");
    let router::doc::RouteDoc::Listening { listen, .. } = &a else {
        panic!("the first line is not the listening one: {a:?}");
    };
    // The router watches for SIGINT once it serves: wait for its own /health to answer, or the
    // signal could arrive before the handler and kill it outright.
    let port: u16 = listen.rsplit(':').next().unwrap().parse().expect("a port");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while testpeers::get(port, "/health").is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "the router did not answer /health"
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

/// ceiling and emulate still build their JSON in the command (not yet typed); their pages
/// must still name every key.
#[test]
fn ceiling_and_emulate_pages_name_every_key() {
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "ceiling",
                "--gpu",
                "H100-SXM",
                "--model",
                "llama-3.1-8b",
                "--json",
            ],
            "ceiling.md",
        ),
        (
            &[
                "ceiling",
                "--model",
                "deepseek-v3",
                "--gpu",
                "H200",
                "--ram-bandwidth",
                "42",
                "--price-per-hour",
                "3",
                "--json",
            ],
            "ceiling.md",
        ),
        (&["ceiling", "--list", "--json"], "ceiling.md"),
        (
            &[
                "ceiling",
                "ram",
                "--experts-per-token",
                "240",
                "--expert-params",
                "35.4e6",
                "--bits",
                "3",
                "--bandwidth-gbps",
                "42",
                "--json",
            ],
            "ceiling.md",
        ),
        (
            &[
                "ceiling",
                "duty",
                "--arena-slots",
                "6574",
                "--experts",
                "24576",
                "--lookups",
                "480",
                "--slab-mib",
                "2.344",
                "--compute-ms",
                "100",
                "--wait-ms",
                "400",
                "--json",
            ],
            "ceiling.md",
        ),
        (&["emulate", "--list-scenarios", "--json"], "emulate.md"),
    ];
    for (args, page) in cases {
        let out = headroom(args);
        let v: serde_json::Value = serde_json::from_slice(&out).expect("JSON");
        let missing = undocumented(&v, page, &[]);
        assert!(
            missing.is_empty(),
            "{}: docs/json/{page} does not name {missing:?}",
            args.join(" ")
        );
    }
}
