//! `headroom trace` end to end, on the real traces in fixtures/traces (sources in SOURCES.md there).
//!
//! The MI250 figures below are hand-counted from the file (16 device events, listed here):
//!   memcpy 22.441 + 15.720 = 38.161 µs (2 events)
//!   kernels 6.88 + 17.6 + 6.72 + 8.32 + 11.04 + 3.36 + 2.24 + 5.28 + 5.6 + 12.64 + 13.6
//!           + 4.96 + 4.16 + 8.481 = 110.881 µs (14 events), one stream, no overlap
//!   device sum 149.042 µs; gpu_user_annotation 8.483 + 1031.368 = 1039.851 µs (2 spans)
//!   first device ts 4203669603454.206, last end 4203669612357.612 + 8.481 → span 8911.887 µs
//!   CPU ProfilerStep#1 at 4203669603187.439 for 9288.291, #2 at 4203669612512.74 for 49.073

use serde_json::Value;
use std::path::PathBuf;
use trace::doc::TraceDoc;

use crate::util::Headroom;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/traces")
        .join(name)
}

const MI250: &str = "hta_mi250_minitoy_train_rocm6.2.json.gz";
const A100: &str = "hta_a100_nccl_data.json.gz";
const V100: &str = "hta_v100_df_index_resolver.json.gz";

fn doc(stdout: &[u8]) -> TraceDoc {
    serde_json::from_slice(stdout).expect("--json prints one headroom.trace/1 document")
}

fn close(a: impl Into<Option<f64>>, b: f64) {
    let a = a.into().expect("a number, not null");
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} vs {b}");
}

