//! Groups events into requests (slot and task ids) and requests into server instances.
//!
//! An instance ends where the log shows a new process: a journald pid not seen before, a
//! startup line (`build: …`, `loading model`) after the previous process served requests or
//! loaded its model, a second `model loaded`, or task ids going backwards on a slot (llama.cpp
//! numbers tasks from 0 in each process, and one slot runs its tasks in increasing order).
//! Numbers from two instances are never combined.

use crate::envelope::EnvelopeAcc;
use crate::event::{self, Event, Scope, ServeApi, SlotSelection};
use crate::prefix;
use crate::record::small;
pub use crate::record::{CachedFrom, Draft, Engine, Instance, Request, StartReason};
use crate::scan::{each_newline, trim, trim_padded};
use crate::vllm::{self, EngineTag, Series};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};

/// Slot ids above this are treated as garbage rather than grown into (`-np` is at most a few
/// hundred in practice; the per-slot tables are indexed by id).
const MAX_SLOTS: u32 = 4096;

/// Lines longer than this are counted and skipped instead of buffered.
pub const MAX_LINE: usize = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nothing known about the process's start.
    Unknown,
    /// Startup lines seen, model not loaded yet.
    Starting,
    /// `model loaded` seen.
    Running,
}

struct State {
    /// The instance, its `requests` empty while mining (they live in `reqs`).
    inst: Instance,
    /// Requests not yet folded into `acc`, in the order they began; request `r` (numbered
    /// from 0 in the instance) is `reqs[r - folded]`.
    reqs: VecDeque<Request>,
    /// Requests already folded into `acc` (the first `folded` of the instance).
    folded: usize,
    /// Whether final requests are folded into `acc` and dropped (nobody asked for them).
    fold: bool,
    acc: EnvelopeAcc,
    /// vLLM's stats lines, one series per engine, in order of first appearance.
    vllm: Vec<Series>,
    /// Per slot: index of its current request.
    open: Vec<Option<usize>>,
    /// Per slot: the highest task id seen.
    last_task: Vec<Option<u64>>,
    /// Per slot: a selection logged while the slot had no task yet (`task -1`).
    pending: Vec<Option<(SlotSelection, Option<f64>)>>,
    /// The request named by an older multi-line print_timings header.
    timing_ctx: Option<(u32, u64)>,
    /// The last request logged without ids (2023-style `print_timings:` lines).
    anon: Option<usize>,
    phase: Phase,
}

impl State {
    fn new(pid: Option<u32>, started_by: StartReason, line: u64, fold: bool) -> Self {
        State {
            reqs: VecDeque::new(),
            folded: 0,
            fold,
            acc: EnvelopeAcc::default(),
            vllm: Vec::new(),
            inst: Instance {
                pid,
                started_by,
                first_line: line,
                last_line: line,
                model_loaded: false,
                requests: Vec::new(),
                cancelled_tasks: 0,
                lcp_selections: 0,
                lru_selections: 0,
                windowed_tps: Vec::new(),
            },
            open: Vec::new(),
            last_task: Vec::new(),
            pending: Vec::new(),
            timing_ctx: None,
            anon: None,
            phase: Phase::Unknown,
        }
    }

    fn grow(&mut self, slot: u32) {
        let n = slot as usize + 1;
        if self.open.len() < n {
            self.open.resize(n, None);
            self.last_task.resize(n, None);
            self.pending.resize(n, None);
        }
    }

    /// Whether this process has shown it is running (served or loaded), so that a startup
    /// line must belong to the next one.
    fn has_run(&self) -> bool {
        self.phase == Phase::Running || self.seen() > 0 || !self.vllm.is_empty()
    }

    /// Requests begun in this instance.
    fn seen(&self) -> usize {
        self.folded + self.reqs.len()
    }

    fn req(&mut self, r: usize) -> &mut Request {
        &mut self.reqs[r - self.folded]
    }

    /// Appends a request; returns its number.
    fn push(&mut self, req: Request) -> usize {
        self.reqs.push_back(req);
        self.seen() - 1
    }

