//! A small SVG chart module: line charts over time, strip plots of samples, and ratio intervals
//! against a noise band. Hand-written rather than plotters: the marks carry classes (so the
//! page's CSS colours them for light, dark and print) and `data-*` names (so a test can count
//! them against the table beside each plot), the output is a few kilobytes, and it builds in
//! no time. Every string is written through maud, so it is escaped.
//!
//! Each plotted series is a `<g class="series" data-series=NAME data-points=N>`; its marks are
//! the vertices of its `<polyline>`s plus its `<circle>`s (a lone point between gaps is a
//! circle, since a one-vertex line draws nothing).

use maud::{html, Markup};

const W: f64 = 720.0;
const H: f64 = 230.0;
const LEFT: f64 = 62.0;
const RIGHT: f64 = 14.0;
const TOP: f64 = 22.0;
const BOTTOM: f64 = 34.0;

/// A number for a tick, a label or a table cell: three significant digits.
/// A figure as the pages print one, "-" when absent.
pub(crate) fn opt(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite())
        .map(num)
        .unwrap_or_else(|| "-".into())
}

pub fn num(v: f64) -> String {
    physics::provenance::sig(v, 3)
}

/// At most about `n` ticks at 1, 2 or 5 × 10^k between `lo` and `hi`.
fn ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if !lo.is_finite() || !hi.is_finite() || hi <= lo {
        return vec![lo];
    }
    let raw = (hi - lo) / n as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 && out.len() < 50 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    out
}

/// One plotted series: (x, y) with gaps where the value is unknown.
pub struct Series {
    pub name: String,
    /// CSS class for its colour: `c1` … `c4`.
    pub class: &'static str,
    pub points: Vec<(f64, Option<f64>)>,
}

impl Series {
    pub fn marks(&self) -> usize {
        self.points
            .iter()
            .filter(|p| p.1.is_some_and(f64::is_finite))
            .count()
    }
}

/// A horizontal reference line (a ceiling, a limit) with its label.
pub struct RefLine {
    pub label: String,
    pub y: f64,
}

/// A span of x shaded and labelled (a sub-window).
pub struct Band {
    pub x0: f64,
    pub x1: f64,
    pub label: String,
}

pub struct LineChart {
    /// The `id` the chart's table refers to (`data-for`).
    pub id: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    pub refs: Vec<RefLine>,
    pub bands: Vec<Band>,
    /// Fix the top of the y axis (KV usage: 1).
    pub y_max: Option<f64>,
}

struct Frame {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

impl Frame {
    fn px(&self, x: f64) -> f64 {
        LEFT + (x - self.x0) / (self.x1 - self.x0).max(f64::MIN_POSITIVE) * (W - LEFT - RIGHT)
    }
    fn py(&self, y: f64) -> f64 {
        H - BOTTOM - (y - self.y0) / (self.y1 - self.y0).max(f64::MIN_POSITIVE) * (H - TOP - BOTTOM)
    }
}

fn coord(v: f64) -> String {
    format!("{v:.1}")
}

impl LineChart {
    fn frame(&self) -> Frame {
        let xs = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .chain(self.bands.iter().flat_map(|b| [b.x0, b.x1]))
            .filter(|x| x.is_finite());
        let (mut x0, mut x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        let top = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().filter_map(|p| p.1))
            .chain(self.refs.iter().map(|r| r.y))
            .filter(|y| y.is_finite())
            .fold(0.0f64, f64::max);
        let y1 = self
            .y_max
            .unwrap_or(if top > 0.0 { top * 1.08 } else { 1.0 });
        Frame {
            x0,
            x1,
            y0: 0.0,
            y1,
        }
    }

