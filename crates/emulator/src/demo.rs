//! `headroom demo`'s document and the choice of the next step: the emulator run with a
//! pathology, diagnosed, one prescribed flag turned, run again (docs/json/demo.md).

use diagnose::report::{Fired, Report};
use diagnose::RuleId;
use loadgen::traffic::{Arrival, DriveReport, LoadShape};
use serde::{Deserialize, Serialize};

use crate::ArgOverrides;

pub const SCHEMA: &str = "headroom.demo/1";

/// What kind of change a step made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FixKind {
    /// An engine flag.
    Flag,
    /// The client side.
    Load,
    /// Nothing applicable.
    None,
}

/// What the demo changed between two runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppliedFix {
    pub kind: FixKind,
    /// The rule whose prescription was applied.
    pub rule: Option<RuleId>,
    /// The knob the step turned (for a flag).
    #[serde(default)]
    pub knob: Option<diagnose::Knob>,
    pub flag: Option<String>,
    pub value: Option<String>,
    /// The prescription step as diagnose wrote it, or why nothing was applied.
    pub text: String,
    pub command_line_before: String,
    pub command_line_after: Option<String>,
}

/// The `headroom demo --json` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Demo {
    pub schema: String,
    pub scenario: ScenarioInfo,
    pub before: Report,
    /// The first step applied.
    pub applied_fix: AppliedFix,
    /// The last run: after the last step taken; null when nothing was applied.
    pub after: Option<Report>,
    /// Every step taken, in order.
    pub chain: Vec<ChainStep>,
    pub load: Loads,
    pub lags: u64,
    pub wall_seconds: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioInfo {
    pub name: String,
    pub summary: String,
    pub gpu: String,
    pub model: String,
    pub expected_primary: Option<String>,
    pub seed: u64,
    pub speed: f64,
    pub warmup_s: f64,
    pub window_s: f64,
    pub simulated: bool,
}

/// One step of the chain and what the run after it measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainStep {
    pub step: usize,
    pub fix: AppliedFix,
    pub generation_tokens_per_s: Option<f64>,
    pub primary: Option<RuleId>,
}

/// What the load driver did in each run (loadgen's drive report over HTTP, or the engine's
/// own counts when the load is replayed inside it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Loads {
    pub before: LoadReport,
    pub after: Option<LoadReport>,
}

/// What the load driver of one run did, tagged by the driver (`driver` in docs/json/demo.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "driver", rename_all = "lowercase", deny_unknown_fields)]
pub enum LoadReport {
    /// Replayed inside the engine in simulated time.
    Engine {
        /// Requests submitted.
        sent: u64,
        /// Refused at the door.
        refused: u64,
    },
    /// Sent over HTTP by loadgen's client.
    Http(DriveReport),
}

/// Chooses the first step of the primary's prescription, from `from` on, that the emulator can
/// apply, and returns the new flags (or load) and the index of the step after it.
pub fn choose_fix(
    primary: &Fired,
    from: usize,
    args: &ArgOverrides,
    current: &crate::EngineArgs,
    load: &LoadShape,
) -> (Option<ArgOverrides>, Option<LoadShape>, AppliedFix, usize) {
    let rule = Some(primary.rule);
    let fix = |kind, text: String| AppliedFix {
        kind,
        rule,
        knob: None,
        flag: None,
        value: None,
        text,
        command_line_before: String::new(),
        command_line_after: None,
    };
    let steps = &primary.fix;
    for (i, st) in steps.iter().enumerate().skip(from) {
        let Some(knob) = st.knob_of(diagnose_engine()) else {
            continue;
        };
        let Some((o, value)) = args.turn(knob, st.value.as_deref(), current) else {
            continue;
        };
        let mut f = fix(FixKind::Flag, st.text.clone());
        f.knob = Some(knob);
        f.flag = st.flag.clone();
        f.value = value;
        return (Some(o), None, f, i + 1);
    }
    // Under-batching is fixed on the client side: raise concurrency one step (×4). Its
    // prescription is "in steps", so the step can be taken again.
    if primary.rule == RuleId::R1 {
        if let Arrival::Closed { clients, think_s } = load.arrival {
            let mut l = load.clone();
            let more = clients.saturating_mul(4).max(clients + 1);
            l.arrival = Arrival::Closed {
                clients: more,
                think_s,
            };
            let text = steps
                .first()
                .map(|s| s.text.clone())
                .unwrap_or_else(|| "raise client concurrency".into());
            let mut f = fix(FixKind::Load, text);
            f.value = Some(format!("{clients} → {more} concurrent clients"));
            return (None, Some(l), f, from);
        }
    }
    let first = steps
        .get(from)
        .or(steps.first())
        .map_or("no prescription", |s| s.text.as_str());
    let why = if from == 0 {
        format!("no step of the prescription is a flag the emulator can apply ({first})")
    } else {
        format!("no further step of the prescription is a flag the emulator can apply ({first})")
    };
    (None, None, fix(FixKind::None, why), steps.len())
}

/// The emulator is a vLLM: its prescriptions are vLLM's.
fn diagnose_engine() -> engines::Engine {
    engines::Engine::Vllm
}

#[cfg(test)]
mod tests {
    use super::*;
    use diagnose::{FixCost, FixStep, Knob};

    fn shape(clients: u32) -> LoadShape {
        let mut l = crate::scenario::find("under-batching").unwrap().load;
        l.arrival = Arrival::Closed {
            clients,
            think_s: 0.0,
        };
        l
    }

