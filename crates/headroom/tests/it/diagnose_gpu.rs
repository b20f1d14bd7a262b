//! `headroom diagnose` with the GPU's own telemetry beside the window (issue 32): an nvidia-smi
//! capture beside a replay, a live dcgm-exporter (one of the public DCGM bodies served by a
//! tiny HTTP server here) beside a live emulator window, and the errors.

use crate::util::{headroom, EmulateProc, Headroom};
use diagnose::gpu::SCALED_LABEL;
use diagnose::Report;
use engines::{RecordingHeader, ScrapeRecord};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// 2026-07-14 08:12:00 UTC (20648 days after 1970-01-01, plus 8 h 12 min).
const T0: f64 = 20_648.0 * 86_400.0 + 8.0 * 3600.0 + 12.0 * 60.0;

/// A vLLM window of 13 scrapes, one a second from T0: 8 requests running, none waiting,
/// 400 generated and 2 000 prompt tokens a second, one request finished a second.
fn busy_recording(dir: &Path) -> PathBuf {
    let p = dir.join("busy.jsonl");
    let mut header = RecordingHeader::new("http://127.0.0.1:1", 1.0, T0);
    header.models = Some(serde_json::json!(
        {"data": [{"id": "meta-llama/Llama-3.1-8B-Instruct", "max_model_len": 8192}]}
    ));
    let mut s = serde_json::to_string(&header).unwrap();
    s.push('\n');
    for i in 0..13 {
        let i = i as f64;
        let body = format!(
            "# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{{model_name=\"m\"}} {}\n\
             # TYPE vllm:prompt_tokens_total counter\nvllm:prompt_tokens_total{{model_name=\"m\"}} {}\n\
             # TYPE vllm:request_success_total counter\nvllm:request_success_total{{model_name=\"m\",finished_reason=\"stop\"}} {}\n\
             # TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{{model_name=\"m\"}} 8\n\
             # TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{{model_name=\"m\"}} 0\n",
            400.0 * i,
            2000.0 * i,
            i
        );
        let line = ScrapeRecord {
            t: T0 + i,
            ok: true,
            error: None,
            body: Some(body),
            elapsed_s: None,
        };
        s.push_str(&serde_json::to_string(&line).unwrap());
        s.push('\n');
    }
    std::fs::write(&p, s).unwrap();
    p
}