    pub fn render(&self) -> Markup {
        let f = self.frame();
        let yt = ticks(f.y0, f.y1, 4);
        let xt = ticks(f.x0, f.x1, 8);
        let (l, r, t, b) = (LEFT, W - RIGHT, TOP, H - BOTTOM);
        html! {
            svg.chart viewBox={"0 0 " (W) " " (H)} role="img" data-chart=(self.id)
                aria-label=(format!("{} against {}", self.y_label, self.x_label)) {
                @for (i, band) in self.bands.iter().enumerate() {
                    @let (bx0, bx1) = (f.px(band.x0), f.px(band.x1));
                    rect.band.odd[i % 2 == 1] x=(coord(bx0)) y=(coord(t)) width=(coord((bx1 - bx0).max(0.0))) height=(coord(b - t)) {}
                    text.bandlabel x=(coord((bx0 + bx1) / 2.0)) y=(coord(t - 6.0)) text-anchor="middle" { (band.label) }
                }
                @for y in &yt {
                    line.grid x1=(l) x2=(r) y1=(coord(f.py(*y))) y2=(coord(f.py(*y))) {}
                    text.tick x=(coord(l - 6.0)) y=(coord(f.py(*y) + 4.0)) text-anchor="end" { (num(*y)) }
                }
                @for x in &xt {
                    line.grid.xgrid x1=(coord(f.px(*x))) x2=(coord(f.px(*x))) y1=(b) y2=(coord(b + 4.0)) {}
                    text.tick x=(coord(f.px(*x))) y=(coord(b + 16.0)) text-anchor="middle" { (num(*x)) }
                }
                line.axis x1=(l) x2=(r) y1=(b) y2=(b) {}
                line.axis x1=(l) x2=(l) y1=(t) y2=(b) {}
                text.axislabel x=(coord((l + r) / 2.0)) y=(coord(H - 3.0)) text-anchor="middle" { (self.x_label) }
                text.axislabel transform={"translate(12," (coord((t + b) / 2.0)) ") rotate(-90)"} text-anchor="middle" { (self.y_label) }
                @for rl in &self.refs {
                    line.ref x1=(l) x2=(r) y1=(coord(f.py(rl.y))) y2=(coord(f.py(rl.y))) {}
                    text.reflabel x=(coord(r - 4.0)) y=(coord(f.py(rl.y) - 4.0)) text-anchor="end" { (rl.label) }
                }
                @for s in &self.series {
                    g.series.(s.class) data-series=(s.name) data-points=(s.marks()) {
                        @for run in runs(&s.points) {
                            @if run.len() == 1 {
                                circle cx=(coord(f.px(run[0].0))) cy=(coord(f.py(run[0].1))) r="2.5" {}
                            } @else {
                                polyline points=(run.iter().map(|(x, y)| format!("{},{}", coord(f.px(*x)), coord(f.py(*y)))).collect::<Vec<_>>().join(" ")) {}
                            }
                        }
                    }
                }
            }
            (legend(self.series.iter().map(|s| (s.name.as_str(), s.class)), self.refs.iter().map(|r| r.label.as_str())))
        }
    }
}

/// The contiguous runs of known values.
fn runs(points: &[(f64, Option<f64>)]) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut cur = Vec::new();
    for &(x, y) in points {
        match y.filter(|v| v.is_finite()) {
            Some(y) if x.is_finite() => cur.push((x, y)),
            _ => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn legend<'a>(
    series: impl Iterator<Item = (&'a str, &'static str)>,
    refs: impl Iterator<Item = &'a str>,
) -> Markup {
    html! {
        p.legend {
            @for (name, class) in series {
                span.key { span.swatch.(class) {} (name) }
            }
            @for r in refs {
                span.key { span.swatch.refswatch {} (r) }
            }
        }
    }
}

/// A fitted line `y = intercept + slope·x` with the interval on its slope, drawn as the fan of
/// lines through the fit's centre `(pivot_x, ŷ(pivot_x))` with the interval's two slopes (least
/// squares lines all pass through the centroid; the interval is on the slope).
pub struct Fit {
    pub label: String,
    pub intercept: f64,
    pub slope: f64,
    pub low: f64,
    pub high: f64,
    pub pivot_x: f64,
}

impl Fit {
    fn at(&self, x: f64) -> f64 {
        self.intercept + self.slope * x
    }
    fn edge(&self, slope: f64, x: f64) -> f64 {
        self.at(self.pivot_x) + slope * (x - self.pivot_x)
    }
}

/// Points without lines between them (each a circle), and optionally a fit with its interval.
pub struct Scatter {
    pub id: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    pub fit: Option<Fit>,
}

impl Scatter {
    pub fn render(&self) -> Markup {
        let pts: Vec<(f64, f64)> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter_map(|&(x, y)| Some((x, y?)))
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .collect();
        let (mut x0, mut x1) = pts
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(p.0), b.max(p.0))
            });
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        }
        if x1 <= x0 {
            (x0, x1) = (x0 - 1.0, x1 + 1.0);
        }
        // A little room either side, never below zero for a quantity that cannot be.
        let pad = (x1 - x0) * 0.04;
        let x0 = if x0 >= 0.0 {
            (x0 - pad).max(0.0)
        } else {
            x0 - pad
        };
        let x1 = x1 + pad;
        let fit = self.fit.as_ref().filter(|f| {
            [f.intercept, f.slope, f.low, f.high, f.pivot_x]
                .iter()
                .all(|v| v.is_finite())
        });
        let top = pts
            .iter()
            .map(|p| p.1)
            .chain(fit.iter().flat_map(|f| [f.at(x0), f.at(x1)]))
            .filter(|y| y.is_finite())
            .fold(0.0f64, f64::max);
        let f = Frame {
            x0,
            x1,
            y0: 0.0,
            y1: if top > 0.0 { top * 1.1 } else { 1.0 },
        };
        let (l, r, t, b) = (LEFT, W - RIGHT, TOP, H - BOTTOM);
        let py = |y: f64| f.py(y).clamp(t, b);
        html! {
            svg.chart.scatter viewBox={"0 0 " (W) " " (H)} role="img" data-chart=(self.id)
                aria-label=(format!("{} against {}", self.y_label, self.x_label)) {
                @for y in ticks(f.y0, f.y1, 4) {
                    line.grid x1=(l) x2=(r) y1=(coord(f.py(y))) y2=(coord(f.py(y))) {}
                    text.tick x=(coord(l - 6.0)) y=(coord(f.py(y) + 4.0)) text-anchor="end" { (num(y)) }
                }
                @for x in ticks(f.x0, f.x1, 8) {
                    line.grid.xgrid x1=(coord(f.px(x))) x2=(coord(f.px(x))) y1=(b) y2=(coord(b + 4.0)) {}
                    text.tick x=(coord(f.px(x))) y=(coord(b + 16.0)) text-anchor="middle" { (num(x)) }
                }
                line.axis x1=(l) x2=(r) y1=(b) y2=(b) {}
                line.axis x1=(l) x2=(l) y1=(t) y2=(b) {}
                text.axislabel x=(coord((l + r) / 2.0)) y=(coord(H - 3.0)) text-anchor="middle" { (self.x_label) }
                text.axislabel transform={"translate(12," (coord((t + b) / 2.0)) ") rotate(-90)"} text-anchor="middle" { (self.y_label) }
                @if let Some(fit) = fit {
                    @let c = (f.px(fit.pivot_x), py(fit.at(fit.pivot_x)));
                    polygon.fitband points=(format!("{},{} {},{} {},{} {},{} {},{} {},{}",
                        coord(f.px(x0)), coord(py(fit.edge(fit.low, x0))), coord(c.0), coord(c.1),
                        coord(f.px(x1)), coord(py(fit.edge(fit.low, x1))), coord(f.px(x1)), coord(py(fit.edge(fit.high, x1))),
                        coord(c.0), coord(c.1), coord(f.px(x0)), coord(py(fit.edge(fit.high, x0))))) {}
                    line.fit x1=(coord(f.px(x0))) x2=(coord(f.px(x1))) y1=(coord(py(fit.at(x0)))) y2=(coord(py(fit.at(x1)))) {}
                }
                @for s in &self.series {
                    g.series.(s.class) data-series=(s.name) data-points=(s.marks()) {
                        @for (x, y) in s.points.iter().filter_map(|&(x, y)| Some((x, y?))).filter(|(x, y)| x.is_finite() && y.is_finite()) {
                            circle cx=(coord(f.px(x))) cy=(coord(f.py(y))) r="3.5" {}
                        }
                    }
                }
            }
            p.legend {
                @for s in &self.series { span.key { span.swatch.(s.class) {} (s.name) } }
                @if let Some(fit) = fit { span.key { span.swatch.fitswatch {} (fit.label) } }
            }
        }
    }
}

