//! The GPUs under each replica: the DCGM exporter's series in the same store, read over the
//! window's grid in one range query, and joined to replicas by the labels that tie them.
//!
//! The join, most specific first:
//! - **pod**: dcgm-exporter in Kubernetes mode labels each GPU's series with the `pod` (and
//!   `namespace`) using it; a replica whose own series carry that pod has exactly those GPUs
//!   (Kubernetes allocated them to it), so their number is its tensor-parallel width.
//! - **host**: otherwise a GPU belongs to the replica on its host: the replica's `instance` host
//!   equals the exporter's `Hostname` label or its own `instance` host (the exporter and the
//!   engine scraped on one machine). Only when that host runs one replica: two replicas on one
//!   host with no pod labels to tell their GPUs apart is ambiguous, and refused, never guessed.
//!
//! A GPU claimed by two replicas is refused for both. The join is shown per replica (how, which
//! GPUs) and in the document's `dcgm` summary (GPUs seen, joined, left over).

use gputel::dcgm;
use gputel::GpuSample;
use promapi::{Selector, Series};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The identity labels of a replica's series that can tie it to GPUs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Identity {
    /// Hosts of its `instance` labels (the scrape target's host, port dropped).
    pub hosts: BTreeSet<String>,
    /// (namespace, pod) of its series, where they carry a `pod` label.
    pub pods: BTreeSet<(Option<String>, String)>,
}

/// How a replica was joined to GPUs (`by` pod or host), or why not (`refused`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuJoin {
    /// `pod` or `host`; null when refused or nothing matched.
    pub by: Option<String>,
    /// The joined GPUs' labels (`host gpu N`, `… MIG i`).
    pub gpus: Vec<String>,
    /// Why no GPU was joined: ambiguous, shared, or nothing matched.
    pub refused: Option<String>,
}

/// What the store held of DCGM and how much of it was joined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DcgmSummary {
    /// The label matchers the DCGM series were read under.
    pub selector: String,
    /// GPUs (or MIG instances) with DCGM series in the window.
    pub gpus: usize,
    /// Of those, joined to a replica.
    pub joined: usize,
    /// The GPUs joined to no replica, by label.
    pub unjoined: Vec<String>,
}

/// Every DCGM series headroom reads, under `sel`, as one range query's expression.
pub fn query(sel: &Selector) -> String {
    let names: Vec<&str> = dcgm::FIELDS.iter().map(|(n, _)| *n).collect();
    sel.by_name_re(&names.join("|"))
}

/// Each replica's identity labels at one instant: every engine's series grouped by the replica
/// label and the labels a join reads.
pub fn identity_query(sel: &Selector, by: &str) -> String {
    let re: Vec<String> = engines::Engine::ALL
        .iter()
        .map(|e| format!("{}.+", e.prefix()))
        .collect();
    let mut labels = vec![by];
    for l in ["instance", "pod", "namespace"] {
        if l != by {
            labels.push(l);
        }
    }
    format!(
        "group by ({}) ({})",
        labels.join(", "),
        sel.by_name_re(&re.join("|"))
    )
}

/// The host of an `instance` label: `host:port`, `[v6]:port`, or a bare host.
pub fn host_of(instance: &str) -> &str {
    if let Some(rest) = instance.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match instance.rsplit_once(':') {
        Some((h, p)) if !h.contains(':') && p.chars().all(|c| c.is_ascii_digit()) => h,
        _ => instance,
    }
}

/// Each replica's identity from the identity query's answer.
pub fn identities(answer: &[Series], by: &str) -> BTreeMap<String, Identity> {
    let mut out: BTreeMap<String, Identity> = BTreeMap::new();
    for s in answer {
        let Some(r) = s.labels.get(by) else { continue };
        let id = out.entry(r.clone()).or_default();
        if let Some(i) = s.labels.get("instance").filter(|i| !i.is_empty()) {
            id.hosts.insert(host_of(i).to_string());
        }
        if let Some(p) = s.labels.get("pod").filter(|p| !p.is_empty()) {
            let ns = s.labels.get("namespace").filter(|n| !n.is_empty()).cloned();
            id.pods.insert((ns, p.clone()));
        }
    }
    out
}

/// One series' point: its name, its labels, its value.
type Item<'a> = (&'a str, &'a BTreeMap<String, String>, f64);

