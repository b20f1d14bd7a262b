//! Every rule at its threshold and just below it, and every arbitration case, from
//! tables of windows. The base window is a healthy, busy server on which nothing fires.

use diagnose::window::{Dist, GaugeStats, WindowStats};
use diagnose::{diagnose, Config, Inputs, Physics, PoolCap, RuleId};
use engines::Engine;

fn g(mean: f64, peak: f64) -> Option<GaugeStats> {
    Some(GaugeStats { mean, peak })
}

fn dist(count: f64, mean: f64) -> Option<Dist> {
    Some(Dist {
        count,
        mean,
        p50: Some(mean),
        p95: Some(mean * 2.0),
        p50_bound: None,
        p95_bound: None,
    })
}

/// Healthy and busy: 56 of 64 seats, KV 60 %, no queue, 79 % config-relative efficiency.
fn base() -> Inputs {
    let window = WindowStats {
        duration_s: 60.0,
        scrapes: 61,
        running: g(56.0, 60.0),
        waiting: g(0.0, 0.0),
        swapped: None,
        kv_usage: g(0.60, 0.70),
        waiting_for_capacity: None,
        generation_tps: Some(2520.0),
        prompt_tps: Some(2000.0),
        preemptions_per_s: Some(0.0),
        preemptions_per_request: None,
        admission_rejections: None,
        finished_per_s: Some(10.0),
        finished: Some(600.0),
        prefix_hit_rate: Some(0.5),
        prefix_hit_tps: Some(1000.0),
        ttft: dist(600.0, 0.2),
        itl: dist(10000.0, 0.022),
        e2e: None,
        queue_time: None,
        prompt_len: dist(600.0, 200.0),
        gen_len: dist(600.0, 252.0),
        queue_ratio: Some(0.0),
        seat_wall_cooccurred: Some(false),
        gauge_changes: Some(60),
    };
    Inputs {
        engine: Engine::Vllm,
        window,
        sub_windows: Vec::new(),
        config: Config {
            max_num_seqs: Some(64.0),
            max_model_len: Some(8192.0),
            max_num_batched_tokens: Some(2048.0),
            gpu_memory_utilization: Some(0.9),
            prefix_caching: Some(true),
            kv_cache_dtype: Some("auto".into()),
            tensor_parallel_size: Some(1.0),
            kv_capacity_tokens: Some(200_000.0),
            cpu_offload_gb: None,
            kv_pool_cap: None,
            gauge_refresh_steps: None,
        },
        physics: Some(Physics {
            decode_ceiling_tps: 50.0,
            ridge_batch: 80.0,
            kv_headroom_gb: Some(20.0),
            worst_request_gb: Some(1.0),
            min_tp: Some(1),
            dtype_fallback: false,
        }),
    }
}

fn fired(inp: &Inputs) -> Vec<RuleId> {
    diagnose::rules::evaluate(inp, &inp.window)
        .1
        .into_iter()
        .filter(|f| f.fired)
        .map(|f| f.rule)
        .collect()
}

#[test]
fn healthy_base_fires_nothing() {
    let b = base();
    assert_eq!(fired(&b), vec![]);
    let v = diagnose(&b);
    assert!(v.primary.is_none());
    assert_eq!(
        v.boundary.as_ref().map(|b| b.kind.as_str()),
        Some("framework overhead")
    );
}

#[test]
fn busy_is_not_harm_95_percent_kv_without_evictions_or_queue() {
    let mut b = base();
    b.window.kv_usage = g(0.95, 0.97);
    assert!(!fired(&b).contains(&RuleId::R2));
    assert!(diagnose(&b).primary.is_none());
}

/// Under-fed: 20 of 64 seats. Known GPU gate: config efficiency < 60 % and occupancy < 75 %.
fn underfed(running: f64, gen_tps: f64) -> Inputs {
    let mut b = base();
    b.window.running = g(running, running + 2.0);
    b.window.generation_tps = Some(gen_tps);
    b.window.prompt_tps = Some(gen_tps * 0.5);
    // KV in step with the requests running: the pool holds 442 of them (389 at 88 %).
    b.window.kv_usage = g(running / 442.0, (running + 2.0) / 442.0);
    b
}

#[test]
fn r1_threshold_known_gpu() {
    // occupancy 40/64 = 62.5 %; config efficiency = gen / (50 × 64).
    assert!(fired(&underfed(40.0, 0.59 * 3200.0)).contains(&RuleId::R1));
    assert!(!fired(&underfed(40.0, 0.61 * 3200.0)).contains(&RuleId::R1));
    // occupancy 48/64 = 75 % exactly does not fire; just under does.
    assert!(!fired(&underfed(48.0, 0.5 * 3200.0)).contains(&RuleId::R1));
    assert!(fired(&underfed(47.9, 0.5 * 3200.0)).contains(&RuleId::R1));
    // a queue of 2 keeps R1 quiet.
    let mut q = underfed(40.0, 0.5 * 3200.0);
    q.window.waiting = g(2.0, 3.0);
    assert!(!fired(&q).contains(&RuleId::R1));
}

#[test]
fn r1_threshold_unknown_gpu_uses_occupancy_25() {
    let mut b = underfed(15.9, 500.0);
    b.physics = None;
    assert!(fired(&b).contains(&RuleId::R1));
    b.window.running = g(16.0, 16.0);
    assert!(
        !fired(&b).contains(&RuleId::R1),
        "16/64 = 25 % is not under 25 %"
    );
}

#[test]
fn r1_names_the_binding_wall() {
    let b = underfed(20.0, 900.0);
    let v = diagnose(&b);
    let p = v.primary.unwrap();
    assert_eq!(p.rule, RuleId::R1);
    assert!(p.fix[0].text.contains("--max-num-seqs 64"), "{:?}", p.fix);
}

/// Under-fed with the per-request histograms read: 20 of 64 seats, requests admitted at once
/// (queue 5 ms of a 200 ms TTFT) and mostly decoding (prefill 0.195 s of 5.2 s in the engine).
fn underfed_timed() -> Inputs {
    let mut b = underfed(20.0, 900.0);
    b.window.queue_time = dist(600.0, 0.005);
    b.window.ttft = dist(600.0, 0.2);
    b.window.e2e = dist(600.0, 5.2);
    b
}

fn r1_finding(b: &Inputs) -> diagnose::Finding {
    diagnose::rules::evaluate(b, &b.window)
        .1
        .into_iter()
        .find(|f| f.rule == RuleId::R1)
        .expect("R1 judged")
}

#[test]
fn r1_fires_when_under_fed_and_says_the_engine_holds_nothing() {
    let b = underfed_timed();
    let f = r1_finding(&b);
    assert!(f.fired, "{:?}", f.evidence);
    assert_eq!(f.variant, None);
    // Both guard lines are true statements on the quiet side of their thresholds.
    assert!(
        f.evidence.iter().any(|e| e.starts_with(
            "queue time 0.005 s of mean TTFT 0.200 s: the share held before the engine, 2.5 %, is not at least 50 %"
        )),
        "{:?}",
        f.evidence
    );
    // 10/s × 0.195 s = 1.95 in prefill at once, but prefill is 3.8 % of the time in the engine.
    assert!(
        f.evidence
            .iter()
            .any(|e| e.contains("(3.8 %, is not at least 50 %)")
                && e.contains("1.95 requests in prefill at once")
                && e.ends_with("prefill does not fill the engine's steps")),
        "{:?}",
        f.evidence
    );
    assert_eq!(diagnose(&b).primary.map(|p| p.rule), Some(RuleId::R1));
}

#[test]
fn r1_quiet_when_requests_wait_before_the_engine() {
    // Same seats, but requests spend 0.12 s of a 0.2 s TTFT queued (60 %): the scheduler holds
    // them with seats free, so more clients would queue longer.
    let mut b = underfed_timed();
    b.window.queue_time = dist(600.0, 0.12);
    let f = r1_finding(&b);
    assert!(!f.fired, "{:?}", f.evidence);
    assert_eq!(f.variant.as_deref(), Some(diagnose::rules::ENGINE_HELD));
    assert!(f.evidence.iter().any(|e| e.starts_with(
        "queue time 0.120 s of mean TTFT 0.200 s: the share held before the engine, 60 %, is at least 50 %"
    )));
    assert!(f
        .evidence
        .iter()
        .any(|e| e.starts_with("not fired: the engine")));
    // Just under the share, it fires.
    b.window.queue_time = dist(600.0, 0.099);
    assert!(r1_finding(&b).fired);
    let v = diagnose(&{
        let mut q = underfed_timed();
        q.window.queue_time = dist(600.0, 0.12);
        q
    });
    assert!(v.primary.is_none_or(|p| p.rule != RuleId::R1));
}

