//! A real vLLM 0.32.0 log (fixtures/vllm-0.32/SOURCES.md): the periodic `loggers.py` stats
//! lines, summarised per instance. The expected figures are read from the log's own stats
//! lines here, with plain string splitting, not by the parser under test.

use std::sync::atomic::AtomicBool;

const LOG: &str = include_str!("../../../../fixtures/vllm-0.32/serve.log");

/// The stats lines' fields, by label, as the log prints them.
fn fields(log: &str) -> Vec<Vec<(String, f64)>> {
    log.lines()
        .filter(|l| l.contains("Avg prompt throughput:"))
        .map(|l| {
            let msg = l
                .split("Engine 000: ")
                .nth(1)
                .expect("0.32 prints the engine");
            msg.split(", ")
                .map(|part| {
                    let (label, value) = part.split_once(": ").unwrap();
                    let number = value.split([' ', '%']).next().unwrap();
                    (label.to_string(), number.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

fn column(rows: &[Vec<(String, f64)>], label: &str) -> Vec<f64> {
    rows.iter()
        .map(|r| r.iter().find(|(l, _)| l == label).unwrap().1)
        .collect()
}

fn median_and_max(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    assert_eq!(
        v.len() % 2,
        1,
        "an odd count: the median is one of the values"
    );
    (v[v.len() / 2], v[v.len() - 1])
}

#[test]
fn real_vllm_stats_lines_summarised() {
    let rows = fields(LOG);
    assert_eq!(rows.len(), 11, "the capture holds 11 stats lines");
    let report = telemetry::mine(LOG.as_bytes()).unwrap();
    assert_eq!(report.instances.len(), 1);
    let inst = &report.instances[0];
    assert_eq!(inst.instance.pid, Some(26765));
    assert_eq!(inst.instance.started_by, telemetry::StartReason::Startup);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(inst.vllm_stats.len(), 1);
    let s = &inst.vllm_stats[0];
    assert_eq!(
        (s.engine, s.aggregated_engines, s.lines),
        (Some(0), None, 11)
    );

    let prompt = column(&rows, "Avg prompt throughput");
    let gen = column(&rows, "Avg generation throughput");
    assert_eq!(
        (s.prompt_tps.median, s.prompt_tps.max),
        median_and_max(prompt.clone())
    );
    assert_eq!(
        (s.gen_tps.median, s.gen_tps.max),
        median_and_max(gen.clone())
    );
    // The figures themselves, so that a parser and a splitter wrong the same way still fail.
    assert_eq!((s.prompt_tps.max, s.gen_tps.max), (19.8, 20.6));
    let idle = prompt
        .iter()
        .zip(&gen)
        .filter(|(p, g)| **p == 0.0 && **g == 0.0)
        .count();
    assert_eq!(
        (s.idle_intervals, idle),
        (1, 1),
        "the last line, after the load stopped"
    );
    assert_eq!(s.idle_share, 1.0 / 11.0);
    let running = s.running.as_ref().unwrap();
    assert_eq!(
        (running.median, running.max),
        median_and_max(column(&rows, "Running"))
    );
    assert_eq!(s.waiting.as_ref().unwrap().max, 0.0);
    assert_eq!(s.swapped, None);
    assert_eq!(s.kv_device.as_deref(), Some("CPU"));
    assert_eq!(
        s.kv_usage_pct.as_ref().unwrap().max,
        median_and_max(column(&rows, "CPU KV cache usage")).1
    );
    assert_eq!(s.prefix_cache_hit_pct_last, Some(0.0));
    // Lines every 10 s from 16:10:30 to 16:12:10, none missing.
    assert_eq!(
        (s.interval_s, s.span_s, s.silent_s),
        (Some(10.0), Some(100), Some(0.0))
    );
    assert_eq!(s.preemptions, None);
}

#[test]
fn a_restart_starts_a_new_instance() {
    // The same server started again, appended: a new API server pid.
    let twice = format!("{LOG}{}", LOG.replace("pid=26765", "pid=31337"));
    let r = telemetry::mine(twice.as_bytes()).unwrap();
    assert_eq!(r.instances.len(), 2);
    let pids: Vec<_> = r.instances.iter().map(|i| i.instance.pid).collect();
    assert_eq!(pids, [Some(26765), Some(31337)]);
    assert_eq!(
        r.instances[1].instance.started_by,
        telemetry::StartReason::NewPid
    );
    for i in &r.instances {
        assert_eq!(i.vllm_stats[0].lines, 11);
    }
    // Without process tags (releases before them): the `non-default args` line splits.
    let bare: String = twice
        .lines()
        .map(|l| match l.strip_prefix('(') {
            Some(rest) if rest.contains(" pid=") => rest.split_once(") ").map_or(l, |x| x.1),
            _ => l,
        })
        .flat_map(|l| [l, "\n"])
        .collect();
    let r = telemetry::mine(bare.as_bytes()).unwrap();
    assert_eq!(r.instances.len(), 2);
    assert_eq!(
        r.instances[1].instance.started_by,
        telemetry::StartReason::Startup
    );
    assert!(r.instances.iter().all(|i| i.instance.pid.is_none()));
    assert!(r.instances.iter().all(|i| i.vllm_stats[0].lines == 11));
}

#[test]
fn parallel_and_folding_miners_agree() {
    let whole = telemetry::mine(LOG.as_bytes()).unwrap();
    let stop = AtomicBool::new(false);
    let (par, _) = telemetry::mine_parallel(LOG.as_bytes(), 3, &stop).unwrap();
    assert_eq!(whole, par);
    let (fold, _) =
        telemetry::mine_parallel_into(telemetry::Miner::folding(), LOG.as_bytes(), 2, &stop)
            .unwrap();
    assert_eq!(whole.instances[0].vllm_stats, fold.instances[0].vllm_stats);
}

#[test]
fn through_journald() {
    // `journalctl -o short-iso` puts its own prefix before vLLM's; its pid names the process.
    let wrapped: String = LOG
        .lines()
        .map(|l| format!("2026-12-01T16:10:30+0000 gpu1 vllm[4242]: {l}\n"))
        .collect();
    let r = telemetry::mine(wrapped.as_bytes()).unwrap();
    assert_eq!(r.instances.len(), 1);
    assert_eq!(r.instances[0].instance.pid, Some(4242));
    assert_eq!(
        r.instances[0].vllm_stats,
        telemetry::mine(LOG.as_bytes()).unwrap().instances[0].vllm_stats
    );
}