    /// Whether request `r` can still receive a line: only a slot's current request (by slot
    /// and task, by a cancel line, or by an older header's bare timing lines, which name the
    /// header's slot and task) and the last request logged without ids can.
    fn live(&self, r: usize) -> bool {
        let q = &self.reqs[r - self.folded];
        self.anon == Some(r)
            || q.slot
                .is_some_and(|k| self.open.get(k as usize) == Some(&Some(r)))
    }

    /// In fold mode, folds the oldest requests while they are final: in the order they began,
    /// so the envelope's float sums add up exactly as over stored requests. A request only
    /// stops being live when a newer one replaces it, so this runs after each new request.
    fn fold_final(&mut self) {
        if !self.fold {
            return;
        }
        while !self.reqs.is_empty() && !self.live(self.folded) {
            let Some(mut q) = self.reqs.pop_front() else {
                break;
            };
            self.acc.add(&mut q);
            self.folded += 1;
        }
    }

    /// The instance with its unfolded requests, and what was folded before them.
    fn parts(&self) -> Parts {
        let mut inst = self.inst.clone();
        inst.requests = self.reqs.iter().cloned().collect();
        (inst, self.acc.clone(), self.vllm_stats())
    }

    fn into_parts(self) -> Parts {
        let vllm = self.vllm_stats();
        let mut inst = self.inst;
        inst.requests = Vec::from(self.reqs);
        (inst, self.acc, vllm)
    }

    fn vllm_stats(&self) -> Vec<vllm::VllmStats> {
        self.vllm.iter().filter_map(Series::summarise).collect()
    }

    /// Files a vLLM stats line under its engine's series.
    fn add_vllm(&mut self, line: u64, s: vllm::StatsLine) {
        let k = match self.vllm.iter().position(|x| x.engine == s.engine) {
            Some(k) => k,
            None => {
                self.vllm.push(Series {
                    engine: s.engine,
                    first_line: line,
                    last_line: line,
                    lines: Vec::new(),
                });
                self.vllm.len() - 1
            }
        };
        let series = &mut self.vllm[k];
        series.last_line = line;
        series.lines.push(s);
    }

    /// V0's separate prefix-cache line belongs to the stats line just before it.
    fn add_vllm_prefix_hit(&mut self, pct: f64) -> bool {
        let last = self
            .vllm
            .iter_mut()
            .filter(|x| x.engine == EngineTag::Single)
            .find_map(|x| x.lines.last_mut());
        match last {
            Some(l) if l.prefix_hit_pct.is_none() => {
                l.prefix_hit_pct = Some(pct);
                true
            }
            _ => false,
        }
    }
}

/// An instance, its folded requests' accumulator and its vLLM stats.
type Parts = (Instance, EnvelopeAcc, Vec<vllm::VllmStats>);

/// One line reduced to what grouping needs. Parsing needs no context, so lines can be parsed
/// on several threads and grouped afterwards in their order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    Blank,
    Overlong,
    Line {
        pid: Option<u32>,
        scope: Scope,
        event: Option<Event>,
    },
}

impl Item {
    /// [`Item::parse`] into `out`, a slot of the chunk's vector. llama.cpp's slot lines (most
    /// lines of a busy server's log) are written field by field where they stay; the rest are
    /// parsed by [`Item::parse`] and moved in.
    #[inline(always)]
    pub(crate) fn parse_into(line: &[u8], colour: bool, scratch: &mut Vec<u8>, out: &mut Item) {
        if !colour {
            let stripped = prefix::strip(line);
            // No vLLM prefix starts with `s`, and a body that starts with a printing byte is
            // not blank: this is what `parse` would find.
            if let Some(rest) = stripped.body.strip_prefix(b"slot ") {
                if let Some((slot, task, msg)) = event::slot_ids(rest) {
                    *out = Item::Line {
                        pid: stripped.pid,
                        scope: Scope::Slot { slot, task },
                        event: None,
                    };
                    if let Item::Line { event, .. } = out {
                        let msg = trim_padded(msg);
                        if msg.is_empty() {
                            *event = Some(Event::TimingHeader);
                        } else {
                            event::slot_message_into(msg, event);
                        }
                    }
                    return;
                }
            }
        }
        *out = Item::parse(line, colour, scratch);
    }