/// The case seen on a real vLLM (issue 16): a CPU build (no GPU ceiling), prefix caching off,
/// 8 clients with 881-token prompts sharing a prefix for 16-token answers. 8 of 128 seats run,
/// nothing waits at the scrapes, and each request spends ~40 s being prefilled and ~2 s decoding.
fn saturated_by_prefill() -> Inputs {
    let mut b = base();
    b.physics = None;
    b.config.max_num_seqs = Some(128.0);
    b.config.prefix_caching = Some(false);
    b.config.kv_capacity_tokens = Some(46_592.0);
    b.config.max_model_len = Some(2048.0);
    b.window.running = g(8.0, 8.0);
    b.window.waiting = g(0.0, 0.0);
    b.window.kv_usage = g(0.15, 0.16);
    b.window.finished_per_s = Some(0.19);
    b.window.finished = Some(11.4);
    b.window.prompt_tps = Some(0.19 * 881.0);
    b.window.generation_tps = Some(0.19 * 16.0);
    b.window.prefix_hit_rate = None;
    b.window.prefix_hit_tps = None;
    b.window.prompt_len = dist(11.0, 881.0);
    b.window.gen_len = dist(11.0, 16.0);
    b.window.queue_time = dist(11.0, 0.4);
    b.window.ttft = dist(11.0, 40.4);
    b.window.e2e = dist(11.0, 42.4);
    b.window.itl = dist(165.0, 0.13);
    b
}

#[test]
fn r1_quiet_when_prefill_saturates_and_r3_prescribes_the_cache() {
    let b = saturated_by_prefill();
    let f = r1_finding(&b);
    // R1's own gates hold (8 running with the pool 15 % full: it holds 8 ÷ 15 % × 88 % = 47
    // such requests, so 17 % < 25 %; waiting 0): only the guard refuses it.
    assert!(
        f.evidence
            .iter()
            .any(|e| e.starts_with("occupancy 17 % of the memory (KV pool) wall is below 25 %")),
        "{:?}",
        f.evidence
    );
    assert!(!f.fired, "{:?}", f.evidence);
    // 40 s of 42 s in the engine is prefill (95 %), 0.19/s × 40 s = 7.60 requests in prefill.
    assert!(
        f.evidence
            .iter()
            .any(|e| e.contains("(95.2 %, is at least 50 %)")
                && e.contains("7.60 requests in prefill at once")
                && e.ends_with("the engine's steps are full of prefill")),
        "{:?}",
        f.evidence
    );
    let v = diagnose(&b);
    let p = v.primary.expect("a primary");
    assert_eq!(p.rule, RuleId::R3, "{p:?}");
    assert_eq!(p.fix[0].flag.as_deref(), Some("--enable-prefix-caching"));
    assert!(v.held.iter().all(|f| f.rule != RuleId::R1));
    // Nor is R1 named as an unjudged suspect with the seat limit unread.
    let mut unread = b.clone();
    unread.config.max_num_seqs = None;
    assert!(diagnose(&unread)
        .unjudged
        .iter()
        .all(|u| u.rule != RuleId::R1));
}

#[test]
fn r1_fires_on_one_client_with_long_prompts_on_an_idle_engine() {
    // Light-load prefill is not the setup wall: prefill is most of each request's time, but
    // with 1.6/s × 0.5 s = 0.80 requests in prefill on average the engine is often idle.
    let mut b = saturated_by_prefill();
    b.config.prefix_caching = Some(true);
    b.window.running = g(1.0, 1.0);
    b.window.finished_per_s = Some(1.6);
    b.window.queue_time = dist(96.0, 0.002);
    b.window.ttft = dist(96.0, 0.502);
    b.window.e2e = dist(96.0, 0.602);
    let f = r1_finding(&b);
    assert!(f.fired, "{:?}", f.evidence);
    assert!(
        f.evidence
            .iter()
            .any(|e| e.contains("0.80 requests in prefill at once")
                && e.contains("is not at least 1"))
    );
}

#[test]
fn soft_underfed_inject_not_when_the_engine_holds_requests() {
    // The soft inject's case (R1's gates miss, R6 fires), but requests queue 60 % of TTFT: the
    // inject does not revive R1's concurrency advice.
    let mut b = soft_underfed();
    b.window.queue_time = dist(600.0, 0.12);
    let v = diagnose(&b);
    let p = v.primary.unwrap();
    assert_eq!(p.rule, RuleId::R6, "{p:?}");
    assert!(v.held.iter().all(|f| f.rule != RuleId::R1));
}

/// A pool fixed by an explicit size (vLLM's block override or byte budget) is grown by that
/// setting, never by the memory share, which does nothing while it is set.
#[test]
fn r2_fix_acts_on_what_sizes_the_pool() {
    let flags = |b: &Inputs| -> Vec<String> {
        let p = diagnose(b).primary.expect("R2 fires");
        assert_eq!(p.rule, RuleId::R2);
        p.fix.iter().filter_map(|f| f.flag.clone()).collect()
    };
    let mut blocks = kv_pressed(0.95, 0.5);
    blocks.config.gpu_memory_utilization = Some(0.9);
    blocks.config.kv_pool_cap = Some(PoolCap::Blocks(8));
    let f = flags(&blocks);
    assert_eq!(
        f.first().map(String::as_str),
        Some("--num-gpu-blocks-override"),
        "{f:?}"
    );
    assert!(!f.iter().any(|x| x == "--gpu-memory-utilization"), "{f:?}");

    let mut bytes = blocks.clone();
    bytes.config.kv_pool_cap = Some(PoolCap::Bytes(1 << 30));
    let f = flags(&bytes);
    assert_eq!(
        f.first().map(String::as_str),
        Some("--kv-cache-memory-bytes"),
        "{f:?}"
    );
    assert!(!f.iter().any(|x| x == "--gpu-memory-utilization"), "{f:?}");

    // Sized by the memory share: the memory share is the lever.
    let mut share = blocks.clone();
    share.config.kv_pool_cap = None;
    let f = flags(&share);
    assert!(f.iter().any(|x| x == "--gpu-memory-utilization"), "{f:?}");

    // SGLang's pool fixed in tokens by --max-total-tokens: that flag, in SGLang's words, and
    // neither its memory share nor any of vLLM's flags.
    let mut sglang = blocks.clone();
    sglang.engine = engines::Engine::Sglang;
    sglang.config.kv_pool_cap = Some(PoolCap::Tokens(1024));
    let p = diagnose(&sglang).primary.expect("R2 fires");
    let f: Vec<String> = p.fix.iter().filter_map(|f| f.flag.clone()).collect();
    assert_eq!(
        f.first().map(String::as_str),
        Some("--max-total-tokens"),
        "{f:?}"
    );
    assert!(p.fix[0].text.contains("1024 tokens"), "{:?}", p.fix[0]);
    assert!(
        p.fix[0].text.contains("--mem-fraction-static"),
        "{:?}",
        p.fix[0]
    );
    assert!(
        !f.iter()
            .any(|x| x.starts_with("--gpu-memory") || x.starts_with("--num-gpu")),
        "{f:?}"
    );
}

