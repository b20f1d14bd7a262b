//! `headroom logs` end to end. The live test runs a real llama-server (HEADROOM_LLAMA_SERVER,
//! HEADROOM_MODEL), drives it (sequential, concurrent and repeated prompts), restarts it onto
//! the same log file, and checks what `headroom logs --json` reads against the server's own
//! numbers: each request's `timings` in its HTTP response, and the /metrics counters scraped at
//! the end of each instance. The other tests need no peer.

use crate::util::Headroom;
use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use telemetry::doc::{LogsDoc, Source};
use telemetry::{CachedFrom, Request, SlotSelection, StartReason};

/// A scratch folder removed when the test ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let p = std::env::temp_dir().join(format!(
            "headroom-logs-{tag}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn peers() -> Option<(PathBuf, PathBuf)> {
    let server = testpeers::peer("HEADROOM_LLAMA_SERVER")?;
    let model = testpeers::peer("HEADROOM_MODEL")?;
    Some((server.into(), model.into()))
}

/// A llama-server whose stderr is appended to `log`; killed when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server(server: &Path, model: &Path, log: &Path, extra: &[&str]) -> Server {
    let port = testpeers::free_port();
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    let child = Command::new(server)
        .args(["-m"])
        .arg(model)
        // One thread: ggml's spinning workers crawl when the cores are shared (CI runs tests
        // in parallel); the comparisons do not depend on speed.
        .args([
            "-np",
            "2",
            "-c",
            "4096",
            "-t",
            "1",
            "--metrics",
            "--host",
            "127.0.0.1",
        ])
        .args(["--port", &port.to_string()])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::from(file))
        .spawn()
        .expect("start llama-server");
    let mut s = Server { child, port };
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Ok(Some(status)) = s.child.try_wait() {
            panic!(
                "llama-server exited during startup ({status}); see {}",
                log.display()
            );
        }
        if let Ok((200, _)) = http(port, "GET", "/health", None) {
            return s;
        }
        assert!(
            Instant::now() < deadline,
            "llama-server not healthy after 120 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Minimal HTTP/1.1 over loopback (Connection: close; Content-Length or chunked bodies).
fn http(port: u16, method: &str, path: &str, body: Option<&str>) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(180)))?;
    let body = body.unwrap_or("");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, rest) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no HTTP header end"))?;
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other("no status"))?;
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut out = String::new();
        let mut r = rest;
        while let Some((size, tail)) = r.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 || tail.len() < n {
                break;
            }
            out.push_str(&tail[..n]);
            r = tail[n..].trim_start_matches("\r\n");
        }
        out
    } else {
        rest.to_string()
    };
    Ok((status, body))
}

/// What the server said about one request (its response's `timings`; llama-server's own
/// fields, of which these are read).
#[derive(Debug, Clone, Copy, serde::Deserialize)]
struct Timings {
    prompt_n: u64,
    prompt_ms: f64,
    predicted_n: u64,
    predicted_ms: f64,
    cache_n: u64,
}

fn chat(port: u16, prompt: &str, max_tokens: u32) -> Timings {
    let body = serde_json::json!({
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": max_tokens,
        "temperature": 0,
    })
    .to_string();
    let (status, text) = http(port, "POST", "/v1/chat/completions", Some(&body)).unwrap();
    assert_eq!(status, 200, "{text}");
    #[derive(serde::Deserialize)]
    struct Completion {
        timings: Timings,
    }
    let c: Completion = serde_json::from_str(&text).unwrap();
    c.timings
}