/// One row of a strip plot: a metric's samples on their own axis, the median marked.
pub struct Strip {
    pub name: String,
    pub unit: String,
    pub samples: Vec<f64>,
    /// Indices drawn as outliers.
    pub outliers: Vec<usize>,
    pub median: Option<f64>,
}

/// Samples as dots on a horizontal axis, one chart per metric (units differ).
pub fn strip(id: &str, s: &Strip, class: &'static str) -> Markup {
    let h = 70.0;
    let vals: Vec<f64> = s
        .samples
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if !lo.is_finite() {
        (0.0, 1.0)
    } else if hi - lo < lo.abs() * 1e-9 + 1e-12 {
        (lo - lo.abs() * 0.05 - 1e-9, hi + hi.abs() * 0.05 + 1e-9)
    } else {
        let pad = (hi - lo) * 0.08;
        (lo - pad, hi + pad)
    };
    let f = Frame {
        x0: lo,
        x1: hi,
        y0: 0.0,
        y1: 1.0,
    };
    let y = 28.0;
    html! {
        svg.chart.strip viewBox={"0 0 " (W) " " (h)} role="img" data-chart=(id)
            aria-label=(format!("samples of {}", s.name)) {
            line.axis x1=(LEFT) x2=(W - RIGHT) y1="44" y2="44" {}
            @for x in ticks(lo, hi, 6) {
                text.tick x=(coord(f.px(x))) y="60" text-anchor="middle" { (num(x)) }
            }
            text.axislabel x=(coord(LEFT - 6.0)) y="32" text-anchor="end" { (s.unit) }
            @if let Some(m) = s.median {
                line.median x1=(coord(f.px(m))) x2=(coord(f.px(m))) y1="10" y2="44" {}
            }
            g.series.(class) data-series=(s.name) data-points=(s.samples.iter().filter(|v| v.is_finite()).count()) {
                @for (i, v) in s.samples.iter().enumerate().filter(|(_, v)| v.is_finite()) {
                    circle.outlier[s.outliers.contains(&i)] cx=(coord(f.px(*v))) cy=(coord(y + ((i % 5) as f64 - 2.0) * 3.0)) r="4" {}
                }
            }
        }
    }
}

