//! Stored bench runs as `headroom regress` sees them: grouped into versions by label (else by
//! engine build or version), selected by id or label, and flattened into the identity fields
//! whose differences are "what changed".

use std::collections::BTreeMap;

use loadgen::bench_doc::BenchDoc;
use loadgen::bench_suite::SuiteConfig;
use serde::{Deserialize, Serialize};

/// One bench run read back from the history.
#[derive(Debug, Clone)]
pub struct BenchRun {
    pub id: i64,
    pub created: f64,
    pub label: Option<String>,
    pub doc: BenchDoc,
}

/// Runs taken as one version.
#[derive(Debug, Clone)]
pub struct Group {
    pub key: String,
    pub runs: Vec<BenchRun>,
}

/// A group as the report names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupRef {
    pub key: String,
    pub run_ids: Vec<i64>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SelectError {
    #[error("--{what} {spec:?}: no bench run has this id or label (labels: {known})")]
    Unknown {
        what: &'static str,
        spec: String,
        known: String,
    },
}

/// What makes two runs' metrics mean the same thing: the suite without its repeat counts and
/// preset name. Samples of different shapes are never pooled or compared (`--quick` against
/// the standard suite measures other lengths).
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub version: u32,
    pub gen_tokens: u32,
    pub decode_prompt_tokens: u64,
    pub prefill_lengths: Vec<u64>,
    pub streams: u32,
}

impl Shape {
    pub fn of(s: &SuiteConfig) -> Shape {
        Shape {
            version: s.version,
            gen_tokens: s.gen_tokens,
            decode_prompt_tokens: s.decode_prompt_tokens,
            prefill_lengths: s.prefill_lengths.clone(),
            streams: s.streams,
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "suite v{}: {} generated tokens, {}-token decode prompt, prefill at {:?}, {} streams",
            self.version,
            self.gen_tokens,
            self.decode_prompt_tokens,
            self.prefill_lengths,
            self.streams
        )
    }
}

impl Group {
    pub fn ids(&self) -> Vec<i64> {
        self.runs.iter().map(|r| r.id).collect()
    }

    pub fn reference(&self) -> GroupRef {
        GroupRef {
            key: self.key.clone(),
            run_ids: self.ids(),
        }
    }

    /// The newest run: its identity and suite stand for the group.
    pub fn last(&self) -> &BenchRun {
        self.runs.last().expect("a group has runs")
    }

    pub fn shape(&self) -> Shape {
        Shape::of(&self.last().doc.suite)
    }

    /// The metrics of the newest run, in its order.
    pub fn metric_names(&self) -> Vec<String> {
        self.last()
            .doc
            .metrics
            .iter()
            .map(|m| m.name.clone())
            .collect()
    }

    /// Every sample of a metric over the group's runs, with the newest run's entry for it.
    pub fn samples(&self, name: &str) -> Option<(Vec<f64>, &loadgen::bench_suite::BenchMetric)> {
        let mut out = Vec::new();
        let mut meta = None;
        for r in self.runs.iter().rev() {
            if let Some(m) = r.doc.metric(name) {
                meta.get_or_insert(m);
            }
        }
        for r in &self.runs {
            if let Some(m) = r.doc.metric(name) {
                out.extend_from_slice(&m.samples);
            }
        }
        meta.filter(|_| !out.is_empty()).map(|m| (out, m))
    }

    pub fn describe(&self) -> String {
        let ids: Vec<String> = self.ids().iter().map(|i| i.to_string()).collect();
        format!(
            "\"{}\" (run{} {})",
            self.key,
            if ids.len() > 1 { "s" } else { "" },
            ids.join(", ")
        )
    }

