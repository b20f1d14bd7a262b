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