/// One ratio with its interval, against the noise band [1 − floor, 1 + floor].
pub struct Interval {
    pub name: String,
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
    /// CSS class of the verdict: `better`, `worse`, `same`.
    pub class: &'static str,
}

/// Ratios with their intervals, one row each, on one axis with the noise band shaded.
pub fn intervals(id: &str, rows: &[Interval], floor: Option<f64>) -> Markup {
    let row_h = 26.0;
    let h = TOP + rows.len() as f64 * row_h + BOTTOM;
    let mut lo = rows
        .iter()
        .flat_map(|r| [r.low, r.ratio])
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::min);
    let mut hi = rows
        .iter()
        .flat_map(|r| [r.high, r.ratio])
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::max);
    if let Some(t) = floor {
        lo = lo.min(1.0 - t);
        hi = hi.max(1.0 + t);
    }
    let pad = (hi - lo).max(0.02) * 0.1;
    let f = Frame {
        x0: lo - pad,
        x1: hi + pad,
        y0: 0.0,
        y1: 1.0,
    };
    let left = 200.0;
    // The row labels take a wider margin than the line charts' tick labels.
    let px = |x: f64| left + (x - f.x0) / (f.x1 - f.x0) * (W - left - RIGHT);
    let bottom = h - BOTTOM;
    html! {
        svg.chart.intervals viewBox={"0 0 " (W) " " (h)} role="img" data-chart=(id)
            aria-label="ratio with its interval against the noise floor" {
            @if let Some(t) = floor {
                rect.noise x=(coord(px(1.0 - t))) y=(TOP) width=(coord(px(1.0 + t) - px(1.0 - t))) height=(coord(bottom - TOP)) {}
                text.reflabel x=(coord(px(1.0 + t) + 3.0)) y=(coord(TOP - 6.0)) { "noise floor ±" (numbers::fmt::percent(t)) }
            }
            line.ref x1=(coord(px(1.0))) x2=(coord(px(1.0))) y1=(TOP) y2=(coord(bottom)) {}
            line.axis x1=(left) x2=(W - RIGHT) y1=(coord(bottom)) y2=(coord(bottom)) {}
            @for x in ticks(f.x0, f.x1, 6) {
                text.tick x=(coord(px(x))) y=(coord(bottom + 16.0)) text-anchor="middle" { (num(x)) }
            }
            text.axislabel x=(coord((left + W) / 2.0)) y=(coord(h - 3.0)) text-anchor="middle" { "ratio latest ÷ baseline" }
            g.series data-series="ratio" data-points=(rows.len()) {
                @for (i, r) in rows.iter().enumerate() {
                    @let y = TOP + (i as f64 + 0.5) * row_h;
                    text.tick x=(coord(left - 8.0)) y=(coord(y + 4.0)) text-anchor="end" { (r.name) }
                    g.(r.class) {
                        line.whisker x1=(coord(px(r.low))) x2=(coord(px(r.high))) y1=(coord(y)) y2=(coord(y)) {}
                        circle cx=(coord(px(r.ratio))) cy=(coord(y)) r="5" {}
                    }
                }
            }
        }
    }
}

