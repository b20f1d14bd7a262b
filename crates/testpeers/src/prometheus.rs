//! A real Prometheus (Debian's `prometheus`, which scripts/peers.sh installs) on a loopback port,
//! scraping the targets a test names every second, with its storage in a fresh temporary folder.
//! Queries go over its real HTTP API: nothing here mocks it.

use crate::{free_port, get, missing};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One alert as the store's API reports it.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Alert {
    pub labels: std::collections::BTreeMap<String, String>,
    /// `pending` or `firing`.
    pub state: String,
}

/// One scrape job: its `job` label and its targets (`host:port`).
pub struct Job<'a> {
    pub name: &'a str,
    pub targets: Vec<String>,
}

/// A running Prometheus, killed and its storage removed when dropped.
pub struct Prometheus {
    child: Child,
    pub port: u16,
    pub url: String,
    /// Its folder: the generated config, the TSDB, the log.
    pub dir: PathBuf,
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The `prometheus` binary: `HEADROOM_PROMETHEUS`, else the one on PATH.
pub fn binary() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("HEADROOM_PROMETHEUS") {
        return Some(PathBuf::from(p));
    }
    let found = Command::new("prometheus")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if found {
        Some(PathBuf::from("prometheus"))
    } else {
        missing(
            "prometheus",
            "apt-get install prometheus, or run scripts/peers.sh",
        )
    }
}

