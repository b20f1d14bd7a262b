//! Every command that reads a file or stdin, fed hostile input (issue 20): empty, a directory,
//! /dev/zero, a 10 GB sparse file, a file cut in the middle of a token, invalid UTF-8, and a
//! file that grows and shrinks while it is read. Expected of each run: no panic, a clear
//! error that names the input when it fails, peak RSS under 256 MB, and an end within
//! RUN_LIMIT. Also: `| head -1` (stdout closed early) never panics.
//!
//! Inputs cut from real files use the peers and fixtures where present (the SmolLM2 GGUF,
//! fixtures/); the test runs without them, on its own files.
use crate::util::Headroom;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Bounded, not fast: the slowest case once was `logs` reading 10 GB of zeros from stdin (47 s on
/// 2 shared cores, before a regular file's holes were skipped unread: 0.03 s since); the limit
/// catches a command that never ends.
const RUN_LIMIT: Duration = Duration::from_secs(240);
const RSS_LIMIT_KIB: u64 = 256 << 10;

/// One command line; `{}` is replaced by the input's path.
struct Cmd {
    name: &'static str,
    args: &'static [&'static str],
    /// Real content for this command, to cut mid-token and to grow and shrink.
    sample: fn() -> Vec<u8>,
}

fn fixture(rel: &str) -> Option<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read(root.join(rel)).ok()
}

fn gguf_sample() -> Vec<u8> {
    let model = std::env::var("HEADROOM_MODEL").ok().and_then(|m| {
        let mut f = std::fs::File::open(m).ok()?;
        let mut head = vec![0u8; 256 << 10];
        std::io::Read::read_exact(&mut f, &mut head).ok()?;
        Some(head)
    });
    // Without the peer: a minimal header (magic, version 3, no tensors, one string key).
    model.unwrap_or_else(|| {
        let mut b = b"GGUF".to_vec();
        b.extend_from_slice(&3u32.to_le_bytes());
        b.extend_from_slice(&0u64.to_le_bytes());
        b.extend_from_slice(&1u64.to_le_bytes());
        let key = b"general.architecture";
        b.extend_from_slice(&(key.len() as u64).to_le_bytes());
        b.extend_from_slice(key);
        b.extend_from_slice(&8u32.to_le_bytes());
        b.extend_from_slice(&5u64.to_le_bytes());
        b.extend_from_slice(b"llama");
        b
    })
}

fn trace_sample() -> Vec<u8> {
    let mut t = br#"{"schemaVersion":1,"traceEvents":["#.to_vec();
    for i in 0..2000 {
        t.extend_from_slice(
            format!(
                r#"{{"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":0,"tid":7,"ts":{}.5,"dur":12.25,"args":{{"device":0,"stream":7}}}},"#,
                i * 20
            )
            .as_bytes(),
        );
    }
    t.extend_from_slice(
        br#"{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":2}]}"#,
    );
    t
}

fn log_sample() -> Vec<u8> {
    fixture("crates/telemetry/tests/data/llama-server-11434-restart.log").unwrap_or_else(|| {
        b"slot print_timing: id  0 | task 5 | prompt eval time =      43.83 ms /    13 tokens (    3.37 ms per token,   296.61 tokens per second)\n".repeat(50)
    })
}

fn recording_sample() -> Vec<u8> {
    let body = fixture("crates/telemetry/tests/data/llama-server-11434-restart.metrics")
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_else(|| "llamacpp:requests_processing 1\n".into());
    let mut r = serde_json::to_vec(&serde_json::json!({
        "format": "headroom.recording/1", "url": "http://127.0.0.1:8080",
        "interval_s": 1.0, "started": 1.7e9,
    }))
    .unwrap();
    r.push(b'\n');
    for i in 0..20 {
        r.extend(
            serde_json::to_vec(
                &serde_json::json!({"t": 1.7e9 + i as f64, "ok": true, "body": body}),
            )
            .unwrap(),
        );
        r.push(b'\n');
    }
    r
}

fn catalog_sample() -> Vec<u8> {
    fixture("catalog/gpus.toml").unwrap_or_else(|| b"[[gpu]]\nid = \"X\"\n".to_vec())
}

