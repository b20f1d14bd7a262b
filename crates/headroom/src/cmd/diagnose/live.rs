//! Taking a window: scrape /metrics every interval (progress on stderr), ask the endpoints that
//! carry config once, read the serving process's command line when it runs on this host, and
//! optionally record every scrape so the run can be replayed. Judging it is the library's
//! (`diagnose::judge`).

use anyhow::{bail, Context, Result};
use engines::{Recorder, Recording, RecordingHeader, ScrapeRecord, Scraper};
use std::path::Path;
use std::time::{Duration, Instant};

/// A server opened for sampling: its scraper, the recording header (config endpoints, the
/// process's flags) and the first scrape.
pub struct Opened {
    pub scraper: Scraper,
    pub header: RecordingHeader,
    pub first: ScrapeRecord,
}

/// When a window ends.
pub enum Until<'a> {
    /// After this long (`diagnose --duration`).
    Elapsed(Duration),
    /// When this process exits, after one more scrape (`check`: the run's whole window).
    Exits(&'a mut std::process::Child),
}

/// Scrape the server for the window's duration.
pub async fn live(
    shape: &diagnose::Shape,
    pid: Option<u32>,
    record: Option<&Path>,
    progress: bool,
) -> Result<Recording> {
    let opened = open(shape, pid).await?;
    let duration = Duration::from_secs_f64(shape.duration_s);
    let interval = Duration::from_secs_f64(shape.interval_s);
    let (recording, _) =
        sample(opened, interval, record, Until::Elapsed(duration), progress).await?;
    Ok(recording)
}