/// SGLang refreshes its scheduler gauges every `--decode-log-interval` decode steps: a window in
/// which they changed fewer than 4 times while its counters moved leaves every rule that reads
/// them unjudged (named with what settles it), and no cap is named; with the gauges refreshed,
/// or on an engine that refreshes per scrape, the same window is judged.
#[test]
fn stale_sglang_gauges_leave_the_gauge_rules_unjudged() {
    let mut b = kv_pressed(0.95, 0.5);
    b.engine = Engine::Sglang;
    b.config.gauge_refresh_steps = Some(40.0);
    b.window.gauge_changes = Some(60);
    assert_eq!(diagnose(&b).primary.map(|p| p.rule), Some(RuleId::R2));

    b.window.gauge_changes = Some(3);
    let v = diagnose(&b);
    assert!(v.primary.is_none(), "{:?}", v.primary);
    let stale: Vec<&diagnose::Finding> = v
        .quiet
        .iter()
        .filter(|f| {
            f.silent_reason
                .as_deref()
                .is_some_and(|r| r.starts_with("stale gauges"))
        })
        .collect();
    assert_eq!(
        stale.len(),
        diagnose::stale::GAUGE_RULES.len(),
        "{:?}",
        v.quiet
    );
    let why = stale[0].silent_reason.as_deref().unwrap();
    assert!(why.contains("changed 3 times in 61 scrapes"), "{why}");
    assert!(why.contains("--decode-log-interval 40"), "{why}");
    let r2 = v
        .unjudged
        .iter()
        .find(|u| u.rule == RuleId::R2)
        .expect("R2 named");
    assert!(r2.needs.contains("--decode-log-interval"), "{r2:?}");
    assert!(r2.hint.contains("KV mean 95 %"), "{r2:?}");
    let b2 = v.boundary.expect("a declined boundary");
    assert_eq!(b2.kind, diagnose::BoundaryKind::Declined, "{b2:?}");

    // Too few scrapes to tell: three intervals that all changed are as fresh as they can show.
    let mut short = b.clone();
    short.window.scrapes = 4;
    short.window.gauge_changes = Some(3);
    assert_eq!(diagnose(&short).primary.map(|p| p.rule), Some(RuleId::R2));

    // vLLM sets its gauges every step: the same counts say nothing there.
    let mut vllm = b.clone();
    vllm.engine = Engine::Vllm;
    assert_eq!(diagnose(&vllm).primary.map(|p| p.rule), Some(RuleId::R2));
}

fn kv_pressed(kv_mean: f64, preempt: f64) -> Inputs {
    let mut b = base();
    b.window.kv_usage = g(kv_mean, kv_mean);
    b.window.preemptions_per_s = Some(preempt);
    b
}

#[test]
fn r2_threshold() {
    assert!(fired(&kv_pressed(0.88, 0.03)).contains(&RuleId::R2));
    assert!(!fired(&kv_pressed(0.879, 0.03)).contains(&RuleId::R2));
    assert!(
        !fired(&kv_pressed(0.95, 0.02)).contains(&RuleId::R2),
        "0.02/s is not > 0.02"
    );
    // peak alone at 88 % counts.
    let mut p = kv_pressed(0.5, 0.05);
    p.window.kv_usage = g(0.5, 0.88);
    assert!(fired(&p).contains(&RuleId::R2));
    // swapped ≥ 2 or waiting > 2 are evidence too.
    let mut s = kv_pressed(0.9, 0.0);
    s.window.swapped = g(2.0, 3.0);
    assert!(fired(&s).contains(&RuleId::R2));
    let mut w = kv_pressed(0.9, 0.0);
    w.window.waiting = g(2.0, 3.0);
    assert!(!fired(&w).contains(&RuleId::R2), "waiting 2 is not > 2");
    w.window.waiting = g(2.1, 3.0);
    assert!(fired(&w).contains(&RuleId::R2));
}

#[test]
fn r2_fix_split_by_cost_and_skips_applied_levers() {
    let mut b = kv_pressed(0.95, 0.5);
    b.config.kv_cache_dtype = Some("fp8".into());
    let p = diagnose(&b).primary.unwrap();
    assert_eq!(p.rule, RuleId::R2);
    let costs: Vec<_> = p.fix.iter().filter_map(|f| f.cost).collect();
    assert!(
        costs.contains(&diagnose::FixCost::Safe)
            && costs.contains(&diagnose::FixCost::CutsThroughput)
            && costs.contains(&diagnose::FixCost::DeadEnd)
    );
    assert!(!p
        .fix
        .iter()
        .any(|f| f.flag.as_deref() == Some("--kv-cache-dtype fp8")));
    assert!(p
        .fix
        .iter()
        .any(|f| f.flag.as_deref() == Some("--gpu-memory-utilization")
            && f.value.as_deref() == Some("0.95")));
}

/// KV near full, a queue, seats free, and the free KV cannot take the waiting prompts.
fn backlog(queue_ratio: f64) -> Inputs {
    let mut b = base();
    b.window.kv_usage = g(0.90, 0.92);
    b.window.running = g(40.0, 44.0);
    b.window.waiting = g(2.0, 4.0); // not > 2, so R2 stays out of it
    b.window.queue_ratio = Some(queue_ratio);
    b.window.prompt_len = dist(600.0, 20_000.0); // 2 × 20k > 10 % of 200k free
    b
}

#[test]
fn r2b_threshold() {
    assert!(fired(&backlog(0.30)).contains(&RuleId::R2b));
    assert!(!fired(&backlog(0.29)).contains(&RuleId::R2b));
    let mut roomy = backlog(0.4);
    roomy.window.prompt_len = dist(600.0, 9_000.0); // 18k < 20k free
    assert!(!fired(&roomy).contains(&RuleId::R2b));
    let mut full_seats = backlog(0.4);
    full_seats.window.running = g(64.0, 64.0);
    assert!(!fired(&full_seats).contains(&RuleId::R2b));
}

#[test]
fn r2_wins_over_r2b_when_both_fire() {
    let mut b = backlog(0.5);
    b.window.preemptions_per_s = Some(0.5);
    assert!(fired(&b).contains(&RuleId::R2) && fired(&b).contains(&RuleId::R2b));
    let v = diagnose(&b);
    assert_eq!(v.primary.unwrap().rule, RuleId::R2);
    assert!(v
        .silenced
        .iter()
        .any(|s| s.rule == RuleId::R2b && s.by == RuleId::R2));
    assert!(!v.held.iter().any(|f| f.rule == RuleId::R2b));
}

fn prefix(caching: Option<bool>, hit: Option<f64>, qps: f64) -> Inputs {
    let mut b = base();
    b.config.prefix_caching = caching;
    b.window.prefix_hit_rate = hit;
    b.window.finished_per_s = Some(qps);
    b
}

#[test]
fn r3_threshold() {
    // qps × mean prompt 200 ≥ 1000 tok/s.
    assert!(fired(&prefix(Some(false), None, 5.0)).contains(&RuleId::R3));
    assert!(!fired(&prefix(Some(false), None, 4.99)).contains(&RuleId::R3));
    // Caching on with a low hit rate is no evidence: unique prompts have nothing to share.
    // Nothing else fires there, so the verdict names R3 as unjudged, with the probe.
    let low = prefix(Some(true), Some(0.0), 10.0);
    assert!(!fired(&low).contains(&RuleId::R3));
    let v = diagnose(&low);
    assert_eq!(v.unjudged.len(), 1, "{:?}", v.unjudged);
    assert_eq!(v.unjudged[0].rule, RuleId::R3);
    assert_eq!(v.unjudged[0].needs, "headroom probe prefix");
    assert!(
        v.unjudged[0].hint.contains("hit rate 0 %"),
        "{}",
        v.unjudged[0].hint
    );
    assert!(diagnose(&prefix(Some(true), Some(0.35), 10.0))
        .unjudged
        .is_empty());
    let mut short = prefix(Some(false), None, 100.0);
    short.window.prompt_len = dist(600.0, 19.0);
    assert!(
        !fired(&short).contains(&RuleId::R3),
        "mean prompt under 20 tokens"
    );
    let mut idle = prefix(Some(false), None, 10.0);
    idle.window.running = g(0.75, 1.0);
    assert!(
        !fired(&idle).contains(&RuleId::R3),
        "running must exceed 0.75"
    );
}

/// A slow engine (a CPU build) busy with shared prompts, caching off: 8 of 128 seats, no
/// queue, the ceiling unknown, prompt volume 880 tok/s (under the GPU-scale 1000) at `gen`
/// generated tok/s.
fn slow_prompt_heavy(gen: f64) -> Inputs {
    let mut b = prefix(Some(false), None, 1.0);
    b.physics = None;
    b.config.max_num_seqs = Some(128.0);
    b.window.running = g(8.0, 8.0);
    b.window.kv_usage = g(8.0 / 442.0, 8.0 / 442.0);
    b.window.prompt_len = dist(60.0, 880.0);
    b.window.prompt_tps = Some(880.0);
    b.window.generation_tps = Some(gen);
    b
}