    /// Keeps only the runs of the newest run's suite shape; says which were left out.
    pub fn same_shape_only(mut self, notes: &mut Vec<String>) -> Group {
        let want = self.shape();
        let (keep, out): (Vec<BenchRun>, Vec<BenchRun>) = self
            .runs
            .into_iter()
            .partition(|r| Shape::of(&r.doc.suite) == want);
        if !out.is_empty() {
            notes.push(format!(
                "\"{}\": run(s) {} left out: another suite shape than its newest run ({}); \
samples of different suites are never pooled",
                self.key,
                out.iter()
                    .map(|r| r.id.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                want.describe()
            ));
        }
        self.runs = keep;
        self
    }
}

/// A run's group: its label, else its engine build or version, else the run itself.
pub fn group_key(r: &BenchRun) -> String {
    if let Some(l) = &r.label {
        return l.clone();
    }
    match r.doc.identity.who() {
        Some(w) => w,
        None => format!("run {}", r.id),
    }
}

/// Runs grouped by key, groups ordered by their newest run (oldest group first).
pub fn groups(runs: &[BenchRun]) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for r in runs {
        let k = group_key(r);
        match out.iter_mut().find(|g| g.key == k) {
            Some(g) => g.runs.push(r.clone()),
            None => out.push(Group {
                key: k,
                runs: vec![r.clone()],
            }),
        }
    }
    out.sort_by(|a, b| {
        let t = |g: &Group| (g.last().created, g.last().id);
        t(a).partial_cmp(&t(b)).unwrap_or(std::cmp::Ordering::Equal)
    });
    out
}

/// A run id or a label → the runs it names.
pub fn select(runs: &[BenchRun], spec: &str, what: &'static str) -> Result<Group, SelectError> {
    if let Ok(id) = spec.parse::<i64>() {
        if let Some(r) = runs.iter().find(|r| r.id == id) {
            return Ok(Group {
                key: r.label.clone().unwrap_or_else(|| group_key(r)),
                runs: vec![r.clone()],
            });
        }
    }
    let matching: Vec<BenchRun> = runs
        .iter()
        .filter(|r| group_key(r) == spec)
        .cloned()
        .collect();
    if matching.is_empty() {
        let known: Vec<String> = groups(runs).iter().map(|g| g.key.clone()).collect();
        return Err(SelectError::Unknown {
            what,
            spec: spec.to_string(),
            known: if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            },
        });
    }
    Ok(Group {
        key: spec.to_string(),
        runs: matching,
    })
}

/// An identity flattened for the diff: field → value text. The engine's recorded command line
/// is split into its flags (`argv.--enforce-eager`), so a flag no setting reads is still
/// named when it differs.
pub fn identity_map(doc: &BenchDoc) -> BTreeMap<String, String> {
    let id = &doc.identity;
    let mut m = BTreeMap::new();
    let mut put = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            m.insert(k.to_string(), v);
        }
    };
    put("engine", id.engine.map(|e| e.as_str().to_string()));
    put("version", id.version.clone());
    put("build", id.build.clone());
    put("served_model", id.served_model.clone());
    put("model_path", id.model_path.clone());
    put(
        "model_header_fnv1a64",
        id.model_file.as_ref().map(|f| f.header_fnv1a64.clone()),
    );
    put(
        "model_size_bytes",
        id.model_file.as_ref().map(|f| f.size_bytes.to_string()),
    );
    put("gpu", id.gpu.as_ref().map(|g| g.value.clone()));
    for (k, v) in &id.settings {
        put(&format!("settings.{k}"), Some(v.value.clone()));
    }
    if let Some(p) = &id.process {
        for (flag, value) in flags(&p.argv) {
            put(&format!("argv.{flag}"), Some(value));
        }
    }
    // The suite's shape: a different shape is a change too (the numbers mean other things).
    let s = &doc.suite;
    put(
        "suite.decode_prompt_tokens",
        Some(s.decode_prompt_tokens.to_string()),
    );
    put("suite.gen_tokens", Some(s.gen_tokens.to_string()));
    put(
        "suite.prefill_lengths",
        Some(format!("{:?}", s.prefill_lengths).replace(' ', "")),
    );
    put("suite.streams", Some(s.streams.to_string()));
    put("suite.version", Some(s.version.to_string()));
    if let Some(model) = &s.model {
        put("suite.model", Some(format!("{model:?}")));
    }
    m
}

