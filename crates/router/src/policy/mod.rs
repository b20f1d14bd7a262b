//! Routing policies: each one type behind one trait, in its own file. A policy only chooses;
//! which replicas are live, what is in flight and what to retry are the proxy's and the health
//! state's business (kept apart, as in sgl-model-gateway).
use std::str::FromStr;

use crate::key::RequestFacts;

// The fleet view and the spreading counter live in a leaf module (the affinity table uses them
// too, and the policies use the affinity table).
pub use crate::fleet::{Counter, Fleet};

mod least_loaded;
mod pin;
mod round_robin;
mod shape;

pub use least_loaded::LeastLoaded;
pub use pin::Pin;
pub use round_robin::RoundRobin;
pub use shape::Shape;

/// Why a request went where it went; sent back as `x-headroom-route`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// A continuation sent to the replica that served its prefix.
    Pinned,
    /// Placed by a counter (or by load): a new conversation, or one whose replica is gone.
    Spread,
    /// The first choice failed before the first byte; this replica took the retry.
    Failover,
}

impl Route {
    pub const ALL: [Route; 3] = [Route::Pinned, Route::Spread, Route::Failover];

    pub fn as_str(self) -> &'static str {
        match self {
            Route::Pinned => "pinned",
            Route::Spread => "spread",
            Route::Failover => "failover",
        }
    }
}

/// A policy's answer: a replica index and the reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub replica: usize,
    pub route: Route,
}

pub trait Policy: Send + Sync {
    fn kind(&self) -> PolicyKind;
    /// Picks an eligible replica, or `None` when there is none.
    fn choose(&self, req: &RequestFacts, fleet: &dyn Fleet) -> Option<Decision>;
    /// The request is being sent to `replica` (first choice or failover): remember it, so the
    /// conversation's next turn finds it.
    fn served(&self, _req: &RequestFacts, _replica: usize) {}
    /// `replica` was demoted: re-pin its conversations over `fleet`. Returns how many moved.
    fn demoted(&self, _replica: usize, _fleet: &dyn Fleet) -> usize {
        0
    }
    /// Conversations held in the affinity table.
    fn pinned_conversations(&self) -> usize {
        0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyKind {
    Shape,
    RoundRobin,
    Pin,
    LeastLoaded,
}

impl PolicyKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PolicyKind::Shape => "shape",
            PolicyKind::RoundRobin => "round-robin",
            PolicyKind::Pin => "pin",
            PolicyKind::LeastLoaded => "least-loaded",
        }
    }

    /// Builds the policy; `affinity_entries` bounds the table of the pinning policies.
    pub fn build(self, affinity_entries: usize) -> Box<dyn Policy> {
        match self {
            PolicyKind::Shape => Box::new(Shape::new(affinity_entries)),
            PolicyKind::RoundRobin => Box::new(RoundRobin::default()),
            PolicyKind::Pin => Box::new(Pin::new(affinity_entries)),
            PolicyKind::LeastLoaded => Box::new(LeastLoaded::default()),
        }
    }
}

impl FromStr for PolicyKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "shape" => Ok(PolicyKind::Shape),
            "round-robin" | "rr" => Ok(PolicyKind::RoundRobin),
            "pin" => Ok(PolicyKind::Pin),
            "least-loaded" => Ok(PolicyKind::LeastLoaded),
            other => Err(format!(
                "unknown policy {other:?}; one of: shape, round-robin, pin, least-loaded"
            )),
        }
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use super::Fleet;

    /// A fleet described by value, for table tests.
    pub struct Static {
        pub live: Vec<bool>,
        pub load: Vec<usize>,
    }

    impl Static {
        pub fn all_live(n: usize) -> Self {
            Static {
                live: vec![true; n],
                load: vec![0; n],
            }
        }
    }

    impl Fleet for Static {
        fn replicas(&self) -> usize {
            self.live.len()
        }
        fn eligible(&self, r: usize) -> bool {
            self.live[r]
        }
        fn in_flight(&self, r: usize) -> usize {
            self.load[r]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::Static;
    use super::*;

    #[test]
    fn counter_skips_ineligible_and_wraps() {
        let c = Counter::default();
        let mut fleet = Static::all_live(3);
        let picks: Vec<_> = (0..6).map(|_| c.next(&fleet).unwrap()).collect();
        assert_eq!(picks, vec![0, 1, 2, 0, 1, 2]);
        fleet.live[1] = false;
        let picks: Vec<_> = (0..4).map(|_| c.next(&fleet).unwrap()).collect();
        assert!(!picks.contains(&1));
        fleet.live = vec![false; 3];
        assert_eq!(c.next(&fleet), None);
    }

    #[test]
    fn policy_names_round_trip() {
        for k in [
            PolicyKind::Shape,
            PolicyKind::RoundRobin,
            PolicyKind::Pin,
            PolicyKind::LeastLoaded,
        ] {
            assert_eq!(k.as_str().parse::<PolicyKind>(), Ok(k));
            assert_eq!(k.build(8).kind(), k);
        }
        assert!("cache_aware"
            .parse::<PolicyKind>()
            .unwrap_err()
            .contains("shape"));
    }
}
