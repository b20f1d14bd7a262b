//! `headroom demo`: the whole loop on a simulated server. Start the emulator with a pathology,
//! drive its load (replayed inside the engine in simulated time, or over HTTP with
//! `--http-load`), diagnose it over HTTP exactly as `headroom diagnose` would, apply the
//! prescribed flag, restart, re-measure, and show before and after side by side.
//! JSON: docs/json/demo.md.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use comfy_table::Cell;
use diagnose::report::{Fired, Report};
use diagnose::RuleId;
use emulator::hardware::configure;
use emulator::scenario::{self, Scenario};
use emulator::server::{EmulatorServer, ServerConfig};
use emulator::ArgOverrides;
use loadgen::traffic::{drive, Arrival, DriveOptions, LoadShape};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::diagnose::{collect_and_diagnose, Shape, WindowRequest};
use super::emulate::find_scenario;
use crate::output::{self, Exit};

/// Most steps of one prescription the demo takes before it stops.
const MAX_STEPS: usize = 4;

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

When a step improves the server without clearing its primary, the demo takes the next step of \
the same prescription, and shows the chain (step, throughput, primary) until the primary clears \
or the steps run out.

JSON schema: docs/json/demo.md ({scenario, before, applied_fix, after, chain}; before and after \
are headroom.diagnose/1 documents).")]
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

/// What kind of change a step made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FixKind {
    /// An engine flag.
    Flag,
    /// The client side.
    Load,
    /// Nothing applicable.
    None,
}

/// What the demo changed between two runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppliedFix {
    pub kind: FixKind,
    /// The rule whose prescription was applied.
    pub rule: Option<RuleId>,
    /// The knob the step turned (for a flag).
    #[serde(default)]
    pub knob: Option<diagnose::Knob>,
    pub flag: Option<String>,
    pub value: Option<String>,
    /// The prescription step as diagnose wrote it, or why nothing was applied.
    pub text: String,
    pub command_line_before: String,
    pub command_line_after: Option<String>,
}

/// The `headroom demo --json` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Demo {
    pub schema: String,
    pub scenario: ScenarioInfo,
    pub before: Report,
    /// The first step applied.
    pub applied_fix: AppliedFix,
    /// The last run: after the last step taken; null when nothing was applied.
    pub after: Option<Report>,
    /// Every step taken, in order.
    pub chain: Vec<ChainStep>,
    pub load: Loads,
    pub lags: u64,
    pub wall_seconds: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioInfo {
    pub name: String,
    pub summary: String,
    pub gpu: String,
    pub model: String,
    pub expected_primary: Option<String>,
    pub seed: u64,
    pub speed: f64,
    pub warmup_s: f64,
    pub window_s: f64,
    pub simulated: bool,
}

/// One step of the chain and what the run after it measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainStep {
    pub step: usize,
    pub fix: AppliedFix,
    pub generation_tokens_per_s: Option<f64>,
    pub primary: Option<RuleId>,
}

/// What the load driver did in each run (loadgen's drive report over HTTP, or the engine's
/// own counts when the load is replayed inside it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Loads {
    pub before: Value,
    pub after: Option<Value>,
}

