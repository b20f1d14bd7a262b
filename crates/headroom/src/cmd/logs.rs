//! `headroom logs`: mine the engine's own per-request telemetry from its log.
//!
//! Input comes from stdin, a file (optionally followed like `tail -F`), or a journald unit
//! (journalctl is spawned). A reader thread feeds chunks to the parser on the main thread, so
//! reading and parsing overlap; Ctrl-C ends any input with the report of what was read. The
//! report's text is drawn by `render::logs`.

use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::{IsTerminal, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use telemetry::doc::{LogsDoc, Source};
use telemetry::{Miner, Report};

use crate::output::{self, Exit};
const CHUNK: usize = 1 << 20;
/// How often a followed file is polled for growth, and the fastest updates are printed.
const POLL: Duration = Duration::from_millis(250);
const UPDATE_EVERY: Duration = Duration::from_secs(1);

#[derive(clap::Args)]
#[command(after_help = "\
Reads llama.cpp's `slot print_timing` lines (current and older formats) and halogen's \
`serve_api` lines, groups them per request and per server instance (a restart starts a new \
instance; instances are never mixed), and prints each instance's envelope with its sample \
sizes: decode median and p10-p90, prompt throughput at the longest prompts, draft acceptance, \
graph reuse and prefix-cache evidence. From vLLM's log (V1 and V0) it reads the periodic stats \
line (`Avg prompt throughput: ...`) and summarises it per instance and engine: throughput \
median and peak, idle share, running/waiting/swapped, KV-cache peak, prefix-cache hit rate.

Examples:
  journalctl -u llama --since -3h --no-pager | headroom logs
  headroom logs --file server.log
  headroom logs --file server.log --follow          # Ctrl-C prints the final report
  headroom logs --journal llama --since -3h
  headroom logs --journal halogen --user            # rootless units: never sudo
  headroom logs --file server.log --requests         # one row per request
  headroom logs --file server.log --json
  headroom logs --journal vllm --since -1h          # vLLM's stats lines
  headroom logs --file server.log --html logs.html  # the envelope per instance as a page

llama-server prints print_timing at info verbosity (the default, -lv 3); vLLM prints its stats \
line every 10 s (VLLM_LOG_STATS_INTERVAL) unless started with --disable-log-stats.
JSON schema: docs/json/logs.md (headroom.logs/1).")]
pub struct Args {
    /// Read this log file instead of stdin.
    #[arg(long, value_name = "FILE", conflicts_with = "journal")]
    file: Option<PathBuf>,
    /// Keep reading as the input grows (a file like `tail -F`, a journal like `journalctl -f`,
    /// stdin until it closes); print an update as requests arrive; Ctrl-C prints the report.
    #[arg(long, short = 'f')]
    follow: bool,
    /// Read this systemd unit's journal (spawns `journalctl -u UNIT -o short-iso`).
    #[arg(long, value_name = "UNIT")]
    journal: Option<String>,
    /// With --journal: the calling user's journal (`journalctl --user`), for rootless units.
    #[arg(long, requires = "journal")]
    user: bool,
    /// With --journal: how far back to read, as journalctl's --since takes it [default: -3h].
    #[arg(
        long,
        value_name = "WHEN",
        requires = "journal",
        allow_hyphen_values = true
    )]
    since: Option<String>,
    /// Also list every request in a table (JSON always lists them).
    #[arg(long)]
    requests: bool,
    /// Print JSON (schema headroom.logs/1, docs/json/logs.md). With --follow, one JSON
    /// document per line: updates with "final": false, then the final one.
    #[arg(long)]
    json: bool,
    /// Also write a self-contained HTML page (`-` for stdout) with each instance's envelope:
    /// prompt rate against prompt length, the decode distribution, vLLM's stats over time.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

enum Msg {
    /// A buffer and how many of its bytes are data; the buffer goes back for reuse.
    Chunk(Vec<u8>, usize),
    /// A followed file shrank: a line cut at its old end is complete as it stands.
    Truncated,
    /// The input ended (or failed).
    End(Result<()>),
    Interrupt,
}

