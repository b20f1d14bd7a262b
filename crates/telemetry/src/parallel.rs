//! Mining on several threads. Parsing a line needs no context, so a reader cuts the input into
//! chunks of whole lines, workers parse chunks in parallel, and the calling thread groups the
//! parsed lines in their original order (grouping is the only part that needs order, and the
//! cheapest). The result is identical to [`crate::mine`].

use crate::ledger::{Item, Miner, MAX_LINE};
use crate::scan::each_newline;
use crate::{Error, Report};
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

/// Bytes read per chunk. A chunk is cut at its last newline; the tail starts the next one.
const CHUNK: usize = 1 << 19;

/// What the reader hands the workers: a sequence number, a buffer, and which bytes of it hold
/// whole lines (or an overlong line's worth of lines to count and skip).
enum Job {
    Lines { seq: u64, buf: Vec<u8>, len: usize },
    Overlong { seq: u64 },
}

struct Done {
    seq: u64,
    items: Vec<Item>,
    buf: Option<Vec<u8>>,
}

/// Reads everything from `r` and mines it on `threads` parser threads (at least one).
/// `stop` ends the reading early (Ctrl-C): what was read is still reported. Returns the report
/// and whether `stop` cut it short.
pub fn mine_parallel<R: Read + Send>(
    r: R,
    threads: usize,
    stop: &AtomicBool,
) -> Result<(Report, bool), Error> {
    let threads = threads.max(1);
    let (job_tx, job_rx) = mpsc::sync_channel::<Job>(threads);
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (done_tx, done_rx) = mpsc::sync_channel::<Done>(threads);
    let (free_tx, free_rx) = mpsc::sync_channel::<Vec<u8>>(threads * 4 + 4);
    // Emptied item vectors go back to the workers: no fresh allocation (and page faults) per
    // chunk.
    let (spare_tx, spare_rx) = mpsc::sync_channel::<Vec<Item>>(threads * 4 + 4);
    let spare_rx = Arc::new(Mutex::new(spare_rx));

    std::thread::scope(|scope| {
        let reader = scope.spawn(move || read_chunks(r, &job_tx, &free_rx, stop));
        for _ in 0..threads {
            let job_rx = Arc::clone(&job_rx);
            let done_tx = done_tx.clone();
            let spare_rx = Arc::clone(&spare_rx);
            scope.spawn(move || parse_jobs(&job_rx, &done_tx, &spare_rx));
        }
        drop(done_tx);

        let mut m = Miner::new();
        group_in_order(&mut m, &done_rx, &free_tx, &spare_tx);
        let read = reader
            .join()
            .unwrap_or_else(|_| Err(Error::Worker("the reader thread panicked".into())));
        let interrupted = read?;
        Ok((m.into_report(), interrupted))
    })
}

/// Applies finished chunks in sequence order; returns their buffers to the reader.
fn group_in_order(
    m: &mut Miner,
    done: &Receiver<Done>,
    free: &SyncSender<Vec<u8>>,
    spare: &SyncSender<Vec<Item>>,
) {
    let mut next = 0u64;
    let mut waiting: BTreeMap<u64, Vec<Item>> = BTreeMap::new();
    for d in done.iter() {
        if let Some(buf) = d.buf {
            let _ = free.try_send(buf);
        }
        waiting.insert(d.seq, d.items);
        while let Some(mut items) = waiting.remove(&next) {
            for item in items.drain(..) {
                m.apply_item(item);
            }
            let _ = spare.try_send(items);
            next += 1;
        }
    }
}

fn parse_jobs(
    jobs: &Mutex<Receiver<Job>>,
    done: &SyncSender<Done>,
    spare: &Mutex<Receiver<Vec<Item>>>,
) {
    let mut scratch = Vec::new();
    loop {
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok(job) = job else { return };
        let d = match job {
            Job::Overlong { seq } => Done {
                seq,
                items: vec![Item::Overlong],
                buf: None,
            },
            Job::Lines { seq, buf, len } => {
                let chunk = &buf[..len];
                let colour = memchr::memchr(0x1b, chunk).is_some();
                let mut items = spare
                    .lock()
                    .ok()
                    .and_then(|rx| rx.try_recv().ok())
                    .unwrap_or_else(|| Vec::with_capacity(len / 64));
                let mut start = 0;
                let mut parse = |line: &[u8]| {
                    if line.len() > MAX_LINE {
                        Item::Overlong
                    } else {
                        Item::parse(line, colour, &mut scratch)
                    }
                };
                each_newline(chunk, |nl| {
                    items.push(parse(&chunk[start..nl]));
                    start = nl + 1;
                });
                if start < len {
                    // The input's last line, without a newline.
                    items.push(parse(&chunk[start..]));
                }
                Done {
                    seq,
                    items,
                    buf: Some(buf),
                }
            }
        };
        if done.send(d).is_err() {
            return;
        }
    }
}