/// A saved /proc/PID/maps of the shape `attribute --maps` reads (no model mapped: a whole one
/// ends in "maps no .gguf file", an error naming it).
fn maps_sample() -> Vec<u8> {
    let mut m = Vec::new();
    for i in 0..400u64 {
        let start = 0x55d0_c0a0_0000 + i * 0x21000;
        m.extend_from_slice(
            format!(
                "{start:x}-{:x} r-xp {:08x} 08:01 {} /usr/lib/x86_64-linux-gnu/libggml-cpu-{i}.so\n",
                start + 0x21000,
                i * 0x1000,
                131_000 + i
            )
            .as_bytes(),
        );
    }
    m.extend_from_slice(
        b"7ffd1c3e0000-7ffd1c401000 rw-p 00000000 00:00 0                          [stack]\n",
    );
    m
}

/// A real history database: one replayed diagnosis saved by `diagnose --save`.
fn history_sample() -> Vec<u8> {
    let d = tempfile::tempdir().unwrap();
    let rec = d.path().join("r.jsonl");
    std::fs::write(&rec, recording_sample()).unwrap();
    let db = d.path().join("h.sqlite");
    Headroom::cmd(&["diagnose", "--replay"])
        .arg(&rec)
        .arg("--save")
        .arg("--db")
        .arg(&db)
        .stdout_io(Stdio::null())
        .assert_ok();
    std::fs::read(&db).unwrap()
}

fn dmon_sample() -> Vec<u8> {
    fixture("fixtures/dmon/a10-mutc-DT.txt").unwrap_or_else(|| {
        b"# gpu  rxpci  txpci\n# Idx   MB/s   MB/s\n    0     12      3\n".to_vec()
    })
}

fn commands() -> Vec<Cmd> {
    vec![
        Cmd {
            name: "pcie",
            args: &["pcie", "{}", "--link", "gen4x16"],
            sample: dmon_sample,
        },
        Cmd {
            name: "gguf",
            args: &["gguf", "{}"],
            sample: gguf_sample,
        },
        Cmd {
            name: "ceiling --gguf",
            args: &["ceiling", "--gpu", "H100-SXM", "--gguf", "{}"],
            sample: gguf_sample,
        },
        Cmd {
            name: "trace",
            args: &["trace", "{}"],
            sample: trace_sample,
        },
        Cmd {
            name: "logs",
            args: &["logs", "--file", "{}"],
            sample: log_sample,
        },
        Cmd {
            name: "diagnose --replay",
            args: &["diagnose", "--replay", "{}"],
            sample: recording_sample,
        },
        Cmd {
            name: "ceiling --catalog",
            args: &[
                "ceiling",
                "--gpu",
                "H100-SXM",
                "--model",
                "llama-3.1-8b",
                "--catalog",
                "{}",
            ],
            sample: catalog_sample,
        },
        Cmd {
            name: "attribute --maps",
            args: &["attribute", "--maps", "{}", "--addresses", "/dev/null"],
            sample: maps_sample,
        },
        Cmd {
            name: "check --recording",
            args: &[
                "check",
                concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../../fixtures/vllm-bench-0.32/clean.json"
                ),
                "--recording",
                "{}",
            ],
            sample: recording_sample,
        },
        Cmd {
            name: "history --db",
            args: &["history", "--db", "{}"],
            sample: history_sample,
        },
        Cmd {
            name: "regress --db",
            args: &["regress", "--db", "{}"],
            sample: history_sample,
        },
    ]
}

#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stderr: String,
    took: Duration,
    peak_rss_kib: u64,
}

/// Runs `args` with `input` in place of `{}`, stdin from `stdin` (or empty), watching its
/// peak RSS; kills it at RUN_LIMIT.
fn run(args: &[&str], input: &Path, stdin: Option<&Path>) -> Run {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("{}", &input.display().to_string()))
        .collect();
    let data = std::env::temp_dir().join(format!("headroom-hostile-data-{}", std::process::id()));
    let mut cmd = Headroom::cmd(&args);
    match stdin {
        Some(p) => cmd.stdin_file(p),
        None => cmd.stdin_io(Stdio::null()),
    };
    let mut child = cmd
        .env("XDG_DATA_HOME", &data)
        .stdout_io(Stdio::null())
        .stderr_io(Stdio::piped())
        .spawn();
    let err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut BufReader::new(err), &mut s);
        s
    });
    let t0 = Instant::now();
    let mut peak = 0;
    let status = loop {
        if let Ok(st) = std::fs::read_to_string(format!("/proc/{}/status", child.id())) {
            if let Some(v) = st
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            {
                peak = peak.max(v);
            }
        }
        if let Some(st) = child.try_wait().unwrap() {
            break Some(st);
        }
        if t0.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Run {
        code: status.and_then(|s| s.code()),
        stderr: reader.join().unwrap(),
        took: t0.elapsed(),
        peak_rss_kib: peak,
    }
}

