//! The scenario suite through the binary: `headroom emulate --scenario NAME --drive` serves each
//! built-in scenario on loopback, `headroom diagnose` judges it over HTTP exactly as it judges a
//! real vLLM, and the verdict must be the one its rules require. Then `headroom demo` end to end.

use std::time::{Duration, Instant};

use diagnose::report::{Fired, Report};
use diagnose::RuleId;
use emulator::demo::{Demo, FixKind, LoadReport};
use emulator::scenario::{all, Scenario};

use crate::util::{EmulateProc as Emulator, Headroom};

/// `emulate` and `demo` are subcommands of the binary once main.rs registers them. Until then
/// these tests cannot run: they fail under HEADROOM_REQUIRE_PEERS=1 (CI) and say so loudly
/// otherwise.
fn registered() -> bool {
    let ok = ["emulate", "demo"]
        .iter()
        .all(|c| Headroom::cmd(&[c, "--help"]).run().success());
    if !ok {
        if std::env::var("HEADROOM_REQUIRE_PEERS").as_deref() == Ok("1") {
            panic!("`headroom emulate` / `headroom demo` are not registered in main.rs");
        }
        eprintln!("SKIPPED: `headroom emulate` / `headroom demo` not registered in main.rs yet");
    }
    ok
}

const SPEED: f64 = 50.0;

fn emulate(s: &Scenario) -> Emulator {
    let life = (s.warmup_s + s.window_s) / SPEED + 60.0;
    let e = Emulator::driven(s.name, &SPEED.to_string(), &format!("{life:.0}s"), &[]);
    assert_eq!(e.doc.schema, emulator::doc::SCHEMA, "{}", s.name);
    assert!(e.doc.simulated, "{}", s.name);
    e
}

/// `GET path` with a plain HTTP/1.1 request, the body deserialized.
fn get_json<T: serde::de::DeserializeOwned>(url: &str, path: &str) -> Option<T> {
    use std::io::{Read, Write};
    let host = url.strip_prefix("http://")?;
    let mut c = std::net::TcpStream::connect(host).ok()?;
    c.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        c,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut buf = String::new();
    c.read_to_string(&mut buf).ok()?;
    serde_json::from_str(buf.split_once("\r\n\r\n")?.1).ok()
}

/// Waits until the emulator's simulated clock has run the scenario's warm-up (slower than
/// wall time × speed when the machine is loaded).
fn wait_for_warmup(s: &Scenario, e: &Emulator) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let t =
            get_json::<emulator::doc::EmulatorState>(&e.url, "/emulator").map(|c| c.sim_seconds);
        if t.is_some_and(|t| t >= s.warmup_s) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{}: warm-up never ended ({t:?})",
            s.name
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn diagnose(s: &Scenario, e: &Emulator) -> Report {
    diagnose_with(s, e, true)
}

/// `flags`: pass `--gpu`, `--model` and `--engine-args`; without them diagnose has only what
/// the server says about itself.
fn diagnose_with(s: &Scenario, e: &Emulator, flags: bool) -> Report {
    let mut cmd = Headroom::cmd(&["diagnose", "--url", &e.url]);
    if flags {
        cmd.args(["--gpu", s.gpu, "--model", s.model])
            .args(["--engine-args", &e.doc.command_line]);
    }
    let out = cmd
        .args(["--json", "--quiet"])
        .args([
            "--duration",
            &format!("{}ms", (s.window_s / SPEED * 1000.0) as u64),
        ])
        .args([
            "--interval",
            &format!("{}ms", (s.interval_s / SPEED * 1000.0) as u64),
        ])
        .run();
    assert!(out.success(), "{}: diagnose failed: {}", s.name, out.stderr);
    serde_json::from_slice(&out.stdout_bytes)
        .expect("diagnose --json prints a headroom.diagnose/1 document")
}

/// The rule names of fired (or held, or unjudged) rules, as the scenarios spell them.
fn rules<'a>(list: impl IntoIterator<Item = &'a RuleId>) -> Vec<&'static str> {
    list.into_iter().map(|r| r.as_str()).collect()
}

fn primary(d: &Report) -> Option<&'static str> {
    d.primary_rule().map(RuleId::as_str)
}