/// A command line's flags: `--flag value`, `--flag=value`, `-t 4`; a flag without a value is
/// `(set)`. The program and positional words before the first flag are `program` and `args`.
pub fn flags(argv: &[String]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut i = 1;
    let mut positional = Vec::new();
    while i < argv.len() {
        let a = &argv[i];
        let is_flag = a.starts_with('-') && a.len() > 1 && a.parse::<f64>().is_err();
        if !is_flag {
            positional.push(a.clone());
            i += 1;
            continue;
        }
        if let Some((f, v)) = a.split_once('=') {
            out.push((f.to_string(), v.to_string()));
            i += 1;
            continue;
        }
        let next = argv.get(i + 1);
        match next {
            Some(n) if !(n.starts_with('-') && n.len() > 1 && n.parse::<f64>().is_err()) => {
                out.push((a.clone(), n.clone()));
                i += 2;
            }
            _ => {
                out.push((a.clone(), "(set)".into()));
                i += 1;
            }
        }
    }
    if !positional.is_empty() {
        out.push(("args".into(), positional.join(" ")));
    }
    out
}

/// One run's machine load while it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunLoad {
    pub cpus: Option<usize>,
    pub loadavg_1m_end: f64,
    pub loadavg_1m_start: f64,
    pub run_id: i64,
}

/// Every run's load (runs without a record, remote servers, are left out).
pub fn loads(g: &Group) -> Vec<RunLoad> {
    g.runs
        .iter()
        .filter_map(|r| {
            let h = r.doc.identity.host.as_ref()?;
            Some(RunLoad {
                cpus: h.cpus,
                loadavg_1m_end: h.loadavg_1m_end,
                loadavg_1m_start: h.loadavg_1m_start,
                run_id: r.id,
            })
        })
        .collect()
}

fn mean(l: &RunLoad) -> f64 {
    (l.loadavg_1m_start + l.loadavg_1m_end) / 2.0
}

/// Whether two loads differ enough to move every metric by themselves: a quarter of the CPUs
/// apart and half as high again.
fn differ(lo: f64, hi: f64, cpus: f64) -> bool {
    hi - lo > 0.25 * cpus && hi > 1.5 * lo.max(0.1)
}

/// A warning when the runs of one group ran under different load.
pub fn load_within_note(g: &Group) -> Option<String> {
    let l = loads(g);
    let lo = l.iter().min_by(|a, b| mean(a).total_cmp(&mean(b)))?;
    let hi = l.iter().max_by(|a, b| mean(a).total_cmp(&mean(b)))?;
    let cpus = hi.cpus.or(lo.cpus).unwrap_or(1) as f64;
    differ(mean(lo), mean(hi), cpus).then(|| {
        format!(
            "the runs of \"{}\" ran under different load (run {} at ~{:.1}, run {} at ~{:.1}, \
1-min load average on {cpus} CPUs): another process shared the machine during some of them; \
bench them again",
            g.key,
            lo.run_id,
            mean(lo),
            hi.run_id,
            mean(hi)
        )
    })
}

/// A warning when the machine was much busier on one side: on a shared machine that alone
/// moves every metric, and no test on the samples can tell it from a regression.
pub fn load_between_note(baseline: &Group, latest: &Group) -> Option<String> {
    let side = |g: &Group| {
        let l = loads(g);
        (!l.is_empty()).then(|| {
            (
                l.iter().map(mean).sum::<f64>() / l.len() as f64,
                l.iter().find_map(|x| x.cpus).unwrap_or(1) as f64,
            )
        })
    };
    let ((b, cpus), (l, _)) = (side(baseline)?, side(latest)?);
    differ(b.min(l), b.max(l), cpus).then(|| {
        format!(
            "the machine's load differed between the sides (1-min load average ~{b:.1} baseline, \
~{l:.1} latest, on {cpus} CPUs): a difference this large can move every metric by itself; \
bench both again, alternating, with the same labels (regress pools runs by label)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_flags() {
        let a: Vec<String> = "llama-server -m m.gguf -ub 1 --metrics -t 4 --rope-scale=2 -n -1"
            .split(' ')
            .map(str::to_string)
            .collect();
        let f = flags(&a);
        let get = |k: &str| f.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str());
        assert_eq!(get("-m"), Some("m.gguf"));
        assert_eq!(get("-ub"), Some("1"));
        assert_eq!(get("--metrics"), Some("(set)"));
        assert_eq!(get("--rope-scale"), Some("2"));
        assert_eq!(get("-n"), Some("-1"), "a negative number is a value");
        let v: Vec<String> = ["vllm", "serve", "org/m", "--enforce-eager"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let f = flags(&v);
        assert_eq!(f[0], ("--enforce-eager".into(), "(set)".into()));
        assert_eq!(f[1], ("args".into(), "serve org/m".into()));
    }
}