/// Chooses the first step of the primary's prescription, from `from` on, that the emulator can
/// apply, and returns the new flags (or load) and the index of the step after it.
pub fn choose_fix(
    primary: &Fired,
    from: usize,
    args: &ArgOverrides,
    current: &emulator::EngineArgs,
    load: &LoadShape,
) -> (Option<ArgOverrides>, Option<LoadShape>, AppliedFix, usize) {
    let rule = Some(primary.rule);
    let fix = |kind, text: String| AppliedFix {
        kind,
        rule,
        knob: None,
        flag: None,
        value: None,
        text,
        command_line_before: String::new(),
        command_line_after: None,
    };
    let steps = &primary.fix;
    for (i, st) in steps.iter().enumerate().skip(from) {
        let Some(knob) = st.knob_of(diagnose_engine()) else {
            continue;
        };
        let Some((o, value)) = args.turn(knob, st.value.as_deref(), current) else {
            continue;
        };
        let mut f = fix(FixKind::Flag, st.text.clone());
        f.knob = Some(knob);
        f.flag = st.flag.clone();
        f.value = value;
        return (Some(o), None, f, i + 1);
    }
    // Under-batching is fixed on the client side: raise concurrency one step (×4). Its
    // prescription is "in steps", so the step can be taken again.
    if primary.rule == RuleId::R1 {
        if let Arrival::Closed { clients, think_s } = load.arrival {
            let mut l = load.clone();
            let more = clients.saturating_mul(4).max(clients + 1);
            l.arrival = Arrival::Closed {
                clients: more,
                think_s,
            };
            let text = steps
                .first()
                .map(|s| s.text.clone())
                .unwrap_or_else(|| "raise client concurrency".into());
            let mut f = fix(FixKind::Load, text);
            f.value = Some(format!("{clients} → {more} concurrent clients"));
            return (None, Some(l), f, from);
        }
    }
    let first = steps
        .get(from)
        .or(steps.first())
        .map_or("no prescription", |s| s.text.as_str());
    let why = if from == 0 {
        format!("no step of the prescription is a flag the emulator can apply ({first})")
    } else {
        format!("no further step of the prescription is a flag the emulator can apply ({first})")
    };
    (None, None, fix(FixKind::None, why), steps.len())
}

/// The emulator is a vLLM: its prescriptions are vLLM's.
fn diagnose_engine() -> engines::Engine {
    engines::Engine::Vllm
}

struct Phase {
    doc: Report,
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
        catalog: None,
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
    let doc = report.context("diagnosing the emulator")?;
    say(
        quiet,
        &format!(
            "diagnosed: primary {}",
            doc.primary_rule().map_or("none", |r| r.as_str())
        ),
    );
    Ok(Phase {
        doc,
        command_line,
        load: load_doc,
        lags,
    })
}

fn list() -> Result<Exit> {
    let mut t = output::table(["scenario", "primary", "what it is"]);
    for s in scenario::all() {
        t.add_row(vec![
            s.name.to_string(),
            s.expect.primary.unwrap_or("none").to_string(),
            s.summary.to_string(),
        ]);
    }
    output::line(t)?;
    Ok(Exit::Ok)
}

pub fn run(a: Args) -> Result<Exit> {
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
    let (before, chain, last) = rt.block_on(async {
        say(quiet, &format!("scenario {}: {}", s.name, s.summary));
        let before = phase(&s, &s.args, &s.load, seed, a.speed, a.http_load, quiet).await?;
        let mut chain: Vec<ChainStep> = Vec::new();
        let mut last: Option<Phase> = None;
        let Some(primary) = before.doc.primary.clone() else {
            return Ok::<_, anyhow::Error>((before, chain, last));
        };
        // The same prescription, step by step, each on top of the last, until the primary
        // clears or the steps run out.
        let (mut args, mut load, mut from) = (s.args.clone(), s.load.clone(), 0usize);
        let mut command_line = before.command_line.clone();
        while chain.len() < MAX_STEPS {
            let current = configure(s.gpu, s.model, &args)?.args;
            let (o, l, mut fix, next) = choose_fix(&primary, from, &args, &current, &load);
            fix.command_line_before = command_line.clone();
            if fix.kind == FixKind::None {
                if chain.is_empty() {
                    chain.push(ChainStep {
                        step: 0,
                        fix,
                        generation_tokens_per_s: None,
                        primary: Some(primary.rule),
                    });
                }
                break;
            }
            args = o.unwrap_or(args);
            load = l.unwrap_or(load);
            from = next;
            say(
                quiet,
                &format!(
                    "step {}: applying {}: {}",
                    chain.len() + 1,
                    fix.flag.as_deref().unwrap_or("client-side"),
                    fix.text
                ),
            );
            let p = phase(&s, &args, &load, seed, a.speed, a.http_load, quiet).await?;
            fix.command_line_after = Some(p.command_line.clone());
            command_line = p.command_line.clone();
            let still = p.doc.primary_rule() == Some(primary.rule);
            chain.push(ChainStep {
                step: chain.len() + 1,
                fix,
                generation_tokens_per_s: p.doc.throughput.generation_tokens_per_s,
                primary: p.doc.primary_rule(),
            });
            last = Some(p);
            if !still {
                break;
            }
        }
        Ok((before, chain, last))
    })?;
    let elapsed = started.elapsed().as_secs_f64();
    let applied_fix = match chain.first() {
        Some(c) => c.fix.clone(),
        None => AppliedFix {
            kind: FixKind::None,
            rule: None,
            knob: None,
            flag: None,
            value: None,
            text: "no rule fired: nothing to fix".into(),
            command_line_before: before.command_line.clone(),
            command_line_after: None,
        },
    };
    let chain: Vec<ChainStep> = chain.into_iter().filter(|c| c.step > 0).collect();
    let doc = Demo {
        schema: SCHEMA.to_string(),
        scenario: ScenarioInfo {
            name: s.name.to_string(),
            summary: s.summary.to_string(),
            gpu: s.gpu.to_string(),
            model: s.model.to_string(),
            expected_primary: s.expect.primary.map(str::to_string),
            seed,
            speed: a.speed,
            warmup_s: s.warmup_s,
            window_s: s.window_s,
            simulated: true,
        },
        applied_fix,
        after: last.as_ref().map(|p| p.doc.clone()),
        chain,
        load: Loads {
            before: before.load.clone(),
            after: last.as_ref().map(|p| p.load.clone()),
        },
        lags: before.lags + last.as_ref().map_or(0, |p| p.lags),
        wall_seconds: elapsed,
        before: before.doc,
    };
    if a.json {
        output::json(&serde_json::to_value(&doc)?)?;
    } else {
        output::emit(&render(&s, &doc))?;
    }
    Ok(Exit::Ok)
}

