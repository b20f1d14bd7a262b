//! The envelope of one instance: never one sample. Every figure carries the number of requests
//! behind it, prompt throughput is quoted at the longest prompts (short ones are
//! overhead-dominated), decode is a distribution, acceptance a range.

use crate::ledger::{Instance, Request};
use serde::Serialize;

/// Prompts at least this fraction of the longest prompt form the "longest" band.
pub const LONGEST_BAND: f64 = 0.9;

/// Below this many tokens, even the longest prompt measures per-request overhead more than
/// prefill compute (spec 000 §4: 57 tokens at 168 t/s against 1106 at 1013 t/s).
pub const SHORT_PROMPT_TOKENS: u64 = 512;

/// Distribution of one per-request figure. Percentiles interpolate linearly between order
/// statistics (rank p·(n−1)).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dist {
    pub n: usize,
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
    pub min: f64,
    pub max: f64,
}

impl Dist {
    pub fn of(mut v: Vec<f64>) -> Option<Dist> {
        v.retain(|x| x.is_finite());
        if v.is_empty() {
            return None;
        }
        v.sort_unstable_by(f64::total_cmp);
        Some(Dist {
            n: v.len(),
            median: quantile(&v, 0.5),
            p10: quantile(&v, 0.1),
            p90: quantile(&v, 0.9),
            min: v[0],
            max: v[v.len() - 1],
        })
    }
}

fn sum_ms(v: impl Iterator<Item = f64>) -> f64 {
    (v.fold(0.0, |a, b| a + b) * 1000.0).round() / 1000.0
}

fn quantile(sorted: &[f64], p: f64) -> f64 {
    let rank = p * (sorted.len() - 1) as f64;
    let lo = rank.floor() as usize;
    let hi = rank.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
}

/// Prompt throughput over the band of longest prompts: Σ tokens / Σ seconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptAtLongest {
    pub tps: f64,
    /// Requests in the band (prompt tokens ≥ 0.9 × the longest).
    pub n: usize,
    pub prompt_tokens_min: u64,
    pub prompt_tokens_max: u64,
}

/// Speculative decoding across requests that drafted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DraftEnvelope {
    /// Requests with an acceptance rate (llama.cpp).
    pub n: usize,
    pub rate_min: Option<f64>,
    pub rate_max: Option<f64>,
    /// Σ accepted / Σ generated over those requests.
    pub rate_pooled: Option<f64>,
    /// Tokens committed per verification step (`mean len`, halogen's `commit/round`).
    pub mean_len: Option<Dist>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphsReused {
    /// Requests that printed `graphs reused`.
    pub n: usize,
    /// Of those, how many reused at least one graph.
    pub nonzero: usize,
    pub median: f64,
}

/// Evidence that the prefix cache is hit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PrefixCache {
    /// `selected slot by LCP similarity` lines: a slot was chosen for its cached prefix.
    pub lcp_selections: u64,
    /// `selected slot by LRU` lines: no cached prefix was similar enough.
    pub lru_selections: u64,
    /// Requests with cached tokens > 0 (logged, or derived from the release line).
    pub requests_with_cached_tokens: usize,
    /// Σ cached tokens over the requests where the count is known.
    pub cached_tokens: u64,
    /// Requests where the count is known (zero included).
    pub cached_tokens_known: usize,
}

/// Sums over the requests with timing lines, in the engine's units.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Totals {
    pub requests: usize,
    pub prompt_tokens: u64,
    pub prompt_ms: f64,
    pub gen_tokens: u64,
    pub gen_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Envelope {
    /// Requests with any line.
    pub requests_seen: usize,
    /// Requests whose timing lines were printed.
    pub requests_timed: usize,
    /// Median of `decode_tps` (null without samples).
    pub decode_tps_median: Option<f64>,
    /// Per-request decode rate as the engine printed it, requests with ≥ 2 generated tokens.
    pub decode_tps: Option<Dist>,
    pub prompt_tps_at_longest: Option<PromptAtLongest>,
    /// Per-request prompt rate as printed, all prompts (short ones are overhead-dominated).
    pub prompt_tps: Option<Dist>,
    /// `tg_3s` of the mid-generation lines: decode speed over 3-second windows.
    pub windowed_decode_tps: Option<Dist>,
    pub draft: Option<DraftEnvelope>,
    pub graphs_reused: Option<GraphsReused>,
    pub prefix_cache: PrefixCache,
    pub totals: Totals,
}

/// One instance with its envelope and the warnings it earns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstanceReport {
    #[serde(flatten)]
    pub instance: Instance,
    pub envelope: Envelope,
    pub warnings: Vec<String>,
}

