//! The referee of a load generator's run: what the tool reported (its result file) set against
//! what the server counted over exactly the same time (the window headroom recorded while the
//! tool ran), and the server's own diagnosis of that window. The `headroom.check/1` document
//! (docs/json/check.md) is one typed struct, [`Check`], read back by deserializing.
//!
//! Each validity check is a [`Finding`]: `fired` (the run did not measure what it claims),
//! `clear`, or `silent` (the data it needs is not there, and the sentence says what is missing).
//! Every sentence states the measured value against a named threshold constant of this crate.

pub mod aiperf;
pub mod compare;
pub mod figures;
mod file;
pub mod guidellm;
pub mod impossible;
pub mod inference_perf;
pub mod result;
pub mod vllm_bench;

pub use aiperf::AiperfExport;
pub use figures::ClientFigures;
pub use guidellm::GuideLlmReport;
pub use impossible::{DecodeCeiling, IMPOSSIBLE_MARGIN};
pub use inference_perf::InferencePerfSummary;
pub use result::ResultError;
pub use vllm_bench::VllmBenchResult;

use diagnose::report::{Fired, Report};
use diagnose::Boundary;
use engines::{Engine, Sample};
use serde::{Deserialize, Serialize};

pub const SCHEMA: &str = "headroom.check/1";

/// How far the client's token counts may sit from the engine's, as a share of the larger, before
/// it is a finding. Both sides count the same requests, so on a clean run they agree exactly or
/// within a token or two per request (a BOS token one side adds); 3 % leaves room for that on
/// short prompts and still names a wrong tokenizer (counts off by tens of percent) or requests
/// the result leaves out.
pub const TOKEN_TOLERANCE: f64 = 0.03;
/// The share of prompt tokens the engine may serve from its prefix cache in a run that claims to
/// measure prefill. Above it, TTFT and prompt throughput are the cache's.
pub const CACHE_SHARE_MAX: f64 = 0.10;
/// "Most of the run": the share of scrapes with requests in flight in which waiting ≥ running
/// (and waiting > 0) above which the figures are the queue's.
pub const QUEUED_SHARE_MAX: f64 = 0.5;
/// Requests: waiting in the last third of the busy scrapes less the first third, from which the
/// queue grew through the run (arrivals outpaced the server).
pub const QUEUE_GROWTH_MIN: f64 = 2.0;
/// Scrapes with requests in flight the saturation check needs before it judges.
pub const MIN_BUSY_SCRAPES: usize = 3;
/// Failed requests a valid run may have.
pub const FAILED_MAX: u64 = 0;
/// Preemptions (and admission rejections) a valid run may have.
pub const PREEMPTIONS_MAX: f64 = 0.0;

/// The judgement of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// Always [`SCHEMA`].
    pub schema: String,
    pub engine: Engine,
    /// The server, without credentials.
    pub url: Option<String>,
    pub window: Window,
    /// The benchmark command headroom ran (live mode); null when judged after the fact.
    pub command: Option<Vec<String>>,
    /// What the tool reported; null without a result file.
    pub result: Option<ClientRun>,
    /// The tool's latency figures (medians); null without a result file, or where its format's
    /// latencies are not read.
    #[serde(default)]
    pub figures: Option<ClientFigures>,
    /// The decode ceiling the figures were bounded by (`--gpu` and the model); null without.
    #[serde(default)]
    pub ceiling: Option<DecodeCeiling>,
    /// What the engine counted over the window.
    pub engine_counts: EngineCounts,
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
    /// The server's own diagnosis of the window (`headroom diagnose`).
    pub diagnosis: Diagnosis,
}

