//! Host RAM bandwidth, measured ("measure the host's real bandwidth, never assume
//! DIMM ratings; single-threaded reads under-report ~4x, use the multi-threaded plateau of a
//! checksumming reader").
//!
//! Two kernels over one buffer far larger than the last-level cache:
//! * **read**: each thread sums its own contiguous slice of u64s (eight accumulators, so the
//!   adds never bind); the sum is kept, so the loads cannot be optimized away. Bytes counted:
//!   the buffer.
//! * **triad** (STREAM's): `a[i] = b[i] + s·c[i]` over three thirds of the buffer. Bytes counted
//!   the way STREAM counts them, 24 per element; the write-allocate read of `a` is not counted.
//!
//! Each (kernel, thread count) runs `passes` times; a pass is timed from a barrier that every
//! worker has reached to the last worker's finish. The figure is the best pass (as STREAM
//! reports), with the median beside it to show the spread.

use std::sync::Barrier;
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// Why a measurement could not run.
#[derive(Debug, thiserror::Error)]
pub enum HostmemError {
    #[error("buffer of {bytes} bytes is too small: needs at least {min} (3 × 8 bytes × 1024 per thread)")]
    TooSmall { bytes: u64, min: u64 },
    #[error("buffer of {bytes} bytes does not fit in this machine's address space")]
    TooLarge { bytes: u64 },
    #[error("thread count 0: every run needs at least one thread")]
    NoThreads,
    #[error("passes must be at least 1")]
    NoPasses,
}

/// What to measure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Thread counts, each measured in turn (duplicates are measured once).
    pub threads: Vec<usize>,
    /// Whole buffer in bytes (read covers all of it; triad splits it in three arrays).
    pub buffer_bytes: u64,
    /// Timed passes per (kernel, thread count).
    pub passes: u32,
}

/// One kernel at one thread count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelRun {
    /// Best pass, GB/s (1e9 bytes per second).
    pub best_gbps: f64,
    /// Median pass, GB/s.
    pub median_gbps: f64,
    /// Every pass, GB/s, in the order they ran.
    pub passes_gbps: Vec<f64>,
    /// Bytes one pass counts.
    pub bytes_per_pass: u64,
}

/// Both kernels at one thread count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadRun {
    pub threads: usize,
    pub read: KernelRun,
    pub triad: KernelRun,
}

/// The `--json` document of `headroom membw` (docs/json/membw.md).
pub const SCHEMA: &str = "headroom.membw/1";

/// The buffer should be at least this many times the last-level cache, or the read kernel
/// partly measures the cache.
pub const MIN_LLC_MULTIPLE: f64 = 8.0;

/// A whole measurement: the `headroom.membw/1` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    pub schema: String,
    pub buffer_bytes: u64,
    /// Largest CPU cache the kernel reports (sysfs), when it reports one.
    pub llc_bytes: Option<u64>,
    /// buffer_bytes / llc_bytes.
    pub llc_multiple: Option<f64>,
    /// CPUs this process may run on.
    pub cpus: usize,
    /// Timed passes per kernel and thread count.
    pub passes: u32,
    pub runs: Vec<ThreadRun>,
    /// The best read figure over all thread counts: the bandwidth a ceiling should use.
    pub read_plateau: Plateau,
    /// The best triad figure over all thread counts.
    pub triad_plateau: Plateau,
    /// What the figures could not promise, in words (empty when nothing).
    pub notes: Vec<String>,
}

/// The best figure of one kernel over the thread counts, and where it was.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Plateau {
    pub threads: usize,
    pub gbps: f64,
}

fn best_of(it: impl Iterator<Item = (usize, f64)>) -> Plateau {
    it.fold(
        Plateau {
            threads: 0,
            gbps: 0.0,
        },
        |acc, (threads, gbps)| {
            if gbps > acc.gbps {
                Plateau { threads, gbps }
            } else {
                acc
            }
        },
    )
}

/// CPUs this process may run on (affinity and cgroup quota respected by the standard library).
pub fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The thread counts a sweep measures by default: 1, 2, 4 … below the CPU count, then the
/// CPU count, so the plateau is found without a run per thread.
pub fn default_threads(cpus: usize) -> Vec<usize> {
    let mut t: Vec<usize> = std::iter::successors(Some(1usize), |&n| n.checked_mul(2))
        .take_while(|&n| n < cpus)
        .collect();
    t.push(cpus.max(1));
    t
}

