//! `headroom demo`: the whole loop on a simulated server. Start the emulator with a pathology,
//! drive its load (replayed inside the engine in simulated time, or over HTTP with
//! `--http-load`), diagnose it over HTTP exactly as `headroom diagnose` would, apply the
//! prescribed flag, restart, re-measure, and show before and after side by side.
//! JSON: docs/json/demo.md.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, ContentArrangement, Table};
use emulator::hardware::configure;
use emulator::scenario::{self, Scenario};
use emulator::server::{EmulatorServer, ServerConfig};
use emulator::ArgOverrides;
use loadgen::traffic::{drive, Arrival, DriveOptions, LoadShape};
use serde_json::{json, Value};

use super::diagnose::{collect_and_diagnose, Shape, Target, WindowRequest};
use super::emulate::find_scenario;

pub const SCHEMA: &str = "headroom.demo/1";

#[derive(clap::Args, Debug, Clone)]
#[command(after_help = "\
Everything runs on loopback against headroom's simulated vLLM (docs/emulator.md): no GPU, no \
set-up. The scenario's load (loadgen's load shapes) is replayed inside the engine in simulated \
time, so the same --seed gives the same run on any machine; --http-load sends it over HTTP \
instead. The diagnosis is the real one: /metrics scraped over HTTP, the engines adapter, the \
rules of spec 001. The window is 2 minutes of simulated time; at the default --speed 20 the \
whole demo takes well under a minute.

Examples:
  headroom demo                                   # kv-pressure: prefix caching off, KV overflows
  headroom demo --scenario concurrency-saturation
  headroom demo --scenario weights-dont-fit --json
  headroom demo --scenario no-prefix-caching --http-load --speed 10
  headroom demo --list

JSON schema: docs/json/demo.md ({scenario, before, applied_fix, after}; before and after are \
headroom.diagnose/1 documents).")]
pub struct Args {
    /// The pathology to run (see --list).
    #[arg(long, default_value = "kv-pressure")]
    pub scenario: String,
    /// List the scenarios and exit.
    #[arg(long)]
    pub list: bool,
    /// Simulated seconds per wall second.
    #[arg(long, default_value_t = 20.0)]
    pub speed: f64,
    /// Seed of the load and the generated tokens (default: the scenario's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Print one JSON object instead of the side-by-side table.
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr.
    #[arg(long)]
    pub quiet: bool,
    /// Send the load over HTTP with loadgen's client instead of replaying it inside the engine
    /// (exercises the API; needs a lightly loaded machine to keep up at high --speed).
    #[arg(long)]
    pub http_load: bool,
}

/// What the demo changed between the two runs.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AppliedFix {
    /// "flag" (an engine flag), "load" (the client side), or "none".
    pub kind: &'static str,
    /// The rule whose prescription was applied.
    pub rule: Option<String>,
    pub flag: Option<String>,
    pub value: Option<String>,
    /// The prescription step as diagnose wrote it, or why nothing was applied.
    pub text: String,
    pub command_line_before: String,
    pub command_line_after: Option<String>,
}