/// The recorded window: from the scrape before the tool started to the one after it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Window {
    /// Unix seconds of the first and last scrape that answered.
    pub start: Option<f64>,
    pub end: Option<f64>,
    pub duration_s: f64,
    /// Scrapes that answered.
    pub scrapes: usize,
    /// Seconds the server was busy with the run: from the scrape before the first that saw work
    /// (a request running or waiting, or a token or request counter moving) to the last that
    /// saw it. The window also holds the tool's start-up and exit, which differ between tools;
    /// this span does not, to within one scrape interval at each end. Null when no scrape saw
    /// work (or in documents written before it was recorded).
    #[serde(default)]
    pub busy_s: Option<f64>,
}

/// A load generator's run, as its result file states it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientRun {
    /// The tool and the version whose format was read (`vllm bench serve 0.32`, `GuideLLM 0.8`).
    pub tool: String,
    pub file: String,
    pub duration_s: f64,
    pub completed: u64,
    pub failed: Option<u64>,
    /// Requests the tool cancelled when its constraint ended the run (GuideLLM's
    /// `incomplete`): the engine may have counted their tokens, the totals do not. Null where
    /// the tool has no such count (vllm bench serve waits for every request).
    #[serde(default)]
    pub incomplete: Option<u64>,
    /// Prompt tokens of the completed requests, by the client's tokenizer.
    pub input_tokens: u64,
    pub output_tokens: Option<u64>,
    pub tokenizer: Option<String>,
    /// Requests per second; null for all at once (`inf`) or unstated.
    pub request_rate: Option<f64>,
    pub max_concurrency: Option<u64>,
    /// Distinct error messages (only when the tool saved them).
    pub errors: Vec<String>,
}

impl ClientRun {
    /// A `vllm bench serve --save-result` file.
    pub fn from_vllm_bench(r: &VllmBenchResult, file: &str) -> ClientRun {
        ClientRun {
            tool: vllm_bench::TOOL.into(),
            file: file.to_string(),
            duration_s: r.duration,
            completed: r.completed,
            failed: r.failed,
            incomplete: None,
            input_tokens: r.total_input_tokens,
            output_tokens: r.total_output_tokens,
            tokenizer: r.tokenizer_id.clone(),
            request_rate: match r.request_rate {
                Some(vllm_bench::RequestRate::PerSecond(x)) => Some(x),
                _ => None,
            },
            max_concurrency: r.max_concurrency,
            errors: r.distinct_errors(),
        }
    }

    /// One benchmark of a GuideLLM report. Token totals are those of the successful requests,
    /// as vllm bench serve's are of the completed ones; GuideLLM's errored requests are failed.
    pub fn from_guidellm(
        report: &GuideLlmReport,
        b: &guidellm::Benchmark,
        file: &str,
    ) -> ClientRun {
        let m = &b.metrics;
        let s = &b.config.strategy;
        ClientRun {
            tool: guidellm::TOOL.into(),
            file: file.to_string(),
            duration_s: b.duration,
            completed: m.request_totals.successful,
            failed: Some(m.request_totals.errored),
            incomplete: Some(m.request_totals.incomplete),
            // Sums of whole token counts: exact in an f64 far past any run's size.
            input_tokens: m.prompt_token_count.successful.total_sum.round() as u64,
            output_tokens: Some(m.output_token_count.successful.total_sum.round() as u64),
            tokenizer: report.tokenizer().map(str::to_string),
            request_rate: s.rate,
            max_concurrency: s.max_concurrency.or(s.streams),
            errors: b.distinct_errors(),
        }
    }

    /// An AIPerf summary (`profile_export_aiperf.json`). Token totals are those of the
    /// successful requests; its failed requests are the errored ones. A warm-up phase's
    /// requests are in neither.
    pub fn from_aiperf(r: &AiperfExport, file: &str) -> ClientRun {
        let phase = r.profiling();
        ClientRun {
            tool: aiperf::TOOL.into(),
            file: file.to_string(),
            duration_s: r.benchmark_duration.map_or(0.0, |d| d.avg),
            completed: aiperf::count(r.request_count),
            failed: Some(aiperf::count(r.error_request_count)),
            incomplete: None,
            input_tokens: aiperf::count(r.total_isl),
            output_tokens: r.total_osl.map(|t| aiperf::count(Some(t))),
            tokenizer: r.tokenizer().map(str::to_string),
            request_rate: phase.and_then(|p| p.rate),
            max_concurrency: phase.and_then(|p| p.concurrency),
            errors: r.distinct_errors(),
        }
    }

