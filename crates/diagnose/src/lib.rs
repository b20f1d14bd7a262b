//! Windows, rules, arbitration and the verdict (spec 001).
//!
//! Pure: takes the scraped samples of a window, the server's config (each value known or unread)
//! and the physics facts (when the GPU and model are catalogued), and returns a [`Verdict`].
//! Data flows one way: samples → [`window::WindowStats`] → [`rules`] → [`arbitrate`] → verdict.

pub mod arbitrate;
pub mod inputs;
pub mod rules;
pub mod window;

pub use arbitrate::{diagnose, Boundary, Verdict};
pub use inputs::{Config, Inputs, Physics};
pub use rules::{Finding, RuleId};
pub use window::{Dist, GaugeStats, WindowStats};