pub fn run(args: Args) -> Result<Exit> {
    let source = if let Some(path) = &args.file {
        Source::File { path: path.clone() }
    } else if let Some(unit) = &args.journal {
        Source::Journal {
            unit: unit.clone(),
            user: args.user,
            since: args.since.clone().unwrap_or_else(|| "-3h".to_string()),
        }
    } else {
        if std::io::stdin().is_terminal() {
            bail!(
                "no input: pipe a log in (journalctl -u llama --since -3h --no-pager | headroom \
                 logs), or give --file FILE or --journal UNIT"
            );
        }
        Source::Stdin
    };

    if !args.follow {
        return run_once(&args, &source);
    }

    let (tx, rx) = mpsc::sync_channel::<Msg>(8);
    // Buffers travel back to the reader: no allocation (and no page faults) per chunk.
    let (back_tx, back_rx) = mpsc::sync_channel::<Vec<u8>>(16);
    let child: Arc<Mutex<Option<Child>>> = Arc::new(Mutex::new(None));
    start_reader(&source, args.follow, tx.clone(), back_rx, child.clone())?;
    watch_ctrl_c(move || {
        let _ = tx.send(Msg::Interrupt);
    });

    let outcome = consume(&rx, &back_tx, &args, &source);
    if let Some(mut c) = child.lock().map_or(None, |mut g| g.take()) {
        let _ = c.kill();
        let _ = c.wait();
    }
    let (miner, interrupted) = outcome?;
    let report = miner.into_report();
    print_final(&args, &source, report, interrupted)
}

/// A miner that keeps per-request records only when they are printed (`--json`,
/// `--requests`); otherwise each request is folded into its envelope once final, which
/// gives the same envelope without storing a million requests.
fn miner(args: &Args) -> Miner {
    if args.json || args.requests || args.html.is_some() {
        Miner::new()
    } else {
        Miner::folding()
    }
}

/// Reads the whole input once, parsing on every core (the grouping stays in log order);
/// Ctrl-C stops the reading and reports what was read.
fn run_once(args: &Args, source: &Source) -> Result<Exit> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    watch_ctrl_c(move || flag.store(true, Ordering::Relaxed));
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (report, interrupted) = match source {
        Source::Stdin => match stdin_file() {
            // `headroom logs < server.log`: a file after all, whose holes can be skipped.
            Some(f) => telemetry::mine_file_into(miner(args), f, threads, &stop),
            None => telemetry::mine_parallel_into(miner(args), std::io::stdin(), threads, &stop),
        }
        .context("reading stdin")?,
        Source::File { path } => {
            let f = open_log(path)?;
            telemetry::mine_file_into(miner(args), f, threads, &stop)
                .with_context(|| format!("reading {}", path.display()))?
        }
        Source::Journal { unit, user, since } => {
            let mut c = journalctl(unit, *user, since, false)?;
            let out = c.stdout.take().context("journalctl's output")?;
            let mined = telemetry::mine_parallel_into(miner(args), out, threads, &stop);
            let status = if mined.as_ref().is_ok_and(|m| m.1) {
                let _ = c.kill();
                let _ = c.wait();
                None
            } else {
                Some(c.wait().context("waiting for journalctl")?)
            };
            let mined = mined.context("reading journalctl's output")?;
            if let Some(s) = status.filter(|s| !s.success()) {
                bail!("journalctl -u {unit} exited with {s} (its message is above)");
            }
            mined
        }
    };
    print_final(args, source, report, interrupted)
}

/// Stdin as a file of its own when it is redirected from a regular file (nothing has read it
/// yet, so its position is where the shell left it).
#[cfg(unix)]
fn stdin_file() -> Option<File> {
    use std::os::fd::AsFd;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let f = File::from(fd);
    f.metadata().ok()?.is_file().then_some(f)
}

#[cfg(not(unix))]
fn stdin_file() -> Option<File> {
    None
}