    /// An inference-perf lifecycle summary. Its tokenizer, rate and concurrency are in the
    /// report folder's `config.yaml`, not in the summary: null here.
    pub fn from_inference_perf(r: &InferencePerfSummary, file: &str) -> ClientRun {
        ClientRun {
            tool: inference_perf::TOOL.into(),
            file: file.to_string(),
            duration_s: r.benchmark_time_seconds,
            completed: r.successes.count,
            failed: Some(r.failures.count),
            incomplete: None,
            input_tokens: r.input_tokens(),
            output_tokens: r.output_tokens(),
            tokenizer: None,
            request_rate: None,
            max_concurrency: None,
            errors: r.distinct_errors(),
        }
    }
}

/// Counter increases over the window; null where the engine does not export the counter.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineCounts {
    /// Prompt tokens the engine was sent: its prompt counter, plus its cached-token counter
    /// where the prompt counter leaves cached tokens out (llama.cpp).
    pub prompt_tokens: Option<f64>,
    /// Prompt tokens served from its prefix cache.
    pub cached_prompt_tokens: Option<f64>,
    /// Prefix-cache lookups and hits, in tokens (vLLM).
    pub prefix_queries: Option<f64>,
    pub prefix_hits: Option<f64>,
    /// Generated tokens of the requests that finished (the counter credited at a request's end
    /// where the engine has one, else its generation counter).
    pub generation_tokens: Option<f64>,
    pub requests_finished: Option<f64>,
    pub preemptions: Option<f64>,
    pub admission_rejections: Option<f64>,
}

/// The run's standing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// At least one check fired: the figures are not what the run claims.
    Invalid,
    /// Every check judged and none fired.
    Valid,
    /// None fired, but some could not judge (see their sentences).
    PartlyJudged,
}

/// What a validity check looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    PromptTokens,
    OutputTokens,
    CacheContamination,
    Saturation,
    FailedRequests,
    Preemptions,
    ImpossibleFigures,
}

impl CheckKind {
    pub fn title(self) -> &'static str {
        match self {
            CheckKind::PromptTokens => "prompt tokens",
            CheckKind::OutputTokens => "output tokens",
            CheckKind::CacheContamination => "cache contamination",
            CheckKind::Saturation => "saturation",
            CheckKind::FailedRequests => "failed requests",
            CheckKind::Preemptions => "preemptions",
            CheckKind::ImpossibleFigures => "impossible figures",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Fired,
    Clear,
    Silent,
}

/// One validity check's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    pub check: CheckKind,
    pub outcome: Outcome,
    /// One true sentence: the measured value against the threshold, or what is missing.
    pub evidence: String,
    pub measured: Option<f64>,
    pub threshold: Option<f64>,
    /// The constant the threshold is (`TOKEN_TOLERANCE` ...).
    pub threshold_name: Option<String>,
}

/// The server's diagnosis of the run's window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Diagnosis {
    pub primary: Option<Fired>,
    pub boundary: Option<Boundary>,
    /// Under 80 % of the scrapes answered: not a verdict.
    pub incomplete: bool,
}

/// Judges a run: `samples` are the window's scrapes (taken over exactly the run), `report` the
/// diagnosis of the same window, `result` what the tool reported.
pub fn judge(
    samples: &[Sample],
    report: &Report,
    result: Option<ClientRun>,
    command: Option<Vec<String>>,
) -> Check {
    judge_with(samples, report, result, command, Bounds::default())
}

/// What [`judge_with`] adds to [`judge`]: the client's latency figures and the hardware's
/// decode ceiling, for the impossible-figures check.
#[derive(Debug, Clone, Default)]
pub struct Bounds {
    pub figures: Option<ClientFigures>,
    pub ceiling: Option<DecodeCeiling>,
}

