//! Mining on several threads. Parsing a line needs no context, so workers take turns reading
//! the next chunk of whole lines (numbered in input order), parse their chunks in parallel, and
//! the calling thread groups the parsed lines in their original order (grouping is the only
//! part that needs order, and the cheapest). The result is identical to [`crate::mine`].

use crate::ledger::{Item, Miner, MAX_LINE};
use crate::scan::each_line_end;
use crate::{Error, Report};
use std::collections::{BTreeMap, VecDeque};
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::Mutex;

/// Bytes read per chunk. A chunk is cut at its last newline; the tail starts the next one.
const CHUNK: usize = 1 << 19;

/// What the reader hands the workers: a sequence number, a buffer, and which bytes of it hold
/// whole lines (or an overlong line's worth of lines to count and skip).
enum Job<'m> {
    Lines {
        seq: u64,
        buf: Vec<u8>,
        len: usize,
    },
    /// Whole lines of a mapped file, read in place.
    Mapped {
        seq: u64,
        lines: &'m [u8],
    },
    Overlong {
        seq: u64,
    },
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
    mine_parallel_into(Miner::new(), r, threads, stop)
}

/// [`mine_parallel`] into a given miner, e.g. [`Miner::folding`] when no per-request records
/// are wanted.
pub fn mine_parallel_into<R: Read + Send>(
    m: Miner,
    r: R,
    threads: usize,
    stop: &AtomicBool,
) -> Result<(Report, bool), Error> {
    mine_chunks(m, Chunker::new(r, None, stop), threads)
}

/// [`mine_parallel_into`] from a file (or stdin redirected from one), read from its current
/// position. The result is the same; a regular file's holes (a sparse file's unwritten
/// ranges, found with `SEEK_HOLE`/`SEEK_DATA` as GNU grep does) are skipped unread where the
/// line holding them is over [`MAX_LINE`] anyway: a hole holds only NUL bytes, so no newline.
///
/// The data before the first hole is mapped (`mmap`) and parsed in place, without the copy a
/// `read` makes; what follows it (holes, or lines written since mining began) is read. A file
/// emptied or cut short while mapped (logrotate's `copytruncate`) is an error that says so,
/// not a crash (see `mapped.rs`).
pub fn mine_file_into(
    m: Miner,
    f: std::fs::File,
    threads: usize,
    stop: &AtomicBool,
) -> Result<(Report, bool), Error> {
    let mut holes = crate::holes::Holes::new(&f);
    // The data before the first hole is mapped and read in place (no copy); reading goes on
    // from its end (what the file grew by since, holes, or everything when mapping fails).
    let map = match holes.as_mut() {
        Some(h) => map_data(&f, h),
        None => None,
    };
    let chunker = Chunker::new(&f, holes, stop).with_map(map.as_ref().map(MappedData::bytes));
    let mined = mine_chunks(m, chunker, threads);
    if let Some(map) = map.filter(MappedData::was_cut) {
        // What was read past the file's new end came back as zeros: not the log.
        let size = f.metadata().map_or(0, |m| m.len());
        return Err(Error::Read {
            offset: size.saturating_sub(map.offset),
            source: std::io::Error::other(
                "the file shrank while it was being read (emptied in place, as logrotate's \
                 copytruncate does); run again on what it holds now",
            ),
        });
    }
    mined
}

/// Files smaller than this are read: mapping costs more than the copy it saves.
const MAP_MIN: u64 = 4 * CHUNK as u64;

/// A mapped file's data from the read position to the first hole, its position moved past it.
struct MappedData {
    map: crate::mapped::Mapped,
    /// Where the mapping starts in the file (the read position when mining began).
    offset: u64,
}

impl MappedData {
    fn bytes(&self) -> &[u8] {
        self.map.bytes()
    }
    fn was_cut(&self) -> bool {
        self.map.was_cut()
    }
}

fn map_data(f: &std::fs::File, h: &mut crate::holes::Holes) -> Option<MappedData> {
    let len = h.before_hole().filter(|&n| n >= MAP_MIN)?;
    let offset = h.pos();
    let map = crate::mapped::Mapped::new(f, offset, usize::try_from(len).ok()?)?;
    // The reader goes on where the mapping ends.
    let end = offset.checked_add(len)?;
    if h.skip_to(end).is_err() {
        return None;
    }
    Some(MappedData { map, offset })
}