    pub(crate) fn parse(line: &[u8], colour: bool, scratch: &mut Vec<u8>) -> Item {
        let line = if colour && memchr::memchr(0x1b, line).is_some() {
            prefix::strip_ansi(line, scratch);
            &scratch[..]
        } else {
            line
        };
        let stripped = prefix::strip(line);
        // A body that starts with a printing byte is not blank: no need to trim it whole.
        let maybe_blank = matches!(
            stripped.body.first(),
            None | Some(b' ' | b'\t' | b'\r' | b'\n')
        );
        if maybe_blank && trim(stripped.body).is_empty() {
            return Item::Blank;
        }
        if let Some(v) = vllm::strip(stripped.body) {
            // A journald pid names the process; otherwise vLLM's own `(APIServer pid=N)` does.
            let event = match vllm::message(v.msg, v.time) {
                Some(vllm::Message::Starting) => Some(Event::Starting),
                m => m.map(Event::Vllm),
            };
            return Item::Line {
                pid: stripped.pid.or(v.api_pid),
                scope: Scope::Other,
                event,
            };
        }
        let parsed = event::parse(stripped.body);
        Item::Line {
            pid: stripped.pid,
            scope: parsed.scope,
            event: parsed.event,
        }
    }
}

/// Feeds on log lines, one at a time or in chunks; reports at any point.
pub struct Miner {
    states: Vec<State>,
    current: usize,
    by_pid: HashMap<u32, usize>,
    lines: u64,
    unparsed: u64,
    blank: u64,
    overlong: u64,
    /// A line split across chunks.
    carry: Vec<u8>,
    carry_overlong: bool,
    scratch: Vec<u8>,
    /// Fold final requests into the envelope instead of keeping them (see [`Miner::folding`]).
    fold: bool,
}

impl Default for Miner {
    fn default() -> Self {
        Self::new()
    }
}

/// The result of mining: per-instance requests and envelopes, and line counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Report {
    pub lines: u64,
    /// Non-blank lines from which nothing was taken (startup banners, idle notices, other
    /// programs, unknown formats).
    pub unparsed_lines: u64,
    pub blank_lines: u64,
    /// Lines over 1 MiB, skipped unread.
    pub overlong_lines: u64,
    pub instances: Vec<crate::envelope::InstanceReport>,
    pub warnings: Vec<String>,
}

impl Miner {
    /// A miner whose report lists every request.
    pub fn new() -> Self {
        Self::with_requests(true)
    }

    /// A miner whose report has the same envelopes but no per-request records: each request
    /// is folded into its instance's envelope once no later line can change it, so memory
    /// grows with the slots in use, not with the requests (bar a few numbers per request for
    /// the distributions). Its report's `requests` lists are empty.
    pub fn folding() -> Self {
        Self::with_requests(false)
    }

    fn with_requests(keep: bool) -> Self {
        Miner {
            states: vec![State::new(None, StartReason::LogStart, 1, !keep)],
            current: 0,
            by_pid: HashMap::new(),
            lines: 0,
            unparsed: 0,
            blank: 0,
            overlong: 0,
            carry: Vec::new(),
            carry_overlong: false,
            scratch: Vec::new(),
            fold: !keep,
        }
    }

    /// Lines read so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Requests seen so far, all instances.
    pub fn requests(&self) -> usize {
        self.states.iter().map(State::seen).sum()
    }

    /// vLLM stats lines read so far, all instances.
    pub fn vllm_stats_lines(&self) -> usize {
        self.states
            .iter()
            .flat_map(|s| &s.vllm)
            .map(|x| x.lines.len())
            .sum()
    }

