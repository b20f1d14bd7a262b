//! Built-in scenarios: a deployment with a known pathology, a load shape, and the answer the
//! diagnose rules must give. The scenario suite checks every answer; `headroom demo` runs one
//! of them, applies the prescribed flag and runs it again; `headroom emulate --scenario` serves
//! one for any tool to look at.

use loadgen::traffic::{Arrival, Families, Length, LoadShape};
use serde::Serialize;

use crate::args::ArgOverrides;

/// What the diagnosis of a scenario must say. Rules are named by their ids ("R2b").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Expect {
    /// The primary rule; None = nothing fires.
    pub primary: Option<&'static str>,
    /// The primary's variant, where the scenario exercises one ("weights-overflow" ...).
    pub variant: Option<&'static str>,
    /// (silenced rule, by rule): suppressions the spec requires in this shape.
    pub silenced: &'static [(&'static str, &'static str)],
    /// Rules that must fire and lose (held, not silenced).
    pub held: &'static [&'static str],
    /// Rules that must be neither primary nor held here.
    pub never: &'static [&'static str],
    /// The sentence of the spec this scenario checks.
    pub spec: &'static str,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scenario {
    pub name: &'static str,
    /// One line: the deployment and its pathology.
    pub summary: &'static str,
    pub gpu: &'static str,
    pub model: &'static str,
    pub args: ArgOverrides,
    pub load: LoadShape,
    pub seed: u64,
    /// Simulated seconds of load before the diagnosis window.
    pub warmup_s: f64,
    /// Simulated seconds of the diagnosis window, and between scrapes.
    pub window_s: f64,
    pub interval_s: f64,
    pub expect: Expect,
}

fn closed(clients: u32) -> Arrival {
    Arrival::Closed {
        clients,
        think_s: 0.0,
    }
}

fn uniform(min: u32, max: u32) -> Length {
    Length::Uniform { min, max }
}

fn shape(
    arrival: Arrival,
    prompt: Length,
    output: Length,
    families: Option<(u32, u32)>,
) -> LoadShape {
    LoadShape {
        arrival,
        prompt_words: prompt,
        output_tokens: output,
        families: families.map(|(count, shared_words)| Families {
            count,
            shared_words,
        }),
        chat: false,
        stream: false,
    }
}

fn base(
    name: &'static str,
    summary: &'static str,
    args: ArgOverrides,
    load: LoadShape,
    expect: Expect,
) -> Scenario {
    Scenario {
        name,
        summary,
        gpu: "H100-SXM",
        model: "llama-3.1-8b",
        args,
        load,
        seed: 1,
        warmup_s: 60.0,
        window_s: 120.0,
        interval_s: 5.0,
        expect,
    }
}

const NONE: &[&str] = &[];

fn expect(primary: Option<&'static str>, spec: &'static str) -> Expect {
    Expect {
        primary,
        variant: None,
        silenced: &[],
        held: NONE,
        never: NONE,
        spec,
    }
}

