//! Prometheus text exposition parser: format 0.0.4 and the OpenMetrics-ish variants engines emit.
//!
//! What it accepts, because real engines print it (the captures under fixtures/ and each
//! engine's metrics code):
//! - `# HELP` / `# TYPE` (any order, either may be missing; samples without a TYPE are untyped);
//! - counters declared with or without `_total` (`# TYPE x counter` + `x_total 1`, or
//!   `# TYPE x_total counter` + `x_total 1`);
//! - `_created` samples and prometheus_client's separate `<name>_created` gauge families: ignored
//!   (they are timestamps, not data) and counted in [`Exposition::created_ignored`];
//! - histograms (`_bucket{le}`, `_sum`, `_count`) and summaries (`{quantile}`, `_sum`, `_count`);
//! - label values with `\\`, `\"`, `\n` escapes, a trailing comma, spaces around tokens;
//! - values `NaN`, `+Inf`, `-Inf`, exponent forms (`1.23457e+06`, llama.cpp's `std::stringstream`);
//! - a timestamp after the value (0.0.4 integer ms or OpenMetrics float s), an OpenMetrics exemplar
//!   (`# {..} v`) after that, `# EOF`, CRLF line ends, UTF-8 quoted metric names (`{"a.b",x="1"}`).
//!
//! A truncated body is salvaged: the format requires the last line to end with `\n`, so a body
//! that does not ended mid-line; a body whose last family is a histogram or summary without its
//! closing `+Inf` bucket / `_count` ended mid-family. In both cases the last family is dropped,
//! every family before it is kept, and [`Exposition::truncated`] names the family and the line.
//! A malformed line anywhere else is an error naming the line. No input panics.

use serde::Serialize;
use std::collections::HashMap;
use thiserror::Error;

/// The declared type of a metric family (`# TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MetricType {
    Counter,
    Gauge,
    Histogram,
    Summary,
    /// No `# TYPE`, or `untyped` / `unknown`.
    Untyped,
    /// OpenMetrics `info`, `stateset`, `gaugehistogram`: kept, read as gauges.
    Other,
}

impl MetricType {
    fn from_word(w: &str) -> MetricType {
        match w {
            "counter" => MetricType::Counter,
            "gauge" => MetricType::Gauge,
            "histogram" => MetricType::Histogram,
            "summary" => MetricType::Summary,
            "untyped" | "unknown" => MetricType::Untyped,
            _ => MetricType::Other,
        }
    }
}

/// One sample line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromSample {
    /// The name as printed (`vllm:prompt_tokens_total`, `x_bucket` ...).
    pub name: String,
    /// Labels in printed order, values unescaped.
    pub labels: Vec<(String, String)>,
    pub value: f64,
    /// The optional timestamp as printed (ms in 0.0.4, seconds in OpenMetrics); not interpreted.
    pub timestamp: Option<f64>,
    /// 1-based line number in the body.
    pub line: usize,
}

impl PromSample {
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A metric family: a `# TYPE` (or a run of same-named untyped samples) and its samples.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Family {
    /// The name as declared by `# TYPE` (or the sample name for an untyped family).
    pub name: String,
    pub kind: MetricType,
    pub help: Option<String>,
    pub samples: Vec<PromSample>,
    /// 1-based line where the family starts.
    pub line: usize,
}

impl Family {
    /// The name without a trailing `_total` (counters are matched by `name(_total)?`).
    /// Only counters are stripped: a histogram may be named `..._total` (vLLM's
    /// `iteration_tokens_total`) and then its series are `..._total_bucket` etc.
    pub fn base_name(&self) -> &str {
        match self.kind {
            MetricType::Counter => self.name.strip_suffix("_total").unwrap_or(&self.name),
            _ => &self.name,
        }
    }
}

/// What was cut from a truncated body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Truncation {
    /// The family that was dropped (None when the cut fell in a line no family could be read from).
    pub family: Option<String>,
    /// 1-based number of the last line of the body (where the text stops).
    pub line: usize,
    /// Samples of the cut family that were read and discarded with it.
    pub dropped_samples: usize,
    pub reason: String,
}

impl std::fmt::Display for Truncation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.family {
            Some(fam) => write!(
                f,
                "body truncated at line {}: family {} dropped ({} samples read): {}",
                self.line, fam, self.dropped_samples, self.reason
            ),
            None => write!(f, "body truncated at line {}: {}", self.line, self.reason),
        }
    }
}

/// A parsed body: every whole family, in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Exposition {
    pub families: Vec<Family>,
    /// Set when the body was cut short; the named family is not in `families`.
    pub truncated: Option<Truncation>,
    /// `_created` samples skipped (timestamps, not data).
    pub created_ignored: usize,
}

impl Exposition {
    /// Every sample of every whole family, in body order within each family.
    pub fn samples(&self) -> impl Iterator<Item = &PromSample> {
        self.families.iter().flat_map(|f| f.samples.iter())
    }

