//! The engine's metrics and their exposition, written the way vLLM V1's `PrometheusStatLogger`
//! prints them through `prometheus_client` (vllm/v1/metrics/loggers.py,
//! prometheus_client/exposition.py):
//!
//! - counters declared without `_total` and printed with it, in `# TYPE name_total counter`;
//! - a `<name>_created` gauge family after every counter and histogram (unix seconds);
//! - histograms as `_bucket{le}` (cumulative), `_count`, `_sum`, with vLLM's own bucket bounds;
//! - labels `engine` and `model_name` on everything, sorted by name as prometheus_client does;
//! - `vllm:cache_config_info`, a gauge of 1 whose labels are the cache config;
//! - numbers in Python's float repr with Go-style exponents (prometheus_client's
//!   `floatToGoString`).
//!
//! Samples carry no timestamp, as vLLM's never do (Prometheus would also reject samples stamped
//! ahead of its own clock, which a `--speed` above 1 produces). One addition instead: the gauge
//! [`CLOCK`] holds the simulated clock, so rates a reader takes over it follow simulated time at
//! any `--speed` (headroom's adapters time a sample by it). The step ledger
//! (`vllm:engine_steps_total` ...) is the emulator's own family, read by headroom.

use engines::engine::vllm;
use std::fmt::Write;

/// vLLM `build_1_2_5_buckets(max_model_len)`: 1, 2, 5, 10, 20, 50 ... up to max_model_len.
pub fn buckets_1_2_5(max: u64) -> Vec<f64> {
    let mut out = Vec::new();
    let mut p: u64 = 1;
    loop {
        for m in [1u64, 2, 5] {
            let v = m.saturating_mul(p);
            if v > max {
                return out;
            }
            out.push(v as f64);
        }
        p = p.saturating_mul(10);
    }
}

pub const TTFT_BUCKETS: &[f64] = &[
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
    20.0, 40.0, 80.0, 160.0, 640.0, 2560.0,
];
/// Inter-token latency and per-request time per output token.
pub const ITL_BUCKETS: &[f64] = &[
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
    40.0, 80.0,
];
/// e2e, queue, inference, prefill and decode time of a request.
pub const REQUEST_LATENCY_BUCKETS: &[f64] = &[
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
    480.0, 960.0, 1920.0, 7680.0,
];
pub const ITERATION_TOKEN_BUCKETS: &[f64] = &[
    1.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0,
];
pub const PARAMS_N_BUCKETS: &[f64] = &[1.0, 2.0, 5.0, 10.0, 20.0];

/// A Prometheus histogram: per-bucket counts (the last is +Inf), sum and count.
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    bounds: Vec<f64>,
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Histogram {
    pub fn new(bounds: &[f64]) -> Histogram {
        Histogram {
            bounds: bounds.to_vec(),
            counts: vec![0; bounds.len() + 1],
            sum: 0.0,
            count: 0,
        }
    }

    pub fn observe(&mut self, v: f64) {
        // Prometheus buckets are `le`: a value equal to a bound falls in that bucket.
        let i = self.bounds.partition_point(|b| *b < v);
        self.counts[i] += 1;
        self.sum += v;
        self.count += 1;
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn sum(&self) -> f64 {
        self.sum
    }

    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }
}

/// Finish reasons vLLM pre-creates a `request_success` series for, in its enum order.
pub const FINISH_REASONS: [&str; 3] = ["stop", "length", "abort"];

/// Everything the engine counts. Gauges hold the value after the latest step.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineMetrics {
    pub running: f64,
    pub waiting: f64,
    pub kv_usage: f64,
    pub prefix_queries: f64,
    pub prefix_hits: f64,
    pub preemptions: f64,
    pub prompt_tokens: f64,
    pub prompt_tokens_cached: f64,
    pub generation_tokens: f64,
    /// Indexed like [`FINISH_REASONS`].
    pub success: [f64; 3],
    pub request_prompt_tokens: Histogram,
    pub request_generation_tokens: Histogram,
    pub iteration_tokens: Histogram,
    pub request_max_num_generation_tokens: Histogram,
    pub request_params_n: Histogram,
    pub request_params_max_tokens: Histogram,
    pub ttft: Histogram,
    pub inter_token_latency: Histogram,
    pub request_time_per_output_token: Histogram,
    pub e2e: Histogram,
    pub queue_time: Histogram,
    pub inference_time: Histogram,
    pub prefill_time: Histogram,
    pub decode_time: Histogram,
    // Step ledger.
    pub steps: f64,
    pub steps_decode: f64,
    pub step_seconds: f64,
    pub step_seconds_decode: f64,
    pub prefill_chunks: f64,
}

