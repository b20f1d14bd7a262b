//! `headroom watch`: the diagnose window, live in the terminal. Scrapes every interval, keeps
//! the last window's scrapes, and judges them again after each sub-window (the same
//! `diagnose::judge` as `diagnose`), so the primary updates as the window slides. `q` quits and
//! restores the terminal.

use super::diagnose::{live, Shape, Target};
use crate::output::Exit;
use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use diagnose::{Report, RuleId};
use engines::{Recording, ScrapeRecord};
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph, Row, Table, Wrap};
use ratatui::Frame;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

#[derive(ClapArgs, Debug)]
#[command(after_help = "Examples:
  headroom watch --url http://localhost:8000 --gpu H100-SXM --model llama-3.1-8b
  headroom watch --url http://127.0.0.1:8080 --duration 1m --interval 500ms

The window's timeline (generation throughput against the ceiling, running and waiting) and the
rule scoreboard, judged again after each sub-window over the last --duration of scrapes: the
primary is what `headroom diagnose` would say about that window. q or Esc quits.")]
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

/// What the screen shows.
struct View {
    url: String,
    report: Option<Report>,
    judged: usize,
    scrapes: usize,
    error: Option<String>,
    next_judge_s: f64,
}

pub fn run(a: Args) -> Result<Exit> {
    if a.interval >= a.duration {
        anyhow::bail!("--interval must be shorter than --duration");
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
    let cat = super::diagnose::catalog(a.target.catalog.as_deref())?;
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
        url: a.url.clone(),
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
            ring.push_back(ScrapeRecord::from_fetch(&r, super::diagnose::now()));
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

fn num(v: f64) -> String {
    physics::provenance::sig(v, 3)
}

fn draw(f: &mut Frame, v: &View) {
    let [top, charts, board, foot] = Layout::vertical([
        Constraint::Length(6),
        Constraint::Min(6),
        // Eight rules, a header and the border.
        Constraint::Length(11),
        Constraint::Length(1),
    ])
    .areas(f.area());
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let verdict: Vec<Line> = match &v.report {
        None => vec![Line::from(format!(
            "Collecting: the first verdict comes after one sub-window ({:.0} s).",
            v.next_judge_s
        ))],
        Some(r) => match &r.primary {
            Some(p) => {
                let mut l = vec![Line::from(vec![
                    Span::styled(
                        format!("Primary: {} {}", p.rule.as_str(), p.title),
                        bold.fg(Color::Red),
                    ),
                    Span::raw(
                        p.seen_in
                            .map(|s| format!("  (seen in {:.0}% of sub-windows)", s * 100.0))
                            .unwrap_or_default(),
                    ),
                ])];
                l.extend(
                    p.evidence
                        .iter()
                        .take(2)
                        .map(|e| Line::from(format!("  {e}"))),
                );
                let flags: Vec<String> = p
                    .fix
                    .iter()
                    .filter_map(|s| {
                        s.flag.as_ref().map(|fl| {
                            format!(
                                "{fl}{}",
                                s.value
                                    .as_deref()
                                    .map(|x| format!(" {x}"))
                                    .unwrap_or_default()
                            )
                        })
                    })
                    .collect();
                if !flags.is_empty() {
                    l.push(Line::from(format!("  fix: {}", flags.join("   "))));
                }
                l
            }
            None => vec![
                Line::from(Span::styled("Primary: none", bold.fg(Color::Green))),
                Line::from(
                    r.boundary
                        .as_ref()
                        .map(|b| format!("  {}: {}", b.kind.as_str(), b.text))
                        .unwrap_or_default(),
                ),
            ],
        },
    };
    f.render_widget(
        Paragraph::new(verdict)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(format!(" headroom watch {} ", v.url))),
        top,
    );
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(charts);
    if let Some(r) = &v.report {
        let pts = |g: &dyn Fn(&diagnose::TimePoint) -> Option<f64>| -> Vec<(f64, f64)> {
            r.timeline
                .points
                .iter()
                .filter_map(|p| g(p).filter(|y| y.is_finite()).map(|y| (p.t_s, y)))
                .collect()
        };
        let x1 = r.timeline.points.last().map_or(1.0, |p| p.t_s.max(1.0));
        let gen = pts(&|p| p.generation_tps);
        let ceiling = r.ceiling.aggregate_at_ridge_tps.filter(|c| c.is_finite());
        let ceil_line: Vec<(f64, f64)> =
            ceiling.map(|c| vec![(0.0, c), (x1, c)]).unwrap_or_default();
        let ymax = gen
            .iter()
            .map(|p| p.1)
            .chain(ceiling)
            .fold(1.0f64, f64::max)
            * 1.05;
        let mut ds = vec![Dataset::default()
            .name("generation tok/s")
            .marker(symbols::Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(Color::Cyan))
            .data(&gen)];
        if ceiling.is_some() {
            ds.push(
                Dataset::default()
                    .name("ceiling (est)")
                    .marker(symbols::Marker::Dot)
                    .graph_type(GraphType::Line)
                    .style(Style::default().fg(Color::DarkGray))
                    .data(&ceil_line),
            );
        }
        f.render_widget(
            Chart::new(ds)
                .block(Block::bordered().title(" generation tok/s "))
                .x_axis(
                    Axis::default()
                        .bounds([0.0, x1])
                        .labels(["0".to_string(), format!("{} s", num(x1))]),
                )
                .y_axis(
                    Axis::default()
                        .bounds([0.0, ymax])
                        .labels(["0".to_string(), num(ymax)]),
                ),
            left,
        );
        let run = pts(&|p| p.running);
        let wait = pts(&|p| p.waiting);
        let kv = pts(&|p| p.kv_usage.map(|k| k * 100.0));
        let rmax = run
            .iter()
            .chain(&wait)
            .chain(&kv)
            .map(|p| p.1)
            .fold(1.0f64, f64::max)
            * 1.05;
        let ds = vec![
            Dataset::default()
                .name("running")
                .marker(symbols::Marker::Braille)
                .graph_type(GraphType::Line)
                .style(Style::default().fg(Color::Cyan))
                .data(&run),
            Dataset::default()
                .name("waiting")
                .marker(symbols::Marker::Braille)
                .graph_type(GraphType::Line)
                .style(Style::default().fg(Color::Red))
                .data(&wait),
            Dataset::default()
                .name("KV %")
                .marker(symbols::Marker::Braille)
                .graph_type(GraphType::Line)
                .style(Style::default().fg(Color::Green))
                .data(&kv),
        ];
        f.render_widget(
            Chart::new(ds)
                .block(Block::bordered().title(" running, waiting, KV % "))
                .x_axis(
                    Axis::default()
                        .bounds([0.0, x1])
                        .labels(["0".to_string(), format!("{} s", num(x1))]),
                )
                .y_axis(
                    Axis::default()
                        .bounds([0.0, rmax])
                        .labels(["0".to_string(), num(rmax)]),
                ),
            right,
        );
        let rows = RuleId::ALL.into_iter().map(|rule| {
            let (standing, class, seen, ev) = report::standing(r, rule);
            let style = match class {
                "st-primary" => bold.fg(Color::Red),
                "st-held" => bold.fg(Color::Yellow),
                _ => Style::default().fg(Color::Gray),
            };
            Row::new(vec![
                Span::raw(rule.as_str()),
                Span::raw(rule.title()),
                Span::styled(standing, style),
                Span::raw(
                    seen.map(|s| format!("{:.0}%", s * 100.0))
                        .unwrap_or_else(|| "-".into()),
                ),
                Span::raw(ev.first().cloned().unwrap_or_default()),
            ])
        });
        f.render_widget(
            Table::new(
                rows,
                [
                    Constraint::Length(4),
                    Constraint::Length(23),
                    Constraint::Length(14),
                    Constraint::Length(5),
                    Constraint::Min(10),
                ],
            )
            .header(Row::new(["rule", "", "standing", "seen", "evidence"]).style(bold))
            .block(Block::bordered().title(" rules ")),
            board,
        );
    }
    let status = format!(
        " {} scrapes · verdict {} · next in {:.0} s{} · q quits",
        v.scrapes,
        v.judged,
        v.next_judge_s,
        v.error
            .as_deref()
            .map(|e| format!(" · {e}"))
            .unwrap_or_default()
    );
    f.render_widget(
        Paragraph::new(status).style(Style::default().fg(Color::DarkGray)),
        foot,
    );
}
