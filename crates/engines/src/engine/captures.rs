//! Every metric name a definition holds is checked against what real servers exposed: the
//! committed captures (`fixtures/**/*.prom`, each from a server or a public page, named in the
//! folder's SOURCES.md) and, for versions no capture covers, the families an engine's own source
//! registers at a tagged release (`fixtures/**/families*.txt`, one family per line, extracted as
//! that folder's SOURCES.md says). A rename is one name in one row; a name no capture and no
//! source list has (a typo, a guessed name) fails here.

use super::*;
use crate::series::Kind;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The sample names a capture carries and the families a source list names, each with the file
/// it came from.
fn seen() -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    walk(&fixtures(), &mut files);
    let mut seen = Vec::new();
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let text = if name.ends_with(".prom")
            || (name.starts_with("families") && name.ends_with(".txt"))
        {
            std::fs::read_to_string(&f).unwrap()
        } else {
            continue;
        };
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let end = line.find(['{', ' ']).unwrap_or(line.len());
            seen.push((line[..end].to_string(), f.clone()));
        }
    }
    seen
}

/// Whether a row's name is among `names`, as its kind is exposed (a counter with or without
/// `_total`, a histogram or summary by its series, or a source list's bare family).
fn exposed(name: &str, kind: Kind, names: &BTreeSet<&str>) -> bool {
    let suffixes: &[&str] = match kind {
        Kind::Gauge => &[""],
        Kind::Counter => &["", "_total"],
        Kind::Histogram => &["", "_bucket", "_count", "_sum"],
    };
    suffixes
        .iter()
        .any(|s| names.contains(format!("{name}{s}").as_str()))
}

/// Names no released engine exports: the step ledger headroom's emulator writes under vLLM's
/// prefix (crates/emulator), read for any engine that adopts the names. Each must still be in a
/// definition and absent from every capture (else it belongs to the walk above).
const EMULATOR_ONLY: &[&str] = &[
    "vllm:engine_steps",
    "vllm:engine_steps_decode",
    "vllm:engine_step_seconds",
    "vllm:engine_step_seconds_decode",
    "vllm:engine_prefill_chunks",
];

#[test]
fn every_name_a_definition_holds_was_exposed_by_a_real_server_or_its_source() {
    let seen = seen();
    let mut missing = Vec::new();
    for e in Engine::ALL {
        let d = e.def();
        let names: BTreeSet<&str> = seen
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| n.starts_with(d.prefix))
            .collect();
        assert!(
            !names.is_empty(),
            "{e}: no capture and no source list under fixtures/ (an engine needs one)"
        );
        for row in d.series {
            for n in row.names {
                if EMULATOR_ONLY.contains(n) {
                    assert!(
                        !exposed(n, row.kind, &names),
                        "{n}: captured; drop it from EMULATOR_ONLY"
                    );
                    continue;
                }
                if !exposed(n, row.kind, &names) {
                    missing.push(format!("{e}: {n} ({})", row.field));
                }
            }
        }
    }
    for n in EMULATOR_ONLY {
        assert!(
            Engine::ALL
                .iter()
                .any(|e| e.def().series.iter().any(|r| r.names.contains(n))),
            "{n}: in EMULATOR_ONLY but in no definition"
        );
    }
    assert!(
        missing.is_empty(),
        "names in a definition that no capture or source list has:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_walk_sees_a_counter_by_its_total_and_a_histogram_by_its_series() {
    let names: BTreeSet<&str> = ["a_total", "h_bucket", "g"].into_iter().collect();
    assert!(exposed("a", Kind::Counter, &names));
    assert!(exposed("h", Kind::Histogram, &names));
    assert!(exposed("g", Kind::Gauge, &names));
    assert!(!exposed("g2", Kind::Gauge, &names));
    assert!(
        !exposed("a", Kind::Gauge, &names),
        "a gauge is not read by a counter's name"
    );
}
