//! Load in simulated time: a [`LoadShape`] replayed against the engine with no network and no
//! wall clock. The same replay runs inside the HTTP server (`headroom emulate --drive`), paced
//! by the wall clock, and in [`run_virtual`], as fast as the CPU allows (the scenario suite).

use std::collections::HashMap;

use loadgen::traffic::{Arrival, Generator, LoadShape, RequestSpec};

use crate::engine::{Engine, ReqId};
use crate::tokenizer;

/// Token ids of a generated request, as the server would tokenize its prompt.
pub fn request_tokens(spec: &RequestSpec, shape: &LoadShape) -> Vec<u32> {
    let words = spec.words.iter().map(|&w| tokenizer::hex_word_id(w));
    if shape.chat {
        // encode_chat of one user message: <|user|> words <|assistant|>.
        let mut t = vec![tokenizer::word_id("<|user|>")];
        t.extend(words);
        t.push(tokenizer::word_id("<|assistant|>"));
        t
    } else {
        words.collect()
    }
}

/// A load shape's clients (closed loop) or arrival process (open loop), in simulated time.
#[derive(Debug, Clone)]
pub struct SimLoad {
    gen: Generator,
    /// Closed loop: when each client sends next (None while its request runs).
    clients: Vec<Option<f64>>,
    /// Open loop: the next arrival.
    next_open: f64,
    owner: HashMap<ReqId, usize>,
    /// Requests the engine refused at the door (counted, not retried).
    pub rejected: u64,
    pub first_reject: Option<String>,
    pub submitted: u64,
}

impl SimLoad {
    /// The shape's traffic, starting at simulated time `start`.
    pub fn new(shape: &LoadShape, seed: u64, start: f64) -> SimLoad {
        let mut gen = Generator::new(shape, seed);
        let (clients, next_open) = match shape.arrival {
            Arrival::Closed { clients, .. } => (vec![Some(start); clients as usize], f64::INFINITY),
            Arrival::Open { .. } => (Vec::new(), start + gen.next_gap_s()),
        };
        SimLoad {
            gen,
            clients,
            next_open,
            owner: HashMap::new(),
            rejected: 0,
            first_reject: None,
            submitted: 0,
        }
    }

    /// When the next request will be sent, if any is pending.
    pub fn next_time(&self) -> Option<f64> {
        let c = self
            .clients
            .iter()
            .flatten()
            .copied()
            .fold(f64::INFINITY, f64::min);
        let t = c.min(self.next_open);
        t.is_finite().then_some(t)
    }

    /// Sends every request due by `now` to the engine, each stamped with its own arrival time.
    pub fn submit_due(&mut self, engine: &mut Engine, now: f64) {
        let mut due: Vec<(f64, Option<usize>)> = self
            .clients
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.filter(|t| *t <= now).map(|t| (t, Some(i))))
            .collect();
        while self.next_open <= now {
            due.push((self.next_open, None));
            self.next_open += self.gen.next_gap_s();
        }
        due.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (t, client) in due {
            let spec = self.gen.next_request();
            let tokens = request_tokens(&spec, self.gen.shape());
            self.submitted += 1;
            match engine.add_request(tokens, Some(spec.max_tokens), t) {
                Ok(id) => {
                    if let Some(c) = client {
                        self.clients[c] = None;
                        self.owner.insert(id, c);
                    }
                }
                Err(e) => {
                    self.rejected += 1;
                    self.first_reject.get_or_insert_with(|| e.to_string());
                    if let Some(c) = client {
                        // Try again after a think time (at least 1 ms, so a client whose every
                        // request is refused cannot spin).
                        let gap = self.gen.next_gap_s().max(1e-3);
                        self.clients[c] = Some(t + gap);
                    }
                }
            }
        }
    }

    /// A request finished at `now`: its client thinks, then sends again.
    pub fn on_finished(&mut self, id: ReqId, now: f64) {
        if let Some(c) = self.owner.remove(&id) {
            let think = self.gen.next_gap_s();
            self.clients[c] = Some(now + think);
        }
    }
}