fn metrics(port: u16) -> HashMap<String, f64> {
    let (status, text) = http(port, "GET", "/metrics", None).unwrap();
    assert_eq!(status, 200);
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (k, v) = l.split_once(' ')?;
            Some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

/// One instance's traffic and its /metrics scrapes between phases.
struct Run {
    start: HashMap<String, f64>,
    seq_a: Vec<Timings>,
    after_a: HashMap<String, f64>,
    pair: [Timings; 2],
    after_pair: HashMap<String, f64>,
    seq_b: Vec<Timings>,
    end: HashMap<String, f64>,
}

impl Run {
    fn all(&self) -> Vec<Timings> {
        self.seq_a
            .iter()
            .chain(&self.pair)
            .chain(&self.seq_b)
            .copied()
            .collect()
    }
}

/// Sequential requests, a concurrent pair, sequential requests; /metrics between phases.
fn drive(port: u16, seq_a: &[(&str, u32)], pair: [(&str, u32); 2], seq_b: &[(&str, u32)]) -> Run {
    let start = metrics(port);
    let seq_a = seq_a.iter().map(|&(p, n)| chat(port, p, n)).collect();
    let after_a = metrics(port);
    let pair = concurrent(port, pair[0], pair[1]);
    let after_pair = metrics(port);
    let seq_b = seq_b.iter().map(|&(p, n)| chat(port, p, n)).collect();
    let end = metrics(port);
    Run {
        start,
        seq_a,
        after_a,
        pair,
        after_pair,
        seq_b,
        end,
    }
}

/// Two requests at once, on the two slots.
fn concurrent(port: u16, a: (&str, u32), b: (&str, u32)) -> [Timings; 2] {
    let (pa, na) = (a.0.to_string(), a.1);
    let h = std::thread::spawn(move || chat(port, &pa, na));
    let tb = chat(port, b.0, b.1);
    [h.join().unwrap(), tb]
}

const SEA: &str = "Tell me about the sea in two sentences.";
const LONG: &str = "Summarise the following notes. The river starts in the high mountains where \
snow melts every spring, runs through three valleys with old stone bridges, feeds a lake that \
the village uses for fishing and for the mill, then turns east through farmland where wheat, \
barley and sunflowers grow in long strips. Each summer the level drops and the farmers argue \
about irrigation; each autumn the rains return and the ferry resumes its crossing near the \
ruined tower. Travellers write that the light on the water at dusk is the best reason to visit, \
and that the inn by the ferry serves trout, bread and a sour cherry soup.";

/// |a − b| within the printing precision: `b` printed with 6 significant digits (C++ stream
/// default), `a` summed from `n` values printed with 2 decimals (±0.005 each) in `unit`s of b.
fn close(a: f64, b: f64, n: usize, unit: f64) -> bool {
    let six_digits = if b == 0.0 {
        0.0
    } else {
        0.5 * 10f64.powi(b.abs().log10().floor() as i32 - 5)
    };
    (a - b).abs() <= six_digits + n as f64 * 0.005 * unit + 1e-9
}

#[test]
fn live_llama_server_log_matches_its_own_counters() {
    let _g = testpeers::serial();
    let Some((server, model)) = peers() else {
        return;
    };
    let dir = Scratch::new("live");
    let log = dir.0.join("llama-server.log");

    // Instance 1: sequential, a repeated prompt (cache reuse), two at once, a long prompt.
    let s1 = start_server(&server, &model, &log, &[]);
    let i1 = drive(
        s1.port,
        &[(SEA, 16), (SEA, 16)],
        [(LONG, 16), ("Count from one to ten.", 16)],
        &[(&format!("{LONG} Answer in French."), 8)],
    );
    drop(s1);

    // Instance 2, appended to the same file: task ids start again from 0.
    let s2 = start_server(&server, &model, &log, &[]);
    let i2 = drive(
        s2.port,
        &[("Name three colours.", 12)],
        [(SEA, 12), (LONG, 12)],
        &[(SEA, 12)],
    );
    drop(s2);

    let out = Headroom::new()
        .args(["logs", "--json", "--file"])
        .arg(&log)
        .output_ok();
    let doc: LogsDoc = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc.schema, telemetry::doc::SCHEMA);
    let instances = &doc.instances;
    assert_eq!(instances.len(), 2, "one instance per server process");

    for (k, (inst, run)) in instances.iter().zip([&i1, &i2]).enumerate() {
        let ctx = format!("instance {}", k + 1);
        let sent = &run.all();
        let m = &run.end;
        assert_eq!(inst.instance.started_by, StartReason::Startup, "{ctx}");
        assert!(inst.instance.model_loaded, "{ctx}");
        let reqs = &inst.instance.requests;
        assert_eq!(
            reqs.len(),
            sent.len(),
            "{ctx}: every request, and no other, found"
        );

        // Each request's printed timings match the server's own per-request timings.
        let mut unmatched: Vec<&Request> = reqs.iter().collect();
        for t in sent.iter() {
            let pos = unmatched.iter().position(|r| {
                r.prompt_tokens.map(u64::from) == Some(t.prompt_n)
                    && r.gen_tokens.map(u64::from) == Some(t.predicted_n)
                    && (r.prompt_ms.unwrap() - t.prompt_ms).abs() <= 0.005 + 1e-9
                    && (r.gen_ms.unwrap() - t.predicted_ms).abs() <= 0.005 + 1e-9
                    && r.cached_tokens.map(u64::from) == Some(t.cache_n)
            });
            let pos =
                pos.unwrap_or_else(|| panic!("{ctx}: no log request matches {t:?} in {reqs:#?}"));
            unmatched.remove(pos);
        }

        // Per instance, the sums equal the server's /metrics counters.
        let tot = &inst.envelope.totals;
        let n = sent.len();
        let metric = |name: &str| m[&format!("llamacpp:{name}")];
        assert_eq!(tot.requests, n, "{ctx}");
        assert_eq!(
            tot.prompt_tokens as f64,
            metric("prompt_tokens_total"),
            "{ctx}: prompt tokens"
        );
        assert_eq!(
            tot.gen_tokens as f64,
            metric("tokens_predicted_total"),
            "{ctx}: generated tokens"
        );
        let gen_s = tot.gen_ms / 1000.0;
        assert!(
            close(gen_s, metric("tokens_predicted_seconds_total"), n, 1e-3),
            "{ctx}: generation seconds {gen_s} vs {}",
            metric("tokens_predicted_seconds_total")
        );
        assert_eq!(
            inst.envelope.prefix_cache.cached_tokens as f64,
            metric("prompt_tokens_cached_total"),
            "{ctx}: cached tokens"
        );
        // Prompt seconds. This build's counter times batch decode windows
        // (server-context.cpp metrics_queue_prompt / metrics_flush_prompt); print_timings
        // times each slot from its launch to its first sampled token. Sequential requests:
        // equal up to that scheduling margin. Two prompts sharing batches: each slot counts
        // the shared time, so the log's sum exceeds the counter by the overlap.
        let prompt_s = tot.prompt_ms / 1000.0;
        let seq: Vec<Timings> = run.seq_a.iter().chain(&run.seq_b).copied().collect();
        let seq_log_s = seq.iter().map(|t| t.prompt_ms).sum::<f64>() / 1000.0;
        let d = |a: &HashMap<String, f64>, b: &HashMap<String, f64>| {
            b["llamacpp:prompt_seconds_total"] - a["llamacpp:prompt_seconds_total"]
        };
        let seq_counter_s = d(&run.start, &run.after_a) + d(&run.after_pair, &run.end);
        let pair_log_s = run.pair.iter().map(|t| t.prompt_ms).sum::<f64>() / 1000.0;
        let pair_counter_s = d(&run.after_a, &run.after_pair);
        eprintln!(
            "{ctx}: prompt seconds, log vs /metrics: sequential {seq_log_s:.6} vs \
             {seq_counter_s:.6}; concurrent pair {pair_log_s:.6} vs {pair_counter_s:.6}; \
             instance {prompt_s:.6} vs {}",
            metric("prompt_seconds_total")
        );
        let margin_s = 0.005 * seq.len() as f64; // 5 ms of scheduling per request
        assert!(
            seq_log_s >= seq_counter_s - 1e-3 && seq_log_s <= seq_counter_s + margin_s + 1e-3,
            "{ctx}: sequential prompt seconds {seq_log_s} vs {seq_counter_s}"
        );
        assert!(
            pair_log_s >= pair_counter_s - 1e-3,
            "{ctx}: concurrent prompt seconds {pair_log_s} vs {pair_counter_s}"
        );

        let env = &inst.envelope;
        assert_eq!(env.requests_seen, n, "{ctx}");
        assert_eq!(env.requests_timed, n, "{ctx}");
        assert!(env.decode_tps_median.unwrap() > 0.0, "{ctx}");
        assert!(env.graphs_reused.as_ref().unwrap().nonzero > 0, "{ctx}");
        let longest = env.prompt_tps_at_longest.as_ref().unwrap();
        let max_prompt = sent.iter().map(|t| t.prompt_n).max().unwrap();
        assert_eq!(longest.prompt_tokens_max, max_prompt, "{ctx}");
        // The repeated prompt went to the slot holding it.
        assert!(env.prefix_cache.lcp_selections >= 1, "{ctx}");
        assert!(env.prefix_cache.cached_tokens > 0, "{ctx}");
    }
    // Both instances ran slots 0 and 1 (the concurrent pair).
    for inst in instances {
        let mut slots: Vec<u32> = inst
            .instance
            .requests
            .iter()
            .filter_map(|r| r.slot)
            .collect();
        slots.sort();
        slots.dedup();
        assert_eq!(slots, [0, 1]);
    }

    // Verbosity: this build prints print_timing at its default (info, -lv 3), not at -lv 2.
    let quiet = dir.0.join("quiet.log");
    let s3 = start_server(&server, &model, &quiet, &["-lv", "2"]);
    chat(s3.port, SEA, 4);
    drop(s3);
    let text = std::fs::read_to_string(&quiet).unwrap();
    assert!(!text.contains("print_timing"), "-lv 2 printed timings");
    assert!(std::fs::read_to_string(&log)
        .unwrap()
        .contains("slot print_timing"));
}