    /// Samples printed exactly as `name`.
    pub fn series<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a PromSample> + 'a {
        self.samples().filter(move |s| s.name == name)
    }

    /// The family declared as `name`, or as `name_total`, or whose counter base name is `name`.
    pub fn family(&self, name: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.name == name).or_else(|| {
            self.families
                .iter()
                .find(|f| f.base_name() == name || f.name.strip_suffix("_total") == Some(name))
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PromError {
    #[error("line {line}: {msg}: {text:?}")]
    Syntax {
        line: usize,
        msg: String,
        /// The offending line, cut to 120 characters.
        text: String,
    },
    #[error("not a Prometheus exposition: {what} (first line: {first_line:?})")]
    NotPrometheus { what: String, first_line: String },
    #[error("empty body: no metrics")]
    Empty,
}

fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(120).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// Classifies a body that is clearly not a text exposition (HTML page, JSON error).
fn not_prometheus(text: &str) -> Option<PromError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    let first_line = clip(trimmed.lines().next().unwrap_or(""));
    let lower: String = trimmed
        .chars()
        .take(64)
        .collect::<String>()
        .to_ascii_lowercase();
    let what = if lower.starts_with('<') {
        "an HTML/XML page"
    } else if (trimmed.starts_with('{') || trimmed.starts_with('['))
        // `{"quoted.name",l="v"} 1` is a valid newer exposition line; JSON is not.
        && (serde_json::from_str::<serde_json::Value>(trimmed).is_ok()
            || first_line.starts_with("{\"") && first_line.contains("\":"))
    {
        "a JSON document"
    } else {
        return None;
    };
    Some(PromError::NotPrometheus {
        what: what.to_string(),
        first_line,
    })
}

/// Parses a text exposition. See the module docs for what is accepted and how truncation is handled.
pub fn parse(text: &str) -> Result<Exposition, PromError> {
    if let Some(e) = not_prometheus(text) {
        return Err(e);
    }
    let mut p = Parser::default();
    // The format requires every line, the last included, to end with '\n'.
    let ends_mid_line = !text.is_empty() && !text.ends_with('\n');
    let mut lines = text.split('\n').enumerate().peekable();
    let mut last_line_no = 0usize;
    let mut cut: Option<(usize, Option<String>, String)> = None;
    while let Some((i, raw)) = lines.next() {
        let line_no = i + 1;
        let is_last = lines.peek().is_none();
        if is_last && raw.is_empty() {
            break; // the empty remainder after the final '\n'
        }
        last_line_no = line_no;
        if is_last && ends_mid_line {
            let fam = p.cut_family(raw.strip_suffix('\r').unwrap_or(raw));
            cut = Some((
                line_no,
                fam,
                format!(
                    "the last line has no line end (cut mid-line): {:?}",
                    clip(raw)
                ),
            ));
            break;
        }
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim() == "# EOF" {
            break;
        }
        p.line(line, line_no)?;
    }
    let mut families = p.finish();
    let mut truncated = None;
    if let Some((line, fam, reason)) = &cut {
        if fam.is_some() {
            let (family, dropped) = drop_family(&mut families, fam.as_deref());
            truncated = Some(Truncation {
                family,
                line: *line,
                dropped_samples: dropped,
                reason: reason.clone(),
            });
        }
    }
    if truncated.is_none() {
        // No family was cut mid-line; the last one may still stop short of its closing lines.
        if let Some(reason) = families.last().and_then(unfinished) {
            let name = families.last().map(|f| f.name.clone());
            let (family, dropped) = drop_family(&mut families, name.as_deref());
            truncated = Some(Truncation {
                family,
                line: last_line_no,
                dropped_samples: dropped,
                reason,
            });
        } else if let Some((line, _, reason)) = cut {
            // Only the first line of a new family was cut: every family kept is whole.
            truncated = Some(Truncation {
                family: None,
                line,
                dropped_samples: 0,
                reason,
            });
        }
    }
    let created_ignored = drop_created(&mut families);
    if families.is_empty() && truncated.is_none() {
        return Err(PromError::Empty);
    }
    Ok(Exposition {
        families,
        truncated,
        created_ignored,
    })
}

/// Removes the cut family; returns its name and how many of its samples were read.
fn drop_family(families: &mut Vec<Family>, name: Option<&str>) -> (Option<String>, usize) {
    let Some(n) = name else { return (None, 0) };
    match families.iter().position(|f| f.name == n) {
        Some(i) => {
            let f = families.remove(i);
            (Some(f.name), f.samples.len())
        }
        None => (Some(n.to_string()), 0),
    }
}

/// Why a histogram or summary family is not whole, or None when it is.
fn unfinished(f: &Family) -> Option<String> {
    match f.kind {
        MetricType::Histogram => {
            // (labels without `le`, has +Inf bucket, has _count) per series.
            #[allow(clippy::type_complexity)]
            let mut series: Vec<(Vec<(String, String)>, bool, bool)> = Vec::new();
            for s in &f.samples {
                let key = labels_without(&s.labels, "le");
                let idx = match series.iter().position(|(k, _, _)| *k == key) {
                    Some(i) => i,
                    None => {
                        series.push((key, false, false));
                        series.len() - 1
                    }
                };
                if s.name.ends_with("_bucket") && s.label("le").map(is_plus_inf) == Some(true) {
                    series[idx].1 = true;
                }
                if s.name.ends_with("_count") {
                    series[idx].2 = true;
                }
            }
            if series.is_empty() {
                return Some("histogram declared but no samples followed".into());
            }
            let bad = series.iter().filter(|(_, inf, cnt)| !inf || !cnt).count();
            (bad > 0).then(|| {
                format!(
                    "histogram ends before its +Inf bucket and _count ({} of {} series incomplete)",
                    bad,
                    series.len()
                )
            })
        }
        MetricType::Summary => {
            let has_count = f.samples.iter().any(|s| s.name.ends_with("_count"));
            (!has_count).then(|| "summary ends before its _count".to_string())
        }
        _ => None,
    }
}

pub(crate) fn is_plus_inf(le: &str) -> bool {
    matches!(le.trim(), "+Inf" | "Inf" | "+inf" | "inf")
}

pub(crate) fn labels_without(labels: &[(String, String)], skip: &str) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = labels.iter().filter(|(k, _)| k != skip).cloned().collect();
    v.sort();
    v
}