/// One scrape of a virtual run.
#[derive(Debug, Clone, PartialEq)]
pub struct Scrape {
    /// Unix seconds on the simulated clock.
    pub t_unix: f64,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VirtualOptions {
    /// Unix seconds at simulated time 0.
    pub epoch_unix_s: f64,
    /// Simulated seconds of load before the first scrape.
    pub warmup_s: f64,
    /// Simulated seconds between the first and the last scrape.
    pub window_s: f64,
    pub interval_s: f64,
}

#[derive(Debug, Clone)]
pub struct VirtualRun {
    pub scrapes: Vec<Scrape>,
    pub steps: u64,
    pub submitted: u64,
    pub rejected: u64,
    pub first_reject: Option<String>,
    pub engine: Engine,
}

/// Runs `shape` against `engine` for warmup + window of simulated time, scraping /metrics every
/// `interval_s` of the window. A step that spans several scrape times yields one scrape.
pub fn run_virtual(
    mut engine: Engine,
    shape: &LoadShape,
    seed: u64,
    o: &VirtualOptions,
) -> VirtualRun {
    let mut load = SimLoad::new(shape, seed, engine.now());
    let end = o.warmup_s + o.window_s;
    let mut next_scrape = o.warmup_s;
    let mut scrapes = Vec::new();
    let mut steps = 0u64;
    let eps = 1e-9;
    while next_scrape <= end + eps {
        let now = engine.now();
        load.submit_due(&mut engine, now);
        if engine.has_work() {
            let out = engine.step();
            steps += 1;
            for f in &out.finished {
                load.on_finished(f.id, engine.now());
            }
        } else {
            let t = load.next_time().unwrap_or(f64::INFINITY).min(next_scrape);
            engine.advance_to(t);
        }
        if engine.now() + eps >= next_scrape {
            scrapes.push(Scrape {
                t_unix: o.epoch_unix_s + engine.now(),
                text: engine.render_metrics(o.epoch_unix_s),
            });
            let k = ((engine.now() - o.warmup_s) / o.interval_s).floor() + 1.0;
            next_scrape = o.warmup_s + k * o.interval_s;
        }
    }
    VirtualRun {
        scrapes,
        steps,
        submitted: load.submitted,
        rejected: load.rejected,
        first_reject: load.first_reject,
        engine,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::EngineArgs;
    use crate::cost::tests::h100_8b;
    use loadgen::traffic::{Families, Length};

    fn args() -> EngineArgs {
        EngineArgs {
            served_model_name: "m".into(),
            max_num_seqs: 64,
            max_model_len: 8192,
            max_num_batched_tokens: 2048,
            gpu_memory_utilization: 0.9,
            enable_prefix_caching: true,
            enable_chunked_prefill: true,
            kv_cache_dtype: "auto".into(),
            tensor_parallel_size: 1,
            quantization: None,
            block_size: 16,
            seed: 1,
        }
    }

    fn closed(clients: u32) -> LoadShape {
        LoadShape {
            arrival: Arrival::Closed {
                clients,
                think_s: 0.0,
            },
            prompt_words: Length::Fixed { n: 200 },
            output_tokens: Length::Fixed { n: 50 },
            families: None,
            chat: false,
            stream: false,
        }
    }

    fn opts() -> VirtualOptions {
        VirtualOptions {
            epoch_unix_s: 1.7e9,
            warmup_s: 5.0,
            window_s: 20.0,
            interval_s: 1.0,
        }
    }

    #[test]
    fn request_tokens_equal_the_tokenized_text() {
        let mut s = closed(1);
        let spec = loadgen::traffic::Generator::new(&s, 4).next_request();
        let text = spec.prompt_text();
        assert_eq!(request_tokens(&spec, &s), tokenizer::encode(&text));
        s.chat = true;
        assert_eq!(
            request_tokens(&spec, &s),
            tokenizer::encode_chat([("user", text.as_str())])
        );
    }

    #[test]
    fn closed_loop_keeps_its_clients_busy() {
        let run = run_virtual(Engine::new(args(), h100_8b()), &closed(8), 1, &opts());
        assert_eq!(run.scrapes.len(), 21);
        let m = run.engine.metrics();
        assert!(m.running + m.waiting == 8.0, "{} {}", m.running, m.waiting);
        assert_eq!(run.rejected, 0);
        // Timestamps follow simulated time, one interval apart (± a step).
        let ts: Vec<f64> = run.scrapes.iter().map(|s| s.t_unix - 1.7e9).collect();
        assert!(
            (ts[0] - 5.0).abs() < 0.05 && (ts[20] - 25.0).abs() < 0.05,
            "{ts:?}"
        );
    }

    #[test]
    fn open_loop_rate_is_kept() {
        let mut s = closed(0);
        s.arrival = Arrival::Open { rate_per_s: 5.0 };
        let mut o = opts();
        o.window_s = 100.0;
        let run = run_virtual(Engine::new(args(), h100_8b()), &s, 2, &o);
        let rate = run.submitted as f64 / 105.0;
        assert!((rate - 5.0).abs() < 0.6, "{rate}");
    }

    #[test]
    fn shared_prefixes_hit_the_cache_in_a_run() {
        let mut s = closed(8);
        s.families = Some(Families {
            count: 2,
            shared_words: 160,
        });
        let run = run_virtual(Engine::new(args(), h100_8b()), &s, 3, &opts());
        let m = run.engine.metrics();
        let rate = m.prefix_hits / m.prefix_queries;
        assert!(rate > 0.6 && rate < 0.8, "{rate}");
    }

    #[test]
    fn same_seed_same_scrapes() {
        let go = |seed| {
            run_virtual(Engine::new(args(), h100_8b()), &closed(16), seed, &opts())
                .scrapes
                .last()
                .unwrap()
                .text
                .clone()
        };
        assert_eq!(go(5), go(5));
    }
}
