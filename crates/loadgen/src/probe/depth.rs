//! The flat-depth probe: sweep decode across context depth and fit a line.
//!
//! Flat ⇒ over the probed depths attention over history is not the cost (per-token weight or
//! expert movement is), and KV/attention tuning can win back at most the interval's worst fall
//! there; it says nothing of deeper contexts. A clear downward slope ⇒ context-bound. Cold (salted) and
//! warm (the same prompt again) are recorded separately; the engine's cached-token count on the
//! warm run shows whether its cache served the prompt.
//!
//! Adaptive (issue 14): rounds (every depth once, interleaved) repeat until the slope's interval
//! decides (flat or context-bound) or a cap is hit, each look held to its share of the error
//! rate; the decode clock is the engine's own (llama-server's `timings`) where every response
//! carries it.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{Med, Progress};
use crate::bench_suite::{engine_decode_tps, Clock};
use crate::client::{Client, GenCountSource, StreamRequest};
use crate::error::{Error, Result};
use crate::prompt::{build_prompt, new_salt};
use crate::server::{Engine, ServerInfo};
use crate::stats::{fit_line, LineFit};
use crate::tokenize::{CountBasis, TokenCounter};

#[derive(Debug, Clone)]
pub struct DepthConfig {
    /// Prompt lengths in tokens.
    pub depths: Vec<u64>,
    /// Tokens generated per request (exactly: `ignore_eos`).
    pub gen: u32,
    /// Rounds (cold+warm pairs per depth) before the first look at the slope.
    pub repeats: u32,
    /// The most rounds: past `repeats`, one more round at a time until the slope's interval
    /// decides. Equal to `repeats` (or less): a fixed design, one look.
    pub max_repeats: u32,
    /// No round starts once this much time has passed (the first `repeats` always run).
    pub max_time: Option<Duration>,
    /// Two-sided confidence over all looks together (each look gets 1 − (1 − c) / looks).
    pub confidence: f64,
    /// A drop across the probed range smaller than this fraction of the shallow rate is flat.
    pub material_drop: f64,
    /// Sent as `model` (default: the server's first model).
    pub model: Option<String>,
}

impl Default for DepthConfig {
    fn default() -> Self {
        Self {
            depths: vec![512, 2048, 8192, 16384],
            gen: 128,
            repeats: 3,
            max_repeats: 12,
            max_time: Some(Duration::from_secs(600)),
            confidence: 0.95,
            material_drop: 0.10,
            model: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// A freshly salted prompt: nothing cached can serve it.
    Cold,
    /// The cold prompt sent again at once.
    Warm,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DepthSample {
    /// The requested depth (tokens).
    pub depth: u64,
    /// The prompt's length as the builder counted it (see `prompt_count`).
    pub prompt_tokens: u64,
    /// The server's `usage.prompt_tokens`, when it reported one.
    pub server_prompt_tokens: Option<u64>,
    pub phase: Phase,
    /// 1-based repeat index.
    pub repeat: u32,
    pub ttft_ms: f64,
    /// The decode rate on the report's `decode_clock` (the one fitted); None with fewer than 2
    /// tokens.
    pub decode_tps: Option<f64>,
    /// Tokens after the first over their arrival span on this side of the wire.
    pub client_decode_tps: Option<f64>,
    /// The engine's own rate, `timings.predicted_n / predicted_ms` (llama-server), when given.
    pub engine_decode_tps: Option<f64>,
    pub gen_tokens: u64,
    pub gen_count: GenCountSource,
    /// The engine's cached prompt tokens for this request, when it reports them.
    pub cached_tokens: Option<u64>,
}

impl DepthSample {
    /// The depth used in the fit: the server's own count where given.
    pub fn x(&self) -> u64 {
        self.server_prompt_tokens.unwrap_or(self.prompt_tokens)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DepthVerdict {
    /// Even the steepest slope the interval allows loses less than `material_drop` over the
    /// probed range.
    Flat,
    /// The whole interval is below zero and the fitted drop over the range is material.
    ContextBound,
    /// The interval allows a material drop but does not establish one: more repeats or depths.
    Inconclusive,
}

impl DepthVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            DepthVerdict::Flat => "flat",
            DepthVerdict::ContextBound => "context-bound",
            DepthVerdict::Inconclusive => "inconclusive",
        }
    }
}

/// The fit in the units people read: tok/s per 1k tokens of depth.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DepthFit {
    pub slope_tps_per_1k: f64,
    pub low: f64,
    pub high: f64,
    pub confidence: f64,
    /// Fitted decode rate at depth 0.
    pub intercept_tps: f64,
    pub r2: f64,
    /// Points in the fit (samples with a decode rate).
    pub n: usize,
}

/// Per depth and phase: medians with their sample sizes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DepthRow {
    pub depth: u64,
    pub cold_ttft_ms: Med,
    pub warm_ttft_ms: Med,
    pub cold_decode_tps: Med,
    pub warm_decode_tps: Med,
    /// Median cached tokens the engine reported on warm runs.
    pub warm_cached_tokens: Med,
}

