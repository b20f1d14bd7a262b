//! `shape` (the default): route by request shape. A request carrying more than one
//! message is a continuation: it goes to the replica that served its prefix. Anything else, and
//! a continuation whose conversation the table does not hold, is spread with a counter, not a
//! prefix hash, so that new conversations sharing a system prompt still use every card.
use super::{Counter, Decision, Fleet, Policy, PolicyKind, Route};
use crate::affinity::Affinity;
use crate::key::RequestFacts;

#[derive(Debug)]
pub struct Shape {
    affinity: Affinity,
    counter: Counter,
}

impl Shape {
    pub fn new(affinity_entries: usize) -> Self {
        Shape {
            affinity: Affinity::new(affinity_entries),
            counter: Counter::default(),
        }
    }
}

impl Policy for Shape {
    fn kind(&self) -> PolicyKind {
        PolicyKind::Shape
    }

    fn choose(&self, req: &RequestFacts, fleet: &dyn Fleet) -> Option<Decision> {
        if req.is_continuation() {
            if let Some(replica) = self.affinity.lookup(&req.history, fleet) {
                return Some(Decision {
                    replica,
                    route: Route::Pinned,
                });
            }
        }
        self.counter.next(fleet).map(|replica| Decision {
            replica,
            route: Route::Spread,
        })
    }