/// A file under the system temp dir, removed when dropped.
struct Temp(PathBuf);
impl Temp {
    fn new(name: &str, bytes: &[u8]) -> Self {
        let p = std::env::temp_dir().join(format!("headroom-trace-{}-{name}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        Temp(p)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}
impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn gunzip(name: &str) -> Vec<u8> {
    let (mut r, _) = trace::input::open(&fixture(name)).unwrap();
    let mut v = vec![];
    std::io::Read::read_to_end(&mut r, &mut v).unwrap();
    v
}

#[test]
fn json_holds_the_hand_counted_mi250_figures() {
    let f = fixture(MI250);
    let j = Headroom::cmd(&["trace"])
        .args([f.to_str().unwrap(), "--json"])
        .json::<TraceDoc>();
    assert_eq!(j.schema, trace::doc::SCHEMA);
    assert_eq!(j.encoding, "gzip");
    assert!(j.complete);
    assert!(j.stopped.is_none());
    assert_eq!(j.vendor, "rocm");
    close(j.device_total_us, 149.042);
    close(j.busy_us, 149.042);
    close(j.overlap_us, 0.0);
    close(j.span_us, 8911.887);
    close(j.busy_fraction, 149.042 / 8911.887);
    assert_eq!(
        (j.counts.kernel, j.counts.gpu_memcpy, j.counts.gpu_memset),
        (14, 2, 0)
    );
    assert_eq!(j.annotation.count, 2);
    close(j.annotation.total_us, 1039.851);
    close(j.annotation.inflation, (149.042 + 1039.851) / 149.042);
    let largest = j.annotation.largest.as_ref().unwrap();
    assert_eq!(largest.name, "ProfilerStep#1");
    close(
        largest.naive_percent,
        1031.368 * 100.0 / (149.042 + 1039.851),
    );

    let k = &j.kernels;
    assert_eq!(
        k.len(),
        13,
        "13 distinct names (two kernels and the memcpy ran twice)"
    );
    assert_eq!(j.kernels_total, 13);
    assert_eq!(k[0].name, "Memcpy HtoD (Host -> Device)");
    assert_eq!(k[0].cat, "gpu_memcpy");
    assert_eq!(k[0].count, 2);
    close(k[0].total_us, 38.161);
    close(k[0].us_per_call, 38.161 / 2.0);
    close(k[0].min_us, 15.72);
    close(k[0].max_us, 22.441);
    close(k[0].percent, 38.161 * 100.0 / 149.042);
    assert!(k[0].ms_per_token.is_none());
    assert_eq!(k[1].name.get(..5), Some("Cijk_"));
    assert_eq!(k[1].symbol, "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs");
    let pct: f64 = k.iter().map(|r| r.percent).sum();
    assert!((pct - 100.0).abs() < 1e-9);
    for w in k.windows(2) {
        assert!(w[0].total_us >= w[1].total_us, "ranked by total");
    }
    assert_eq!(j.devices[0].device, 2);
    assert_eq!(j.devices[0].name.as_deref(), Some("AMD Radeon Graphics"));
    assert_eq!(j.streams.len(), 1);
    assert_eq!(j.flows.category.as_deref(), Some("ac2g"));
    assert_eq!(j.steps.iter().filter(|s| !s.on_device).count(), 2);
    let v = j.verdict.as_ref().unwrap();
    assert_eq!(v.wall_source, "device_span");
    close(v.wall_us, 8911.887);
    assert!(!v.plan);
    close(v.threshold, 0.9);
}

#[test]
fn steps_and_tokens_give_the_window_and_the_verdict() {
    let f = fixture(MI250);
    let j = Headroom::cmd(&["trace"])
        .args([
            f.to_str().unwrap(),
            "--json",
            "--steps",
            "1..2",
            "--tokens",
            "4",
        ])
        .json::<TraceDoc>();
    let w = j.window.as_ref().unwrap();
    assert_eq!((w.first_step, w.last_step), (1, 2));
    // 4203669612512.740 + 49.073 - 4203669603187.439, done in decimal.
    close(w.duration_us, 9374.374);
    assert_eq!(w.device_events_outside, 0);
    let v = j.verdict.as_ref().unwrap();
    assert_eq!(v.wall_source, "profiler_steps");
    let wall = 9374.374;
    close(v.wall_us, wall);
    close(v.ratio, 149.042 / wall);
    assert!(!v.plan);
    close(v.kernel_ms_per_token, 0.149042 / 4.0);
    close(v.wall_ms_per_token, wall / 1e3 / 4.0);
    close(v.tokens_per_s, 4.0 / (wall / 1e6));
    close(j.kernels[0].ms_per_token, 0.038161 / 4.0);

    // Step #2 holds no device event: the verdict has nothing to judge.
    let j = Headroom::cmd(&["trace"])
        .args([f.to_str().unwrap(), "--json", "--steps", "2"])
        .json::<TraceDoc>();
    assert!(j.kernels.is_empty());
    assert_eq!(j.window.unwrap().device_events_outside, 16);
    assert!(j.verdict.is_none());

    // A multi-step training trace: the window leaves steps out.
    let f = fixture(V100);
    let j = Headroom::cmd(&["trace"])
        .args([
            f.to_str().unwrap(),
            "--json",
            "--steps",
            "3..5",
            "--top",
            "3",
        ])
        .json::<TraceDoc>();
    assert_eq!(j.kernels.len(), 3);
    assert_eq!(j.kernels_total, 51);
    assert!(j.window.unwrap().device_events_outside > 1000);
    assert_eq!(j.verdict.unwrap().wall_source, "profiler_steps");
}

#[test]
fn absent_steps_are_named() {
    let f = fixture(MI250);
    let out = Headroom::cmd(&["trace"])
        .args([f.to_str().unwrap(), "--steps", "3..4"])
        .output();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ProfilerStep#3") && err.contains("#1, #2"),
        "{err}"
    );
    assert!(err.contains(MI250), "{err}");
}

#[test]
fn steps_after_device_events_take_a_second_pass() {
    // Move the CPU ProfilerSteps to the end of traceEvents. The trace is Kineto's input format,
    // not a headroom document: it is edited as JSON.
    let mut kineto: Value = serde_json::from_slice(&gunzip(MI250)).unwrap();
    let ev = kineto["traceEvents"].as_array_mut().unwrap();
    let (steps, rest): (Vec<Value>, Vec<Value>) = ev.drain(..).partition(|e| {
        e["cat"] == "user_annotation"
            && e["name"]
                .as_str()
                .unwrap_or("")
                .starts_with("ProfilerStep#")
    });
    assert_eq!(steps.len(), 2);
    ev.extend(rest);
    ev.extend(steps);
    let late = Temp::new("late-steps.json", &serde_json::to_vec(&kineto).unwrap());
    let out = Headroom::cmd(&["trace"])
        .args([late.path(), "--json", "--steps", "1..1"])
        .output_ok();
    assert!(String::from_utf8_lossy(&out.stderr).contains("reading the trace twice"));
    let j = doc(&out.stdout);
    let direct = Headroom::cmd(&["trace"])
        .args([
            fixture(MI250).to_str().unwrap(),
            "--json",
            "--steps",
            "1..1",
        ])
        .json::<TraceDoc>();
    assert_eq!(j.kernels, direct.kernels);
    assert_eq!(j.window, direct.window);

    // Standard input cannot be read twice.
    let out = Headroom::cmd(&["trace", "-", "--steps", "1..1"])
        .stdin_bytes(std::fs::read(late.path()).unwrap())
        .run();
    assert!(!out.success());
    assert!(out.stderr.contains("standard input"));
}

#[test]
fn gzip_on_standard_input() {
    let gz = std::fs::read(fixture(MI250)).unwrap();
    let out = Headroom::cmd(&["trace", "-", "--json"])
        .stdin_bytes(gz)
        .run();
    assert!(out.success());
    let j = doc(&out.stdout_bytes);
    close(j.device_total_us, 149.042);
    assert_eq!(j.encoding, "gzip");
}

#[test]
fn csv_for_every_grouping() {
    let f = fixture(A100);
    let j = Headroom::cmd(&["trace"])
        .args([f.to_str().unwrap(), "--json"])
        .json::<TraceDoc>();
    for (by, head, rows) in [
        ("name", "rank,name,symbol,cat,total_us", j.kernels.len()),
        ("symbol", "rank,symbol,cat,names,total_us", j.symbols.len()),
        ("stream", "rank,device,stream,total_us", 2),
        ("device", "device,name,total_us,count,busy_us", 1),
    ] {
        let out = Headroom::cmd(&["trace"])
            .args([f.to_str().unwrap(), "--csv", "--by", by])
            .output_ok();
        let text = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with(head), "{by}: {}", lines[0]);
        // Rows with quoted names (commas inside templates) still count as one line each.
        assert_eq!(lines.len() - 1, rows, "{by}");
    }
    let out = Headroom::cmd(&["trace"])
        .args([f.to_str().unwrap(), "--csv", "--top", "1"])
        .output();
    let text = String::from_utf8(out.stdout).unwrap();
    let row = text.lines().nth(1).unwrap();
    let name = &j.kernels[0].name;
    let quoted = if name.contains(',') {
        format!("\"{name}\"")
    } else {
        name.to_string()
    };
    assert!(row.starts_with(&format!("1,{quoted},")), "{row}");
}

#[test]
fn human_table_shows_the_traps() {
    let f = fixture(A100);
    let out = Headroom::cmd(&["trace"])
        .args([f.to_str().unwrap(), "--top", "5", "--tokens", "100"])
        .output_ok();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Device time by full name (top 5 of 72"),
        "{text}"
    );
    assert!(text.contains("ms/token"));
    assert!(
        text.contains("ncclKernel_AllReduce_RING_LL_Sum_float"),
        "{text}"
    );
    assert!(text.contains("gpu_user_annotation  30 spans"), "{text}");
    assert!(text.contains("NOT device time"));
    assert!(
        text.contains("busy (union)") && text.contains("the sum exceeds it by"),
        "A100 streams overlap: {text}"
    );
    assert!(text.contains("ProfilerSteps #4, #5, #6"), "{text}");
    assert!(text.contains("Verdict: "));
    assert!(text.contains("Over 100 tokens"));

    let out = Headroom::cmd(&["trace"])
        .args([f.to_str().unwrap(), "--by", "symbol", "--top", "3"])
        .output();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("by stripped symbol"));
    assert!(
        text.contains("at::native::vectorized_elementwise_kernel"),
        "{text}"
    );
}

#[test]
fn truncated_trace_reports_where_it_stopped() {
    let full = gunzip(A100);
    let cut = full.len() * 2 / 3;
    let t = Temp::new("cut.json", &full[..cut]);
    let out = Headroom::cmd(&["trace"])
        .args([t.path(), "--json"])
        .output_ok();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning") && err.contains("byte"), "{err}");
    let j = doc(&out.stdout);
    assert!(!j.complete);
    let s = j.stopped.as_ref().unwrap();
    assert_eq!(s.kind, "truncated");
    let off = s.byte_offset;
    assert!(
        off <= cut as u64 && off > cut as u64 - 20_000,
        "{off} vs cut {cut}"
    );
    assert_eq!(s.event_index, j.events);
    assert!(s.reason.contains("traceEvents["));
    // The bytes before the stop are whole events.
    assert_eq!(full[off as usize], b'{');

    let out = Headroom::cmd(&["trace"]).args([t.path()]).output();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("STOPPED EARLY"), "{text}");