/// [`judge`], with the figures and ceiling the impossible-figures check reads (it is silent,
/// saying what it needs, without them).
pub fn judge_with(
    samples: &[Sample],
    report: &Report,
    result: Option<ClientRun>,
    command: Option<Vec<String>>,
    bounds: Bounds,
) -> Check {
    let engine = report.engine;
    let (counts, mut findings) = findings(samples, engine, result.as_ref());
    findings.push(impossible::impossible(
        samples,
        result.as_ref(),
        bounds.figures.as_ref(),
        bounds.ceiling.as_ref(),
    ));
    let verdict = if findings.iter().any(|f| f.outcome == Outcome::Fired) {
        Verdict::Invalid
    } else if findings.iter().any(|f| f.outcome == Outcome::Silent) {
        Verdict::PartlyJudged
    } else {
        Verdict::Valid
    };
    let (start, end) = (samples.first().map(|s| s.t), samples.last().map(|s| s.t));
    Check {
        schema: SCHEMA.into(),
        engine,
        url: report.shape.url.clone(),
        window: Window {
            start,
            end,
            duration_s: match (start, end) {
                (Some(a), Some(b)) => (b - a).max(0.0),
                _ => 0.0,
            },
            scrapes: samples.len(),
            busy_s: busy_span(samples),
        },
        command,
        result,
        figures: bounds.figures,
        ceiling: bounds.ceiling,
        engine_counts: counts,
        verdict,
        findings,
        diagnosis: Diagnosis {
            primary: report.primary.clone(),
            boundary: report.boundary.clone(),
            incomplete: report.scrapes.incomplete,
        },
    }
}

/// The engine's counts over the window and the validity checks, in the document's order.
pub fn findings(
    samples: &[Sample],
    engine: Engine,
    result: Option<&ClientRun>,
) -> (EngineCounts, Vec<Finding>) {
    let counts = counts(samples, engine);
    let mut findings = tokens(result, &counts, engine);
    findings.push(cache(&counts, engine));
    findings.push(saturation(samples));
    findings.push(failed(result, &counts));
    findings.push(preemptions(&counts, engine));
    (counts, findings)
}

/// Increase of a counter over the samples: the sum of non-negative steps (a restart's reset
/// does not make it negative).
fn increase(samples: &[Sample], f: impl Fn(&Sample) -> Option<f64>) -> Option<f64> {
    let vals: Vec<f64> = samples.iter().filter_map(f).collect();
    if vals.len() < 2 {
        return None;
    }
    Some(vals.windows(2).map(|w| (w[1] - w[0]).max(0.0)).sum())
}

/// [`Window::busy_s`]: a scrape saw work when a request was running or waiting at it, or when a
/// token or request counter moved since the scrape before (llama.cpp credits its counters at a
/// request's end, and its gauges may be missing).
fn busy_span(samples: &[Sample]) -> Option<f64> {
    let moved = |a: &Sample, b: &Sample, f: fn(&Sample) -> Option<f64>| {
        f(a).zip(f(b)).is_some_and(|(x, y)| y > x)
    };
    let busy = |i: usize| {
        let s = &samples[i];
        let queued = s.running.is_some_and(|r| r > 0.0) || s.waiting.is_some_and(|w| w > 0.0);
        queued
            || (i > 0 && {
                let p = &samples[i - 1];
                moved(p, s, |s| s.prompt_tokens)
                    || moved(p, s, |s| s.generation_tokens)
                    || moved(p, s, |s| s.generation_tokens_credited)
                    || moved(p, s, |s| s.requests_finished)
            })
    };
    let first = (0..samples.len()).find(|&i| busy(i))?;
    let last = (0..samples.len()).rev().find(|&i| busy(i))?;
    Some((samples[last].t - samples[first.saturating_sub(1)].t).max(0.0))
}