impl EngineMetrics {
    pub fn new(max_model_len: u32) -> EngineMetrics {
        let len = buckets_1_2_5(u64::from(max_model_len));
        EngineMetrics {
            running: 0.0,
            waiting: 0.0,
            kv_usage: 0.0,
            prefix_queries: 0.0,
            prefix_hits: 0.0,
            preemptions: 0.0,
            prompt_tokens: 0.0,
            prompt_tokens_cached: 0.0,
            generation_tokens: 0.0,
            success: [0.0; 3],
            request_prompt_tokens: Histogram::new(&len),
            request_generation_tokens: Histogram::new(&len),
            iteration_tokens: Histogram::new(ITERATION_TOKEN_BUCKETS),
            request_max_num_generation_tokens: Histogram::new(&len),
            request_params_n: Histogram::new(PARAMS_N_BUCKETS),
            request_params_max_tokens: Histogram::new(&len),
            ttft: Histogram::new(TTFT_BUCKETS),
            inter_token_latency: Histogram::new(ITL_BUCKETS),
            request_time_per_output_token: Histogram::new(ITL_BUCKETS),
            e2e: Histogram::new(REQUEST_LATENCY_BUCKETS),
            queue_time: Histogram::new(REQUEST_LATENCY_BUCKETS),
            inference_time: Histogram::new(REQUEST_LATENCY_BUCKETS),
            prefill_time: Histogram::new(REQUEST_LATENCY_BUCKETS),
            decode_time: Histogram::new(REQUEST_LATENCY_BUCKETS),
            steps: 0.0,
            steps_decode: 0.0,
            step_seconds: 0.0,
            step_seconds_decode: 0.0,
            prefill_chunks: 0.0,
        }
    }
}

/// Python's `repr(float)`: shortest round-trip digits, exponent form below 1e-4 and from 1e16.
pub fn py_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let sci = format!("{x:e}"); // e.g. "-1.5e-5", "1e16"
    let (mant, exp) = sci.split_once('e').expect("LowerExp has an exponent");
    let exp: i32 = exp.parse().expect("LowerExp exponent is an integer");
    if (-4..16).contains(&exp) {
        let s = format!("{x}");
        if s.contains('.') {
            s
        } else {
            s + ".0"
        }
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    }
}

/// prometheus_client's `floatToGoString`.
pub fn go_float(x: f64) -> String {
    if x == f64::INFINITY {
        return "+Inf".into();
    }
    if x == f64::NEG_INFINITY {
        return "-Inf".into();
    }
    if x.is_nan() {
        return "NaN".into();
    }
    let s = py_repr(x);
    match s.find('.') {
        Some(dot) if x > 0.0 && dot > 6 => {
            let digits = format!("{}{}{}", &s[..1], &s[1..dot], &s[dot + 1..]);
            let mantissa = format!("{}.{}", &digits[..1], &digits[1..]);
            let mantissa = mantissa.trim_end_matches(['0', '.']);
            format!("{mantissa}e+{:02}", dot - 1)
        }
        _ => s,
    }
}

fn escape_label(v: &str) -> String {
    v.replace('\\', r"\\")
        .replace('\n', r"\n")
        .replace('"', "\\\"")
}

fn escape_help(v: &str) -> String {
    v.replace('\\', r"\\").replace('\n', r"\n")
}

/// The labels and clock of one exposition.
pub struct Exposition<'a> {
    pub model_name: &'a str,
    /// Data-parallel engine index ("0").
    pub engine: &'a str,
    /// When the counters were created, unix seconds (simulated clock).
    pub created_unix_s: f64,
    /// The simulated clock at this exposition, unix seconds (the [`CLOCK`] gauge).
    pub clock_unix_s: f64,
    /// `vllm:cache_config_info` labels, besides `engine`.
    pub cache_config: &'a [(&'a str, String)],
    /// The prefix the step ledger (the cadence) is exported under: `vllm` by default, or the
    /// engine's own (a fork's, e.g. `radiance`), latency staying under `vllm:`.
    pub ledger_prefix: &'a str,
}

struct Out<'a> {
    s: String,
    ctx: &'a Exposition<'a>,
}