/// Why the rounds stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DepthStop {
    /// The slope's interval decided (flat or context-bound) at a look.
    Decided,
    /// `max_repeats` rounds ran without a decision.
    MaxRepeats,
    /// The time cap came before a decision.
    MaxTime,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DepthReport {
    pub server: ServerInfo,
    /// How prompt lengths were counted.
    pub prompt_count: CountBasis,
    /// Every prompt had exactly its target length by the server's tokenizer.
    pub all_exact: bool,
    pub gen: u32,
    pub repeats: u32,
    pub samples: Vec<DepthSample>,
    pub rows: Vec<DepthRow>,
    pub fit: DepthFit,
    pub verdict: DepthVerdict,
    /// Fitted decode tok/s lost per 10k tokens of depth (positive = slower when deeper), with
    /// its interval.
    pub drop_per_10k_tps: f64,
    pub drop_per_10k_low: f64,
    pub drop_per_10k_high: f64,
    /// Fitted drop across the probed range, as a fraction of the fitted rate at the shallowest
    /// depth.
    pub drop_over_range: f64,
    pub reason: String,
    /// Whose clock `decode_tps` (and the fit) is on: the engine's where every sample carried its
    /// timings, else the client's.
    pub decode_clock: Clock,
    /// Rounds before the first look, and the most rounds allowed.
    pub min_repeats: u32,
    pub max_repeats: u32,
    /// Looks planned (one after each round from `min_repeats` to `max_repeats`); `fit.confidence`
    /// is the per-look confidence, 1 − (1 − overall) / looks.
    pub looks: u32,
    pub stopped: DepthStop,
    /// The least further fall across the probed range, as a fraction of the fitted shallowest
    /// rate, that these samples would have called context-bound (the observed points tilted by
    /// it); None once context-bound.
    pub detectable_drop: Option<f64>,
    /// Seconds from the first request to the last response.
    pub elapsed_s: f64,
}

/// A confidence as a percentage: "95", "99.5" (a per-look level is rarely whole).
pub fn conf_text(c: f64) -> String {
    numbers::fmt::percent_cell(c)
}

impl DepthReport {
    /// The rounds in words: "5 (a look after each of rounds 3–12 at 99.5 %; decided after 48 s)".
    pub fn rounds_text(&self) -> String {
        format!(
            "{} (a look after each of rounds {}–{} at {} %; {} after {:.0} s)",
            self.repeats,
            self.min_repeats,
            self.max_repeats,
            conf_text(self.fit.confidence),
            match self.stopped {
                DepthStop::Decided => "decided",
                DepthStop::MaxRepeats => "no decision at the most rounds",
                DepthStop::MaxTime => "no decision when the time cap came",
            },
            self.elapsed_s
        )
    }
}