/// The largest cache size under `/sys/devices/system/cpu/cpu0/cache` (the last level).
pub fn last_level_cache() -> Option<u64> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    dir.filter_map(|e| e.ok())
        .filter_map(|e| std::fs::read_to_string(e.path().join("size")).ok())
        .filter_map(|s| parse_cache_size(s.trim()))
        .max()
}

/// sysfs cache sizes: `32768K`, `1024K`, `32M`.
pub fn parse_cache_size(s: &str) -> Option<u64> {
    let (digits, mult) = match s.as_bytes().last()? {
        b'K' => (&s[..s.len() - 1], 1u64 << 10),
        b'M' => (&s[..s.len() - 1], 1 << 20),
        b'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

/// Thread counts in a run: the requested ones, deduplicated, in ascending order.
fn thread_counts(requested: &[usize]) -> Result<Vec<usize>, HostmemError> {
    if requested.contains(&0) || requested.is_empty() {
        return Err(HostmemError::NoThreads);
    }
    let mut t = requested.to_vec();
    t.sort_unstable();
    t.dedup();
    Ok(t)
}

/// Measures both kernels at every thread count. `progress` hears a line before each run (for
/// stderr); nothing here prints.
pub fn measure(
    opts: &Options,
    mut progress: impl FnMut(&str),
) -> Result<Measurement, HostmemError> {
    let threads = thread_counts(&opts.threads)?;
    if opts.passes == 0 {
        return Err(HostmemError::NoPasses);
    }
    let max_threads = *threads.last().unwrap_or(&1);
    let min = 3 * 8 * 1024 * max_threads as u64;
    if opts.buffer_bytes < min {
        return Err(HostmemError::TooSmall {
            bytes: opts.buffer_bytes,
            min,
        });
    }
    let words = usize::try_from(opts.buffer_bytes / 8).map_err(|_| HostmemError::TooLarge {
        bytes: opts.buffer_bytes,
    })?;
    progress(&format!(
        "hostmem: filling {} MiB with {} threads",
        opts.buffer_bytes >> 20,
        max_threads
    ));
    // Written, not calloc'd: untouched pages all map the one zero page, which would read from
    // cache at absurd speeds.
    let mut buf = alloc_filled(words, max_threads)?;
    let mut runs = Vec::with_capacity(threads.len());
    for &t in &threads {
        progress(&format!(
            "hostmem: read, {t} thread(s), {} passes",
            opts.passes
        ));
        let read = run_kernel(opts.passes, (words * 8) as u64, || read_pass(&buf, t));
        progress(&format!(
            "hostmem: triad, {t} thread(s), {} passes",
            opts.passes
        ));
        let third = words / 3;
        let triad = run_kernel(opts.passes, (third * 24) as u64, || triad_pass(&mut buf, t));
        runs.push(ThreadRun {
            threads: t,
            read,
            triad,
        });
    }
    let buffer_bytes = (words * 8) as u64;
    let llc_bytes = last_level_cache();
    let llc_multiple = llc_bytes
        .filter(|&c| c > 0)
        .map(|c| buffer_bytes as f64 / c as f64);
    let cpus = cpus();
    let mut notes = Vec::new();
    match llc_multiple {
        Some(m) if m < MIN_LLC_MULTIPLE => notes.push(format!(
            "the buffer is only {m:.1}× the last-level cache (want ≥ {MIN_LLC_MULTIPLE}×): \
             the figures partly measure the cache; use a larger --size"
        )),
        None => notes.push(
            "the last-level cache size is unknown (no sysfs cache entry): check that the \
             buffer is far larger than it"
                .into(),
        ),
        Some(_) => {}
    }
    if max_threads < cpus {
        notes.push(format!(
            "measured up to {max_threads} of {cpus} CPUs: the plateau may lie higher"
        ));
    }
    Ok(Measurement {
        schema: SCHEMA.into(),
        buffer_bytes,
        llc_bytes,
        llc_multiple,
        cpus,
        passes: opts.passes,
        read_plateau: best_of(runs.iter().map(|r| (r.threads, r.read.best_gbps))),
        triad_plateau: best_of(runs.iter().map(|r| (r.threads, r.triad.best_gbps))),
        runs,
        notes,
    })
}

fn alloc_filled(words: usize, threads: usize) -> Result<Vec<u64>, HostmemError> {
    if words.checked_mul(8).is_none() {
        return Err(HostmemError::TooLarge {
            bytes: words as u64 * 8,
        });
    }
    // vec! of zeros is calloc: the pages stay untouched until the workers write the pattern,
    // so first touch places them where the workers run.
    let mut buf = vec![0u64; words];
    let chunk = words.div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (i, part) in buf.chunks_mut(chunk).enumerate() {
            s.spawn(move || {
                let base = (i * chunk) as u64;
                for (j, w) in part.iter_mut().enumerate() {
                    // Any non-zero pattern; the read kernel's sum depends on it.
                    *w = (base + j as u64) | 1;
                }
            });
        }
    });
    Ok(buf)
}