fn counts(samples: &[Sample], engine: Engine) -> EngineCounts {
    let prompt = increase(samples, |s| s.prompt_tokens);
    let cached = increase(samples, |s| s.cached_prompt_tokens);
    EngineCounts {
        prompt_tokens: if engine.def().prompt_tokens_exclude_cached {
            prompt.zip(cached).map(|(p, c)| p + c)
        } else {
            prompt
        },
        cached_prompt_tokens: cached,
        prefix_queries: increase(samples, |s| s.prefix_queries),
        prefix_hits: increase(samples, |s| s.prefix_hits),
        generation_tokens: increase(samples, |s| s.generation_tokens_credited)
            .or_else(|| increase(samples, |s| s.generation_tokens)),
        requests_finished: increase(samples, |s| s.requests_finished),
        preemptions: increase(samples, |s| s.preemptions),
        admission_rejections: increase(samples, |s| s.admission_rejections),
    }
}

fn silent(check: CheckKind, evidence: String) -> Finding {
    Finding {
        check,
        outcome: Outcome::Silent,
        evidence,
        measured: None,
        threshold: None,
        threshold_name: None,
    }
}

fn judged(
    check: CheckKind,
    fired: bool,
    evidence: String,
    measured: f64,
    threshold: (f64, &str),
) -> Finding {
    Finding {
        check,
        outcome: if fired {
            Outcome::Fired
        } else {
            Outcome::Clear
        },
        evidence,
        measured: Some(measured),
        threshold: Some(threshold.0),
        threshold_name: Some(threshold.1.into()),
    }
}

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

fn tokens(result: Option<&ClientRun>, counts: &EngineCounts, engine: Engine) -> Vec<Finding> {
    let name = engine.name();
    let Some(run) = result else {
        return [CheckKind::PromptTokens, CheckKind::OutputTokens]
            .into_iter()
            .map(|k| {
                silent(
                    k,
                    "no result file (--result) to set the client's counts against".into(),
                )
            })
            .collect();
    };
    // Requests outside the result (a ready check, warm-ups, another client) are the common
    // reason the engine counts more; said when the engine's own request count shows them.
    let extra = counts.requests_finished.and_then(|f| {
        let client = run.completed + run.failed.unwrap_or(0) + run.incomplete.unwrap_or(0);
        (f > client as f64).then(|| {
            format!(
                "; the engine finished {f:.0} requests, the result counts {client}: requests the \
                 result leaves out (vllm bench serve's ready check and --num-warmups, GuideLLM's \
                 warm-up and cool-down, AIPerf's --warmup-request-count, or another client) bring tokens the client did not count"
            )
        })
    });
    let prompt_missing = if engine.def().prompt_tokens_exclude_cached {
        format!(
            "{name}'s prompt counter leaves out the tokens it served from its cache, and this \
             build exports no cached-token counter, so the prompt tokens it was sent are unknown"
        )
    } else {
        format!("{name} exports no prompt-token counter")
    };
    let prompt_note = match (
        engine.def().prompt_tokens_exclude_cached,
        counts.cached_prompt_tokens,
    ) {
        (true, Some(c)) => format!(" (computed plus {c:.0} served from its cache)"),
        _ => String::new(),
    };
    let mut out = Vec::new();
    for (kind, client, engine_count, missing) in [
        (
            CheckKind::PromptTokens,
            Some(run.input_tokens),
            counts.prompt_tokens,
            prompt_missing,
        ),
        (
            CheckKind::OutputTokens,
            run.output_tokens,
            counts.generation_tokens,
            format!("{name} exports no generated-token counter"),
        ),
    ] {
        let what = kind.title();
        let Some(client) = client else {
            out.push(silent(kind, format!("the result file states no {what}")));
            continue;
        };
        let Some(server) = engine_count else {
            out.push(silent(kind, missing));
            continue;
        };
        let client = client as f64;
        let larger = client.max(server);
        let off = if larger > 0.0 {
            (server - client).abs() / larger
        } else {
            0.0
        };
        let fired = off > TOKEN_TOLERANCE;
        let note = if kind == CheckKind::PromptTokens {
            prompt_note.as_str()
        } else {
            ""
        };
        let side = if server > client {
            "the engine's count is higher"
        } else if client > server {
            "the client's count is higher"
        } else {
            "the same count"
        };
        let evidence = format!(
            "the engine counted {server:.0} {what}{note}, the client {client:.0}: {side}, off by \
             {} of the larger, {} TOKEN_TOLERANCE {}{}",
            pct(off),
            if fired { "beyond" } else { "within" },
            pct(TOKEN_TOLERANCE),
            if fired {
                let cause = if server > client {
                    match &extra {
                        Some(e) => e.clone(),
                        None if kind == CheckKind::PromptTokens && run.tool == aiperf::TOOL => {
                            "; AIPerf counts the prompt's text with its tokenizer, and a chat \
                             template the server wraps around it (--endpoint-type chat) is in \
                             the engine's count alone: --use-server-token-count counts the \
                             server's `usage` instead"
                                .into()
                        }
                        None => String::new(),
                    }
                } else if kind == CheckKind::PromptTokens {
                    format!(
                        "; the client counts with its own tokenizer ({}): one that is not the \
                         server's miscounts every prompt",
                        run.tokenizer.as_deref().unwrap_or("unstated")
                    )
                } else {
                    String::new()
                };
                cause
            } else {
                String::new()
            }
        );
        out.push(judged(
            kind,
            fired,
            evidence,
            off,
            (TOKEN_TOLERANCE, "TOKEN_TOLERANCE"),
        ));
    }
    out
}

