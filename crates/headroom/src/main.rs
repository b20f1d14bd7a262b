//! `headroom`: why is my served model slow, and what do I change?
//!
//! A thin binary over focused library crates. Each subcommand lives in its own file under `cmd/`,
//! owns its clap arguments, and renders both a human table and `--json`.

mod args;
mod cmd;
mod output;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The version with the commit it was built from (`build.rs`), as `--version` prints it.
pub(crate) const VERSION: &str =
    concat!(env!("CARGO_PKG_VERSION"), " (", env!("HEADROOM_BUILD"), ")");

#[derive(Parser)]
#[command(
    name = "headroom",
    version = VERSION,
    about = "Why is my served LLM slow, and what do I change?",
    long_about = "headroom computes the hardware ceiling from physics, watches a live server \
against it, names the one primary bottleneck and the flag that fixes it, and re-measures to \
prove the fix worked.\n\nEvery command takes --json for machines; progress goes to stderr.",
    after_help = "Examples:\n  headroom demo                          # the whole loop, simulated\n  \
headroom ceiling --gpu H100-SXM --model llama-3.1-8b\n  \
headroom diagnose --url http://localhost:8000 --gpu H100-SXM --save\n  \
headroom remeasure\n  \
headroom check --url http://localhost:8000 --result run.json -- vllm bench serve ... --save-result --result-filename run.json\n  \
headroom probe depth --url http://localhost:8080 --depths 512,2k,8k\n  \
headroom bench --url http://localhost:8080 --label v0.1.40.2 && headroom regress\n  \
headroom trace run.pt.trace.json.gz --top 20\n  \
journalctl -u llama --since -3h --no-pager | headroom logs\n  \
headroom pcie dmon.txt --gpu H100-PCIe           # nvidia-smi dmon -s t -o T > dmon.txt\n\n\
Exit codes: 0 the command ran (and stdout closing early, as with `| head`, is fine); \
1 an error (a usage error, or an unknown or ambiguous --gpu or --model, included), said on stderr; 2 the command found what --fail-on-regression or --fail-on asked \
it to fail on; 3 diagnose or remeasure judged a window that was mostly missing \
(under 80 % of its scrapes answered): what they printed is not a verdict.\n\n\
Durations everywhere take 90 (seconds), 500ms, 2s, 5m, 1h30m."
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The whole loop on a simulated engine: diagnose, apply the fix, re-measure.
    Demo(cmd::demo::Args),
    /// The fastest this hardware could serve this model, from physics.
    Ceiling(cmd::ceiling::Args),
    /// Sample a live server, and name the one primary bottleneck and its fix.
    Diagnose(cmd::diagnose::Args),
    /// After the fix: the same window again, compared with the saved run.
    Remeasure(cmd::diagnose::RemeasureArgs),
    /// Run a load generator (GuideLLM, AIPerf, inference-perf, vllm bench serve) under
    /// observation and judge whether its figures are the server's: token accounting, cache,
    /// queue, impossible figures, failures, and the server's diagnosis.
    Check(cmd::check::Args),
    /// Why the prefix-cache hit rate is low: the hit-rate ladder of a request stream, each gap
    /// with its cause (workload, capacity, routing, engine) and fix.
    Cachehit(cmd::cachehit::Args),
    /// Saved runs, one line each.
    History(cmd::history::Args),
    /// A saved run as one self-contained HTML page: timeline, scoreboard, fix, distributions.
    Report(cmd::report::Args),
    /// The diagnose window live in the terminal: timeline and scoreboard, renewed each sub-window.
    Watch(cmd::watch::Args),
    /// Ask a live server what its counters cannot answer: depth, prefix cache, turns.
    Probe(cmd::probe::Args),
    /// A short fixed suite against a live server, saved with the engine's identity.
    Bench(cmd::bench::Args),
    /// The latest bench against a baseline: what regressed, by how much, and what changed.
    Regress(cmd::regress::Args),
    /// A prefix-cache-aware router for replicas, with failover.
    Route(cmd::route::Args),
    /// Where device time goes, from a PyTorch-profiler (Kineto) trace.
    Trace(cmd::trace::Args),
    /// Mine the engine's own per-request telemetry from its log.
    Logs(cmd::logs::Args),
    /// Read a GGUF file's header and tensor infos (never the data).
    Gguf(cmd::gguf::Args),
    /// Host RAM bandwidth: the multi-threaded read plateau and STREAM triad (what a CPU-offloaded
    /// MoE's decode ceiling divides by).
    Membw(cmd::membw::Args),
    /// Which tensors, layers and experts a process reads, from sampled addresses (AMD IBS via
    /// perf).
    Attribute(cmd::attribute::Args),
    /// Every replica from a Prometheus store: the rules per replica, the outlier, the imbalance.
    Fleet(cmd::fleet::Args),
    /// Prometheus alerting rules on `fleet --serve`'s verdict series.
    Rules(cmd::rules::Args),
    /// A Grafana dashboard in every engine's and version's metric names, or a store's own.
    Dashboard(cmd::dashboard::Args),
    /// The step-shape census: step ledger, decode cadence by prefill load, the lag verdict.
    Census(cmd::census::Args),
    /// PCIe traffic per GPU from `nvidia-smi dmon` output, against the link's line rate.
    Pcie(cmd::pcie::Args),
    /// A simulated vLLM engine (labelled as one), driven by the same physics as the ceilings.
    Emulate(cmd::emulate::Args),
    /// Shell completions (bash, zsh, fish, powershell, elvish), from the same definitions as --help.
    Completions(cmd::completions::Args),
    /// The man pages (roff), from the same definitions as --help.
    Man(cmd::completions::ManArgs),
}

fn main() -> ExitCode {
    // Usage errors exit 1 like every other error (clap's own default is 2, which is reserved
    // for --fail-on findings); --help and --version exit 0.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(output::Exit::ERROR)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let result = match cli.command {
        Command::Demo(a) => cmd::demo::run(a),
        Command::Ceiling(a) => cmd::ceiling::run(a),
        Command::Diagnose(a) => cmd::diagnose::run(a),
        Command::Remeasure(a) => cmd::diagnose::remeasure(a),
        Command::Check(a) => cmd::check::run(a),
        Command::Cachehit(a) => cmd::cachehit::run(a),
        Command::History(a) => cmd::history::run(a),
        Command::Report(a) => cmd::report::run(a),
        Command::Watch(a) => cmd::watch::run(a),
        Command::Probe(a) => cmd::probe::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Regress(a) => cmd::regress::run(a),
        Command::Route(a) => cmd::route::run(a),
        Command::Trace(a) => cmd::trace::run(a),
        Command::Logs(a) => cmd::logs::run(a),
        Command::Gguf(a) => cmd::gguf::run(a),
        Command::Emulate(a) => cmd::emulate::run(a),
        Command::Fleet(a) => cmd::fleet::run(a),
        Command::Rules(a) => cmd::rules::run(a),
        Command::Dashboard(a) => cmd::dashboard::run(a),
        Command::Census(a) => cmd::census::run(a),
        Command::Membw(a) => cmd::membw::run(a),
        Command::Attribute(a) => cmd::attribute::run(a),
        Command::Pcie(a) => cmd::pcie::run(a),
        Command::Completions(a) => cmd::completions::run(a),
        Command::Man(a) => cmd::completions::man(a),
    };
    match result {
        Ok(exit) => exit.code(),
        // The reader went away (`| head`): what it wanted was printed.
        Err(e) if output::is_closed(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(output::Exit::ERROR)
        }
    }
}