#[test]
fn r3_prompt_share_gate_and_caching_off_outranks_under_batching() {
    // 880 / 176 = 5× the generated tokens: busy with prompts at any speed.
    assert!(fired(&slow_prompt_heavy(176.0)).contains(&RuleId::R3));
    assert!(!fired(&slow_prompt_heavy(177.0)).contains(&RuleId::R3));
    // Under-batching fires too (occupancy 8/128 under 25 %), and is held: the cache confirmed
    // off is the setup fault, named first with its one safe flag.
    let b = slow_prompt_heavy(100.0);
    assert!(fired(&b).contains(&RuleId::R1));
    let v = diagnose(&b);
    let p = v.primary.as_ref().unwrap();
    assert_eq!(p.rule, RuleId::R3);
    assert_eq!(p.fix[0].flag.as_deref(), Some("--enable-prefix-caching"));
    assert!(
        p.evidence[0].contains(
            "prompt volume 880 tok/s (below 1000), 8.8× the generated tokens (at least 5×)"
        ),
        "{:?}",
        p.evidence
    );
    assert!(v.held.iter().any(|f| f.rule == RuleId::R1));
    // With caching on, the order is the spec's: under-batching first.
    let mut on = slow_prompt_heavy(100.0);
    on.config.prefix_caching = Some(true);
    on.window.prefix_hit_rate = Some(0.9);
    assert_eq!(diagnose(&on).primary.map(|p| p.rule), Some(RuleId::R1));
}

#[test]
fn r3_never_enables_an_unread_flag() {
    let b = prefix(None, Some(0.1), 10.0);
    let (_, fs) = diagnose::rules::evaluate(&b, &b.window);
    let r3 = fs.iter().find(|f| f.rule == RuleId::R3).unwrap();
    assert!(!r3.fired);
    assert!(r3.fix.iter().all(|f| f.flag.is_none()), "{:?}", r3.fix);
    let silent = prefix(None, None, 10.0);
    assert!(!fired(&silent).contains(&RuleId::R3));
    let on = prefix(Some(false), None, 10.0);
    let (_, fs) = diagnose::rules::evaluate(&on, &on.window);
    let r3 = fs.iter().find(|f| f.rule == RuleId::R3).unwrap();
    assert_eq!(r3.fix[0].flag.as_deref(), Some("--enable-prefix-caching"));
}

#[test]
fn r4_overflow_squeeze_and_fallback_silence() {
    let mut b = base();
    b.physics.as_mut().unwrap().kv_headroom_gb = Some(-0.1);
    b.physics.as_mut().unwrap().min_tp = Some(2);
    let v = diagnose(&b);
    let p = v.primary.unwrap();
    assert_eq!(
        (p.rule, p.variant.as_deref()),
        (RuleId::R4, Some("weights-overflow"))
    );
    assert!(p
        .fix
        .iter()
        .any(|f| f.flag.as_deref() == Some("--tensor-parallel-size")
            && f.value.as_deref() == Some("2")));
    let mut s = base();
    s.physics.as_mut().unwrap().kv_headroom_gb = Some(0.99);
    assert_eq!(
        diagnose(&s).primary.unwrap().variant.as_deref(),
        Some("buffer-squeeze")
    );
    s.physics.as_mut().unwrap().kv_headroom_gb = Some(1.0);
    assert!(!fired(&s).contains(&RuleId::R4));
    let mut fb = base();
    fb.physics.as_mut().unwrap().kv_headroom_gb = Some(-5.0);
    fb.physics.as_mut().unwrap().dtype_fallback = true;
    assert!(
        !fired(&fb).contains(&RuleId::R4),
        "silent on dtype fallback"
    );
}

#[test]
fn r4_overflow_silences_r2_but_a_squeeze_does_not() {
    let mut b = kv_pressed(0.95, 0.5);
    b.physics.as_mut().unwrap().kv_headroom_gb = Some(-1.0);
    let v = diagnose(&b);
    assert_eq!(v.primary.as_ref().unwrap().rule, RuleId::R4);
    assert!(v
        .silenced
        .iter()
        .any(|s| s.rule == RuleId::R2 && s.by == RuleId::R4));
    let mut s = kv_pressed(0.95, 0.5);
    s.physics.as_mut().unwrap().kv_headroom_gb = Some(0.5);
    let v = diagnose(&s);
    assert_eq!(v.primary.as_ref().unwrap().rule, RuleId::R4);
    assert!(
        v.held.iter().any(|f| f.rule == RuleId::R2),
        "a buffer squeeze does not silence R2"
    );
}

fn saturated(wall: bool, waiting: f64, qr: f64, kv: f64) -> Inputs {
    let mut b = base();
    b.window.running = g(63.0, 64.0);
    b.window.waiting = g(waiting, waiting + 3.0);
    b.window.queue_ratio = Some(qr);
    b.window.seat_wall_cooccurred = Some(wall);
    b.window.kv_usage = g(kv, kv);
    b.physics.as_mut().unwrap().ridge_batch = 200.0;
    b
}

#[test]
fn r5_threshold_and_fix() {
    assert!(fired(&saturated(true, 2.0, 0.30, 0.5)).contains(&RuleId::R5));
    assert!(
        !fired(&saturated(false, 5.0, 0.5, 0.5)).contains(&RuleId::R5),
        "no seat-wall co-occurrence, no fire"
    );
    assert!(!fired(&saturated(true, 1.9, 0.5, 0.5)).contains(&RuleId::R5));
    assert!(!fired(&saturated(true, 5.0, 0.29, 0.5)).contains(&RuleId::R5));
    // KV < 80 %: raise to 0.8 × min(ridge 200, KV bound 63 ÷ 50 % × 88 % = 110.9) = 88: the
    // final value, not capped at the live demand 64+5+3 (R7 would ask for 88 after a second
    // restart).
    let p = diagnose(&saturated(true, 5.0, 0.5, 0.5)).primary.unwrap();
    assert_eq!(p.rule, RuleId::R5);
    assert_eq!(p.fix[0].flag.as_deref(), Some("--max-num-seqs"));
    assert_eq!(p.fix[0].value.as_deref(), Some("88"));
    // KV ≥ 80 %: name the wall, no number.
    let p = diagnose(&saturated(true, 5.0, 0.5, 0.85)).primary.unwrap();
    assert!(p.fix[0].flag.is_none() && p.fix[0].text.contains("KV pool"));
    // No ridge (no --gpu): no seat target is named, but the step names the flag, so a
    // re-measure can say whether it moved.
    let mut n = saturated(true, 5.0, 0.5, 0.5);
    n.physics = None;
    let p = diagnose(&n).primary.unwrap();
    assert_eq!(p.rule, RuleId::R5);
    assert_eq!(p.fix[0].flag.as_deref(), Some("--max-num-seqs"));
    assert_eq!(p.fix[0].value, None);
    assert!(p.fix[0].text.contains("no seat target"), "{:?}", p.fix[0]);
    // flag unread: silent.
    let mut u = saturated(true, 5.0, 0.5, 0.5);
    u.config.max_num_seqs = None;
    assert!(!fired(&u).contains(&RuleId::R5));
}

/// Long prompts, short outputs: ratio = (prompt − hits) / gen.
fn prefill(ratio: f64, eff: f64) -> Inputs {
    let mut b = base();
    let gen = eff * 50.0 * 80.0;
    b.window.generation_tps = Some(gen);
    b.window.prefix_hit_tps = Some(0.0);
    b.window.prompt_tps = Some(ratio * gen);
    b.window.itl = dist(1000.0, 0.2); // 10 × the 20 ms floor: not muted
    b
}

#[test]
fn r6_threshold_and_mute() {
    assert!(fired(&prefill(5.0, 0.39)).contains(&RuleId::R6));
    assert!(!fired(&prefill(4.99, 0.39)).contains(&RuleId::R6));
    assert!(!fired(&prefill(6.0, 0.40)).contains(&RuleId::R6));
    let mut m = prefill(6.0, 0.3);
    m.window.itl = dist(1000.0, 0.079); // under 4 × 20 ms
    assert!(!fired(&m).contains(&RuleId::R6));
    // prefix hits are removed from prompt tok/s.
    let mut h = prefill(6.0, 0.3);
    h.window.prefix_hit_tps = Some(h.window.prompt_tps.unwrap() * 0.5);
    assert!(!fired(&h).contains(&RuleId::R6));
}