fn run_kernel(passes: u32, bytes: u64, mut pass: impl FnMut() -> f64) -> KernelRun {
    let mut secs: Vec<f64> = (0..passes).map(|_| pass()).collect();
    let passes_gbps: Vec<f64> = secs.iter().map(|&s| gbps(bytes, s)).collect();
    secs.sort_by(f64::total_cmp);
    KernelRun {
        best_gbps: gbps(bytes, secs[0]),
        median_gbps: gbps(bytes, numbers::median(&secs).unwrap_or(f64::NAN)),
        passes_gbps,
        bytes_per_pass: bytes,
    }
}

fn gbps(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 / secs / 1e9
    } else {
        f64::INFINITY
    }
}

/// Seconds for one pass of the read kernel: every worker sums its slice.
fn read_pass(buf: &[u64], threads: usize) -> f64 {
    let chunk = buf.len().div_ceil(threads);
    let barrier = Barrier::new(threads + 1);
    std::thread::scope(|s| {
        let workers: Vec<_> = buf
            .chunks(chunk)
            .map(|part| {
                let barrier = &barrier;
                s.spawn(move || {
                    barrier.wait();
                    std::hint::black_box(sum(part))
                })
            })
            .collect();
        // Threads beyond the number of chunks (tiny buffers) still meet the barrier.
        for _ in workers.len()..threads {
            let barrier = &barrier;
            s.spawn(move || {
                barrier.wait();
            });
        }
        barrier.wait();
        let start = Instant::now();
        for w in workers {
            let _ = w.join();
        }
        start.elapsed().as_secs_f64()
    })
}

/// Sum with eight independent accumulators (the adds are never the bound).
fn sum(words: &[u64]) -> u64 {
    let mut acc = [0u64; 8];
    let mut it = words.chunks_exact(8);
    for c in &mut it {
        for k in 0..8 {
            acc[k] = acc[k].wrapping_add(c[k]);
        }
    }
    let tail: u64 = it.remainder().iter().fold(0, |a, &w| a.wrapping_add(w));
    acc.iter().fold(tail, |a, &w| a.wrapping_add(w))
}

/// Seconds for one triad pass: `a = b + s·c` over the buffer's three thirds as f64 bits.
fn triad_pass(buf: &mut [u64], threads: usize) -> f64 {
    let third = buf.len() / 3;
    let (a, rest) = buf.split_at_mut(third);
    let (b, rest) = rest.split_at_mut(third);
    let c = &rest[..third];
    let chunk = third.div_ceil(threads);
    let barrier = Barrier::new(threads + 1);
    std::thread::scope(|s| {
        let mut workers = Vec::new();
        for ((a, b), c) in a
            .chunks_mut(chunk)
            .zip(b.chunks(chunk))
            .zip(c.chunks(chunk))
        {
            let barrier = &barrier;
            workers.push(s.spawn(move || {
                barrier.wait();
                triad(a, b, c, 3.0);
            }));
        }
        for _ in workers.len()..threads {
            let barrier = &barrier;
            s.spawn(move || {
                barrier.wait();
            });
        }
        barrier.wait();
        let start = Instant::now();
        for w in workers {
            let _ = w.join();
        }
        start.elapsed().as_secs_f64()
    })
}

