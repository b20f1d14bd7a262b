//! What every module of this test binary shares: the binary under test and how to run it.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, ChildStdout, Command, Output, Stdio};

use router::doc::RouteDoc;

/// `n` words, the same for the same `seed` (a fixed LCG: no rand dependency for a test). Every
/// word is one of these, so finding "lighthouse" where no prompt should go means one did.
pub fn words(seed: u64, n: usize) -> String {
    const WORDS: &str = "harbour lighthouse keeper storm signal lantern rope tide north south \
        ledger cargo anchor gull rock beacon night morning fog bell shore boat oar net salt wind \
        stair lamp oil glass coast chart";
    let pool: Vec<&str> = WORDS.split_whitespace().collect();
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            pool[(x >> 59) as usize % pool.len()]
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The parts of an OpenAI chat completion the live tests read: the reply's text.
#[derive(serde::Deserialize)]
pub struct Chat {
    pub choices: Vec<Choice>,
}

#[derive(serde::Deserialize)]
pub struct Choice {
    pub message: Message,
}

#[derive(serde::Deserialize)]
pub struct Message {
    pub content: Option<String>,
}

/// The headroom binary built for these tests.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_headroom")
}

/// Runs headroom with `args`: (exit code, stdout, stderr); -1 when killed by a signal.
pub fn headroom(args: &[&str]) -> (i32, String, String) {
    let r = Headroom::cmd(args).run();
    (r.code, r.stdout, r.stderr)
}

/// Runs headroom with `args` and returns its whole output.
pub fn headroom_output(args: &[&str]) -> Output {
    Headroom::cmd(args).output()
}

/// The one way these tests run the binary, after ripgrep's `TestCommand`: a builder (arguments,
/// environment, directory, standard input) and finishers that either hand back what it did
/// ([`Headroom::run`]) or assert it ([`Headroom::stdout`], [`Headroom::assert_fails`],
/// [`Headroom::assert_exit`], [`Headroom::json`]) and on failure print the whole command line,
/// exit code, stdout and stderr. Long-running children start with [`Headroom::spawn`].
pub struct Headroom {
    cmd: Command,
    stdin: Option<Input>,
}

enum Input {
    Bytes(Vec<u8>),
    File(std::path::PathBuf),
}

/// What one run did: the exit code (-1 when killed by a signal) and both streams.
#[derive(Debug)]
pub struct Run {
    /// The command line, for messages.
    pub command: String,
    pub status: std::process::ExitStatus,
    pub code: i32,
    /// Standard output as text (lossy) and as the bytes it printed.
    pub stdout: String,
    pub stdout_bytes: Vec<u8>,
    pub stderr: String,
}