fn f1(v: Option<f64>, unit: &str, scale: f64) -> String {
    match v {
        Some(x) => format!("{:.1}{unit}", x * scale),
        None => "-".into(),
    }
}

/// Seconds as ms below one second.
fn secs(v: Option<f64>) -> String {
    match v {
        Some(x) if x < 1.0 => format!("{:.0} ms", x * 1e3),
        Some(x) => format!("{x:.1} s"),
        None => "-".into(),
    }
}

fn pct(v: Option<f64>) -> String {
    match v {
        Some(x) => format!("{:.0}%", x * 100.0),
        None => "-".into(),
    }
}

fn primary_line(d: &Report) -> String {
    match &d.primary {
        Some(p) => {
            let variant = p
                .variant
                .as_deref()
                .map(|v| format!(" ({v})"))
                .unwrap_or_default();
            format!("{} {}{variant}", p.rule.as_str(), p.title)
        }
        None => "none".into(),
    }
}

fn fix_words(fix: &AppliedFix) -> String {
    match fix.kind {
        FixKind::Flag => format!(
            "{}{}",
            fix.flag.as_deref().unwrap_or(""),
            fix.value
                .as_deref()
                .map(|v| format!(" {v}"))
                .unwrap_or_default()
        ),
        FixKind::Load => format!("clients {}", fix.value.as_deref().unwrap_or("")),
        FixKind::None => "nothing".into(),
    }
}