/// Chooses the first step of the primary's prescription that the emulator can apply, and
/// returns the new flags (or load).
pub fn choose_fix(
    primary: &Value,
    args: &ArgOverrides,
    current_util: f64,
    load: &LoadShape,
) -> (Option<ArgOverrides>, Option<LoadShape>, AppliedFix) {
    let rule = primary["rule"].as_str().map(str::to_string);
    let none = |text: String| AppliedFix {
        kind: "none",
        rule: rule.clone(),
        flag: None,
        value: None,
        text,
        command_line_before: String::new(),
        command_line_after: None,
    };
    let steps = primary["fix"].as_array().cloned().unwrap_or_default();
    for st in &steps {
        let Some(flag) = st["flag"].as_str() else {
            continue;
        };
        let value = st["value"].as_str().map(str::to_string);
        let text = st["text"].as_str().unwrap_or("").to_string();
        let num = |v: &Option<String>| v.as_deref().and_then(|v| v.parse::<f64>().ok());
        let mut o = args.clone();
        let applied_value: Option<String> = match flag {
            "--enable-prefix-caching" => {
                o.enable_prefix_caching = Some(true);
                None
            }
            "--kv-cache-dtype fp8" => {
                o.kv_cache_dtype = Some("fp8".into());
                None
            }
            "--max-num-seqs" => match num(&value) {
                Some(v) if v >= 1.0 => {
                    o.max_num_seqs = Some(v as u32);
                    value.clone()
                }
                _ => continue,
            },
            "--max-num-batched-tokens" => match num(&value) {
                Some(v) if v >= 1.0 => {
                    o.max_num_batched_tokens = Some(v as u32);
                    value.clone()
                }
                _ => continue,
            },
            "--tensor-parallel-size" => match num(&value) {
                Some(v) if v >= 1.0 => {
                    o.tensor_parallel_size = Some(v as u32);
                    value.clone()
                }
                _ => continue,
            },
            "--gpu-memory-utilization" => {
                // A step without a value means "raise it": by 0.05, at most 0.95.
                let v = num(&value).unwrap_or((current_util + 0.05).min(0.95));
                if v <= current_util {
                    continue;
                }
                o.gpu_memory_utilization = Some(v);
                Some(format!("{v:.2}"))
            }
            _ => continue,
        };
        return (
            Some(o),
            None,
            AppliedFix {
                kind: "flag",
                rule: rule.clone(),
                flag: Some(flag.to_string()),
                value: applied_value,
                text,
                command_line_before: String::new(),
                command_line_after: None,
            },
        );
    }
    // Under-batching is fixed on the client side: raise concurrency one step (×4).
    if rule.as_deref() == Some("R1") {
        if let Arrival::Closed { clients, think_s } = load.arrival {
            let mut l = load.clone();
            let more = clients.saturating_mul(4).max(clients + 1);
            l.arrival = Arrival::Closed {
                clients: more,
                think_s,
            };
            let text = steps
                .first()
                .and_then(|s| s["text"].as_str())
                .unwrap_or("raise client concurrency")
                .to_string();
            return (
                None,
                Some(l),
                AppliedFix {
                    kind: "load",
                    rule: rule.clone(),
                    flag: None,
                    value: Some(format!("{clients} → {more} concurrent clients")),
                    text,
                    command_line_before: String::new(),
                    command_line_after: None,
                },
            );
        }
    }
    let first = steps
        .first()
        .and_then(|s| s["text"].as_str())
        .unwrap_or("no prescription");
    (
        None,
        None,
        none(format!(
            "no step of the prescription is a flag the emulator can apply ({first})"
        )),
    )
}

struct Phase {
    doc: Value,
    command_line: String,
    /// What the load driver did (docs/json/demo.md `load`).
    load: Value,
    lags: u64,
}

fn say(quiet: bool, msg: &str) {
    if !quiet {
        eprintln!("demo: {msg}");
    }
}

