//! vLLM's own log: the periodic stats line (prompt and generation throughput, running, waiting
//! and swapped requests, KV-cache usage, prefix-cache hit rate) and the lines that mark a new
//! API server. vLLM logs no per-request timings at its default level, so what the log offers is
//! a time series sampled every `VLLM_LOG_STATS_INTERVAL` seconds (10 by default), summarised
//! per instance and per engine.
//!
//! The line is `[(PROC pid=N) ]LEVEL MM-DD HH:MM:SS [file.py:N] message` (vllm/logger.py
//! `_FORMAT`; releases before the process tag print `file.py:N] message` without the opening
//! bracket). The message shapes, each from vLLM's own source:
//!
//! - V1, vLLM 0.32.0 (`vllm/v1/metrics/loggers.py`, `LoggingStatLogger.log`, checked in the
//!   installed 0.32.0 source): `Engine 000: Avg prompt throughput: %.1f tokens/s, Avg
//!   generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs[, Deferred: %d
//!   reqs][, KV fetch: …][, Preemptions: %d], %s KV cache usage: %.1f%%[, Prefix cache hit
//!   rate: %.1f%%][, …]`, where `%s` is the device (`GPU` on CUDA, `CPU`, `XPU` …). With data
//!   parallelism the prefix is `N Engines Aggregated: `. An idle interval after an idle one is
//!   logged at debug level, so an idle engine falls silent.
//! - V1 before the device name and the optional parts (`vllm/v1/metrics/loggers.py` of the 0.8
//!   and 0.9 series): `[Engine 000: ]Avg prompt throughput: …, Running: %d reqs, Waiting: %d
//!   reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%`.
//! - V0 (`vllm/engine/metrics.py`, `LoggingStatLogger.log`): `Avg prompt throughput: %.1f
//!   tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Swapped: %d reqs,
//!   Pending: %d reqs, GPU KV cache usage: %.1f%%, CPU KV cache usage: %.1f%%.` The CPU figure
//!   is the swap space, not the pool. The V0 releases with prefix caching add a line of their
//!   own: `Prefix cache hit rate: GPU: %.2f%%, CPU: %.2f%%`.
//!
//! Parts are matched by their labels, so a part added or dropped between releases leaves the
//! others readable; an unknown label is skipped.

use crate::dist::Dist;
use crate::scan::{trim, Cur};
use serde::{Deserialize, Serialize};

/// A vLLM line's prefix, and the message after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Prefixed<'a> {
    /// The pid of `(APIServer pid=N)`: the server process (other tags name its engine and
    /// worker processes, which belong to the same instance).
    pub api_pid: Option<u32>,
    /// `MM-DD HH:MM:SS` as seconds since 1 January 00:00 (the year is not logged).
    pub time: Option<u32>,
    pub msg: &'a [u8],
}

/// Recognises `[(PROC pid=N) ]LEVEL MM-DD HH:MM:SS [file:N] ` (or `file:N] `).
#[inline(always)]
pub(crate) fn strip(body: &[u8]) -> Option<Prefixed<'_>> {
    // Most lines are llama.cpp's: out at the first byte, without a call.
    if !matches!(body.first(), Some(b'(' | b'I' | b'W' | b'D' | b'E' | b'C')) {
        return None;
    }
    strip_prefix(body)
}

#[inline(never)]
fn strip_prefix(body: &[u8]) -> Option<Prefixed<'_>> {
    let mut c = Cur::new(body);
    let mut api_pid = None;
    if c.lit(b"(") {
        let rest = c.rest();
        let close = rest.iter().take(64).position(|&b| b == b')')?;
        let tag = &rest[..close];
        let p = crate::scan::find(tag, b" pid=")?;
        let pid = Cur::new(&tag[p + 5..])
            .uint()
            .and_then(|v| u32::try_from(v).ok());
        // Only the single API server's tag: with `--api-server-count` or data parallelism the
        // servers are `ApiServer_N` / `APIServer_DPN` (vllm/v1/utils.py, dp_supervisor.py),
        // several processes of one instance, which its start line delimits instead.
        if &tag[..p] == b"APIServer" {
            api_pid = pid;
        }
        c = Cur::new(&rest[close + 1..]);
        c.ws();
    }
    let level = [
        &b"INFO "[..],
        b"WARNING ",
        b"DEBUG ",
        b"ERROR ",
        b"CRITICAL ",
    ];
    if !level.iter().any(|l| c.lit(l)) {
        return None;
    }
    let time = timestamp(c.rest())?;
    let rest = &c.rest()[15..];
    // `[file.py:N] ` or `file.py:N] `.
    let close = rest.iter().take(80).position(|&b| b == b']')?;
    let file = rest[..close].strip_prefix(b"[").unwrap_or(&rest[..close]);
    if !file.contains(&b':') || file.contains(&b' ') {
        return None;
    }
    Some(Prefixed {
        api_pid,
        time,
        msg: trim(&rest[close + 1..]),
    })
}