fn check(s: &Scenario, d: &Report) -> Result<(), String> {
    let e = &s.expect;
    let primary = primary(d);
    let held = rules(d.held.iter().map(|f: &Fired| &f.rule));
    let silenced: Vec<(&str, &str)> = d
        .silenced
        .iter()
        .map(|x| (x.rule.as_str(), x.by.as_str()))
        .collect();
    let fail = |why: String| {
        Err(format!(
            "{}: {why}\n  primary {primary:?} held {held:?} silenced {silenced:?}\n  quiet {:?}\n  requests {:?} kv {:?} throughput {:?}",
            s.name, d.quiet, d.requests, d.kv, d.throughput
        ))
    };
    if primary != e.primary {
        return fail(format!("primary {primary:?}, want {:?}", e.primary));
    }
    if let Some(v) = e.variant {
        let variant = d.primary.as_ref().and_then(|p| p.variant.as_deref());
        if variant != Some(v) {
            return fail(format!("variant {variant:?}, want {v}"));
        }
    }
    for (rule, by) in e.silenced {
        if !silenced.iter().any(|(r, b)| r == rule && b == by) {
            return fail(format!("{rule} not silenced by {by}"));
        }
    }
    for rule in e.held {
        if !held.iter().any(|h| h == rule) {
            return fail(format!("{rule} not held"));
        }
    }
    for rule in e.never {
        if primary == Some(*rule) || held.iter().any(|h| h == rule) {
            return fail(format!("{rule} fired and must not"));
        }
    }
    Ok(())
}

