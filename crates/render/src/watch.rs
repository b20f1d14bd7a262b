//! `headroom watch`'s screen: one ratatui frame from the latest judged window.

use diagnose::{Report, RuleId};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph, Row, Table, Wrap};
use ratatui::Frame;

/// What the screen shows.
pub struct View {
    pub url: String,
    pub report: Option<Report>,
    pub judged: usize,
    pub scrapes: usize,
    pub error: Option<String>,
    pub next_judge_s: f64,
}

fn num(v: f64) -> String {
    physics::provenance::sig(v, 3)
}

/// The verdict box's title: the URL, and SIMULATED or INCOMPLETE where the window is either.
fn title(v: &View) -> String {
    let mut t = format!(" headroom watch {} ", v.url);
    if let Some(r) = &v.report {
        if r.simulated {
            t.push_str("· SIMULATED ");
        }
        if r.scrapes.incomplete {
            t.push_str(&format!(
                "· INCOMPLETE: {} of {} scrapes answered, not a verdict ",
                r.scrapes.ok,
                r.scrapes.ok + r.scrapes.failed
            ));
        }
    }
    t
}

/// Draws one frame: the verdict, the timeline charts, the rule scoreboard and the footer.
pub fn draw(f: &mut Frame, v: &View) {
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
                            .map(|s| {
                                format!("  (seen in {} of sub-windows)", numbers::fmt::percent(s))
                            })
                            .unwrap_or_default(),
                    ),
                ])];
                // The fix comes right under the title, before the evidence, so it shows at
                // 80x24 where the evidence wraps.
                let flags: Vec<String> = p
                    .fix
                    .iter()
                    .map(|s| match (&s.flag, &s.value) {
                        (Some(fl), Some(x)) => format!("{fl} {x}"),
                        (Some(fl), None) => format!("{fl}: {}", s.text),
                        _ => s.text.clone(),
                    })
                    .collect();
                if !flags.is_empty() {
                    l.push(Line::from(Span::styled(
                        format!("  fix: {}", flags.join("   ")),
                        bold,
                    )));
                }
                l.extend(
                    p.evidence
                        .iter()
                        .take(2)
                        .map(|e| Line::from(format!("  {e}"))),
                );
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
            .block(Block::bordered().title(title(v))),
        top,
    );
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(charts);
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
        // The axis is scaled to what was measured, so the line is readable far below the
        // ceiling; the ceiling is drawn when it falls on the axis and always named in the title.
        let measured_max = gen.iter().map(|p| p.1).fold(0.0f64, f64::max);
        let ymax = if measured_max > 0.0 {
            measured_max * 1.25
        } else {
            ceiling.unwrap_or(1.0)
        };
        let ceil_line: Vec<(f64, f64)> = ceiling
            .filter(|&c| c <= ymax)
            .map(|c| vec![(0.0, c), (x1, c)])
            .unwrap_or_default();
        let mut ds = vec![Dataset::default()
            .marker(symbols::Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(Color::Cyan))
            .data(&gen)];
        if !ceil_line.is_empty() {
            ds.push(
                Dataset::default()
                    .marker(symbols::Marker::Dot)
                    .graph_type(GraphType::Line)
                    .style(Style::default().fg(Color::DarkGray))
                    .data(&ceil_line),
            );
        }
        let now = r
            .throughput
            .generation_tokens_per_s
            .map_or_else(|| "-".to_string(), num);
        let ceiling_note = match ceiling {
            // ↑: above the axis; ···: the dotted line.
            Some(c) if c > ymax => format!(" · ceiling ~{} (est) ↑", num(c)),
            Some(c) => format!(" · ceiling ~{} (est) ···", num(c)),
            None => String::new(),
        };
        f.render_widget(
            Chart::new(ds)
                .block(Block::bordered().title(format!(" gen {now} tok/s{ceiling_note} ")))
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
                Span::raw(numbers::fmt::percent_opt(seen)),
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
