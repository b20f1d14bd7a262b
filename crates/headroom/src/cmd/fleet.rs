//! `headroom fleet`: every replica a Prometheus store scrapes, judged by the diagnose rules, with
//! the fleet median, the outlier and the imbalance. The reading and the judging live in the
//! fleet crate, the table in `render::fleet`; this file parses arguments and emits.

use crate::args::parse_duration;
use crate::output::{self, Exit};
use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use fleet::Request;
use std::time::Duration;

#[derive(ClapArgs, Debug)]
#[command(after_help = "\
Reads the store, not the servers: twelve PromQL queries whatever the number of replicas, sent \
together (engine detection, vLLM's config labels, every gauge, every counter, one per \
histogram, each across all replicas and engines, and the DCGM exporter's GPU series with the \
replicas' pod and host labels that join them). Counters and histograms are read as their raw \
values at the grid points and differenced, so a window counts each counter's own change between \
its edges however bursty (a drop is a restart, counted from zero as increase() counts it). Each replica's window goes through the same rules and \
arbitration as `headroom diagnose`. --gpu and --model name the GPU and model every replica \
runs (one for the whole fleet: replicas alike, the common case), as diagnose takes them; each \
replica's ceiling then comes from its own config (tensor parallel size, max_model_len, KV dtype) \
and the rules that need the physics ceiling judge. Without them those rules stay silent. A replica is named an outlier when its primary differs from the one most \
replicas share (3 replicas at least), or when its generation per running sequence is below \
half its peers' median. Imbalance: the busiest replica carries at least 2× the other \
replicas' median of finished requests per second.

GPUs from DCGM: where the store also scrapes NVIDIA's dcgm-exporter, each replica is joined to \
its GPUs by pod (the exporter's Kubernetes mode labels each GPU with the pod using it; the \
pod's GPU count is then its tensor-parallel width) or else by host (the exporter and the \
engine on one machine, one replica per host; two replicas on one host without pod labels are \
refused as ambiguous, never guessed). A joined replica's GPU is named from DCGM's modelName \
when --gpu is absent, and its figures show beside the engine's: SM clock against its maximum \
with the power or thermal reason (throttled), SM and DRAM activity while requests run \
(host-bound), DRAM activity beside the modelled decode share. GPU utilization (GPU_UTIL) is \
shown but never read as load: one small kernel reads 100 %. docs/gpu-telemetry.md explains \
each figure.

Examples:
  headroom fleet --prometheus http://127.0.0.1:9090
  headroom fleet --prometheus http://prom:9090 --selector '{job=\"vllm\"}' --window 30m
  headroom fleet --prometheus http://prom:9090 --gpu H100-SXM --model llama-3.1-8b
  headroom fleet --prometheus http://prom:9090 --model llama-3.1-8b --dcgm-selector '{job=\"dcgm\"}'
  headroom fleet --prometheus http://prom:9090 --by pod --at 1767225600 --json
  headroom fleet --prometheus http://prom:9090 --html fleet.html
  headroom fleet --prometheus http://thanos:10902 --at -1h --window 15m
  headroom fleet --prometheus http://prom:9090 --save-windows w/ && headroom diagnose --replay w/10.0.0.7_8000.jsonl
  headroom fleet --prometheus http://prom:9090 --serve 127.0.0.1:9188 --interval 60s   # verdicts as metrics
  headroom fleet --prometheus https://prom.internal --ca-file ca.pem --user ops --password-file pw
  headroom fleet --prometheus https://mimir/prometheus --header 'X-Scope-OrgID: team-a' --bearer-token-file token

The JSON document (headroom.fleet/1) is described in docs/json/fleet.md. Exit status 2 with \
--fail-on-outlier when an outlier or an imbalance is found.")]
pub struct Args {
    /// Prometheus (or Thanos, Mimir, VictoriaMetrics) HTTP API root, e.g. http://127.0.0.1:9090.
    #[arg(long)]
    pub prometheus: String,
    /// Label matchers picking the servers, e.g. '{job="vllm"}' (default: every series).
    #[arg(long, default_value = "{}")]
    pub selector: String,
    /// The label that names a replica.
    #[arg(long, default_value = "instance")]
    pub by: String,
    /// The window, ending at --at (90s, 10m, 1h).
    #[arg(long, default_value = "10m", value_parser = parse_duration)]
    pub window: Duration,
    /// The window's end: unix seconds, `now`, or a duration ago (-1h).
    #[arg(long, default_value = "now", allow_hyphen_values = true)]
    pub at: String,
    /// Number of sub-windows for "seen in N% of windows".
    #[arg(long, default_value_t = 6)]
    pub sub_windows: usize,
    /// Shortest step between grid points: at least a scrape interval, so each point reads a
    /// sample of its own (the default suits scrapes every 15 s; a window always gets one step
    /// per sub-window).
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub min_step: Duration,
    /// Label matchers picking the DCGM exporter's series (NVIDIA's dcgm-exporter), joined to
    /// each replica by pod or host: its GPU named from DCGM when --gpu is absent, throttled
    /// clocks, a host-bound engine, DRAM activity beside the modelled decode share.
    #[arg(long, default_value = "{}", value_name = "SELECTOR")]
    pub dcgm_selector: String,
    /// Read no DCGM series (two fewer queries).
    #[arg(long, conflicts_with = "dcgm_selector")]
    pub no_dcgm: bool,
    /// Seconds to wait for each query.
    #[arg(long, default_value = "30s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Save each replica's window as a recording in this folder (REPLICA.jsonl), for
    /// `headroom diagnose --replay`.
    #[arg(long)]
    pub save_windows: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub target: super::names::Target,
    #[command(flatten)]
    pub access: super::access::StoreAccess,
    /// Exit with status 2 when an outlier or an imbalance is found.
    #[arg(long)]
    pub fail_on_outlier: bool,
    /// One JSON document (schema headroom.fleet/1) on stdout.
    #[arg(long)]
    pub json: bool,
    /// Also write a self-contained HTML page (`-` for stdout): one row per replica beside the
    /// fleet median, the outliers and the imbalance named.
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
    /// Run on: re-read the fleet every --interval and expose the verdicts at
    /// http://ADDR/metrics for Prometheus to scrape (docs/fleet-serve.md names the series;
    /// `headroom rules` writes alerting rules on them). ADDR as host:port (127.0.0.1:9188,
    /// localhost:9188), a bare port (loopback), or :PORT (every interface, as Prometheus'
    /// --web.listen-address writes it).
    #[arg(long, value_name = "ADDR", value_parser = listen_addr, conflicts_with_all = ["json", "html", "save_windows", "fail_on_outlier"])]
    pub serve: Option<std::net::SocketAddr>,
    /// With --serve: how often the fleet is re-read (each reading covers --window, ending at
    /// its start).
    #[arg(long, default_value = "60s", value_parser = parse_duration, requires = "serve")]
    pub interval: Duration,
}

pub fn run(a: Args) -> Result<Exit> {
    if a.sub_windows == 0 {
        bail!("--sub-windows must be at least 1");
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    let req = Request {
        selector: promapi::Selector::parse(&a.selector).context("--selector")?,
        by: a.by.clone(),
        window_s: a.window.as_secs_f64(),
        at: crate::args::parse_at(&a.at, now)?,
        sub_windows: a.sub_windows,
        min_step_s: a.min_step.as_secs_f64().max(0.001),
        target: target(&a.target)?,
        dcgm: if a.no_dcgm {
            None
        } else {
            Some(promapi::Selector::parse(&a.dcgm_selector).context("--dcgm-selector")?)
        },
    };
    let prom = promapi::Prometheus::new(&a.prometheus, a.timeout, &a.access.access()?)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    if let Some(addr) = a.serve {
        return rt.block_on(serve(addr, a.interval, &prom, &req));
    }
    let reading = rt.block_on(fleet::read(&prom, &req))?;
    if let Some(dir) = &a.save_windows {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating --save-windows folder {}", dir.display()))?;
        for (replica, samples) in &reading.samples {
            let (header, lines) =
                fleet::recording(prom.url(), replica, reading.doc.window.step_s, samples);
            let file: String = replica
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let path = dir.join(format!("{file}.jsonl"));
            let mut r = engines::Recorder::create(&path, &header)?;
            for l in &lines {
                r.record(l)?;
            }
            eprintln!("saved {replica}'s window: {}", path.display());
        }
    }
    let doc = reading.doc;
    if let Some(path) = &a.html {
        super::common::write_page(path, &::report::fleet(&doc))?;
    }
    if a.json {
        output::json(&doc)?;
    } else {
        output::emit(&render::fleet::report(&doc))?;
    }
    let found = !doc.outliers.is_empty() || doc.imbalance.fired;
    Ok(if found && a.fail_on_outlier {
        Exit::Found
    } else {
        Exit::Ok
    })
}

/// The fleet's GPU and model, each name checked against the catalog here so a typo is an error
/// naming the flag, not a ceiling "unknown" on every replica. None when neither is given.
/// `--serve`'s address: `host:port`, a bare port on loopback, or `:port` on every interface.
fn listen_addr(s: &str) -> std::result::Result<std::net::SocketAddr, String> {
    use std::net::ToSocketAddrs;
    let t = s.trim();
    let given = if let Ok(port) = t.parse::<u16>() {
        format!("127.0.0.1:{port}")
    } else if let Some(port) = t.strip_prefix(':') {
        format!("0.0.0.0:{port}")
    } else {
        t.to_string()
    };
    given
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| format!("{s:?}: give host:port (127.0.0.1:9188), a port (9188) or :port"))
}

/// `--serve`: the endpoint, and an evaluation every `interval` until interrupted; one line on
/// stderr per evaluation.
async fn serve(
    addr: std::net::SocketAddr,
    interval: Duration,
    prom: &promapi::Prometheus,
    req: &Request,
) -> Result<Exit> {
    use fleet::serve::{evaluate_every, expose, State};
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("--serve {addr}: cannot listen there"))?;
    let bound = listener.local_addr()?;
    eprintln!(
        "serving the fleet's verdicts at http://{bound}/metrics, re-read from {} every {}s",
        prom.url(),
        interval.as_secs_f64()
    );
    if !bound.ip().is_loopback() {
        eprintln!(
            "warning: --serve {bound} is reachable from other hosts: the replicas' names and verdicts are readable there"
        );
    }
    let state = std::sync::Arc::new(std::sync::Mutex::new(State::default()));
    let server = tokio::spawn(expose(listener, state.clone()));
    let eval = evaluate_every(prom, req, interval, state, |s| {
        match (&s.doc, &s.last_error) {
            (Some(doc), _) => {
                let mut primaries = std::collections::BTreeMap::<&str, usize>::new();
                for r in &doc.replicas {
                    *primaries
                        .entry(r.primary.as_ref().map_or("none", |p| p.rule.as_str()))
                        .or_default() += 1;
                }
                let list: Vec<String> = primaries.iter().map(|(r, n)| format!("{r}×{n}")).collect();
                eprintln!(
                    "evaluation {}: {} replicas, primaries {} ({:.1} s)",
                    s.health.evaluations,
                    doc.replicas.len(),
                    list.join(", "),
                    s.health.last_duration_s.unwrap_or(0.0)
                );
            }
            (None, e) => eprintln!(
                "evaluation {} failed ({} failures so far): {}",
                s.health.evaluations,
                s.health.failures,
                e.as_deref().unwrap_or("unknown")
            ),
        }
    });
    tokio::select! {
        _ = eval => {}
        _ = tokio::signal::ctrl_c() => eprintln!("stopped"),
    }
    server.abort();
    Ok(Exit::Ok)
}

fn target(t: &super::names::Target) -> Result<Option<fleet::Target>> {
    if t.gpu.is_none() && t.model.is_none() && t.gguf.is_none() {
        return Ok(None);
    }
    let catalog = super::names::check_target(t)?;
    // A file that cannot be read is an error naming the flag, before any query.
    if let Some(p) = &t.gguf {
        let facts = gguf::read_model_facts(p).with_context(|| format!("--gguf {}", p.display()))?;
        ::physics::ModelSpec::from_gguf(&facts, &p.display().to_string(), &mut Vec::new())
            .with_context(|| format!("--gguf {}", p.display()))?;
    }
    Ok(Some(fleet::Target {
        gpu: t.gpu.clone(),
        model: t.model.clone(),
        gguf: t.gguf.as_ref().map(|p| p.display().to_string()),
        tp: t.tp,
        dtype: t.dtype.clone(),
        quantization: t.quantization.clone(),
        catalog,
    }))
}
