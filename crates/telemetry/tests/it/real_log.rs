//! A real llama-server log (tests/data/SOURCES.md): a restart appended to the same file, and
//! the server's own /metrics scraped at the end of each instance. Per instance the mined sums
//! must equal those counters.

use std::collections::HashMap;

const LOG: &str = include_str!("../data/llama-server-11434-restart.log");
const METRICS: &str = include_str!("../data/llama-server-11434-restart.metrics");

/// One map of counters per `# instance N` section.
fn scrapes() -> Vec<HashMap<String, f64>> {
    let mut out: Vec<HashMap<String, f64>> = Vec::new();
    for l in METRICS.lines() {
        if l.starts_with("# instance") {
            out.push(HashMap::new());
        } else if let Some((k, v)) = l.split_once(' ') {
            out.last_mut().unwrap().insert(k.into(), v.parse().unwrap());
        }
    }
    out
}

/// Within the printing: the counter has 6 significant digits, the log sums n values each
/// rounded to 0.01 ms.
fn close_seconds(log_ms: f64, counter_s: f64, n: usize) -> bool {
    let six = 0.5 * 10f64.powi(counter_s.abs().log10().floor() as i32 - 5);
    (log_ms / 1000.0 - counter_s).abs() <= six + n as f64 * 0.005e-3 + 1e-12
}

fn check(report: &telemetry::Report, pids: [Option<u32>; 2]) {
    let m = scrapes();
    assert_eq!(report.instances.len(), 2);
    for (k, (inst, m)) in report.instances.iter().zip(&m).enumerate() {
        let e = &inst.envelope;
        let t = &e.totals;
        assert_eq!(inst.instance.pid, pids[k]);
        assert_eq!(t.requests, [5, 4][k], "instance {k}");
        assert_eq!(e.requests_seen, t.requests, "instance {k}");
        assert_eq!(t.prompt_tokens as f64, m["llamacpp:prompt_tokens_total"]);
        assert_eq!(t.gen_tokens as f64, m["llamacpp:tokens_predicted_total"]);
        assert_eq!(
            e.prefix_cache.cached_tokens as f64,
            m["llamacpp:prompt_tokens_cached_total"]
        );
        assert!(
            close_seconds(
                t.gen_ms,
                m["llamacpp:tokens_predicted_seconds_total"],
                t.requests
            ),
            "instance {k}: {} vs {}",
            t.gen_ms,
            m["llamacpp:tokens_predicted_seconds_total"]
        );
        // The repeated prompt was served from its slot's cache.
        assert!(e.prefix_cache.lcp_selections >= 1);
        assert!(e.graphs_reused.as_ref().unwrap().nonzero > 0);
    }
    // The restart's first line (`llama_server: initializing ...`, line 50) opens instance 2.
    let (a, b) = (&report.instances[0].instance, &report.instances[1].instance);
    assert_eq!((a.first_line, a.last_line, b.first_line), (1, 49, 50));
    assert_eq!(b.last_line, report.lines);
    // The 160-token generation printed three mid-run `n_gen` lines.
    let w = report.instances[0]
        .envelope
        .windowed_decode_tps
        .as_ref()
        .unwrap();
    assert_eq!(w.n, 3);
    // A new pid names the restart first; without pids, the startup lines do.
    let why = match pids[1] {
        Some(_) => telemetry::StartReason::NewPid,
        None => telemetry::StartReason::Startup,
    };
    assert_eq!(report.instances[1].instance.started_by, why);
}

#[test]
fn real_log_sums_equal_the_servers_counters() {
    let r = telemetry::mine(LOG.as_bytes()).unwrap();
    check(&r, [None, None]);
    assert!(r.warnings.is_empty());
}

#[test]
fn the_same_log_through_journald_keeps_its_instances() {
    // As `journalctl -u llama -o short-iso` shows it: the restart changes the pid.
    let restart = LOG.find("llama_server: initializing").unwrap();
    let second = LOG[restart + 1..]
        .find("llama_server: initializing")
        .unwrap()
        + restart
        + 1;
    let mut j = String::new();
    for (off, line) in LOG.split_inclusive('\n').scan(0, |o, l| {
        let at = *o;
        *o += l.len();
        Some((at, l))
    }) {
        let pid = if off + line.len() <= second {
            4100
        } else {
            4200
        };
        j.push_str(&format!(
            "2025-11-30T05:42:01+0000 gpu1 llama-server[{pid}]: {line}"
        ));
    }
    let r = telemetry::mine(j.as_bytes()).unwrap();
    check(&r, [Some(4100), Some(4200)]);
}
