//! GPU telemetry beside a diagnose window: `--nvidia-smi FILE` (a capture), `--nvidia-smi` (an
//! `nvidia-smi --query-gpu ... -lms` child process for the live window) and `--dcgm URL` (a
//! node's dcgm-exporter, scraped at each scrape interval). The readings and the judging are the
//! libraries' (`gputel`, `diagnose::gpu`); this module samples.

use super::{live, WindowRequest};
use anyhow::{anyhow, bail, Context, Result};
use clap::Args as ClapArgs;
use diagnose::gpu::{Clock, Telemetry};
use diagnose::Report;
use gputel::smi::{QUERY_FIELDS, QUERY_FIELDS_PRE_535};
use gputel::Source;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

#[derive(ClapArgs, Debug, Clone, Default)]
pub struct GpuArgs {
    /// The GPU's own telemetry from nvidia-smi: with FILE, a capture of
    /// `nvidia-smi --query-gpu=... --format=csv -lms N` read beside the window (replayed or
    /// live); alone, nvidia-smi is run for the live window. Names the GPU when --gpu is absent,
    /// and adds the throttled finding (docs/gpu-telemetry.md).
    #[arg(long = "nvidia-smi", value_name = "FILE", num_args = 0..=1)]
    #[allow(clippy::option_option)]
    pub nvidia_smi: Option<Option<PathBuf>>,
    /// A node's dcgm-exporter (http://node:9400/metrics), scraped at each scrape of the live
    /// window: names the GPU, and adds the throttled, host-bound and DRAM-activity findings.
    #[arg(long, value_name = "URL", conflicts_with = "nvidia_smi")]
    pub dcgm: Option<String>,
}

/// Where the telemetry comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    File(PathBuf),
    SmiLive,
    Dcgm(String),
}

impl GpuArgs {
    pub fn mode(&self) -> Option<Mode> {
        match (&self.nvidia_smi, &self.dcgm) {
            (Some(None), _) => Some(Mode::SmiLive),
            (Some(Some(p)), _) => Some(Mode::File(p.clone())),
            (None, Some(u)) => Some(Mode::Dcgm(u.clone())),
            (None, None) => None,
        }
    }
}

/// Take (or replay) one window with GPU telemetry beside it, and judge both.
pub async fn collect_and_diagnose(req: &WindowRequest, mode: &Mode) -> Result<Report> {
    let interval = Duration::from_secs_f64(req.shape.interval_s);
    let take = || live::live(&req.shape, req.pid, req.record.as_deref(), req.progress);
    let (recording, tel) = match (&req.replay, mode) {
        (Some(p), Mode::File(f)) => (live::replay(p)?, read_capture(f)?),
        (Some(_), _) => bail!(
            "a replayed window reads its GPU telemetry from a capture: give --nvidia-smi FILE \
             (--nvidia-smi alone and --dcgm sample during a live window)"
        ),
        (None, Mode::File(f)) => {
            let rec = take().await?;
            (rec, read_capture(f)?)
        }
        (None, Mode::SmiLive) => {
            let sampler = SmiSampler::start(interval)?;
            let rec = take().await;
            let tel = sampler.stop();
            (rec?, tel?)
        }
        (None, Mode::Dcgm(url)) => {
            let sampler = DcgmSampler::start(url, interval).await?;
            let rec = take().await;
            let tel = sampler.stop().await;
            (rec?, tel?)
        }
    };
    let cat = super::catalog(req.catalog.as_deref())?;
    Ok(diagnose::gpu::judge_with(&recording, &req.target(), &cat, &tel)?.report)
}

/// A capture file: nvidia-smi CSV, its own clock.
pub fn read_capture(path: &Path) -> Result<Telemetry> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the nvidia-smi capture {}", path.display()))?;
    let cap = gputel::smi::read(&text, &path.display().to_string())?;
    if cap.rows.is_empty() {
        bail!("{}: the nvidia-smi capture holds no rows", path.display());
    }
    Ok(Telemetry {
        source: Source::NvidiaSmi,
        input: path.display().to_string(),
        samples: cap.rows,
        clock: Clock::Capture,
    })
}

/// `nvidia-smi --query-gpu=... --format=csv -lms N` running for the window; each row stamped as
/// it arrives.
struct SmiSampler {
    child: Child,
    reader: std::thread::JoinHandle<Vec<(f64, String)>>,
    command: String,
}