    /// Feeds a chunk of the log; a line cut at the chunk's end waits for the next chunk.
    pub fn feed(&mut self, mut chunk: &[u8]) {
        if !self.carry.is_empty() || self.carry_overlong {
            let Some(nl) = memchr::memchr(b'\n', chunk) else {
                self.extend_carry(chunk);
                return;
            };
            self.extend_carry(&chunk[..nl]);
            let carry = std::mem::take(&mut self.carry);
            if std::mem::take(&mut self.carry_overlong) {
                self.lines += 1;
                self.overlong += 1;
            } else {
                self.feed_line(&carry);
            }
            self.carry = carry;
            self.carry.clear();
            chunk = &chunk[nl + 1..];
        }
        // One scan per chunk for colour codes instead of one per line.
        let colour = memchr::memchr(0x1b, chunk).is_some();
        let mut start = 0;
        each_newline(chunk, |nl| {
            let line = &chunk[start..nl];
            if line.len() > MAX_LINE {
                self.lines += 1;
                self.overlong += 1;
            } else {
                self.line(line, colour);
            }
            start = nl + 1;
        });
        self.extend_carry(&chunk[start..]);
    }

    fn extend_carry(&mut self, part: &[u8]) {
        if self.carry_overlong {
            return;
        }
        if self.carry.len() + part.len() > MAX_LINE {
            self.carry.clear();
            self.carry_overlong = true;
        } else {
            self.carry.extend_from_slice(part);
        }
    }

    /// Ends the input: a last line without a newline counts.
    pub fn finish(&mut self) {
        if std::mem::take(&mut self.carry_overlong) {
            self.lines += 1;
            self.overlong += 1;
        } else if !self.carry.is_empty() {
            let carry = std::mem::take(&mut self.carry);
            self.feed_line(&carry);
        }
    }

    /// Feeds one line (without its newline).
    pub fn feed_line(&mut self, line: &[u8]) {
        self.line(line, true);
    }

    /// One line; `colour` says whether it may hold ANSI escapes.
    fn line(&mut self, line: &[u8], colour: bool) {
        let mut scratch = std::mem::take(&mut self.scratch);
        let item = Item::parse(line, colour, &mut scratch);
        self.scratch = scratch;
        self.apply_item(item);
    }

    /// Groups one line parsed by [`Item::parse`] (on this thread or another).
    pub(crate) fn apply_item(&mut self, item: Item) {
        self.lines += 1;
        match item {
            Item::Blank => self.blank += 1,
            Item::Overlong => self.overlong += 1,
            // Most lines of a busy server's log: a slot line of the request its slot runs.
            Item::Line {
                pid: None,
                scope:
                    Scope::Slot {
                        slot,
                        task: Some(task),
                    },
                event: Some(event),
            } if !matches!(event, Event::Starting | Event::ModelLoaded) => {
                match self.open_request(slot, task) {
                    Some(r) => self.apply_open(slot, task, r, event),
                    None => {
                        let scope = Scope::Slot {
                            slot,
                            task: Some(task),
                        };
                        if !self.apply(None, scope, Some(event)) {
                            self.unparsed += 1;
                        }
                    }
                }
            }
            Item::Line { pid, scope, event } => {
                if !self.apply(pid, scope, event) {
                    self.unparsed += 1;
                }
            }
        }
    }

    /// The current instance's request that slot `slot` runs, when it is task `task`'s.
    #[inline(always)]
    fn open_request(&self, slot: u32, task: u64) -> Option<usize> {
        let s = &self.states[self.current];
        let r = (*s.open.get(slot as usize)?)?;
        (s.reqs.get(r.checked_sub(s.folded)?)?.task == Some(task)).then_some(r)
    }

    /// What [`Miner::apply`] does with a slot line (no pid, no process boundary) of request `r`
    /// of the current instance, the one [`Miner::open_request`] found: the instance and the
    /// request are known, so only their updates are left.
    #[inline(always)]
    fn apply_open(&mut self, slot: u32, task: u64, r: usize, event: Event) {
        let line = self.lines;
        let s = &mut self.states[self.current];
        s.apply_slot_event(slot, task, r, event);
        s.inst.last_line = line;
    }