const SAMPLE: &str = "\
0.00.004.579 I srv    load_model: loading model '/m/SmolLM2-135M-Instruct.Q4_1.gguf'
0.00.400.888 I srv  llama_server: model loaded
0.00.554.971 I slot get_availabl: id  1 | task -1 | selected slot by LRU, t_last = -1
0.00.555.142 I slot launch_slot_: id  1 | task 0 | processing task, is_child = 0
0.01.102.529 I slot print_timing: id  1 | task 0 | prompt eval time =     131.55 ms /    35 tokens (    3.76 ms per token,   266.06 tokens per second)
0.01.102.557 I slot print_timing: id  1 | task 0 |        eval time =     415.80 ms /    40 tokens (   10.66 ms per token,    93.80 tokens per second)
0.01.102.558 I slot print_timing: id  1 | task 0 |       total time =     547.35 ms /    75 tokens
0.01.102.559 I slot print_timing: id  1 | task 0 |    graphs reused =         39
0.01.102.582 I slot      release: id  1 | task 0 | stop processing: n_tokens = 74, truncated = 0
0.01.116.483 I slot get_availabl: id  1 | task -1 | selected slot by LCP similarity, f_sim_best = 1.000 (> 0.100 thold), f_keep = 0.473
0.01.117.717 I slot launch_slot_: id  1 | task 41 | processing task, is_child = 0
0.01.576.924 I slot print_timing: id  1 | task 41 | prompt eval time =      11.89 ms /     1 tokens (   11.89 ms per token,    84.13 tokens per second)
0.01.576.930 I slot print_timing: id  1 | task 41 |        eval time =     447.28 ms /    40 tokens (   11.47 ms per token,    87.19 tokens per second)
0.01.576.931 I slot print_timing: id  1 | task 41 |       total time =     459.17 ms /    41 tokens
0.01.576.932 I slot print_timing: id  1 | task 41 |    graphs reused =         79
0.01.576.980 I slot      release: id  1 | task 41 | stop processing: n_tokens = 74, truncated = 0
";