/// `MM-DD HH:MM:SS ` → seconds since 1 January (non-leap months). `None` when the bytes are
/// not shaped like a stamp (no vLLM prefix); `Some(None)` when a field is out of range.
fn timestamp(t: &[u8]) -> Option<Option<u32>> {
    let t = t.get(..15)?;
    let d = |i: usize| -> Option<u32> {
        let (a, b) = (t[i], t[i + 1]);
        (a.is_ascii_digit() && b.is_ascii_digit()).then(|| u32::from((a - b'0') * 10 + (b - b'0')))
    };
    if !(t[2] == b'-' && t[5] == b' ' && t[8] == b':' && t[11] == b':' && t[14] == b' ') {
        return None;
    }
    let (mo, day, h, mi, s) = (d(0)?, d(3)?, d(6)?, d(9)?, d(12)?);
    const BEFORE: [u32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    if !(1..=12).contains(&mo) || !(1..=31).contains(&day) || h > 23 || mi > 59 || s > 60 {
        return Some(None);
    }
    Some(Some(
        ((BEFORE[(mo - 1) as usize] + day - 1) * 24 + h) * 3600 + mi * 60 + s,
    ))
}

/// Which engine a stats line speaks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum EngineTag {
    /// No prefix (V0, early V1).
    Single,
    /// `Engine NNN: `.
    Index(u32),
    /// `N Engines Aggregated: `.
    Aggregated(u32),
}

/// One stats line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StatsLine {
    pub engine: EngineTag,
    /// Seconds since 1 January, from the line's prefix.
    pub time: Option<u32>,
    pub prompt_tps: f64,
    pub gen_tps: f64,
    pub running: Option<u64>,
    /// `Waiting` (V1; in 0.32 it includes `Deferred`) or `Pending` (V0).
    pub waiting: Option<u64>,
    /// `Swapped` (V0).
    pub swapped: Option<u64>,
    /// `Preemptions` in the interval (0.32 prints it only when non-zero).
    pub preemptions: Option<u64>,
    /// The device of the first `… KV cache usage` part: the pool.
    pub kv_device: Option<String>,
    pub kv_usage_pct: Option<f64>,
    /// V0's second part, `CPU KV cache usage`: the swap space.
    pub swap_usage_pct: Option<f64>,
    pub prefix_hit_pct: Option<f64>,
}

/// What a vLLM message says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Message {
    Stats(Box<StatsLine>),
    /// V0's separate `Prefix cache hit rate: GPU: x%, CPU: y%` line (the GPU figure).
    PrefixHit(f64),
    /// A new API server: `non-default args: {…}` (0.8 on) or `vLLM API server version X`.
    Starting,
}