#[test]
fn every_scenario_through_emulate_and_diagnose() {
    if !registered() {
        return;
    }
    let only = std::env::var("SCENARIO").ok();
    let mut failures = Vec::new();
    let started = Instant::now();
    for s in all() {
        if only.as_deref().is_some_and(|o| o != s.name) {
            continue;
        }
        let t = Instant::now();
        let e = emulate(&s);
        wait_for_warmup(&s, &e);
        let d = diagnose(&s, &e);
        drop(e);
        let r = check(&s, &d);
        eprintln!(
            "{:24} {:>5.1}s {}",
            s.name,
            t.elapsed().as_secs_f64(),
            if r.is_ok() { "ok" } else { "FAILED" }
        );
        if let Err(m) = r {
            failures.push(m);
        }
    }
    eprintln!("suite: {:.1}s", started.elapsed().as_secs_f64());
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// Issue 15: with no flags at all, no wrong primary. Each scenario's verdict is the right rule,
/// or no primary with an `unjudged` entry naming the right rule (a healthy server: nothing).
/// diagnose reads what the server says about itself: its metrics, its endpoints, and (the
/// emulator runs on this host) its process's command line, which `headroom emulate` stands
/// for as the vLLM line of its flags.
#[test]
fn every_scenario_without_flags_names_no_wrong_primary() {
    if !registered() {
        return;
    }
    let only = std::env::var("SCENARIO").ok();
    let mut failures = Vec::new();
    for s in all() {
        if only.as_deref().is_some_and(|o| o != s.name) {
            continue;
        }
        let e = emulate(&s);
        wait_for_warmup(&s, &e);
        let d = diagnose_with(&s, &e, false);
        drop(e);
        let primary = primary(&d);
        let unjudged = rules(d.unjudged.iter().map(|u| &u.rule));
        let ok = primary == s.expect.primary
            || (primary.is_none()
                && s.expect
                    .primary
                    .is_some_and(|want| unjudged.contains(&want)));
        eprintln!(
            "{:24} primary {primary:?} unjudged {unjudged:?} want {:?}: {}",
            s.name,
            s.expect.primary,
            if ok { "ok" } else { "WRONG" }
        );
        if !ok {
            failures.push(format!(
                "{}: primary {primary:?} unjudged {unjudged:?} held {:?}, want {:?}\n  quiet {:?}",
                s.name,
                rules(d.held.iter().map(|f| &f.rule)),
                s.expect.primary,
                d.quiet
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

fn demo(scenario: &str) -> (Demo, f64) {
    let t = Instant::now();
    let out = Headroom::cmd(&["demo", "--scenario", scenario, "--json", "--quiet"]).run();
    assert!(out.success(), "demo {scenario} failed: {}", out.stderr);
    (
        serde_json::from_slice(&out.stdout_bytes)
            .expect("demo --json prints a headroom.demo/1 document"),
        t.elapsed().as_secs_f64(),
    )
}

#[test]
fn demo_fixes_kv_pressure_and_remeasures() {
    if !registered() {
        return;
    }
    let (v, wall) = demo("kv-pressure");
    assert_eq!(v.schema, emulator::demo::SCHEMA);
    assert_eq!(v.scenario.name, "kv-pressure");
    assert_eq!(v.before.schema, diagnose::report::SCHEMA);
    assert_eq!(v.before.primary_rule(), Some(RuleId::R2));
    // Replayed inside the engine: its own counts, nothing refused.
    match v.load.before {
        LoadReport::Engine { sent, refused } => {
            assert!(sent > 100, "{sent}");
            assert_eq!(refused, 0);
        }
        other => panic!("the engine drives the load by default, got {other:?}"),
    }
    let fix = &v.applied_fix;
    assert_eq!(fix.kind, FixKind::Flag);
    assert_eq!(fix.flag.as_deref(), Some("--enable-prefix-caching"));
    assert!(fix
        .command_line_after
        .as_deref()
        .unwrap()
        .ends_with("--enable-prefix-caching"));
    let after = v.after.as_ref().expect("a re-measure");
    assert_eq!(after.schema, diagnose::report::SCHEMA);
    assert_ne!(
        after.primary_rule(),
        Some(RuleId::R2),
        "the fix did not clear R2"
    );
    let kv = |d: &Report| d.kv.usage.as_ref().unwrap().mean;
    assert!(kv(after) < kv(&v.before), "KV usage did not fall");
    eprintln!("demo took {wall:.0} s");
}

/// Issue 14: the first step of R1's prescription (4 → 16 clients) tripled throughput and R1
/// still fired; the demo stopped there. It now takes the next step of the same prescription
/// until the primary clears or the steps run out, and shows the chain. Measured (emulator, one
/// run): R1 at 2901, 8677 tok/s after 4 → 16 and 16 → 64 clients, cleared at 17226 after 64 →
/// 256: each step ≥ 2× the one before, far beyond the emulator's run-to-run spread.
#[test]
fn demo_takes_the_next_step_until_under_batching_clears() {
    if !registered() {
        return;
    }
    let (v, wall) = demo("under-batching");
    eprintln!("demo took {wall:.0} s");
    assert_eq!(v.before.primary_rule(), Some(RuleId::R1));
    assert!(v.chain.len() >= 2, "{:#?}", v.chain);
    let last = v.chain.last().unwrap();
    assert_ne!(
        last.primary,
        Some(RuleId::R1),
        "the chain ended uncleared: {:#?}",
        v.chain
    );
    for (k, c) in v.chain.iter().enumerate() {
        assert_eq!(c.step, k + 1);
        assert_eq!(c.fix.kind, FixKind::Load, "{c:?}");
        assert!(
            c.fix
                .value
                .as_deref()
                .is_some_and(|x| x.ends_with("concurrent clients")),
            "{c:?}"
        );
        // Every step but the last left R1 standing: that is why the next was taken.
        if k + 1 < v.chain.len() {
            assert_eq!(c.primary, Some(RuleId::R1), "{c:?}");
        }
    }
    let gen: Vec<f64> = v
        .chain
        .iter()
        .map(|c| c.generation_tokens_per_s.expect("measured"))
        .collect();
    assert!(gen.windows(2).all(|w| w[1] > 1.5 * w[0]), "{gen:?}");
    assert_eq!(
        v.after.as_ref().and_then(|a| a.primary_rule()),
        last.primary
    );
}

#[test]
fn demo_raises_max_num_seqs_on_saturation() {
    if !registered() {
        return;
    }
    let (v, wall) = demo("concurrency-saturation");
    assert_eq!(v.before.primary_rule(), Some(RuleId::R5));
    assert_eq!(v.applied_fix.flag.as_deref(), Some("--max-num-seqs"));
    let seats: u32 = v.applied_fix.value.as_deref().unwrap().parse().unwrap();
    assert!(seats > 32, "{seats}");
    let after = v.after.as_ref().expect("a re-measure");
    assert_ne!(after.primary_rule(), Some(RuleId::R5));
    let waiting = |d: &Report| d.requests.waiting.as_ref().unwrap().mean;
    assert!(waiting(after) < waiting(&v.before));
    eprintln!("demo took {wall:.0} s");
}

#[test]
fn demo_lists_and_refuses_unknown_scenarios() {
    if !registered() {
        return;
    }
    let out = Headroom::cmd(&["demo", "--list"]).run();
    assert!(out.success());
    let text = &out.stdout;
    for name in [
        "healthy",
        "kv-pressure",
        "admission-backlog",
        "weights-dont-fit",
    ] {
        assert!(text.contains(name), "{name} not listed");
    }
    let out = Headroom::cmd(&["demo", "--scenario", "no-such-thing"]).assert_fails();
    let err = &out.stderr;
    assert!(
        err.contains("no scenario 'no-such-thing'") && err.contains("kv-pressure"),
        "{err}"
    );
    let out = Headroom::cmd(&["emulate", "--gpu", "H100-SMX", "--port", "0"]).assert_fails();
    assert!(out.stderr.contains("H100-SMX"));
}