/// Drops `_created` samples of counters/histograms/summaries and prometheus_client's separate
/// `<name>_created` gauge families. Returns how many samples were dropped.
fn drop_created(families: &mut Vec<Family>) -> usize {
    let bases: std::collections::HashSet<String> = families
        .iter()
        .filter(|f| {
            matches!(
                f.kind,
                MetricType::Counter | MetricType::Histogram | MetricType::Summary
            )
        })
        .map(|f| f.base_name().to_string())
        .collect();
    let mut dropped = 0;
    families.retain(|f| {
        let is_created_family = f
            .name
            .strip_suffix("_created")
            .map(|b| bases.contains(b))
            .unwrap_or(false);
        if is_created_family {
            dropped += f.samples.len();
        }
        !is_created_family
    });
    for f in families.iter_mut() {
        let before = f.samples.len();
        let base = f.base_name().to_string();
        let created = format!("{base}_created");
        f.samples.retain(|s| s.name != created);
        dropped += before - f.samples.len();
    }
    dropped
}

#[derive(Default)]
struct Parser {
    families: Vec<Family>,
    /// Family index by declared name.
    by_name: HashMap<String, usize>,
    /// The family that the next samples most likely belong to (the last `# TYPE`/`# HELP`).
    current: Option<usize>,
}

impl Parser {
    fn family_mut(&mut self, name: &str, line: usize) -> usize {
        if let Some(&i) = self.by_name.get(name) {
            return i;
        }
        self.families.push(Family {
            name: name.to_string(),
            kind: MetricType::Untyped,
            help: None,
            samples: Vec::new(),
            line,
        });
        let i = self.families.len() - 1;
        self.by_name.insert(name.to_string(), i);
        i
    }

    fn line(&mut self, line: &str, no: usize) -> Result<(), PromError> {
        let t = line.trim_start();
        if t.is_empty() {
            return Ok(());
        }
        if let Some(rest) = t.strip_prefix('#') {
            return self.comment(rest, line, no);
        }
        let s = parse_sample(line, no)?;
        let idx = self.family_for_sample(&s.name, no);
        self.families[idx].samples.push(s);
        self.current = Some(idx);
        Ok(())
    }

    fn comment(&mut self, rest: &str, line: &str, no: usize) -> Result<(), PromError> {
        let rest = rest.trim_start();
        let (kw, tail) = split_word(rest);
        match kw {
            "HELP" | "TYPE" => {
                let (name, tail) = split_word(tail.trim_start());
                let quoted = name.len() > 2 && name.starts_with('"') && name.ends_with('"');
                let name = unquote_name(name);
                if !quoted && !valid_metric_name(&name) {
                    return Err(syntax(
                        no,
                        &format!("# {kw} without a valid metric name"),
                        line,
                    ));
                }
                let idx = self.family_mut(&name, no);
                if kw == "HELP" {
                    self.families[idx].help = Some(unescape_help(tail.trim_start()));
                } else {
                    let word = tail.trim();
                    if word.is_empty() {
                        return Err(syntax(no, "# TYPE without a type", line));
                    }
                    self.families[idx].kind = MetricType::from_word(word);
                }
                self.current = Some(idx);
                Ok(())
            }
            // Any other comment (including `# UNIT`) is free text.
            _ => Ok(()),
        }
    }

    /// Which family a sample called `name` belongs to: the current family when the name is one
    /// of its series names, else a family declared with that name, else a new untyped family.
    fn family_for_sample(&mut self, name: &str, no: usize) -> usize {
        if let Some(i) = self.current {
            if belongs(&self.families[i], name) {
                return i;
            }
        }
        // A declared family whose samples appear away from its TYPE line.
        for cand in candidate_family_names(name) {
            if let Some(&i) = self.by_name.get(cand) {
                if belongs(&self.families[i], name) {
                    return i;
                }
            }
        }
        self.family_mut(name, no)
    }