    // A gzip cut in the middle.
    let gz = std::fs::read(fixture(A100)).unwrap();
    let t = Temp::new("cut.json.gz", &gz[..gz.len() / 2]);
    let j = Headroom::cmd(&["trace"])
        .args([t.path(), "--json"])
        .json::<TraceDoc>();
    assert!(!j.complete);
    let s = j.stopped.unwrap();
    assert!(s.reason.contains("read error"), "{s:?}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let t = Temp::new("not-a-trace.txt", b"GGUF\x03\x00\x00\x00 this is not JSON");
    let out = Headroom::cmd(&["trace"]).args([t.path()]).output();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(t.path()) && err.contains("byte 0") && err.contains("not a Kineto trace"),
        "{err}"
    );

    let t = Temp::new(
        "no-events.json",
        b"{\"schemaVersion\": 1, \"traceName\": \"x\"}",
    );
    let err = String::from_utf8_lossy(&Headroom::cmd(&["trace"]).args([t.path()]).output().stderr)
        .into_owned();
    assert!(
        err.contains("no \"traceEvents\"") && err.contains("schemaVersion, traceName"),
        "{err}"
    );

    let err = String::from_utf8_lossy(
        &Headroom::cmd(&["trace"])
            .args(["/nonexistent/run.pt.trace.json.gz"])
            .output()
            .stderr,
    )
    .into_owned();
    assert!(err.contains("/nonexistent/run.pt.trace.json.gz"), "{err}");

