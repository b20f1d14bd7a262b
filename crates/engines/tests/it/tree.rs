//! Checks over the workspace's source tree: the shape rules the code review would otherwise
//! have to remember.
//! - No import cycle between the top-level modules of any crate (a module and its children are
//!   one node; `crate::x` and, in a top-level file, `super::x` are its edges).
//! - No engine metric name as a string literal outside the engine modules
//!   (`crates/engines/src/engine/`): a rename must be one row there. Tests, comments and
//!   fixtures aside.

use engines::Engine;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A source file without its test module and its comments: what ships.
fn shipped(src: &str) -> String {
    let src = src.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = String::with_capacity(src.len());
    for line in src.lines() {
        // A `//` inside a string literal (a URL) would cut the line early; only the literal
        // scan below cares, and it scans what is left: good enough for names.
        let code = match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The names after `crate::` (`crate::x`, `crate::{x, y::z}`).
fn crate_refs(src: &str, out: &mut BTreeSet<String>) {
    let mut rest = src;
    while let Some(i) = rest.find("crate::") {
        // Not `headroom_crate::`; the character before must not be part of an identifier.
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.insert(name);
        }
    }
}

/// Each crate's top-level modules and the modules each refers to.
fn module_graph(src_dir: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for entry in std::fs::read_dir(src_dir).unwrap().flatten() {
        let p = entry.path();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            let mut fs = Vec::new();
            rust_files(&p, &mut fs);
            files.entry(name).or_default().extend(fs);
        } else if p.extension().is_some_and(|x| x == "rs") && name != "lib" && name != "main" {
            files.entry(name).or_default().push(p);
        }
    }
    let mut graph = BTreeMap::new();
    for (m, fs) in &files {
        let mut refs = BTreeSet::new();
        for f in fs {
            let s = shipped(&std::fs::read_to_string(f).unwrap());
            crate_refs(&s, &mut refs);
            // In the module's own top file, `super::x` is the crate root's `x`.
            let top = f.parent() == Some(src_dir) || f.ends_with(format!("{m}/mod.rs"));
            if top {
                for (i, _) in s.match_indices("super::") {
                    let name: String = s[i + 7..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    refs.insert(name);
                }
            }
        }
        refs.retain(|r| r != m && files.contains_key(r));
        graph.insert(m.clone(), refs);
    }
    graph
}

/// Every pair of modules that reach each other, as "a → … → b → … → a" paths.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(m) = stack.pop() {
            for n in &graph[&m] {
                if seen.insert(n.clone()) {
                    stack.push(n.clone());
                }
            }
        }
        seen
    };
    let mut out = Vec::new();
    for a in graph.keys() {
        for b in &graph[a] {
            if reach(b).contains(a) {
                out.push(format!("{a} → {b} and {b} reaches {a}"));
            }
        }
    }
    out
}

#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    let mut found = Vec::new();
    let mut crates = 0;
    for entry in std::fs::read_dir(crates_dir()).unwrap().flatten() {
        let src = entry.path().join("src");
        if !src.is_dir() {
            continue;
        }
        crates += 1;
        let name = entry.file_name().to_string_lossy().to_string();
        for c in cycles(&module_graph(&src)) {
            found.push(format!("{name}: {c}"));
        }
        // The binary's commands are modules of `cmd`: the same rule one level down.
        let cmd = src.join("cmd");
        if cmd.is_dir() {
            for c in cycles(&module_graph(&cmd)) {
                found.push(format!("{name}/cmd: {c}"));
            }
        }
    }
    assert!(crates > 10, "the walk found {crates} crates: wrong root?");
    assert!(found.is_empty(), "import cycles:\n{}", found.join("\n"));
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    g.insert("d".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(cycles(&g).len(), 3, "{:?}", cycles(&g));
    g.get_mut("c").unwrap().clear();
    assert!(cycles(&g).is_empty());
    let mut refs = BTreeSet::new();
    crate_refs(
        "use crate::{alpha, beta::x};\nlet y = crate::gamma::f();\nfoo_crate::delta",
        &mut refs,
    );
    assert_eq!(
        refs,
        BTreeSet::from(["alpha".into(), "beta".into(), "gamma".into()])
    );
}

/// The string literals of a source text (escapes kept as written).
fn literals(src: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // Character literals ('"') are not strings.
        if b[i] == b'\'' && i + 2 < b.len() && b[i + 2] == b'\'' {
            i += 3;
            continue;
        }
        if b[i] == b'"' {
            let start = i + 1;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            out.push(&src[start..i.min(src.len())]);
        }
        i += 1;
    }
    out
}

/// A metric name of `e` inside a literal: its prefix followed by a name character.
fn names_in(lit: &str, e: Engine) -> Vec<&str> {
    let p = e.prefix();
    lit.match_indices(p)
        .filter(|(i, _)| {
            let before = lit[..*i].chars().next_back();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
        .filter_map(|(i, _)| {
            let rest = &lit[i + p.len()..];
            let n = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .count();
            (n > 0).then(|| &lit[i..i + p.len() + n])
        })
        .collect()
}

#[test]
fn no_engine_metric_name_is_written_outside_its_engine_module() {
    let root = crates_dir();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        rust_files(&entry.path().join("src"), &mut files);
    }
    let engine_dir = root.join("engines/src/engine");
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !f.starts_with(&engine_dir)) {
        let s = shipped(&std::fs::read_to_string(f).unwrap());
        for lit in literals(&s) {
            for e in Engine::ALL {
                for n in names_in(lit, e) {
                    found.push(format!("{}: {n}", f.strip_prefix(&root).unwrap().display()));
                }
            }
        }
    }
    assert!(files.len() > 100, "{} files: wrong root?", files.len());
    assert!(
        found.is_empty(),
        "engine metric names outside crates/engines/src/engine/ (name them there and use the \
row or constant):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_literal_scan_sees_names_in_queries() {
    let s = r#"let q = format!("sum(rate(vllm:prompt_tokens_total[1m]))"); let t = 'x'; "tgi_queue_size" "not_tgi_x""#;
    let lits = literals(s);
    assert_eq!(
        names_in(lits[0], Engine::Vllm),
        ["vllm:prompt_tokens_total"]
    );
    assert_eq!(names_in(lits[1], Engine::Tgi), ["tgi_queue_size"]);
    assert!(names_in(lits[2], Engine::Tgi).is_empty());
}