/// `journalctl -u UNIT [--user] --since WHEN --no-pager -o short-iso [--follow]`. ISO
/// timestamps, because `short` prints month names in the host's locale.
fn journalctl(unit: &str, user: bool, since: &str, follow: bool) -> Result<Child> {
    let mut cmd = Command::new("journalctl");
    if user {
        cmd.arg("--user");
    }
    cmd.args([
        "-u",
        unit,
        "--since",
        since,
        "--no-pager",
        "-o",
        "short-iso",
    ]);
    if follow {
        cmd.arg("--follow");
    }
    match cmd.stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn() {
        Ok(c) => Ok(c),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "--journal needs systemd's journalctl, which is not on PATH here; pipe the log in \
             on stdin or use --file FILE"
        ),
        Err(e) => Err(e).context("starting journalctl"),
    }
}

/// Parses chunks as they arrive; prints follow-mode updates. Returns the miner and whether
/// Ctrl-C ended the input.
fn consume(
    rx: &Receiver<Msg>,
    back: &SyncSender<Vec<u8>>,
    args: &Args,
    source: &Source,
) -> Result<(Miner, bool)> {
    let mut m = miner(args);
    let mut printed = 0usize;
    let mut last_print = Instant::now() - UPDATE_EVERY;
    loop {
        let msg = if args.follow {
            match rx.recv_timeout(POLL) {
                Ok(msg) => Some(msg),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => Some(Msg::End(Ok(()))),
            }
        } else {
            Some(rx.recv().unwrap_or(Msg::End(Ok(()))))
        };
        match msg {
            Some(Msg::Chunk(buf, n)) => {
                m.feed(&buf[..n]);
                let _ = back.try_send(buf);
            }
            Some(Msg::Truncated) => m.finish(),
            Some(Msg::End(r)) => {
                r?;
                m.finish();
                return Ok((m, false));
            }
            Some(Msg::Interrupt) => {
                m.finish();
                return Ok((m, true));
            }
            None => {}
        }
        let seen = m.requests() + m.vllm_stats_lines();
        if args.follow && last_print.elapsed() >= UPDATE_EVERY && seen != printed {
            printed = seen;
            last_print = Instant::now();
            print_update(args, source, m.report())?;
        }
    }
}

/// Runs `on_interrupt` on Ctrl-C (SIGINT), from a small thread of its own.
fn watch_ctrl_c(on_interrupt: impl FnOnce() + Send + 'static) {
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        if rt.block_on(tokio::signal::ctrl_c()).is_ok() {
            on_interrupt();
        }
    });
}

/// Reusable read buffers, returned by the consumer.
struct Buffers(Receiver<Vec<u8>>);

impl Buffers {
    fn take(&self) -> Vec<u8> {
        self.0.try_recv().unwrap_or_else(|_| vec![0u8; CHUNK])
    }
}

fn start_reader(
    source: &Source,
    follow: bool,
    tx: SyncSender<Msg>,
    back: Receiver<Vec<u8>>,
    child: Arc<Mutex<Option<Child>>>,
) -> Result<()> {
    let bufs = Buffers(back);
    match source.clone() {
        Source::Stdin => {
            std::thread::spawn(move || {
                let r = pump(std::io::stdin().lock(), &tx, &bufs, "stdin");
                let _ = tx.send(Msg::End(r));
            });
        }
        Source::File { path } => {
            let f = open_log(&path)?;
            std::thread::spawn(move || {
                let r = if follow {
                    follow_file(&path, f, &tx, &bufs)
                } else {
                    pump(f, &tx, &bufs, &path.display().to_string())
                };
                let _ = tx.send(Msg::End(r));
            });
        }
        Source::Journal { unit, user, since } => {
            let mut c = journalctl(&unit, user, &since, follow)?;
            let out = c.stdout.take().context("journalctl's stdout")?;
            *child
                .lock()
                .map_err(|_| anyhow::anyhow!("journalctl handle poisoned"))? = Some(c);
            std::thread::spawn(move || {
                let mut r = pump(out, &tx, &bufs, "journalctl's output");
                if r.is_ok() {
                    let status = child.lock().ok().and_then(|mut g| g.as_mut()?.wait().ok());
                    if let Some(s) = status.filter(|s| !s.success()) {
                        r = Err(anyhow::anyhow!(
                            "journalctl -u {unit} exited with {s} (its message is above)"
                        ));
                    }
                }
                let _ = tx.send(Msg::End(r));
            });
        }
    }
    Ok(())
}

