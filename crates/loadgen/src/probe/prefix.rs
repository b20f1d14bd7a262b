//! The prefix-cache probe: the same prompt twice to an idle server.
//!
//! A lifetime hit-rate counter is not a per-request verdict, so ask directly: a salted cold
//! request, the same prompt again (warm), and a control with a fresh salt and the same body
//! (must miss, because the salt is the first token). The verdict reads the engine's own cached
//! count where it reports one, else the TTFT ratio; the basis is stated.

use numbers::fmt::percent;
use serde::{Deserialize, Serialize};

use super::{Med, Progress};
use crate::client::{Client, StreamRequest};
use crate::error::{Error, Result};
use crate::load::{current_load, Load};
use crate::prompt::{build_prompt, new_salt};
use crate::server::{Engine, ServerInfo};
use crate::tokenize::{CountBasis, TokenCounter};

#[derive(Debug, Clone)]
pub struct PrefixConfig {
    /// Prompt length in tokens.
    pub tokens: u64,
    /// Tokens generated per request.
    pub gen: u32,
    /// Cold/warm/salted triples.
    pub repeats: u32,
    /// Run even when the server is busy or its load cannot be read.
    pub force: bool,
    /// Warm cached tokens ≥ this fraction of the prompt ⇒ hit (engine-count basis).
    pub hit_fraction: f64,
    /// Warm TTFT ≤ this fraction of cold TTFT ⇒ hit (TTFT basis, when no engine count).
    pub ttft_ratio: f64,
    pub model: Option<String>,
}