/// Scrape an opened server every `interval` until `until`, recording each scrape when asked.
/// Returns the window and, for [`Until::Exits`], how the process ended.
pub async fn sample(
    opened: Opened,
    interval: Duration,
    record: Option<&Path>,
    mut until: Until<'_>,
    progress: bool,
) -> Result<(Recording, Option<std::process::ExitStatus>)> {
    let Opened {
        scraper,
        header,
        first,
    } = opened;
    let url = scraper.base_url().to_string();
    let mut recorder = match record {
        Some(p) => Some(
            Recorder::create(p, &header)
                .with_context(|| format!("recording to {}", p.display()))?,
        ),
        None => None,
    };
    // A bar needs an end; a window that lasts as long as a process has none to show.
    let duration = match &until {
        Until::Elapsed(d) => Some(*d),
        Until::Exits(_) => None,
    };
    let bar = duration.filter(|_| progress).map(|duration| {
        let b = indicatif::ProgressBar::new(duration.as_secs().max(1));
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} sampling {msg} [{bar:30}] {eta} left",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let mut lines = Vec::new();
    let mut push = |line: ScrapeRecord, lines: &mut Vec<ScrapeRecord>| -> Result<()> {
        if let Some(r) = recorder.as_mut() {
            r.record(&line)?;
        }
        lines.push(line);
        Ok(())
    };
    push(first, &mut lines)?;
    let start = Instant::now();
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let (mut ok, mut failed) = (1usize, 0usize);
    let mut exit = None;
    loop {
        let done = match &until {
            Until::Elapsed(d) => start.elapsed() >= *d,
            Until::Exits(_) => exit.is_some(),
        };
        if done {
            break;
        }
        tick.tick().await;
        // Asked before the scrape, so the scrape that follows an exit is the window's last.
        if let Until::Exits(child) = &mut until {
            exit = child.try_wait().context("waiting for the command")?;
        }
        let r = scraper.fetch_metrics().await;
        if r.is_ok() {
            ok += 1
        } else {
            failed += 1
        }
        push(
            ScrapeRecord::from_fetch(&r, crate::cmd::common::now()),
            &mut lines,
        )?;
        if let (Some(b), Some(d)) = (&bar, duration) {
            b.set_position(start.elapsed().as_secs().min(d.as_secs()));
            b.set_message(format!("{url}: {ok} ok, {failed} failed"));
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok((
        Recording {
            header,
            scrapes: lines,
            truncated_tail: None,
        },
        exit,
    ))
}

/// Opens a server for sampling: the first scrape (a mistake waiting will not fix ends here),
/// the config endpoints and the serving process's flags.
pub async fn open(shape: &diagnose::Shape, pid: Option<u32>) -> Result<Opened> {
    let url = shape.url.as_deref().context("no --url")?;
    let interval = Duration::from_secs_f64(shape.interval_s);
    // A scrape may take at most two intervals (bounded to 2–10 s): a busy server answers
    // /metrics late (llama.cpp queues it behind decode steps), but must not stretch the window.
    let timeout = (interval * 2).clamp(Duration::from_secs(2), Duration::from_secs(10));
    let scraper = Scraper::new(url, timeout)?;
    // The check before measuring: the first scrape must answer, within 10 s, with an engine's
    // series; otherwise the run ends here, not after the window. Later failed scrapes count
    // against coverage and do not end the window.
    let first = Scraper::new(url, Duration::from_secs(10))?
        .fetch_metrics()
        .await;
    match &first {
        Err(e) => bail!("checking the server before the window: {e}"),
        Ok(raw) => check_engine(&raw.body, scraper.base_url())?,
    }
    let mut header = RecordingHeader::new(
        scraper.base_url(),
        shape.interval_s,
        crate::cmd::common::now(),
    );
    header.engine_args = shape.engine_args.clone();
    let process = match pid {
        Some(pid) => {
            let argv = engines::config::read_proc_cmdline(pid)?;
            header.cmdline = Some(crate::cmd::emulate::as_vllm_argv(&argv).unwrap_or(argv));
            Some(pid)
        }
        // The server runs here: the process listening on its port says its own flags. Best
        // effort (another user's process cannot be read); the config records where each value
        // came from.
        // Kept only when it is an engine's launcher the config reader knows.
        None => {
            let found = engines::process::serving_pid(url);
            header.cmdline = found
                .and_then(|p| engines::config::read_proc_cmdline(p).ok())
                // An emulator on this host reads as the vLLM command line it stands for.
                .map(|argv| crate::cmd::emulate::as_vllm_argv(&argv).unwrap_or(argv))
                .filter(|argv| {
                    engines::EngineConfig::from_argv(argv, engines::Source::ProcessCmdline).is_ok()
                });
            found.filter(|_| header.cmdline.is_some())
        }
    };
    // vLLM's defaults differ on its CPU platform; the process says which one it runs on.
    let vllm_line = header.cmdline.as_deref().is_some_and(|argv| {
        engines::EngineConfig::from_argv(argv, engines::Source::ProcessCmdline)
            .is_ok_and(|c| c.engine == Some(engines::Engine::Vllm))
    });
    if vllm_line {
        header.vllm_on_cpu = process.and_then(engines::process::vllm_on_cpu);
    }
    // Endpoints that carry config; each engine answers some of them, and a miss is kept as
    // the reason, not an error.
    for (path, slot) in [
        ("/v1/models", &mut header.models),
        ("/props", &mut header.props),
        ("/version", &mut header.version),
    ] {
        match scraper.get_json(path).await {
            Ok(v) => *slot = Some(v),
            Err(e) => {
                header
                    .endpoint_errors
                    .insert(path.to_string(), e.to_string());
            }
        }
    }
    let first = ScrapeRecord::from_fetch(&first, crate::cmd::common::now());
    Ok(Opened {
        scraper,
        header,
        first,
    })
}

/// The first /metrics body must parse and carry an LLM engine's series; otherwise the error
/// names what answered instead (a node exporter, nginx, a bare Go or Python process ...).
pub fn check_engine(body: &str, url: &str) -> Result<()> {
    let metrics = format!("{}/metrics", url.trim_end_matches('/'));
    let e = match engines::prom::parse(body) {
        Ok(e) => e,
        Err(err) => bail!(
            "checking the server before the window: {}",
            engines::scrape::metrics_parse_error(&metrics, err.into())
        ),
    };
    if engines::detect_engine(&e).is_some() {
        return Ok(());
    }
    let names: Vec<&str> = e.families.iter().map(|f| f.name.as_str()).collect();
    let known: Vec<&str> = engines::Engine::ALL.iter().map(|e| e.name()).collect();
    bail!(
        "checking the server before the window: {metrics} answers, but with no LLM engine's \
         metrics ({}): {}. Point --url at the engine's own port (vLLM, SGLang and LMDeploy \
         serve /metrics on their API port; llama-server needs --metrics)",
        known.join(", "),
        what_answered(&names)
    )
}

/// What a Prometheus exposition without an engine's series looks like it came from, by the
/// prefixes of its families.
fn what_answered(names: &[&str]) -> String {
    if names.is_empty() {
        return "the exposition is empty (no series at all)".into();
    }
    let share = |p: &str| names.iter().filter(|n| n.starts_with(p)).count();
    // Known exporters, by the prefix their own documentation gives their series.
    let known = [
        ("node_", "a Prometheus node exporter (host metrics)"),
        ("nginx_", "an nginx exporter"),
        ("nginxplus_", "an nginx exporter"),
        ("haproxy_", "an HAProxy exporter"),
        ("traefik_", "a Traefik proxy"),
        ("envoy_", "an Envoy proxy"),
        ("prometheus_", "a Prometheus server's own metrics"),
        (
            "DCGM_",
            "NVIDIA's DCGM exporter (GPU metrics, not the engine's)",
        ),
        (
            "nvidia_",
            "an NVIDIA GPU exporter (GPU metrics, not the engine's)",
        ),
        ("litellm_", "a LiteLLM proxy"),
    ];
    let best = known
        .iter()
        .map(|(p, what)| (share(p), *what))
        .filter(|(n, _)| *n > 0)
        .max_by_key(|(n, _)| *n);
    let runtime = share("go_") + share("process_") + share("python_") + share("promhttp_");
    let who = match best {
        Some((_, what)) => what.to_string(),
        None if runtime == names.len() => {
            "only a runtime's default series (go_*, process_*, python_*): a program with no \
             LLM engine metrics"
                .to_string()
        }
        None => "an exporter headroom does not know".to_string(),
    };
    let shown: Vec<&str> = names.iter().take(5).copied().collect();
    format!(
        "{who}; {} famil{} such as {}",
        names.len(),
        if names.len() == 1 { "y" } else { "ies" },
        shown.join(", ")
    )
}

pub fn replay(path: &Path) -> Result<Recording> {
    let rec = engines::read_recording(path)?;
    if rec.scrapes.is_empty() {
        bail!("{}: the recording holds no scrapes", path.display());
    }
    Ok(rec)
}