#[test]
fn r6_fix_never_sets_down_and_severe_adds_disaggregation() {
    let mut b = prefill(25.0, 0.3);
    b.config.max_num_batched_tokens = Some(8192.0);
    let (_, fs) = diagnose::rules::evaluate(&b, &b.window);
    let r6 = fs.iter().find(|f| f.rule == RuleId::R6).unwrap();
    assert!(r6.fix.iter().all(|f| f.value.is_none()), "{:?}", r6.fix);
    assert_eq!(r6.variant.as_deref(), Some("severe"));
    assert!(r6.fix.iter().any(|f| f.text.contains("disaggregate")));
    b.config.max_num_batched_tokens = None;
    let (_, fs) = diagnose::rules::evaluate(&b, &b.window);
    let r6 = fs.iter().find(|f| f.rule == RuleId::R6).unwrap();
    assert!(
        r6.fix.iter().all(|f| f.flag.is_none() && f.value.is_none()),
        "no blind Set on unread"
    );
    b.config.prefix_caching = Some(false);
    let (_, fs) = diagnose::rules::evaluate(&b, &b.window);
    let r6 = fs.iter().find(|f| f.rule == RuleId::R6).unwrap();
    assert_eq!(
        r6.fix[0].flag.as_deref(),
        Some("--enable-prefix-caching"),
        "prefix caching first"
    );
}

fn headroom_cfg(max_seqs: f64, running: f64, waiting: f64) -> Inputs {
    let mut b = base();
    b.config.max_num_seqs = Some(max_seqs);
    b.window.running = g(running, running);
    b.window.waiting = g(waiting, waiting);
    b.window.generation_tps = Some(running * 50.0 * 0.95);
    // The pool holds 442 requests of this size (running ÷ KV usage), 389 at 88 %: the ridge binds.
    b.window.kv_usage = g(running / 442.0, running / 442.0);
    b
}

#[test]
fn r7_threshold() {
    // target = 0.8 × min(ridge 80, KV bound 442) = 64; 90 % of it = 57.6.
    assert!(fired(&headroom_cfg(57.0, 30.0, 1.0)).contains(&RuleId::R7));
    assert!(!fired(&headroom_cfg(58.0, 30.0, 1.0)).contains(&RuleId::R7));
    assert!(
        !fired(&headroom_cfg(57.0, 28.0, 1.0)).contains(&RuleId::R7),
        "occupancy 28/57 < 50 %"
    );
    assert!(!fired(&headroom_cfg(57.0, 30.0, 1.1)).contains(&RuleId::R7));
    let p = diagnose(&headroom_cfg(32.0, 30.0, 0.0)).primary.unwrap();
    assert_eq!(
        (p.rule, p.fix[0].value.as_deref()),
        (RuleId::R7, Some("64"))
    );
}

#[test]
fn prefill_silences_under_batching_when_pressed() {
    // Pressed by a queue: R6 fires and silences R1.
    let mut b = prefill(8.0, 0.2);
    // Running 40 of ridge 80, not well below it: not soft. (KV at 80 % or more would be the
    // wall itself, where under-batching cannot fire.)
    b.window.running = g(40.0, 42.0);
    b.window.waiting = g(1.5, 3.0);
    b.window.kv_usage = g(0.5, 0.55);
    let v = diagnose(&b);
    assert_eq!(v.primary.as_ref().unwrap().rule, RuleId::R6);
    assert!(v
        .silenced
        .iter()
        .any(|s| s.rule == RuleId::R1 && s.by == RuleId::R6));
}

#[test]
fn soft_field_under_batching_owns_first_fire() {
    // Soft: no queue, cool KV, running 10 ≪ ridge 80. R1 and R6 both fire; R1 wins, R6 held.
    let mut b = prefill(8.0, 0.1);
    b.window.running = g(10.0, 12.0);
    assert!(fired(&b).contains(&RuleId::R1) && fired(&b).contains(&RuleId::R6));
    let v = diagnose(&b);
    assert!(v.derived.soft_field);
    assert_eq!(v.primary.as_ref().unwrap().rule, RuleId::R1);
    assert!(v.held.iter().any(|f| f.rule == RuleId::R6));
    assert!(v.silenced.is_empty());
}

/// The soft under-fed field: no queue, R1's gates miss (efficiency 61 % of min(64, 80) seats),
/// prefill would own the page. Ridge 200 ≫ 64 seats: efficiency against the ridge is
/// 0.61 × 64/200 = 20 %.
fn soft_underfed() -> Inputs {
    let mut b = base();
    b.window.running = g(40.0, 41.0);
    b.window.generation_tps = Some(0.61 * 50.0 * 64.0);
    b.window.prefix_hit_tps = Some(0.0);
    b.window.prompt_tps = Some(6.0 * 0.61 * 50.0 * 64.0);
    b.window.itl = dist(1000.0, 0.2);
    b.physics.as_mut().unwrap().ridge_batch = 200.0;
    b
}

#[test]
fn soft_underfed_inject_reuses_r1_fix() {
    let b = soft_underfed();
    let (d, fs) = diagnose::rules::evaluate(&b, &b.window);
    assert!(d.soft_field);
    assert!(!fs.iter().any(|f| f.rule == RuleId::R1 && f.fired));
    assert!(fs.iter().any(|f| f.rule == RuleId::R6 && f.fired));
    let v = diagnose(&b);
    let p = v.primary.unwrap();
    assert_eq!(
        (p.rule, p.variant.as_deref()),
        (RuleId::R1, Some("soft-underfed"))
    );
    assert!(p.fix[0].text.contains("concurrency"));
    assert!(v.held.iter().any(|f| f.rule == RuleId::R6));
}

#[test]
fn layers_put_broken_before_tuning() {
    // R7 (tuning) and R2 (broken) together: R2 is primary, R7 held.
    // KV peaks past 88 % with evictions (R2), its mean 30 %: the pool holds 100 requests of
    // the running ones' mean size, so R7's target stays the ridge's.
    let mut b = headroom_cfg(32.0, 30.0, 0.0);
    b.window.kv_usage = g(0.3, 0.95);
    b.window.preemptions_per_s = Some(0.1);
    let v = diagnose(&b);
    assert_eq!(v.primary.as_ref().unwrap().rule, RuleId::R2);
    assert!(v.held.iter().any(|f| f.rule == RuleId::R7));
}

#[test]
fn held_surface_when_same_primary_refires_or_primary_has_no_fix() {
    // KV peaks past 88 % with evictions (R2), its mean 30 %: the pool holds 100 requests of
    // the running ones' mean size, so R7's target stays the ridge's.
    let mut b = headroom_cfg(32.0, 30.0, 0.0);
    b.window.kv_usage = g(0.3, 0.95);
    b.window.preemptions_per_s = Some(0.1);
    let before = diagnose(&b);
    let after = diagnose(&b);
    let s = diagnose::arbitrate::surfaced(&before, &after);
    assert!(s.iter().any(|f| f.rule == RuleId::R7));
    // A different primary next time: nothing surfaces through this path.
    let other = diagnose(&headroom_cfg(32.0, 30.0, 0.0));
    assert!(diagnose::arbitrate::surfaced(&before, &other).is_empty());
    // R2 on llama.cpp with every lever applied or unread has no fix left: a held rule
    // surfaces at once.
    let mut n = b.clone();
    n.window.kv_usage = g(0.93, 0.95); // a hot pool: not the soft field
    n.engine = Engine::LlamaCpp;
    n.config.kv_cache_dtype = Some("q8_0".into());
    n.config.max_model_len = None;
    n.config.max_num_seqs = None;
    n.config.prefix_caching = Some(true);
    n.window.prefix_hit_rate = Some(0.1);
    // Prompts 8× the generated tokens at 36 % decode efficiency, TPOT unmeasured: R6 fires
    // too (R1 does not judge with the slot count unread).
    n.window.prompt_tps = Some(1425.0 * 8.0 + 1000.0);
    n.window.itl = None;
    let v = diagnose(&n);
    assert_eq!(v.primary.as_ref().unwrap().rule, RuleId::R2);
    assert!(v.primary.as_ref().unwrap().fix.is_empty());
    // R6 is held and surfaces now; R3 is not judged on a low hit rate with caching on
    // (nothing to share looks the same) and is named as unjudged instead.
    assert_eq!(v.next.as_ref().map(|f| f.rule), Some(RuleId::R6));
    assert!(v.held.iter().all(|f| f.rule != RuleId::R3));
    assert!(v.unjudged.is_empty(), "R3 ranks below R2: {:?}", v.unjudged);
    // With a fix on offer, nothing surfaces early.
    assert!(diagnose(&b).next.is_none());
}

