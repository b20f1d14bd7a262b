//! A fresh clone stands alone: no tracked file reads anything beside the repository (the tests,
//! benchmarks and fuzz scripts once read the fixtures from a sibling folder, and a clone with
//! nothing beside it failed). Every tracked text file is scanned for a path that climbs out of
//! the repository; the fixtures such a path named live in `fixtures/`, each folder with its
//! SOURCES.md.

use std::path::Path;
use std::process::Command;

#[test]
fn no_tracked_file_reads_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let listed = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(&root)
        .output()
        .expect("git ls-files runs in the repository");
    assert!(listed.status.success(), "git ls-files failed");
    // Spelled in pieces so that this file does not match itself.
    let sibling = ["..", "/shared/"].concat();
    let climb_from_crate = ["/..", "/..", "/../"].concat();
    let mut offenders = Vec::new();
    let mut scanned = 0;
    for name in listed.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let name = String::from_utf8_lossy(name).into_owned();
        let Ok(text) = std::fs::read_to_string(root.join(&name)) else {
            continue; // binary fixtures (gzip, GGUF)
        };
        scanned += 1;
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            // CARGO_MANIFEST_DIR is crates/<name>: three levels up is outside the repository.
            let climbs = line.contains("CARGO_MANIFEST_DIR")
                && lines[i..lines.len().min(i + 4)]
                    .iter()
                    .any(|l| l.contains(&climb_from_crate));
            if line.contains(&sibling) || climbs {
                offenders.push(format!("{name}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(scanned > 100, "only {scanned} tracked text files read");
    assert!(
        offenders.is_empty(),
        "tracked files read outside the repository:\n{}",
        offenders.join("\n")
    );
}
