//! Load shapes: open or closed loop, prompt and output length distributions, and shared-prefix
//! families. A [`LoadShape`] plus a seed gives the same sequence of requests every time; the
//! emulator replays it in simulated time, and [`drive`] sends it to any OpenAI-compatible
//! server over HTTP.
//!
//! Prompt lengths are in words (whitespace-separated). On headroom's emulator a word is exactly
//! one token; on a real engine a word of this text is several tokens, so the shape sets the
//! relative sizes, not exact token counts (use `prompt::build_prompt` for exact lengths).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::client::{ChatMessage, Client, Prompt, StreamRequest};

/// SplitMix64: small, fast, and the same numbers on every platform.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5851_f42d_4c95_7f2d)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1].
    pub fn unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64
    }

    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let (u1, u2) = (self.unit(), self.unit());
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// Exponential with the given rate (mean 1 / rate).
    pub fn exp(&mut self, rate: f64) -> f64 {
        -self.unit().ln() / rate
    }
}

/// A length distribution, in words (prompts) or tokens (outputs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Length {
    Fixed {
        n: u32,
    },
    Uniform {
        min: u32,
        max: u32,
    },
    /// Log-normal around `median` with shape `sigma`, clamped to [min, max].
    LogNormal {
        median: f64,
        sigma: f64,
        min: u32,
        max: u32,
    },
}

impl Length {
    pub fn sample(&self, rng: &mut Rng) -> u32 {
        match *self {
            Length::Fixed { n } => n,
            Length::Uniform { min, max } => {
                let (lo, hi) = (min.min(max), min.max(max));
                lo + rng.below(u64::from(hi - lo) + 1) as u32
            }
            Length::LogNormal {
                median,
                sigma,
                min,
                max,
            } => {
                let v = median * (sigma * rng.normal()).exp();
                (v.round().max(f64::from(min)).min(f64::from(max))) as u32
            }
        }
    }

    /// The mean, for sizing (exact for Fixed and Uniform; the unclamped mean for LogNormal).
    pub fn mean(&self) -> f64 {
        match *self {
            Length::Fixed { n } => f64::from(n),
            Length::Uniform { min, max } => (f64::from(min) + f64::from(max)) / 2.0,
            Length::LogNormal { median, sigma, .. } => median * (sigma * sigma / 2.0).exp(),
        }
    }

    pub fn max(&self) -> u32 {
        match *self {
            Length::Fixed { n } => n,
            Length::Uniform { min, max } => min.max(max),
            Length::LogNormal { max, .. } => max,
        }
    }
}

/// When requests are sent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Arrival {
    /// `clients` users, each sending its next request `think_s` after the last one finished.
    Closed { clients: u32, think_s: f64 },
    /// Poisson arrivals at `rate_per_s`, whatever the server does.
    Open { rate_per_s: f64 },
}

/// Requests share one of `count` prefixes of `shared_words` words (system prompts, tools,
/// few-shot examples); the rest of each prompt is unique.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Families {
    pub count: u32,
    pub shared_words: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadShape {
    pub arrival: Arrival,
    pub prompt_words: Length,
    pub output_tokens: Length,
    pub families: Option<Families>,
    /// Chat messages (`/v1/chat/completions`) instead of a text prompt.
    pub chat: bool,
    /// Stream the answer (SSE); otherwise one JSON response per request.
    pub stream: bool,
}

/// One request of a shape.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestSpec {
    /// Position in the shape's sequence (0-based).
    pub index: u64,
    pub family: Option<u32>,
    /// Word ids: the family's shared prefix, then the unique part.
    pub words: Vec<u32>,
    pub max_tokens: u32,
}

impl RequestSpec {
    /// Words of the shared prefix at the front of `words`.
    pub fn shared_len(&self, shape: &LoadShape) -> usize {
        match (self.family, shape.families) {
            (Some(_), Some(f)) => (f.shared_words as usize).min(self.words.len()),
            _ => 0,
        }
    }

    /// The prompt text: one space-separated word per id.
    pub fn prompt_text(&self) -> String {
        let mut s = String::with_capacity(self.words.len() * 9);
        for (i, w) in self.words.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            push_word(&mut s, *w);
        }
        s
    }
}

fn push_word(s: &mut String, w: u32) {
    use std::fmt::Write;
    let _ = write!(s, "w{w:x}");
}

/// The requests of a shape, in order, from a seed.
#[derive(Debug, Clone)]
pub struct Generator {
    shape: LoadShape,
    seed: u64,
    rng: Rng,
    next: u64,
    prefixes: Vec<Vec<u32>>,
}

