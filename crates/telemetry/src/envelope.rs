//! The envelope of one instance: never one sample. Every figure carries the number of requests
//! behind it, prompt throughput is quoted at the longest prompts (short ones are
//! overhead-dominated), decode is a distribution, acceptance a range.

pub use crate::dist::Dist;
use crate::record::{Instance, Request};
use serde::{Deserialize, Serialize};

/// Prompts at least this fraction of the longest prompt form the "longest" band.
pub const LONGEST_BAND: f64 = 0.9;

/// Below this many tokens, even the longest prompt measures per-request overhead more than
/// prefill compute (57 tokens at 168 t/s against 1106 at 1013 t/s).
pub const SHORT_PROMPT_TOKENS: u64 = 512;

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Prompt throughput over the band of longest prompts: Σ tokens / Σ seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptAtLongest {
    pub tps: f64,
    /// Requests in the band (prompt tokens ≥ 0.9 × the longest).
    pub n: usize,
    pub prompt_tokens_min: u64,
    pub prompt_tokens_max: u64,
}

/// Speculative decoding across requests that drafted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphsReused {
    /// Requests that printed `graphs reused`.
    pub n: usize,
    /// Of those, how many reused at least one graph.
    pub nonzero: usize,
    pub median: f64,
}

/// Evidence that the prefix cache is hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Totals {
    pub requests: usize,
    pub prompt_tokens: u64,
    pub prompt_ms: f64,
    pub gen_tokens: u64,
    pub gen_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InstanceReport {
    #[serde(flatten)]
    pub instance: Instance,
    pub envelope: Envelope,
    /// vLLM's periodic stats lines, summarised per engine (empty for other engines' logs).
    #[serde(default)]
    pub vllm_stats: Vec<crate::vllm::VllmStats>,
    pub warnings: Vec<String>,
}

/// What an instance's envelope needs from its requests, folded one request at a time in the
/// order the requests began. The same fold serves both modes: [`summarise`] feeds it the stored
/// requests, and a miner that keeps no requests feeds it each request once it is final (the
/// float sums then add in the same order, so the figures are bit-identical).
#[derive(Debug, Clone, Default)]
pub(crate) struct EnvelopeAcc {
    seen: usize,
    cancelled: usize,
    decode: Vec<f64>,
    prompt_rates: Vec<f64>,
    /// (prompt tokens, prompt ms) of every timed prompt, in request order (the band sum is
    /// taken over them once the longest is known).
    prompts: Vec<(u64, f64)>,
    graphs: Vec<f64>,
    graphs_nonzero: usize,
    cached_known: usize,
    cached_nonzero: usize,
    cached_sum: u64,
    rates: Vec<f64>,
    mean_lens: Vec<f64>,
    drafted: usize,
    accepted: u64,
    generated: u64,
    totals: Totals,
}

impl Default for Totals {
    fn default() -> Self {
        Totals {
            requests: 0,
            prompt_tokens: 0,
            prompt_ms: 0.0,
            gen_tokens: 0,
            gen_ms: 0.0,
        }
    }
}

impl EnvelopeAcc {
    /// Room for `n` more requests up front: growing by doubling would copy (and touch fresh
    /// pages for) each vector several times; untouched capacity costs nothing.
    fn reserve(&mut self, n: usize) {
        self.decode.reserve(n);
        self.prompt_rates.reserve(n);
        self.prompts.reserve(n);
        self.graphs.reserve(n);
    }

    /// Folds one request that will receive no more lines (its cached count is derived here).
    pub(crate) fn add(&mut self, r: &mut Request) {
        r.derive_cached();
        self.seen += 1;
        self.cancelled += usize::from(r.cancelled);
        if let Some(d) = &r.draft {
            self.drafted += 1;
            self.rates.extend(d.rate);
            self.mean_lens.extend(d.mean_len);
            self.accepted += d.accepted.unwrap_or(0);
            self.generated += d.generated.unwrap_or(0);
        }
        if let Some(g) = r.graphs_reused {
            self.graphs.push(f64::from(g));
            self.graphs_nonzero += usize::from(g > 0);
        }
        if let Some(c) = r.cached_tokens {
            self.cached_known += 1;
            self.cached_nonzero += usize::from(c > 0);
            self.cached_sum += u64::from(c);
        }
        if !r.timed() {
            return;
        }
        let totals = &mut self.totals;
        totals.requests += 1;
        totals.prompt_tokens += r.prompt_tokens.map_or(0, u64::from);
        totals.gen_tokens += r.gen_tokens.map_or(0, u64::from);
        totals.prompt_ms += r.prompt_ms.unwrap_or(0.0);
        totals.gen_ms += r.gen_ms.unwrap_or(0.0);
        if let (Some(n), Some(t)) = (r.gen_tokens, r.gen_tps) {
            if n >= 2 && t > 0.0 {
                self.decode.push(t);
            }
        }
        if let Some(n) = r.prompt_tokens.filter(|&n| n > 0) {
            if let Some(t) = r.prompt_tps.filter(|&t| t > 0.0) {
                self.prompt_rates.push(t);
            }
            if let Some(ms) = r.prompt_ms.filter(|&ms| ms > 0.0) {
                self.prompts.push((u64::from(n), ms));
            }
        }
    }
}