/// One horizontal bar: a label (shown shortened, in full on hover) and its value.
pub struct Bar {
    pub label: String,
    pub value: f64,
}

/// A label shortened to `max` characters for the axis (the table keeps it whole).
fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let head: String = s.chars().take(max.saturating_sub(1)).collect();
        format!("{head}…")
    }
}

/// Horizontal bars from zero, one row each, for rankings (device time per kernel). Each bar is
/// a `<rect class="bar">` inside the series `name`.
pub fn bars(id: &str, name: &str, unit: &str, rows: &[Bar], class: &'static str) -> Markup {
    bars_against(id, name, unit, rows, class, &[])
}

/// Bars with vertical reference lines across them (a fleet median, a threshold).
pub fn bars_against(
    id: &str,
    name: &str,
    unit: &str,
    rows: &[Bar],
    class: &'static str,
    refs: &[RefLine],
) -> Markup {
    let row_h = 20.0;
    let h = TOP + rows.len().max(1) as f64 * row_h + BOTTOM;
    let hi = rows
        .iter()
        .map(|r| r.value)
        .chain(refs.iter().map(|r| r.y))
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let hi = if hi > 0.0 { hi * 1.05 } else { 1.0 };
    let left = 290.0;
    let px = |x: f64| left + x / hi * (W - left - RIGHT);
    let bottom = h - BOTTOM;
    html! {
        svg.chart.bars viewBox={"0 0 " (W) " " (h)} role="img" data-chart=(id)
            aria-label=(format!("{name} in {unit}")) {
            @for x in ticks(0.0, hi, 6) {
                line.grid x1=(coord(px(x))) x2=(coord(px(x))) y1=(TOP) y2=(coord(bottom)) {}
                text.tick x=(coord(px(x))) y=(coord(bottom + 16.0)) text-anchor="middle" { (num(x)) }
            }
            line.axis x1=(left) x2=(left) y1=(TOP) y2=(coord(bottom)) {}
            line.axis x1=(left) x2=(W - RIGHT) y1=(coord(bottom)) y2=(coord(bottom)) {}
            text.axislabel x=(coord((left + W) / 2.0)) y=(coord(h - 3.0)) text-anchor="middle" { (unit) }
            g.series.(class) data-series=(name) data-points=(rows.iter().filter(|r| r.value.is_finite()).count()) {
                @for (i, r) in rows.iter().enumerate().filter(|(_, r)| r.value.is_finite()) {
                    @let y = TOP + i as f64 * row_h;
                    text.tick x=(coord(left - 6.0)) y=(coord(y + row_h / 2.0 + 4.0)) text-anchor="end" {
                        title { (r.label) } (shorten(&r.label, 38))
                    }
                    rect.bar x=(left) y=(coord(y + 3.0)) width=(coord((px(r.value.max(0.0)) - left).max(0.5))) height=(coord(row_h - 6.0)) {}
                }
            }
            @for (k, rl) in refs.iter().enumerate().filter(|(_, r)| r.y.is_finite()) {
                line.ref x1=(coord(px(rl.y))) x2=(coord(px(rl.y))) y1=(coord(TOP - 4.0)) y2=(coord(bottom)) {}
                // Alternate sides so two labels near each other do not overprint; a line in the
                // right half keeps its label left of it, inside the chart.
                @let right_half = px(rl.y) > (left + W) / 2.0;
                @let (dx, anchor) = if k % 2 == 0 && !right_half { (3.0, "start") } else { (-3.0, "end") };
                text.reflabel x=(coord(px(rl.y) + dx)) y=(coord(TOP - 8.0)) text-anchor=(anchor) { (rl.label) }
            }
        }
        @if !refs.is_empty() { (legend(std::iter::empty(), refs.iter().map(|r| r.label.as_str()))) }
    }
}

/// Correlations (Pearson r) against lag: r runs −1 … 1, with the band |r| < `threshold` (what
/// does not count) shaded and zero drawn across. Each series' marks are as in [`LineChart`].
pub struct Correlogram {
    pub id: String,
    pub x_label: String,
    pub series: Vec<Series>,
    pub threshold: f64,
}

