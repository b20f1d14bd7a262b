//! `headroom watch`: the diagnose window, live in the terminal. Scrapes every interval, keeps
//! the last window's scrapes, and judges them again after each sub-window (the same
//! `diagnose::judge` as `diagnose`), so the primary updates as the window slides. `q` quits and
//! restores the terminal.

use super::diagnose::{live, Shape};
use super::names::Target;
use crate::output::Exit;
use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use engines::{Recording, ScrapeRecord};
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use render::watch::{draw, View};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

#[derive(ClapArgs, Debug)]
#[command(after_help = "Examples:
  headroom watch --url http://localhost:8000 --gpu H100-SXM --model llama-3.1-8b
  headroom watch --url http://127.0.0.1:8080 --duration 1m --interval 500ms

The window's timeline (generation throughput against the ceiling, running and waiting) and the
rule scoreboard, judged again after each sub-window over the last --duration of scrapes: the
primary is what `headroom diagnose` would say about that window. q or Esc quits.

watch draws on a terminal and needs one on stdin and stdout: in a pipe, a cron job or CI it
stops at once with an error (exit 1) before scraping. For a verdict in a log, run
`headroom diagnose --url ... --duration 2m` (add --json for a document) in a loop instead.

The server is checked before the screen opens, as diagnose does (the URL answers, its /metrics
carries an engine's series). A window where under 80 % of the scrapes answered is titled
INCOMPLETE, with the counts; a simulated server (headroom emulate) is titled SIMULATED.")]
pub struct Args {
    /// Base URL of the server (its /metrics is scraped).
    #[arg(long)]
    pub url: String,
    /// The sliding window's length.
    #[arg(long, default_value = "2m", value_parser = crate::args::parse_duration)]
    pub duration: Duration,
    /// Time between scrapes.
    #[arg(long, default_value = "1s", value_parser = crate::args::parse_duration)]
    pub interval: Duration,
    /// Sub-windows per window; the verdict is renewed after each one.
    #[arg(long, default_value_t = 6)]
    pub sub_windows: usize,
    #[command(flatten)]
    pub target: Target,
    /// The engine's command line, for its flags.
    #[arg(long)]
    pub engine_args: Option<String>,
}

pub fn run(a: Args) -> Result<Exit> {
    if a.interval >= a.duration {
        anyhow::bail!("--interval must be shorter than --duration");
    }
    super::names::check_target(&a.target)?;
    {
        use std::io::IsTerminal;
        if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
            anyhow::bail!(
                "watch draws on a terminal, and stdin or stdout is not one (a pipe, a file, cron \
                 or CI): for a verdict in a log run `headroom diagnose --url {} --duration {}s` \
                 (--json for a document)",
                engines::scrape::without_credentials(&a.url),
                a.duration.as_secs()
            );
        }
    }
    let shape = Shape {
        url: Some(a.url.clone()),
        duration_s: a.duration.as_secs_f64(),
        interval_s: a.interval.as_secs_f64(),
        gpu: a.target.gpu.clone(),
        model: a.target.model.clone(),
        gguf: a.target.gguf.as_ref().map(|p| p.display().to_string()),
        engine_args: a.engine_args.clone(),
        tp: a.target.tp,
        dtype: a.target.dtype.clone(),
        quantization: a.target.quantization.clone(),
        price_per_hour: None,
        sub_windows: a.sub_windows.max(1),
    };
    let cat = super::names::catalog(a.target.catalog.as_deref())?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    // Open before taking the terminal, so a wrong URL is a plain error.
    let opened = rt.block_on(live::open(&shape, None))?;
    let keep = (a.duration.as_secs_f64() / a.interval.as_secs_f64()).ceil() as usize + 1;
    let sub = a.duration / shape.sub_windows as u32;
    let mut ring: VecDeque<ScrapeRecord> = VecDeque::with_capacity(keep + 1);
    ring.push_back(opened.first);
    let mut view = View {
        url: engines::scrape::without_credentials(&a.url),
        report: None,
        judged: 0,
        scrapes: 1,
        error: None,
        next_judge_s: sub.as_secs_f64(),
    };
    let mut term = ratatui::init();
    let result = (|| -> Result<()> {
        let start = Instant::now();
        let mut next_scrape = start + a.interval;
        let mut next_judge = start + sub;
        loop {
            term.draw(|f| draw(f, &view))?;
            let wait = next_scrape.saturating_duration_since(Instant::now());
            if event::poll(wait)? {
                match event::read()? {
                    Event::Key(k) if k.kind == KeyEventKind::Press => {
                        let ctrl_c = k.code == KeyCode::Char('c')
                            && k.modifiers.contains(KeyModifiers::CONTROL);
                        if matches!(k.code, KeyCode::Char('q') | KeyCode::Esc) || ctrl_c {
                            return Ok(());
                        }
                    }
                    // A resize redraws at the top of the loop.
                    _ => {}
                }
                continue;
            }
            let r = rt.block_on(opened.scraper.fetch_metrics());
            ring.push_back(ScrapeRecord::from_fetch(&r, super::common::now()));
            while ring.len() > keep {
                ring.pop_front();
            }
            view.scrapes += 1;
            next_scrape += a.interval;
            if next_scrape < Instant::now() {
                next_scrape = Instant::now() + a.interval;
            }
            if Instant::now() >= next_judge {
                next_judge += sub;
                let rec = Recording {
                    header: opened.header.clone(),
                    scrapes: ring.iter().cloned().collect(),
                    truncated_tail: None,
                };
                let target = diagnose::Target {
                    shape: shape.clone(),
                    replay: None,
                };
                match diagnose::judge(&rec, &target, &cat) {
                    Ok(j) => {
                        view.report = Some(j.report);
                        view.judged += 1;
                        view.error = None;
                    }
                    Err(e) => view.error = Some(e.to_string()),
                }
            }
            view.next_judge_s = next_judge
                .saturating_duration_since(Instant::now())
                .as_secs_f64();
        }
    })();
    ratatui::restore();
    result?;
    Ok(Exit::Ok)
}