/// What every run must satisfy; returns a line for the summary.
fn judge(cmd: &str, what: &str, input: &Path, r: &Run, problems: &mut Vec<String>) -> String {
    let shown = input.display().to_string();
    let name = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut bad = Vec::new();
    if r.code.is_none() {
        bad.push(format!(
            "no end within {RUN_LIMIT:?} (or killed by a signal)"
        ));
    }
    if r.stderr.contains("Usage:") {
        bad.push("the test's command line is wrong".to_string());
    }
    if r.code == Some(101) || r.stderr.contains("panicked") {
        bad.push("panicked".to_string());
    }
    if r.code == Some(1)
        && !(r.stderr.contains(&shown) || (!name.is_empty() && r.stderr.contains(&name)))
    {
        bad.push("its error does not name the input".to_string());
    }
    if r.peak_rss_kib > RSS_LIMIT_KIB {
        bad.push(format!("peak RSS {} MiB", r.peak_rss_kib >> 10));
    }
    let first = r
        .stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let line = format!(
        "{cmd:<18} {what:<14} exit {:<4} {:>6.2}s {:>4} MiB  {}",
        r.code.map_or("-".to_string(), |c| c.to_string()),
        r.took.as_secs_f64(),
        r.peak_rss_kib >> 10,
        first.chars().take(110).collect::<String>()
    );
    if !bad.is_empty() {
        problems.push(format!(
            "{line}\n    {}\n    stderr: {}",
            bad.join("; "),
            r.stderr.trim()
        ));
    }
    line
}

struct Inputs {
    _dir: tempfile::TempDir,
    empty: PathBuf,
    dir: PathBuf,
    sparse: PathBuf,
}

fn inputs() -> Inputs {
    let d = tempfile::tempdir().unwrap();
    let empty = d.path().join("empty.in");
    std::fs::write(&empty, b"").unwrap();
    let dir = d.path().join("a-directory");
    std::fs::create_dir(&dir).unwrap();
    let sparse = d.path().join("sparse-10GB.in");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(10 << 30)
        .unwrap();
    Inputs {
        empty,
        dir,
        sparse,
        _dir: d,
    }
}

