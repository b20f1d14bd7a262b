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

/// Scrape the server for the window's duration.
pub async fn live(
    shape: &diagnose::Shape,
    pid: Option<u32>,
    record: Option<&Path>,
    progress: bool,
) -> Result<Recording> {
    let url = shape.url.as_deref().context("no --url")?;
    let duration = Duration::from_secs_f64(shape.duration_s);
    let interval = Duration::from_secs_f64(shape.interval_s);
    let Opened {
        scraper,
        header,
        first,
    } = open(shape, pid).await?;
    let mut recorder = match record {
        Some(p) => Some(
            Recorder::create(p, &header)
                .with_context(|| format!("recording to {}", p.display()))?,
        ),
        None => None,
    };
    let bar = progress.then(|| {
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
    while start.elapsed() < duration {
        tick.tick().await;
        let r = scraper.fetch_metrics().await;
        if r.is_ok() {
            ok += 1
        } else {
            failed += 1
        }
        push(
            ScrapeRecord::from_fetch(&r, crate::cmd::diagnose::now()),
            &mut lines,
        )?;
        if let Some(b) = &bar {
            b.set_position(start.elapsed().as_secs().min(duration.as_secs()));
            b.set_message(format!("{url}: {ok} ok, {failed} failed"));
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(Recording {
        header,
        scrapes: lines,
        truncated_tail: None,
    })
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
    // Failed scrapes count against coverage and do not end the window, except when the first
    // one shows a mistake that waiting will not fix (wrong address, metrics off, not /metrics).
    let first = Scraper::new(url, Duration::from_secs(10))?
        .fetch_metrics()
        .await;
    if let Err(e) = &first {
        use engines::ScrapeError as E;
        if matches!(
            e,
            E::InvalidUrl { .. }
                | E::Unreachable { .. }
                | E::MetricsDisabled { .. }
                | E::NotPrometheus { .. }
                | E::HttpStatus { status: 404, .. }
        ) {
            bail!("{e}");
        }
    }
    let mut header = RecordingHeader::new(
        scraper.base_url(),
        shape.interval_s,
        crate::cmd::diagnose::now(),
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
    let first = ScrapeRecord::from_fetch(&first, crate::cmd::diagnose::now());
    Ok(Opened {
        scraper,
        header,
        first,
    })
}

pub fn replay(path: &Path) -> Result<Recording> {
    let rec = engines::read_recording(path)?;
    if rec.scrapes.is_empty() {
        bail!("{}: the recording holds no scrapes", path.display());
    }
    Ok(rec)
}