    /// The family that a cut-off last line leaves incomplete: the family the line belongs to, or
    /// None when the line only began a new family (then every family before it is whole).
    fn cut_family(&self, line: &str) -> Option<String> {
        let cur = self.current.map(|i| &self.families[i]);
        let t = line.trim_start();
        if t.is_empty() {
            return None;
        }
        if let Some(rest) = t.strip_prefix('#') {
            let (kw, tail) = split_word(rest.trim_start());
            if kw == "HELP" || kw == "TYPE" {
                let (n, after) = split_word(tail.trim_start());
                // The name is whole only when something follows it on the line.
                if !after.is_empty() {
                    return Some(unquote_name(n));
                }
            }
            // A header cut before its name: it belongs to the current family only if that
            // family has no samples yet (its HELP was read, its TYPE was cut).
            return cur.filter(|f| f.samples.is_empty()).map(|f| f.name.clone());
        }
        let end = t.find(['{', ' ', '\t']);
        match end {
            Some(e) => {
                let name = &t[..e];
                if name.is_empty() {
                    // `{"quoted.name"...`: cannot tell; assume it continues the current family.
                    return cur.map(|f| f.name.clone());
                }
                if let Some(f) = cur.filter(|f| belongs(f, name)) {
                    return Some(f.name.clone());
                }
                for cand in candidate_family_names(name) {
                    if let Some(&i) = self.by_name.get(cand) {
                        if belongs(&self.families[i], name) {
                            return Some(cand.to_string());
                        }
                    }
                }
                Some(name.to_string())
            }
            None => {
                // The name itself was cut: the current family is cut if the fragment could be
                // the start of one of its series names.
                cur.filter(|f| series_names(f).iter().any(|s| s.starts_with(t)))
                    .map(|f| f.name.clone())
            }
        }
    }

    fn finish(&mut self) -> Vec<Family> {
        // Declared families without samples carry no data (prometheus_client prints HELP/TYPE for
        // a labelled metric that has no children yet).
        std::mem::take(&mut self.families)
            .into_iter()
            .filter(|f| !f.samples.is_empty())
            .collect()
    }
}

/// Family names that a sample name could belong to, most specific first.
fn candidate_family_names(name: &str) -> Vec<&str> {
    let mut v = vec![name];
    for suf in ["_bucket", "_sum", "_count", "_total", "_created"] {
        if let Some(b) = name.strip_suffix(suf) {
            v.push(b);
        }
    }
    v
}

/// The sample names a family's series can have.
fn series_names(f: &Family) -> Vec<String> {
    let fam = f.name.as_str();
    match f.kind {
        MetricType::Counter => vec![fam.to_string(), format!("{}_total", f.base_name())],
        MetricType::Histogram => vec![
            format!("{fam}_bucket"),
            format!("{fam}_sum"),
            format!("{fam}_count"),
        ],
        MetricType::Summary => vec![
            fam.to_string(),
            format!("{fam}_sum"),
            format!("{fam}_count"),
        ],
        _ => vec![fam.to_string()],
    }
}

fn belongs(f: &Family, sample: &str) -> bool {
    let fam = f.name.as_str();
    // The suffix after the family name, without allocating (this runs once per sample line).
    let after = |prefix: &str| sample.strip_prefix(prefix);
    match f.kind {
        MetricType::Counter => {
            let base = f.base_name();
            sample == fam || matches!(after(base), Some("_total" | "_created"))
        }
        MetricType::Histogram => {
            matches!(after(fam), Some("_bucket" | "_sum" | "_count" | "_created"))
        }
        MetricType::Summary => matches!(after(fam), Some("" | "_sum" | "_count" | "_created")),
        // info → `x_info`, stateset/gaugehistogram series.
        MetricType::Other => after(fam)
            .map(|s| s.is_empty() || s.starts_with('_'))
            .unwrap_or(false),
        MetricType::Gauge | MetricType::Untyped => sample == fam,
    }
}

fn split_word(s: &str) -> (&str, &str) {
    match s.find([' ', '\t']) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    }
}

fn unquote_name(n: &str) -> String {
    n.strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .map(str::to_string)
        .unwrap_or_else(|| n.to_string())
}

