//! `headroom bench`: a short, fixed, reproducible suite against a live server, recorded with
//! everything that identifies what was measured (engine version and build, model file, GPU,
//! the settings and defaults the engine reports), so `headroom regress` can say both *that* a
//! later run is slower and *what changed* in between.

use crate::cmd::progress::Bar;
use crate::output::{self, Exit};
use anyhow::{bail, Context, Result};
use clap::Args as ClapArgs;
use engines::identity::{identify, EngineCounters, Hints, LoadWatch, Sourced};
use engines::process::is_local;
use engines::{Engine, Scraper};
use loadgen::bench_doc::BenchDoc;
use loadgen::bench_suite::{run_rounds, SuiteConfig, SuiteRun};
use loadgen::probe::Progress;
use loadgen::{Client, ClientConfig, ServerInfo, TokenCounter};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

#[derive(ClapArgs, Debug)]
#[command(after_help = "Examples:
  headroom bench --url http://127.0.0.1:8080 --label \"b6500\"
  headroom bench --url http://gpu-box:8000 --gpu tesla-p40 --label \"after upgrade\"
  headroom bench --url http://127.0.0.1:8080 --quick --no-save --json
  headroom bench --url http://127.0.0.1:8080 --label old --against http://127.0.0.1:8081 \
      --against-label new --max-time 4m       # two servers in alternation, compared
  headroom regress                 # the latest bench against the one before it

The suite is fixed: temperature 0, seed 0, ignore_eos, prompts of exact token lengths from a
built-in corpus (only a salt at the front differs, so no cache serves them). Per repeat, in
turn: one decode request (decode tok/s and TTFT), one 1-token request per prefill length
(prompt tokens / TTFT), and N streams at once (aggregate decode tok/s). Standard: 5 repeats,
128 generated tokens, prefill at 128/512/2048, 4 streams. --quick: 5 repeats, 24 tokens,
prefill at 96, 2 streams.

