//! `pin`: every request with a key goes to the replica that served its prefix, new requests
//! included, so requests sharing their first N bytes all land on one replica. The other
//! baseline: it keeps every cache hit and loses a card (16 requests: 30.1 s pinned
//! vs 18.6 s spread).
use super::{Counter, Decision, Fleet, Policy, PolicyKind, Route};
use crate::affinity::Affinity;
use crate::key::RequestFacts;

#[derive(Debug)]
pub struct Pin {
    affinity: Affinity,
    counter: Counter,
}

impl Pin {
    pub fn new(affinity_entries: usize) -> Self {
        Pin {
            affinity: Affinity::new(affinity_entries),
            counter: Counter::default(),
        }
    }
}

impl Policy for Pin {
    fn kind(&self) -> PolicyKind {
        PolicyKind::Pin
    }

    fn choose(&self, req: &RequestFacts, fleet: &dyn Fleet) -> Option<Decision> {
        let keys = req.whole.iter().chain(req.history.iter());
        if let Some(replica) = self.affinity.lookup(keys, fleet) {
            return Some(Decision {
                replica,
                route: Route::Pinned,
            });
        }
        self.counter.next(fleet).map(|replica| Decision {
            replica,
            route: Route::Spread,
        })
    }

    fn served(&self, req: &RequestFacts, replica: usize) {
        if let Some(key) = req.whole {
            self.affinity.record(key, replica);
        }
    }

    fn demoted(&self, replica: usize, fleet: &dyn Fleet) -> usize {
        self.affinity.repin(replica, &self.counter, fleet)
    }

    fn pinned_conversations(&self) -> usize {
        self.affinity.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::facts;
    use crate::policy::testing::Static;
    use serde_json::json;

    #[test]
    fn shared_prefix_pins_everything_to_one_replica() {
        let p = Pin::new(64);
        let fleet = Static::all_live(2);
        let system = "S".repeat(8192);
        let picks: Vec<Decision> = (0..16)
            .map(|i| {
                let b = json!({"model": "m", "messages": [
                    {"role": "system", "content": system}, {"role": "user", "content": format!("q{i}")}]});
                let req = facts(&serde_json::to_vec(&b).unwrap(), 4096);
                let d = p.choose(&req, &fleet).unwrap();
                p.served(&req, d.replica);
                d
            })
            .collect();
        assert_eq!(picks[0].route, Route::Spread);
        assert!(picks[1..]
            .iter()
            .all(|d| d.route == Route::Pinned && d.replica == picks[0].replica));
    }
}