/// Refuse (before anything is sent) depths whose prompt plus generation exceed the server's
/// per-request context. Unknown context: Ok, and the caller says it could not check.
pub fn check_depths(info: &ServerInfo, depths: &[u64], gen: u32) -> Result<()> {
    if depths.len() < 2 {
        return Err(Error::Refused(format!(
            "a slope needs at least 2 distinct depths, got {depths:?}"
        )));
    }
    let Some(ctx) = &info.context else {
        return Ok(());
    };
    let too_deep: Vec<String> = depths
        .iter()
        .filter(|&&d| d + u64::from(gen) > ctx.tokens)
        .map(|d| d.to_string())
        .collect();
    if too_deep.is_empty() {
        return Ok(());
    }
    Err(Error::Refused(format!(
        "depth(s) {} + {gen} generated tokens exceed the server's context of {} tokens per \
request ({}); the deepest allowed is {}; nothing was sent",
        too_deep.join(", "),
        ctx.tokens,
        ctx.source,
        ctx.tokens.saturating_sub(u64::from(gen))
    )))
}

/// Decide flat / context-bound / inconclusive from the fit over [d_min, d_max].
pub fn judge(fit: &LineFit, d_min: f64, d_max: f64, material: f64) -> (DepthVerdict, f64, String) {
    let r0 = fit.at(d_min);
    let range = d_max - d_min;
    if r0 <= 0.0 || range <= 0.0 {
        return (
            DepthVerdict::Inconclusive,
            f64::NAN,
            format!("fitted rate at depth {d_min:.0} is {r0:.2} tok/s; no verdict"),
        );
    }
    let drop = -fit.slope * range / r0;
    let worst = -fit.slope_low * range / r0;
    let pct = numbers::fmt::percent;
    let conf = conf_text(fit.confidence);
    if fit.slope_high < 0.0 && drop >= material {
        (
            DepthVerdict::ContextBound,
            drop,
            format!(
                "decode falls {} from depth {d_min:.0} to {d_max:.0} and the whole {conf} % \
interval on the slope is below zero: attention over history costs decode time",
                pct(drop)
            ),
        )
    } else if worst < material {
        (
            DepthVerdict::Flat,
            drop,
            format!(
                "even the steepest slope the {conf} % interval allows loses {} from depth \
{d_min:.0} to {d_max:.0} (< {}): up to {d_max:.0} tokens, context is not the cost; per-token \
weight or expert movement is, and KV/attention tuning can win back at most {} at these \
depths (deeper contexts were not probed)",
                pct(worst.max(0.0)),
                pct(material),
                pct(worst.max(0.0)),
            ),
        )
    } else {
        (
            DepthVerdict::Inconclusive,
            drop,
            format!(
                "the fitted drop is {} over the range but the {conf} % interval allows up to \
{}{}; add repeats or depths",
                pct(drop),
                pct(worst),
                if fit.slope_high < 0.0 {
                    ""
                } else {
                    " and includes no drop"
                }
            ),
        )
    }
}