/// The scrape config: every job at a 1 s interval (the fastest cadence a test can afford to
/// wait for, and the one the real store is read at).
pub fn config(jobs: &[Job]) -> String {
    let mut s = String::from(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\nscrape_configs:\n",
    );
    if jobs.is_empty() {
        s.push_str("  []\n");
    }
    for j in jobs {
        s.push_str(&format!(
            "  - job_name: {:?}\n    static_configs:\n      - targets: [{}]\n",
            j.name,
            j.targets
                .iter()
                .map(|t| format!("{t:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    s
}

/// `promtool` (the same Debian package): `HEADROOM_PROMTOOL`, else the one on PATH.
pub fn promtool() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("HEADROOM_PROMTOOL") {
        return Some(PathBuf::from(p));
    }
    let found = Command::new("promtool")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if found {
        Some(PathBuf::from("promtool"))
    } else {
        missing(
            "promtool",
            "apt-get install prometheus, or run scripts/peers.sh",
        )
    }
}

/// `promtool tsdb create-blocks-from openmetrics`: the history written as blocks into `data`.
fn backfill(tool: &std::path::Path, openmetrics: &std::path::Path, data: &std::path::Path) {
    let out = Command::new(tool)
        .args(["tsdb", "create-blocks-from", "openmetrics"])
        .arg(openmetrics)
        .arg(data)
        .output()
        .expect("run promtool");
    assert!(
        out.status.success(),
        "promtool backfill of {} failed: {}",
        openmetrics.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Prometheus' own protection of its HTTP side (`--web.config.file`): TLS and basic auth.
#[derive(Default)]
pub struct WebConfig {
    /// Server certificate and key (PEM files), and the CA a client certificate must chain to
    /// when one is required.
    pub tls: Option<Tls>,
    /// Users and their bcrypt password hashes.
    pub users: Vec<(String, String)>,
}

pub struct Tls {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub client_ca: Option<PathBuf>,
}

impl WebConfig {
    /// The YAML Prometheus reads
    /// (https://prometheus.io/docs/prometheus/latest/configuration/https/).
    pub fn yaml(&self) -> String {
        let mut s = String::new();
        if let Some(t) = &self.tls {
            s.push_str(&format!(
                "tls_server_config:\n  cert_file: {:?}\n  key_file: {:?}\n",
                t.cert.display().to_string(),
                t.key.display().to_string()
            ));
            if let Some(ca) = &t.client_ca {
                s.push_str(&format!(
                    "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: {:?}\n",
                    ca.display().to_string()
                ));
            }
        }
        if !self.users.is_empty() {
            s.push_str("basic_auth_users:\n");
            for (u, hash) in &self.users {
                s.push_str(&format!("  {u:?}: {hash:?}\n"));
            }
        }
        s
    }
}

impl Prometheus {
    /// Start Prometheus on history backfilled from `openmetrics` (timestamped OpenMetrics text)
    /// with `promtool tsdb create-blocks-from openmetrics`, scraping nothing: days of series
    /// without waiting days.
    pub fn start_backfilled(openmetrics: &std::path::Path) -> Option<Prometheus> {
        let tool = promtool()?;
        Self::start_with(&[], |data| backfill(&tool, openmetrics, data))
    }

    /// Start Prometheus scraping `jobs`; waits (at most 60 s) until it answers /-/ready.
    pub fn start(jobs: &[Job]) -> Option<Prometheus> {
        Self::start_with(jobs, |_| {})
    }

    /// Start Prometheus scraping `jobs` with the rule file `rules` loaded (evaluated every
    /// second), on `port` when given (a store that comes back where it was), else a free one.
    pub fn start_with_rules(jobs: &[Job], rules: &str, port: Option<u16>) -> Option<Prometheus> {
        Self::start_full(jobs, Some(rules), port, None, |_| {})
    }

    /// Start Prometheus behind `web`, its own `--web.config.file` (TLS, basic auth), on history
    /// backfilled from `openmetrics` when given. Its URL is then `https://127.0.0.1:PORT` when
    /// `web` names a TLS section. Ready when its log says so (the readiness endpoint is behind
    /// the same protection).
    pub fn start_protected(
        web: &WebConfig,
        openmetrics: Option<&std::path::Path>,
    ) -> Option<Prometheus> {
        let tool = promtool()?;
        Self::start_full(&[], None, None, Some(web), |data| {
            if let Some(om) = openmetrics {
                backfill(&tool, om, data);
            }
        })
    }

    fn start_with(jobs: &[Job], prepare: impl FnOnce(&std::path::Path)) -> Option<Prometheus> {
        Self::start_full(jobs, None, None, None, prepare)
    }

    fn start_full(
        jobs: &[Job],
        rules: Option<&str>,
        port: Option<u16>,
        web: Option<&WebConfig>,
        prepare: impl FnOnce(&std::path::Path),
    ) -> Option<Prometheus> {
        let bin = binary()?;
        let port = port.unwrap_or_else(free_port);
        let dir =
            std::env::temp_dir().join(format!("headroom-prometheus-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("data")).expect("prometheus temp folder");
        prepare(&dir.join("data"));
        let cfg = dir.join("prometheus.yml");
        let mut text = config(jobs);
        if let Some(r) = rules {
            let file = dir.join("rules.yml");
            std::fs::write(&file, r).expect("prometheus rules");
            text.push_str(&format!(
                "rule_files:\n  - {:?}\n",
                file.display().to_string()
            ));
        }
        std::fs::write(&cfg, text).expect("prometheus config");
        let mut web_flag = Vec::new();
        if let Some(w) = web {
            let web_file = dir.join("web.yml");
            std::fs::write(&web_file, w.yaml()).expect("prometheus web config");
            let check = Command::new(promtool()?)
                .args(["check", "web-config"])
                .arg(&web_file)
                .output()
                .expect("run promtool");
            assert!(
                check.status.success(),
                "promtool check web-config: {}{}",
                String::from_utf8_lossy(&check.stdout),
                String::from_utf8_lossy(&check.stderr)
            );
            web_flag.push(format!("--web.config.file={}", web_file.display()));
        }
        let log = dir.join("prometheus.log");
        let child = Command::new(bin)
            .arg(format!("--config.file={}", cfg.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .args(web_flag)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("prometheus log"))
            .spawn()
            .expect("spawn prometheus");
        let scheme = if web.is_some_and(|w| w.tls.is_some()) {
            "https"
        } else {
            "http"
        };
        let p = Prometheus {
            child,
            port,
            url: format!("{scheme}://127.0.0.1:{port}"),
            dir,
        };
        if web.is_some() {
            // The readiness endpoint is behind the same protection: its log says when.
            let deadline = Instant::now() + Duration::from_secs(60);
            while !p.log().contains("Server is ready to receive web requests") {
                assert!(
                    Instant::now() < deadline,
                    "prometheus was not ready in 60 s; log: {}",
                    p.log()
                );
                std::thread::sleep(Duration::from_millis(200));
            }
        } else {
            p.wait_ready(Duration::from_secs(60));
        }
        Some(p)
    }

    /// Its log so far (for assertion messages).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("prometheus.log")).unwrap_or_default()
    }

    fn wait_ready(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        while get(self.port, "/-/ready").is_none_or(|(code, _)| code != 200) {
            assert!(
                Instant::now() < deadline,
                "prometheus was not ready in {limit:?}; log: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The store's own answer to an instant query at `time` (unix seconds, sent as milliseconds
    /// the way headroom's client sends them): the value of its single series, None when the
    /// answer has no series. Read here from the API's JSON, not through headroom's client.
    pub fn instant(&self, expr: &str, time: f64) -> Option<f64> {
        let encoded: String = expr
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect();
        let (code, body) = get(
            self.port,
            &format!("/api/v1/query?query={encoded}&time={time:.3}"),
        )?;
        assert_eq!(code, 200, "{expr}: {body}");
        let v: serde_json::Value = serde_json::from_str(&body).ok()?;
        let result = v.pointer("/data/result")?.as_array()?;
        assert!(result.len() <= 1, "{expr}: one series expected: {body}");
        result.first()?.pointer("/value/1")?.as_str()?.parse().ok()
    }

    /// The alerts the store holds (`/api/v1/alerts`): pending and firing, with their labels.
    pub fn alerts(&self) -> Vec<Alert> {
        #[derive(serde::Deserialize)]
        struct Answer {
            data: Data,
        }
        #[derive(serde::Deserialize)]
        struct Data {
            alerts: Vec<Alert>,
        }
        let Some((200, body)) = get(self.port, "/api/v1/alerts") else {
            return Vec::new();
        };
        serde_json::from_str::<Answer>(&body)
            .map(|a| a.data.alerts)
            .unwrap_or_else(|e| panic!("/api/v1/alerts: {e}: {body}"))
    }

    /// Waits until every target has been scraped successfully (`up`), at most `limit`.
    pub fn wait_targets_up(&self, n: usize, limit: Duration) {
        let deadline = Instant::now() + limit;
        loop {
            let up = get(self.port, "/api/v1/targets?state=active")
                .and_then(|(_, body)| serde_json::from_str::<serde_json::Value>(&body).ok())
                .and_then(|v| {
                    v.pointer("/data/activeTargets")
                        .and_then(|t| t.as_array())
                        .map(|a| {
                            a.iter()
                                .filter(|t| t.get("health").and_then(|h| h.as_str()) == Some("up"))
                                .count()
                        })
                })
                .unwrap_or(0);
            if up >= n {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{up} of {n} prometheus targets up after {limit:?}; log: {}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrapes_a_target_over_loopback() {
        // A job whose target is nothing listening: the launcher's config is accepted, the API
        // evaluates, and the target is seen and reported down (up == 0), never invented up.
        let dead = free_port();
        let jobs = [Job {
            name: "nothing",
            targets: vec![format!("127.0.0.1:{dead}")],
        }];
        let Some(p) = Prometheus::start(&jobs) else {
            return;
        };
        let (code, body) = get(p.port, "/api/v1/query?query=1%2B1").expect("prometheus answers");
        assert_eq!(code, 200, "{body}");
        assert!(body.contains("\"2\""), "{body}");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let (_, body) = get(p.port, "/api/v1/query?query=up").expect("prometheus answers");
            if body.contains(&format!("127.0.0.1:{dead}")) {
                assert!(body.contains("\"0\""), "{body}");
                break;
            }
            assert!(Instant::now() < deadline, "no up series: {body}");
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}