    fn new_instance(&mut self, pid: Option<u32>, why: StartReason) -> usize {
        self.states
            .push(State::new(pid, why, self.lines, self.fold));
        let i = self.states.len() - 1;
        if let Some(p) = pid {
            self.by_pid.insert(p, i);
        }
        self.current = i;
        i
    }

    /// Picks the instance a line belongs to from its pid.
    fn instance_for(&mut self, pid: Option<u32>) -> usize {
        let Some(p) = pid else {
            return self.current;
        };
        if let Some(&i) = self.by_pid.get(&p) {
            self.current = i;
            return i;
        }
        let cur = &mut self.states[self.current];
        if cur.inst.pid.is_none() {
            // The first pid of a log adopts the instance the log started with.
            cur.inst.pid = Some(p);
            self.by_pid.insert(p, self.current);
            return self.current;
        }
        self.new_instance(Some(p), StartReason::NewPid)
    }

    /// Applies one event; returns whether the line was used.
    fn apply(&mut self, pid: Option<u32>, scope: Scope, event: Option<Event>) -> bool {
        let used = self.apply_event(pid, scope, event);
        // The line belongs to whichever instance it landed in (a new one, if it started one).
        let line = self.lines;
        self.states[self.current].inst.last_line = line;
        used
    }

    fn apply_event(&mut self, pid: Option<u32>, scope: Scope, event: Option<Event>) -> bool {
        let mut i = self.instance_for(pid);
        let Some(event) = event else {
            self.states[i].timing_ctx = None;
            return false;
        };

        // Process boundaries first: they decide which instance the rest lands in.
        match event {
            Event::Starting => {
                if self.states[i].has_run() {
                    i = self.new_instance(pid, StartReason::Startup);
                } else if self.states[i].inst.started_by == StartReason::LogStart {
                    // The log begins with the process's own start.
                    self.states[i].inst.started_by = StartReason::Startup;
                }
                self.states[i].phase = Phase::Starting;
                return true;
            }
            Event::ModelLoaded => {
                let s = &self.states[i];
                if s.phase == Phase::Running || (s.phase == Phase::Unknown && s.has_run()) {
                    i = self.new_instance(pid, StartReason::ModelLoaded);
                }
                let s = &mut self.states[i];
                s.phase = Phase::Running;
                s.inst.model_loaded = true;
                return true;
            }
            _ => {}
        }

        match scope {
            Scope::Slot { slot, task } => {
                if slot >= MAX_SLOTS {
                    return false;
                }
                let Some(task) = task else {
                    let s = &mut self.states[i];
                    s.timing_ctx = None;
                    if let Event::Selected { by, similarity } = event {
                        s.grow(slot);
                        s.pending[slot as usize] = Some((by, similarity));
                        s.count_selection(by);
                    }
                    return true;
                };
                let (i, r) = self.request_for(i, pid, slot, task);
                self.states[i].apply_slot_event(slot, task, r, event);
                true
            }
            Scope::Bare | Scope::Other => self.apply_unscoped(i, pid, scope, event),
        }
    }