#[test]
fn boundaries_when_nothing_fires() {
    let mut spec = base();
    spec.window.generation_tps = Some(5000.0); // above 56 × 50 = 2800: speculation
    let v = diagnose(&spec);
    assert!(v.derived.speculation_suspected && v.derived.efficiency.is_none());
    assert_eq!(v.boundary.unwrap().kind.as_str(), "declined");
    let mut unk = base();
    unk.physics = None;
    assert_eq!(diagnose(&unk).boundary.unwrap().kind.as_str(), "declined");
    let mut nowait = base();
    nowait.window.waiting = None;
    assert_eq!(
        diagnose(&nowait).boundary.unwrap().kind.as_str(),
        "declined"
    );
    let mut phys = base();
    phys.window.generation_tps = Some(0.85 * 50.0 * 64.0);
    assert_eq!(diagnose(&phys).boundary.unwrap().kind.as_str(), "physics");
    let mut cap = base();
    cap.window.kv_usage = g(0.85, 0.9);
    assert_eq!(diagnose(&cap).boundary.unwrap().kind.as_str(), "capacity");
    let mut pf = base();
    pf.window.prompt_tps = Some(6.0 * 2520.0 + 1000.0);
    pf.window.itl = dist(1000.0, 0.03); // muted R6
    let v = diagnose(&pf);
    assert!(v.primary.is_none(), "{:?}", v.primary);
    assert_eq!(v.boundary.unwrap().kind.as_str(), "prefill interference");
}

#[test]
fn diagnose_only_fallback_names_the_underuse() {
    // Occupancy 50/64 = 78 % (R1 gate missed), efficiency 50 %: nothing fires, efficiency low.
    let mut b = base();
    b.window.running = g(50.0, 52.0);
    b.window.generation_tps = Some(0.5 * 50.0 * 64.0);
    let v = diagnose(&b);
    assert!(v.primary.is_none());
    assert!(
        v.fallback.as_deref().unwrap().contains("50 %"),
        "{:?}",
        v.fallback
    );
}

#[test]
fn an_idle_window_fires_nothing_and_says_so() {
    // A real idle vLLM: nothing running, waiting, finished or generated. Unbatched-looking
    // occupancy (0 of 64) is no evidence of under-batching.
    let mut b = base();
    b.window.running = g(0.0, 0.0);
    b.window.waiting = g(0.0, 0.0);
    b.window.generation_tps = Some(0.0);
    b.window.prompt_tps = Some(0.0);
    b.window.finished = Some(0.0);
    b.window.finished_per_s = Some(0.0);
    let v = diagnose(&b);
    assert!(v.primary.is_none() && v.held.is_empty());
    let bd = v.boundary.expect("a boundary");
    assert_eq!(bd.kind, diagnose::BoundaryKind::Idle);
    assert!(bd.text.contains("no traffic"));
    // One request in flight at one scrape is traffic.
    b.window.running = g(0.02, 1.0);
    assert_ne!(
        diagnose(&b).boundary.map(|b| b.kind),
        Some(diagnose::BoundaryKind::Idle)
    );
}

#[test]
fn a_suspect_that_outranks_withholds_the_primary() {
    // KV pressure fires, but without --gpu R4 cannot be judged, and the engine's pool holds
    // barely one max-length sequence: R2 is held, R4 named with the flag that settles it.
    let mut b = kv_pressed(0.95, 0.1);
    b.physics = None;
    b.config.kv_capacity_tokens = Some(8192.0);
    let v = diagnose(&b);
    assert!(v.primary.is_none(), "{:?}", v.primary.map(|p| p.rule));
    assert!(v.held.iter().any(|f| f.rule == RuleId::R2));
    assert_eq!(v.unjudged[0].rule, RuleId::R4);
    assert_eq!(v.unjudged[0].needs, "--gpu and --model");
    assert!(
        v.unjudged[0]
            .hint
            .contains("KV pool 8192 tokens holds 1.00"),
        "{}",
        v.unjudged[0].hint
    );
    // A roomy pool is no suspect: R2 is crowned.
    b.config.kv_capacity_tokens = Some(200_000.0);
    let v = diagnose(&b);
    assert_eq!(v.primary.map(|p| p.rule), Some(RuleId::R2));
    assert!(v.unjudged.is_empty());
    // A pool under one max-length sequence is the engine's own evidence: R4 fires.
    b.config.kv_capacity_tokens = Some(4096.0);
    let v = diagnose(&b);
    let p = v.primary.expect("R4");
    assert_eq!(
        (p.rule, p.variant.as_deref()),
        (RuleId::R4, Some("buffer-squeeze"))
    );
    // On llama.cpp the context is the pool by choice: no suspicion, no squeeze from it.
    b.engine = Engine::LlamaCpp;
    b.config.kv_capacity_tokens = Some(8192.0);
    assert!(diagnose(&b).unjudged.iter().all(|u| u.rule != RuleId::R4));
}

#[test]
fn under_batching_is_not_judged_with_the_seat_limit_unread() {
    // 10 running, no queue, GPU unknown: 10 of a 442-request KV bound is 2 %, but the unread
    // seat limit could be 10. R1 does not judge; it is named with the flag that settles it.
    let mut b = underfed(10.0, 400.0);
    b.physics = None;
    b.config.max_num_seqs = None;
    let r1 = diagnose::rules::evaluate(&b, &b.window)
        .1
        .into_iter()
        .find(|f| f.rule == RuleId::R1)
        .unwrap();
    assert!(!r1.fired);
    assert!(r1.silent_reason.unwrap().contains("max_num_seqs unread"));
    let v = diagnose(&b);
    assert!(v.primary.is_none());
    let u = v
        .unjudged
        .iter()
        .find(|u| u.rule == RuleId::R1)
        .expect("R1");
    assert_eq!(u.needs, "--engine-args");
    // The seat limit read: judged, and fires (10 of 64 is under 25 %).
    b.config.max_num_seqs = Some(64.0);
    assert_eq!(diagnose(&b).primary.map(|p| p.rule), Some(RuleId::R1));
    // Many running against the read walls (56 of 133 requests the KV pool holds): no suspicion.
    let mut busy = underfed(56.0, 400.0);
    busy.physics = None;
    busy.config.max_num_seqs = None;
    busy.config.kv_capacity_tokens = Some(60_000.0);
    busy.window.kv_usage = g(56.0 / 133.0, 58.0 / 133.0);
    assert!(diagnose(&busy)
        .unjudged
        .iter()
        .all(|u| u.rule != RuleId::R1));
}

#[test]
fn config_headroom_is_named_when_the_ridge_is_unknown() {
    // 60 of 64 seats, no queue, GPU unknown: R1 misses (94 % occupied), R7 cannot size the
    // target without the ridge, but the KV pool holds ~442 requests of this size.
    let mut b = headroom_cfg(64.0, 60.0, 0.0);
    b.physics = None;
    let v = diagnose(&b);
    assert!(v.primary.is_none(), "{:?}", v.primary.map(|p| p.rule));
    let u = v
        .unjudged
        .iter()
        .find(|u| u.rule == RuleId::R7)
        .expect("R7");
    assert_eq!(u.needs, "--gpu");
    assert!(u.hint.contains("max_num_seqs 64"), "{}", u.hint);
    // Half-empty seats or a queue: no suspicion.
    let mut q = headroom_cfg(64.0, 20.0, 0.0);
    q.physics = None;
    assert!(diagnose(&q).unjudged.iter().all(|u| u.rule != RuleId::R7));
    let mut q = headroom_cfg(64.0, 60.0, 3.0);
    q.physics = None;
    assert!(diagnose(&q).unjudged.iter().all(|u| u.rule != RuleId::R7));
    // A seat limit the KV pool could not exceed by much: no suspicion.
    let mut k = headroom_cfg(64.0, 60.0, 0.0);
    k.physics = None;
    k.config.kv_capacity_tokens = Some(30_000.0);
    k.window.kv_usage = g(60.0 / 66.0, 60.0 / 66.0); // the pool holds 66; 64 > 0.72 × 66
    assert!(diagnose(&k).unjudged.iter().all(|u| u.rule != RuleId::R7));
}