impl Generator {
    pub fn new(shape: &LoadShape, seed: u64) -> Generator {
        let prefixes = match shape.families {
            Some(f) => (0..f.count)
                .map(|k| {
                    let mut r =
                        Rng::new(seed ^ (u64::from(k) + 1).wrapping_mul(0xa076_1d64_78bd_642f));
                    (0..f.shared_words).map(|_| r.next_u64() as u32).collect()
                })
                .collect(),
            None => Vec::new(),
        };
        Generator {
            shape: shape.clone(),
            seed,
            rng: Rng::new(seed),
            next: 0,
            prefixes,
        }
    }

    pub fn shape(&self) -> &LoadShape {
        &self.shape
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn next_request(&mut self) -> RequestSpec {
        let index = self.next;
        self.next += 1;
        let len = self.shape.prompt_words.sample(&mut self.rng).max(1) as usize;
        let family =
            (!self.prefixes.is_empty()).then(|| self.rng.below(self.prefixes.len() as u64) as u32);
        let mut words = Vec::with_capacity(len);
        if let Some(f) = family {
            let p = &self.prefixes[f as usize];
            words.extend_from_slice(&p[..p.len().min(len.saturating_sub(1))]);
        }
        while words.len() < len {
            words.push(self.rng.next_u64() as u32);
        }
        let max_tokens = self.shape.output_tokens.sample(&mut self.rng).max(1);
        RequestSpec {
            index,
            family,
            words,
            max_tokens,
        }
    }

    /// Seconds until the next send: the open loop's exponential gap, or a closed-loop client's
    /// think time.
    pub fn next_gap_s(&mut self) -> f64 {
        match self.shape.arrival {
            Arrival::Open { rate_per_s } => self.rng.exp(rate_per_s.max(1e-9)),
            Arrival::Closed { think_s, .. } => think_s.max(0.0),
        }
    }
}

/// How [`drive`] runs.
#[derive(Debug, Clone)]
pub struct DriveOptions {
    /// Server seconds per wall second: the emulator's `--speed`, 1 for a real server. Arrival
    /// gaps and think times (server time) are divided by it.
    pub time_scale: f64,
    /// Wall time to send for; requests still running then are cut (the connection is dropped).
    pub duration: Duration,
    /// `model` field of each request; omitted when None.
    pub model: Option<String>,
    /// Open loop only: most requests in flight; an arrival beyond it is skipped and counted.
    pub max_in_flight: usize,
    /// Ends the drive early when it turns true: nothing new is sent and open requests are cut.
    pub stop: Option<tokio::sync::watch::Receiver<bool>>,
}

/// Resolves when `stop` turns true; never without one.
async fn stopped(stop: &mut Option<tokio::sync::watch::Receiver<bool>>) {
    match stop {
        None => std::future::pending().await,
        Some(rx) => loop {
            if *rx.borrow_and_update() {
                return;
            }
            if rx.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        },
    }
}

/// What a drive did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveReport {
    pub sent: u64,
    pub completed: u64,
    /// Still running at the end of the drive, and cut.
    pub cut: u64,
    pub failed: u64,
    /// Open-loop arrivals skipped at the in-flight cap.
    pub skipped: u64,
    pub first_error: Option<String>,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cached_tokens: u64,
}

fn body(spec: &RequestSpec, shape: &LoadShape, model: Option<&str>) -> (String, Value) {
    let text = spec.prompt_text();
    let mut b = match shape.chat {
        true => json!({"messages": [{"role": "user", "content": text}]}),
        false => json!({"prompt": text}),
    };
    let o = b.as_object_mut().expect("object");
    if let Some(m) = model {
        o.insert("model".into(), json!(m));
    }
    o.insert("max_tokens".into(), json!(spec.max_tokens));
    o.insert("temperature".into(), json!(0.0));
    o.insert("ignore_eos".into(), json!(true));
    o.insert("stream".into(), json!(false));
    let path = if shape.chat {
        "/v1/chat/completions"
    } else {
        "/v1/completions"
    };
    (path.to_string(), b)
}

#[derive(Debug, Default)]
struct Tally {
    report: DriveReport,
}

impl Tally {
    fn done(&mut self, r: crate::error::Result<(u64, u64, u64)>) {
        match r {
            Ok((p, c, k)) => {
                self.report.completed += 1;
                self.report.prompt_tokens += p;
                self.report.completion_tokens += c;
                self.report.cached_tokens += k;
            }
            Err(e) => {
                self.report.failed += 1;
                if self.report.first_error.is_none() {
                    self.report.first_error = Some(e.to_string());
                }
            }
        }
    }
}