pub(crate) fn summarise(mut inst: Instance) -> InstanceReport {
    for r in &mut inst.requests {
        r.derive_cached();
    }
    let reqs = &inst.requests;
    let timed: Vec<&Request> = reqs.iter().filter(|r| r.timed()).collect();

    let decode = Dist::of(
        timed
            .iter()
            .filter(|r| r.gen_tokens.is_some_and(|n| n >= 2))
            .filter_map(|r| r.gen_tps)
            .filter(|&t| t > 0.0)
            .collect(),
    );
    let prompts: Vec<(u64, f64)> = timed
        .iter()
        .filter_map(|r| Some((u64::from(r.prompt_tokens?), r.prompt_ms?)))
        .filter(|&(n, ms)| n > 0 && ms > 0.0)
        .collect();
    let prompt_tps = Dist::of(
        timed
            .iter()
            .filter(|r| r.prompt_tokens.is_some_and(|n| n > 0))
            .filter_map(|r| r.prompt_tps)
            .filter(|&t| t > 0.0)
            .collect(),
    );
    let at_longest = prompts.iter().map(|p| p.0).max().map(|longest| {
        let band: Vec<_> = prompts
            .iter()
            .filter(|p| p.0 as f64 >= LONGEST_BAND * longest as f64)
            .collect();
        let tokens: u64 = band.iter().map(|p| p.0).sum();
        let ms = band.iter().map(|p| p.1).fold(0.0, |a, b| a + b);
        PromptAtLongest {
            tps: tokens as f64 / ms * 1000.0,
            n: band.len(),
            prompt_tokens_min: band.iter().map(|p| p.0).min().unwrap_or(longest),
            prompt_tokens_max: longest,
        }
    });

    let drafted: Vec<_> = reqs.iter().filter_map(|r| r.draft.as_ref()).collect();
    let draft = (!drafted.is_empty()).then(|| {
        let rates: Vec<f64> = drafted.iter().filter_map(|d| d.rate).collect();
        let acc: u64 = drafted.iter().filter_map(|d| d.accepted).sum();
        let gen: u64 = drafted.iter().filter_map(|d| d.generated).sum();
        DraftEnvelope {
            n: rates.len(),
            rate_min: rates.iter().copied().reduce(f64::min),
            rate_max: rates.iter().copied().reduce(f64::max),
            rate_pooled: (gen > 0).then(|| acc as f64 / gen as f64),
            mean_len: Dist::of(drafted.iter().filter_map(|d| d.mean_len).collect()),
        }
    });

    let graphs: Vec<u64> = reqs
        .iter()
        .filter_map(|r| r.graphs_reused.map(u64::from))
        .collect();
    let graphs_reused = (!graphs.is_empty()).then(|| GraphsReused {
        n: graphs.len(),
        nonzero: graphs.iter().filter(|&&g| g > 0).count(),
        median: Dist::of(graphs.iter().map(|&g| g as f64).collect()).map_or(0.0, |d| d.median),
    });

    let cached: Vec<u64> = reqs
        .iter()
        .filter_map(|r| r.cached_tokens.map(u64::from))
        .collect();
    let prefix_cache = PrefixCache {
        lcp_selections: inst.lcp_selections,
        lru_selections: inst.lru_selections,
        requests_with_cached_tokens: cached.iter().filter(|&&c| c > 0).count(),
        cached_tokens: cached.iter().sum(),
        cached_tokens_known: cached.len(),
    };

    let totals = Totals {
        requests: timed.len(),
        prompt_tokens: timed
            .iter()
            .filter_map(|r| r.prompt_tokens.map(u64::from))
            .sum(),
        // fold from +0.0 (`sum` of no f64 is -0.0); the inputs have 2 decimals, so rounding to
        // 3 removes only binary-sum noise.
        prompt_ms: sum_ms(timed.iter().filter_map(|r| r.prompt_ms)),
        gen_tokens: timed
            .iter()
            .filter_map(|r| r.gen_tokens.map(u64::from))
            .sum(),
        gen_ms: sum_ms(timed.iter().filter_map(|r| r.gen_ms)),
    };

    let mut warnings = Vec::new();
    let seen = reqs.len();
    let cancelled = reqs.iter().filter(|r| r.cancelled).count();
    if seen > 0 && timed.is_empty() {
        let why = if inst.cancelled_tasks > 0 {
            format!(
                "{} `srv stop: cancel task` line(s): the client died mid-request (an ssh session \
                 closed without `wait`?), so the engine never printed its timings",
                inst.cancelled_tasks
            )
        } else {
            "the requests may still be running, or the log level hides print_timing (needs info, \
             llama-server -lv 3)"
                .to_string()
        };
        warnings.push(format!("{seen} request(s) seen but no timing lines: {why}"));
    } else if seen > timed.len() {
        warnings.push(format!(
            "{} of {seen} requests have no timing lines ({cancelled} cancelled; the rest were \
             still running at the end of the log or lost their lines)",
            seen - timed.len()
        ));
    }
    if let Some(p) = &at_longest {
        if p.prompt_tokens_max < SHORT_PROMPT_TOKENS {
            warnings.push(format!(
                "the longest prompt is {} tokens: prompt throughput here is overhead-dominated, \
                 not the prefill ceiling",
                p.prompt_tokens_max
            ));
        }
    }

    let n_timed = timed.len();
    let windowed = Dist::of(std::mem::take(&mut inst.windowed_tps));
    InstanceReport {
        instance: inst,
        envelope: Envelope {
            requests_seen: seen,
            requests_timed: n_timed,
            decode_tps_median: decode.as_ref().map(|d| d.median),
            decode_tps: decode,
            prompt_tps_at_longest: at_longest,
            prompt_tps,
            windowed_decode_tps: windowed,
            draft,
            graphs_reused,
            prefix_cache,
            totals,
        },
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_between_order_statistics() {
        let d = Dist::of(vec![5.0, 1.0, 4.0, 2.0, 3.0, f64::INFINITY]).unwrap();
        assert_eq!(d.n, 5);
        assert_eq!(d.median, 3.0);
        assert!((d.p10 - 1.4).abs() < 1e-12);
        assert!((d.p90 - 4.6).abs() < 1e-12);
        assert_eq!((d.min, d.max), (1.0, 5.0));
        let one = Dist::of(vec![7.0]).unwrap();
        assert_eq!((one.median, one.p10, one.p90), (7.0, 7.0, 7.0));
        assert!(Dist::of(vec![f64::NAN]).is_none());
    }
}
