//! `census --url`: one endpoint's cumulative counters, one scrape. The step ledger comes from
//! the counters' totals since boot; what needs a time series (decode by prefill, the lags, the
//! verdict, a restart inside the window) is named as unavailable, never guessed.

use crate::ledger::{self, Counters};
use crate::names::{self, *};
use crate::{CensusDoc, CensusError, Prefixes, Source, Totals, SCHEMA};
use engines::prom::Exposition;
use std::time::Duration;

/// What a single scrape cannot give, whatever the endpoint.
pub const CANNOT: [&str; 3] = [
    "decode bucketed by prefill, TTFT by prefill, the lag-0 and 2–14 min correlations and the verdict: they need a time series; point --prometheus at a store that scrapes this endpoint",
    "whether the totals are one shape: counters since boot mix every load the server has seen, and one scrape cannot see a restart or a build change before it",
    "rates: one scrape has totals, not time (two scrapes or a store give rates)",
];

/// Sum of every sample printed as `name` (all label splits).
fn total(e: &Exposition, name: &str) -> Option<f64> {
    e.series(name)
        .map(|s| s.value)
        .fold(None, |a, x| Some(a.unwrap_or(0.0) + x))
}

/// The census of one exposition scraped at `t` (unix seconds).
pub fn from_exposition(url: &str, text: &str, t: f64) -> Result<CensusDoc, CensusError> {
    let e = engines::prom::parse(text).map_err(|err| CensusError::Exposition {
        url: url.to_string(),
        msg: err.to_string(),
    })?;
    // The cadence prefix: the one whose ledger is complete.
    let mut prefixes: Vec<&str> = e
        .samples()
        .filter_map(|s| names::cadence(&s.name))
        .filter(|c| c.1 == STEPS)
        .map(|c| c.0)
        .collect();
    prefixes.sort();
    prefixes.dedup();
    let mut unavailable: Vec<String> = CANNOT.iter().map(|s| s.to_string()).collect();
    let mut notes = Vec::new();
    let ledger_prefix = prefixes.into_iter().find(|p| {
        LEDGER
            .iter()
            .all(|s| total(&e, &format!("{p}:{s}")).is_some())
    });
    let ledger = ledger_prefix.map(|p| {
        let g = |s: &str| total(&e, &format!("{p}:{s}")).unwrap_or(0.0);
        ledger::split(&Counters {
            steps: g(STEPS),
            steps_decode: g(STEPS_DECODE),
            step_seconds: g(STEP_SECONDS),
            step_seconds_decode: g(STEP_SECONDS_DECODE),
        })
    });
    match (&ledger, ledger_prefix) {
        (Some(l), Some(p)) => {
            notes.push(format!(
                "step ledger from {p}:{STEPS} and its three siblings, cumulative since boot"
            ));
            if let (Some(m), Some(c)) = (l.mean_step_ms, l.chunk_step_ms) {
                notes.push(format!(
                    "the mean step ({m:.1} ms) is not the chunk step ({c:.1} ms): the ledger is split by phase"
                ));
            }
        }
        _ => unavailable.push(format!(
            "the step ledger: no *:{STEPS}, *:{STEPS_DECODE}, *:{STEP_SECONDS}, *:{STEP_SECONDS_DECODE} in this scrape ({})",
            match engines::detect_engine(&e) {
                Some(x) => format!("stock {} exports none of them", x.name()),
                None => "no engine series either".into(),
            }
        )),
    }
    // The engine's own series, through its adapter (names and how its splits combine).
    let sample = engines::to_sample(&e, t).ok();
    let engine = sample.as_ref().map(|s| s.engine);
    let plan = Plan::resolve(engine, &|n| total(&e, n).is_some());
    let field = |f: fn(&engines::Sample) -> Option<f64>| sample.as_ref().and_then(f);
    let preemptions = field(|s| s.preemptions);
    if preemptions.is_none() {
        let depth = e
            .samples()
            .find(|s| names::cadence(&s.name).is_some_and(|c| c.1 == PREEMPTED_DEPTH))
            .map(|s| {
                format!(
                    " ({} is there, but it is the instant depth, not a count)",
                    s.name
                )
            })
            .unwrap_or_default();
        unavailable.push(format!(
            "preemptions: {}{depth}",
            plan.lacks(PREEMPTIONS, "preemption counter")
        ));
    }
    if plan.ttft_bucket.is_none() && engine.is_some() {
        unavailable.push(format!("TTFT: {}", plan.lacks(TTFT, "TTFT histogram")));
    }
    let (count, sum) = match &plan.iterations {
        Some((c, s)) => (total(&e, c), total(&e, s)),
        None => (None, None),
    };
    // llama.cpp: the tokens of the requests that ended (the note below says so).
    let generation = field(|s| s.generation_tokens_credited.or(s.generation_tokens));
    let prompt = field(|s| s.prompt_tokens);
    let calls = field(|s| s.decode_calls);
    if let Some(c) = &plan.decode_calls {
        notes.push(format!(
            "{} counts llama_decode calls (the steps) but neither their time nor their phase: tokens per decode call are (prompt + generated tokens) over it; llama.cpp adds a request's generated tokens when it ends, so requests still running are in the calls and not yet in the tokens",
            c.metric
        ));
    }
    let start = total(&e, "process_start_time_seconds");
    Ok(CensusDoc {
        schema: SCHEMA.into(),
        engine,
        source: Source {
            kind: "url".into(),
            url: url.to_string(),
            selector: None,
            instance: None,
            queries: None,
        },
        window: None,
        prefixes: Prefixes {
            latency: engine.map(|e| names::prefix(e).to_string()),
            cadence: ledger_prefix.map(|p| format!("{p}:")),
        },
        rates_from: None,
        segments: Vec::new(),
        ledger,
        buckets: Vec::new(),
        lags: None,
        verdict: None,
        totals: Totals {
            generation_tokens: generation,
            prompt_tokens: prompt,
            preemptions,
            iteration_steps: count,
            tokens_per_step: match (count, sum) {
                (Some(c), Some(s)) if c > 0.0 => Some(s / c),
                _ => None,
            },
            decode_calls: calls,
            tokens_per_decode_call: match (calls, prompt, generation) {
                (Some(c), Some(p), Some(g)) if c > 0.0 => Some((p + g) / c),
                _ => None,
            },
            seconds: start.map(|s| t - s).filter(|s| *s > 0.0),
        },
        unavailable,
        notes,
    })
}