impl Correlogram {
    pub fn render(&self) -> Markup {
        let xs = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .filter(|x| x.is_finite());
        let (mut x0, mut x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
        if !x0.is_finite() {
            (x0, x1) = (0.0, 1.0);
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        let f = Frame {
            x0,
            x1,
            y0: -1.0,
            y1: 1.0,
        };
        let (l, r, t, b) = (LEFT, W - RIGHT, TOP, H - BOTTOM);
        let th = self.threshold.clamp(0.0, 1.0);
        let band = format!("|r| < {} does not count", num(th));
        html! {
            svg.chart viewBox={"0 0 " (W) " " (H)} role="img" data-chart=(self.id)
                aria-label=(format!("r against {}", self.x_label)) {
                rect.noise x=(coord(l)) y=(coord(f.py(th))) width=(coord(r - l)) height=(coord(f.py(-th) - f.py(th))) {}
                text.bandlabel x=(coord(r - 4.0)) y=(coord(f.py(th) - 4.0)) text-anchor="end" { (band) }
                @for y in [-1.0, -0.5, 0.0, 0.5, 1.0] {
                    line.grid x1=(l) x2=(r) y1=(coord(f.py(y))) y2=(coord(f.py(y))) {}
                    text.tick x=(coord(l - 6.0)) y=(coord(f.py(y) + 4.0)) text-anchor="end" { (num(y)) }
                }
                @for x in ticks(f.x0, f.x1, 8) {
                    line.grid.xgrid x1=(coord(f.px(x))) x2=(coord(f.px(x))) y1=(b) y2=(coord(b + 4.0)) {}
                    text.tick x=(coord(f.px(x))) y=(coord(b + 16.0)) text-anchor="middle" { (num(x)) }
                }
                line.axis x1=(l) x2=(r) y1=(coord(f.py(0.0))) y2=(coord(f.py(0.0))) {}
                line.axis x1=(l) x2=(l) y1=(t) y2=(b) {}
                text.axislabel x=(coord((l + r) / 2.0)) y=(coord(H - 3.0)) text-anchor="middle" { (self.x_label) }
                text.axislabel transform={"translate(12," (coord((t + b) / 2.0)) ") rotate(-90)"} text-anchor="middle" { "r" }
                @for s in &self.series {
                    g.series.(s.class) data-series=(s.name) data-points=(s.marks()) {
                        @for run in runs(&s.points) {
                            @if run.len() == 1 {
                                circle cx=(coord(f.px(run[0].0))) cy=(coord(f.py(run[0].1.clamp(-1.0, 1.0)))) r="2.5" {}
                            } @else {
                                polyline points=(run.iter().map(|(x, y)| format!("{},{}", coord(f.px(*x)), coord(f.py(y.clamp(-1.0, 1.0))))).collect::<Vec<_>>().join(" ")) {}
                            }
                        }
                    }
                }
            }
            (legend(self.series.iter().map(|s| (s.name.as_str(), s.class)), std::iter::empty()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 10.0, 5), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        let t = ticks(0.0, 1234.0, 4);
        assert_eq!(t, vec![0.0, 500.0, 1000.0]);
        assert_eq!(ticks(1.0, 1.0, 4), vec![1.0]);
        assert_eq!(ticks(f64::NAN, 1.0, 4).len(), 1);
    }

    #[test]
    fn gaps_split_lines_and_lone_points_are_circles() {
        let s = Series {
            name: "g".into(),
            class: "c1",
            points: vec![
                (0.0, Some(1.0)),
                (1.0, Some(2.0)),
                (2.0, None),
                (3.0, Some(3.0)),
                (4.0, Some(f64::NAN)),
            ],
        };
        assert_eq!(s.marks(), 3);
        let r = runs(&s.points);
        assert_eq!(r.len(), 2);
        let c = LineChart {
            id: "x".into(),
            x_label: "s".into(),
            y_label: "tok/s".into(),
            series: vec![s],
            refs: vec![],
            bands: vec![],
            y_max: None,
        }
        .render()
        .into_string();
        assert_eq!(c.matches("<polyline").count(), 1);
        assert_eq!(c.matches("<circle").count(), 1);
        assert!(c.contains("data-points=\"3\""));
    }

    #[test]
    fn bars_are_one_rect_each_and_labels_are_escaped() {
        let rows = vec![
            Bar {
                label: "<script>x</script>".into(),
                value: 3.0,
            },
            Bar {
                label: "b".repeat(80),
                value: 1.0,
            },
            Bar {
                label: "nan".into(),
                value: f64::NAN,
            },
        ];
        let c = bars("k", "device time", "µs", &rows, "c1").into_string();
        assert_eq!(c.matches("<rect class=\"bar\"").count(), 2);
        assert!(c.contains("data-points=\"2\""));
        assert!(!c.contains("<script>") && c.contains("&lt;script&gt;"));
        assert!(c.contains('…'));
    }
}