fn cache(counts: &EngineCounts, engine: Engine) -> Finding {
    let kind = CheckKind::CacheContamination;
    let share = match (counts.prefix_queries, counts.prefix_hits) {
        (Some(q), Some(h)) if q > 0.0 => Some((h, q, "prefix-cache lookups")),
        _ => match (counts.cached_prompt_tokens, counts.prompt_tokens) {
            (Some(c), Some(p)) if p > 0.0 => Some((c, p, "prompt tokens it was sent")),
            _ => None,
        },
    };
    let Some((hit, of, what)) = share else {
        let why = if counts.prefix_queries.is_some() || counts.prompt_tokens.is_some() {
            "no prompt tokens reached the engine in the window".to_string()
        } else {
            format!(
                "{} exports no prefix-cache counter (hits and lookups, or cached prompt tokens)",
                engine.name()
            )
        };
        return silent(kind, why);
    };
    let s = hit / of;
    let fired = s > CACHE_SHARE_MAX;
    let evidence = format!(
        "{} of the {what} ({hit:.0} of {of:.0} tokens) were served from the engine's prefix \
         cache, {} CACHE_SHARE_MAX {}{}",
        pct(s),
        if fired { "above" } else { "not above" },
        pct(CACHE_SHARE_MAX),
        if fired {
            ": TTFT and prompt throughput measure cache hits, not prefill (prompts an earlier \
             run, or an earlier request of this one, had sent; a fixed --seed repeats them)"
        } else {
            ""
        }
    );
    judged(
        kind,
        fired,
        evidence,
        s,
        (CACHE_SHARE_MAX, "CACHE_SHARE_MAX"),
    )
}

