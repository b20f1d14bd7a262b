//! `headroom demo`: the whole loop on a simulated server. Start the emulator with a pathology,
//! drive its load (replayed inside the engine in simulated time, or over HTTP with
//! `--http-load`), diagnose it over HTTP exactly as `headroom diagnose` would, apply the
//! prescribed flag, restart, re-measure, and show before and after side by side.
//! JSON: docs/json/demo.md. The document and the step chooser are `emulator::demo`; the
//! side-by-side table is `render::demo`.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use diagnose::report::Report;
use emulator::demo::{
    choose_fix, AppliedFix, ChainStep, Demo, FixKind, LoadReport, Loads, ScenarioInfo, SCHEMA,
};
use emulator::hardware::configure;
use emulator::scenario::Scenario;
use emulator::server::{EmulatorServer, ServerConfig};
use emulator::ArgOverrides;
use loadgen::traffic::{drive, Arrival, DriveOptions, LoadShape};

use super::diagnose::{collect_and_diagnose, Shape, WindowRequest};
use super::emulate::find_scenario;
use crate::output::{self, Exit};

/// Most steps of one prescription the demo takes before it stops.
const MAX_STEPS: usize = 4;

#[derive(clap::Args, Debug, Clone)]
#[command(after_help = "\
Everything runs on loopback against headroom's simulated vLLM (docs/emulator.md): no GPU, no \
set-up. The scenario's load (loadgen's load shapes) is replayed inside the engine in simulated \
time, so the same --seed gives the same arrivals, prompts and tokens on any machine; the \
window is scraped on the wall clock, so how many of them fall inside it (and the counts in \
--json) varies a little with the machine's load. --http-load sends the load over HTTP \
instead. The diagnosis is the real one: /metrics scraped over HTTP, the engines adapter, the \
eight rules `headroom diagnose` applies. The window is 2 minutes of simulated time; at the default --speed 20 the \
whole demo takes well under a minute.

Examples:
  headroom demo                                   # kv-pressure: prefix caching off, KV overflows
  headroom demo --scenario concurrency-saturation
  headroom demo --scenario weights-dont-fit --json
  headroom demo --scenario no-prefix-caching --http-load --speed 10
  headroom demo --list
  headroom demo --list --json | jq -r '.scenarios[].name'

When a step improves the server without clearing its primary, the demo takes the next step of \
the same prescription, and shows the chain (step, throughput, primary) until the primary clears \
or the steps run out.

JSON schema: docs/json/demo.md ({scenario, before, applied_fix, after, chain}; before and after \
are headroom.diagnose/1 documents).")]
pub struct Args {
    /// The pathology to run (see --list).
    #[arg(long, default_value = "kv-pressure")]
    pub scenario: String,
    /// List the scenarios and exit (with --json: the headroom.emulate.scenarios/1 document,
    /// docs/json/emulate.md).
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

struct Phase {
    doc: Report,
    command_line: String,
    /// What the load driver did (docs/json/demo.md `load`).
    load: LoadReport,
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
            ledger_prefix: None,
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
        Some(d) => LoadReport::Http(d.await.unwrap_or_default()),
        None => LoadReport::Engine {
            sent: snap.driven_submitted,
            refused: snap.driven_rejected,
        },
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

/// The scenarios: a table, or with --json the `headroom.emulate.scenarios/1` document that
/// `emulate --list-scenarios --json` prints (the demo runs the same suite).
fn list(json_out: bool) -> Result<Exit> {
    if json_out {
        let all = emulator::scenario::all();
        output::json(&serde_json::to_value(emulator::doc::ScenariosDoc::new(
            &all,
        ))?)?;
    } else {
        output::line(render::demo::scenarios())?;
    }
    Ok(Exit::Ok)
}

pub fn run(a: Args) -> Result<Exit> {
    if a.list {
        return list(a.json);
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
        output::emit(&render::demo::render(&s, &doc))?;
    }
    Ok(Exit::Ok)
}