    fn primary(rule: RuleId, fix: Vec<FixStep>) -> Fired {
        Fired {
            rule,
            title: rule.title().into(),
            variant: None,
            evidence: Vec::new(),
            fix,
            seen_in: None,
        }
    }

    fn step(knob: Knob, value: Option<&str>) -> FixStep {
        let mut s = FixStep::knob(
            engines::Engine::Vllm,
            knob,
            value.map(str::to_string),
            "do it",
        )
        .unwrap();
        s.cost = Some(FixCost::Safe);
        s
    }

    fn current(o: &ArgOverrides) -> crate::EngineArgs {
        crate::hardware::configure("H100-SXM", "llama-3.1-8b", o)
            .unwrap()
            .args
    }

    #[test]
    fn the_first_applicable_knob_is_turned_then_the_next() {
        let o = ArgOverrides {
            enable_prefix_caching: Some(false),
            gpu_memory_utilization: Some(0.5),
            ..Default::default()
        };
        let p = primary(
            RuleId::R2,
            vec![
                step(Knob::KvOffloading, None),
                step(Knob::PrefixCaching, None),
                step(Knob::GpuMemoryUtilization, Some("0.55")),
            ],
        );
        let (n, l, f, next) = choose_fix(&p, 0, &o, &current(&o), &shape(4));
        let n = n.unwrap();
        assert_eq!(n.enable_prefix_caching, Some(true));
        assert!(l.is_none());
        assert_eq!(
            (f.kind, f.knob, f.flag.as_deref()),
            (
                FixKind::Flag,
                Some(Knob::PrefixCaching),
                Some("--enable-prefix-caching")
            )
        );
        // The next step of the same prescription, on top of the first.
        let (n2, _, f2, _) = choose_fix(&p, next, &n, &current(&n), &shape(4));
        let n2 = n2.unwrap();
        assert_eq!(n2.gpu_memory_utilization, Some(0.55));
        assert_eq!(n2.enable_prefix_caching, Some(true));
        assert_eq!(f2.value.as_deref(), Some("0.55"));
        // Then nothing is left.
        let (n3, _, f3, _) = choose_fix(&p, 3, &n2, &current(&n2), &shape(4));
        assert!(n3.is_none());
        assert_eq!(f3.kind, FixKind::None);
    }

    #[test]
    fn seats_and_a_step_that_changes_nothing_is_skipped() {
        let o = ArgOverrides::default();
        let p = primary(
            RuleId::R5,
            vec![
                // Already on by default: skipped.
                step(Knob::PrefixCaching, None),
                step(Knob::MaxNumSeqs, Some("100")),
            ],
        );
        let (n, _, _, _) = choose_fix(&p, 0, &o, &current(&o), &shape(4));
        assert_eq!(n.unwrap().max_num_seqs, Some(100));
    }

    #[test]
    fn under_batching_raises_client_concurrency() {
        let o = ArgOverrides::default();
        let p = primary(RuleId::R1, vec![FixStep::text("raise client concurrency")]);
        let (n, l, f, next) = choose_fix(&p, 0, &o, &current(&o), &shape(4));
        assert!(n.is_none());
        assert_eq!(
            l.unwrap().arrival,
            Arrival::Closed {
                clients: 16,
                think_s: 0.0
            }
        );
        assert_eq!((f.kind, next), (FixKind::Load, 0));
    }

    #[test]
    fn nothing_applicable_says_why() {
        let o = ArgOverrides::default();
        let p = primary(RuleId::R3, vec![FixStep::text("restructure prompts")]);
        let (n, l, f, _) = choose_fix(&p, 0, &o, &current(&o), &shape(4));
        assert!(n.is_none() && l.is_none());
        assert_eq!(f.kind, FixKind::None);
        assert!(f.text.contains("restructure prompts"));
    }

    #[test]
    fn load_reports_keep_their_wire_format() {
        use serde_json::json;
        // docs/json/demo.md `load`: the driver is a tag beside the counts, in one flat object.
        let engine = LoadReport::Engine {
            sent: 2409,
            refused: 0,
        };
        let http = LoadReport::Http(DriveReport {
            sent: 4,
            completed: 3,
            cut: 1,
            first_error: Some("timeout".into()),
            ..Default::default()
        });
        assert_eq!(
            serde_json::to_value(&engine).unwrap(),
            json!({"driver": "engine", "sent": 2409, "refused": 0})
        );
        assert_eq!(
            serde_json::to_value(&http).unwrap(),
            json!({"driver": "http", "sent": 4, "completed": 3, "cut": 1, "failed": 0,
                   "skipped": 0, "first_error": "timeout", "prompt_tokens": 0,
                   "completion_tokens": 0, "cached_tokens": 0})
        );
        for l in [engine, http] {
            let back: LoadReport =
                serde_json::from_value(serde_json::to_value(&l).unwrap()).unwrap();
            assert_eq!(back, l);
        }
        for stray in [
            json!({"driver": "engine", "sent": 1, "refused": 0, "cut": 0}),
            json!({"driver": "http", "sent": 1, "completed": 1, "cut": 0, "failed": 0,
                   "skipped": 0, "first_error": null, "prompt_tokens": 0,
                   "completion_tokens": 0, "cached_tokens": 0, "refused": 0}),
            json!({"driver": "replay", "sent": 1, "refused": 0}),
        ] {
            assert!(
                serde_json::from_value::<LoadReport>(stray.clone()).is_err(),
                "{stray}"
            );
        }
    }
}