pub(crate) fn message(msg: &[u8], time: Option<u32>) -> Option<Message> {
    let mut c = Cur::new(msg);
    if msg.starts_with(b"non-default args:") || msg.starts_with(b"vLLM API server version") {
        return Some(Message::Starting);
    }
    if c.lit(b"Prefix cache hit rate: GPU:") {
        return c.dec().map(Message::PrefixHit);
    }
    let engine = if c.lit(b"Engine ") {
        let i = c.uint().and_then(|v| u32::try_from(v).ok())?;
        c.lit(b":").then_some(())?;
        EngineTag::Index(i)
    } else if let Some(n) = c.uint() {
        (c.tok(b"Engines Aggregated:")).then_some(())?;
        EngineTag::Aggregated(u32::try_from(n).ok()?)
    } else {
        EngineTag::Single
    };
    c.ws();
    if !c.rest().starts_with(b"Avg prompt throughput:") {
        return None;
    }
    let mut s = StatsLine {
        engine,
        time,
        prompt_tps: f64::NAN,
        gen_tps: f64::NAN,
        running: None,
        waiting: None,
        swapped: None,
        preemptions: None,
        kv_device: None,
        kv_usage_pct: None,
        swap_usage_pct: None,
        prefix_hit_pct: None,
    };
    for part in c.rest().split(|&b| b == b',') {
        let part = trim(part);
        let Some(colon) = part.iter().position(|&b| b == b':') else {
            continue;
        };
        let (label, mut v) = (&part[..colon], Cur::new(&part[colon + 1..]));
        match label {
            b"Avg prompt throughput" => s.prompt_tps = v.dec().unwrap_or(f64::NAN),
            b"Avg generation throughput" => s.gen_tps = v.dec().unwrap_or(f64::NAN),
            b"Running" => s.running = v.uint(),
            b"Waiting" | b"Pending" => s.waiting = v.uint(),
            b"Swapped" => s.swapped = v.uint(),
            b"Preemptions" => s.preemptions = v.uint(),
            b"Prefix cache hit rate" => s.prefix_hit_pct = v.dec(),
            _ => {
                if let Some(dev) = label.strip_suffix(b" KV cache usage") {
                    let pct = v.dec();
                    if s.kv_usage_pct.is_none() {
                        s.kv_device = Some(String::from_utf8_lossy(dev).into_owned());
                        s.kv_usage_pct = pct;
                    } else {
                        s.swap_usage_pct = pct;
                    }
                }
            }
        }
    }
    // Both throughputs are what makes it the stats line.
    if s.prompt_tps.is_nan() || s.gen_tps.is_nan() {
        return None;
    }
    Some(Message::Stats(Box::new(s)))
}

/// One engine's stats lines in one instance, summarised. Every distribution is over the
/// logged intervals (one per line), so its `n` is the number of lines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VllmStats {
    /// `Engine NNN:`'s index; null for lines without it (V0, early V1) and aggregated ones.
    pub engine: Option<u32>,
    /// `N Engines Aggregated:` (data parallelism): how many engines the line sums.
    pub aggregated_engines: Option<u32>,
    /// Stats lines read.
    pub lines: usize,
    /// 1-based line numbers of the first and last stats line.
    pub first_line: u64,
    pub last_line: u64,
    /// Seconds from the first stats line to the last (timestamps to the second).
    pub span_s: Option<u64>,
    /// Median seconds between consecutive stats lines: the logging interval.
    pub interval_s: Option<f64>,
    /// `Avg prompt throughput` per interval, tokens/s (computed prompt tokens; prefix-cache
    /// hits excluded). Its `max` is the peak.
    pub prompt_tps: Dist,
    /// `Avg generation throughput` per interval, tokens/s.
    pub gen_tps: Dist,
    /// Intervals with both throughputs 0.0.
    pub idle_intervals: usize,
    /// `idle_intervals / lines`: the share of the logged intervals that were idle.
    pub idle_share: f64,
    /// Seconds the engine printed no stats line beyond the interval: Σ (gap − interval) over
    /// gaps longer than twice the interval. vLLM logs the second and later idle intervals in a
    /// row at debug level, so this is (at info level) idle time the log does not show.
    pub silent_s: Option<f64>,
    pub running: Option<Dist>,
    /// `Waiting` (V1) or `Pending` (V0).
    pub waiting: Option<Dist>,
    /// `Swapped` (V0).
    pub swapped: Option<Dist>,
    /// Σ `Preemptions` over the lines that print it (vLLM 0.32 prints it only when non-zero;
    /// null when no line did).
    pub preemptions: Option<u64>,
    /// The KV pool's device as printed (`GPU`, `CPU`, `XPU` …).
    pub kv_device: Option<String>,
    /// `<device> KV cache usage` in percent; its `max` is the peak.
    pub kv_usage_pct: Option<Dist>,
    /// V0's `CPU KV cache usage`: the swap space, in percent.
    pub swap_usage_pct: Option<Dist>,
    /// `Prefix cache hit rate` in percent (V1: over the most recent requests, up to 1000 in
    /// 0.32; V0: the separate line's GPU figure).
    pub prefix_cache_hit_pct: Option<Dist>,
    /// The last hit rate printed.
    pub prefix_cache_hit_pct_last: Option<f64>,
    /// Every stats line's figures in log order: the points behind the distributions (added
    /// within `/1`; absent in documents written before it).
    #[serde(default)]
    pub intervals: Vec<VllmInterval>,
}