/// Prompts 2k for 32-token answers arriving faster than prefill: a deep queue with free seats
/// and a cool KV pool, TTFT almost all queue time. GPU unknown.
fn queued_prefill() -> Inputs {
    let mut b = base();
    b.physics = None;
    b.config.max_num_seqs = Some(1024.0);
    b.window.running = g(127.0, 136.0);
    b.window.waiting = g(2117.0, 2492.0);
    b.window.queue_ratio = Some(0.94);
    b.window.seat_wall_cooccurred = Some(false);
    b.window.kv_usage = g(0.56, 0.60);
    b.window.generation_tps = Some(941.0);
    b.window.prompt_tps = Some(58532.0);
    b.window.prefix_hit_tps = Some(0.0);
    b.window.ttft = dist(4223.0, 57.4);
    b.window.queue_time = dist(4222.0, 56.4);
    b
}

#[test]
fn prefill_bound_is_inferred_from_the_engine_where_the_evidence_is_strong() {
    let b = queued_prefill();
    let v = diagnose(&b);
    let p = v.primary.expect("R6 inferred");
    assert_eq!(p.rule, RuleId::R6);
    assert!(p.evidence[0].starts_with("inferred from the engine's own figures"));
    assert!(
        p.evidence
            .iter()
            .any(|e| e == "effective prompt/gen ratio 62.2 is at least 5"),
        "{:?}",
        p.evidence
    );
    assert!(
        p.evidence
            .iter()
            .any(|e| e
                .contains("queue time 56.400 s of mean TTFT 57.400 s (98.3 %) is at least 50 %")),
        "{:?}",
        p.evidence
    );
    assert_eq!(p.variant.as_deref(), Some("severe"));
    assert!(v.unjudged.is_empty(), "{:?}", v.unjudged);
    // Each missing piece of the evidence leaves it unjudged, with the GPU named.
    let unjudged_r6 = |b: &Inputs| {
        let v = diagnose(b);
        v.primary.is_none()
            && v.unjudged
                .iter()
                .any(|u| u.rule == RuleId::R6 && u.needs == "--gpu")
    };
    // Seats full with the queue behind them: R5's court, R6 not inferred.
    let mut seats = queued_prefill();
    seats.window.seat_wall_cooccurred = Some(true);
    let v = diagnose(&seats);
    assert_eq!(v.primary.map(|p| p.rule), Some(RuleId::R5));
    assert!(v.held.iter().all(|f| f.rule != RuleId::R6));
    // A near-full KV pool with the queue: the KV family's court.
    let mut kv = queued_prefill();
    kv.window.kv_usage = g(0.85, 0.90);
    let v = diagnose(&kv);
    assert_eq!(v.primary.map(|p| p.rule), Some(RuleId::R2));
    assert!(v.held.iter().all(|f| f.rule != RuleId::R6));
    let mut unread = queued_prefill();
    unread.config.max_num_seqs = None;
    unread.window.seat_wall_cooccurred = None;
    assert!(unjudged_r6(&unread));
    let mut quick = queued_prefill();
    quick.window.queue_time = dist(4222.0, 10.0); // 17 % of TTFT, no sub-windows
    assert!(unjudged_r6(&quick));
    // A short prompt stream is judged, not fired, whatever the efficiency.
    let mut short = queued_prefill();
    short.window.prompt_tps = Some(3000.0);
    let r6 = diagnose::rules::evaluate(&short, &short.window)
        .1
        .into_iter()
        .find(|f| f.rule == RuleId::R6)
        .unwrap();
    assert!(!r6.fired && r6.silent_reason.is_none());
    assert_eq!(
        r6.evidence,
        vec!["effective prompt/gen ratio 3.2 is not at least 5"]
    );
}

#[test]
fn ttft_growing_with_the_queue_over_sub_windows_is_evidence() {
    let mut b = queued_prefill();
    b.window.queue_time = None;
    b.sub_windows = (0..6)
        .map(|k| {
            let mut s = b.window.clone();
            s.waiting = g(400.0 * k as f64, 400.0 * k as f64 + 50.0);
            s.ttft = dist(700.0, 10.0 * k as f64 + 1.0);
            s
        })
        .collect();
    let p = diagnose(&b).primary.expect("R6 inferred");
    assert!(
        p.evidence.iter().any(|e| e.starts_with(
            "TTFT against waiting over 6 sub-windows: correlation 1.00 is at least 0.8"
        )),
        "{:?}",
        p.evidence
    );
}

#[test]
fn no_queue_long_prompts_and_the_ridge_unknown_name_both_readings() {
    // 7 of 8 seats, 6k-token prompts, no queue, cool KV, GPU unknown: soft (R1 owns it) or
    // pressed (R6 owns it) depends on the ridge.
    let mut b = headroom_cfg(8.0, 7.0, 0.0);
    b.physics = None;
    b.window.prompt_tps = Some(1000.0 + 7.0 * 50.0 * 0.95 * 300.0);
    let v = diagnose(&b);
    assert!(v.primary.is_none());
    // (R7 too: 7 of 8 seats with no queue and a roomy KV pool.)
    let rules: Vec<RuleId> = v.unjudged.iter().map(|u| u.rule).collect();
    let at = |r| rules.iter().position(|x| *x == r);
    assert!(
        at(RuleId::R1) < at(RuleId::R6) && at(RuleId::R1).is_some(),
        "{rules:?}"
    );
    assert!(v.unjudged.iter().all(|u| u.needs == "--gpu"));
}

#[test]
fn weights_kept_in_host_memory_with_a_pool_of_one_sequence_is_weights_overflow() {
    // GPU unknown; the engine says it keeps 71 GB of weights in host memory and its pool
    // holds 1.02 max-length sequences: the weights do not fit, R4 fires and R2 is its symptom.
    let mut b = kv_pressed(0.95, 0.1);
    b.physics = None;
    b.config.kv_capacity_tokens = Some(8352.0);
    b.config.cpu_offload_gb = Some(71.0);
    let v = diagnose(&b);
    let p = v.primary.expect("R4");
    assert_eq!(
        (p.rule, p.variant.as_deref()),
        (RuleId::R4, Some("weights-overflow"))
    );
    assert!(p.evidence[0].contains("71.0 GiB of weights per GPU in host memory"));
    assert!(
        p.evidence[1].contains("1.02 max-length sequences (8192), is below 1.25"),
        "{:?}",
        p.evidence
    );
    assert!(v
        .silenced
        .iter()
        .any(|s| s.rule == RuleId::R2 && s.by == RuleId::R4));
    // No offload: only the suspect. A roomy pool beside an offload: no claim.
    b.config.cpu_offload_gb = Some(0.0);
    let v = diagnose(&b);
    assert!(v.primary.is_none() && v.unjudged[0].rule == RuleId::R4);
    b.config.cpu_offload_gb = Some(71.0);
    b.config.kv_capacity_tokens = Some(200_000.0);
    assert_ne!(diagnose(&b).primary.map(|p| p.rule), Some(RuleId::R4));
}

// Advice that agrees with itself: one definition per shared figure, one prescription per knob,
// a value (or how to measure it) on every step, cost tags that are true.

#[test]
fn the_kv_wall_is_the_kv_gauge_so_a_pool_at_44_percent_is_not_near_its_wall() {
    // 56 running with the pool 44.5 % full, 256 seats, ridge 300: the pool holds 56 ÷ 0.445 ×
    // 88 % = 111 requests of this size at R2's near-full fill. Against it, occupancy is the KV
    // usage over that fill: 51 %.
    let mut b = base();
    b.config.max_num_seqs = Some(256.0);
    b.physics.as_mut().unwrap().ridge_batch = 300.0;
    b.window.kv_usage = g(0.445, 0.5);
    b.config.kv_capacity_tokens = Some(20_000.0); // 44 requests of 452 tokens, the old estimate
    let d = diagnose::rules::derive(&b, &b.window);
    assert_eq!(d.occupancy_wall, Some("memory (KV pool)"));
    assert!((d.occupancy.unwrap() - 0.445 / 0.88).abs() < 1e-9, "{d:?}");
    let v = diagnose(&b);
    assert!(
        v.boundary
            .as_ref()
            .is_none_or(|x| !x.text.contains("near their wall")),
        "{:?}",
        v.boundary
    );
}