async fn send_one(
    client: &Client,
    spec: &RequestSpec,
    shape: &LoadShape,
    model: Option<&str>,
) -> crate::error::Result<(u64, u64, u64)> {
    if shape.stream {
        let prompt = if shape.chat {
            Prompt::Chat(vec![ChatMessage::new("user", spec.prompt_text())])
        } else {
            Prompt::Text(spec.prompt_text())
        };
        let mut req = match prompt {
            Prompt::Text(t) => StreamRequest::text(t, spec.max_tokens),
            Prompt::Chat(m) => StreamRequest::chat(m, spec.max_tokens),
        };
        req.model = model.map(str::to_string);
        req.ignore_eos = true;
        let rec = client.stream(&req).await?;
        return Ok((
            rec.prompt_tokens.unwrap_or(0),
            rec.completion_tokens,
            rec.cached_tokens.map_or(0, |c| c.n),
        ));
    }
    let (path, b) = body(spec, shape, model);
    let v = client.post_json(&path, &b).await?;
    let u = |p: &str| v.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    Ok((
        u("/usage/prompt_tokens"),
        u("/usage/completion_tokens"),
        u("/usage/prompt_tokens_details/cached_tokens"),
    ))
}

/// Sends `shape` to the server behind `client` for `opts.duration` of wall time.
pub async fn drive(
    client: Client,
    shape: &LoadShape,
    seed: u64,
    opts: &DriveOptions,
) -> DriveReport {
    let start = Instant::now();
    let deadline = start + opts.duration;
    let scale = opts.time_scale.max(1e-9);
    let gen = Arc::new(Mutex::new(Generator::new(shape, seed)));
    let tally = Arc::new(Mutex::new(Tally::default()));
    let shape = Arc::new(shape.clone());
    let model = opts.model.clone();
    let mut tasks = tokio::task::JoinSet::new();
    match shape.arrival {
        Arrival::Closed { clients, .. } => {
            for _ in 0..clients {
                let (client, gen, tally, shape, model) = (
                    client.clone(),
                    gen.clone(),
                    tally.clone(),
                    shape.clone(),
                    model.clone(),
                );
                let mut stop = opts.stop.clone();
                tasks.spawn(async move {
                    while Instant::now() < deadline && !stop.as_ref().is_some_and(|s| *s.borrow()) {
                        let (spec, think) = {
                            let mut g = gen.lock().expect("generator lock");
                            (g.next_request(), g.next_gap_s())
                        };
                        tally.lock().expect("tally lock").report.sent += 1;
                        let left = deadline.saturating_duration_since(Instant::now());
                        let r = tokio::select! {
                            r = tokio::time::timeout(
                                left,
                                send_one(&client, &spec, &shape, model.as_deref()),
                            ) => r.ok(),
                            _ = stopped(&mut stop) => None,
                        };
                        match r {
                            Some(r) => tally.lock().expect("tally lock").done(r),
                            None => {
                                tally.lock().expect("tally lock").report.cut += 1;
                                break;
                            }
                        }
                        if think > 0.0 {
                            let d = Duration::from_secs_f64(think / scale);
                            tokio::time::sleep_until((Instant::now() + d).min(deadline).into())
                                .await;
                        }
                    }
                });
            }
        }
        Arrival::Open { .. } => {
            let mut next_at = start;
            let in_flight = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let mut stop = opts.stop.clone();
            loop {
                let gap = gen.lock().expect("generator lock").next_gap_s();
                next_at += Duration::from_secs_f64(gap / scale);
                if next_at >= deadline {
                    break;
                }
                tokio::select! {
                    _ = tokio::time::sleep_until(next_at.into()) => {}
                    _ = stopped(&mut stop) => break,
                }
                while tasks.try_join_next().is_some() {}
                use std::sync::atomic::Ordering::SeqCst;
                if in_flight.load(SeqCst) >= opts.max_in_flight.max(1) {
                    tally.lock().expect("tally lock").report.skipped += 1;
                    continue;
                }
                let spec = gen.lock().expect("generator lock").next_request();
                tally.lock().expect("tally lock").report.sent += 1;
                in_flight.fetch_add(1, SeqCst);
                let (client, tally, shape, model, in_flight) = (
                    client.clone(),
                    tally.clone(),
                    shape.clone(),
                    model.clone(),
                    in_flight.clone(),
                );
                let mut stop = opts.stop.clone();
                tasks.spawn(async move {
                    let left = deadline.saturating_duration_since(Instant::now());
                    let r = tokio::select! {
                        r = tokio::time::timeout(
                            left,
                            send_one(&client, &spec, &shape, model.as_deref()),
                        ) => r.ok(),
                        _ = stopped(&mut stop) => None,
                    };
                    let mut t = tally.lock().expect("tally lock");
                    match r {
                        Some(r) => t.done(r),
                        None => t.report.cut += 1,
                    }
                    in_flight.fetch_sub(1, SeqCst);
                });
            }
        }
    }
    while tasks.join_next().await.is_some() {}
    let t = tally.lock().expect("tally lock");
    t.report.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(arrival: Arrival, families: Option<Families>) -> LoadShape {
        LoadShape {
            arrival,
            prompt_words: Length::Uniform { min: 50, max: 150 },
            output_tokens: Length::LogNormal {
                median: 100.0,
                sigma: 0.5,
                min: 10,
                max: 400,
            },
            families,
            chat: false,
            stream: false,
        }
    }

    #[test]
    fn same_seed_same_requests() {
        let s = shape(Arrival::Open { rate_per_s: 2.0 }, None);
        let take = |seed| {
            let mut g = Generator::new(&s, seed);
            (0..20)
                .map(|_| (g.next_request(), g.next_gap_s()))
                .collect::<Vec<_>>()
        };
        assert_eq!(take(1), take(1));
        assert_ne!(take(1), take(2));
    }

    #[test]
    fn lengths_stay_in_range_and_average_right() {
        let mut r = Rng::new(9);
        let l = Length::Uniform { min: 50, max: 150 };
        let xs: Vec<u32> = (0..20_000).map(|_| l.sample(&mut r)).collect();
        assert!(xs.iter().all(|&x| (50..=150).contains(&x)));
        let mean = xs.iter().map(|&x| f64::from(x)).sum::<f64>() / xs.len() as f64;
        assert!((mean - 100.0).abs() < 1.0, "{mean}");
        let ln = Length::LogNormal {
            median: 200.0,
            sigma: 0.3,
            min: 1,
            max: 100_000,
        };
        let mut v: Vec<u32> = (0..20_001).map(|_| ln.sample(&mut r)).collect();
        v.sort_unstable();
        assert!(
            (f64::from(v[10_000]) - 200.0).abs() < 5.0,
            "median {}",
            v[10_000]
        );
        // Open-loop gaps have mean 1 / rate.
        let mut g = Generator::new(&shape(Arrival::Open { rate_per_s: 4.0 }, None), 3);
        let m = (0..20_000).map(|_| g.next_gap_s()).sum::<f64>() / 20_000.0;
        assert!((m - 0.25).abs() < 0.01, "{m}");
    }

    #[test]
    fn families_share_their_prefix_and_nothing_else() {
        let f = Families {
            count: 3,
            shared_words: 40,
        };
        let s = shape(
            Arrival::Closed {
                clients: 1,
                think_s: 0.0,
            },
            Some(f),
        );
        let mut g = Generator::new(&s, 5);
        let reqs: Vec<RequestSpec> = (0..60).map(|_| g.next_request()).collect();
        let fams: std::collections::BTreeSet<_> = reqs.iter().map(|r| r.family.unwrap()).collect();
        assert_eq!(fams.len(), 3);
        for a in &reqs {
            assert_eq!(a.shared_len(&s), 40);
            for b in &reqs {
                let common = a
                    .words
                    .iter()
                    .zip(&b.words)
                    .take_while(|(x, y)| x == y)
                    .count();
                if a.index == b.index {
                    continue;
                }
                if a.family == b.family {
                    assert_eq!(common, 40);
                } else {
                    assert_eq!(common, 0);
                }
            }
        }
        // The prompt text has one word per id.
        assert_eq!(
            reqs[0].prompt_text().split_whitespace().count(),
            reqs[0].words.len()
        );
    }

    #[test]
    fn request_bodies() {
        let s = shape(Arrival::Open { rate_per_s: 1.0 }, None);
        let spec = Generator::new(&s, 1).next_request();
        let (path, b) = body(&spec, &s, Some("m"));
        assert_eq!(path, "/v1/completions");
        assert_eq!(b["max_tokens"], json!(spec.max_tokens));
        assert_eq!(b["stream"], json!(false));
        let mut c = s.clone();
        c.chat = true;
        let (path, b) = body(&spec, &c, None);
        assert_eq!(path, "/v1/chat/completions");
        assert!(b.get("model").is_none());
        assert_eq!(b["messages"][0]["role"], json!("user"));
    }
}