    let out = Headroom::cmd(&["trace"])
        .args([fixture(MI250).to_str().unwrap(), "--steps", "x..2"])
        .output();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("step number"));
}

#[test]
fn help_has_examples() {
    let out = Headroom::cmd(&["trace"]).args(["--help"]).output();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Examples:"));
    assert!(text.contains("--steps 3..7"));
    assert!(text.contains("docs/json/trace.md"));
}

#[test]
fn first_generation_kineto_names_are_read() {
    // The 2021 (PyTorch 1.8) vocabulary: Operator / Runtime / Kernel / Memcpy, async_cpu_to_gpu.
    let t = Temp::new(
        "old-kineto.json",
        br#"{"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "Operator", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 100, "dur": 900},
  {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"correlation": 7}},
  {"ph": "s", "id": 7, "pid": 1, "tid": 1, "ts": 110, "cat": "async_cpu_to_gpu", "name": "async_gpu"},
  {"ph": "X", "cat": "Kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 120, "dur": 600, "args": {"device": 0, "stream": 7, "correlation": 7}},
  {"ph": "f", "id": 7, "pid": 0, "tid": 7, "ts": 120, "cat": "async_cpu_to_gpu", "name": "async_gpu", "bp": "e"},
  {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7, "ts": 730, "dur": 200, "args": {"device": 0, "stream": 7}}
]}"#,
    );
    let j = Headroom::cmd(&["trace"])
        .args([t.path(), "--json", "--steps", "3"])
        .json::<TraceDoc>();
    assert_eq!(j.flows.category.as_deref(), Some("async_cpu_to_gpu"));
    assert_eq!(j.flows.count, 2);
    assert_eq!(j.counts.kernel, 1);
    assert_eq!(j.counts.gpu_memcpy, 1);
    assert_eq!(j.kernels[0].cat, "kernel");
    close(j.device_total_us, 800.0);
    assert_eq!(j.runtime.launch.count, 1);
    assert_eq!(j.vendor, "cuda");
    let v = j.verdict.unwrap();
    close(v.wall_us, 900.0);
    close(v.ratio, 800.0 / 900.0);
    assert!(!v.plan);
}