/// The field list this host's nvidia-smi accepts (drivers before 535 refuse the newer name of
/// the clock-event field), checked with one query before the window.
fn probe() -> Result<&'static str> {
    let run = |fields: &str| {
        Command::new("nvidia-smi")
            .arg(format!("--query-gpu={fields}"))
            .arg("--format=csv")
            .output()
    };
    let out = match run(QUERY_FIELDS) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "--nvidia-smi without a FILE runs `nvidia-smi`, which is not on PATH: install the \
             NVIDIA driver's utilities here, or record a capture on the GPU host \
             (nvidia-smi --query-gpu={QUERY_FIELDS} --format=csv -lms 1000 -f gpu.csv) and give \
             --nvidia-smi gpu.csv"
        ),
        Err(e) => bail!("running nvidia-smi: {e}"),
        Ok(o) => o,
    };
    if out.status.success() {
        return Ok(QUERY_FIELDS);
    }
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if said.contains("clocks_event_reasons") {
        if let Ok(o) = run(QUERY_FIELDS_PRE_535) {
            if o.status.success() {
                return Ok(QUERY_FIELDS_PRE_535);
            }
        }
    }
    bail!("nvidia-smi --query-gpu failed: {}", said.trim())
}

impl SmiSampler {
    fn start(interval: Duration) -> Result<SmiSampler> {
        let fields = probe()?;
        let ms = interval.as_millis().max(100).to_string();
        let args = [
            format!("--query-gpu={fields}"),
            "--format=csv".to_string(),
            "-lms".to_string(),
            ms,
        ];
        let command = format!("nvidia-smi {}", args.join(" "));
        let mut child = Command::new("nvidia-smi")
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {command}"))?;
        let stdout = child.stdout.take().context("nvidia-smi's stdout")?;
        let reader = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .filter(|l| !l.trim().is_empty())
                .map(|l| (super::now(), l))
                .collect()
        });
        Ok(SmiSampler {
            child,
            reader,
            command,
        })
    }

    fn stop(mut self) -> Result<Telemetry> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let lines = self
            .reader
            .join()
            .map_err(|_| anyhow!("reading {}: the reader stopped", self.command))?;
        let Some(((_, header), rows)) = lines.split_first() else {
            bail!("{} printed nothing during the window", self.command);
        };
        let mut text = format!("{header}\n");
        for (_, l) in rows {
            text.push_str(l);
            text.push('\n');
        }
        let mut cap = gputel::smi::read(&text, &self.command)?;
        // Rows are stamped as they arrived, on the scrapes' clock.
        for (row, (t, _)) in cap.rows.iter_mut().zip(rows) {
            row.t_s = Some(*t);
        }
        Ok(Telemetry {
            source: Source::NvidiaSmi,
            input: self.command,
            samples: cap.rows,
            clock: Clock::Arrival,
        })
    }
}

/// A dcgm-exporter scraped every interval for the window, each reading stamped with its scrape.
struct DcgmSampler {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Vec<gputel::GpuSample>>,
    url: String,
}

impl DcgmSampler {
    async fn start(url: &str, interval: Duration) -> Result<DcgmSampler> {
        let timeout = (interval * 2).clamp(Duration::from_secs(2), Duration::from_secs(10));
        let scraper = engines::Scraper::new(url, timeout)?;
        let metrics = scraper.url("/metrics");
        let check = |e: String| anyhow!("checking the DCGM exporter before the window: {e}");
        let first = scraper
            .fetch_metrics()
            .await
            .map_err(|e| check(e.to_string()))?;
        let mut samples = stamped(
            gputel::dcgm::read(&first.body, &metrics).map_err(|e| check(e.to_string()))?,
            first.t,
        );
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let name = metrics.clone();
        let task = tokio::spawn(async move {
            let mut tick =
                tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                tokio::select! {
                    _ = &mut stopped => break,
                    _ = tick.tick() => {
                        // A scrape that fails or does not parse is a missing reading, as a
                        // failed engine scrape is a missing sample.
                        if let Ok(raw) = scraper.fetch_metrics().await {
                            if let Ok(r) = gputel::dcgm::read(&raw.body, &name) {
                                samples.extend(stamped(r, raw.t));
                            }
                        }
                    }
                }
            }
            samples
        });
        Ok(DcgmSampler {
            stop,
            task,
            url: metrics,
        })
    }

    async fn stop(self) -> Result<Telemetry> {
        let _ = self.stop.send(());
        let samples = self
            .task
            .await
            .map_err(|e| anyhow!("scraping {}: {e}", self.url))?;
        Ok(Telemetry {
            source: Source::Dcgm,
            input: self.url,
            samples,
            clock: Clock::Arrival,
        })
    }
}

fn stamped(r: gputel::dcgm::Reading, t: f64) -> Vec<gputel::GpuSample> {
    r.gpus
        .into_iter()
        .map(|mut g| {
            g.t_s = Some(t);
            g
        })
        .collect()
}