/// The store's DCGM answer as readings: one `GpuSample` per GPU per grid time (`t_s` set), in
/// time order.
pub fn readings(answer: &[Series]) -> Vec<GpuSample> {
    // Points of every series grouped by time (the range query's grid, exact).
    let mut at: BTreeMap<i64, Vec<Item>> = BTreeMap::new();
    for s in answer {
        let Some(name) = s.labels.get("__name__") else {
            continue;
        };
        for &(t, v) in &s.points {
            at.entry((t * 1000.0).round() as i64)
                .or_default()
                .push((name.as_str(), &s.labels, v));
        }
    }
    let mut out = Vec::new();
    for (ms, items) in at {
        let (gpus, _) = dcgm::from_series(&items);
        out.extend(gpus.into_iter().map(|mut g| {
            g.t_s = Some(ms as f64 / 1000.0);
            g
        }));
    }
    out
}

/// A device's identity across readings: host, UUID, index, MIG instance.
pub type DeviceKey = (Option<String>, Option<String>, Option<u32>, Option<u32>);

pub fn device_key(s: &GpuSample) -> DeviceKey {
    (s.hostname.clone(), s.uuid.clone(), s.gpu, s.mig_instance)
}

/// One device as the join sees it: its label, the pods on it and its hosts.
struct Device {
    key: DeviceKey,
    label: String,
    pods: BTreeSet<(Option<String>, String)>,
    hosts: BTreeSet<String>,
}

fn devices(readings: &[GpuSample]) -> Vec<Device> {
    let mut out: Vec<Device> = Vec::new();
    let mut index: HashMap<DeviceKey, usize> = HashMap::new();
    for s in readings {
        let i = *index.entry(device_key(s)).or_insert_with_key(|k| {
            out.push(Device {
                key: k.clone(),
                label: s.label(),
                pods: BTreeSet::new(),
                hosts: BTreeSet::new(),
            });
            out.len() - 1
        });
        let d = &mut out[i];
        for p in &s.pods {
            d.pods.insert((p.namespace.clone(), p.pod.clone()));
        }
        if let Some(h) = &s.hostname {
            d.hosts.insert(h.clone());
        }
        if let Some(i) = &s.instance {
            d.hosts.insert(host_of(i).to_string());
        }
    }
    out
}

/// A pod matches when the names are equal and the namespaces are, where both sides carry one.
fn same_pod(a: &(Option<String>, String), b: &(Option<String>, String)) -> bool {
    a.1 == b.1
        && match (&a.0, &b.0) {
            (Some(x), Some(y)) => x == y,
            _ => true,
        }
}