/// Every built-in scenario, the issue's table first, then the spec's suppression and soft-field
/// cases.
pub fn all() -> Vec<Scenario> {
    let seqs = |n: u32| ArgOverrides {
        max_num_seqs: Some(n),
        max_model_len: Some(8192),
        ..Default::default()
    };
    vec![
        base(
            "healthy",
            "240 clients with shared system prompts on 256 seats, prefix caching on",
            seqs(256),
            shape(closed(240), uniform(700, 900), uniform(150, 250), Some((4, 600))),
            Expect {
                never: &["R1", "R2", "R2b", "R3", "R4", "R5", "R6", "R7"],
                ..expect(None, "Rules fire on evidence of harm, never on heat.")
            },
        ),
        base(
            "under-batching",
            "4 clients on a server with 256 seats: the GPU waits for work",
            seqs(256),
            shape(closed(4), uniform(400, 600), uniform(250, 350), None),
            expect(Some("R1"), "R1: waiting under 2, config-relative efficiency under 60% and occupancy under 75%."),
        ),
        base(
            "kv-pressure",
            "long shared system prompts with prefix caching off and half the VRAM: the KV pool overflows",
            ArgOverrides {
                gpu_memory_utilization: Some(0.5),
                enable_prefix_caching: Some(false),
                ..seqs(256)
            },
            shape(closed(160), uniform(1700, 1900), uniform(300, 500), Some((2, 1500))),
            Expect {
                silenced: &[("R2b", "R2")],
                ..expect(Some("R2"), "R2: KV at or above 88% with preemptions or a queue; R2 wins over R2b.")
            },
        ),
        Scenario {
            gpu: "L4",
            ..base(
                "admission-backlog",
                "7.5k-token prompts on an L4 without chunked prefill: four fit the pool, the next waits for KV",
                // Chunked prefill off: a prompt is admitted whole or not at all, so the queue
                // waits for KV instead of thrashing through partial admissions and preemption.
                ArgOverrides {
                    max_num_seqs: Some(256),
                    max_model_len: Some(16384),
                    max_num_batched_tokens: Some(16384),
                    enable_chunked_prefill: Some(false),
                    ..Default::default()
                },
                shape(closed(6), uniform(7200, 7800), uniform(8, 24), None),
                Expect {
                    never: &["R2"],
                    ..expect(Some("R2b"), "R2b: KV near full, queue ratio ≥ 30%, running below max_num_seqs, free KV below the queue's prompts.")
                },
            )
        },
        base(
            "no-prefix-caching",
            "shared-prefix traffic (4 system prompts of 800 words) with prefix caching off",
            ArgOverrides {
                enable_prefix_caching: Some(false),
                ..seqs(256)
            },
            shape(closed(240), uniform(900, 1100), uniform(250, 350), Some((4, 800))),
            expect(Some("R3"), "R3: caching off fires on prompt volume ≥ 1000 tok/s."),
        ),
        Scenario {
            model: "llama-3.1-70b",
            ..base(
                "weights-dont-fit",
                "Llama 3.1 70B in bf16 (141 GB) on one 80 GB H100",
                seqs(256),
                shape(closed(12), uniform(800, 1200), uniform(16, 24), None),
                Expect {
                    variant: Some("weights-overflow"),
                    silenced: &[("R2", "R4")],
                    never: &["R2", "R2b"],
                    ..expect(Some("R4"), "If the model weights alone overflow VRAM, your KV cache is under pressure because of that.")
                },
            )
        },
        base(
            "concurrency-saturation",
            "100 clients on 32 seats with the KV pool mostly empty",
            seqs(32),
            shape(closed(100), uniform(400, 600), uniform(250, 350), Some((4, 300))),
            expect(Some("R5"), "R5: running at --max-num-seqs with waiting ≥ 2 and queue ratio ≥ 30%."),
        ),
        base(
            "prefill-bound",
            "2k-token prompts for 32-token answers arriving faster than the GPU can prefill them",
            seqs(1024),
            shape(
                Arrival::Open { rate_per_s: 36.0 },
                uniform(1800, 2200),
                uniform(24, 40),
                None,
            ),
            expect(Some("R6"), "R6: effective prompt/gen ratio ≥ 5 and decode efficiency under 40%, on a pressed server."),
        ),
        base(
            "config-headroom",
            "60 clients on 64 seats, no queue, a ridge of ~295",
            seqs(64),
            shape(closed(60), uniform(700, 900), uniform(150, 250), Some((4, 600))),
            expect(Some("R7"), "R7: --max-num-seqs under 90% of the R5 target, occupancy ≥ 50%, waiting ≤ 1."),
        ),
        // The spec's suppression and soft-field cases.
        base(
            "buffer-squeeze",
            "weights fit but a 128k-token request does not: R4 leads and KV pressure stays held",
            ArgOverrides {
                max_num_seqs: Some(256),
                max_model_len: Some(131_072),
                gpu_memory_utilization: Some(0.38),
                enable_prefix_caching: Some(false),
                ..Default::default()
            },
            shape(closed(96), uniform(1700, 1900), uniform(300, 500), Some((2, 1500))),
            Expect {
                variant: Some("buffer-squeeze"),
                held: &["R2"],
                ..expect(Some("R4"), "A buffer squeeze without weights overflow does not silence R2.")
            },
        ),
        base(
            "pressed-prefill",
            "160 clients with 1.2k-token prompts and 100-token answers: prefill fills the steps",
            seqs(256),
            shape(closed(160), uniform(1100, 1300), uniform(80, 120), None),
            Expect {
                silenced: &[("R1", "R6")],
                ..expect(Some("R6"), "Prefill-bound silences Under-batching when the server is pressed.")
            },
        ),
        base(
            "soft-field-prefill",
            "6 clients sending 6k-token prompts for 20-token answers: light load, long prompts",
            seqs(256),
            shape(closed(6), uniform(5800, 6200), uniform(16, 24), None),
            Expect {
                held: &["R6"],
                never: NONE,
                ..expect(Some("R1"), "Under soft field, Under-batching owns first fire and Prefill is held.")
            },
        ),
        base(
            "soft-underfed",
            "7 clients on 8 seats with 6k-token prompts: R1's gates miss, the field is soft",
            seqs(8),
            shape(closed(7), uniform(5800, 6200), uniform(16, 24), None),
            Expect {
                variant: Some("soft-underfed"),
                ..expect(Some("R1"), "When R1's gates miss but the field is soft and Prefill would own the page, a soft under-fed inject reuses R1's fix.")
            },
        ),
        Scenario {
            warmup_s: 180.0,
            ..base(
                "busy-not-broken",
                "the KV pool runs ~90% full with no evictions and no queue",
                ArgOverrides {
                    gpu_memory_utilization: Some(0.6),
                    ..seqs(256)
                },
                shape(closed(96), uniform(1800, 2200), uniform(1500, 2500), Some((4, 1200))),
                Expect {
                    never: &["R2", "R2b"],
                    ..expect(None, "A server at 95% KV cache with no evictions and no queue is healthy and busy.")
                },
            )
        },
        // Variants of the table on other GPUs, models, sizes and loads: the no-flags suite
        // checks that the rules hold beyond the shapes they were first tried on.
        Scenario {
            gpu: "L40S",
            model: "qwen3-8b",
            ..base(
                "under-batching-l40s",
                "3 clients with short prompts on 128 seats of an L40S",
                seqs(128),
                shape(closed(3), uniform(200, 400), uniform(300, 500), None),
                expect(Some("R1"), "R1 on another GPU and model."),
            )
        },
        Scenario {
            gpu: "L4",
            model: "qwen3-4b",
            ..base(
                "saturation-l4",
                "80 clients on 24 seats of an L4 serving Qwen3 4B",
                seqs(24),
                shape(closed(80), uniform(300, 500), uniform(150, 250), None),
                expect(Some("R5"), "R5 on a small GPU."),
            )
        },
        Scenario {
            gpu: "H200-SXM",
            model: "qwen3-8b",
            ..base(
                "prefill-bound-h200",
                "4k-token prompts for 12-token answers on an H200, arriving faster than prefill",
                seqs(512),
                shape(
                    Arrival::Open { rate_per_s: 14.0 },
                    uniform(3800, 4200),
                    uniform(8, 16),
                    None,
                ),
                expect(Some("R6"), "R6 with longer prompts, another model and GPU."),
            )
        },
        Scenario {
            gpu: "A100-SXM-80GB",
            ..base(
                "config-headroom-a100",
                "30 clients on 32 seats of an A100 with the KV pool mostly empty",
                seqs(32),
                shape(closed(30), uniform(500, 700), uniform(200, 300), None),
                expect(Some("R7"), "R7 on another GPU, at a smaller seat count."),
            )
        },
        Scenario {
            gpu: "L40S",
            ..base(
                "kv-pressure-l40s",
                "120 clients with 1.6k-token prompts, caching off, 60% of an L40S",
                ArgOverrides {
                    gpu_memory_utilization: Some(0.6),
                    enable_prefix_caching: Some(false),
                    ..seqs(256)
                },
                shape(closed(120), uniform(1500, 1700), uniform(300, 400), None),
                Expect {
                    never: &["R4"],
                    ..expect(Some("R2"), "R2 on a 48 GB part.")
                },
            )
        },
        Scenario {
            gpu: "L40S",
            model: "qwen3-32b",
            ..base(
                "weights-dont-fit-l40s",
                "Qwen3 32B in bf16 (~65 GB) on one 48 GB L40S",
                seqs(64),
                shape(closed(8), uniform(600, 900), uniform(16, 24), None),
                Expect {
                    variant: Some("weights-overflow"),
                    never: &["R2", "R2b"],
                    ..expect(Some("R4"), "Weights that overflow VRAM, another model and GPU.")
                },
            )
        },
        Scenario {
            gpu: "H200-SXM",
            model: "qwen3-8b",
            ..base(
                "healthy-h200",
                "200 clients with shared system prompts on 256 seats of an H200",
                seqs(256),
                shape(closed(200), uniform(600, 800), uniform(150, 250), Some((4, 500))),
                Expect {
                    never: &["R1", "R2", "R2b", "R3", "R4", "R5", "R6", "R7"],
                    ..expect(None, "Healthy on another GPU and model: nothing fires.")
                },
            )
        },
    ]
}