#[test]
fn stdin_json_follows_the_documented_schema() {
    let out = Headroom::cmd(&["logs", "--json"])
        .stdin_bytes(SAMPLE.as_bytes())
        .output_ok();
    let d: LogsDoc = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(d.schema, telemetry::doc::SCHEMA);
    assert_eq!(d.source, Source::Stdin);
    assert!(d.is_final);
    assert_eq!(d.lines, 16);
    assert_eq!(d.unparsed_lines, 0);
    let i = &d.instances[0];
    let r = &i.instance.requests[1];
    assert_eq!((r.slot, r.task), (Some(1), Some(41)));
    assert_eq!((r.prompt_tokens, r.prompt_ms), (Some(1), Some(11.89)));
    assert_eq!((r.gen_tokens, r.gen_ms), (Some(40), Some(447.28)));
    assert_eq!(r.cached_tokens, Some(34));
    assert_eq!(r.cached_tokens_from, Some(CachedFrom::Derived));
    assert_eq!(r.selected_by, Some(SlotSelection::Lcp));
    let e = &i.envelope;
    assert_eq!(e.decode_tps_median, Some((93.80 + 87.19) / 2.0));
    assert_eq!(e.prompt_tps_at_longest.as_ref().unwrap().n, 1);
    assert_eq!(e.graphs_reused.as_ref().unwrap().nonzero, 2);
    assert!(i.warnings[0].contains("overhead-dominated"));
}

