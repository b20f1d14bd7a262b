//! Windows, rules, arbitration and the verdict, and the pipeline that takes a recorded
//! window to the `headroom.diagnose/1` document.
//!
//! The rules are pure: they take the statistics of a window, the server's config (each value
//! known or unread) and the physics facts (when the GPU and model are catalogued), and return a
//! [`Verdict`]. Data flows one way: samples → [`window::WindowStats`] → [`rules`] →
//! [`arbitrate`] → verdict → [`report::Report`]. [`judge::judge`] runs it end to end on a
//! recording; [`remeasure::compare`] sets two reports side by side.

pub mod arbitrate;
mod ceiling;
pub mod defaults;
pub mod gpu;
pub mod gpu_doc;
pub mod inputs;
pub mod judge;
pub mod remeasure;
pub mod report;
pub mod rules;
pub mod stale;
pub mod window;

pub use arbitrate::{diagnose, Boundary, BoundaryKind, Verdict};
pub use inputs::{Config, Inputs, Physics, PoolCap};
pub use judge::{judge, judge_samples, read, to_rule_config, JudgeError, Judged, Read, Target};
pub use report::{Report, Shape, SubWindow, TimePoint, Timeline};
pub use rules::unjudged;
pub use rules::Unjudged;
pub use rules::{Finding, FixCost, FixStep, Knob, RuleId};
pub use window::{Bound, Dist, GaugeStats, WindowStats};