fn valid_metric_name(n: &str) -> bool {
    let mut chars = n.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' || c == ':' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

fn valid_label_name(n: &str) -> bool {
    let mut chars = n.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn unescape_help(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('n') => out.push('\n'),
                Some('\\') => out.push('\\'),
                Some(o) => {
                    out.push('\\');
                    out.push(o);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn syntax(line: usize, msg: &str, text: &str) -> PromError {
    PromError::Syntax {
        line,
        msg: msg.to_string(),
        text: clip(text),
    }
}

/// Parses a float the way Prometheus does: Go's ParseFloat forms, `±Inf`, `NaN`.
pub fn parse_value(s: &str) -> Option<f64> {
    match s {
        "+Inf" | "Inf" | "+inf" | "inf" => return Some(f64::INFINITY),
        "-Inf" | "-inf" => return Some(f64::NEG_INFINITY),
        "NaN" | "nan" => return Some(f64::NAN),
        _ => {}
    }
    // Rust also accepts "infinity" spelled out and the like; Prometheus values never use those,
    // so only digits, sign, point and exponent are let through.
    if s.is_empty()
        || !s
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'))
    {
        return None;
    }
    s.parse::<f64>().ok()
}

fn parse_sample(line: &str, no: usize) -> Result<PromSample, PromError> {
    let s = line.trim_start();
    let bytes = s.as_bytes();
    let mut pos = 0usize;
    let mut name = String::new();
    // Metric name (unless the OpenMetrics 2 form puts a quoted name inside the braces).
    while pos < bytes.len()
        && (bytes[pos].is_ascii_alphanumeric() || bytes[pos] == b'_' || bytes[pos] == b':')
    {
        pos += 1;
    }
    name.push_str(&s[..pos]);
    let mut labels = Vec::new();
    let after_name = s[pos..].trim_start();
    let rest: &str;
    let mut quoted = false;
    if let Some(inner) = after_name.strip_prefix('{') {
        let (lbls, quoted_name, consumed) =
            parse_labels(inner).map_err(|m| syntax(no, &m, line))?;
        if let Some(q) = quoted_name {
            if !name.is_empty() {
                return Err(syntax(
                    no,
                    "metric name both before and inside the braces",
                    line,
                ));
            }
            name = q;
            quoted = true;
        }
        labels = lbls;
        rest = &inner[consumed..];
    } else {
        if pos == 0 {
            return Err(syntax(
                no,
                "expected a metric name, a comment or a blank line",
                line,
            ));
        }
        if after_name.len() == s[pos..].len() && !after_name.is_empty() {
            // Name ran into a character that is neither a name char, '{', nor a space.
            return Err(syntax(no, "invalid character in metric name", line));
        }
        rest = after_name;
    }
    if name.is_empty() {
        return Err(syntax(no, "sample has no metric name", line));
    }
    if !quoted && !valid_metric_name(&name) {
        return Err(syntax(no, "invalid metric name", line));
    }
    // Value, optional timestamp, optional exemplar (`# {...} v [ts]`).
    let rest = match rest.find(" # ") {
        Some(i) => &rest[..i],
        None => rest,
    };
    let mut fields = rest.split_whitespace();
    let vtext = fields
        .next()
        .ok_or_else(|| syntax(no, "sample has no value", line))?;
    let value = parse_value(vtext)
        .ok_or_else(|| syntax(no, &format!("value {vtext:?} is not a number"), line))?;
    let timestamp = match fields.next() {
        Some(ts) => Some(
            parse_value(ts)
                .filter(|t| t.is_finite())
                .ok_or_else(|| syntax(no, &format!("timestamp {ts:?} is not a number"), line))?,
        ),
        None => None,
    };
    if let Some(extra) = fields.next() {
        return Err(syntax(
            no,
            &format!("unexpected text {extra:?} after the timestamp"),
            line,
        ));
    }
    Ok(PromSample {
        name,
        labels,
        value,
        timestamp,
        line: no,
    })
}

/// Parses the inside of `{...}` (after the `{`). Returns the labels, a quoted metric name when the
/// OpenMetrics 2 form is used, and how many bytes were consumed including the closing `}`.
#[allow(clippy::type_complexity)]
fn parse_labels(s: &str) -> Result<(Vec<(String, String)>, Option<String>, usize), String> {
    let mut labels = Vec::new();
    let mut quoted_name = None;
    let mut rest = s;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix('}') {
            return Ok((labels, quoted_name, s.len() - after.len()));
        }
        if rest.is_empty() {
            return Err("labels not closed with '}'".into());
        }
        // Label name: bare, or quoted (UTF-8 names in newer formats).
        let key;
        if rest.starts_with('"') {
            let (v, after) = read_quoted(rest)?;
            let after_t = after.trim_start();
            if after_t.starts_with(',') || after_t.starts_with('}') {
                // A lone quoted string is the metric name.
                if quoted_name.is_some() || !labels.is_empty() {
                    return Err("quoted metric name must come first in the braces".into());
                }
                quoted_name = Some(v);
                rest = after_t.strip_prefix(',').unwrap_or(after_t);
                continue;
            }
            key = v;
            rest = after_t;
        } else {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let k = &rest[..end];
            if !valid_label_name(k) {
                let shown: String = rest.chars().take(20).collect();
                return Err(format!("invalid label name at {shown:?}"));
            }
            key = k.to_string();
            rest = rest[end..].trim_start();
        }
        rest = rest
            .strip_prefix('=')
            .ok_or_else(|| format!("label {key:?} has no '='"))?
            .trim_start();
        if !rest.starts_with('"') {
            return Err(format!("label {key:?} value is not quoted"));
        }
        let (v, after) = read_quoted(rest)?;
        labels.push((key, v));
        rest = after.trim_start();
        if let Some(r) = rest.strip_prefix(',') {
            rest = r;
        } else if !rest.starts_with('}') {
            return Err("expected ',' or '}' after a label value".into());
        }
    }
}

/// Reads a `"..."` string with `\\`, `\"`, `\n` escapes; returns it and the text after it.
fn read_quoted(s: &str) -> Result<(String, &str), String> {
    let body = s.strip_prefix('"').ok_or("expected '\"'")?;
    // Fast path: no escape before the closing quote (almost every value), one copy.
    if let Some(i) = body.find(['"', '\\']) {
        if body.as_bytes()[i] == b'"' {
            return Ok((body[..i].to_string(), &body[i + 1..]));
        }
    }
    let mut out = String::new();
    let mut it = body.char_indices();
    while let Some((i, c)) = it.next() {
        match c {
            '"' => return Ok((out, &body[i + 1..])),
            '\\' => match it.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, '\\')) => out.push('\\'),
                Some((_, '"')) => out.push('"'),
                Some((_, o)) => {
                    // Unknown escapes are kept verbatim, as Prometheus does.
                    out.push('\\');
                    out.push(o);
                }
                None => return Err("label value ends inside an escape".into()),
            },
            _ => out.push(c),
        }
    }
    Err("label value not closed with '\"'".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Exposition {
        parse(text).unwrap_or_else(|e| panic!("parse failed: {e}\n{text}"))
    }

    fn val(e: &Exposition, name: &str) -> Vec<f64> {
        e.series(name).map(|s| s.value).collect()
    }

    #[test]
    fn counter_total_declared_with_and_without_suffix() {
        // Real V1 capture: TYPE says `_total`.
        let a = one("# HELP vllm:prompt_tokens_total Number of prefill tokens processed.\n# TYPE vllm:prompt_tokens_total counter\nvllm:prompt_tokens_total{model_name=\"m\",engine=\"0\"} 148.0\n");
        // Third-party fixtures: TYPE without `_total`, sample with it.
        let b = one(
            "# TYPE vllm:prompt_tokens counter\nvllm:prompt_tokens_total{model_name=\"m\"} 148.0\n",
        );
        // TGI: no `_total` anywhere.
        let c = one("# TYPE tgi_request_count counter\ntgi_request_count 7\n");
        for (e, fam, sample, v) in [
            (
                &a,
                "vllm:prompt_tokens_total",
                "vllm:prompt_tokens_total",
                148.0,
            ),
            (&b, "vllm:prompt_tokens", "vllm:prompt_tokens_total", 148.0),
            (&c, "tgi_request_count", "tgi_request_count", 7.0),
        ] {
            assert_eq!(e.families.len(), 1, "{fam}");
            assert_eq!(e.families[0].name, fam);
            assert_eq!(e.families[0].kind, MetricType::Counter);
            assert_eq!(val(e, sample), vec![v]);
            assert!(e.family("vllm:prompt_tokens").is_some() || fam.starts_with("tgi"));
        }
        assert_eq!(
            a.families[0].help.as_deref(),
            Some("Number of prefill tokens processed.")
        );
    }

    #[test]
    fn created_samples_and_families_are_ignored() {
        // prometheus_client 0.0.4: the counter family, then a separate `_created` gauge family.
        let text =
            "# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.\n\
# TYPE vllm:num_preemptions_total counter\n\
vllm:num_preemptions_total{engine=\"0\",model_name=\"m\"} 3.0\n\
# HELP vllm:num_preemptions_created Cumulative number of preemption from the engine.\n\
# TYPE vllm:num_preemptions_created gauge\n\
vllm:num_preemptions_created{engine=\"0\",model_name=\"m\"} 1.7382173358407154e+09\n\
# TYPE x histogram\n\
x_bucket{le=\"1\"} 1\nx_bucket{le=\"+Inf\"} 2\nx_count 2\nx_sum 3\nx_created 1.7e9\n\
# TYPE g gauge\ng_created 5\n";
        let e = one(text);
        let names: Vec<&str> = e.families.iter().map(|f| f.name.as_str()).collect();
        // `g_created` is a real gauge: no counter/histogram `g` exists, so it stays.
        assert_eq!(names, vec!["vllm:num_preemptions_total", "x", "g_created"]);
        assert_eq!(e.created_ignored, 2);
        assert_eq!(e.families[1].samples.len(), 4);
    }

    #[test]
    fn histogram_named_total_keeps_its_series() {
        let e = one("# TYPE vllm:iteration_tokens_total histogram\n\
vllm:iteration_tokens_total_bucket{le=\"1.0\",model_name=\"m\"} 994.0\n\
vllm:iteration_tokens_total_bucket{le=\"+Inf\",model_name=\"m\"} 998.0\n\
vllm:iteration_tokens_total_count{model_name=\"m\"} 998.0\n\
vllm:iteration_tokens_total_sum{model_name=\"m\"} 1103.0\n");
        assert!(e.truncated.is_none());
        assert_eq!(e.families.len(), 1);
        assert_eq!(e.families[0].samples.len(), 4);
        assert_eq!(e.families[0].base_name(), "vllm:iteration_tokens_total");
    }

    #[test]
    fn values_in_every_printed_form() {
        let cases: &[(&str, f64)] = &[
            ("1.23457e+06", 1_234_570.0),
            ("1.23457E+06", 1_234_570.0),
            ("1e-3", 0.001),
            ("-2.5", -2.5),
            ("+Inf", f64::INFINITY),
            ("-Inf", f64::NEG_INFINITY),
            ("0.000", 0.0),
            ("42", 42.0),
            (".5", 0.5),
        ];
        for (text, want) in cases {
            let e = one(&format!("llamacpp:x {text}\n"));
            assert_eq!(val(&e, "llamacpp:x"), vec![*want], "{text}");
        }
        let e = one("a NaN\n");
        assert!(e.series("a").next().unwrap().value.is_nan());
        for bad in ["infinity", "0x10", "1_000", "abc", "--1"] {
            assert!(
                matches!(
                    parse(&format!("a {bad}\n")),
                    Err(PromError::Syntax { line: 1, .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn timestamps_and_exemplars() {
        let e = one("a 1 1700000000000\nb{x=\"1\"} 2.5 1700000000.123\nc_total 3 # {trace_id=\"abc\"} 1.0 1700000000.1\n");
        let a = e.series("a").next().unwrap();
        assert_eq!((a.value, a.timestamp), (1.0, Some(1.7e12)));
        let b = e.series("b").next().unwrap();
        assert_eq!((b.value, b.timestamp), (2.5, Some(1700000000.123)));
        let c = e.series("c_total").next().unwrap();
        assert_eq!((c.value, c.timestamp), (3.0, None));
        assert!(matches!(
            parse("a 1 2 3\n"),
            Err(PromError::Syntax { line: 1, .. })
        ));
        assert!(matches!(
            parse("a 1 soon\n"),
            Err(PromError::Syntax { line: 1, .. })
        ));
    }

    #[test]
    fn label_escapes_spacing_and_trailing_comma() {
        let e = one("m{a=\"x\\\"y\",b=\"back\\\\slash\",c=\"two\\nlines\",d=\"\",} 1\n  m { a = \"q\" , b=\"{},=\\\"\" } 2\n");
        let s: Vec<&PromSample> = e.series("m").collect();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].label("a"), Some("x\"y"));
        assert_eq!(s[0].label("b"), Some("back\\slash"));
        assert_eq!(s[0].label("c"), Some("two\nlines"));
        assert_eq!(s[0].label("d"), Some(""));
        assert_eq!(s[1].label("a"), Some("q"));
        assert_eq!(s[1].label("b"), Some("{},=\""));
        // The lora_requests_info shape: empty values, no model_name, a timestamp-like value.
        let e = one("vllm:lora_requests_info{max_lora=\"0\",running_lora_adapters=\"\",waiting_lora_adapters=\"\"} 1.7382173358407154e+09\n");
        assert_eq!(
            e.series("vllm:lora_requests_info")
                .next()
                .unwrap()
                .labels
                .len(),
            3
        );
    }

    #[test]
    fn quoted_metric_name_crlf_eof_and_unit() {
        let e = one("# TYPE \"my.metric\" gauge\r\n# UNIT my.metric seconds\r\n{\"my.metric\",a=\"1\"} 4\r\n# EOF\r\nafter the end is ignored\n");
        assert_eq!(val(&e, "my.metric"), vec![4.0]);
        assert_eq!(e.families[0].kind, MetricType::Gauge);
    }

    #[test]
    fn samples_away_from_their_type_line_find_their_family() {
        let e = one("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\n# TYPE g gauge\ng 1\nh_count 1\nh_sum 0.5\nuntyped_one 3\n");
        let names: Vec<&str> = e.families.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, vec!["h", "g", "untyped_one"]);
        assert_eq!(e.families[0].samples.len(), 3);
        assert_eq!(e.families[2].kind, MetricType::Untyped);
    }

    #[test]
    fn garbage_names_the_line() {
        let cases: &[(&str, usize, &str)] = &[
            ("a 1\nthis is not a metric\n", 2, "not a number"),
            ("a 1\nb{x=\"1\" 2\n", 2, "expected ','"),
            ("a 1\n\nb{x=1} 2\n", 3, "not quoted"),
            ("a{x=\"unterminated} 2\nb 1\n", 1, "not closed"),
            ("a-b 1\n", 1, "invalid character"),
            ("1abc 1\n", 1, "invalid metric name"),
            ("a\n", 1, "no value"),
            ("# TYPE\n", 1, "valid metric name"),
            ("# TYPE a\n", 1, "without a type"),
            ("{a=\"1\"} 2\n", 1, "no metric name"),
            ("a{9x=\"1\"} 2\n", 1, "invalid label name"),
        ];
        for (text, line, msg) in cases {
            match parse(text) {
                Err(PromError::Syntax {
                    line: l, msg: m, ..
                }) => {
                    assert_eq!(l, *line, "{text:?}");
                    assert!(m.contains(msg), "{text:?}: {m}");
                }
                other => panic!("{text:?}: expected a syntax error, got {other:?}"),
            }
        }
    }

    #[test]
    fn html_json_and_empty_bodies() {
        let html = "<!DOCTYPE html>\n<html><body>Not Found</body></html>\n";
        assert!(
            matches!(parse(html), Err(PromError::NotPrometheus { what, .. }) if what.contains("HTML"))
        );
        let json = "{\"error\":{\"code\":501,\"message\":\"This server does not support metrics endpoint.\",\"type\":\"not_supported_error\"}}";
        match parse(json) {
            Err(PromError::NotPrometheus { what, first_line }) => {
                assert!(what.contains("JSON"));
                assert!(first_line.contains("not_supported_error"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(parse(""), Err(PromError::Empty));
        assert_eq!(parse("# only comments\n\n"), Err(PromError::Empty));
        // A labelled metric with no children yet: HELP/TYPE only, no data, not an error alone.
        let e = one("# HELP r x\n# TYPE r counter\na 1\n");
        assert_eq!(e.families.len(), 1);
    }

    #[test]
    fn truncated_mid_line_drops_the_family_it_cut() {
        let whole = "# TYPE a counter\na_total 1\n# TYPE s counter\ns_total{r=\"stop\"} 4\ns_total{r=\"length\"} 5\n";
        // Cut inside the second series of `s`: `s` may be missing series, so it goes.
        let e = one(&whole[..whole.len() - 4]);
        let t = e.truncated.as_ref().unwrap();
        assert_eq!(t.family.as_deref(), Some("s"));
        assert_eq!(t.line, 5);
        assert_eq!(t.dropped_samples, 1);
        assert_eq!(e.families.len(), 1);
        assert_eq!(val(&e, "a_total"), vec![1.0]);
        // Cut inside the name of a new family's first header: every family before is whole.
        let e = one("a 1\n# TY");
        assert_eq!(val(&e, "a"), vec![1.0]);
        assert_eq!(e.truncated.as_ref().unwrap().family, None);
        // ... unless the family before it stopped short of its +Inf bucket.
        let e = one("a 1\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\n# TY");
        assert_eq!(e.truncated.as_ref().unwrap().family.as_deref(), Some("h"));
        assert_eq!(e.families.len(), 1);
        // Cut inside a sample name that could continue the current family.
        let e = one("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\nh_s");
        assert!(e.families.is_empty());
        assert_eq!(e.truncated.as_ref().unwrap().family.as_deref(), Some("h"));
        // A whole-looking last line without '\n' may have lost digits: still cut.
        let e = one("a 1\nb 99");
        assert_eq!(val(&e, "a"), vec![1.0]);
        assert!(e.series("b").next().is_none());
        assert_eq!(e.truncated.as_ref().unwrap().family.as_deref(), Some("b"));
    }

    #[test]
    fn truncated_mid_histogram_drops_it() {
        let text = "a 1\n# TYPE h histogram\nh_sum{m=\"x\"} 3\nh_bucket{le=\"1.0\",m=\"x\"} 1\nh_bucket{le=\"2.0\",m=\"x\"} 2\n";
        let e = one(text);
        assert_eq!(e.families.len(), 1);
        let t = e.truncated.unwrap();
        assert_eq!(t.family.as_deref(), Some("h"));
        assert_eq!(t.line, 5);
        assert_eq!(t.dropped_samples, 3);
        assert!(t.reason.contains("+Inf"), "{}", t.reason);
        // Two series, the first whole, the second cut: the family still goes (it is not whole).
        let text = "# TYPE h histogram\nh_bucket{le=\"+Inf\",e=\"0\"} 1\nh_count{e=\"0\"} 1\nh_bucket{le=\"+Inf\",e=\"1\"} 1\n";
        let e = one(text);
        assert!(e.truncated.unwrap().reason.contains("1 of 2"));
        // A summary without _count at the end.
        let e = one("a 1\n# TYPE s summary\ns{quantile=\"0.5\"} 1\n");
        assert_eq!(e.truncated.unwrap().family.as_deref(), Some("s"));
    }

    /// Tiny deterministic generator so the test needs no extra crate.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
    }

    #[test]
    fn no_panic_on_any_prefix_or_mutation() {
        let text = "# HELP vllm:x_total h\\\\n\n# TYPE vllm:x_total counter\nvllm:x_total{a=\"q\\\"\",engine=\"0\"} 1.5e+03 17\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\nh_sum 2\n{\"q.n\"} 3\nz NaN\n";
        for cut in 0..=text.len() {
            if text.is_char_boundary(cut) {
                let _ = parse(&text[..cut]);
            }
        }
        let alphabet = b"{}\"\\=, \n#_:aZ09.+-eE\r\tI";
        let mut rng = Lcg(7);
        for _ in 0..5000 {
            let mut b = text.as_bytes().to_vec();
            for _ in 0..(1 + rng.next() % 4) {
                let i = (rng.next() as usize) % b.len();
                b[i] = alphabet[(rng.next() as usize) % alphabet.len()];
            }
            let s = String::from_utf8_lossy(&b);
            let _ = parse(&s);
        }
        let mut b = Vec::new();
        for _ in 0..2000 {
            b.clear();
            for _ in 0..(rng.next() % 80) {
                b.push(alphabet[(rng.next() as usize) % alphabet.len()]);
            }
            let _ = parse(&String::from_utf8_lossy(&b));
        }
    }
}