/// STREAM triad on u64 storage read as f64 (the bits are any finite or non-finite values: the
/// arithmetic costs the same and the stores are what is measured).
fn triad(a: &mut [u64], b: &[u64], c: &[u64], s: f64) {
    for ((a, &b), &c) in a.iter_mut().zip(b).zip(c) {
        *a = (f64::from_bits(b) + s * f64::from_bits(c)).to_bits();
    }
    std::hint::black_box(a);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_thread_lists() {
        assert_eq!(default_threads(1), [1]);
        assert_eq!(default_threads(2), [1, 2]);
        assert_eq!(default_threads(12), [1, 2, 4, 8, 12]);
        assert_eq!(default_threads(16), [1, 2, 4, 8, 16]);
    }

    #[test]
    fn cache_sizes_from_sysfs_text() {
        assert_eq!(parse_cache_size("32768K"), Some(32 << 20));
        assert_eq!(parse_cache_size("32M"), Some(32 << 20));
        assert_eq!(parse_cache_size("512"), Some(512));
        assert_eq!(parse_cache_size("K"), None);
        assert_eq!(parse_cache_size(""), None);
        assert_eq!(parse_cache_size("xK"), None);
    }

    #[test]
    fn the_reader_sums_every_word() {
        let v: Vec<u64> = (1..=1003).collect();
        assert_eq!(sum(&v), 1003 * 1004 / 2);
    }

    #[test]
    fn triad_computes_b_plus_s_c() {
        let b: Vec<u64> = [1.0f64, 2.0, 3.0].iter().map(|x| x.to_bits()).collect();
        let c: Vec<u64> = [10.0f64, 20.0, 30.0].iter().map(|x| x.to_bits()).collect();
        let mut a = vec![0u64; 3];
        triad(&mut a, &b, &c, 3.0);
        let got: Vec<f64> = a.iter().map(|&x| f64::from_bits(x)).collect();
        assert_eq!(got, vec![31.0, 62.0, 93.0]);
    }

    #[test]
    fn bad_options_are_errors_not_panics() {
        let o = |threads: Vec<usize>, bytes, passes| Options {
            threads,
            buffer_bytes: bytes,
            passes,
        };
        assert!(matches!(
            measure(&o(vec![0], 1 << 20, 1), |_| {}),
            Err(HostmemError::NoThreads)
        ));
        assert!(matches!(
            measure(&o(vec![], 1 << 20, 1), |_| {}),
            Err(HostmemError::NoThreads)
        ));
        assert!(matches!(
            measure(&o(vec![1], 1 << 20, 0), |_| {}),
            Err(HostmemError::NoPasses)
        ));
        assert!(matches!(
            measure(&o(vec![4], 100, 1), |_| {}),
            Err(HostmemError::TooSmall { .. })
        ));
    }

    #[test]
    fn a_small_run_reports_every_thread_count_once_in_order() {
        // 3 MiB: shape only (figures from a cache-resident buffer say nothing about RAM).
        let m = measure(
            &Options {
                threads: vec![2, 1, 2],
                buffer_bytes: 3 << 20,
                passes: 2,
            },
            |_| {},
        )
        .unwrap();
        assert_eq!(m.runs.iter().map(|r| r.threads).collect::<Vec<_>>(), [1, 2]);
        for r in &m.runs {
            assert_eq!(r.read.passes_gbps.len(), 2);
            assert_eq!(r.read.bytes_per_pass, 3 << 20);
            assert_eq!(r.triad.bytes_per_pass, (3 << 20) / 24 * 24);
            assert!(r.read.best_gbps >= r.read.median_gbps);
            assert!(r.read.best_gbps > 0.0 && r.triad.best_gbps > 0.0);
        }
        assert!(m
            .runs
            .iter()
            .all(|r| r.read.best_gbps <= m.read_plateau.gbps));
        assert!(m.runs.iter().any(
            |r| r.read.best_gbps == m.read_plateau.gbps && r.threads == m.read_plateau.threads
        ));
        assert_eq!(m.schema, SCHEMA);
    }
}