#[test]
fn human_table_names_figures_and_sample_sizes() {
    let out = Headroom::cmd(&["logs", "--requests"])
        .stdin_bytes(SAMPLE.as_bytes())
        .output_ok();
    let s = String::from_utf8(out.stdout).unwrap();
    for want in [
        "instance 1 of 1",
        "2 seen, 2 with timing lines",
        "median 90.5 t/s",
        "266 t/s at 35 tokens",
        "2 of 2 requests > 0",
        "1 LCP / 1 LRU",
        "16 lines read: 0 unparsed",
        "34*",
    ] {
        assert!(s.contains(want), "missing {want:?} in\n{s}");
    }
}

#[test]
fn cancelled_request_without_timings_warns() {
    let log = "\
Nov 30 05:42:01 gpu1 llama-server[42]: 0.10.000.100 I slot launch_slot_: id  0 | task 12 | processing task, is_child = 0
Nov 30 05:42:03 gpu1 llama-server[42]: 0.10.002.000 W srv          stop: cancel task, id_task = 12
Nov 30 05:42:03 gpu1 llama-server[42]: 0.10.002.001 I slot      release: id  0 | task 12 | stop processing: n_tokens = 300, truncated = 0
";
    let out = Headroom::cmd(&["logs"])
        .stdin_bytes(log.as_bytes())
        .output();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("pid 42"), "{s}");
    assert!(
        s.contains("no timing lines") && s.contains("client died"),
        "{s}"
    );
}

#[test]
fn journal_without_journalctl_is_a_clear_error() {
    let empty = Scratch::new("path");
    let out = Headroom::new()
        .args(["logs", "--journal", "llama", "--since", "-1h"])
        .env("PATH", &empty.0)
        .output();
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("journalctl") && e.contains("--file"), "{e}");
}

#[test]
fn missing_file_names_the_file() {
    let out = Headroom::new()
        .args(["logs", "--file", "/nonexistent/server.log"])
        .output();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/server.log"));
}

#[test]
fn help_has_examples() {
    let out = Headroom::new().args(["logs", "--help"]).output();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.contains("Examples:") && s.contains("journalctl -u llama"),
        "{s}"
    );
}