/// Cuts the input into chunks of whole lines, about [`CHUNK`] bytes each. A line longer than
/// [`MAX_LINE`] is skipped as it streams and sent as one `Overlong`. Returns whether `stop`
/// ended the reading.
fn read_chunks<R: Read>(
    mut r: R,
    jobs: &SyncSender<Job>,
    free: &Receiver<Vec<u8>>,
    stop: &AtomicBool,
) -> Result<bool, Error> {
    let size = CHUNK + MAX_LINE + 1;
    // Buffers grow only as far as a read needs (a chunk and the line it cut), so the room
    // kept for an overlong line is never zeroed, nor its pages touched, unless one comes.
    let take = || free.try_recv().unwrap_or_default();
    let mut seq = 0u64;
    let mut offset = 0u64;
    let mut buf = take();
    let mut filled = 0usize;
    // The last newline in buf[..filled]; bytes after it are an unfinished line.
    let mut last_nl: Option<usize> = None;
    // Inside an overlong line: drop bytes until its newline.
    let mut skipping = false;
    loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(true);
        }
        let want = (filled + CHUNK).min(size);
        if buf.len() < want {
            buf.resize(want, 0);
        }
        let n = loop {
            match r.read(&mut buf[filled..want]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => return Err(Error::Read { offset, source }),
            }
        };
        offset += n as u64;
        let eof = n == 0;
        let new = filled;
        filled += n;

        if skipping {
            match memchr::memchr(b'\n', &buf[new..filled]) {
                Some(p) => {
                    // The overlong line ends here; keep what follows.
                    skipping = false;
                    let keep = new + p + 1;
                    buf.copy_within(keep..filled, 0);
                    filled -= keep;
                    last_nl = memchr::memrchr(b'\n', &buf[..filled]);
                    send(jobs, Job::Overlong { seq })?;
                    seq += 1;
                }
                None => {
                    filled = 0;
                    if eof {
                        send(jobs, Job::Overlong { seq })?;
                        return Ok(false);
                    }
                    continue;
                }
            }
        } else if let Some(p) = memchr::memrchr(b'\n', &buf[new..filled]) {
            last_nl = Some(new + p);
        }

        if eof {
            if filled > 0 {
                send(
                    jobs,
                    Job::Lines {
                        seq,
                        buf,
                        len: filled,
                    },
                )?;
            }
            return Ok(false);
        }
        match last_nl {
            Some(last) if filled >= CHUNK => {
                let mut next = take();
                let tail = filled - (last + 1);
                if next.len() < tail {
                    next.resize(tail, 0);
                }
                next[..tail].copy_from_slice(&buf[last + 1..filled]);
                send(
                    jobs,
                    Job::Lines {
                        seq,
                        buf,
                        len: last + 1,
                    },
                )?;
                seq += 1;
                buf = next;
                filled = tail;
                last_nl = None;
            }
            None if filled > MAX_LINE => {
                skipping = true;
                filled = 0;
            }
            _ => {}
        }
    }
}

fn send(jobs: &SyncSender<Job>, job: Job) -> Result<(), Error> {
    jobs.send(job)
        .map_err(|_| Error::Worker("the parser threads stopped".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that returns at most `n` bytes per call, to move chunk boundaries around.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn sample() -> Vec<u8> {
        let real = include_bytes!("../tests/data/llama-server-11434-restart.log");
        let mut log = Vec::new();
        log.extend_from_slice(real);
        log.extend_from_slice(b"\n\x1b[32mI \x1b[0mslot x\n");
        log.extend(std::iter::repeat_n(b'x', MAX_LINE + 5));
        log.push(b'\n');
        log.extend_from_slice(real);
        log.extend_from_slice(b"last line without newline: slot print_timing: id 0 | task 1 | x");
        log
    }

    #[test]
    fn same_report_as_the_sequential_miner() {
        let log = sample();
        let want = crate::mine(&log[..]).unwrap();
        assert_eq!(want.overlong_lines, 1);
        let stop = AtomicBool::new(false);
        for threads in [1, 2, 3] {
            for step in [997, 65536, 1 << 22] {
                let (got, interrupted) =
                    mine_parallel(Trickle(&log, step), threads, &stop).unwrap();
                assert!(!interrupted);
                assert_eq!(got, want, "threads {threads}, reads of {step}");
            }
        }
    }

    #[test]
    fn an_overlong_last_line_is_counted() {
        let mut log = b"slot print_timing: id 0 | task 1 | x\n".to_vec();
        log.extend(std::iter::repeat_n(b'y', MAX_LINE * 2 + 3));
        let want = crate::mine(&log[..]).unwrap();
        let (got, _) = mine_parallel(&log[..], 2, &AtomicBool::new(false)).unwrap();
        assert_eq!((got.lines, got.overlong_lines), (2, 1));
        assert_eq!(got, want);
    }

    #[test]
    fn stop_ends_early_with_a_report() {
        let log = sample();
        let stop = AtomicBool::new(true);
        let (r, interrupted) = mine_parallel(&log[..], 2, &stop).unwrap();
        assert!(interrupted);
        assert_eq!(r.lines, 0);
    }

    #[test]
    fn read_errors_name_the_offset() {
        struct Failing(usize);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.0 == 0 {
                    return Err(std::io::Error::other("disk on fire"));
                }
                let n = self.0.min(buf.len());
                buf[..n].fill(b'\n');
                self.0 -= n;
                Ok(n)
            }
        }
        let e = mine_parallel(Failing(10), 2, &AtomicBool::new(false)).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("byte 10") && msg.contains("disk on fire"),
            "{msg}"
        );
    }
}
