//! The scenario suite: every built-in scenario, run in simulated time and diagnosed through the
//! engines parser and the diagnose crate, must give the answer its rules require.

use crate::common::{describe, diagnose_scenario};
use emulator::scenario::{all, Scenario};

fn check(s: &Scenario) -> Result<(), String> {
    let d = diagnose_scenario(s);
    let v = &d.verdict;
    let e = &s.expect;
    let fail = |why: String| Err(format!("{}: {why}\n{}", s.name, describe(&d)));
    let primary = v.primary.as_ref().map(|f| f.rule.as_str());
    if primary != e.primary {
        return fail(format!("primary {primary:?}, want {:?}", e.primary));
    }
    if let Some(want) = e.variant {
        let got = v.primary.as_ref().and_then(|f| f.variant.as_deref());
        if got != Some(want) {
            return fail(format!("variant {got:?}, want {want}"));
        }
    }
    for (rule, by) in e.silenced {
        if !v
            .silenced
            .iter()
            .any(|x| x.rule.as_str() == *rule && x.by.as_str() == *by)
        {
            return fail(format!("{rule} not silenced by {by}"));
        }
    }
    for rule in e.held {
        if !v.held.iter().any(|f| f.rule.as_str() == *rule) {
            return fail(format!("{rule} not held"));
        }
        if v.silenced.iter().any(|x| x.rule.as_str() == *rule) {
            return fail(format!("{rule} silenced, must be held"));
        }
    }
    for rule in e.never {
        if v.primary
            .iter()
            .chain(&v.held)
            .any(|f| f.rule.as_str() == *rule)
        {
            return fail(format!("{rule} fired and must not"));
        }
    }
    if e.primary.is_none() && (v.primary.is_some() || !v.held.is_empty()) {
        return fail("a rule fired on a healthy scenario".into());
    }
    if d.run.rejected > 0 {
        return fail(format!("{} requests refused at the door", d.run.rejected));
    }
    Ok(())
}

#[test]
fn every_scenario_gives_its_answer() {
    let only = std::env::var("SCENARIO").ok();
    let mut failures = Vec::new();
    // SCENARIO=name runs one; SCENARIO_SEED=n reruns with another seed (robustness checks).
    let seed: Option<u64> = std::env::var("SCENARIO_SEED")
        .ok()
        .and_then(|s| s.parse().ok());
    for mut s in all() {
        if only.as_deref().is_some_and(|o| o != s.name) {
            continue;
        }
        if let Some(seed) = seed {
            s.seed = seed;
        }
        let t = std::time::Instant::now();
        let r = check(&s);
        eprintln!(
            "{:24} {:>6.2}s {}",
            s.name,
            t.elapsed().as_secs_f64(),
            if r.is_ok() { "ok" } else { "FAILED" }
        );
        if let Err(e) = r {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}
