//! `headroom attribute`: which tensors, layers and experts a process reads. The
//! pipeline and its self-checks live in the `attribute` crate; this file gathers the inputs
//! (maps, GGUF parts, addresses from a file, a perf.data, or perf run now) and renders.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use attribute::{parse_addresses, parse_maps, AddressStats, Attributor, Event, Part, Report};
use render::attribute::AttributeView;

use crate::args::parse_duration;
use crate::output::{self, Exit, Format};

#[derive(clap::Args)]
#[command(after_help = "\
The pipeline: each sampled data address goes to the /proc/PID/maps VMA that maps a \
model file, to its file offset (pgoff + addr − vma_start), to the tensor whose extent (from \
consecutive GGUF offsets) holds it, and to the expert (expert-major rows). Three self-checks \
come before any histogram: the gap (samples in a mapped part outside every tensor) ≈ 0, every \
tensor-bearing part nonzero, and MoE blocks flat (top-k fires every block every token). When \
one fails the histograms are withheld: that is mis-attribution, not a finding.

What the event measures decides what the histogram means: IBS (ibs_op//, AMD) and PEBS \
(mem-loads, Intel) sample loads; page-faults samples first touches and reloads after eviction \
(a llama.cpp model mapped with MAP_POPULATE faults only after its pages are evicted).

Addresses come from one of:
  --addresses FILE   `perf script -F addr` text (one hex address a line; - for stdin)
  --perf-data FILE   a perf.data recorded with --data (-d); read through `perf script`
  --sample DURATION  run `perf record -e EVENT -d -c PERIOD -p PID` now (root or
                     kernel.perf_event_paranoid ≤ 1)

Examples:
  headroom attribute --pid $(pgrep llama-server) --sample 30s --event ibs_op//
  headroom attribute --pid 4242 --sample 10s                  # page faults
  sudo perf record -e ibs_op// -c 50000 --data -o out.perf -p 4242 -- sleep 60
  headroom attribute --pid 4242 --perf-data out.perf --event ibs_op// --gguf model-00001-of-00003.gguf
  perf script -i out.perf -F addr | headroom attribute --maps saved-maps.txt --addresses - --json

JSON schema: docs/json/attribute.md (headroom.attribute/1).")]
pub struct Args {
    /// The process whose mappings the addresses belong to (its /proc/PID/maps is read).
    #[arg(long, value_name = "PID", required_unless_present = "maps")]
    pid: Option<u32>,
    /// A saved copy of /proc/PID/maps, instead of --pid.
    #[arg(long, value_name = "FILE", conflicts_with = "pid")]
    maps: Option<PathBuf>,
    /// The model's GGUF files (one shard finds its siblings) [default: every .gguf in the maps].
    #[arg(long, value_name = "FILE", num_args = 1..)]
    gguf: Vec<PathBuf>,
    /// `perf script -F addr` output: one hexadecimal address a line (`-` reads stdin).
    #[arg(long, value_name = "FILE", group = "source")]
    addresses: Option<PathBuf>,
    /// A perf.data file recorded with data addresses (`perf record -d`).
    #[arg(long, value_name = "FILE", group = "source")]
    perf_data: Option<PathBuf>,
    /// Sample the process now for this long with `perf record` (90, 500ms, 30s, 5m).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, group = "source", requires = "pid")]
    sample: Option<Duration>,
    /// The event the addresses were (or are to be) sampled with.
    #[arg(long, value_name = "EVENT", default_value = "page-faults")]
    event: String,
    /// With --sample: one sample every N events [default: 1 for page-faults, else 50000].
    #[arg(long, value_name = "N")]
    period: Option<u64>,
    /// Rows in the tensor histogram.
    #[arg(long, value_name = "N", default_value_t = 20)]
    top: usize,
    /// Print the histograms even when a self-check failed.
    #[arg(long)]
    show_anyway: bool,
    /// Print JSON (schema headroom.attribute/1).
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<Exit> {
    if a.addresses.is_none() && a.perf_data.is_none() && a.sample.is_none() {
        bail!("give the addresses: --addresses FILE, --perf-data FILE, or --sample DURATION");
    }
    // Sampling first: the maps are read after it, when the process has mapped what it reads.
    let sampled = match a.sample {
        Some(d) => Some(record(a.pid.unwrap_or_default(), &a.event, a.period, d)?),
        None => None,
    };
    let result = attribute(&a, sampled.as_deref());
    if let Some(p) = &sampled {
        let _ = std::fs::remove_file(p);
    }
    let report = result?;
    output::render(
        &AttributeView {
            report,
            top: a.top,
            show_anyway: a.show_anyway,
            pid: a.pid,
        },
        Format::from_flags(a.json, false),
    )?;
    Ok(Exit::Ok)
}

fn attribute(a: &Args, sampled: Option<&Path>) -> Result<Report> {
    let (maps_text, maps_name) = match (&a.maps, a.pid) {
        (Some(f), _) => (read_saved_maps(f)?, f.display().to_string()),
        (None, Some(pid)) => {
            let p = format!("/proc/{pid}/maps");
            (
                std::fs::read_to_string(&p)
                    .with_context(|| format!("reading {p} (is process {pid} running?)"))?,
                p,
            )
        }
        (None, None) => bail!("give --pid PID or --maps FILE"),
    };
    let vmas = parse_maps(&maps_text, &maps_name)?;
    let parts = parts(&a.gguf, &vmas, &maps_name)?;
    let mut at = Attributor::new(&vmas, parts)?;
    let event = Event::describe(&a.event);
    let stats = if let Some(p) = sampled.or(a.perf_data.as_deref()) {
        perf_script(p, &mut at)?
    } else {
        let src = a.addresses.as_deref().unwrap_or(Path::new("-"));
        if src == Path::new("-") {
            parse_addresses(std::io::stdin().lock(), "stdin", |x| at.add(x))?
        } else {
            let f = File::open(src).with_context(|| format!("opening {}", src.display()))?;
            parse_addresses(f, &src.display().to_string(), |x| at.add(x))?
        }
    };
    Ok(at.report(event, stats))
}

/// A saved /proc/PID/maps is text of a few hundred KiB (a line per mapping); more than this is
/// not one (a device such as /dev/zero, or a huge file, would otherwise be read into memory
/// without end).
const MAPS_LIMIT: u64 = 16 << 20;

fn read_saved_maps(f: &Path) -> Result<String> {
    let file = File::open(f).with_context(|| format!("opening {}", f.display()))?;
    let mut bytes = Vec::new();
    file.take(MAPS_LIMIT + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading {}", f.display()))?;
    if bytes.len() as u64 > MAPS_LIMIT {
        bail!(
            "{}: larger than {} MiB, not a saved /proc/PID/maps",
            f.display(),
            MAPS_LIMIT >> 20
        );
    }
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: not text (invalid UTF-8 at byte {}), not a saved /proc/PID/maps",
            f.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

/// The parts: the named files and their split siblings, or every .gguf the maps show.
fn parts(named: &[PathBuf], vmas: &[attribute::Vma], maps_name: &str) -> Result<Vec<Part>> {
    let files: Vec<PathBuf> = if named.is_empty() {
        let found = attribute::mapped_gguf_files(vmas);
        if found.is_empty() {
            bail!("{maps_name} maps no .gguf file: name the model's files with --gguf");
        }
        found.into_iter().map(PathBuf::from).collect()
    } else {
        let mut all = Vec::new();
        for f in named {
            let model = gguf::Model::open(f, &gguf::ReadOptions::default())?;
            all.extend(model.shards.iter().map(|s| PathBuf::from(&s.path)));
        }
        all
    };
    let mut parts: Vec<Part> = Vec::new();
    for f in files {
        let p = attribute::read_part(&f)?;
        if !parts.iter().any(|q| q.path == p.path) {
            parts.push(p);
        }
    }
    Ok(parts)
}

fn perf_missing(e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::NotFound {
        anyhow::anyhow!("perf not found: install it (Debian: linux-perf; Ubuntu: linux-tools)")
    } else {
        anyhow::Error::new(e).context("running perf")
    }
}

/// Runs `perf record` on the process for `d`; returns the perf.data path.
fn record(pid: u32, event: &str, period: Option<u64>, d: Duration) -> Result<PathBuf> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |t| t.as_nanos());
    let out = std::env::temp_dir().join(format!("headroom-attribute-{pid}-{nanos}.perf"));
    let period = period.unwrap_or(if Event::describe(event).name == "page-faults" {
        1
    } else {
        50_000
    });
    eprintln!(
        "attribute: perf record -e {event} -d -c {period} -p {pid} for {:.1}s",
        d.as_secs_f64()
    );
    let status = Command::new("perf")
        .args(["record", "-q", "-e", event, "-d", "-c", &period.to_string()])
        .args(["-p", &pid.to_string(), "-o"])
        .arg(&out)
        .args(["--", "sleep", &format!("{:.3}", d.as_secs_f64())])
        .stdout(Stdio::null())
        .status()
        .map_err(perf_missing)?;
    if !status.success() {
        let _ = std::fs::remove_file(&out);
        bail!(
            "perf record failed ({status}): is process {pid} running, is the event {event:?} \
             available here (perf list), and may this user sample it (root, or \
             kernel.perf_event_paranoid ≤ 1)?"
        );
    }
    Ok(out)
}

/// Streams `perf script -F addr` of a perf.data into the attributor.
fn perf_script(data: &Path, at: &mut Attributor) -> Result<AddressStats> {
    let mut child = Command::new("perf")
        .args(["script", "-F", "addr", "-i"])
        .arg(data)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(perf_missing)?;
    let stdout = child.stdout.take().context("perf script stdout")?;
    let name = format!("perf script -i {}", data.display());
    let stats = parse_addresses(stdout, &name, |x| at.add(x));
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let status = child.wait().context("waiting for perf script")?;
    if !status.success() {
        bail!("{name} failed ({status}): {}", err.trim());
    }
    Ok(stats?)
}