    fn apply_unscoped(&mut self, i: usize, pid: Option<u32>, scope: Scope, event: Event) -> bool {
        let is_timing = matches!(
            event,
            Event::PromptEval { .. }
                | Event::Eval { .. }
                | Event::Total { .. }
                | Event::GraphsReused(_)
                | Event::Draft { .. }
        );
        if is_timing {
            // The older multi-line print_timings: bare lines after a slot header.
            if let (Scope::Bare, Some((slot, task))) = (scope, self.states[i].timing_ctx) {
                let (i, r) = self.request_for(i, pid, slot, task);
                self.states[i].apply_to(r, event);
                return true;
            }
            let s = &mut self.states[i];
            s.timing_ctx = None;
            // No ids at all: a prompt line opens a request, the rest complete it.
            let r = match (&event, s.anon) {
                (Event::PromptEval { .. }, _) => None,
                (Event::Eval { .. }, Some(r)) if s.req(r).gen_tokens.is_some() => None,
                (_, r) => r,
            };
            let r = match r {
                Some(r) => r,
                None => {
                    if !matches!(event, Event::PromptEval { .. } | Event::Eval { .. }) {
                        return false;
                    }
                    s.push(Request::new(Engine::LlamaCpp, None, None, self.lines))
                }
            };
            s.anon = Some(r);
            s.apply_to(r, event);
            s.fold_final();
            return true;
        }
        let s = &mut self.states[i];
        s.timing_ctx = None;
        match event {
            Event::Cancel { task } => {
                s.inst.cancelled_tasks += 1;
                if let Some(t) = task {
                    // The task is usually the slot's current one; a deferred task has no request.
                    let hit = s
                        .open
                        .iter()
                        .flatten()
                        .copied()
                        .find(|&r| s.reqs[r - s.folded].task == Some(t));
                    if let Some(r) = hit {
                        s.req(r).cancelled = true;
                    }
                }
                true
            }
            Event::ServeApi(api) => {
                let mut r = Request::new(Engine::Halogen, None, None, self.lines);
                fill_serve_api(&mut r, &api);
                s.push(r);
                s.fold_final();
                true
            }
            Event::Selected { by, .. } => {
                s.count_selection(by);
                true
            }
            Event::Vllm(vllm::Message::Stats(line)) => {
                s.add_vllm(self.lines, *line);
                true
            }
            Event::Vllm(vllm::Message::PrefixHit(pct)) => s.add_vllm_prefix_hit(pct),
            _ => false,
        }
    }

    /// The request of (slot, task) in instance `i`, opening one (and, when task ids went
    /// backwards on this slot, a new instance) as needed.
    fn request_for(&mut self, i: usize, pid: Option<u32>, slot: u32, task: u64) -> (usize, usize) {
        let s = &mut self.states[i];
        s.grow(slot);
        let k = slot as usize;
        if let Some(r) = s.open[k] {
            if s.req(r).task == Some(task) {
                return (i, r);
            }
        }
        let i = match s.last_task[k] {
            Some(last) if task < last => self.new_instance(pid, StartReason::TaskIdsRestarted),
            _ => i,
        };
        let line = self.lines;
        let s = &mut self.states[i];
        s.grow(slot);
        let mut req = Request::new(Engine::LlamaCpp, Some(slot), Some(task), line);
        if let Some((by, sim)) = s.pending[k].take() {
            req.selected_by = Some(by);
            req.lcp_similarity = sim;
        }
        let r = s.push(req);
        s.open[k] = Some(r);
        s.last_task[k] = Some(task);
        s.fold_final();
        (i, r)
    }

    /// Summarises everything read so far (the miner can keep reading).
    pub fn report(&self) -> Report {
        let insts = self.states.iter().map(State::parts).collect();
        self.build(insts)
    }

    /// Summarises and consumes the miner, without copying its requests.
    pub fn into_report(mut self) -> Report {
        let insts = std::mem::take(&mut self.states)
            .into_iter()
            .map(State::into_parts)
            .collect();
        self.build(insts)
    }

    fn build(&self, insts: Vec<Parts>) -> Report {
        let n = insts.len();
        let instances: Vec<_> = insts
            .into_iter()
            .map(|(inst, acc, vllm)| {
                let mut report = crate::envelope::summarise(inst, acc);
                report.vllm_stats = vllm;
                if self.fold {
                    // Only the requests still open at the end were left: list none, not those.
                    report.instance.requests = Vec::new();
                }
                report
            })
            .filter(|i| {
                // Drop the empty placeholder a log starts with when a real start follows it.
                !(i.envelope.requests_seen == 0
                    && i.instance.cancelled_tasks == 0
                    && i.vllm_stats.is_empty()
                    && i.instance.started_by == StartReason::LogStart
                    && n > 1)
            })
            .collect();
        let mut warnings = Vec::new();
        if instances
            .iter()
            .all(|i| i.envelope.requests_seen == 0 && i.vllm_stats.is_empty())
        {
            warnings.push(format!(
                "no llama.cpp or halogen request lines and no vLLM stats lines in {} lines: is \
                 this the server's log, at info verbosity (llama-server -lv 3; vLLM without \
                 --disable-log-stats)?",
                self.lines
            ));
        }
        Report {
            lines: self.lines,
            unparsed_lines: self.unparsed,
            blank_lines: self.blank,
            overlong_lines: self.overlong,
            instances,
            warnings,
        }
    }
}