/// Below this many values in all, [`dists`] stays on the calling thread: a thread costs more
/// than the selection it would take over.
const PARALLEL_DISTS_MIN: usize = 1 << 16;

/// [`Dist::of`] each of `vs`, on a thread each when they are large (the result is the same).
fn dists<const N: usize>(vs: [Vec<f64>; N]) -> [Option<Dist>; N] {
    if vs.iter().map(Vec::len).sum::<usize>() < PARALLEL_DISTS_MIN {
        return vs.map(Dist::of);
    }
    std::thread::scope(|s| {
        let mut vs = vs.into_iter();
        let first = vs.next();
        let others: Vec<_> = vs.map(|v| s.spawn(move || Dist::of(v))).collect();
        let first = first.and_then(Dist::of);
        let mut out = std::iter::once(first).chain(
            others
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))),
        );
        std::array::from_fn(|_| out.next().flatten())
    })
}

/// The envelope of `inst`: `acc` holds the requests already folded (none when the miner kept
/// them all), `inst.requests` the ones after them, which are folded here in order.
pub(crate) fn summarise(mut inst: Instance, mut acc: EnvelopeAcc) -> InstanceReport {
    // One pass over the requests (a million of them stream from memory once, not ten times).
    acc.reserve(inst.requests.len());
    for r in &mut inst.requests {
        acc.add(r);
    }
    let EnvelopeAcc {
        seen,
        cancelled,
        decode,
        prompt_rates,
        prompts,
        graphs,
        graphs_nonzero,
        cached_known,
        cached_nonzero,
        cached_sum,
        rates,
        mean_lens,
        drafted,
        accepted,
        generated,
        mut totals,
    } = acc;
    // The inputs have 2 decimals, so rounding to 3 removes only binary-sum noise.
    totals.prompt_ms = round3(totals.prompt_ms);
    totals.gen_ms = round3(totals.gen_ms);

    // The four large distributions (a value per request each, and the windowed decode rates)
    // are selected on four threads: after the last line this is all that is left, and one
    // core would do it alone.
    let graphs_n = graphs.len();
    let windowed = std::mem::take(&mut inst.windowed_tps);
    let [decode, prompt_tps, graphs_dist, windowed] =
        dists([decode, prompt_rates, graphs, windowed]);
    let at_longest = prompts.iter().map(|p| p.0).max().map(|longest| {
        let band = prompts
            .iter()
            .filter(|p| p.0 as f64 >= LONGEST_BAND * longest as f64);
        let (mut n, mut tokens, mut ms, mut min) = (0, 0u64, 0.0, longest);
        for p in band {
            n += 1;
            tokens += p.0;
            ms += p.1;
            min = min.min(p.0);
        }
        PromptAtLongest {
            tps: tokens as f64 / ms * 1000.0,
            n,
            prompt_tokens_min: min,
            prompt_tokens_max: longest,
        }
    });
    let draft = (drafted > 0).then(|| DraftEnvelope {
        n: rates.len(),
        rate_min: rates.iter().copied().reduce(f64::min),
        rate_max: rates.iter().copied().reduce(f64::max),
        rate_pooled: (generated > 0).then(|| accepted as f64 / generated as f64),
        mean_len: Dist::of(mean_lens),
    });
    let graphs_reused = (graphs_n > 0).then(|| GraphsReused {
        n: graphs_n,
        nonzero: graphs_nonzero,
        median: graphs_dist.map_or(0.0, |d| d.median),
    });
    let prefix_cache = PrefixCache {
        lcp_selections: inst.lcp_selections,
        lru_selections: inst.lru_selections,
        requests_with_cached_tokens: cached_nonzero,
        cached_tokens: cached_sum,
        cached_tokens_known: cached_known,
    };
    let n_timed = totals.requests;

    let mut warnings = Vec::new();
    if seen > 0 && n_timed == 0 {
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
    } else if seen > n_timed {
        warnings.push(format!(
            "{} of {seen} requests have no timing lines ({cancelled} cancelled; the rest were \
             still running at the end of the log or lost their lines)",
            seen - n_timed
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
        vllm_stats: Vec::new(),
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_matches_sorting() {
        // A fixed pseudo-random sequence with ties.
        let mut x = 12345u64;
        for n in [1usize, 2, 3, 10, 11, 1000, 1001] {
            let v: Vec<f64> = (0..n)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((x >> 40) % 97) as f64 / 4.0
                })
                .collect();
            let mut sorted = v.clone();
            sorted.sort_by(f64::total_cmp);
            let want = |p: f64| {
                let rank = p * (n - 1) as f64;
                let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
                sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
            };
            let d = Dist::of(v).unwrap();
            assert_eq!(
                (d.p10, d.median, d.p90),
                (want(0.1), want(0.5), want(0.9)),
                "n {n}"
            );
            assert_eq!((d.min, d.max), (sorted[0], sorted[n - 1]));
        }
    }

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