impl Out<'_> {
    fn header(&mut self, name: &str, help: &str, kind: &str) {
        let _ = writeln!(self.s, "# HELP {name} {}", escape_help(help));
        let _ = writeln!(self.s, "# TYPE {name} {kind}");
    }

    fn line(&mut self, name: &str, extra: &[(&str, &str)], value: f64) {
        let mut labels: Vec<(&str, &str)> = vec![
            ("engine", self.ctx.engine),
            ("model_name", self.ctx.model_name),
        ];
        labels.extend_from_slice(extra);
        labels.sort_by(|a, b| a.0.cmp(b.0));
        self.raw_line(name, &labels, value);
    }

    fn raw_line(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.s.push_str(name);
        if !labels.is_empty() {
            self.s.push('{');
            for (i, (k, v)) in labels.iter().enumerate() {
                if i > 0 {
                    self.s.push(',');
                }
                let _ = write!(self.s, "{k}=\"{}\"", escape_label(v));
            }
            self.s.push('}');
        }
        let _ = writeln!(self.s, " {}", go_float(value));
    }

    fn created(&mut self, name: &str, help: &str, series: &[&[(&str, &str)]]) {
        let n = format!("{name}_created");
        self.header(&n, help, "gauge");
        for extra in series {
            self.line(&n, extra, self.ctx.created_unix_s);
        }
    }

    fn gauge(&mut self, name: &str, help: &str, value: f64) {
        self.header(name, help, "gauge");
        self.line(name, &[], value);
    }

    fn counter(&mut self, name: &str, help: &str, value: f64) {
        let total = format!("{name}_total");
        self.header(&total, help, "counter");
        self.line(&total, &[], value);
        self.created(name, help, &[&[]]);
    }

    fn histogram(&mut self, name: &str, help: &str, h: &Histogram) {
        self.header(name, help, "histogram");
        let bucket = format!("{name}_bucket");
        let mut acc = 0u64;
        for (i, c) in h.counts.iter().enumerate() {
            acc += c;
            let le = go_float(h.bounds.get(i).copied().unwrap_or(f64::INFINITY));
            self.line(&bucket, &[("le", &le)], acc as f64);
        }
        self.line(&format!("{name}_count"), &[], h.count as f64);
        self.line(&format!("{name}_sum"), &[], h.sum);
        self.created(name, help, &[&[]]);
    }
}

/// The /metrics body.
/// The simulated clock's gauge: the name headroom's adapters time a sample by
/// (`engines::EMULATOR_CLOCK`).
pub const CLOCK: &str = "headroom_emulator_clock_seconds";

/// vLLM's name for a concept today, from vLLM's own definition in the engines crate (a rename
/// there renames it here).
fn name(field: &str) -> &'static str {
    // Every field the emulator writes has a row in vLLM's definition (the test below renders
    // them all); a missing one is this file's bug, not a state to print.
    vllm::exported(field).unwrap_or_else(|| panic!("vLLM's definition has no row for {field}"))
}