fn mine_chunks<R: Read + Send>(
    mut m: Miner,
    chunker: Chunker<'_, R>,
    threads: usize,
) -> Result<(Report, bool), Error> {
    let threads = threads.max(1);
    let (done_tx, done_rx) = mpsc::sync_channel::<Done>(threads * 4);
    let (free_tx, free_rx) = mpsc::sync_channel::<Vec<u8>>(threads * 4 + 4);
    // Emptied item vectors go back to the workers: no fresh allocation (and page faults) per
    // chunk.
    let (spare_tx, spare_rx) = mpsc::sync_channel::<Vec<Item>>(threads * 4 + 4);
    let spare_rx = Mutex::new(spare_rx);
    // The parser threads read their own chunks, one at a time: no reader thread to hand each
    // chunk over (and wake a parser for it).
    let chunker = Mutex::new(chunker.with_free(free_rx));

    let m = std::thread::scope(|scope| {
        for _ in 0..threads {
            let done_tx = done_tx.clone();
            let (chunker, spare_rx) = (&chunker, &spare_rx);
            scope.spawn(move || parse_jobs(chunker, &done_tx, spare_rx));
        }
        drop(done_tx);
        group_in_order(&mut m, &done_rx, &free_tx, &spare_tx);
        m
    });
    let end = chunker
        .into_inner()
        .map_err(|_| Error::Worker("a parser thread panicked while reading".into()))?
        .end;
    let interrupted =
        end.unwrap_or_else(|| Err(Error::Worker("the parser threads stopped".into())))?;
    Ok((m.into_report(), interrupted))
}

/// Applies finished chunks in sequence order; returns their buffers to the chunker.
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

fn parse_jobs<R: Read>(
    chunker: &Mutex<Chunker<R>>,
    done: &SyncSender<Done>,
    spare: &Mutex<Receiver<Vec<Item>>>,
) {
    let mut scratch = Vec::new();
    loop {
        let job = match chunker.lock() {
            Ok(mut c) => c.next_job(),
            Err(_) => return,
        };
        let Some(job) = job else { return };
        let d = match job {
            Job::Overlong { seq } => Done {
                seq,
                items: vec![Item::Overlong],
                buf: None,
            },
            Job::Lines { seq, buf, len } => Done {
                seq,
                items: parse_chunk(&buf[..len], spare, &mut scratch),
                buf: Some(buf),
            },
            Job::Mapped { seq, lines } => Done {
                seq,
                items: parse_chunk(lines, spare, &mut scratch),
                buf: None,
            },
        };
        if done.send(d).is_err() {
            return;
        }
    }
}

fn parse_chunk(
    chunk: &[u8],
    spare: &Mutex<Receiver<Vec<Item>>>,
    scratch: &mut Vec<u8>,
) -> Vec<Item> {
    let len = chunk.len();
    let mut items = spare
        .lock()
        .ok()
        .and_then(|rx| rx.try_recv().ok())
        .unwrap_or_else(|| Vec::with_capacity(len / 64));
    let mut start = 0;
    // Each line is parsed into its place in `items` (see `Item::parse_into`).
    let mut parse = |line: &[u8], colour: bool| {
        items.push(Item::Overlong);
        if line.len() <= MAX_LINE {
            if let Some(out) = items.last_mut() {
                Item::parse_into(line, colour, scratch, out);
            }
        }
    };
    each_line_end(chunk, |nl, esc| {
        parse(&chunk[start..nl], esc);
        start = nl + 1;
    });
    if start < len {
        // The input's last line, without a newline (`parse` looks for colour codes in it).
        parse(&chunk[start..], true);
    }
    items
}

/// Cuts the input into chunks of whole lines, about [`CHUNK`] bytes each. A line longer than
/// [`MAX_LINE`] is skipped as it streams and becomes one `Overlong` job.
struct Chunker<'s, R> {
    r: R,
    /// Where a regular file's holes are, when the input is one.
    holes: Option<crate::holes::Holes>,
    stop: &'s AtomicBool,
    /// Buffers the grouping thread is done with.
    free: Option<Receiver<Vec<u8>>>,
    seq: u64,
    offset: u64,
    buf: Vec<u8>,
    filled: usize,
    /// The last newline in buf[..filled]; bytes after it are an unfinished line.
    last_nl: Option<usize>,
    /// Inside an overlong line: drop bytes until its newline.
    skipping: bool,
    /// A mapped file's first bytes, handed out in place before anything is read; `map_pos`
    /// is where the next chunk starts.
    map: &'s [u8],
    map_pos: usize,
    /// Jobs cut and not yet handed out (a read can finish an overlong line and a chunk).
    pending: VecDeque<Job<'s>>,
    /// Once the input is over: whether `stop` ended it, or the read error.
    end: Option<Result<bool, Error>>,
}