/// Run the sweep in rounds: each round sends, for every depth, a salted cold request then the
/// same prompt warm. Depths are interleaved within each round so slow drift does not masquerade
/// as slope. After `repeats` rounds, and after each round past them, the slope is judged at the
/// per-look confidence; the rounds stop when it decides, at `max_repeats`, or at `max_time`.
///
/// Every check that can refuse (depths beyond the context, bad settings) runs before anything is
/// sent; only then is the tokenizer looked for (calibration may send a 1-token completion).
pub async fn run_depth(
    client: &Client,
    info: &ServerInfo,
    cfg: &DepthConfig,
    progress: &dyn Progress,
) -> Result<DepthReport> {
    let mut depths = cfg.depths.clone();
    depths.sort_unstable();
    depths.dedup();
    check_depths(info, &depths, cfg.gen)?;
    if cfg.repeats == 0 || cfg.gen < 2 {
        return Err(Error::Refused(
            "depth needs --repeats ≥ 1 and --gen ≥ 2 (a decode rate needs two tokens)".into(),
        ));
    }
    let counter = &TokenCounter::detect(client, info).await?;
    let model = cfg.model.clone().or_else(|| info.model.clone());
    let max_repeats = cfg.max_repeats.max(cfg.repeats);
    let total = depths.len() as u64 * u64::from(max_repeats) * 2;
    progress.start(total, "depth");
    let t0 = Instant::now();
    let mut samples = Vec::new();
    let mut all_exact = true;
    let mut last_round = Duration::ZERO;
    for repeat in 1..=max_repeats {
        // Past the first look, a round that would end beyond the cap is not started.
        if repeat > cfg.repeats {
            if let Some(cap) = cfg.max_time {
                if t0.elapsed() + last_round > cap {
                    let r = summarize_rounds(info, counter, all_exact, cfg, samples, t0)?;
                    return Ok(DepthReport {
                        stopped: DepthStop::MaxTime,
                        ..r
                    });
                }
            }
        }
        let round_start = Instant::now();
        for &depth in &depths {
            let built = build_prompt(counter, depth, &new_salt()).await?;
            all_exact &= built.is_exact();
            for phase in [Phase::Cold, Phase::Warm] {
                let mut req = StreamRequest::text(built.text.clone(), cfg.gen);
                req.model = model.clone();
                req.ignore_eos = true;
                if info.engine == Some(Engine::LlamaCpp) {
                    req.cache_prompt = Some(true);
                }
                let rec = client.stream(&req).await?;
                let engine = engine_decode_tps(&rec);
                let s = DepthSample {
                    depth,
                    prompt_tokens: built.tokens.n,
                    server_prompt_tokens: rec.prompt_tokens,
                    phase,
                    repeat,
                    ttft_ms: rec.ttft_ms().unwrap_or(f64::NAN),
                    decode_tps: engine.or(rec.decode_tps()),
                    client_decode_tps: rec.decode_tps(),
                    engine_decode_tps: engine,
                    gen_tokens: rec.completion_tokens,
                    gen_count: rec.completion_source,
                    cached_tokens: rec.cached_tokens.as_ref().map(|c| c.n),
                };
                progress.step(&format!(
                    "depth {depth} {} #{repeat}: ttft {:.0} ms, decode {}",
                    if phase == Phase::Cold { "cold" } else { "warm" },
                    s.ttft_ms,
                    s.decode_tps
                        .map(|r| {
                            let clock = if engine.is_some() { "engine" } else { "client" };
                            format!("{r:.1} tok/s ({clock} clock)")
                        })
                        .unwrap_or_else(|| "-".into())
                ));
                samples.push(s);
            }
        }
        last_round = round_start.elapsed();
        if repeat >= cfg.repeats {
            let r = summarize_rounds(info, counter, all_exact, cfg, samples.clone(), t0)?;
            if r.verdict != DepthVerdict::Inconclusive {
                return Ok(r);
            }
            if repeat < max_repeats {
                progress.note(&format!("round {repeat}: {}; another round", r.reason));
            }
        }
    }
    let r = summarize_rounds(info, counter, all_exact, cfg, samples, t0)?;
    Ok(DepthReport {
        stopped: DepthStop::MaxRepeats,
        ..r
    })
}

fn summarize_rounds(
    info: &ServerInfo,
    counter: &TokenCounter,
    all_exact: bool,
    cfg: &DepthConfig,
    samples: Vec<DepthSample>,
    t0: Instant,
) -> Result<DepthReport> {
    let mut r = summarize(info, counter.basis().clone(), all_exact, cfg, samples)?;
    r.elapsed_s = t0.elapsed().as_secs_f64();
    Ok(r)
}

/// Looks planned for `cfg`: one after each round from `repeats` to `max_repeats`.
pub fn looks(cfg: &DepthConfig) -> u32 {
    cfg.max_repeats.max(cfg.repeats) - cfg.repeats + 1
}

/// The least further fall across [d_min, d_max] (a fraction of the fitted rate at d_min) that
/// would make [`judge`] say context-bound: the points tilted about d_min by δ move the slope and
/// its interval by −δ and leave the rate at d_min; it needs the interval's top below zero and the
/// fitted fall at `material` or more. None when the fit already says context-bound or has no
/// positive shallow rate.
pub fn detectable_drop(fit: &LineFit, d_min: f64, d_max: f64, material: f64) -> Option<f64> {
    let r0 = fit.at(d_min);
    let range = d_max - d_min;
    if r0 <= 0.0 || range <= 0.0 {
        return None;
    }
    let drop = -fit.slope * range / r0;
    if fit.slope_high < 0.0 && drop >= material {
        return None;
    }
    // δ > slope_high clears zero; δ ≥ slope + material·r0/range makes the fall material.
    let delta = fit
        .slope_high
        .max(fit.slope + material * r0 / range)
        .max(0.0);
    Some(delta * range / r0)
}