/// A synthetic-but-realistic `-lms 1000` capture built from the public H100 capture
/// (fixtures/nvidia-smi/h100-sxm-load.csv, a real nvidia-smi 590.48.01 row under gpu-burn): the
/// same 212 columns and values, one row a second from T0 − 3 s to T0 + 15 s, changing only the
/// timestamp and, per row, utilization, SM clock, power and the clock-event reasons. `capped`
/// rows (the busy window, T0 … T0 + 12) hold the SM clock at 1410 of 1980 MHz with the power at
/// its 700 W limit and sw_power_cap (0x4) active; otherwise the busy rows keep the real row's
/// figures (1980 MHz, reasons 0). Rows outside the window are idle (0 %, 345 MHz, gpu_idle).
fn capture(dir: &Path, capped: bool) -> PathBuf {
    let text = std::fs::read_to_string(fixtures().join("nvidia-smi/h100-sxm-load.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let row: Vec<String> = lines
        .next()
        .unwrap()
        .split(", ")
        .map(str::to_string)
        .collect();
    let cols: Vec<&str> = header.split(", ").collect();
    assert_eq!(cols.len(), row.len());
    let at = |name: &str| cols.iter().position(|c| *c == name).unwrap();
    let (ts, util, sm, power, reasons) = (
        at("timestamp"),
        at("utilization.gpu [%]"),
        at("clocks.current.sm [MHz]"),
        at("power.draw [W]"),
        at("clocks_event_reasons.active"),
    );
    let mut out = format!("{header}\n");
    for i in -3..=15i32 {
        let mut r = row.clone();
        r[ts] = format!(
            "2026/07/14 08:{:02}:{:02}.000",
            12 + (i + 60) / 60 - 1,
            (i + 60) % 60
        );
        let busy = (0..=12).contains(&i);
        if !busy {
            r[util] = "0 %".into();
            r[sm] = "345 MHz".into();
            r[power] = "69.85 W".into();
            r[reasons] = "0x0000000000000001".into();
        } else if capped {
            r[sm] = "1410 MHz".into();
            r[power] = "699.91 W".into();
            r[reasons] = "0x0000000000000004".into();
        }
        out.push_str(&r.join(", "));
        out.push('\n');
    }
    let p = dir.join(if capped { "capped.csv" } else { "healthy.csv" });
    std::fs::write(&p, out).unwrap();
    p
}

fn diagnose_replay(rec: &Path, cap: &Path, json: bool) -> (i32, String, String) {
    let mut args = vec![
        "diagnose",
        "--replay",
        rec.to_str().unwrap(),
        "--nvidia-smi",
        cap.to_str().unwrap(),
        "--model",
        "llama-3.1-8b",
        "--engine-args",
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 8 --max-model-len 8192",
    ];
    if json {
        args.push("--json");
    }
    headroom(&args)
}

/// Power-capped clocks through the busy window: named throttled, with the prefill ceiling scaled
/// by the measured/max SM clock and labelled so, in the document and the text; the GPU is the
/// capture's (no --gpu), with provenance nvidia-smi. The same window with the real row's full
/// clocks holds.
#[test]
fn a_power_capped_capture_beside_a_replay_is_throttled_and_scales_the_prefill_ceiling() {
    let dir = tempfile::tempdir().unwrap();
    let rec = busy_recording(dir.path());
    let capped = capture(dir.path(), true);
    let (code, out, err) = diagnose_replay(&rec, &capped, true);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    let missing = testpeers::schema::undocumented(&doc, "diagnose.md", &["/config"]);
    assert!(missing.is_empty(), "undocumented: {missing:?}");
    let r: Report = serde_json::from_str(&out).expect("a headroom.diagnose/1 document");
    assert_eq!(r.shape.gpu.as_deref(), Some("h100-sxm"));
    assert_eq!(r.ceiling.gpu_from.as_deref(), Some("nvidia-smi"));
    assert_eq!(r.ceiling.unknown_reason, None, "{:?}", r.ceiling);
    let t = r.gpu_telemetry.as_ref().expect("gpu_telemetry");
    assert_eq!(t.source, "nvidia-smi");
    assert_eq!(t.named.as_deref(), Some("NVIDIA H100 80GB HBM3"));
    assert_eq!(t.alignment, "clock");
    assert_eq!(t.readings, 19);
    // T0 − 1 s (one interval before the first scrape) to T0 + 12 s.
    assert_eq!(t.in_window, 14);
    assert_eq!(t.devices.len(), 1);
    let d = &t.devices[0];
    let th = d.findings.iter().find(|f| f.rule == "throttled").unwrap();
    assert_eq!(th.outcome, "fired", "{th:?}");
    let scale = th.clock_scale.unwrap();
    assert!((scale - 1410.0 / 1980.0).abs() < 1e-9, "{scale}");
    let prefill = r.ceiling.prefill_prompts_per_s.expect("prefill ceiling");
    let scaled = th.scaled_prefill_prompts_per_s.unwrap();
    assert!((scaled - prefill * scale).abs() < 1e-9 * prefill);
    assert_eq!(th.scaled_label.as_deref(), Some(SCALED_LABEL));
    assert!(th.summary.as_deref().unwrap().contains(SCALED_LABEL));
    // nvidia-smi has no profiling fields: the two DCGM findings say so.
    for rule in ["host_bound", "dram_vs_model"] {
        let f = d.findings.iter().find(|f| f.rule == rule).unwrap();
        assert_eq!(f.outcome, "silent", "{f:?}");
        assert!(
            f.missing.as_deref().unwrap().contains("nvidia-smi"),
            "{f:?}"
        );
    }

    // The text names it, with the label beside the scaled figure.
    let (code, text, err) = diagnose_replay(&rec, &capped, false);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("GPU telemetry (nvidia-smi"), "{text}");
    assert!(
        text.contains("GPU for the ceiling: NVIDIA H100 80GB HBM3 (from nvidia-smi)"),
        "{text}"
    );
    assert!(
        text.contains("    throttled: the SM clock ran at 71.2 %"),
        "{text}"
    );
    assert!(!text.contains("throttled: throttled"), "{text}");
    assert!(text.contains(&format!("{SCALED_LABEL} (0.71)")), "{text}");

    // The real row's clocks (1980 of 1980 MHz, no reason) through the same window: held.
    let healthy = capture(dir.path(), false);
    let (code, out, err) = diagnose_replay(&rec, &healthy, true);
    assert_eq!(code, 0, "{err}");
    let r: Report = serde_json::from_str(&out).unwrap();
    let d = &r.gpu_telemetry.unwrap().devices[0];
    let th = d.findings.iter().find(|f| f.rule == "throttled").unwrap();
    assert_eq!(th.outcome, "held", "{th:?}");
    assert_eq!(th.scaled_prefill_prompts_per_s, None);
}

/// --gpu given: it wins, and the telemetry's name is shown beside it, not taken.
#[test]
fn gpu_given_wins_over_the_capture_name() {
    let dir = tempfile::tempdir().unwrap();
    let rec = busy_recording(dir.path());
    let cap = capture(dir.path(), true);
    let (code, out, err) = headroom(&[
        "diagnose",
        "--replay",
        rec.to_str().unwrap(),
        "--nvidia-smi",
        cap.to_str().unwrap(),
        "--gpu",
        "A100-SXM4-80GB",
        "--model",
        "llama-3.1-8b",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let r: Report = serde_json::from_str(&out).unwrap();
    assert_eq!(r.ceiling.gpu_from.as_deref(), Some("--gpu"));
    let t = r.gpu_telemetry.unwrap();
    assert!(t.name_note.unwrap().contains("--gpu given"));
    assert!(r.ceiling.gpu.unwrap().contains("A100"));
}

/// No --gpu and a name the catalog does not hold (a GRID vGPU profile): no neighbour is taken, the
/// ceiling stays unknown and its reason names the printed name; the findings still run.
#[test]
fn an_uncatalogued_name_leaves_the_ceiling_unknown_and_says_which() {
    let dir = tempfile::tempdir().unwrap();
    let rec = busy_recording(dir.path());
    let cap = capture(dir.path(), true);
    let text = std::fs::read_to_string(&cap)
        .unwrap()
        .replace("NVIDIA H100 80GB HBM3", "GRID A100-40C");
    std::fs::write(&cap, text).unwrap();
    let (code, out, err) = diagnose_replay(&rec, &cap, true);
    assert_eq!(code, 0, "{err}");
    let r: Report = serde_json::from_str(&out).unwrap();
    assert_eq!(r.shape.gpu, None);
    assert_eq!(r.ceiling.gpu_from, None);
    let why = r.ceiling.unknown_reason.unwrap();
    assert!(why.contains("\"GRID A100-40C\""), "{why}");
    let t = r.gpu_telemetry.unwrap();
    assert_eq!(t.named.as_deref(), Some("GRID A100-40C"));
    let th = t.devices[0]
        .findings
        .iter()
        .find(|f| f.rule == "throttled")
        .unwrap();
    assert_eq!(th.outcome, "fired");
    assert_eq!(
        th.scaled_prefill_prompts_per_s, None,
        "no ceiling, no scaled figure"
    );
}

/// Serves one body at /metrics to every request until the test ends.
fn serve(body: String) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut reader = BufReader::new(s.try_clone().unwrap());
            let mut line = String::new();
            // The request line and headers, up to the blank line.
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
                if line == "\r\n" || line == "\n" {
                    break;
                }
                line.clear();
            }
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

/// A live window on the emulator with a dcgm-exporter beside it (the public L40S body from
/// cncf/k8s-ai-conformance, fixtures/dcgm/SOURCES.md): the GPU is named from modelName with no
/// --gpu, every scrape of the window read the exporter, and throttled is silent because that
/// exporter does not export the SM clock's maximum.
#[test]
fn live_dcgm_exporter_names_the_gpu_from_model_name() {
    let _serial = testpeers::serial();
    let body = std::fs::read_to_string(fixtures().join("dcgm/l40s-upcloud-idle.prom")).unwrap();
    let port = serve(body);
    let emu = EmulateProc::start(&["--speed", "1"]);
    let dcgm = format!("http://127.0.0.1:{port}/metrics");
    let (code, out, err) = headroom(&[
        "diagnose",
        "--url",
        &emu.url,
        "--dcgm",
        &dcgm,
        "--duration",
        "3s",
        "--interval",
        "1s",
        "--json",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let r: Report = serde_json::from_str(&out).unwrap();
    assert_eq!(r.shape.gpu.as_deref(), Some("l40s"));
    assert_eq!(r.ceiling.gpu_from.as_deref(), Some("dcgm"));
    let t = r.gpu_telemetry.expect("gpu_telemetry");
    assert_eq!(t.source, "dcgm");
    assert_eq!(t.input, dcgm);
    assert_eq!(t.named.as_deref(), Some("NVIDIA L40S"));
    // The check before the window and one a second for 3 s: at least 3 readings, all of one
    // device (the exporter's one GPU on host gpu1-wl8sg).
    assert!(t.readings >= 3, "{t:?}");
    assert_eq!(t.devices.len(), 1);
    let d = &t.devices[0];
    assert_eq!(d.label, "gpu1-wl8sg gpu 0");
    assert_eq!(d.sm_clock_mhz, Some(210.0));
    assert_eq!(d.dram_active, Some(0.000131));
    let th = d.findings.iter().find(|f| f.rule == "throttled").unwrap();
    assert_eq!(th.outcome, "silent");
    assert!(th
        .missing
        .as_deref()
        .unwrap()
        .contains("DCGM_FI_DEV_MAX_SM_CLOCK"));
}

/// Clear errors: nvidia-smi not on PATH (before any window), a replay with a live-only source,
/// an exporter that is not DCGM, a capture that is not nvidia-smi CSV.
#[test]
fn clear_errors_for_missing_nvidia_smi_and_wrong_sources() {
    let empty = tempfile::tempdir().unwrap();
    let out = Headroom::new()
        .args(["diagnose", "--url", "http://127.0.0.1:1", "--nvidia-smi"])
        .env("PATH", empty.path())
        .output();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("`nvidia-smi`, which is not on PATH"), "{err}");
    assert!(err.contains("--nvidia-smi gpu.csv"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let rec = busy_recording(dir.path());
    let (code, _, err) = headroom(&[
        "diagnose",
        "--replay",
        rec.to_str().unwrap(),
        "--dcgm",
        "http://127.0.0.1:1/metrics",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("give --nvidia-smi FILE"), "{err}");

    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "1320 MHz, 1710 MHz\n").unwrap();
    let (code, _, err) = headroom(&[
        "diagnose",
        "--replay",
        rec.to_str().unwrap(),
        "--nvidia-smi",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.csv line 1"), "{err}");

    // An engine's /metrics given as the DCGM exporter: refused before the window.
    let port = serve("vllm:num_requests_running 3\n".to_string());
    let (code, _, err) = headroom(&[
        "diagnose",
        "--url",
        "http://127.0.0.1:1",
        "--dcgm",
        &format!("http://127.0.0.1:{port}/metrics"),
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("checking the DCGM exporter before the window")
            && err.contains("no DCGM series"),
        "{err}"
    );
}

/// `--nvidia-smi` alone runs nvidia-smi for the live window. No NVIDIA driver runs on this host,
/// so a stand-in script named nvidia-smi answers on PATH: it prints the columns asked for out of
/// the public H100 row (fixtures/nvidia-smi/h100-sxm-load.csv), as nvidia-smi prints a
/// `--query-gpu` subset, once for the check before the window and every 200 ms under `-lms`.
/// What is tested is headroom's side: the check, the child, rows stamped as they arrive and
/// matched to the window by the scrapes' clock, the child stopped at the end.
#[test]
#[cfg(unix)]
fn nvidia_smi_run_beside_a_live_window() {
    use std::os::unix::fs::PermissionsExt;
    let _serial = testpeers::serial();
    let text = std::fs::read_to_string(fixtures().join("nvidia-smi/h100-sxm-load.csv")).unwrap();
    let mut lines = text.lines();
    let cols: Vec<&str> = lines.next().unwrap().split(", ").collect();
    let row: Vec<&str> = lines.next().unwrap().split(", ").collect();
    let wanted = gputel::smi::QUERY_FIELDS
        .split(',')
        .map(|f| match f {
            "clocks.sm" => "clocks.current.sm",
            "clocks.mem" => "clocks.current.memory",
            other => other,
        })
        .collect::<Vec<_>>();
    let pick = |name: &str| {
        cols.iter()
            .position(|c| c.split(" [").next() == Some(name))
            .unwrap_or_else(|| panic!("{name}"))
    };
    let idx: Vec<usize> = wanted.iter().map(|n| pick(n)).collect();
    let header: Vec<&str> = idx.iter().map(|&i| cols[i]).collect();
    let values: Vec<&str> = idx.iter().map(|&i| row[i]).collect();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("nvidia-smi");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho '{}'\ncase \"$*\" in *-lms*) while true; do echo '{}'; sleep 0.2; done;; esac\necho '{}'\n",
            header.join(", "),
            values.join(", "),
            values.join(", ")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let emu = EmulateProc::start(&["--speed", "1"]);
    let out = Headroom::new()
        .args([
            "diagnose",
            "--url",
            &emu.url,
            "--nvidia-smi",
            "--duration",
            "3s",
            "--interval",
            "1s",
            "--json",
            "--quiet",
        ])
        .env("PATH", path)
        .output();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let r: Report = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r.shape.gpu.as_deref(), Some("h100-sxm"));
    assert_eq!(r.ceiling.gpu_from.as_deref(), Some("nvidia-smi"));
    let t = r.gpu_telemetry.expect("gpu_telemetry");
    assert!(
        t.input.starts_with(&format!(
            "nvidia-smi --query-gpu={} --format=csv -lms 1000",
            gputel::smi::QUERY_FIELDS
        )),
        "{}",
        t.input
    );
    assert_eq!(t.alignment, "clock");
    // A row every 200 ms for a 3 s window: far more than 3 inside it, whatever the start-up.
    assert!(t.in_window >= 3, "{t:?}");
    let d = &t.devices[0];
    assert_eq!(d.sm_clock_mhz, Some(1980.0));
    assert_eq!(d.power_w, Some(631.95));
    let th = d.findings.iter().find(|f| f.rule == "throttled").unwrap();
    assert_eq!(th.outcome, "held", "{th:?}");
}