/// One stats line: what vLLM printed for one logging interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VllmInterval {
    /// Seconds after the series' first stamped line (null: the line has no time, or its time
    /// goes backwards).
    pub t_s: Option<u64>,
    pub prompt_tps: Option<f64>,
    pub gen_tps: Option<f64>,
    pub running: Option<u64>,
    pub waiting: Option<u64>,
    pub kv_usage_pct: Option<f64>,
}

/// Stats lines of one engine, as read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Series {
    pub engine: EngineTag,
    pub first_line: u64,
    pub last_line: u64,
    pub lines: Vec<StatsLine>,
}

impl Series {
    pub(crate) fn summarise(&self) -> Option<VllmStats> {
        let l = &self.lines;
        let prompt_tps = Dist::of(l.iter().map(|s| s.prompt_tps).collect())?;
        let gen_tps = Dist::of(l.iter().map(|s| s.gen_tps).collect())?;
        let dist_u = |f: &dyn Fn(&StatsLine) -> Option<u64>| {
            Dist::of(l.iter().filter_map(f).map(|v| v as f64).collect())
        };
        let dist_f =
            |f: &dyn Fn(&StatsLine) -> Option<f64>| Dist::of(l.iter().filter_map(f).collect());
        let idle = l
            .iter()
            .filter(|s| s.prompt_tps == 0.0 && s.gen_tps == 0.0)
            .count();
        // Gaps between consecutive stamped lines; a gap that goes backwards (a year's end,
        // or a clock change) is no interval.
        let times: Vec<u32> = l.iter().filter_map(|s| s.time).collect();
        let gaps: Vec<f64> = times
            .windows(2)
            .filter(|w| w[1] >= w[0])
            .map(|w| f64::from(w[1] - w[0]))
            .collect();
        let interval = Dist::of(gaps.clone())
            .map(|d| d.median)
            .filter(|&i| i > 0.0);
        let silent = interval.map(|i| {
            gaps.iter()
                .filter(|&&g| g > 2.0 * i)
                .map(|&g| g - i)
                .sum::<f64>()
        });
        let span = match (times.first(), times.last()) {
            (Some(&a), Some(&b)) if b >= a && times.len() >= 2 => Some(u64::from(b - a)),
            _ => None,
        };
        let preempt: Vec<u64> = l.iter().filter_map(|s| s.preemptions).collect();
        let (engine, aggregated_engines) = match self.engine {
            EngineTag::Single => (None, None),
            EngineTag::Index(i) => (Some(i), None),
            EngineTag::Aggregated(n) => (None, Some(n)),
        };
        Some(VllmStats {
            engine,
            aggregated_engines,
            lines: l.len(),
            first_line: self.first_line,
            last_line: self.last_line,
            span_s: span,
            interval_s: interval,
            prompt_tps,
            gen_tps,
            idle_intervals: idle,
            idle_share: idle as f64 / l.len() as f64,
            silent_s: silent,
            running: dist_u(&|s| s.running),
            waiting: dist_u(&|s| s.waiting),
            swapped: dist_u(&|s| s.swapped),
            preemptions: (!preempt.is_empty()).then(|| preempt.iter().sum()),
            kv_device: l.iter().find_map(|s| s.kv_device.clone()),
            kv_usage_pct: dist_f(&|s| s.kv_usage_pct),
            swap_usage_pct: dist_f(&|s| s.swap_usage_pct),
            prefix_cache_hit_pct: dist_f(&|s| s.prefix_hit_pct),
            prefix_cache_hit_pct_last: l.iter().rev().find_map(|s| s.prefix_hit_pct),
            intervals: l
                .iter()
                .map(|s| VllmInterval {
                    t_s: match (times.first(), s.time) {
                        (Some(&a), Some(t)) => t.checked_sub(a).map(u64::from),
                        _ => None,
                    },
                    prompt_tps: Some(s.prompt_tps).filter(|v| v.is_finite()),
                    gen_tps: Some(s.gen_tps).filter(|v| v.is_finite()),
                    running: s.running,
                    waiting: s.waiting,
                    kv_usage_pct: s.kv_usage_pct.filter(|v| v.is_finite()),
                })
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(line: &str) -> StatsLine {
        let p = strip(line.as_bytes()).expect("a vLLM prefix");
        match message(p.msg, p.time) {
            Some(Message::Stats(s)) => *s,
            other => panic!("not a stats line: {other:?} from {line}"),
        }
    }

    #[test]
    fn prefixes_of_each_release() {
        // 0.32 (vllm/logger.py _FORMAT): process tag, level, time, [file:line].
        let p = strip(b"(APIServer pid=26765) INFO 12-01 16:10:30 [loggers.py:335] Engine 000: x")
            .unwrap();
        assert_eq!(p.api_pid, Some(26765));
        assert_eq!(p.time, Some(((334 * 24 + 16) * 3600) + 10 * 60 + 30));
        assert_eq!(p.msg, b"Engine 000: x");
        // Another process of the same server: no instance pid.
        let p = strip(b"(EngineCore pid=27814) INFO 12-01 16:09:18 [core.py:133] Initializing")
            .unwrap();
        assert_eq!((p.api_pid, p.msg), (None, &b"Initializing"[..]));
        // One of several API servers: a process of the instance, not its name.
        let p = strip(b"(ApiServer_1 pid=9) INFO 12-01 16:09:18 [a.py:1] x").unwrap();
        assert_eq!(p.api_pid, None);
        // Before the process tag: `file.py:N]` without the opening bracket (V0).
        let p = strip(b"INFO 08-01 12:00:05 metrics.py:341] Avg prompt").unwrap();
        assert_eq!((p.api_pid, p.msg), (None, &b"Avg prompt"[..]));
        let p = strip(b"WARNING 08-01 12:00:05 [loggers.py:116] y").unwrap();
        assert_eq!(p.msg, b"y");
        // Not vLLM: uvicorn's access line, llama.cpp, a bracket without a file.
        assert!(strip(b"INFO:     127.0.0.1:50000 - \"POST /v1/completions\" 200 OK").is_none());
        assert!(strip(b"slot print_timing: id  0 | task 5 | x").is_none());
        assert!(strip(b"INFO 12-01 16:10:30 [ print_timings] x").is_none());
        assert!(strip(b"INFO 13-01 16:10:30 [a.py:1] x")
            .unwrap()
            .time
            .is_none());
    }

    #[test]
    fn v1_0_32_line() {
        // vllm/v1/metrics/loggers.py at 0.32.0, as fixtures/vllm-0.32/serve.log has it.
        let s = stats("(APIServer pid=26765) INFO 12-01 16:10:30 [loggers.py:335] Engine 000: Avg prompt throughput: 19.8 tokens/s, Avg generation throughput: 3.6 tokens/s, Running: 5 reqs, Waiting: 0 reqs, CPU KV cache usage: 1.4%, Prefix cache hit rate: 0.0%");
        assert_eq!(s.engine, EngineTag::Index(0));
        assert_eq!((s.prompt_tps, s.gen_tps), (19.8, 3.6));
        assert_eq!((s.running, s.waiting, s.swapped), (Some(5), Some(0), None));
        assert_eq!(s.kv_device.as_deref(), Some("CPU"));
        assert_eq!((s.kv_usage_pct, s.swap_usage_pct), (Some(1.4), None));
        assert_eq!(s.prefix_hit_pct, Some(0.0));
        assert_eq!(s.preemptions, None);
    }

    #[test]
    fn v1_0_32_optional_parts() {
        // The same format with Deferred, Preemptions and the external/MM hit rates, and the
        // data-parallel prefix.
        let s = stats("(APIServer pid=1) INFO 12-01 16:10:30 [loggers.py:335] 2 Engines Aggregated: Avg prompt throughput: 1024.0 tokens/s, Avg generation throughput: 311.5 tokens/s, Running: 64 reqs, Waiting: 12 reqs, Deferred: 3 reqs, Preemptions: 7, GPU KV cache usage: 97.3%, Prefix cache hit rate: 41.2%, External prefix cache hit rate: 5.0%, MM cache hit rate: 0.0%");
        assert_eq!(s.engine, EngineTag::Aggregated(2));
        assert_eq!(
            (s.running, s.waiting, s.preemptions),
            (Some(64), Some(12), Some(7))
        );
        assert_eq!(s.kv_device.as_deref(), Some("GPU"));
        assert_eq!((s.kv_usage_pct, s.prefix_hit_pct), (Some(97.3), Some(41.2)));
    }

    #[test]
    fn v1_early_line_with_and_without_engine_prefix() {
        // vllm/v1/metrics/loggers.py, 0.8/0.9 series: fixed GPU label.
        let s = stats("INFO 05-02 10:00:00 [loggers.py:111] Engine 000: Avg prompt throughput: 250.3 tokens/s, Avg generation throughput: 80.0 tokens/s, Running: 4 reqs, Waiting: 1 reqs, GPU KV cache usage: 12.5%, Prefix cache hit rate: 66.7%");
        assert_eq!(
            (s.engine, s.waiting, s.kv_usage_pct),
            (EngineTag::Index(0), Some(1), Some(12.5))
        );
        let s = stats("INFO 03-02 10:00:00 [loggers.py:80] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 42.1 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 3.0%, Prefix cache hit rate: 0.0%");
        assert_eq!(
            (s.engine, s.gen_tps, s.running),
            (EngineTag::Single, 42.1, Some(2))
        );
    }

    #[test]
    fn v0_line_and_its_prefix_hit_line() {
        // vllm/engine/metrics.py (V0): Swapped, Pending, GPU then CPU (swap) usage, a full stop.
        let s = stats("INFO 08-01 12:00:05 metrics.py:341] Avg prompt throughput: 512.0 tokens/s, Avg generation throughput: 128.4 tokens/s, Running: 8 reqs, Swapped: 2 reqs, Pending: 5 reqs, GPU KV cache usage: 99.1%, CPU KV cache usage: 4.2%.");
        assert_eq!(s.engine, EngineTag::Single);
        assert_eq!(
            (s.running, s.swapped, s.waiting),
            (Some(8), Some(2), Some(5))
        );
        assert_eq!(s.kv_device.as_deref(), Some("GPU"));
        assert_eq!((s.kv_usage_pct, s.swap_usage_pct), (Some(99.1), Some(4.2)));
        let p = strip(
            b"INFO 08-01 12:00:05 metrics.py:357] Prefix cache hit rate: GPU: 37.50%, CPU: 0.00%",
        )
        .unwrap();
        assert_eq!(message(p.msg, p.time), Some(Message::PrefixHit(37.5)));
    }

    #[test]
    fn starting_lines_and_others() {
        for m in [
            &b"non-default args: {'host': '127.0.0.1'}"[..],
            b"vLLM API server version 0.6.3",
        ] {
            assert_eq!(message(m, None), Some(Message::Starting));
        }
        assert_eq!(
            message(b"Starting vLLM server on http://127.0.0.1:18100", None),
            None
        );
        assert_eq!(
            message(
                b"Engine 000: vllm cache_config_info with initialization",
                None
            ),
            None
        );
        assert_eq!(message(b"Avg prompt throughput: x tokens/s", None), None);
    }

    #[test]
    fn summary_of_a_series() {
        let line = |t: u32, p: f64, g: f64, run: u64, kv: f64| StatsLine {
            engine: EngineTag::Index(0),
            time: Some(t),
            prompt_tps: p,
            gen_tps: g,
            running: Some(run),
            waiting: Some(0),
            swapped: None,
            preemptions: None,
            kv_device: Some("GPU".into()),
            kv_usage_pct: Some(kv),
            swap_usage_pct: None,
            prefix_hit_pct: Some(10.0 * run as f64),
        };
        // Every 10 s, then silent for 100 s (idle at debug), then one more.
        let s = Series {
            engine: EngineTag::Index(0),
            first_line: 3,
            last_line: 40,
            lines: vec![
                line(100, 50.0, 10.0, 2, 5.0),
                line(110, 0.0, 30.0, 3, 9.0),
                line(120, 0.0, 0.0, 0, 0.0),
                line(220, 20.0, 20.0, 1, 2.0),
            ],
        }
        .summarise()
        .unwrap();
        assert_eq!((s.lines, s.engine, s.span_s), (4, Some(0), Some(120)));
        assert_eq!(s.interval_s, Some(10.0));
        assert_eq!(s.silent_s, Some(90.0));
        assert_eq!((s.gen_tps.median, s.gen_tps.max), (15.0, 30.0));
        assert_eq!((s.prompt_tps.median, s.prompt_tps.max), (10.0, 50.0));
        assert_eq!((s.idle_intervals, s.idle_share), (1, 0.25));
        assert_eq!(s.running.as_ref().map(|d| d.max), Some(3.0));
        assert_eq!(s.kv_usage_pct.as_ref().map(|d| d.max), Some(9.0));
        assert_eq!(s.prefix_cache_hit_pct_last, Some(10.0));
        assert_eq!(s.preemptions, None);
    }
}
