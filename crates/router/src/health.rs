//! Replica health: live or demoted, and requests in flight. Kept apart from policy: a policy
//! reads it through `Fleet`, the proxy and the prober write it.
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::fleet::Fleet;

#[derive(Debug)]
struct State {
    live: AtomicBool,
    in_flight: AtomicUsize,
}

#[derive(Debug)]
pub struct Health {
    states: Vec<State>,
}

impl Health {
    /// Every replica starts live; the startup probe demotes the ones that do not answer.
    pub fn new(replicas: usize) -> Self {
        let states = (0..replicas)
            .map(|_| State {
                live: AtomicBool::new(true),
                in_flight: AtomicUsize::new(0),
            })
            .collect();
        Health { states }
    }

    pub fn len(&self) -> usize {
        self.states.len()
    }

    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    pub fn is_live(&self, r: usize) -> bool {
        self.states[r].live.load(Ordering::Acquire)
    }

    pub fn live_count(&self) -> usize {
        (0..self.len()).filter(|r| self.is_live(*r)).count()
    }

    /// Marks `r` demoted; true when it was live (the caller then counts and re-pins once).
    pub fn demote(&self, r: usize) -> bool {
        self.states[r].live.swap(false, Ordering::AcqRel)
    }

    /// Marks `r` live again; true when it was demoted.
    pub fn restore(&self, r: usize) -> bool {
        !self.states[r].live.swap(true, Ordering::AcqRel)
    }

    pub fn in_flight(&self, r: usize) -> usize {
        self.states[r].in_flight.load(Ordering::Relaxed)
    }

    pub fn enter(&self, r: usize) {
        self.states[r].in_flight.fetch_add(1, Ordering::Relaxed);
    }

    pub fn leave(&self, r: usize) {
        self.states[r].in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The fleet as one request sees it: live replicas, minus those that already failed it.
pub struct View<'a> {
    pub health: &'a Health,
    pub excluded: &'a [usize],
}

impl Fleet for View<'_> {
    fn replicas(&self) -> usize {
        self.health.len()
    }
    fn eligible(&self, r: usize) -> bool {
        self.health.is_live(r) && !self.excluded.contains(&r)
    }
    fn in_flight(&self, r: usize) -> usize {
        self.health.in_flight(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transitions_are_reported_once() {
        let h = Health::new(2);
        assert!(h.demote(1));
        assert!(!h.demote(1), "already demoted");
        assert_eq!(h.live_count(), 1);
        let excluded = [0];
        let v = View {
            health: &h,
            excluded: &excluded,
        };
        assert!(!v.eligible(0) && !v.eligible(1));
        assert!(h.restore(1));
        assert!(!h.restore(1));
        h.enter(1);
        h.enter(1);
        h.leave(1);
        assert_eq!(
            View {
                health: &h,
                excluded: &[]
            }
            .in_flight(1),
            1
        );
    }
}