#[cfg(unix)]
#[test]
fn follow_prints_updates_then_the_final_report_on_ctrl_c() {
    let dir = Scratch::new("follow");
    let path = dir.0.join("server.log");
    let (first, second) = SAMPLE.split_at(SAMPLE.find("0.01.116.483").unwrap());
    std::fs::write(&path, first).unwrap();
    let mut c = Headroom::new()
        .args(["logs", "--json", "--follow", "--file"])
        .arg(&path)
        .stdout_io(Stdio::piped())
        .spawn();
    // A bound on the whole exchange: a hung follower is killed, and the reads below fail.
    let pid = c.id().to_string();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(60));
        let _ = Command::new("kill")
            .args(["-KILL", &pid])
            .stderr(Stdio::null())
            .status();
    });
    let mut lines = BufReader::new(c.stdout.take().unwrap()).lines();
    let doc = |l: Option<std::io::Result<String>>| -> LogsDoc {
        serde_json::from_str(&l.expect("a JSON line").unwrap()).unwrap()
    };
    let u1 = doc(lines.next());
    assert!(!u1.is_final);
    assert_eq!(u1.instances[0].instance.requests.len(), 1);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(second.as_bytes())
        .unwrap();
    let u2 = doc(lines.next());
    assert_eq!(u2.instances[0].instance.requests.len(), 2);
    let status = Command::new("kill")
        .args(["-INT", &c.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let fin = doc(lines.next());
    assert_eq!((fin.is_final, fin.interrupted), (true, true));
    assert_eq!(fin.instances[0].envelope.requests_timed, 2);
    assert!(c.wait().unwrap().success());
}

/// The real vLLM 0.32.0 log (fixtures/vllm-0.32/serve.log): its stats lines, through the
/// binary, read back as the typed document.
fn vllm_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/vllm-0.32/serve.log")
}

#[test]
fn real_vllm_log_json_reads_back_and_is_documented() {
    let log = vllm_fixture();
    let out = Headroom::new()
        .args(["logs", "--json", "--file"])
        .arg(&log)
        .output_ok();
    // The schema-doc check reads the wire format's keys.
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let missing = testpeers::schema::undocumented(&v, "logs.md", &[]);
    assert!(missing.is_empty(), "not in docs/json/logs.md: {missing:?}");
    let doc: LogsDoc = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    assert_eq!(doc.instances.len(), 1);
    let i = &doc.instances[0];
    assert_eq!(i.instance.pid, Some(26765));
    let s = &i.vllm_stats[0];
    // The figures the log's own lines give (the telemetry crate's test derives them from the
    // lines; here they are what the document must carry).
    assert_eq!((s.engine, s.lines), (Some(0), 11));
    assert_eq!((s.gen_tps.median, s.gen_tps.max), (11.0, 20.6));
    assert_eq!((s.prompt_tps.median, s.prompt_tps.max), (11.0, 19.8));
    assert_eq!(s.kv_usage_pct.as_ref().map(|d| d.max), Some(1.9));
    assert_eq!(
        s.running.as_ref().map(|d| (d.median, d.max)),
        Some((6.0, 7.0))
    );
}

#[test]
fn real_vllm_log_human_table_and_restart_on_stdin() {
    let text = std::fs::read_to_string(vllm_fixture()).unwrap();
    let twice = format!("{text}{}", text.replace("pid=26765", "pid=31337"));
    let out = Headroom::cmd(&["logs"])
        .stdin_bytes(twice.as_bytes())
        .output_ok();
    let s = String::from_utf8(out.stdout).unwrap();
    for want in [
        "instance 1 of 2 · pid 26765",
        "instance 2 of 2 · pid 31337",
        "started by a new process id",
        "vLLM stats, engine 000: 11 lines",
        "every 10 s over 100 s",
        "median 11.0 t/s · peak 20.6 t/s",
        "1 of 11 intervals (9.1 %)",
        "median 6 · peak 7",
        "KV cache (CPU)",
        "median 1.7 % · peak 1.9 %",
        "last 0 % · range 0 %–0 %",
    ] {
        assert!(s.contains(want), "missing {want:?} in\n{s}");
    }
    assert!(!s.contains("requests: 0 seen"), "{s}");
}