impl State {
    /// A slot line's event for request `r` (slot `slot`, task `task`): the timing block it
    /// opens (or any other line closes), the selection it counts, what it sets on the request.
    #[inline(always)]
    fn apply_slot_event(&mut self, slot: u32, task: u64, r: usize, event: Event) {
        self.timing_ctx = match event {
            Event::TimingHeader => Some((slot, task)),
            _ => None,
        };
        if let Event::Selected { by, .. } = event {
            self.count_selection(by);
        }
        self.apply_to(r, event);
    }

    fn count_selection(&mut self, by: SlotSelection) {
        match by {
            SlotSelection::Lcp => self.inst.lcp_selections += 1,
            SlotSelection::Lru => self.inst.lru_selections += 1,
            SlotSelection::Id => {}
        }
    }

    fn apply_to(&mut self, r: usize, event: Event) {
        if let Event::GenProgress { tg_3s, .. } = event {
            if tg_3s.is_finite() {
                self.inst.windowed_tps.push(tg_3s);
            }
            return;
        }
        let req = self.req(r);
        match event {
            Event::PromptEval { ms, tokens, tps } => {
                req.prompt_ms = Some(ms);
                req.prompt_tokens = small(tokens);
                req.prompt_tps = tps;
            }
            Event::Eval { ms, tokens, tps } => {
                req.gen_ms = Some(ms);
                req.gen_tokens = small(tokens);
                req.gen_tps = tps;
            }
            Event::Total { ms } => req.total_ms = Some(ms),
            Event::GraphsReused(n) => req.graphs_reused = small(n),
            Event::Draft {
                rate,
                accepted,
                generated,
                mean_len,
            } => {
                req.draft = Some(Box::new(Draft {
                    rate: Some(rate),
                    accepted: Some(accepted),
                    generated: Some(generated),
                    mean_len,
                    rounds: None,
                }))
            }
            Event::Selected { by, similarity } => {
                req.selected_by = Some(by);
                req.lcp_similarity = similarity;
            }
            Event::NewPrompt { tokens } => req.prompt_tokens_total = small(tokens),
            Event::Cached { tokens } => {
                req.cached_tokens = small(tokens);
                req.cached_tokens_from = req.cached_tokens.map(|_| CachedFrom::Logged);
            }
            Event::Stop {
                n_tokens,
                truncated,
            } => {
                req.stopped = true;
                req.stop_n_tokens = n_tokens.and_then(small);
                req.truncated = truncated;
            }
            Event::Cancel { .. } => req.cancelled = true,
            _ => {}
        }
    }
}

fn fill_serve_api(r: &mut Request, a: &ServeApi) {
    r.gen_tokens = small(a.gen_tokens);
    r.gen_ms = Some(a.gen_s * 1000.0);
    r.gen_tps = Some(a.gen_tps);
    r.prompt_tokens = a.prompt_tokens.and_then(small);
    r.prompt_ms = a.prefill_s.map(|s| s * 1000.0);
    r.prompt_tps = match (a.prompt_tokens, a.prefill_s) {
        (Some(n), Some(s)) if s > 0.0 => Some(n as f64 / s),
        _ => None,
    };
    if a.rounds.is_some() || a.commit_per_round.is_some() {
        r.draft = Some(Box::new(Draft {
            mean_len: a.commit_per_round,
            rounds: a.rounds,
            ..Default::default()
        }));
    }
}

#[cfg(test)]
mod tests;
