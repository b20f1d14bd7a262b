//! The step ledger: four cumulative counters split into the mean decode-only step
//! and the mean chunk step, with the share of steps and of step time the chunk steps hold.
//! The mean of all steps is kept only to show the trap it is: a few chunk steps cannot move a
//! mean that is mostly decode.

use serde::{Deserialize, Serialize};

/// The four counters (or their increase over a window).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Counters {
    pub steps: f64,
    pub steps_decode: f64,
    pub step_seconds: f64,
    pub step_seconds_decode: f64,
}

impl Counters {
    pub fn add(&mut self, o: &Counters) {
        self.steps += o.steps;
        self.steps_decode += o.steps_decode;
        self.step_seconds += o.step_seconds;
        self.step_seconds_decode += o.step_seconds_decode;
    }
}

/// The split ledger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ledger {
    pub steps: f64,
    pub steps_decode: f64,
    pub step_seconds: f64,
    pub step_seconds_decode: f64,
    /// step_seconds_decode / steps_decode, milliseconds; None without a decode-only step.
    pub decode_step_ms: Option<f64>,
    /// (step_seconds − step_seconds_decode) / (steps − steps_decode), milliseconds: a chunk alone
    /// or a chunk with decode rows beside it. None without a chunk step.
    pub chunk_step_ms: Option<f64>,
    /// (steps − steps_decode) / steps.
    pub chunk_share_of_steps: Option<f64>,
    /// (step_seconds − step_seconds_decode) / step_seconds.
    pub chunk_share_of_time: Option<f64>,
    /// step_seconds / steps, milliseconds: the diluted mean (a trap: the mean hides the phase split). Reported so
    /// the reader sees how little the chunk moves it; no verdict reads it.
    pub mean_step_ms: Option<f64>,
}

/// Fewer steps than this in a phase is no phase (an increase() extrapolation can leave a
/// fraction of a step where none was taken).
const MIN_STEPS: f64 = 0.5;

pub fn split(c: &Counters) -> Ledger {
    let chunk_steps = c.steps - c.steps_decode;
    let chunk_s = c.step_seconds - c.step_seconds_decode;
    let ms = |s: f64, n: f64| (n >= MIN_STEPS && s >= 0.0).then(|| 1e3 * s / n);
    Ledger {
        steps: c.steps,
        steps_decode: c.steps_decode,
        step_seconds: c.step_seconds,
        step_seconds_decode: c.step_seconds_decode,
        decode_step_ms: ms(c.step_seconds_decode, c.steps_decode),
        chunk_step_ms: ms(chunk_s, chunk_steps),
        chunk_share_of_steps: (c.steps >= MIN_STEPS && chunk_steps >= 0.0)
            .then(|| chunk_steps / c.steps),
        chunk_share_of_time: (c.step_seconds > 0.0 && chunk_s >= 0.0)
            .then(|| chunk_s / c.step_seconds),
        mean_step_ms: ms(c.step_seconds, c.steps),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counters that produce a measured live pair: 4.7 % of the steps are chunk steps of 166 ms,
    /// the rest decode-only steps of 15.5 ms. The split must give back 15.5 and 166 ms, and
    /// those 4.7 % of steps hold 34 % of the step time (0.047·166 / (0.047·166 + 0.953·15.5)
    /// = 7.80 / 22.57 = 0.3457).
    #[test]
    fn spec_live_pair() {
        let steps = 100_000.0;
        let steps_decode = 95_300.0;
        let c = Counters {
            steps,
            steps_decode,
            step_seconds_decode: steps_decode * 0.0155,
            step_seconds: steps_decode * 0.0155 + (steps - steps_decode) * 0.166,
        };
        let l = split(&c);
        assert!((l.decode_step_ms.unwrap() - 15.5).abs() < 1e-9, "{l:?}");
        assert!((l.chunk_step_ms.unwrap() - 166.0).abs() < 1e-9, "{l:?}");
        assert!((l.chunk_share_of_steps.unwrap() - 0.047).abs() < 1e-12);
        let t = l.chunk_share_of_time.unwrap();
        assert!((0.34..0.35).contains(&t), "{t}");
        // The trap: the mean step is 22.6 ms, nearer the decode step than the chunk step.
        let mean = l.mean_step_ms.unwrap();
        assert!((mean - 22.57).abs() < 0.01, "{mean}");
    }

    #[test]
    fn missing_phases_are_none_not_zero() {
        let only_decode = split(&Counters {
            steps: 10.0,
            steps_decode: 10.0,
            step_seconds: 0.2,
            step_seconds_decode: 0.2,
        });
        assert_eq!(only_decode.chunk_step_ms, None);
        assert_eq!(only_decode.chunk_share_of_steps, Some(0.0));
        let none = split(&Counters::default());
        assert_eq!(
            (
                none.decode_step_ms,
                none.mean_step_ms,
                none.chunk_share_of_time
            ),
            (None, None, None)
        );
        // Inconsistent counters (decode above the total) give no chunk figure.
        let bad = split(&Counters {
            steps: 5.0,
            steps_decode: 9.0,
            step_seconds: 1.0,
            step_seconds_decode: 2.0,
        });
        assert_eq!((bad.chunk_step_ms, bad.chunk_share_of_steps), (None, None));
    }
}