impl Run {
    fn of(command: String, out: Output) -> Run {
        Run {
            command,
            status: out.status,
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stdout_bytes: out.stdout,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    pub fn success(&self) -> bool {
        self.status.success()
    }

    /// Everything there is to know when an assertion on this run fails.
    pub fn report(&self) -> String {
        format!(
            "\n\ncommand: {}\nexit code: {}\n\nstdout:\n{}\n\nstderr:\n{}\n",
            self.command, self.code, self.stdout, self.stderr
        )
    }
}

impl Default for Headroom {
    fn default() -> Self {
        Headroom::new()
    }
}

impl Headroom {
    pub fn new() -> Headroom {
        Headroom {
            cmd: Command::new(bin()),
            stdin: None,
        }
    }

    /// `headroom ARGS...`.
    pub fn cmd<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Headroom {
        let mut h = Headroom::new();
        h.args(args);
        h
    }

    pub fn arg<S: AsRef<std::ffi::OsStr>>(&mut self, arg: S) -> &mut Headroom {
        self.cmd.arg(arg);
        self
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Headroom
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.cmd.args(args);
        self
    }

    pub fn env<K: AsRef<std::ffi::OsStr>, V: AsRef<std::ffi::OsStr>>(
        &mut self,
        key: K,
        value: V,
    ) -> &mut Headroom {
        self.cmd.env(key, value);
        self
    }

    pub fn env_remove<K: AsRef<std::ffi::OsStr>>(&mut self, key: K) -> &mut Headroom {
        self.cmd.env_remove(key);
        self
    }

    #[allow(dead_code)] // the builder is whole: no test runs in a folder of its own yet
    pub fn current_dir<P: AsRef<std::path::Path>>(&mut self, dir: P) -> &mut Headroom {
        self.cmd.current_dir(dir);
        self
    }

    /// Standard input: these bytes (none set: empty, as `Command::output` gives).
    pub fn stdin_bytes(&mut self, bytes: impl Into<Vec<u8>>) -> &mut Headroom {
        self.stdin = Some(Input::Bytes(bytes.into()));
        self
    }

    /// Standard input: this file.
    pub fn stdin_file<P: AsRef<std::path::Path>>(&mut self, path: P) -> &mut Headroom {
        self.stdin = Some(Input::File(path.as_ref().to_path_buf()));
        self
    }

    /// Where a spawned child's (or a run's) streams go; for [`Headroom::spawn`] mostly.
    pub fn stdin_io(&mut self, io: impl Into<Stdio>) -> &mut Headroom {
        self.cmd.stdin(io);
        self
    }

    pub fn stdout_io(&mut self, io: impl Into<Stdio>) -> &mut Headroom {
        self.cmd.stdout(io);
        self
    }

    pub fn stderr_io(&mut self, io: impl Into<Stdio>) -> &mut Headroom {
        self.cmd.stderr(io);
        self
    }

    /// The command line as a shell would take it, for messages.
    pub fn command_line(&self) -> String {
        std::iter::once(self.cmd.get_program())
            .chain(self.cmd.get_args())
            .map(|a| {
                let a = a.to_string_lossy();
                if !a.is_empty()
                    && a.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c))
                {
                    a.into_owned()
                } else {
                    format!("'{}'", a.replace('\'', "'\\''"))
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Starts it and hands back the child (long-running commands: route, emulate, fleet --serve).
    /// Standard input set by `stdin_bytes` is written from a thread of its own.
    pub fn spawn(&mut self) -> Child {
        let bytes = match self.stdin.take() {
            Some(Input::File(p)) => {
                let f = std::fs::File::open(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                self.cmd.stdin(f);
                None
            }
            Some(Input::Bytes(b)) => {
                self.cmd.stdin(Stdio::piped());
                Some(b)
            }
            None => None,
        };
        let line = self.command_line();
        let mut child = self
            .cmd
            .spawn()
            .unwrap_or_else(|e| panic!("start {line}: {e}"));
        if let Some(bytes) = bytes {
            let mut stdin = child.stdin.take().expect("piped stdin");
            std::thread::spawn(move || {
                let _ = std::io::Write::write_all(&mut stdin, &bytes);
            });
        }
        child
    }

    /// Runs it to the end: the raw output.
    pub fn output(&mut self) -> Output {
        let line = self.command_line();
        match self.stdin.take() {
            None => self.cmd.output(),
            Some(Input::File(p)) => {
                let f = std::fs::File::open(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                self.cmd.stdin(f).output()
            }
            Some(Input::Bytes(bytes)) => {
                let mut child = self
                    .cmd
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap_or_else(|e| panic!("start {line}: {e}"));
                let mut stdin = child.stdin.take().expect("piped stdin");
                // A writer of its own: a child that stops reading must not block the test.
                let writer = std::thread::spawn(move || {
                    let _ = std::io::Write::write_all(&mut stdin, &bytes);
                });
                let out = child.wait_with_output();
                let _ = writer.join();
                out
            }
        }
        .unwrap_or_else(|e| panic!("run {line}: {e}"))
    }

    /// Runs it to the end: exit code and both streams, whatever the exit.
    pub fn run(&mut self) -> Run {
        let command = self.command_line();
        Run::of(command, self.output())
    }

    /// Runs it, asserts it succeeded, and returns the raw output.
    pub fn output_ok(&mut self) -> Output {
        let command = self.command_line();
        let out = self.output();
        if !out.status.success() {
            panic!("headroom failed{}", Run::of(command, out).report());
        }
        out
    }

    /// Runs it, asserts it succeeded, and returns the run.
    pub fn assert_ok(&mut self) -> Run {
        let r = self.run();
        assert!(r.success(), "headroom failed{}", r.report());
        r
    }

    /// Runs it, asserts it succeeded, and returns its stdout.
    pub fn stdout(&mut self) -> String {
        self.assert_ok().stdout
    }

    /// Runs it, asserts it succeeded, and returns its stdout as the bytes it printed.
    pub fn stdout_bytes(&mut self) -> Vec<u8> {
        self.assert_ok().stdout_bytes
    }

    /// Runs it, asserts it succeeded, and reads its stdout back as the typed document `T`.
    pub fn json<T: serde::de::DeserializeOwned>(&mut self) -> T {
        let r = self.assert_ok();
        serde_json::from_slice(&r.stdout_bytes).unwrap_or_else(|e| {
            panic!(
                "stdout is not one {} ({e}){}",
                std::any::type_name::<T>(),
                r.report()
            )
        })
    }

    /// Runs it and asserts it failed (any non-zero exit, or a signal); returns the run.
    pub fn assert_fails(&mut self) -> Run {
        let r = self.run();
        assert!(
            !r.success(),
            "headroom succeeded where it should fail{}",
            r.report()
        );
        r
    }

    /// Runs it and asserts its exit code is `code`; returns the run.
    pub fn assert_exit(&mut self, code: i32) -> Run {
        let r = self.run();
        assert_eq!(r.code, code, "headroom exit code{}", r.report());
        r
    }
}

/// `headroom route --listen 127.0.0.1:0 --json` in front of `backends`, with `extra` flags; its
/// startup line read back as the typed document. Killed when dropped.
pub struct RouteProc {
    child: Child,
    stdout: BufReader<ChildStdout>,
    pub addr: SocketAddr,
}

impl RouteProc {
    pub fn start<S: AsRef<str>>(backends: &[S], extra: &[&str]) -> RouteProc {
        let mut cmd = Headroom::cmd(&["route", "--listen", "127.0.0.1:0", "--json"]);
        for b in backends {
            cmd.args(["--backend", b.as_ref()]);
        }
        let mut child = cmd
            .args(extra)
            .stdout_io(Stdio::piped())
            .stderr_io(Stdio::inherit())
            .spawn();
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("the listening line");
        let addr = match serde_json::from_str(&line) {
            Ok(RouteDoc::Listening {
                listen, replicas, ..
            }) => {
                assert_eq!(replicas.len(), backends.len(), "{line}");
                listen
                    .parse()
                    .unwrap_or_else(|e| panic!("listen {listen:?} ({e})"))
            }
            other => panic!("not a listening line ({other:?}): {line:?}"),
        };
        RouteProc {
            child,
            stdout,
            addr,
        }
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// SIGTERM, then the stopped report: what the router sent where.
    pub fn stop(mut self) -> RouteDoc {
        let ok = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(ok.success());
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("the stopped line");
        let _ = self.child.wait();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("stopped line ({e}): {line:?}"))
    }
}

impl Drop for RouteProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `headroom emulate --port 0 --json` with `args`, its URL read back from its startup document
/// (headroom.emulate/1). Killed when dropped.
pub struct EmulateProc {
    pub child: Child,
    pub url: String,
    /// Its startup document, as printed.
    pub doc: emulator::doc::EmulateDoc,
}

impl EmulateProc {
    pub fn start(args: &[&str]) -> EmulateProc {
        let mut child = Headroom::cmd(&["emulate", "--port", "0", "--json"])
            .args(args)
            .stdout_io(Stdio::piped())
            .stderr_io(Stdio::null())
            .spawn();
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut line)
            .expect("emulate prints its deployment");
        let doc: emulator::doc::EmulateDoc =
            serde_json::from_str(&line).expect("emulate's first line is its deployment document");
        EmulateProc {
            child,
            url: doc.url.clone(),
            doc,
        }
    }

    /// `headroom emulate --scenario NAME --drive` at `speed`× for `duration` of wall time, with
    /// `extra` flags after.
    pub fn driven(scenario: &str, speed: &str, duration: &str, extra: &[&str]) -> EmulateProc {
        let mut args = vec![
            "--scenario",
            scenario,
            "--drive",
            "--speed",
            speed,
            "--duration",
            duration,
        ];
        args.extend_from_slice(extra);
        EmulateProc::start(&args)
    }

    /// host:port, as Prometheus labels it `instance`.
    pub fn addr(&self) -> String {
        self.url.trim_start_matches("http://").to_string()
    }

    /// The loopback port it listens on.
    pub fn port(&self) -> u16 {
        self.addr()
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("the emulator's URL ends in its port")
    }
}

impl Drop for EmulateProc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Scrapes as a store holds them: every sample of every scrape of each instance at its time,
/// as timestamped OpenMetrics for `promtool tsdb create-blocks-from openmetrics`, labelled with
/// its `instance` and `job`. Each sample name is a family of type unknown, so counters, buckets
/// and info series go in as the engine wrote them.
pub fn openmetrics(sets: &[(&str, &[(f64, engines::prom::Exposition)])], job: &str) -> String {
    use std::collections::BTreeMap;
    let esc = |v: &str| {
        v.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    };
    let num = |v: f64| {
        if v.is_nan() {
            "NaN".to_string()
        } else if v.is_infinite() {
            if v > 0.0 { "+Inf" } else { "-Inf" }.to_string()
        } else {
            format!("{v}")
        }
    };
    // name -> labels -> [(t, value)]
    let mut fams: BTreeMap<String, BTreeMap<String, Vec<(f64, f64)>>> = BTreeMap::new();
    for (instance, scrapes) in sets {
        for (t, e) in scrapes.iter() {
            for s in e.samples() {
                let mut labels: Vec<String> = s
                    .labels
                    .iter()
                    .filter(|(k, _)| k != "instance" && k != "job")
                    .map(|(k, v)| format!("{k}=\"{}\"", esc(v)))
                    .collect();
                labels.push(format!("instance=\"{instance}\""));
                labels.push(format!("job=\"{job}\""));
                fams.entry(s.name.clone())
                    .or_default()
                    .entry(labels.join(","))
                    .or_default()
                    .push((*t, s.value));
            }
        }
    }
    let mut out = String::new();
    for (name, series) in &fams {
        out.push_str(&format!("# TYPE {name} unknown\n"));
        for (labels, points) in series {
            for (t, v) in points {
                out.push_str(&format!("{name}{{{labels}}} {} {t}\n", num(*v)));
            }
        }
    }
    out.push_str("# EOF\n");
    out
}

/// scripts/bench/census_gen.py's history of its four planted engines over `span_s` seconds,
/// ending on a whole minute five minutes ago (before the store's own clock), written as
/// OpenMetrics into `dir`; (the file, the end in unix seconds).
pub fn census_history(dir: &std::path::Path, span_s: u64) -> (std::path::PathBuf, u64) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    let end = now / 60 * 60 - 300;
    let om = dir.join("history.om");
    let gen =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/bench/census_gen.py");
    let out = Command::new("python3")
        .arg(&gen)
        .arg(end.to_string())
        .arg(span_s.to_string())
        .arg(&om)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "census_gen.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (om, end)
}

/// vLLM's gauges of requests in flight, which `testpeers::vllm::shared` waits to read 0.
pub const VLLM_IN_FLIGHT: &[&str] = &["vllm:num_requests_running", "vllm:num_requests_waiting"];