#[test]
fn every_command_survives_hostile_input() {
    let ins = inputs();
    let mut problems = Vec::new();
    let mut table = Vec::new();
    for c in commands() {
        let sample = (c.sample)();
        let scratch = tempfile::tempdir().unwrap();
        // Cut in the middle of a token: just after the middle byte.
        let cut = scratch.path().join("cut.in");
        std::fs::write(&cut, &sample[..sample.len() / 2 + 1]).unwrap();
        // Invalid UTF-8 spliced into the real content.
        let invalid = scratch.path().join("invalid-utf8.in");
        let mut bytes = sample.clone();
        let at = bytes.len() / 3;
        bytes.splice(
            at..at,
            [0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xf0, 0x28, 0x8c, 0x28],
        );
        std::fs::write(&invalid, &bytes).unwrap();
        let cases: Vec<(&str, PathBuf)> = vec![
            ("empty", ins.empty.clone()),
            ("directory", ins.dir.clone()),
            ("/dev/zero", PathBuf::from("/dev/zero")),
            ("10 GB sparse", ins.sparse.clone()),
            ("cut mid-token", cut),
            ("invalid UTF-8", invalid),
        ];
        for (what, input) in &cases {
            let r = run(c.args, input, None);
            table.push(judge(c.name, what, input, &r, &mut problems));
        }
        // Growing and shrinking while it is read: a writer appends the sample and truncates
        // the file back, over and over, for as long as the command runs.
        let moving = scratch.path().join("moving.in");
        std::fs::write(&moving, &sample).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let writer = {
            let (stop, moving, sample) = (stop.clone(), moving.clone(), sample.clone());
            std::thread::spawn(move || {
                let mut grow = true;
                while !stop.load(Ordering::Relaxed) {
                    if grow {
                        if let Ok(mut f) = std::fs::OpenOptions::new().append(true).open(&moving) {
                            let _ = f.write_all(&sample);
                        }
                    } else if let Ok(f) = std::fs::OpenOptions::new().write(true).open(&moving) {
                        let _ = f.set_len(sample.len() as u64 / 3);
                    }
                    grow = !grow;
                    std::thread::sleep(Duration::from_millis(1));
                }
            })
        };
        for _ in 0..5 {
            let r = run(c.args, &moving, None);
            table.push(judge(c.name, "grow/shrink", &moving, &r, &mut problems));
        }
        stop.store(true, Ordering::Relaxed);
        writer.join().unwrap();
    }
    // `headroom logs` also reads stdin; `pcie -`, `trace -` and `attribute --addresses -` too.
    for (what, input) in [
        ("empty", ins.empty.clone()),
        ("10 GB sparse", ins.sparse.clone()),
    ] {
        let r = run(&["logs"], &input, Some(&input));
        let line = judge("logs < stdin", what, Path::new("stdin"), &r, &mut problems);
        table.push(line);
        let r = run(&["pcie", "-"], &input, Some(&input));
        let line = judge("pcie < stdin", what, Path::new("stdin"), &r, &mut problems);
        table.push(line);
    }
    for (what, input) in [
        ("empty", ins.empty.clone()),
        ("/dev/zero", PathBuf::from("/dev/zero")),
        ("10 GB sparse", ins.sparse.clone()),
    ] {
        let r = run(&["trace", "-"], &input, Some(&input));
        let line = judge(
            "trace - < stdin",
            what,
            Path::new("standard input"),
            &r,
            &mut problems,
        );
        table.push(line);
    }
    // The addresses need a maps file that maps a real model: the peer's GGUF.
    if let Some(model) = std::env::var("HEADROOM_MODEL")
        .ok()
        .filter(|m| Path::new(m).is_file())
    {
        let scratch = tempfile::tempdir().unwrap();
        let maps = scratch.path().join("maps");
        std::fs::write(
            &maps,
            format!("7f0000000000-7f0010000000 r--s 00000000 08:01 1234 {model}\n"),
        )
        .unwrap();
        let maps = maps.display().to_string();
        let args = ["attribute", "--maps", &maps, "--addresses", "-"];
        for (what, input) in [
            ("empty", ins.empty.clone()),
            ("/dev/zero", PathBuf::from("/dev/zero")),
            ("10 GB sparse", ins.sparse.clone()),
            ("a directory", ins.dir.clone()),
        ] {
            let stdin = (what != "a directory").then_some(input.as_path());
            // A directory cannot be stdin; it goes in as the file instead.
            let args: Vec<&str> = if stdin.is_none() {
                vec!["attribute", "--maps", &maps, "--addresses", "{}"]
            } else {
                args.to_vec()
            };
            let r = run(&args, &input, stdin);
            let shown = if stdin.is_some() {
                Path::new("stdin")
            } else {
                input.as_path()
            };
            table.push(judge(
                "attribute --addresses",
                what,
                shown,
                &r,
                &mut problems,
            ));
        }
    } else {
        eprintln!("SKIPPED: attribute --addresses (HEADROOM_MODEL unset: no model to map)");
    }
    println!("{}", table.join("\n"));
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// `headroom … | head -1`: the reader goes away after one line; the command exits quietly.
#[test]
fn a_closed_stdout_never_panics() {
    let scratch = tempfile::tempdir().unwrap();
    let log = scratch.path().join("server.log");
    std::fs::write(&log, log_sample().repeat(20)).unwrap();
    let trace = scratch.path().join("t.json");
    std::fs::write(&trace, trace_sample()).unwrap();
    let gguf = scratch.path().join("m.gguf");
    std::fs::write(&gguf, gguf_sample()).unwrap();
    let mut panics = Vec::new();
    for args in [
        vec!["logs", "--file", log.to_str().unwrap()],
        vec!["trace", trace.to_str().unwrap()],
        vec!["gguf", gguf.to_str().unwrap()],
        vec!["ceiling", "--gpu", "H100-SXM", "--model", "llama-3.1-8b"],
    ] {
        let mut child = Headroom::cmd(&args)
            .stdout_io(Stdio::piped())
            .stderr_io(Stdio::piped())
            .spawn();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        let _ = out.read_line(&mut first);
        drop(out);
        let res = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&res.stderr);
        if err.contains("panicked") || res.status.code() == Some(101) {
            panics.push(format!(
                "{args:?} | head -1: {}",
                err.lines().take(2).collect::<Vec<_>>().join(" ")
            ));
        }
    }
    assert!(panics.is_empty(), "{}", panics.join("\n"));
}
