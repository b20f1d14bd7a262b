//! `headroom emulate`: a simulated vLLM server on a port, driven by the same physics as the
//! ceilings. It speaks the OpenAI API and vLLM's V1 /metrics, so every headroom command (and
//! any vLLM dashboard) can be pointed at it. See docs/emulator.md; JSON: docs/json/emulate.md (`emulator::doc`); tables: `render::emulate`.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use emulator::doc::{EmulateDoc, ScenariosDoc};
use emulator::hardware::configure;
use emulator::scenario::{self, Scenario};
use emulator::server::{EmulatorServer, ServerConfig};
use emulator::ArgOverrides;

use crate::output::{self, Exit};

#[derive(clap::Args, Debug, Clone)]
#[command(after_help = "\
A simulation, labelled as one (/version says \"simulated\": true; GET /emulator shows the model \
it runs). Steps cost what the roofline says: weights read once per step plus each sequence's KV, \
or FLOPs past the ridge. --speed 20 runs simulated time 20× faster than the wall clock; /metrics \
carries no sample timestamps (as vLLM) and exports the simulated clock as the gauge \
headroom_emulator_clock_seconds, which headroom times its rates by.

Examples:
  headroom emulate --gpu H100-SXM --model llama-3.1-8b --max-num-seqs 256 --port 8000
  headroom emulate --gpu L4 --model llama-3.1-8b --no-enable-prefix-caching --speed 20
  headroom emulate --scenario kv-pressure --drive --speed 20     # the pathology, with its load
  headroom emulate --scenario concurrency-saturation --drive --max-num-seqs 100   # what-if
  headroom emulate --scenario pressed-prefill --drive --ledger-prefix radiance   # a forked engine's split ledger
  headroom emulate --list-scenarios

Then, in another terminal:
  headroom diagnose --url http://127.0.0.1:8000 --gpu H100-SXM --model llama-3.1-8b \\
      --engine-args \"$(curl -s 127.0.0.1:8000/emulator | jq -r .command_line)\"

JSON schema: docs/json/emulate.md.")]
pub struct Args {
    /// Catalogued GPU to emulate (default H100-SXM, or the scenario's).
    #[arg(long, value_name = "NAME")]
    pub gpu: Option<String>,
    /// Catalogued model to serve (default llama-3.1-8b, or the scenario's).
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// Start from a built-in scenario's deployment; flags given here override it.
    #[arg(long, value_name = "NAME")]
    pub scenario: Option<String>,
    /// Replay the scenario's load inside the engine, in simulated time (no HTTP clients needed).
    #[arg(long, requires = "scenario")]
    pub drive: bool,
    /// Most requests running at once (vLLM default: 1024 on ≥ 70 GiB GPUs, else 256).
    #[arg(long)]
    pub max_num_seqs: Option<u32>,
    /// Longest request, prompt + output (default 8192; 8k, 32k).
    #[arg(long, value_parser = crate::args::parse_tokens_u32)]
    pub max_model_len: Option<u32>,
    /// Token budget of one step (vLLM default: 8192 on ≥ 70 GiB GPUs, else 2048; 2k, 8k).
    #[arg(long, value_parser = crate::args::parse_tokens_u32)]
    pub max_num_batched_tokens: Option<u32>,
    /// Share of VRAM for weights + activations + KV pool (default 0.9).
    #[arg(long)]
    pub gpu_memory_utilization: Option<f64>,
    /// Prefix caching on (the vLLM V1 default).
    #[arg(long, conflicts_with = "no_enable_prefix_caching")]
    pub enable_prefix_caching: bool,
    /// Prefix caching off.
    #[arg(long)]
    pub no_enable_prefix_caching: bool,
    /// Chunked prefill on (the vLLM V1 default).
    #[arg(long, conflicts_with = "no_enable_chunked_prefill")]
    pub enable_chunked_prefill: bool,
    /// Chunked prefill off: prompts are admitted whole (the budget must cover --max-model-len).
    #[arg(long)]
    pub no_enable_chunked_prefill: bool,
    /// KV cache dtype: auto (16-bit) or fp8.
    #[arg(long)]
    pub kv_cache_dtype: Option<String>,
    /// GPUs per replica (bandwidth, FLOPs and VRAM scale by it).
    #[arg(long, alias = "tp")]
    pub tensor_parallel_size: Option<u32>,
    /// Weight format (fp8, awq ...), when not the model's own dtype.
    #[arg(long)]
    pub quantization: Option<String>,
    /// Name the model is served under (default: the catalog id).
    #[arg(long)]
    pub served_model_name: Option<String>,
    /// Simulated seconds per wall second.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Seeds the generated tokens and the driven load.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Address to listen on (loopback by default).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to listen on; 0 picks a free one (printed).
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// Stop after this much wall time (default: run until Ctrl-C).
    #[arg(long, value_parser = crate::args::parse_duration)]
    pub duration: Option<Duration>,
    /// List the built-in scenarios and exit.
    #[arg(long)]
    pub list_scenarios: bool,
    /// Print the deployment as JSON (one object, on start) instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Export the step ledger (`PREFIX:engine_steps_total` ...) under this prefix instead of
    /// `vllm`, latency staying under `vllm:`: the split a forked engine exports (`radiance`), for
    /// `headroom census` to find.
    #[arg(long, value_name = "PREFIX", default_value = "vllm")]
    pub ledger_prefix: String,
}

fn flag_pair(on: bool, off: bool) -> Option<bool> {
    match (on, off) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

/// The scenario's flags with the command line's laid over them.
pub fn overrides(a: &Args, base: &ArgOverrides) -> ArgOverrides {
    ArgOverrides {
        served_model_name: a
            .served_model_name
            .clone()
            .or(base.served_model_name.clone()),
        max_num_seqs: a.max_num_seqs.or(base.max_num_seqs),
        max_model_len: a.max_model_len.or(base.max_model_len),
        max_num_batched_tokens: a.max_num_batched_tokens.or(base.max_num_batched_tokens),
        gpu_memory_utilization: a.gpu_memory_utilization.or(base.gpu_memory_utilization),
        enable_prefix_caching: flag_pair(a.enable_prefix_caching, a.no_enable_prefix_caching)
            .or(base.enable_prefix_caching),
        enable_chunked_prefill: flag_pair(a.enable_chunked_prefill, a.no_enable_chunked_prefill)
            .or(base.enable_chunked_prefill),
        kv_cache_dtype: a.kv_cache_dtype.clone().or(base.kv_cache_dtype.clone()),
        tensor_parallel_size: a.tensor_parallel_size.or(base.tensor_parallel_size),
        quantization: a.quantization.clone().or(base.quantization.clone()),
        seed: a.seed.or(base.seed),
    }
}

pub fn find_scenario(name: &str) -> Result<Scenario> {
    scenario::find(name).with_context(|| {
        format!(
            "no scenario '{name}'; the scenarios are: {}",
            scenario::names().join(", ")
        )
    })
}

fn list(json_out: bool) -> Result<()> {
    let all = scenario::all();
    if json_out {
        return output::json(&serde_json::to_value(ScenariosDoc::new(&all))?);
    }
    output::line(render::emulate::scenarios(&all))
}

fn bind_addr(host: &str, port: u16) -> Result<SocketAddr> {
    (host, port)
        .to_socket_addrs()
        .with_context(|| format!("--host {host}: not an address"))?
        .next()
        .with_context(|| format!("--host {host}: no address"))
}

pub fn run(a: Args) -> Result<Exit> {
    if a.list_scenarios {
        list(a.json)?;
        return Ok(Exit::Ok);
    }
    if !(a.speed.is_finite() && a.speed > 0.0) {
        bail!("--speed {}: must be a positive number", a.speed);
    }
    let p = &a.ledger_prefix;
    if p.is_empty()
        || p.starts_with(|c: char| c.is_ascii_digit())
        || !p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        bail!("--ledger-prefix {p:?}: a metric prefix is letters, digits and underscores, not starting with a digit (e.g. radiance)");
    }
    super::names::check(
        &physics::Catalog::embedded()?,
        a.gpu.as_deref(),
        a.model.as_deref(),
        None,
    )?;
    let sc = a.scenario.as_deref().map(find_scenario).transpose()?;
    let base = sc.as_ref().map(|s| s.args.clone()).unwrap_or_default();
    let gpu = a
        .gpu
        .clone()
        .or(sc.as_ref().map(|s| s.gpu.to_string()))
        .unwrap_or_else(|| "H100-SXM".into());
    let model = a
        .model
        .clone()
        .or(sc.as_ref().map(|s| s.model.to_string()))
        .unwrap_or_else(|| "llama-3.1-8b".into());
    let o = overrides(&a, &base);
    let configured = configure(&gpu, &model, &o)?;
    let seed = o.seed.or(sc.as_ref().map(|s| s.seed)).unwrap_or(0);
    let drive = if a.drive {
        sc.as_ref().map(|s| (s.load.clone(), seed))
    } else {
        None
    };
    let addr = bind_addr(&a.host, a.port)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(async move {
        let srv = EmulatorServer::start(
            ServerConfig {
                configured: configured.clone(),
                speed: a.speed,
                drive,
                ledger_prefix: Some(a.ledger_prefix.clone()),
            },
            addr,
        )
        .await
        .with_context(|| format!("listening on {addr}"))?;
        let url = srv.url();
        // Named once bound: with --port 0 the address asked for is not the one served.
        if !addr.ip().is_loopback() {
            eprintln!(
                "warning: the emulator listens on {url}, reachable from other hosts (--host 127.0.0.1 keeps it local)"
            );
        }
        if a.json {
            let doc = EmulateDoc::new(
                &configured,
                url.clone(),
                a.speed,
                seed,
                sc.as_ref().map(|s| s.name),
                a.drive,
            );
            output::line(serde_json::to_string(&serde_json::to_value(&doc)?)?)?;
        } else {
            output::emit(&render::emulate::deployment(&configured))?;
            output::line(format!(
                "Serving a SIMULATED vLLM at {url} (×{} speed){}",
                a.speed,
                match &sc {
                    Some(s) if a.drive => format!(", driving scenario '{}' inside the engine", s.name),
                    Some(s) => format!(", deployment of scenario '{}'", s.name),
                    None => String::new(),
                }
            ))?;
        }
        eprintln!("emulate: serving at {url}; Ctrl-C to stop");
        let started = Instant::now();
        let mut tick = tokio::time::interval(Duration::from_secs(10));
        tick.tick().await;
        loop {
            let stop_at = a.duration.map(|d| started + d);
            tokio::select! {
                _ = tokio::signal::ctrl_c() => break,
                _ = tick.tick() => {
                    let s = srv.snapshot();
                    eprintln!(
                        "emulate: t = {:.0} s simulated, running {}, waiting {}, KV {}, finished {:.0}{}",
                        s.sim_seconds, s.running, s.waiting, numbers::fmt::percent(s.kv_usage), s.finished,
                        if s.lags > 0 { format!(", fell behind the wall clock {} times", s.lags) } else { String::new() }
                    );
                }
                _ = async { match stop_at { Some(t) => tokio::time::sleep_until(t.into()).await, None => std::future::pending().await } } => break,
            }
        }
        tokio::task::spawn_blocking(move || srv.shutdown()).await?;
        Ok(Exit::Ok)
    })
}

/// The vLLM command line a running `headroom emulate` process stands for, from its own argv:
/// the scenario's flags with the process's laid over them, spelled as `vllm serve MODEL
/// --flag value` with only the flags that were given (a flag left out takes vLLM's default,
/// exactly as on a real vLLM's command line). None when `argv` is not `headroom emulate`, or
/// does not parse. Lets `diagnose` read an emulator on this host as it reads a real vLLM's
/// process.
pub fn as_vllm_argv(argv: &[String]) -> Option<Vec<String>> {
    use clap::{Args as _, FromArgMatches};
    let program = argv.first()?;
    let base = program.rsplit('/').next().unwrap_or(program);
    if !base.starts_with("headroom") {
        return None;
    }
    let at = argv.iter().position(|a| a == "emulate")?;
    let cmd = Args::augment_args(clap::Command::new("emulate").no_binary_name(true));
    let m = cmd.try_get_matches_from(&argv[at + 1..]).ok()?;
    let a = Args::from_arg_matches(&m).ok()?;
    let sc = a.scenario.as_deref().and_then(scenario::find);
    let o = overrides(&a, &sc.as_ref().map(|s| s.args.clone()).unwrap_or_default());
    let gpu = a
        .gpu
        .clone()
        .or(sc.as_ref().map(|s| s.gpu.to_string()))
        .unwrap_or_else(|| "H100-SXM".into());
    let model = a
        .model
        .clone()
        .or(sc.as_ref().map(|s| s.model.to_string()))
        .unwrap_or_else(|| "llama-3.1-8b".into());
    let model_id = configure(&gpu, &model, &o).ok()?.hardware.model_id;
    Some(o.vllm_argv(model_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn an_emulate_process_reads_as_the_vllm_line_it_stands_for() {
        let v = as_vllm_argv(&argv(
            "/x/target/release/headroom emulate --scenario config-headroom --drive --port 0 \
             --max-model-len 4096 --speed 50",
        ))
        .unwrap();
        let line = v.join(" ");
        // The scenario's max-num-seqs, the process's own max-model-len over the scenario's.
        assert!(line.starts_with("vllm serve "), "{line}");
        assert!(line.contains("--max-num-seqs 64"), "{line}");
        assert!(line.contains("--max-model-len 4096"), "{line}");
        // Flags nobody gave stay off the line: vLLM's defaults apply, as on a real server.
        assert!(!line.contains("--max-num-batched-tokens"), "{line}");
        let c = engines::EngineConfig::from_argv(&v, engines::Source::ProcessCmdline).unwrap();
        assert_eq!(c.max_num_seqs.unwrap().value, 64);
        assert!(as_vllm_argv(&argv("vllm serve m --max-num-seqs 4")).is_none());
        assert!(as_vllm_argv(&argv("headroom diagnose --url http://x")).is_none());
        assert!(as_vllm_argv(&argv("headroom emulate --no-such-flag")).is_none());
    }
}