fn saturation(samples: &[Sample]) -> Finding {
    let kind = CheckKind::Saturation;
    if !samples
        .iter()
        .any(|s| s.waiting.is_some() && s.running.is_some())
    {
        return silent(
            kind,
            "the engine exports no running and waiting gauges".into(),
        );
    }
    let busy: Vec<(f64, f64)> = samples
        .iter()
        .filter_map(|s| s.running.zip(s.waiting))
        .filter(|(r, w)| r + w > 0.0)
        .collect();
    if busy.len() < MIN_BUSY_SCRAPES {
        return silent(
            kind,
            format!(
                "only {} scrape(s) saw requests in flight, under the MIN_BUSY_SCRAPES {} it \
                 judges on (a shorter --interval, or a longer run)",
                busy.len(),
                MIN_BUSY_SCRAPES
            ),
        );
    }
    let queued = busy.iter().filter(|(r, w)| w >= r && *w > 0.0).count();
    let share = queued as f64 / busy.len() as f64;
    let third = (busy.len() / 3).max(1);
    let mean = |xs: &[(f64, f64)]| xs.iter().map(|x| x.1).sum::<f64>() / xs.len() as f64;
    let (first, last) = (mean(&busy[..third]), mean(&busy[busy.len() - third..]));
    let growth = last - first;
    let (by_share, by_growth) = (share > QUEUED_SHARE_MAX, growth >= QUEUE_GROWTH_MIN);
    let evidence = format!(
        "waiting ≥ running in {queued} of the {} scrapes with requests in flight ({}), {} \
         QUEUED_SHARE_MAX {}; waiting went from {first:.1} to {last:.1} (first and last third), \
         a growth {} QUEUE_GROWTH_MIN {QUEUE_GROWTH_MIN}{}",
        busy.len(),
        pct(share),
        if by_share { "above" } else { "not above" },
        pct(QUEUED_SHARE_MAX),
        if by_growth { "at or above" } else { "under" },
        if by_share || by_growth {
            ": the figures are the queue's, not the server's (latencies include the wait; a \
             lower --request-rate or a --max-concurrency within the server's slots measures the \
             server)"
        } else {
            ""
        }
    );
    judged(
        kind,
        by_share || by_growth,
        evidence,
        share,
        (QUEUED_SHARE_MAX, "QUEUED_SHARE_MAX"),
    )
}

fn failed(result: Option<&ClientRun>, counts: &EngineCounts) -> Finding {
    let kind = CheckKind::FailedRequests;
    let Some(run) = result else {
        return silent(
            kind,
            "no result file (--result) to read failed requests from".into(),
        );
    };
    let Some(failed) = run.failed else {
        return silent(kind, "the result file states no failed requests".into());
    };
    let total = run.completed + failed;
    let rejected = counts
        .admission_rejections
        .filter(|r| *r > 0.0)
        .map(|r| format!("; the engine refused {r:.0} at admission"))
        .unwrap_or_default();
    let first = run
        .errors
        .first()
        .map(|e| {
            let line = e.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or(e);
            let short: String = line.chars().take(160).collect();
            format!("; first error: {}", short.trim())
        })
        .unwrap_or_default();
    let fired = failed > FAILED_MAX;
    let evidence = format!(
        "{failed} of {total} requests failed (the client's count), {} FAILED_MAX {FAILED_MAX}{}{rejected}{first}",
        if fired { "above" } else { "not above" },
        if fired {
            format!(": the figures cover only the {} that succeeded", run.completed)
        } else {
            String::new()
        }
    );
    judged(
        kind,
        fired,
        evidence,
        failed as f64,
        (FAILED_MAX as f64, "FAILED_MAX"),
    )
}

fn preemptions(counts: &EngineCounts, engine: Engine) -> Finding {
    let kind = CheckKind::Preemptions;
    let Some(p) = counts.preemptions else {
        return silent(
            kind,
            format!("{} exports no preemption counter", engine.name()),
        );
    };
    let fired = p > PREEMPTIONS_MAX;
    let evidence = format!(
        "the engine preempted {p:.0} request(s) during the run, {} PREEMPTIONS_MAX \
         {PREEMPTIONS_MAX}{}",
        if fired { "above" } else { "not above" },
        if fired {
            ": preempted requests are recomputed or swapped, so their latency is the KV pool's"
        } else {
            ""
        }
    );
    judged(
        kind,
        fired,
        evidence,
        p,
        (PREEMPTIONS_MAX, "PREEMPTIONS_MAX"),
    )
}

#[cfg(test)]
mod tests;
