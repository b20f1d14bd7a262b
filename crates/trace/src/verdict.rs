//! Divide by the window's tokens, and if kernel time ≈ step time, the table is
//! the optimization plan.
//!
//! "Kernel time" is the busy time (the union of device intervals, so overlapping streams count
//! once), per device. "Step time" is the wall clock of the window: with `--steps`, from the start
//! of the first selected CPU ProfilerStep to the end of the last; without, the device span (first
//! device-event start to last device-event end), which is the profiled window as the device saw
//! it. The two are compared as a ratio; at or above [`PLAN_THRESHOLD`] they are "≈".

use crate::analyze::Report;

/// Busy / wall at or above this is "kernel time ≈ step time". The remaining 10 % allows for the
/// launch of the first kernel and the drain of the last at the window's edges and for
/// sub-microsecond gaps between back-to-back kernels, which no kernel change removes.
pub const PLAN_THRESHOLD: f64 = 0.90;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WallSource {
    /// End of ProfilerStep#last minus start of ProfilerStep#first (CPU spans).
    Steps { first: u64, last: u64, count: u64 },
    /// Last device-event end minus first device-event start.
    DeviceSpan,
}

#[derive(Debug, Clone)]
pub struct Verdict {
    pub wall_ns: i64,
    pub wall_source: WallSource,
    /// Busy time summed over devices.
    pub kernel_ns: i64,
    pub devices: u64,
    /// kernel_ns / (wall_ns × devices).
    pub ratio: f64,
    /// ratio ≥ PLAN_THRESHOLD.
    pub plan: bool,
    pub tokens: Option<u64>,
    /// Device busy time per token (per device), ms.
    pub kernel_ms_per_token: Option<f64>,
    /// Window wall clock per token, ms, and its inverse.
    pub wall_ms_per_token: Option<f64>,
    pub tokens_per_s: Option<f64>,
    pub text: String,
}

/// The verdict for a report, or None when the window holds no device time to judge.
pub fn verdict(r: &Report, tokens: Option<u64>) -> Option<Verdict> {
    let devices = r.devices.len() as u64;
    if devices == 0 || r.busy_ns == 0 {
        return None;
    }
    let (wall_ns, wall_source) = match r.window {
        Some(w) => {
            let mut n: Vec<u64> = r
                .cpu_steps()
                .map(|s| s.number)
                .filter(|n| (w.steps.first..=w.steps.last).contains(n))
                .collect();
            n.sort_unstable();
            n.dedup();
            (
                w.end_ns - w.start_ns,
                WallSource::Steps {
                    first: w.steps.first,
                    last: w.steps.last,
                    count: n.len() as u64,
                },
            )
        }
        None => {
            let (a, b) = r.span?;
            (b - a, WallSource::DeviceSpan)
        }
    };
    if wall_ns <= 0 {
        return None;
    }
    let ratio = r.busy_ns as f64 / (wall_ns as f64 * devices as f64);
    let plan = ratio >= PLAN_THRESHOLD;
    let tokens = tokens.filter(|&t| t > 0);
    let per_tok = |ns: i64| tokens.map(|t| ns as f64 / 1e6 / t as f64);
    let kernel_ms_per_token = per_tok(r.busy_ns / devices as i64);
    let wall_ms_per_token = per_tok(wall_ns);
    let tokens_per_s = tokens.map(|t| t as f64 / (wall_ns as f64 / 1e9));

    let wall_label = match wall_source {
        WallSource::Steps { first, last, count } => {
            format!(
                "ProfilerStep#{first}..#{last} ({count} steps, {})",
                ms(wall_ns)
            )
        }
        WallSource::DeviceSpan => format!("the device span ({})", ms(wall_ns)),
    };
    let pct = numbers::fmt::percent(ratio);
    let mut text = if plan {
        format!(
            "Kernel time ≈ step time: the device is busy {pct} of {wall_label}. The device is \
             the bound, so this table is the optimization plan: start at the top row."
        )
    } else {
        let idle = wall_ns as f64 * devices as f64 - r.busy_ns as f64;
        let top = r.names.first();
        let mut t = format!(
            "Kernel time is {pct} of step time ({wall_label}): the device idles {} of it, so \
             this table is not the whole plan; the gaps between kernels (host work, launches, \
             syncs, data movement) are.",
            ms(idle as i64)
        );
        if let Some(top) = top {
            if idle > top.stats.total_ns as f64 {
                t += &format!(
                    " The idle time exceeds the top row's {}.",
                    ms(top.stats.total_ns)
                );
            }
        }
        let rt = &r.runtime;
        let mut host = vec![];
        if rt.launch.count > 0 {
            host.push(format!(
                "{} in {} launch calls ({:.1} µs/call)",
                ms(rt.launch.total_ns),
                rt.launch.count,
                rt.launch.mean_ns().unwrap_or(0.0) / 1e3
            ));
        }
        if rt.sync.count > 0 {
            host.push(format!(
                "{} in {} synchronize calls",
                ms(rt.sync.total_ns),
                rt.sync.count
            ));
        }
        if !host.is_empty() {
            t += &format!(" On the host: {}.", host.join(", "));
        }
        t
    };
    if let (Some(t), Some(k), Some(w), Some(tps)) =
        (tokens, kernel_ms_per_token, wall_ms_per_token, tokens_per_s)
    {
        text += &format!(
            " Over {t} tokens: {k:.3} ms/token of kernel time, {w:.3} ms/token of wall ({tps:.1} tok/s)."
        );
    }
    Some(Verdict {
        wall_ns,
        wall_source,
        kernel_ns: r.busy_ns,
        devices,
        ratio,
        plan,
        tokens,
        kernel_ms_per_token,
        wall_ms_per_token,
        tokens_per_s,
        text,
    })
}