/// The side-by-side report.
pub fn render(s: &Scenario, doc: &Demo) -> String {
    let before = &doc.before;
    let fix = &doc.applied_fix;
    let after = doc.after.as_ref();
    let mut out = String::new();
    out += &format!(
        "headroom demo: {} on a SIMULATED {} × {} (headroom's emulator, {:.0} s wall)\n{}\n\n",
        s.name, s.gpu, s.model, doc.wall_seconds, s.summary
    );
    type Row = (&'static str, Box<dyn Fn(&Report) -> String>);
    let rows: Vec<Row> = vec![
        ("primary", Box::new(primary_line)),
        (
            "generation tok/s",
            Box::new(|d| f1(d.throughput.generation_tokens_per_s, "", 1.0)),
        ),
        (
            "prompt tok/s",
            Box::new(|d| f1(d.throughput.prompt_tokens_per_s, "", 1.0)),
        ),
        (
            "running (mean)",
            Box::new(|d| f1(d.requests.running.map(|g| g.mean), "", 1.0)),
        ),
        (
            "waiting (mean)",
            Box::new(|d| f1(d.requests.waiting.map(|g| g.mean), "", 1.0)),
        ),
        (
            "KV usage mean / peak",
            Box::new(|d| {
                format!(
                    "{} / {}",
                    pct(d.kv.usage.map(|g| g.mean)),
                    pct(d.kv.usage.map(|g| g.peak))
                )
            }),
        ),
        (
            "prefix-cache hit rate",
            Box::new(|d| pct(d.prefix.hit_rate)),
        ),
        (
            "TTFT p50 / p95",
            Box::new(|d| {
                let t = d.latency.ttft_s;
                // A bucket bound prints with its side ("≤ 40.0 s"), never as a point.
                let q = |v: Option<f64>, b: Option<diagnose::Bound>| {
                    format!("{}{}", b.map_or("", |b| b.sign()), secs(v))
                };
                format!(
                    "{} / {}",
                    q(t.and_then(|t| t.p50), t.and_then(|t| t.p50_bound)),
                    q(t.and_then(|t| t.p95), t.and_then(|t| t.p95_bound))
                )
            }),
        ),
        (
            "time per output token",
            Box::new(|d| f1(d.latency.tpot_s.map(|t| t.mean), " ms", 1e3)),
        ),
        (
            "efficiency (config-relative)",
            Box::new(|d| pct(d.efficiency.config_relative)),
        ),
    ];
    let mut t = output::table(["", "before", "after"]);
    for (label, f) in &rows {
        t.add_row(vec![
            Cell::new(label),
            Cell::new(f(before)),
            Cell::new(after.map(f).unwrap_or_else(|| "-".into())),
        ]);
    }
    out += &format!("{t}\n\n");
    if let Some(p) = &before.primary {
        out += &format!("Before: {}\n", primary_line(before));
        for e in &p.evidence {
            out += &format!("  - {e}\n");
        }
    }
    match fix.kind {
        FixKind::Flag => {
            out += &format!(
                "Applied: {} ({})\n  before: {}\n  after:  {}\n",
                fix_words(fix),
                fix.text,
                fix.command_line_before,
                fix.command_line_after.as_deref().unwrap_or("-"),
            )
        }
        FixKind::Load => {
            out += &format!(
                "Applied on the client side: {} ({})\n",
                fix.value.as_deref().unwrap_or(""),
                fix.text
            )
        }
        FixKind::None => out += &format!("Nothing applied: {}\n", fix.text),
    }
    if doc.chain.len() > 1 {
        let mut t = output::table(["step", "change", "generation tok/s", "primary"]);
        t.add_row(vec![
            "0".to_string(),
            "as deployed".to_string(),
            f1(before.throughput.generation_tokens_per_s, "", 1.0),
            before
                .primary_rule()
                .map_or("none", |r| r.as_str())
                .to_string(),
        ]);
        for c in &doc.chain {
            t.add_row(vec![
                c.step.to_string(),
                fix_words(&c.fix),
                f1(c.generation_tokens_per_s, "", 1.0),
                c.primary.map_or("none", |r| r.as_str()).to_string(),
            ]);
        }
        out += &format!("\nThe prescription, step by step:\n{t}\n");
    }
    if let Some(a) = after {
        let b = before.primary_rule();
        let now = a.primary_rule();
        let steps = doc.chain.len();
        let verdict = match (b, now) {
            (Some(b), Some(n)) if b == n => {
                let g = |d: &Report| d.throughput.generation_tokens_per_s;
                match (g(before), g(a)) {
                    (Some(x), Some(y)) if x > 0.0 => format!(
                        "{} still fires after {steps} step(s) (generation {x:.0} → {y:.0} tok/s, ×{:.2}): the prescription's steps ran out here",
                        b.as_str(),
                        y / x
                    ),
                    _ => format!("{} still fires after {steps} step(s): the prescription's steps ran out here", b.as_str()),
                }
            }
            (Some(b), Some(_)) => format!("{} cleared; next: {}", b.as_str(), primary_line(a)),
            (Some(b), None) => format!("{} cleared; no rule fires", b.as_str()),
            _ => "no change".into(),
        };
        out += &format!("After: {verdict}\n");
    }
    out
}
#[cfg(test)]
mod tests {
    use super::*;
    use diagnose::{FixCost, FixStep, Knob};

    fn shape(clients: u32) -> LoadShape {
        let mut l = emulator::scenario::find("under-batching").unwrap().load;
        l.arrival = Arrival::Closed {
            clients,
            think_s: 0.0,
        };
        l
    }

    fn primary(rule: RuleId, fix: Vec<FixStep>) -> Fired {
        Fired {
            rule,
            title: rule.title().into(),
            variant: None,
            evidence: Vec::new(),
            fix,
            seen_in: None,
        }
    }

    fn step(knob: Knob, value: Option<&str>) -> FixStep {
        let mut s = FixStep::knob(
            engines::Engine::Vllm,
            knob,
            value.map(str::to_string),
            "do it",
        )
        .unwrap();
        s.cost = Some(FixCost::Safe);
        s
    }

    fn current(o: &ArgOverrides) -> emulator::EngineArgs {
        configure("H100-SXM", "llama-3.1-8b", o).unwrap().args
    }

    #[test]
    fn the_first_applicable_knob_is_turned_then_the_next() {
        let o = ArgOverrides {
            enable_prefix_caching: Some(false),
            gpu_memory_utilization: Some(0.5),
            ..Default::default()
        };
        let p = primary(
            RuleId::R2,
            vec![
                step(Knob::KvOffloading, None),
                step(Knob::PrefixCaching, None),
                step(Knob::GpuMemoryUtilization, Some("0.55")),
            ],
        );
        let (n, l, f, next) = choose_fix(&p, 0, &o, &current(&o), &shape(4));
        let n = n.unwrap();
        assert_eq!(n.enable_prefix_caching, Some(true));
        assert!(l.is_none());
        assert_eq!(
            (f.kind, f.knob, f.flag.as_deref()),
            (
                FixKind::Flag,
                Some(Knob::PrefixCaching),
                Some("--enable-prefix-caching")
            )
        );
        // The next step of the same prescription, on top of the first.
        let (n2, _, f2, _) = choose_fix(&p, next, &n, &current(&n), &shape(4));
        let n2 = n2.unwrap();
        assert_eq!(n2.gpu_memory_utilization, Some(0.55));
        assert_eq!(n2.enable_prefix_caching, Some(true));
        assert_eq!(f2.value.as_deref(), Some("0.55"));
        // Then nothing is left.
        let (n3, _, f3, _) = choose_fix(&p, 3, &n2, &current(&n2), &shape(4));
        assert!(n3.is_none());
        assert_eq!(f3.kind, FixKind::None);
    }

    #[test]
    fn seats_and_a_step_that_changes_nothing_is_skipped() {
        let o = ArgOverrides::default();
        let p = primary(
            RuleId::R5,
            vec![
                // Already on by default: skipped.
                step(Knob::PrefixCaching, None),
                step(Knob::MaxNumSeqs, Some("100")),
            ],
        );
        let (n, _, _, _) = choose_fix(&p, 0, &o, &current(&o), &shape(4));
        assert_eq!(n.unwrap().max_num_seqs, Some(100));
    }

    #[test]
    fn under_batching_raises_client_concurrency() {
        let o = ArgOverrides::default();
        let p = primary(RuleId::R1, vec![FixStep::text("raise client concurrency")]);
        let (n, l, f, next) = choose_fix(&p, 0, &o, &current(&o), &shape(4));
        assert!(n.is_none());
        assert_eq!(
            l.unwrap().arrival,
            Arrival::Closed {
                clients: 16,
                think_s: 0.0
            }
        );
        assert_eq!((f.kind, next), (FixKind::Load, 0));
    }

    #[test]
    fn nothing_applicable_says_why() {
        let o = ArgOverrides::default();
        let p = primary(RuleId::R3, vec![FixStep::text("restructure prompts")]);
        let (n, l, f, _) = choose_fix(&p, 0, &o, &current(&o), &shape(4));
        assert!(n.is_none() && l.is_none());
        assert_eq!(f.kind, FixKind::None);
        assert!(f.text.contains("restructure prompts"));
    }
}