Enough samples, adaptively: after the preset's repeats (and one warm-up repeat), bench looks
at 5, 10, 20, 40 repeats and stops when every metric's 95 % interval on its median lies within
the noise floor / √2 (two such runs can tell a move of the floor's size), or at --max-time or
--max-repeats. --repeats N runs exactly N. With --against, two servers alternate (round by
round, the order reversed each round) and the looks (10, 20, 40 rounds) ask whether
`headroom regress`'s comparison, pair by pair (the median of the rounds' ratios, Wilcoxon's
signed-rank test: the machine's drift between rounds cancels), has decided: some metric
regressed, or every metric has moved either way or has its interval inside the noise floor. An
improvement alone does not stop it (one flag can speed one path and slow another). Each look is
held to its share of the error rate (Bonferroni over the planned looks).

Identity is recorded automatically: llama.cpp /props (build_info, model_path, default
generation settings), /slots, vLLM /version, /v1/models, /metrics; for a server on this
machine the process's own command line (flags such as -t, -ub, -fa) and a hash of the GGUF
header of its model file. The run is saved to the history (see `headroom history --bench`).
The JSON document is described in docs/json/bench.md.")]
pub struct Args {
    /// Base URL of the OpenAI-compatible server.
    #[arg(long)]
    pub url: String,
    /// A name for what is measured (an engine version, \"after upgrade\"); regress groups runs
    /// by it.
    #[arg(long)]
    pub label: Option<String>,
    /// The short preset (CPU boxes, tests).
    #[arg(long)]
    pub quick: bool,
    /// Repeats of each measurement: exactly this many (without it, the preset's 5 are the
    /// least, and more follow until the samples are tight; see --max-time). With --against,
    /// the least before the first look.
    #[arg(long)]
    pub repeats: Option<u32>,
    /// A second server to bench in alternation with --url (repeat by repeat, the order
    /// reversed each round), compared with `headroom regress`'s comparison as they go: sampling
    /// stops when some metric regressed beyond the floor, when every metric has moved or is
    /// inside it, or at the caps. Both runs are saved.
    #[arg(long, value_name = "URL")]
    pub against: Option<String>,
    /// The label of the --against server's run.
    #[arg(long)]
    pub against_label: Option<String>,
    /// Cap on the adaptive sampling's time (90, 2m, 1m30s); the round under way finishes.
    #[arg(long, value_parser = crate::args::parse_duration, default_value = "2m")]
    pub max_time: Duration,
    /// Cap on measured repeats per server in adaptive sampling.
    #[arg(long, default_value_t = 40)]
    pub max_repeats: u32,
    /// Noise floor in percent for adaptive sampling and the --against comparison.
    #[arg(long, default_value_t = 5.0)]
    pub threshold: f64,
    /// With --against: exit with status 2 when any metric regressed.
    #[arg(long)]
    pub fail_on_regression: bool,
    /// Tokens generated per decode request (overrides the preset; 128, 1k).
    #[arg(long, value_parser = crate::args::parse_tokens_u32)]
    pub gen_tokens: Option<u32>,
    /// Prefill prompt lengths, comma-separated (overrides the preset): 128,512,2k.
    #[arg(long, value_delimiter = ',', value_parser = crate::args::parse_tokens)]
    pub prefill_lengths: Option<Vec<u64>>,
    /// Streams of the aggregate decode measurement (overrides the preset).
    #[arg(long)]
    pub streams: Option<u32>,
    /// The model name to send (default: the server's first model).
    #[arg(long)]
    pub model: Option<String>,
    /// The GPU, recorded in the identity: a catalog name (recorded as the catalog's name; an
    /// ambiguous one is an error), or any other name (recorded as given).
    #[arg(long)]
    pub gpu: Option<String>,
    /// The engine's command line, for flags the engine does not report:
    /// "llama-server -m m.gguf -ub 512 -fa on".
    #[arg(long)]
    pub engine_args: Option<String>,
    /// Read the engine's flags from this process (/proc/PID/cmdline). Default: found from the
    /// listening port when the URL is on this machine.
    #[arg(long)]
    pub pid: Option<u32>,
    /// Sent as `Authorization: Bearer`.
    #[arg(long)]
    pub api_key: Option<String>,
    /// Do not save the run to the history.
    #[arg(long)]
    pub no_save: bool,
    /// History database (default: $XDG_DATA_HOME/headroom/history.sqlite).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Also write the run as a self-contained HTML page, each metric's samples (see
    /// `headroom report`; one server only).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// One JSON document (schema headroom.bench/2) on stdout.
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// List every recorded setting and default in the table.
    #[arg(long, short)]
    pub verbose: bool,
}

pub use loadgen::bench_doc::SCHEMA;

pub fn run(a: Args) -> Result<Exit> {
    if let Some(g) = &a.gpu {
        if let Err(e @ physics::LookupError::Ambiguous { .. }) =
            physics::Catalog::embedded()?.gpu(g)
        {
            return Err(anyhow::Error::new(e).context(format!("--gpu {g:?}")));
        }
    }
    let mut suite = if a.quick {
        SuiteConfig::quick()
    } else {
        SuiteConfig::standard()
    };
    let custom = a.repeats.is_some()
        || a.gen_tokens.is_some()
        || a.prefill_lengths.is_some()
        || a.streams.is_some();
    if let Some(r) = a.repeats {
        suite.repeats = r;
    }
    if let Some(g) = a.gen_tokens {
        suite.gen_tokens = g;
    }
    if let Some(p) = &a.prefill_lengths {
        suite.prefill_lengths = p.clone();
    }
    if let Some(s) = a.streams {
        suite.streams = s;
    }
    if custom {
        suite.preset = format!("custom (from {})", suite.preset);
    }
    suite.model = a.model.clone();
    if !(a.threshold >= 0.0 && a.threshold < 100.0) {
        bail!(
            "--threshold {} must be a percentage in [0, 100)",
            a.threshold
        );
    }
    if a.html.is_some() && a.against.is_some() {
        bail!("--html writes one server's run; for two, save both and run `headroom report RUN --against BASELINE`");
    }
    if a.against.is_none() && a.against_label.is_some() {
        bail!("--against-label names the --against server's runs; pass --against URL too");
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let cfg = ::regress::Config {
        threshold: a.threshold / 100.0,
        ..::regress::Config::default()
    };
    let mut docs = rt.block_on(measure(&a, &suite, &cfg))?;
    let labels = [a.label.clone(), a.against_label.clone()];
    let mut saved = Vec::new();
    let store = if a.no_save {
        None
    } else {
        let path = super::common::db_path(&a.db)?;
        Some(store::Store::open(&path)?)
    };
    for (doc, label) in docs.iter_mut().zip(&labels) {
        let id = match &store {
            Some(st) => Some(st.save(
                &store::NewRun {
                    kind: "bench",
                    created: doc.created,
                    label: label.as_deref(),
                    url: Some(&doc.url),
                    engine: doc.identity.engine.map(Engine::as_str),
                    model: doc.identity.served_model.as_deref(),
                    remeasure_of: None,
                },
                &serde_json::to_value(&*doc)?,
            )?),
            None => None,
        };
        doc.saved_run_id = Some(id);
        saved.push(id);
    }
    if docs.len() == 2 {
        return pair(&a, docs, &saved, &cfg);
    }
    let doc = &docs[0];
    if let Some(p) = &a.html {
        super::common::write_page(p, &::report::bench(doc, saved.first().copied().flatten()))?;
    }
    if a.json {
        output::json(doc)?;
    } else {
        output::emit(&render::bench::render(doc, a.verbose))?;
        if let Some(Some(id)) = saved.first() {
            output::emit(&format!(
                "\nSaved as bench run {id}{}. Compare with an earlier run: headroom regress\n",
                a.label
                    .as_deref()
                    .map(|l| format!(" [{l}]"))
                    .unwrap_or_default()
            ))?;
        }
    }
    Ok(Exit::Ok)
}

/// Two servers benched in alternation: both runs, and `headroom regress` of the two.
fn pair(
    a: &Args,
    mut docs: Vec<BenchDoc>,
    saved: &[Option<i64>],
    cfg: &::regress::Config,
) -> Result<Exit> {
    let latest = docs.pop().expect("two runs");
    let baseline = docs.pop().expect("two runs");
    let sampling = baseline
        .sampling
        .clone()
        .context("an alternating run records its sampling")?;
    // Runs not saved take ids 1 and 2 here.
    let ids = [saved[0].unwrap_or(1), saved[1].unwrap_or(2)];
    let runs: Vec<::regress::BenchRun> = [&baseline, &latest]
        .iter()
        .zip(ids)
        .map(|(d, id)| ::regress::BenchRun {
            id,
            created: d.created,
            label: d.label.clone(),
            doc: (*d).clone(),
        })
        .collect();
    let q = ::regress::Query {
        baseline: Some(ids[0].to_string()),
        latest: Some(ids[1].to_string()),
        db: match saved[0] {
            Some(_) => super::common::db_path(&a.db)?.display().to_string(),
            None => "(not saved)".into(),
        },
    };
    let at = ::regress::sequential::per_look(cfg, sampling.looks.len());
    let comparison = ::regress::regress(&runs, &q, &at, Vec::new())?;
    let regressed = comparison
        .metrics
        .iter()
        .any(|m| m.verdict == ::regress::Verdict::Regressed);
    let doc = ::regress::BenchPairDoc {
        baseline,
        comparison,
        latest,
        sampling,
        schema: ::regress::sequential::PAIR_SCHEMA.into(),
    };
    if a.json {
        output::json(&doc)?;
    } else {
        output::emit(&render::bench::render(&doc.baseline, a.verbose))?;
        output::emit("\n")?;
        output::emit(&render::bench::render(&doc.latest, a.verbose))?;
        output::emit("\n")?;
        output::emit(&render::regress::report(&doc.comparison))?;
        if saved[0].is_some() {
            output::emit(&format!(
                "\nSaved as bench runs {} and {}.\n",
                ids[0], ids[1]
            ))?;
        }
    }
    Ok(if regressed && a.fail_on_regression {
        Exit::Found
    } else {
        Exit::Ok
    })
}

/// One server, ready to bench: what it is, and its counters before.
struct Target {
    client: Client,
    info: ServerInfo,
    scraper: Scraper,
    ident: engines::identity::Identity,
    notes: Vec<String>,
    before: Option<engines::scrape::Scrape>,
    counter: TokenCounter,
}

async fn target(a: &Args, url: &str, suite: &SuiteConfig, bar: &Bar) -> Result<Target> {
    let cfg = ClientConfig {
        max_in_flight: suite.streams.max(1) as usize,
        api_key: a.api_key.clone(),
        ..ClientConfig::default()
    };
    let client = Client::new(url, cfg)?;
    let info = loadgen::discover(&client)
        .await
        .with_context(|| format!("asking {} what it serves", client.base_url()))?;
    bar.note(&format!(
        "{}: {} serving {}",
        client.base_url(),
        info.engine.map(Engine::name).unwrap_or("unknown engine"),
        info.model.as_deref().unwrap_or("(unnamed model)")
    ));
    let scraper = Scraper::new(client.base_url(), Duration::from_secs(10))?;
    // --pid and --engine-args describe the --url server only.
    let main = url == a.url;
    let hints = Hints {
        engine: info.engine,
        served_model: info.model.clone(),
        pid: a.pid.filter(|_| main),
        engine_args: a.engine_args.clone().filter(|_| main),
        gpu: a.gpu.as_ref().map(|g| {
            match physics::Catalog::embedded()
                .ok()
                .and_then(|c| c.gpu(g).ok().map(|f| f.entry.name.clone()))
            {
                Some(name) => Sourced::new(name, "--gpu (catalog)"),
                None => Sourced::new(g.clone(), "--gpu (not in the catalog)"),
            }
        }),
    };
    let ident = identify(&scraper, &hints).await;
    // Other traffic would share the measurement: say so when the server is not idle.
    let mut notes = Vec::new();
    if let Ok(Some(l)) = loadgen::current_load(&client).await {
        if !l.is_idle() {
            notes.push(format!(
                "the server was busy when the bench started ({} running, {} waiting, from {}): \
other traffic shares these numbers",
                l.running, l.waiting, l.source
            ));
        }
    }
    let before = scraper.scrape_metrics().await.ok();
    let counter = TokenCounter::detect(&client, &info).await?;
    Ok(Target {
        client,
        info,
        scraper,
        ident,
        notes,
        before,
        counter,
    })
}

/// Bench the --url server (and the --against server, in alternation); one document each.
async fn measure(a: &Args, suite: &SuiteConfig, cfg: &::regress::Config) -> Result<Vec<BenchDoc>> {
    let bar = Bar::new(
        a.quiet || (a.json && !std::io::stderr().is_terminal()),
        "",
        "steps",
    );
    let mut urls = vec![a.url.clone()];
    urls.extend(a.against.clone());
    let mut targets = Vec::new();
    for u in &urls {
        targets.push(target(a, u, suite, &bar).await?);
    }
    let local = targets.iter().all(|t| is_local(t.client.base_url()));
    let load = LoadWatch::start(local);
    let mut arms = Vec::new();
    for t in &targets {
        arms.push(SuiteRun::new(&t.client, &t.info, &t.counter, suite)?);
    }
    let plan =
        ::regress::sequential::Plan::new(cfg, arms.len(), suite.repeats, a.repeats, a.max_repeats);
    let max_s = if plan.fixed {
        f64::INFINITY
    } else {
        a.max_time.as_secs_f64()
    };
    let sampling = run_rounds(
        &mut arms,
        plan.min,
        plan.max,
        max_s,
        &plan.rule,
        &bar,
        &mut |arms| plan.enough(&arms.iter().map(|a| a.metrics()).collect::<Vec<_>>()),
    )
    .await
    .map(|s| (!plan.fixed).then_some(s));
    bar.finish();
    let sampling = sampling?;
    let host = load.finish();
    let mut docs = Vec::new();
    for ((t, arm), label) in targets
        .into_iter()
        .zip(arms)
        .zip([a.label.clone(), a.against_label.clone()])
    {
        let mut result = arm.finish();
        result.notes.extend(t.notes);
        if let Some(s) = &sampling {
            result.notes.push(format!(
                "{} measured repeat(s){}: stopped at {} after {:.0} s ({} of {} planned look(s) \
taken; rule: {})",
                s.repeats,
                if urls.len() == 2 {
                    " per server, the two servers in alternation"
                } else {
                    ""
                },
                s.stopped,
                s.elapsed_s,
                s.looked,
                s.looks.len(),
                s.rule
            ));
        }
        let after = t.scraper.scrape_metrics().await.ok();
        let mut ident = t.ident;
        ident.host = host.clone();
        let counters = EngineCounters::between(t.before.as_ref(), after.as_ref());
        if let Some(d) = counters.speculative_drafts {
            ident.settings.insert(
                "speculative_active".into(),
                Sourced::new(
                    (d > 0.0).to_string(),
                    "metrics (draft steps during the bench)",
                ),
            );
        }
        let mut doc = BenchDoc {
            all_exact: result.all_exact,
            created: super::common::now(),
            engine_counters: counters,
            identity: ident,
            label,
            metrics: result.metrics,
            notes: result.notes,
            prompt_count: result.prompt_count,
            saved_run_id: None,
            sampling: sampling.clone(),
            schema: SCHEMA.into(),
            suite: result.suite,
            summary: String::new(),
            url: t.client.base_url().to_string(),
            wall_s: result.wall_s,
        };
        doc.summary = render::bench::summary(&doc);
        docs.push(doc);
    }
    Ok(docs)
}