impl<'s, R: Read> Chunker<'s, R> {
    fn new(r: R, holes: Option<crate::holes::Holes>, stop: &'s AtomicBool) -> Self {
        Chunker {
            r,
            holes,
            stop,
            free: None,
            seq: 0,
            offset: 0,
            buf: Vec::new(),
            filled: 0,
            last_nl: None,
            skipping: false,
            map: &[],
            map_pos: 0,
            pending: VecDeque::new(),
            end: None,
        }
    }

    fn with_map(mut self, map: Option<&'s [u8]>) -> Self {
        self.map = map.unwrap_or_default();
        self
    }

    fn with_free(mut self, free: Receiver<Vec<u8>>) -> Self {
        self.free = Some(free);
        self
    }

    /// A buffer the grouping thread is done with, or a new one.
    fn spare_buf(&self) -> Vec<u8> {
        self.free
            .as_ref()
            .and_then(|f| f.try_recv().ok())
            .unwrap_or_default()
    }

    /// The next chunk of lines, or `None` once the input is over (see `end`).
    fn next_job(&mut self) -> Option<Job<'s>> {
        loop {
            if let Some(job) = self.pending.pop_front() {
                return Some(job);
            }
            if self.end.is_some() {
                return None;
            }
            if self.map_pos < self.map.len() {
                if let Some(job) = self.next_mapped() {
                    return Some(job);
                }
                continue;
            }
            if let Err(e) = self.step() {
                self.end = Some(Err(e));
            }
        }
    }

    /// The next chunk of whole lines from the mapping. At its end, the unfinished last line
    /// goes to the buffer and reading goes on after the mapping.
    fn next_mapped(&mut self) -> Option<Job<'s>> {
        if self.stop.load(Ordering::Relaxed) {
            self.end = Some(Ok(true));
            return None;
        }
        let map = self.map;
        let from = self.map_pos;
        let to = (from + CHUNK).min(map.len());
        // The chunk ends at the last newline in its window, or past the window at the first
        // newline after it (a line longer than a chunk).
        let end = memchr::memrchr(b'\n', &map[from..to])
            .map(|p| from + p + 1)
            .or_else(|| memchr::memchr(b'\n', &map[to..]).map(|p| to + p + 1));
        let Some(end) = end else {
            // No newline left: the unfinished last line is read on with what follows.
            let tail = &map[from..];
            self.map_pos = map.len();
            self.offset += tail.len() as u64;
            if tail.len() > MAX_LINE {
                self.skipping = true;
            } else {
                self.buf.clear();
                self.buf.extend_from_slice(tail);
                self.filled = tail.len();
            }
            return None;
        };
        self.map_pos = end;
        self.offset += (end - from) as u64;
        let seq = self.seq;
        self.seq += 1;
        Some(Job::Mapped {
            seq,
            lines: &map[from..end],
        })
    }

    /// One read: queues the jobs it completes, sets `end` when the input is over.
    fn step(&mut self) -> Result<(), Error> {
        if self.stop.load(Ordering::Relaxed) {
            self.end = Some(Ok(true));
            return Ok(());
        }
        // Buffers grow only as far as a read needs (a chunk and the line it cut), so the room
        // kept for an overlong line is never zeroed, nor its pages touched, unless one comes.
        let room = if self.holes.is_some() {
            self.skip_hole()?
        } else {
            None
        };
        let mut want = (self.filled + CHUNK).min(CHUNK + MAX_LINE + 1);
        if let Some(room) = room.filter(|&r| r > 0) {
            // Stop where the next hole begins, to look at it before reading it.
            want = want.min(
                self.filled
                    .saturating_add(usize::try_from(room).unwrap_or(usize::MAX)),
            );
        }
        if self.buf.len() < want {
            self.buf.resize(want, 0);
        }
        let n = loop {
            match self.r.read(&mut self.buf[self.filled..want]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(Error::Read {
                        offset: self.offset,
                        source,
                    })
                }
            }
        };
        self.offset += n as u64;
        if let Some(h) = self.holes.as_mut() {
            h.advance(n);
        }
        let eof = n == 0;
        let new = self.filled;
        self.filled += n;

        if self.skipping {
            match memchr::memchr(b'\n', &self.buf[new..self.filled]) {
                Some(p) => {
                    // The overlong line ends here; keep what follows.
                    self.skipping = false;
                    let keep = new + p + 1;
                    self.buf.copy_within(keep..self.filled, 0);
                    self.filled -= keep;
                    self.last_nl = memchr::memrchr(b'\n', &self.buf[..self.filled]);
                    self.pending.push_back(Job::Overlong { seq: self.seq });
                    self.seq += 1;
                }
                None => {
                    self.filled = 0;
                    if eof {
                        self.pending.push_back(Job::Overlong { seq: self.seq });
                        self.end = Some(Ok(false));
                    }
                    return Ok(());
                }
            }
        } else if let Some(p) = memchr::memrchr(b'\n', &self.buf[new..self.filled]) {
            self.last_nl = Some(new + p);
        }

        if eof {
            if self.filled > 0 {
                self.pending.push_back(Job::Lines {
                    seq: self.seq,
                    buf: std::mem::take(&mut self.buf),
                    len: self.filled,
                });
            }
            self.end = Some(Ok(false));
            return Ok(());
        }
        match self.last_nl {
            Some(last) if self.filled >= CHUNK => {
                let mut next = self.spare_buf();
                let tail = self.filled - (last + 1);
                if next.len() < tail {
                    next.resize(tail, 0);
                }
                next[..tail].copy_from_slice(&self.buf[last + 1..self.filled]);
                self.pending.push_back(Job::Lines {
                    seq: self.seq,
                    buf: std::mem::replace(&mut self.buf, next),
                    len: last + 1,
                });
                self.seq += 1;
                self.filled = tail;
                self.last_nl = None;
            }
            None if self.filled > MAX_LINE => {
                self.skipping = true;
                self.filled = 0;
            }
            _ => {}
        }
        Ok(())
    }

    /// At a hole of a regular file: skips it when the line holding it is overlong anyway
    /// (already skipping, or the hole alone is over [`MAX_LINE`]), as if its NUL bytes had been
    /// read; otherwise reads on through it. Returns how many bytes lie before the next hole,
    /// when known.
    fn skip_hole(&mut self) -> Result<Option<u64>, Error> {
        let Some(h) = self.holes.as_mut() else {
            return Ok(None);
        };
        let at_hole = h.at_hole(|len| self.skipping || len > MAX_LINE as u64);
        let skipped = match at_hole {
            Ok(skipped) => skipped,
            Err(source) => {
                return Err(Error::Read {
                    offset: self.offset,
                    source,
                })
            }
        };
        let room = h.before_hole();
        if skipped > 0 {
            self.offset += skipped;
            if !self.skipping {
                // The lines before the hole are whole; the one the hole is in is overlong.
                if let Some(last) = self.last_nl {
                    let next = self.spare_buf();
                    self.pending.push_back(Job::Lines {
                        seq: self.seq,
                        buf: std::mem::replace(&mut self.buf, next),
                        len: last + 1,
                    });
                    self.seq += 1;
                    self.last_nl = None;
                }
                self.filled = 0;
                self.skipping = true;
            }
        }
        Ok(room)
    }
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

    /// A sparse file: each part is data, or a hole of that many NUL bytes (unwritten).
    enum Part<'a> {
        Data(&'a [u8]),
        Hole(usize),
    }

    /// Writes `parts` to a new file (holes left unwritten) and returns its path and its bytes.
    fn sparse(name: &str, parts: &[Part]) -> (std::path::PathBuf, Vec<u8>) {
        use std::io::{Seek, SeekFrom, Write};
        let path = std::env::temp_dir().join(format!(
            "headroom-telemetry-{}-{name}.log",
            std::process::id()
        ));
        let mut f = std::fs::File::create(&path).unwrap();
        let mut bytes = Vec::new();
        for p in parts {
            match p {
                Part::Data(d) => {
                    f.write_all(d).unwrap();
                    bytes.extend_from_slice(d);
                }
                Part::Hole(n) => {
                    f.seek(SeekFrom::Current(*n as i64)).unwrap();
                    bytes.resize(bytes.len() + n, 0);
                }
            }
        }
        f.set_len(bytes.len() as u64).unwrap();
        (path, bytes)
    }

    #[test]
    fn a_sparse_file_reads_as_its_bytes() {
        let real = &include_bytes!("../tests/data/llama-server-11434-restart.log")[..];
        let over = MAX_LINE + 1;
        let cases: Vec<(&str, Vec<Part>)> = vec![
            ("all-hole", vec![Part::Hole(3 * over)]),
            (
                "exactly-the-limit",
                vec![Part::Hole(MAX_LINE), Part::Data(b"\n"), Part::Data(real)],
            ),
            (
                "one-past-the-limit",
                vec![Part::Data(real), Part::Hole(over), Part::Data(b"\n")],
            ),
            (
                "mid-line-and-trailing",
                vec![
                    Part::Data(real),
                    Part::Data(b"a line cut by a hole"),
                    Part::Hole(2 * over + 4097),
                    Part::Data(b" and its end\n"),
                    Part::Data(real),
                    Part::Hole(over + 10),
                ],
            ),
            (
                "small-holes-read-through",
                vec![
                    Part::Data(real),
                    Part::Hole(8192),
                    Part::Data(b"x\n"),
                    Part::Hole(MAX_LINE - 100),
                    Part::Data(&real[..300]),
                    Part::Data(b"\n"),
                    Part::Data(real),
                ],
            ),
            (
                "hole-inside-an-overlong-line",
                vec![
                    Part::Data(&[b'x'; MAX_LINE + 3]),
                    Part::Hole(70_000),
                    Part::Data(b"y\n"),
                    Part::Data(real),
                ],
            ),
        ];
        let stop = AtomicBool::new(false);
        for (name, parts) in cases {
            let (path, bytes) = sparse(name, &parts);
            let want = crate::mine(&bytes[..]).unwrap();
            for threads in [1, 2] {
                let f = std::fs::File::open(&path).unwrap();
                let (got, _) = mine_file_into(Miner::new(), f, threads, &stop).unwrap();
                assert_eq!(got, want, "{name}, {threads} threads");
            }
            // Read from where the file's position is (stdin after a shell's `read`).
            let mut f = std::fs::File::open(&path).unwrap();
            let from = bytes.len() / 3;
            std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(from as u64)).unwrap();
            let (got, _) = mine_file_into(Miner::new(), f, 2, &stop).unwrap();
            assert_eq!(
                got,
                crate::mine(&bytes[from..]).unwrap(),
                "{name} from {from}"
            );
            std::fs::remove_file(&path).unwrap();
        }
    }

    #[test]
    fn a_mapped_file_reads_as_its_bytes() {
        // Over MAP_MIN, so mapped; its end is an unfinished line, or an overlong one, read on
        // after the mapping (and a hole after data, read on through).
        let mut big = Vec::new();
        while big.len() < MAP_MIN as usize + 3 * CHUNK {
            big.extend_from_slice(&sample());
            big.push(b'\n');
        }
        let cases: Vec<(&str, Vec<Part>)> = vec![
            ("plain", vec![Part::Data(&big)]),
            ("newline-at-end", vec![Part::Data(&big), Part::Data(b"\n")]),
            (
                "overlong-tail",
                vec![Part::Data(&big), Part::Data(&[b'z'; MAX_LINE + 9])],
            ),
            (
                "hole-after",
                vec![
                    Part::Data(&big),
                    Part::Hole(MAX_LINE + 7),
                    Part::Data(b"\n"),
                ],
            ),
            (
                "line-longer-than-a-chunk",
                vec![
                    Part::Data(&[b'y'; CHUNK * 3]),
                    Part::Data(b"\n"),
                    Part::Data(&big),
                ],
            ),
        ];
        let stop = AtomicBool::new(false);
        for (name, parts) in cases {
            let (path, bytes) = sparse(name, &parts);
            let want = crate::mine(&bytes[..]).unwrap();
            for threads in [1, 2] {
                let f = std::fs::File::open(&path).unwrap();
                let (got, _) = mine_file_into(Miner::new(), f, threads, &stop).unwrap();
                assert_eq!(got, want, "{name}, {threads} threads");
            }
            let mut f = std::fs::File::open(&path).unwrap();
            let from = 12345;
            std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(from as u64)).unwrap();
            let (got, _) = mine_file_into(Miner::new(), f, 2, &stop).unwrap();
            assert_eq!(
                got,
                crate::mine(&bytes[from..]).unwrap(),
                "{name} from {from}"
            );
            std::fs::remove_file(&path).unwrap();
        }
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