pub fn render(m: &EngineMetrics, ctx: &Exposition) -> String {
    let mut o = Out {
        s: String::with_capacity(24 * 1024),
        ctx,
    };
    o.gauge(
        name("running"),
        "Number of requests in model execution batches.",
        m.running,
    );
    o.gauge(
        name("waiting"),
        "Number of requests waiting to be processed.",
        m.waiting,
    );
    o.gauge(
        name("kv_usage"),
        "KV-cache usage. 1 means 100 percent usage.",
        m.kv_usage,
    );
    o.counter(
        name("prefix_queries"),
        "Prefix cache queries, in terms of number of queried tokens.",
        m.prefix_queries,
    );
    o.counter(
        name("prefix_hits"),
        "Prefix cache hits, in terms of number of cached tokens.",
        m.prefix_hits,
    );
    o.counter(
        name("preemptions"),
        "Cumulative number of preemption from the engine.",
        m.preemptions,
    );
    o.counter(
        name("prompt_tokens"),
        "Number of prefill tokens processed.",
        m.prompt_tokens,
    );
    o.counter(
        name("cached_prompt_tokens"),
        "Number of cached prompt tokens (local prefix cache).",
        m.prompt_tokens_cached,
    );
    o.counter(
        name("generation_tokens"),
        "Number of generation tokens processed.",
        m.generation_tokens,
    );
    {
        let help = "Count of successfully processed requests.";
        let success = name("requests_finished");
        let total = format!("{success}_total");
        o.header(&total, help, "counter");
        for (i, r) in FINISH_REASONS.iter().enumerate() {
            o.line(&total, &[("finished_reason", r)], m.success[i]);
        }
        let series: Vec<[(&str, &str); 1]> = FINISH_REASONS
            .iter()
            .map(|r| [("finished_reason", *r)])
            .collect();
        let refs: Vec<&[(&str, &str)]> = series.iter().map(|s| &s[..]).collect();
        o.created(success, help, &refs);
    }
    o.histogram(
        name("prompt_len"),
        "Number of prefill tokens processed.",
        &m.request_prompt_tokens,
    );
    o.histogram(
        name("gen_len"),
        "Number of generation tokens processed.",
        &m.request_generation_tokens,
    );
    o.histogram(
        vllm::ITERATION_TOKENS,
        "Histogram of number of tokens per engine_step.",
        &m.iteration_tokens,
    );
    o.histogram(
        vllm::REQUEST_MAX_NUM_GENERATION_TOKENS,
        "Histogram of maximum number of requested generation tokens.",
        &m.request_max_num_generation_tokens,
    );
    o.histogram(
        vllm::REQUEST_PARAMS_N,
        "Histogram of the n request parameter.",
        &m.request_params_n,
    );
    o.histogram(
        vllm::REQUEST_PARAMS_MAX_TOKENS,
        "Histogram of the max_tokens request parameter.",
        &m.request_params_max_tokens,
    );
    o.histogram(
        name("ttft"),
        "Histogram of time to first token in seconds.",
        &m.ttft,
    );
    o.histogram(
        name("itl"),
        "Histogram of inter-token latency in seconds.",
        &m.inter_token_latency,
    );
    o.histogram(
        vllm::REQUEST_TIME_PER_OUTPUT_TOKEN,
        "Histogram of time_per_output_token_seconds per request.",
        &m.request_time_per_output_token,
    );
    o.histogram(
        name("e2e"),
        "Histogram of e2e request latency in seconds.",
        &m.e2e,
    );
    o.histogram(
        name("queue_time"),
        "Histogram of time spent in WAITING phase for request.",
        &m.queue_time,
    );
    o.histogram(
        vllm::REQUEST_INFERENCE_TIME,
        "Histogram of time spent in RUNNING phase for request.",
        &m.inference_time,
    );
    o.histogram(
        vllm::PREFILL_TIME,
        "Histogram of time spent in PREFILL phase for request.",
        &m.prefill_time,
    );
    o.histogram(
        vllm::DECODE_TIME,
        "Histogram of time spent in DECODE phase for request.",
        &m.decode_time,
    );
    o.counter(
        &format!("{}:engine_steps", ctx.ledger_prefix),
        "Engine steps taken (headroom emulator step ledger).",
        m.steps,
    );
    o.counter(
        &format!("{}:engine_steps_decode", ctx.ledger_prefix),
        "Engine steps that carried decode rows only (no prefill chunk).",
        m.steps_decode,
    );
    o.counter(
        &format!("{}:engine_step_seconds", ctx.ledger_prefix),
        "Seconds spent in engine steps.",
        m.step_seconds,
    );
    o.counter(
        &format!("{}:engine_step_seconds_decode", ctx.ledger_prefix),
        "Seconds spent in decode-only engine steps.",
        m.step_seconds_decode,
    );
    o.counter(
        &format!("{}:engine_prefill_chunks", ctx.ledger_prefix),
        "Prefill chunks scheduled (one per request per step that carries its prompt tokens).",
        m.prefill_chunks,
    );
    {
        let info = vllm::CACHE_CONFIG_INFO;
        o.header(info, "Information of the LLMEngine CacheConfig", "gauge");
        let mut labels: Vec<(&str, &str)> = ctx
            .cache_config
            .iter()
            .map(|(k, v)| (*k, v.as_str()))
            .collect();
        labels.push(("engine", ctx.engine));
        labels.sort_by(|a, b| a.0.cmp(b.0));
        o.raw_line(info, &labels, 1.0);
    }
    o.header(
        CLOCK,
        "SIMULATED: this server is headroom's emulator, not a real vLLM; every series here is \
         simulated. The emulator's simulated clock, unix seconds (runs --speed times the wall clock).",
        "gauge",
    );
    o.raw_line(CLOCK, &[], ctx.clock_unix_s);
    o.s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_float_repr() {
        for (x, want) in [
            (0.0, "0.0"),
            (1.0, "1.0"),
            (123.0, "123.0"),
            (0.1, "0.1"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (2.5e100, "2.5e+100"),
            (-3.25, "-3.25"),
            (0.123456789, "0.123456789"),
        ] {
            assert_eq!(py_repr(x), want, "{x}");
        }
    }

    #[test]
    fn go_float_like_prometheus_client() {
        for (x, want) in [
            (f64::INFINITY, "+Inf"),
            (1.0, "1.0"),
            (2560.0, "2560.0"),
            (123456.0, "123456.0"),
            (1234567.0, "1.234567e+06"),
            (1_000_000.0, "1e+06"),
            (1.7e9, "1.7e+09"),
            (1_750_000_000.5, "1.7500000005e+09"),
            (0.001, "0.001"),
            (1e16, "1e+16"),
        ] {
            assert_eq!(go_float(x), want, "{x}");
        }
    }

    #[test]
    fn one_two_five_buckets() {
        assert_eq!(
            buckets_1_2_5(100),
            vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
        );
        let b = buckets_1_2_5(8192);
        assert_eq!(*b.last().unwrap(), 5000.0);
        assert_eq!(b.len(), 12);
    }

    #[test]
    fn histogram_le_is_inclusive() {
        let mut h = Histogram::new(&[1.0, 2.0]);
        for v in [0.5, 1.0, 1.5, 3.0] {
            h.observe(v);
        }
        assert_eq!(h.counts, vec![2, 1, 1]);
        assert_eq!((h.count(), h.sum()), (4, 6.0));
    }

    #[test]
    fn exposition_shape() {
        let mut m = EngineMetrics::new(100);
        m.running = 3.0;
        m.prompt_tokens = 1234567.0;
        m.success[1] = 2.0;
        m.ttft.observe(0.03);
        let cfg = [
            ("block_size", "16".to_string()),
            ("num_gpu_blocks", "99".to_string()),
        ];
        let text = render(
            &m,
            &Exposition {
                model_name: "m\"x",
                engine: "0",
                created_unix_s: 1.7e9,
                clock_unix_s: 1_700_000_000.125,
                cache_config: &cfg,
                ledger_prefix: "vllm",
            },
        );
        for want in [
            "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"m\\\"x\"} 3.0\n",
            "# TYPE vllm:prompt_tokens_total counter\nvllm:prompt_tokens_total{engine=\"0\",model_name=\"m\\\"x\"} 1.234567e+06\n",
            "# TYPE vllm:prompt_tokens_created gauge\nvllm:prompt_tokens_created{engine=\"0\",model_name=\"m\\\"x\"} 1.7e+09\n",
            "vllm:request_success_total{engine=\"0\",finished_reason=\"length\",model_name=\"m\\\"x\"} 2.0",
            "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"0.04\",model_name=\"m\\\"x\"} 1.0",
            "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"+Inf\",model_name=\"m\\\"x\"} 1.0",
            "vllm:iteration_tokens_total_bucket{engine=\"0\",le=\"16384.0\"",
            "vllm:request_prompt_tokens_bucket{engine=\"0\",le=\"100.0\"",
            "vllm:cache_config_info{block_size=\"16\",engine=\"0\",num_gpu_blocks=\"99\"} 1.0",
            "# TYPE vllm:engine_steps_decode_total counter\n",
            "# TYPE headroom_emulator_clock_seconds gauge\nheadroom_emulator_clock_seconds 1.700000000125e+09\n",
        ] {
            assert!(text.contains(want), "missing {want:?} in\n{text}");
        }
        // The step ledger under the engine's own prefix: latency stays under vllm:.
        let radiance = render(
            &m,
            &Exposition {
                model_name: "m",
                engine: "0",
                created_unix_s: 1.7e9,
                clock_unix_s: 1.7e9,
                cache_config: &cfg,
                ledger_prefix: "radiance",
            },
        );
        for fam in [
            "engine_steps",
            "engine_steps_decode",
            "engine_step_seconds",
            "engine_step_seconds_decode",
            "engine_prefill_chunks",
        ] {
            assert!(radiance.contains(&format!("# TYPE radiance:{fam}_total counter\n")));
            assert!(!radiance.contains(&format!("vllm:{fam}_total")), "{fam}");
        }
        assert!(radiance.contains("# TYPE vllm:time_to_first_token_seconds histogram"));
        // Histograms: buckets, then _count, then _sum.
        let c = text.find("vllm:time_to_first_token_seconds_count").unwrap();
        let s = text.find("vllm:time_to_first_token_seconds_sum").unwrap();
        assert!(c < s);
        assert!(!text.contains("le=\"200.0\""));
    }
}