/// One run: start the emulator, drive its load, diagnose a window over HTTP, stop.
async fn phase(
    s: &Scenario,
    o: &ArgOverrides,
    load: &LoadShape,
    seed: u64,
    speed: f64,
    http_load: bool,
    quiet: bool,
) -> Result<Phase> {
    let configured = configure(s.gpu, s.model, o)?;
    let command_line = configured.command_line();
    let addr: SocketAddr = "127.0.0.1:0".parse().expect("loopback address");
    let srv = EmulatorServer::start(
        ServerConfig {
            configured: configured.clone(),
            speed,
            // Replayed in simulated time, the load is the same on any machine and any --speed.
            drive: (!http_load).then(|| (load.clone(), seed)),
        },
        addr,
    )
    .await
    .context("starting the emulator on loopback")?;
    let url = srv.url();
    say(quiet, &format!("emulator at {url}: {command_line}"));
    let warmup = Duration::from_secs_f64(s.warmup_s / speed);
    let window = Duration::from_secs_f64(s.window_s / speed);
    let interval = s.interval_s / speed;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let driver = if http_load {
        let clients = match load.arrival {
            Arrival::Closed { clients, .. } => clients as usize,
            Arrival::Open { .. } => 1024,
        };
        let client = loadgen::Client::new(
            &url,
            loadgen::ClientConfig {
                first_token_timeout: Duration::from_secs(600),
                idle_timeout: Duration::from_secs(600),
                max_in_flight: clients.max(8),
                ..Default::default()
            },
        )?;
        let (shape, seed_c) = (load.clone(), seed);
        // Until stopped after the window (the duration is only a safety net).
        let safety = (warmup + window) * 10 + Duration::from_secs(60);
        Some(tokio::spawn(async move {
            drive(
                client,
                &shape,
                seed_c,
                &DriveOptions {
                    time_scale: speed,
                    duration: safety,
                    model: None,
                    max_in_flight: 4096,
                    stop: Some(stop_rx),
                },
            )
            .await
        }))
    } else {
        None
    };
    say(
        quiet,
        &format!(
            "{} load: {:.0} s simulated warm-up, then a {:.0} s window ({:.1} s wall at ×{speed})",
            if http_load { "HTTP" } else { "driven" },
            s.warmup_s,
            s.window_s,
            (warmup + window).as_secs_f64()
        ),
    );
    // Warm up in simulated time: on a loaded machine the simulation may run slower than
    // --speed, and the window must still open on a warmed-up server.
    let deadline = Instant::now() + warmup * 10 + Duration::from_secs(10);
    while srv.snapshot().sim_seconds < s.warmup_s && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let req = WindowRequest {
        shape: Shape {
            url: Some(url.clone()),
            duration_s: window.as_secs_f64(),
            interval_s: interval,
            gpu: Some(s.gpu.to_string()),
            model: Some(s.model.to_string()),
            gguf: None,
            engine_args: Some(command_line.clone()),
            tp: None,
            dtype: None,
            quantization: o.quantization.clone(),
            price_per_hour: None,
            sub_windows: 6,
        },
        target: Target {
            gpu: Some(s.gpu.to_string()),
            model: Some(s.model.to_string()),
            quantization: o.quantization.clone(),
            ..Default::default()
        },
        pid: None,
        replay: None,
        record: None,
        progress: false,
    };
    let report = collect_and_diagnose(&req).await;
    // Stop the load first (open requests are cut), then the engine.
    let _ = stop_tx.send(true);
    let snap = srv.snapshot();
    let load_doc = match driver {
        Some(d) => {
            let r = d.await.unwrap_or_default();
            let mut v = serde_json::to_value(&r)?;
            v["driver"] = json!("http");
            v
        }
        None => json!({
            "driver": "engine",
            "sent": snap.driven_submitted,
            "refused": snap.driven_rejected,
        }),
    };
    let lags = snap.lags;
    tokio::task::spawn_blocking(move || srv.shutdown()).await?;
    let report = report.context("diagnosing the emulator")?;
    let doc = report.to_json();
    say(
        quiet,
        &format!(
            "diagnosed: primary {}",
            doc["primary"]["rule"].as_str().unwrap_or("none")
        ),
    );
    Ok(Phase {
        doc,
        command_line,
        load: load_doc,
        lags,
    })
}

fn list() -> Result<()> {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(vec!["scenario", "primary", "what it is"]);
    for s in scenario::all() {
        t.add_row(vec![
            s.name.to_string(),
            s.expect.primary.unwrap_or("none").to_string(),
            s.summary.to_string(),
        ]);
    }
    println!("{t}");
    Ok(())
}