    fn served(&self, req: &RequestFacts, replica: usize) {
        // New requests are recorded too: their second turn is the first continuation.
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
    //! The test shape: the routing function driven directly with synthetic bodies.
    use super::*;
    use crate::key::facts;
    use crate::policy::testing::Static;
    use serde_json::{json, Value};

    const N: usize = 4096;

    /// Sends one request through the policy as the proxy would: choose, then record.
    fn route(p: &Shape, fleet: &Static, body: &Value) -> Decision {
        let req = facts(&serde_json::to_vec(body).unwrap(), N);
        let d = p.choose(&req, fleet).expect("a live replica");
        p.served(&req, d.replica);
        d
    }

    fn body(messages: &[Value]) -> Value {
        json!({"model": "smollm2", "stream": true, "max_tokens": 8, "messages": messages})
    }

    /// A conversation of `turns` turns opening with `opening`; returns each turn's decision.
    fn converse(
        p: &Shape,
        fleet: &Static,
        opening: Vec<Value>,
        turns: usize,
        tag: &str,
    ) -> Vec<Decision> {
        let mut msgs = opening;
        let mut out = vec![route(p, fleet, &body(&msgs))];
        for t in 1..turns {
            msgs.push(json!({"role": "assistant", "content": format!("{tag} reply {t}")}));
            msgs.push(json!({"role": "user", "content": format!("{tag} follow-up {t}")}));
            out.push(route(p, fleet, &body(&msgs)));
        }
        out
    }

    fn assert_pinned(turns: &[Decision], label: &str) {
        assert_eq!(
            turns[0].route,
            Route::Spread,
            "{label}: the opening turn is spread"
        );
        for (k, d) in turns.iter().enumerate().skip(1) {
            assert_eq!(d.route, Route::Pinned, "{label}: turn {k} pinned");
            assert_eq!(
                d.replica, turns[0].replica,
                "{label}: turn {k} on the opening turn's replica"
            );
        }
    }

    /// The three cases of the brief: a few words, a system prompt longer than N, and a
    /// tool-call / multimodal content array. Conversations interleave, so a key that confused
    /// them would show.
    #[test]
    fn turn_k_plus_1_finds_turn_k() {
        let long_system = format!(
            "You review Rust code. {}",
            "Rules: be precise. ".repeat(300)
        );
        assert!(long_system.len() > N);
        let cases: Vec<(&str, Vec<Value>)> = vec![
            (
                "a few words",
                vec![json!({"role": "user", "content": "hi"})],
            ),
            (
                "long system prompt",
                vec![
                    json!({"role": "system", "content": long_system}),
                    json!({"role": "user", "content": "review this"}),
                ],
            ),
            (
                "tool call and image",
                vec![
                    json!({"role": "user", "content": [
                        {"type": "text", "text": "what is here?"},
                        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
                    ]}),
                    json!({"role": "assistant", "content": null, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "zoom", "arguments": "{\"x\":1}"}}]}),
                    json!({"role": "tool", "tool_call_id": "c1", "content": "a cat on a mat"}),
                ],
            ),
        ];
        for fleet_size in [2, 3] {
            let p = Shape::new(1024);
            let fleet = Static::all_live(fleet_size);
            // Interleave: every conversation's turn t before any turn t+1.
            let mut all: Vec<Vec<Decision>> = vec![Vec::new(); cases.len()];
            let mut msgs: Vec<Vec<Value>> = cases.iter().map(|c| c.1.clone()).collect();
            for t in 0..4 {
                for (i, (label, _)) in cases.iter().enumerate() {
                    if t > 0 {
                        msgs[i].push(
                            json!({"role": "assistant", "content": format!("{label} reply {t}")}),
                        );
                        msgs[i]
                            .push(json!({"role": "user", "content": format!("{label} next {t}")}));
                    }
                    all[i].push(route(&p, &fleet, &body(&msgs[i])));
                }
            }
            for (i, (label, _)) in cases.iter().enumerate() {
                // The tool case opens with 3 messages: a continuation nobody served yet: spread.
                assert_pinned(&all[i], label);
            }
        }
    }

    #[test]
    fn new_conversations_spread_even_with_a_shared_system_prompt() {
        let p = Shape::new(1024);
        let fleet = Static::all_live(2);
        let system = "S".repeat(2 * N);
        let firsts: Vec<usize> = (0..6)
            .map(|i| {
                route(
                    &p,
                    &fleet,
                    &body(&[
                        json!({"role": "system", "content": system}),
                        json!({"role": "user", "content": format!("question {i}")}),
                    ]),
                )
                .replica
            })
            .collect();
        assert_eq!(firsts, vec![0, 1, 0, 1, 0, 1]);
        let singles: Vec<Decision> = (0..4)
            .map(|i| {
                route(
                    &p,
                    &fleet,
                    &body(&[json!({"role": "user", "content": format!("q{i}")})]),
                )
            })
            .collect();
        assert!(singles.iter().all(|d| d.route == Route::Spread));
        assert_eq!(singles.iter().filter(|d| d.replica == 0).count(), 2);
    }

    #[test]
    fn demotion_repins_and_the_conversation_stays_on_its_new_replica() {
        let p = Shape::new(1024);
        let mut fleet = Static::all_live(3);
        let turns = converse(
            &p,
            &fleet,
            vec![json!({"role": "user", "content": "hello"})],
            2,
            "a",
        );
        let home = turns[0].replica;
        fleet.live[home] = false;
        assert_eq!(p.demoted(home, &fleet), 2, "both turns' keys moved");
        let mut msgs = vec![
            json!({"role": "user", "content": "hello"}),
            json!({"role": "assistant", "content": "a reply 1"}),
            json!({"role": "user", "content": "a follow-up 1"}),
            json!({"role": "assistant", "content": "x"}),
            json!({"role": "user", "content": "y"}),
        ];
        let moved = route(&p, &fleet, &body(&msgs));
        assert_eq!(moved.route, Route::Pinned, "re-pinned, not spread");
        assert_ne!(moved.replica, home);
        fleet.live[home] = true; // it comes back: the conversation's cache is elsewhere now
        msgs.push(json!({"role": "assistant", "content": "z"}));
        msgs.push(json!({"role": "user", "content": "w"}));
        let after = route(&p, &fleet, &body(&msgs));
        assert_eq!((after.replica, after.route), (moved.replica, Route::Pinned));
    }

    #[test]
    fn a_pin_to_an_ineligible_replica_is_not_used() {
        let p = Shape::new(16);
        let mut fleet = Static::all_live(2);
        let first = route(
            &p,
            &fleet,
            &body(&[json!({"role": "user", "content": "a"})]),
        );
        fleet.live[first.replica] = false; // failed this request, not yet re-pinned
        let next = route(
            &p,
            &fleet,
            &body(&[
                json!({"role": "user", "content": "a"}),
                json!({"role": "assistant", "content": "b"}),
                json!({"role": "user", "content": "c"}),
            ]),
        );
        assert_eq!(next.route, Route::Spread);
        assert_ne!(next.replica, first.replica);
        let none = Static {
            live: vec![false, false],
            load: vec![0, 0],
        };
        assert_eq!(p.choose(&RequestFacts::default(), &none), None);
    }

    #[test]
    fn table_is_bounded() {
        let p = Shape::new(8);
        let fleet = Static::all_live(2);
        for i in 0..100 {
            route(
                &p,
                &fleet,
                &body(&[json!({"role": "user", "content": format!("c{i}")})]),
            );
        }
        assert_eq!(p.pinned_conversations(), 8);
    }
}