#[test]
fn r7_says_seat_use_and_r1_says_occupancy() {
    let h = headroom_cfg(32.0, 30.0, 0.0);
    let (_, fs) = diagnose::rules::evaluate(&h, &h.window);
    let r7 = fs.iter().find(|f| f.rule == RuleId::R7).unwrap();
    assert!(r7
        .evidence
        .iter()
        .any(|e| e.contains("seat use (running ÷ max_num_seqs)")));
    assert!(
        r7.evidence.iter().all(|e| !e.contains("occupancy")),
        "{:?}",
        r7.evidence
    );
    let u = underfed(20.0, 400.0);
    let (_, fs) = diagnose::rules::evaluate(&u, &u.window);
    let r1 = fs.iter().find(|f| f.rule == RuleId::R1).unwrap();
    assert!(
        r1.evidence.iter().any(|e| e.starts_with("occupancy")),
        "{:?}",
        r1.evidence
    );
}

#[test]
fn r5_prescribes_the_final_seat_value_once_and_r7_does_not_ask_again() {
    // 63 running on 64 seats with KV at 50 %: the pool holds 63 ÷ 0.5 × 88 % = 110 such
    // requests; target 0.8 × min(ridge 200, 110) = 88. The demand (64 + 8) is said, not a cap.
    let before = saturated(true, 5.0, 0.5, 0.5);
    let p = diagnose(&before).primary.unwrap();
    assert_eq!(p.rule, RuleId::R5);
    assert_eq!(p.fix[0].value.as_deref(), Some("88"), "{:?}", p.fix[0]);
    assert!(
        p.fix[0].text.contains("0.8 × min(ridge 200, KV bound 111")
            && p.fix[0].text.contains("= 88")
            && p.fix[0].text.contains("peaked at 72"),
        "{}",
        p.fix[0].text
    );
    // After the fix: 88 seats, 80 running, KV grown in proportion. R7 has nothing to add.
    let mut after = before.clone();
    after.config.max_num_seqs = Some(88.0);
    after.window.running = g(80.0, 85.0);
    after.window.waiting = g(0.5, 1.0);
    after.window.queue_ratio = Some(0.0);
    after.window.seat_wall_cooccurred = Some(false);
    after.window.kv_usage = g(0.5 * 80.0 / 63.0, 0.7);
    assert!(!fired(&after).contains(&RuleId::R7), "{:?}", fired(&after));
    assert!(!fired(&after).contains(&RuleId::R5));
}

#[test]
fn r7_value_and_its_arithmetic() {
    let p = diagnose(&headroom_cfg(32.0, 30.0, 0.0)).primary.unwrap();
    assert_eq!(p.rule, RuleId::R7);
    let v: f64 = p.fix[0].value.as_deref().unwrap().parse().unwrap();
    assert!(
        p.fix[0].text.contains(&format!("= {v:.0}")),
        "{}",
        p.fix[0].text
    );
}

/// One user on a one-slot llama-server: nobody ever waits, so more slots would only split -c.
fn llama_one_user(waiting_peak: f64) -> Inputs {
    let mut b = headroom_cfg(1.0, 1.0, 0.0);
    b.engine = Engine::LlamaCpp;
    b.window.waiting = g(waiting_peak / 4.0, waiting_peak);
    b.window.kv_usage = g(0.1, 0.12);
    b.config.max_model_len = Some(4096.0); // per slot: -c 4096 / -np 1
    b.config.kv_capacity_tokens = Some(4096.0);
    b.config.gpu_memory_utilization = None;
    b
}

#[test]
fn r7_on_llama_cpp_needs_someone_waiting_and_keeps_each_slots_context() {
    let one = llama_one_user(0.0);
    let (_, fs) = diagnose::rules::evaluate(&one, &one.window);
    let r7 = fs.iter().find(|f| f.rule == RuleId::R7).unwrap();
    assert!(!r7.fired, "{:?}", r7.evidence);
    assert!(
        r7.evidence.iter().any(|e| e.contains("waiting peak 0")),
        "{:?}",
        r7.evidence
    );
    assert!(diagnose(&llama_one_user(0.0))
        .primary
        .is_none_or(|p| p.rule != RuleId::R7));
    // Someone waited once: R7, with -np and the -c that keeps 4096 tokens a slot.
    let inp = llama_one_user(1.0);
    let (_, fs) = diagnose::rules::evaluate(&inp, &inp.window);
    let r7 = fs.iter().find(|f| f.rule == RuleId::R7).unwrap();
    assert!(r7.fired, "{:?}", r7.evidence);
    let np: f64 = r7.fix[0].value.as_deref().unwrap().parse().unwrap();
    assert_eq!(r7.fix[0].flag.as_deref(), Some("-np"));
    let c = r7
        .fix
        .iter()
        .find(|f| f.flag.as_deref() == Some("-c"))
        .expect("-c step");
    assert_eq!(
        c.value.as_deref(),
        Some(format!("{:.0}", np * 4096.0).as_str())
    );
    assert!(c.text.contains("divides -c by -np"), "{}", c.text);
    // The same window on vLLM (paged KV, seats cost nothing empty): R7 fires without a wait.
    let mut v = llama_one_user(0.0);
    v.engine = Engine::Vllm;
    assert!(fired(&v).contains(&RuleId::R7));
}

#[test]
fn kv_fix_steps_carry_a_value_or_how_to_measure_it_and_true_cost_tags() {
    let mut b = kv_pressed(0.95, 0.5);
    b.config.kv_cache_dtype = Some("auto".into());
    let (_, fs) = diagnose::rules::evaluate(&b, &b.window);
    let r2 = fs.iter().find(|f| f.rule == RuleId::R2).unwrap();
    assert!(r2.fired);
    let step = |fl: &str| {
        r2.fix
            .iter()
            .find(|f| f.flag.as_deref() == Some(fl))
            .unwrap_or_else(|| panic!("{fl} in {:?}", r2.fix))
    };
    // fp8 KV changes what the model computes: not "safe".
    assert_eq!(
        step("--kv-cache-dtype fp8").cost,
        Some(diagnose::FixCost::TradesAccuracy)
    );
    // Offloading: the value is measured, and the step says how.
    assert!(step("--kv-offloading-size").text.contains("free -g"));
    // Fewer seats: a number, with the arithmetic (56 × 80 % ÷ 95 % = 47).
    let s = step("--max-num-seqs");
    assert_eq!(s.value.as_deref(), Some("47"), "{s:?}");
    assert!(s.text.contains("= 47"), "{}", s.text);
    // A shorter context: what to measure.
    assert!(
        step("--max-model-len").text.contains("measure"),
        "{:?}",
        step("--max-model-len")
    );
    assert_eq!(
        step("--gpu-memory-utilization").value.as_deref(),
        Some("0.95")
    );
    // No step says "lower it" without a number or a measurement.
    for f in &r2.fix {
        if f.text.starts_with("lower it") {
            assert!(
                f.value.is_some() || f.text.contains("measure") || f.text.contains("watch"),
                "{f:?}"
            );
        }
    }
}

#[test]
fn r4_squeeze_prescribes_the_context_the_free_vram_holds() {
    // 0.5 GB of KV headroom, one 8192-token request needs 1 GB: 8192 × 0.5 ÷ 1 = 4096.
    let mut s = base();
    s.physics.as_mut().unwrap().kv_headroom_gb = Some(0.5);
    let (_, fs) = diagnose::rules::evaluate(&s, &s.window);
    let r4 = fs.iter().find(|f| f.rule == RuleId::R4).unwrap();
    assert!(r4.fired);
    let len = r4
        .fix
        .iter()
        .find(|f| f.flag.as_deref() == Some("--max-model-len"))
        .unwrap();
    assert_eq!(len.value.as_deref(), Some("4096"), "{len:?}");
    assert!(len.text.contains("= 4096"), "{}", len.text);
    let mem = r4
        .fix
        .iter()
        .find(|f| f.flag.as_deref() == Some("--gpu-memory-utilization"))
        .unwrap();
    assert_eq!(mem.value.as_deref(), Some("0.95"));
}