pub fn run(a: Args) -> Result<()> {
    if a.list {
        return list();
    }
    if !(a.speed.is_finite() && a.speed > 0.0) {
        bail!("--speed {}: must be a positive number", a.speed);
    }
    let s = find_scenario(&a.scenario)?;
    let seed = a.seed.unwrap_or(s.seed);
    let quiet = a.quiet;
    let started = Instant::now();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let (before, fix, after) = rt.block_on(async {
        say(quiet, &format!("scenario {}: {}", s.name, s.summary));
        let before = phase(&s, &s.args, &s.load, seed, a.speed, a.http_load, quiet).await?;
        let util = configure(s.gpu, s.model, &s.args)?
            .args
            .gpu_memory_utilization;
        let primary = before.doc["primary"].clone();
        let (mut fix, new_args, new_load) = if primary.is_null() {
            (
                AppliedFix {
                    kind: "none",
                    rule: None,
                    flag: None,
                    value: None,
                    text: "no rule fired: nothing to fix".into(),
                    command_line_before: String::new(),
                    command_line_after: None,
                },
                None,
                None,
            )
        } else {
            let (o, l, f) = choose_fix(&primary, &s.args, util, &s.load);
            (f, o, l)
        };
        fix.command_line_before = before.command_line.clone();
        let after = if fix.kind == "none" {
            None
        } else {
            let o = new_args.unwrap_or_else(|| s.args.clone());
            let l = new_load.unwrap_or_else(|| s.load.clone());
            say(
                quiet,
                &format!(
                    "applying {}: {}",
                    fix.flag.as_deref().unwrap_or("client-side"),
                    fix.text
                ),
            );
            let p = phase(&s, &o, &l, seed, a.speed, a.http_load, quiet).await?;
            fix.command_line_after = Some(p.command_line.clone());
            Some(p)
        };
        Ok::<_, anyhow::Error>((before, fix, after))
    })?;
    let elapsed = started.elapsed().as_secs_f64();
    if a.json {
        let v = json!({
            "schema": SCHEMA,
            "scenario": {
                "name": s.name,
                "summary": s.summary,
                "gpu": s.gpu,
                "model": s.model,
                "expected_primary": s.expect.primary,
                "seed": seed,
                "speed": a.speed,
                "warmup_s": s.warmup_s,
                "window_s": s.window_s,
                "simulated": true,
            },
            "before": before.doc,
            "applied_fix": fix,
            "after": after.as_ref().map(|p| &p.doc),
            "load": {
                "before": before.load,
                "after": after.as_ref().map(|p| &p.load),
            },
            "lags": before.lags + after.as_ref().map_or(0, |p| p.lags),
            "wall_seconds": elapsed,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    print!(
        "{}",
        render(
            &s,
            &before.doc,
            &fix,
            after.as_ref().map(|p| &p.doc),
            elapsed
        )
    );
    Ok(())
}

fn f1(v: &Value, unit: &str, scale: f64) -> String {
    match v.as_f64() {
        Some(x) => format!("{:.1}{unit}", x * scale),
        None => "-".into(),
    }
}

/// Seconds as ms below one second.
fn secs(v: &Value) -> String {
    match v.as_f64() {
        Some(x) if x < 1.0 => format!("{:.0} ms", x * 1e3),
        Some(x) => format!("{x:.1} s"),
        None => "-".into(),
    }
}

fn pct(v: &Value) -> String {
    match v.as_f64() {
        Some(x) => format!("{:.0}%", x * 100.0),
        None => "-".into(),
    }
}

fn primary_line(d: &Value) -> String {
    match d["primary"]["rule"].as_str() {
        Some(r) => {
            let variant = d["primary"]["variant"]
                .as_str()
                .map(|v| format!(" ({v})"))
                .unwrap_or_default();
            format!(
                "{r} {}{variant}",
                d["primary"]["title"].as_str().unwrap_or("")
            )
        }
        None => "none".into(),
    }
}

/// The side-by-side report.
pub fn render(
    s: &Scenario,
    before: &Value,
    fix: &AppliedFix,
    after: Option<&Value>,
    elapsed: f64,
) -> String {
    let mut out = String::new();
    out += &format!(
        "headroom demo: {} on a SIMULATED {} × {} (headroom's emulator, {:.0} s wall)\n{}\n\n",
        s.name, s.gpu, s.model, elapsed, s.summary
    );
    type Row = (&'static str, Box<dyn Fn(&Value) -> String>);
    let rows: Vec<Row> = vec![
        ("primary", Box::new(primary_line)),
        (
            "generation tok/s",
            Box::new(|d| f1(&d["throughput"]["generation_tokens_per_s"], "", 1.0)),
        ),
        (
            "prompt tok/s",
            Box::new(|d| f1(&d["throughput"]["prompt_tokens_per_s"], "", 1.0)),
        ),
        (
            "running (mean)",
            Box::new(|d| f1(&d["requests"]["running"]["mean"], "", 1.0)),
        ),
        (
            "waiting (mean)",
            Box::new(|d| f1(&d["requests"]["waiting"]["mean"], "", 1.0)),
        ),
        (
            "KV usage mean / peak",
            Box::new(|d| {
                format!(
                    "{} / {}",
                    pct(&d["kv"]["usage"]["mean"]),
                    pct(&d["kv"]["usage"]["peak"])
                )
            }),
        ),
        (
            "prefix-cache hit rate",
            Box::new(|d| pct(&d["prefix"]["hit_rate"])),
        ),
        (
            "TTFT p50 / p95",
            Box::new(|d| {
                format!(
                    "{} / {}",
                    secs(&d["latency"]["ttft_s"]["p50"]),
                    secs(&d["latency"]["ttft_s"]["p95"])
                )
            }),
        ),
        (
            "time per output token",
            Box::new(|d| f1(&d["latency"]["tpot_s"]["mean"], " ms", 1e3)),
        ),
        (
            "efficiency (config-relative)",
            Box::new(|d| pct(&d["efficiency"]["config_relative"])),
        ),
    ];
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(vec!["", "before", "after"]);
    for (label, f) in &rows {
        t.add_row(vec![
            Cell::new(label),
            Cell::new(f(before)),
            Cell::new(after.map(f).unwrap_or_else(|| "-".into())),
        ]);
    }
    out += &format!("{t}\n\n");
    if let Some(ev) = before["primary"]["evidence"].as_array() {
        out += &format!("Before: {}\n", primary_line(before));
        for e in ev {
            out += &format!("  - {}\n", e.as_str().unwrap_or(""));
        }
    }
    match fix.kind {
        "flag" => {
            out += &format!(
                "Applied: {}{} ({})\n  before: {}\n  after:  {}\n",
                fix.flag.as_deref().unwrap_or(""),
                fix.value
                    .as_deref()
                    .map(|v| format!(" {v}"))
                    .unwrap_or_default(),
                fix.text,
                fix.command_line_before,
                fix.command_line_after.as_deref().unwrap_or("-"),
            )
        }
        "load" => {
            out += &format!(
                "Applied on the client side: {} ({})\n",
                fix.value.as_deref().unwrap_or(""),
                fix.text
            )
        }
        _ => out += &format!("Nothing applied: {}\n", fix.text),
    }
    if let Some(a) = after {
        let b = before["primary"]["rule"].as_str();
        let now = a["primary"]["rule"].as_str();
        let verdict = match (b, now) {
            (Some(b), Some(n)) if b == n => {
                let g = |d: &Value| d["throughput"]["generation_tokens_per_s"].as_f64();
                match (g(before), g(a)) {
                    (Some(x), Some(y)) if x > 0.0 => format!(
                        "{b} still fires (generation {x:.0} → {y:.0} tok/s, ×{:.2}): take the next step of its prescription",
                        y / x
                    ),
                    _ => format!("{b} still fires: take the next step of its prescription"),
                }
            }
            (Some(b), Some(_)) => format!("{b} cleared; next: {}", primary_line(a)),
            (Some(b), None) => format!("{b} cleared; no rule fires"),
            _ => "no change".into(),
        };
        out += &format!("After: {verdict}\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(clients: u32) -> LoadShape {
        let mut l = emulator::scenario::find("under-batching").unwrap().load;
        l.arrival = Arrival::Closed {
            clients,
            think_s: 0.0,
        };
        l
    }

    #[test]
    fn the_first_applicable_flag_is_chosen() {
        let primary = json!({"rule": "R2", "fix": [
            {"flag": "--kv-offloading-size", "value": null, "text": "offload", "cost": "safe"},
            {"flag": "--enable-prefix-caching", "value": null, "text": "turn it on", "cost": "safe"},
        ]});
        let (o, l, f) = choose_fix(&primary, &ArgOverrides::default(), 0.9, &shape(4));
        assert_eq!(o.unwrap().enable_prefix_caching, Some(true));
        assert!(l.is_none());
        assert_eq!(
            (f.kind, f.flag.as_deref()),
            ("flag", Some("--enable-prefix-caching"))
        );

        let primary = json!({"rule": "R2", "fix": [
            {"flag": "--gpu-memory-utilization", "value": "0.55", "text": "more", "cost": "safe"}]});
        let (o, _, f) = choose_fix(&primary, &ArgOverrides::default(), 0.5, &shape(4));
        assert_eq!(o.unwrap().gpu_memory_utilization, Some(0.55));
        assert_eq!(f.value.as_deref(), Some("0.55"));

        let primary = json!({"rule": "R5", "fix": [
            {"flag": "--max-num-seqs", "value": "100", "text": "seats", "cost": null}]});
        let (o, _, _) = choose_fix(&primary, &ArgOverrides::default(), 0.9, &shape(4));
        assert_eq!(o.unwrap().max_num_seqs, Some(100));
    }

    #[test]
    fn under_batching_raises_client_concurrency() {
        let primary = json!({"rule": "R1", "fix": [{"flag": null, "value": null, "text": "raise client concurrency", "cost": null}]});
        let (o, l, f) = choose_fix(&primary, &ArgOverrides::default(), 0.9, &shape(4));
        assert!(o.is_none());
        assert_eq!(
            l.unwrap().arrival,
            Arrival::Closed {
                clients: 16,
                think_s: 0.0
            }
        );
        assert_eq!(f.kind, "load");
    }

    #[test]
    fn nothing_applicable_says_why() {
        let primary = json!({"rule": "R3", "fix": [{"flag": null, "value": null, "text": "restructure prompts", "cost": null}]});
        let (o, l, f) = choose_fix(&primary, &ArgOverrides::default(), 0.9, &shape(4));
        assert!(o.is_none() && l.is_none());
        assert_eq!(f.kind, "none");
        assert!(f.text.contains("restructure prompts"));
    }
}