/// Sends everything `r` yields as chunks. Stops quietly when the consumer is gone.
fn pump(mut r: impl Read, tx: &SyncSender<Msg>, bufs: &Buffers, what: &str) -> Result<()> {
    let mut offset = 0u64;
    loop {
        let mut buf = bufs.take();
        let n = match read_some(&mut r, &mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) => return Err(e).with_context(|| format!("reading {what} at byte {offset}")),
        };
        offset += n as u64;
        if tx.send(Msg::Chunk(buf, n)).is_err() {
            return Ok(());
        }
    }
}

fn read_some(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match r.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// `tail -F`: read to the end, then poll; a shrunken file was truncated (read it again from
/// its start), a different file at the path was rotated in (finish the old one, open the new).
fn follow_file(path: &Path, mut f: File, tx: &SyncSender<Msg>, bufs: &Buffers) -> Result<()> {
    let mut offset = 0u64;
    let what = || format!("reading {} at byte", path.display());
    loop {
        let mut buf = bufs.take();
        let n = read_some(&mut f, &mut buf).with_context(|| format!("{} {offset}", what()))?;
        if n > 0 {
            offset += n as u64;
            if tx.send(Msg::Chunk(buf, n)).is_err() {
                return Ok(());
            }
            continue;
        }
        std::thread::sleep(POLL);
        let len = f.metadata().map(|m| m.len()).unwrap_or(offset);
        if len < offset {
            eprintln!(
                "headroom logs: {} was truncated; reading it from its start",
                path.display()
            );
            f.seek(SeekFrom::Start(0))?;
            offset = 0;
            if tx.send(Msg::Truncated).is_err() {
                return Ok(());
            }
            continue;
        }
        if rotated(path, &f) {
            // Drain what the old file still holds, then switch.
            loop {
                let mut buf = bufs.take();
                let n = read_some(&mut f, &mut buf)?;
                if n == 0 {
                    break;
                }
                if tx.send(Msg::Chunk(buf, n)).is_err() {
                    return Ok(());
                }
            }
            if let Ok(nf) = File::open(path) {
                if tx.send(Msg::Truncated).is_err() {
                    return Ok(());
                }
                eprintln!(
                    "headroom logs: {} was replaced (rotated); following the new file",
                    path.display()
                );
                f = nf;
                offset = 0;
            }
        }
    }
}

#[cfg(unix)]
fn rotated(path: &Path, f: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(path), f.metadata()) {
        (Ok(p), Ok(o)) => p.ino() != o.ino() || p.dev() != o.dev(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn rotated(_: &Path, _: &File) -> bool {
    false
}

fn print_final(args: &Args, source: &Source, report: Report, interrupted: bool) -> Result<Exit> {
    if let Some(path) = &args.html {
        // The page reads the document --json prints.
        let doc = LogsDoc::new(source.clone(), true, interrupted, report.clone());
        super::common::write_page(path, &::report::logs(&doc))?;
    }
    if args.json {
        let doc = LogsDoc::new(source.clone(), true, interrupted, report);
        if args.follow {
            // One document per line, like the updates before it.
            output::line(doc.to_json_line()?)?;
        } else {
            let mut s = doc.to_json_pretty()?;
            s.push('\n');
            output::emit(&s)?;
        }
        return Ok(Exit::Ok);
    }
    let mut out = String::new();
    if interrupted {
        out += "(interrupted: the report covers what was read)\n";
    }
    out += &render::logs::report(&report, args.requests);
    output::emit(&out)?;
    Ok(Exit::Ok)
}

fn print_update(args: &Args, source: &Source, report: Report) -> Result<()> {
    if args.json {
        let doc = LogsDoc::new(source.clone(), false, false, report);
        return output::line(doc.to_json_line()?);
    }
    output::emit(&render::logs::update(&report))
}

/// Opens a log file; a device (`/dev/zero`, a disk) is refused: it never ends, so reading it
/// would never give a report.
fn open_log(path: &Path) -> Result<File> {
    let f = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = f.metadata().map(|m| m.file_type());
        if t.is_ok_and(|t| t.is_char_device() || t.is_block_device()) {
            bail!("{} is a device, not a log file", path.display());
        }
    }
    Ok(f)
}