/// Scrapes `url`'s /metrics once and censuses the totals.
pub async fn census(url: &str, timeout: Duration) -> Result<CensusDoc, CensusError> {
    let scraper = engines::scrape::Scraper::new(url, timeout)?;
    let raw = scraper.fetch_metrics().await?;
    from_exposition(&scraper.url("/metrics"), &raw.body, raw.t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_from_totals_under_another_prefix() {
        // A live pair as a vLLM fork exports it: cadence under radiance:, latency under vllm:.
        let text = "\
# TYPE radiance:engine_steps_total counter
radiance:engine_steps_total 100000
# TYPE radiance:engine_steps_decode_total counter
radiance:engine_steps_decode_total 95300
# TYPE radiance:engine_step_seconds_total counter
radiance:engine_step_seconds_total 2257.35
# TYPE radiance:engine_step_seconds_decode_total counter
radiance:engine_step_seconds_decode_total 1477.15
# TYPE radiance:num_requests_preempted gauge
radiance:num_requests_preempted 2
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine=\"0\"} 500
vllm:generation_tokens_total{engine=\"1\"} 700
";
        let d = from_exposition("http://x/metrics", text, 0.0).unwrap();
        let l = d.ledger.unwrap();
        assert!((l.decode_step_ms.unwrap() - 15.5).abs() < 1e-6);
        assert!((l.chunk_step_ms.unwrap() - 166.0).abs() < 1e-6);
        assert_eq!(d.prefixes.cadence.as_deref(), Some("radiance:"));
        assert_eq!(d.prefixes.latency.as_deref(), Some("vllm:"));
        assert_eq!(d.totals.generation_tokens, Some(1200.0));
        // The depth gauge is never read as the preemption count.
        assert_eq!(d.totals.preemptions, None);
        assert!(d
            .unavailable
            .iter()
            .any(|u| u.contains("radiance:num_requests_preempted") && u.contains("instant depth")));
        assert!(d.unavailable.iter().any(|u| u.contains("time series")));
    }

    #[test]
    fn stock_vllm_says_what_it_cannot_compute() {
        let text = "\
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total 3
# TYPE vllm:iteration_tokens_total histogram
vllm:iteration_tokens_total_bucket{le=\"1.0\"} 10
vllm:iteration_tokens_total_bucket{le=\"+Inf\"} 40
vllm:iteration_tokens_total_count 40
vllm:iteration_tokens_total_sum 2000
";
        let d = from_exposition("u", text, 0.0).unwrap();
        assert_eq!(d.ledger, None);
        assert!(d.unavailable.iter().any(|u| u.contains("step ledger")));
        assert_eq!(d.totals.preemptions, Some(3.0));
        assert_eq!(d.totals.iteration_steps, Some(40.0));
        assert_eq!(d.totals.tokens_per_step, Some(50.0));
    }

    /// The real llama-server's scrape (its first instance in the recorded capture): totals from
    /// its adapter, steps from its llama_decode calls, and what it lacks said in its own terms.
    #[test]
    fn a_real_llama_server_scrape() {
        let text = crate::names::tests::LLAMA_SERVER;
        let first = &text[..text.find("# instance 2").unwrap()];
        let d = from_exposition("http://127.0.0.1:8080/metrics", first, 0.0).unwrap();
        assert_eq!(d.engine, Some(engines::Engine::LlamaCpp));
        assert_eq!(d.prefixes.latency.as_deref(), Some("llamacpp:"));
        assert_eq!(
            (d.totals.prompt_tokens, d.totals.generation_tokens),
            (Some(136.0), Some(240.0))
        );
        assert_eq!(d.totals.decode_calls, Some(217.0));
        // (136 + 240) / 217.
        let k = d.totals.tokens_per_decode_call.unwrap();
        assert!((k - 376.0 / 217.0).abs() < 1e-12, "{k}");
        assert_eq!(
            (d.totals.iteration_steps, d.totals.preemptions),
            (None, None)
        );
        for want in [
            "stock llama.cpp exports none",
            "llama.cpp exports no preemption counter",
            "llama.cpp exports no TTFT histogram",
        ] {
            assert!(
                d.unavailable.iter().any(|u| u.contains(want)),
                "{want}: {:?}",
                d.unavailable
            );
        }
        let json = serde_json::to_string(&d).unwrap();
        assert!(!json.to_lowercase().contains("vllm"), "{json}");
    }

    #[test]
    fn garbage_is_an_error_naming_the_url() {
        let e = from_exposition("http://h/metrics", "vllm:x{ 1\n", 0.0).unwrap_err();
        assert!(e.to_string().contains("http://h/metrics"), "{e}");
    }
}