/// The fit, verdict and per-depth medians from finished samples (pure).
pub fn summarize(
    info: &ServerInfo,
    prompt_count: CountBasis,
    all_exact: bool,
    cfg: &DepthConfig,
    samples: Vec<DepthSample>,
) -> Result<DepthReport> {
    // One clock for every point: the engine's where every sample with a rate carried it.
    let mut samples = samples;
    let engine = samples
        .iter()
        .filter(|s| s.client_decode_tps.is_some() || s.engine_decode_tps.is_some())
        .all(|s| s.engine_decode_tps.is_some())
        && samples.iter().any(|s| s.engine_decode_tps.is_some());
    let decode_clock = if engine { Clock::Engine } else { Clock::Client };
    for s in &mut samples {
        s.decode_tps = if engine {
            s.engine_decode_tps
        } else {
            s.client_decode_tps
        };
    }
    let looks = looks(cfg);
    let confidence = 1.0 - (1.0 - cfg.confidence) / f64::from(looks);
    let points: Vec<(f64, f64)> = samples
        .iter()
        .filter_map(|s| s.decode_tps.map(|r| (s.x() as f64, r)))
        .collect();
    let fit = fit_line(&points, confidence)
        .map_err(|e| Error::Refused(format!("cannot fit decode rate against depth: {e}")))?;
    let d_min = points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let d_max = points.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let (verdict, drop_over_range, reason) = judge(&fit, d_min, d_max, cfg.material_drop);
    let detectable_drop = detectable_drop(&fit, d_min, d_max, cfg.material_drop);
    let reason = match detectable_drop {
        Some(d) => format!(
            "{reason} (at {} point(s); could have detected a fall of ≥ {} over the range)",
            fit.n,
            numbers::fmt::percent(d)
        ),
        None => reason,
    };
    let rounds = samples.iter().map(|s| s.repeat).max().unwrap_or(0);
    let mut depths: Vec<u64> = samples.iter().map(|s| s.depth).collect();
    depths.sort_unstable();
    depths.dedup();
    let rows = depths
        .iter()
        .map(|&d| {
            let of = |p: Phase| samples.iter().filter(move |s| s.depth == d && s.phase == p);
            DepthRow {
                depth: d,
                cold_ttft_ms: Med::of(of(Phase::Cold).map(|s| Some(s.ttft_ms))),
                warm_ttft_ms: Med::of(of(Phase::Warm).map(|s| Some(s.ttft_ms))),
                cold_decode_tps: Med::of(of(Phase::Cold).map(|s| s.decode_tps)),
                warm_decode_tps: Med::of(of(Phase::Warm).map(|s| s.decode_tps)),
                warm_cached_tokens: Med::of(
                    of(Phase::Warm).map(|s| s.cached_tokens.map(|c| c as f64)),
                ),
            }
        })
        .collect();
    Ok(DepthReport {
        server: info.clone(),
        prompt_count,
        all_exact,
        gen: cfg.gen,
        repeats: rounds,
        rows,
        fit: DepthFit {
            slope_tps_per_1k: fit.slope * 1e3,
            low: fit.slope_low * 1e3,
            high: fit.slope_high * 1e3,
            confidence: fit.confidence,
            intercept_tps: fit.intercept,
            r2: fit.r2,
            n: fit.n,
        },
        verdict,
        drop_per_10k_tps: -fit.slope * 1e4,
        drop_per_10k_low: -fit.slope_high * 1e4,
        drop_per_10k_high: -fit.slope_low * 1e4,
        drop_over_range,
        reason,
        samples,
        decode_clock,
        min_repeats: cfg.repeats,
        max_repeats: cfg.max_repeats.max(cfg.repeats),
        looks,
        stopped: if verdict == DepthVerdict::Inconclusive {
            DepthStop::MaxRepeats
        } else {
            DepthStop::Decided
        },
        detectable_drop,
        elapsed_s: 0.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::ContextLimit;

    fn info(ctx: Option<u64>) -> ServerInfo {
        ServerInfo {
            engine: Some(Engine::LlamaCpp),
            model: None,
            context: ctx.map(|t| ContextLimit {
                tokens: t,
                source:
                    "llama.cpp GET /props default_generation_settings.n_ctx, per slot; 1 slot(s)"
                        .into(),
            }),
            slots: Some(1),
        }
    }

    #[test]
    fn depths_beyond_context_are_refused_naming_the_limit() {
        assert!(check_depths(&info(Some(8192)), &[512, 8064], 128).is_ok());
        let e = check_depths(&info(Some(8192)), &[512, 8192, 16384], 128)
            .unwrap_err()
            .to_string();
        assert!(e.contains("8192, 16384"), "{e}");
        assert!(e.contains("8192 tokens per request"), "{e}");
        assert!(e.contains("/props"), "{e}");
        assert!(e.contains("deepest allowed is 8064"), "{e}");
        assert!(check_depths(&info(None), &[1, 1_000_000], 1).is_ok());
        assert!(check_depths(&info(None), &[512], 1).is_err());
    }

    fn fit_of(rates: &[(f64, f64)]) -> LineFit {
        fit_line(rates, 0.95).unwrap()
    }

    #[test]
    fn verdicts() {
        // Steep fall: 200 → 120 tok/s over 64..2048, three noisy repeats.
        let mut steep = Vec::new();
        for (i, &d) in [64.0, 512.0, 1024.0, 2048.0].iter().enumerate() {
            for k in 0..3 {
                let noise = [(-1.0), 0.5, 0.8][(i + k) % 3];
                steep.push((d, 200.0 - 0.04 * d + noise));
            }
        }
        let (v, drop, why) = judge(&fit_of(&steep), 64.0, 2048.0, 0.10);
        assert_eq!(v, DepthVerdict::ContextBound, "{why}");
        assert!((drop - 0.04 * 1984.0 / (200.0 - 0.04 * 64.0)).abs() < 0.02);

        // Flat within ±1 % noise over 256..16384.
        let mut flat = Vec::new();
        for (i, &d) in [256.0, 2048.0, 8192.0, 16384.0].iter().enumerate() {
            for k in 0..3 {
                flat.push((d, 40.0 + [(-0.3), 0.2, 0.1][(i + 2 * k) % 3]));
            }
        }
        let (v, _, why) = judge(&fit_of(&flat), 256.0, 16384.0, 0.10);
        assert_eq!(v, DepthVerdict::Flat, "{why}");

        // Wild noise, no trend: the interval allows a large drop → inconclusive.
        let noisy = [
            (256.0, 40.0),
            (256.0, 20.0),
            (16384.0, 42.0),
            (16384.0, 18.0),
        ];
        let (v, _, why) = judge(&fit_of(&noisy), 256.0, 16384.0, 0.10);
        assert_eq!(v, DepthVerdict::Inconclusive, "{why}");

        // A significant but tiny slope (0.5 % over the range) is flat, not context-bound.
        let tiny: Vec<(f64, f64)> = [256.0, 4096.0, 16384.0]
            .iter()
            .flat_map(|&d| {
                [
                    (d, 50.0 - 0.25 * d / 16384.0),
                    (d, 50.0 - 0.25 * d / 16384.0 + 0.001),
                ]
            })
            .collect();
        let (v, _, why) = judge(&fit_of(&tiny), 256.0, 16384.0, 0.10);
        assert_eq!(v, DepthVerdict::Flat, "{why}");
    }

    #[test]
    fn summary_units_and_rows() {
        let mk = |depth, phase, r| DepthSample {
            depth,
            prompt_tokens: depth,
            server_prompt_tokens: Some(depth),
            phase,
            repeat: 1,
            ttft_ms: if phase == Phase::Cold { 100.0 } else { 10.0 },
            decode_tps: None,
            client_decode_tps: Some(r * 0.9),
            engine_decode_tps: Some(r),
            gen_tokens: 32,
            gen_count: GenCountSource::Usage,
            cached_tokens: if phase == Phase::Warm {
                Some(depth - 1)
            } else {
                Some(0)
            },
        };
        let samples = vec![
            mk(1000, Phase::Cold, 100.0),
            mk(1000, Phase::Warm, 100.0),
            mk(2000, Phase::Cold, 90.0),
            mk(2000, Phase::Warm, 90.0),
            mk(3000, Phase::Cold, 80.0),
            mk(3000, Phase::Warm, 80.0),
        ];
        let r = summarize(
            &info(Some(8192)),
            CountBasis::Default {
                chars_per_token: 4.0,
            },
            false,
            &DepthConfig::default(),
            samples,
        )
        .unwrap();
        assert!((r.fit.slope_tps_per_1k + 10.0).abs() < 1e-9);
        assert!((r.drop_per_10k_tps - 100.0).abs() < 1e-9);
        assert_eq!(r.fit.n, 6);
        assert_eq!(r.verdict, DepthVerdict::ContextBound);
        assert_eq!(r.rows.len(), 3);
        assert_eq!(r.rows[0].warm_cached_tokens.median, Some(999.0));
        assert_eq!(r.rows[0].cold_ttft_ms.n, 1);
        // Every sample carried the engine's timings: the fit is on the engine's clock.
        assert_eq!(r.decode_clock, Clock::Engine);
        assert_eq!(r.samples[0].decode_tps, Some(100.0));
        assert_eq!(r.samples[0].client_decode_tps, Some(90.0));
        // Default design: looks after rounds 3..=12, each at 1 − 0.05 / 10.
        assert_eq!(r.looks, 10);
        assert!((r.fit.confidence - 0.995).abs() < 1e-12);
        assert_eq!(r.stopped, DepthStop::Decided);
        assert_eq!(r.detectable_drop, None);
        assert_eq!(r.repeats, 1);

        // One sample without the engine's timings: every point falls back to the client's clock.
        let mut mixed = vec![
            mk(1000, Phase::Cold, 100.0),
            mk(2000, Phase::Cold, 90.0),
            mk(3000, Phase::Cold, 80.0),
        ];
        mixed[1].engine_decode_tps = None;
        let r = summarize(
            &info(Some(8192)),
            CountBasis::Default {
                chars_per_token: 4.0,
            },
            false,
            &DepthConfig::default(),
            mixed,
        )
        .unwrap();
        assert_eq!(r.decode_clock, Clock::Client);
        assert_eq!(r.samples[0].decode_tps, Some(90.0));
        assert!((r.fit.slope_tps_per_1k + 9.0).abs() < 1e-9);
    }

    #[test]
    fn detectable_drop_is_the_tilt_that_would_have_decided() {
        // Flat with noise over 0..1000 at ~100 tok/s: the tilt must push the interval's top
        // below zero and the fall to 10 %.
        let pts: Vec<(f64, f64)> = [0.0, 500.0, 1000.0]
            .iter()
            .flat_map(|&d| [(d, 98.0), (d, 102.0), (d, 100.0)])
            .collect();
        let fit = fit_of(&pts);
        let d = detectable_drop(&fit, 0.0, 1000.0, 0.10).unwrap();
        let r0 = fit.at(0.0);
        let need = (fit.slope_high * 1000.0 / r0).max(0.10);
        assert!((d - need).abs() < 1e-12, "{d} vs {need}");
        // Tilting the points by exactly that fall (plus a hair) makes judge say context-bound.
        let delta = (d + 1e-6) * r0 / 1000.0;
        let tilted: Vec<(f64, f64)> = pts.iter().map(|&(x, y)| (x, y - delta * x)).collect();
        let (v, _, why) = judge(&fit_of(&tilted), 0.0, 1000.0, 0.10);
        assert_eq!(v, DepthVerdict::ContextBound, "{why}");
        // A hair less does not.
        let delta = (d - 1e-4) * r0 / 1000.0;
        let tilted: Vec<(f64, f64)> = pts.iter().map(|&(x, y)| (x, y - delta * x)).collect();
        let (v, _, why) = judge(&fit_of(&tilted), 0.0, 1000.0, 0.10);
        assert_ne!(v, DepthVerdict::ContextBound, "{why}");
    }
}
