//! `least-loaded`: the eligible replica with the fewest requests in flight through this router;
//! ties go round the counter so that an idle fleet still spreads.
use super::{Counter, Decision, Fleet, Policy, PolicyKind, Route};
use crate::key::RequestFacts;

#[derive(Debug, Default)]
pub struct LeastLoaded {
    counter: Counter,
}

impl Policy for LeastLoaded {
    fn kind(&self) -> PolicyKind {
        PolicyKind::LeastLoaded
    }

    fn choose(&self, _req: &RequestFacts, fleet: &dyn Fleet) -> Option<Decision> {
        let start = self.counter.next(fleet)?;
        let n = fleet.replicas();
        (0..n)
            .map(|i| (start + i) % n)
            .filter(|r| fleet.eligible(*r))
            .min_by_key(|r| fleet.in_flight(*r))
            .map(|replica| Decision {
                replica,
                route: Route::Spread,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testing::Static;

    #[test]
    fn table() {
        // (live, in flight, allowed answers)
        let cases: &[(&[bool], &[usize], &[usize])] = &[
            (&[true, true, true], &[3, 1, 2], &[1]),
            (&[true, false, true], &[3, 0, 2], &[2]),
            (&[true, true], &[1, 1], &[0, 1]),
            (&[true], &[9], &[0]),
        ];
        for (live, load, allowed) in cases {
            let p = LeastLoaded::default();
            let fleet = Static {
                live: live.to_vec(),
                load: load.to_vec(),
            };
            let d = p.choose(&RequestFacts::default(), &fleet).unwrap();
            assert!(
                allowed.contains(&d.replica),
                "{live:?} {load:?} -> {}",
                d.replica
            );
            assert_eq!(d.route, Route::Spread);
        }
        let none = Static {
            live: vec![false, false],
            load: vec![0, 0],
        };
        assert_eq!(
            LeastLoaded::default().choose(&RequestFacts::default(), &none),
            None
        );
    }

    #[test]
    fn ties_rotate() {
        let p = LeastLoaded::default();
        let fleet = Static::all_live(3);
        let picks: Vec<_> = (0..3)
            .map(|_| p.choose(&RequestFacts::default(), &fleet).unwrap().replica)
            .collect();
        assert_eq!(picks, vec![0, 1, 2]);
    }
}