/// Joins every replica to its GPUs; the keys of each replica's joined devices, and the join as
/// the document shows it.
pub fn join(
    replicas: &BTreeMap<String, Identity>,
    readings: &[GpuSample],
    selector: String,
) -> (BTreeMap<String, (Vec<DeviceKey>, GpuJoin)>, DcgmSummary) {
    let devs = devices(readings);
    // Candidates per replica, by pod first, else by host.
    let mut claims: BTreeMap<&str, (Vec<usize>, &'static str)> = BTreeMap::new();
    let mut by_host: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (r, id) in replicas {
        let pods: Vec<usize> = (0..devs.len())
            .filter(|&i| {
                devs[i]
                    .pods
                    .iter()
                    .any(|p| id.pods.iter().any(|q| same_pod(p, q)))
            })
            .collect();
        if !pods.is_empty() {
            claims.insert(r, (pods, "pod"));
            continue;
        }
        for h in &id.hosts {
            by_host.entry(h.as_str()).or_default().push(r.as_str());
        }
    }
    let mut refused: BTreeMap<&str, String> = BTreeMap::new();
    for (r, id) in replicas {
        if claims.contains_key(r.as_str()) {
            continue;
        }
        let hosts: Vec<&str> = id.hosts.iter().map(String::as_str).collect();
        let on_host: Vec<usize> = (0..devs.len())
            .filter(|&i| hosts.iter().any(|h| devs[i].hosts.contains(*h)))
            .collect();
        if on_host.is_empty() {
            continue;
        }
        let mut neighbours: BTreeSet<&str> = BTreeSet::new();
        for h in &hosts {
            for o in by_host.get(h).into_iter().flatten() {
                if *o != r.as_str() {
                    neighbours.insert(o);
                }
            }
        }
        if neighbours.is_empty() {
            claims.insert(r, (on_host, "host"));
        } else {
            refused.insert(
                r,
                format!(
                    "ambiguous: host {} runs {} and {} and has {} GPU(s) ({}); no pod label ties a GPU to one replica (dcgm-exporter's Kubernetes mode adds them)",
                    hosts.join(", "),
                    r,
                    neighbours.into_iter().collect::<Vec<_>>().join(", "),
                    on_host.len(),
                    on_host.iter().map(|&i| devs[i].label.as_str()).collect::<Vec<_>>().join(", ")
                ),
            );
        }
    }
    // A GPU claimed twice is nobody's.
    let mut owners: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for (r, (ds, _)) in &claims {
        for &d in ds {
            owners.entry(d).or_default().push(r);
        }
    }
    for (d, rs) in &owners {
        if rs.len() > 1 {
            for r in rs {
                claims.remove(r);
                refused.insert(
                    r,
                    format!(
                        "{} is attributed to {}: a shared GPU's figures are not one replica's",
                        devs[*d].label,
                        rs.join(" and ")
                    ),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    let mut joined: BTreeSet<usize> = BTreeSet::new();
    for r in replicas.keys() {
        let j = if let Some((ds, how)) = claims.get(r.as_str()) {
            joined.extend(ds.iter().copied());
            (
                ds.iter().map(|&i| devs[i].key.clone()).collect(),
                GpuJoin {
                    by: Some(how.to_string()),
                    gpus: ds.iter().map(|&i| devs[i].label.clone()).collect(),
                    refused: None,
                },
            )
        } else {
            let why = refused
                .remove(r.as_str())
                .unwrap_or_else(|| "no DCGM series shares its pod or its host".to_string());
            (
                Vec::new(),
                GpuJoin {
                    by: None,
                    gpus: Vec::new(),
                    refused: Some(why),
                },
            )
        };
        out.insert(r.clone(), j);
    }
    let unjoined = (0..devs.len())
        .filter(|i| !joined.contains(i))
        .map(|i| devs[i].label.clone())
        .collect();
    (
        out,
        DcgmSummary {
            selector,
            gpus: devs.len(),
            joined: joined.len(),
            unjoined,
        },
    )
}

/// The readings grouped by device, once for every replica's look-up.
pub fn by_device(readings: &[GpuSample]) -> HashMap<DeviceKey, Vec<GpuSample>> {
    let mut out: HashMap<DeviceKey, Vec<GpuSample>> = HashMap::new();
    for s in readings {
        out.entry(device_key(s)).or_default().push(s.clone());
    }
    out
}

/// The readings of the given devices, device by device in `keys`' order.
pub fn of_devices(
    grouped: &HashMap<DeviceKey, Vec<GpuSample>>,
    keys: &[DeviceKey],
) -> Vec<GpuSample> {
    keys.iter()
        .filter_map(|k| grouped.get(k))
        .flatten()
        .cloned()
        .collect()
}

/// Whole GPUs (not MIG instances) among the joined devices.
pub fn whole_gpus(keys: &[DeviceKey]) -> usize {
    keys.iter().filter(|k| k.3.is_none()).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gputel::PodRef;

    fn gpu(host: &str, inst: &str, g: u32, pods: &[(&str, &str)]) -> GpuSample {
        GpuSample {
            hostname: Some(host.into()),
            instance: Some(inst.into()),
            gpu: Some(g),
            uuid: Some(format!("GPU-{host}-{g}")),
            pods: pods
                .iter()
                .map(|(ns, p)| PodRef {
                    namespace: Some(ns.to_string()),
                    pod: p.to_string(),
                    container: None,
                })
                .collect(),
            ..GpuSample::default()
        }
    }

    fn id(instance: &str, pod: Option<(&str, &str)>) -> Identity {
        Identity {
            hosts: [host_of(instance).to_string()].into(),
            pods: pod
                .map(|(n, p)| (Some(n.to_string()), p.to_string()))
                .into_iter()
                .collect(),
        }
    }

    #[test]
    fn hosts_of_instances() {
        assert_eq!(host_of("10.0.0.1:8000"), "10.0.0.1");
        assert_eq!(host_of("[fe80::1]:8000"), "fe80::1");
        assert_eq!(host_of("gpu-node-3"), "gpu-node-3");
        assert_eq!(host_of("fe80::1"), "fe80::1");
    }

    #[test]
    fn pods_join_first_then_a_host_with_one_replica_and_two_on_a_host_are_refused() {
        let readings = vec![
            // node-a: one replica per pod, two GPUs each (TP 2).
            gpu("node-a", "10.1.0.1:9400", 0, &[("ml", "vllm-0")]),
            gpu("node-a", "10.1.0.1:9400", 1, &[("ml", "vllm-0")]),
            gpu("node-a", "10.1.0.1:9400", 2, &[("ml", "vllm-1")]),
            gpu("node-a", "10.1.0.1:9400", 3, &[("ml", "vllm-1")]),
            // host-b: one replica, no pods.
            gpu("host-b", "10.2.0.1:9400", 0, &[]),
            // host-c: two replicas, two GPUs, no pods.
            gpu("host-c", "10.3.0.1:9400", 0, &[]),
            gpu("host-c", "10.3.0.1:9400", 1, &[]),
            // host-d: nobody.
            gpu("host-d", "10.4.0.1:9400", 0, &[]),
        ];
        let replicas: BTreeMap<String, Identity> = [
            ("a0", id("10.9.0.5:8000", Some(("ml", "vllm-0")))),
            ("a1", id("10.9.0.6:8000", Some(("ml", "vllm-1")))),
            ("b", id("10.2.0.1:8000", None)),
            ("c1", id("10.3.0.1:8000", None)),
            ("c2", id("10.3.0.1:8001", None)),
            ("e", id("10.5.0.1:8000", None)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let (j, sum) = join(&replicas, &readings, "{}".into());
        assert_eq!(j["a0"].1.by.as_deref(), Some("pod"));
        assert_eq!(j["a0"].1.gpus, ["node-a gpu 0", "node-a gpu 1"]);
        assert_eq!(whole_gpus(&j["a0"].0), 2);
        assert_eq!(j["a1"].1.gpus, ["node-a gpu 2", "node-a gpu 3"]);
        assert_eq!(j["b"].1.by.as_deref(), Some("host"));
        assert_eq!(j["b"].1.gpus, ["host-b gpu 0"]);
        for r in ["c1", "c2"] {
            assert_eq!(j[r].1.by, None);
            let why = j[r].1.refused.as_deref().unwrap();
            assert!(why.starts_with("ambiguous: host 10.3.0.1"), "{why}");
            assert!(why.contains("2 GPU(s)"), "{why}");
        }
        assert_eq!(
            j["e"].1.refused.as_deref(),
            Some("no DCGM series shares its pod or its host")
        );
        assert_eq!((sum.gpus, sum.joined), (8, 5));
        assert_eq!(
            sum.unjoined,
            ["host-c gpu 0", "host-c gpu 1", "host-d gpu 0"]
        );
    }

    #[test]
    fn a_gpu_two_replicas_claim_is_refused_for_both() {
        let readings = vec![gpu("n", "10.1.0.1:9400", 0, &[("ml", "p0"), ("ml", "p1")])];
        let replicas: BTreeMap<String, Identity> = [
            ("x", id("10.9.0.1:8000", Some(("ml", "p0")))),
            ("y", id("10.9.0.2:8000", Some(("ml", "p1")))),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let (j, sum) = join(&replicas, &readings, "{}".into());
        for r in ["x", "y"] {
            assert!(j[r].0.is_empty());
            let why = j[r].1.refused.as_deref().unwrap();
            assert!(why.contains("attributed to x and y"), "{why}");
        }
        assert_eq!(sum.joined, 0);
    }

    #[test]
    fn a_store_answer_becomes_one_reading_per_gpu_per_time() {
        let lab = |name: &str, g: &str| -> BTreeMap<String, String> {
            [
                ("__name__", name),
                ("gpu", g),
                ("UUID", &format!("GPU-{g}")),
                ("Hostname", "n1"),
                ("modelName", "NVIDIA H100 80GB HBM3"),
                ("instance", "10.0.0.1:9400"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
        };
        let answer = vec![
            Series {
                labels: lab("DCGM_FI_DEV_SM_CLOCK", "0"),
                points: vec![(100.0, 1980.0), (115.0, 1410.0)],
            },
            Series {
                labels: lab("DCGM_FI_PROF_DRAM_ACTIVE", "0"),
                points: vec![(100.0, 0.5), (115.0, 0.6)],
            },
            Series {
                labels: lab("DCGM_FI_DEV_SM_CLOCK", "1"),
                points: vec![(115.0, 1900.0)],
            },
        ];
        let r = readings(&answer);
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].t_s, Some(100.0));
        assert_eq!(r[0].sm_clock_mhz, Some(1980.0));
        assert_eq!(r[0].dram_active, Some(0.5));
        assert_eq!(r[1].t_s, Some(115.0));
        assert_eq!((r[1].gpu, r[1].sm_clock_mhz), (Some(0), Some(1410.0)));
        assert_eq!((r[2].gpu, r[2].dram_active), (Some(1), None));
        assert_eq!(r[2].name.as_deref(), Some("NVIDIA H100 80GB HBM3"));
    }

    #[test]
    fn queries_read_every_dcgm_field_and_the_join_labels() {
        let sel = Selector::parse(r#"{job="dcgm"}"#).unwrap();
        let q = query(&sel);
        assert!(q.contains("DCGM_FI_PROF_DRAM_ACTIVE|"), "{q}");
        assert!(q.contains(r#"job="dcgm""#), "{q}");
        let i = identity_query(&Selector::parse("{}").unwrap(), "instance");
        assert!(
            i.starts_with("group by (instance, pod, namespace) ("),
            "{i}"
        );
        let i = identity_query(&Selector::parse("{}").unwrap(), "pod");
        assert!(
            i.starts_with("group by (pod, instance, namespace) ("),
            "{i}"
        );
    }
}
