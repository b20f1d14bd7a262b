//! GPU and model names are checked before any work, in every command that takes them: an
//! unknown or ambiguous `--gpu`/`--model` exits 1 with the catalog's one message, before a
//! window, query or server starts. And no `--help` names the internal notes.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{headroom, EmulateProc, Headroom};

/// Runs headroom and waits for it to exit, killing it past `limit`: `None` when it had to be
/// killed (it went on to work instead of failing on the name).
fn exits_within(args: &[&str], limit: Duration) -> Option<(i32, String)> {
    let mut child = Headroom::new()
        .args(args)
        .stdin_io(Stdio::null())
        .stdout_io(Stdio::null())
        .stderr_io(Stdio::piped())
        .spawn();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut err = String::new();
            use std::io::Read;
            child.stderr.take().unwrap().read_to_string(&mut err).ok();
            return Some((status.code().unwrap_or(-1), err));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `headroom emulate`: a valid URL to point the mistakes at.
fn emulator() -> EmulateProc {
    EmulateProc::start(&["--speed", "1"])
}

/// The mistakes, and what the one message must say.
const MISTAKES: &[(&str, &str, &str)] = &[
    ("--gpu", "RTX-3090 Tii", "GPU 'RTX-3090 Tii' is not in the catalog; near names are different entries"),
    // Two cards share the name and differ in memory: the size is asked for, with each figure.
    ("--gpu", "M40", "GPU 'M40' is ambiguous: Tesla M40 24GB (24 GiB, 288 GB/s), Tesla M40 12GB (12 GiB, 288 GB/s)"),
    ("--gpu", "A100 80GB", "GPU 'A100 80GB' is ambiguous: A100 SXM 80GB (80 GiB, 2039 GB/s), A100 PCIe 80GB (80 GiB, 1935 GB/s)"),
    ("--model", "llama-3.1-8c", "model 'llama-3.1-8c' is not in the catalog"),
];

/// Each command that takes --gpu (and --model), at a dead URL and at a live emulator with a
/// one-hour window: exit 1 with the message, and no window taken. The live case is bounded at
/// 120 s against the hour the window would take (a check done after the window could not exit
/// sooner); the dead URL case would otherwise fail on the connection, with another message.
#[test]
fn unknown_or_ambiguous_names_fail_before_any_work() {
    let _serial = testpeers::serial();
    let emu = emulator();
    let dead = format!("http://127.0.0.1:{}", testpeers::free_port());
    let dir = std::env::temp_dir().join(format!("headroom-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let record = dir.join("window.jsonl");
    let record = record.to_str().unwrap();
    for url in [dead.as_str(), emu.url.as_str()] {
        for &(flag, name, want) in MISTAKES {
            let commands: Vec<Vec<&str>> = vec![
                vec![
                    "diagnose",
                    "--url",
                    url,
                    "--duration",
                    "1h",
                    "--record",
                    record,
                    flag,
                    name,
                ],
                vec!["watch", "--url", url, "--duration", "1h", flag, name],
                vec!["fleet", "--prometheus", url, flag, name],
                if flag == "--gpu" {
                    vec!["ceiling", "--model", "llama-3.1-8b", flag, name]
                } else {
                    vec!["ceiling", "--gpu", "H100-SXM", flag, name]
                },
                vec!["emulate", "--port", "0", "--duration", "1h", flag, name],
            ];
            for args in commands {
                let got = exits_within(&args, Duration::from_secs(120));
                let (code, err) = got.unwrap_or_else(|| panic!("{args:?} went on working"));
                assert_eq!(code, 1, "{args:?}: {err}");
                assert!(
                    err.contains(&format!("{flag} \"{name}\"")),
                    "{args:?}: {err}"
                );
                assert!(err.contains(want), "{args:?}: {err}");
                assert!(!std::path::Path::new(record).exists(), "{args:?} scraped");
            }
        }
    }
    // pcie takes --gpu only; the dmon file is never opened.
    let (code, _, err) = headroom(&["pcie", "no-such-dmon.txt", "--gpu", "GTX 1090"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("--gpu \"GTX 1090\": GPU 'GTX 1090' is not in the catalog"),
        "{err}"
    );
    // bench records an uncatalogued card's name as given, but an ambiguous one is an error.
    let (code, _, err) = headroom(&["bench", "--url", &dead, "--gpu", "H100", "--no-save"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("GPU 'H100' is ambiguous"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The names people type resolve to their card in the command, not a neighbour's.
#[test]
fn loose_names_reach_the_right_card() {
    for (gpu, name) in [
        ("NVIDIA GeForce RTX 3090 24GB", "GeForce RTX 3090"),
        ("Tesla V100-SXM2-32GB", "V100 SXM2 32GB"),
        ("nvidia a100 80gb pcie", "A100 PCIe 80GB"),
    ] {
        let (code, out, err) =
            headroom(&["ceiling", "--gpu", gpu, "--model", "llama3.1:8b", "--json"]);
        assert_eq!(code, 0, "{gpu}: {err}");
        let doc: physics::doc::CeilingDoc = serde_json::from_str(&out).expect("a ceiling document");
        assert_eq!(doc.gpu.get().map(|g| g.name.as_str()), Some(name), "{gpu}");
    }
}

/// Every subcommand's --help, nested ones included, teaches in public terms: no "spec 0..."
/// section, no "§", no "research" note.
#[test]
fn help_cites_no_internal_notes() {
    fn subcommands(path: &[String]) -> Vec<String> {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let (_, out, _) = headroom(&args);
        out.lines()
            .skip_while(|l| !l.starts_with("Commands:"))
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            // A command's line is indented two spaces; a wrapped description more.
            .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
            .filter_map(|l| l.split_whitespace().next())
            .filter(|c| *c != "help")
            .map(str::to_string)
            .collect()
    }
    let mut queue: Vec<Vec<String>> = vec![vec![]];
    let mut seen = 0;
    while let Some(path) = queue.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let (code, out, err) = headroom(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        for bad in ["spec 0", "Spec 0", "§", "research"] {
            assert!(!out.contains(bad), "{args:?} --help names {bad:?}:\n{out}");
        }
        seen += 1;
        for sub in subcommands(&path) {
            let mut p = path.clone();
            p.push(sub);
            queue.push(p);
        }
    }
    // The top level, its 20 commands, and the nested ones (ceiling ram/duty, probe depth ...).
    assert!(seen > 24, "only {seen} help pages found");
}

/// A device line as llama.cpp prints it, pasted whole as `--gpu`, names its card; a laptop
/// part is not its desktop namesake and says so; a name two variants print asks which.
#[test]
fn pasted_llama_cpp_device_lines_name_their_card() {
    let (code, out, err) = crate::util::headroom(&[
        "ceiling",
        "--gpu",
        "ggml_vulkan: 0 = AMD Radeon RX 7900 XT (RADV NAVI31) (radv) | uma: 0 | fp16: 1 | warp size: 64",
        "--model",
        "llama-3.1-8b",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Radeon RX 7900 XT"), "{out}");
    let (code, out, err) = crate::util::headroom(&[
        "ceiling",
        "--gpu",
        "NVIDIA GeForce RTX 3090",
        "--model",
        "llama-3.1-8b",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("GeForce RTX 3090"), "{out}");
    let (code, out, err) = crate::util::headroom(&[
        "ceiling",
        "--gpu",
        "Device 0: NVIDIA GeForce RTX 5070 Ti Laptop GPU, compute capability 12.0, VMM: yes",
        "--model",
        "llama-3.1-8b",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        err.contains("is not in the catalog (a laptop part"),
        "{err}"
    );
    let (code, _, err) = crate::util::headroom(&[
        "ceiling",
        "--gpu",
        "Device 0: NVIDIA GeForce RTX 3060, compute capability 8.6, VMM: yes",
        "--model",
        "llama-3.1-8b",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("is ambiguous: GeForce RTX 3060 12GB (12 GiB")
            && err.contains("GeForce RTX 3060 8GB (8 GiB"),
        "{err}"
    );
}