pub fn names() -> Vec<&'static str> {
    all().iter().map(|s| s.name).collect()
}

pub fn find(name: &str) -> Option<Scenario> {
    all().into_iter().find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issue_table_is_there() {
        for (name, rule) in [
            ("healthy", None),
            ("under-batching", Some("R1")),
            ("kv-pressure", Some("R2")),
            ("admission-backlog", Some("R2b")),
            ("no-prefix-caching", Some("R3")),
            ("weights-dont-fit", Some("R4")),
            ("concurrency-saturation", Some("R5")),
            ("prefill-bound", Some("R6")),
            ("config-headroom", Some("R7")),
        ] {
            let s = find(name).unwrap_or_else(|| panic!("{name} missing"));
            assert_eq!(s.expect.primary, rule, "{name}");
        }
        let n = names();
        let mut d = n.clone();
        d.dedup();
        assert_eq!(n.len(), d.len());
    }

    #[test]
    fn every_scenario_configures() {
        for s in all() {
            let c = crate::hardware::configure(s.gpu, s.model, &s.args)
                .unwrap_or_else(|e| panic!("{}: {e}", s.name));
            // Every request of the shape fits the door.
            let e = c.engine();
            let longest = s.load.prompt_words.max() as usize;
            assert!(
                e.check(longest, Some(s.load.output_tokens.max())).is_ok(),
                "{}: {:?}",
                s.name,
                e.check(longest, Some(s.load.output_tokens.max()))
            );
        }
    }
}