impl Default for PrefixConfig {
    fn default() -> Self {
        Self {
            tokens: 2048,
            gen: 16,
            repeats: 1,
            force: false,
            hit_fraction: 0.5,
            ttft_ratio: 0.5,
            model: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunKind {
    /// Freshly salted: nothing cached can serve it.
    Cold,
    /// The cold prompt again.
    Warm,
    /// Same body, a new salt at the start: the control, which must miss.
    Salted,
}

impl RunKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Cold => "cold",
            RunKind::Warm => "warm",
            RunKind::Salted => "salted",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PrefixRun {
    pub kind: RunKind,
    pub repeat: u32,
    pub ttft_ms: f64,
    pub decode_tps: Option<f64>,
    /// Prompt length as the builder counted it.
    pub prompt_tokens: u64,
    pub server_prompt_tokens: Option<u64>,
    /// The engine's cached prompt tokens and the field that said so.
    pub cached_tokens: Option<u64>,
    pub cached_field: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheVerdict {
    Hit,
    Miss,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerdictBasis {
    /// The engine's own cached-token count.
    EngineCount,
    /// Warm TTFT against cold TTFT (no engine count reported).
    Ttft,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PrefixReport {
    pub server: ServerInfo,
    /// Load read before the first request (None: not readable).
    pub load_before: Option<Load>,
    pub forced: bool,
    pub prompt_count: CountBasis,
    pub runs: Vec<PrefixRun>,
    pub cold_ttft_ms: Med,
    pub warm_ttft_ms: Med,
    pub salted_ttft_ms: Med,
    /// Median cached tokens / prompt tokens on warm runs, and on the salted control.
    pub warm_cached_fraction: Med,
    pub salted_cached_fraction: Med,
    pub verdict: CacheVerdict,
    pub basis: VerdictBasis,
    /// The salted control judged the same way; a hit there means the probe cannot tell.
    pub control: CacheVerdict,
    pub reason: String,
    pub warnings: Vec<String>,
}

/// Refuse a busy server (or one whose load cannot be read) unless forced.
pub fn check_idle(load: Option<&Load>, force: bool) -> Result<Vec<String>> {
    match (load, force) {
        (Some(l), _) if l.is_idle() => Ok(vec![]),
        (Some(l), false) => Err(Error::Refused(format!(
            "the server is busy ({} running, {} waiting; {}): a busy server's TTFT and cache \
figures mean nothing here. Run when it is idle, or pass --force",
            l.running, l.waiting, l.source
        ))),
        (Some(l), true) => Ok(vec![format!(
            "forced on a busy server ({} running, {} waiting): figures are unreliable",
            l.running, l.waiting
        )]),
        (None, false) => Err(Error::Refused(
            "cannot tell whether the server is idle (no running/waiting gauges on /metrics and \
no llama.cpp /slots); pass --force to run anyway"
                .into(),
        )),
        (None, true) => Ok(vec![
            "forced without knowing whether the server is idle".to_string()
        ]),
    }
}

/// Refusals (context, a busy server) come before anything is sent.
pub async fn run_prefix(
    client: &Client,
    info: &ServerInfo,
    cfg: &PrefixConfig,
    progress: &dyn Progress,
) -> Result<PrefixReport> {
    if cfg.repeats == 0 {
        return Err(Error::Refused("prefix needs --repeats ≥ 1".into()));
    }
    if let Some(ctx) = &info.context {
        if cfg.tokens + u64::from(cfg.gen) > ctx.tokens {
            return Err(Error::Refused(format!(
                "{} prompt + {} generated tokens exceed the server's context of {} tokens ({}); \
nothing was sent",
                cfg.tokens, cfg.gen, ctx.tokens, ctx.source
            )));
        }
    }
    let load_before = current_load(client).await?;
    let mut warnings = check_idle(load_before.as_ref(), cfg.force)?;
    let counter = &TokenCounter::detect(client, info).await?;
    let model = cfg.model.clone().or_else(|| info.model.clone());
    progress.start(u64::from(cfg.repeats) * 3, "prefix");
    let mut runs = Vec::new();
    for repeat in 1..=cfg.repeats {
        let first = build_prompt(counter, cfg.tokens, &new_salt()).await?;
        let control = build_prompt(counter, cfg.tokens, &new_salt()).await?;
        for (kind, p) in [
            (RunKind::Cold, &first),
            (RunKind::Warm, &first),
            (RunKind::Salted, &control),
        ] {
            let mut req = StreamRequest::text(p.text.clone(), cfg.gen);
            req.model = model.clone();
            req.ignore_eos = true;
            if info.engine == Some(Engine::LlamaCpp) {
                req.cache_prompt = Some(true);
            }
            let rec = client.stream(&req).await?;
            let run = PrefixRun {
                kind,
                repeat,
                ttft_ms: rec.ttft_ms().unwrap_or(f64::NAN),
                decode_tps: rec.decode_tps(),
                prompt_tokens: p.tokens.n,
                server_prompt_tokens: rec.prompt_tokens,
                cached_tokens: rec.cached_tokens.as_ref().map(|c| c.n),
                cached_field: rec.cached_tokens.as_ref().map(|c| c.field.to_string()),
            };
            progress.step(&format!(
                "{} #{repeat}: ttft {:.0} ms, cached {}",
                kind.as_str(),
                run.ttft_ms,
                run.cached_tokens
                    .map(|c| c.to_string())
                    .unwrap_or_else(|| "not reported".into())
            ));
            runs.push(run);
        }
    }
    if let Ok(Some(after)) = current_load(client).await {
        if !after.is_idle() {
            warnings.push(format!(
                "other requests arrived during the probe ({} running, {} waiting after)",
                after.running, after.waiting
            ));
        }
    }
    Ok(summarize(
        info,
        load_before,
        cfg,
        counter.basis().clone(),
        runs,
        warnings,
    ))
}

/// The verdict from finished runs (pure).
pub fn summarize(
    info: &ServerInfo,
    load_before: Option<Load>,
    cfg: &PrefixConfig,
    prompt_count: CountBasis,
    runs: Vec<PrefixRun>,
    mut warnings: Vec<String>,
) -> PrefixReport {
    let of = |k: RunKind| runs.iter().filter(move |r| r.kind == k);
    let ttft = |k| Med::of(of(k).map(|r| Some(r.ttft_ms)));
    let frac = |k| {
        Med::of(of(k).map(|r| {
            let n = r.server_prompt_tokens.unwrap_or(r.prompt_tokens);
            r.cached_tokens
                .filter(|_| n > 0)
                .map(|c| c as f64 / n as f64)
        }))
    };
    let (cold, warm, salted) = (
        ttft(RunKind::Cold),
        ttft(RunKind::Warm),
        ttft(RunKind::Salted),
    );
    let (warm_frac, salted_frac) = (frac(RunKind::Warm), frac(RunKind::Salted));
    let by_ttft = |t: Med| match (t.median, cold.median) {
        (Some(w), Some(c)) if c > 0.0 && w <= cfg.ttft_ratio * c => CacheVerdict::Hit,
        _ => CacheVerdict::Miss,
    };
    let by_count = |f: Med| match f.median {
        Some(x) if x >= cfg.hit_fraction => CacheVerdict::Hit,
        _ => CacheVerdict::Miss,
    };
    let (verdict, control, basis, reason) = match (warm_frac.median, salted_frac.median) {
        (Some(wf), _) => {
            let v = by_count(warm_frac);
            let c = by_count(salted_frac);
            let reason = format!(
                "the engine served {} of the warm prompt from cache (median of {}; hit at ≥ \
{}); warm TTFT {} vs cold {}",
                percent(wf),
                warm_frac.n,
                percent(cfg.hit_fraction),
                fmt_ms(warm),
                fmt_ms(cold)
            );
            (v, c, VerdictBasis::EngineCount, reason)
        }
        (None, _) => {
            let v = by_ttft(warm);
            let c = by_ttft(salted);
            let reason = format!(
                "no cached-token count from the engine ({}); by TTFT: warm {} vs cold {} (hit \
at ≤ {} of cold)",
                super::cached_tokens_hint(info.engine),
                fmt_ms(warm),
                fmt_ms(cold),
                percent(cfg.ttft_ratio)
            );
            (v, c, VerdictBasis::Ttft, reason)
        }
    };
    if control == CacheVerdict::Hit {
        warnings.push(
            "the salted control also looks like a hit: the salt did not defeat the cache, so \
this probe cannot tell a hit from noise here"
                .into(),
        );
    }
    PrefixReport {
        server: info.clone(),
        load_before,
        forced: cfg.force,
        prompt_count,
        cold_ttft_ms: cold,
        warm_ttft_ms: warm,
        salted_ttft_ms: salted,
        warm_cached_fraction: warm_frac,
        salted_cached_fraction: salted_frac,
        verdict,
        basis,
        control,
        reason,
        warnings,
        runs,
    }
}

fn fmt_ms(m: Med) -> String {
    match m.median {
        Some(v) => format!("{v:.0} ms (n={})", m.n),
        None => "-".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(kind: RunKind, ttft: f64, cached: Option<u64>) -> PrefixRun {
        PrefixRun {
            kind,
            repeat: 1,
            ttft_ms: ttft,
            decode_tps: None,
            prompt_tokens: 1000,
            server_prompt_tokens: Some(1000),
            cached_tokens: cached,
            cached_field: cached.map(|_| "timings.cache_n".to_string()),
        }
    }

    fn info() -> ServerInfo {
        ServerInfo {
            engine: Some(Engine::LlamaCpp),
            model: None,
            context: None,
            slots: None,
        }
    }

    #[test]
    fn engine_count_decides_when_present() {
        let runs = vec![
            run(RunKind::Cold, 900.0, Some(0)),
            run(RunKind::Warm, 850.0, Some(999)), // TTFT barely moved, the count says hit
            run(RunKind::Salted, 910.0, Some(0)),
        ];
        let r = summarize(
            &info(),
            None,
            &PrefixConfig::default(),
            CountBasis::Default {
                chars_per_token: 4.0,
            },
            runs,
            vec![],
        );
        assert_eq!(
            (r.verdict, r.basis, r.control),
            (
                CacheVerdict::Hit,
                VerdictBasis::EngineCount,
                CacheVerdict::Miss
            )
        );
        assert!(r.warnings.is_empty());
    }

    #[test]
    fn ttft_decides_without_a_count_and_control_hit_warns() {
        let runs = vec![
            run(RunKind::Cold, 900.0, None),
            run(RunKind::Warm, 100.0, None),
            run(RunKind::Salted, 120.0, None),
        ];
        let r = summarize(
            &info(),
            None,
            &PrefixConfig::default(),
            CountBasis::Default {
                chars_per_token: 4.0,
            },
            runs,
            vec![],
        );
        assert_eq!(
            (r.verdict, r.basis),
            (CacheVerdict::Hit, VerdictBasis::Ttft)
        );
        assert_eq!(r.control, CacheVerdict::Hit);
        assert_eq!(r.warnings.len(), 1);
        // llama.cpp is not told vLLM's flag; vLLM is.
        assert!(r.reason.contains("timings.cache_n"), "{}", r.reason);
        let vllm = ServerInfo {
            engine: Some(Engine::Vllm),
            ..info()
        };
        let r = summarize(
            &vllm,
            None,
            &PrefixConfig::default(),
            CountBasis::Default {
                chars_per_token: 4.0,
            },
            vec![
                run(RunKind::Cold, 900.0, None),
                run(RunKind::Warm, 100.0, None),
            ],
            vec![],
        );
        assert!(
            r.reason.contains("--enable-prompt-tokens-details"),
            "{}",
            r.reason
        );
        let runs = vec![
            run(RunKind::Cold, 900.0, None),
            run(RunKind::Warm, 800.0, None),
        ];
        let r = summarize(
            &info(),
            None,
            &PrefixConfig::default(),
            CountBasis::Default {
                chars_per_token: 4.0,
            },
            runs,
            vec![],
        );
        assert_eq!(r.verdict, CacheVerdict::Miss);
    }

    #[test]
    fn busy_servers_are_refused_unless_forced() {
        let busy = Load {
            running: 2.0,
            waiting: 1.0,
            source: "vLLM /metrics".into(),
        };
        let idle = Load {
            running: 0.0,
            waiting: 0.0,
            source: "x".into(),
        };
        assert!(check_idle(Some(&idle), false).unwrap().is_empty());
        let e = check_idle(Some(&busy), false).unwrap_err().to_string();
        assert!(
            e.contains("2 running, 1 waiting") && e.contains("--force"),
            "{e}"
        );
        assert_eq!(check_idle(Some(&busy), true).unwrap().len(), 1);
        assert!(check_idle(None, false).is_err());
        assert_eq!(check_idle(None, true).unwrap().len(), 1);
    }
}