fn ms(ns: i64) -> String {
    format!("{:.2} ms", ns as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::{analyze, Options, StepRange};

    fn report(events: &str, steps: Option<StepRange>) -> Report {
        let json = format!(r#"{{"traceEvents": [{events}]}}"#);
        analyze(
            json.as_bytes(),
            &Options {
                steps,
                known_steps: None,
            },
        )
        .unwrap()
    }

    #[test]
    fn busy_device_makes_the_table_the_plan() {
        let r = report(
            r#"{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","ts":0,"dur":100},
               {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":2,"dur":60},
               {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":62,"dur":35}"#,
            Some(StepRange { first: 1, last: 1 }),
        );
        let v = verdict(&r, Some(10)).unwrap();
        assert_eq!(v.wall_ns, 100_000);
        assert_eq!(v.kernel_ns, 95_000);
        assert!(v.plan);
        assert!((v.kernel_ms_per_token.unwrap() - 0.0095).abs() < 1e-12);
        assert!((v.wall_ms_per_token.unwrap() - 0.01).abs() < 1e-12);
        assert!((v.tokens_per_s.unwrap() - 100_000.0).abs() < 1e-6);
        assert!(v.text.contains("optimization plan"), "{}", v.text);
        assert!(matches!(
            v.wall_source,
            WallSource::Steps {
                first: 1,
                last: 1,
                count: 1
            }
        ));
    }

    #[test]
    fn idle_device_says_the_gaps_are_the_plan() {
        let r = report(
            r#"{"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":0,"dur":10},
               {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":4},
               {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":90,"dur":10}"#,
            None,
        );
        let v = verdict(&r, None).unwrap();
        assert_eq!(v.wall_source, WallSource::DeviceSpan);
        assert_eq!(v.wall_ns, 100_000);
        assert!((v.ratio - 0.2).abs() < 1e-12);
        assert!(!v.plan);
        assert!(v.text.contains("idles 0.08 ms"), "{}", v.text);
        assert!(v.text.contains("exceeds the top row"), "{}", v.text);
        assert!(v.text.contains("1 launch calls"), "{}", v.text);
        assert_eq!(v.kernel_ms_per_token, None);
    }

    #[test]
    fn nothing_to_judge_without_device_time() {
        let r = report(
            r#"{"ph":"X","cat":"cpu_op","name":"a","ts":0,"dur":10}"#,
            None,
        );
        assert!(verdict(&r, Some(5)).is_none());
    }
}
