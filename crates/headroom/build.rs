//! Stamps the commit into `--version` (`headroom 0.1.0 (a1b2c3d 2026-12-03)`), so a bug report
//! names the build. Outside a git checkout (a crates.io tarball) the stamp says so.
use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    let stamp = match git(&["rev-parse", "--short=10", "HEAD"]) {
        Some(commit) => {
            // Uncommitted changes are not marked: telling them reliably would mean re-running
            // this script on every edit, and so relinking the binary on every build.
            let date = git(&["log", "-1", "--format=%cs"]).unwrap_or_default();
            format!("{commit} {date}").trim().to_string()
        }
        None => "not built from a git checkout".to_string(),
    };
    println!("cargo:rustc-env=HEADROOM_BUILD={stamp}");
    // Rebuild the stamp when HEAD moves: a commit, a checkout, a pack of the refs. Only files
    // that exist are watched: cargo counts a missing one as changed and would rerun this
    // script (and relink the binary) on every build.
    let mut watch = Vec::new();
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        watch.push(Path::new(&dir).join("HEAD"));
    }
    if let Some(common) = git(&["rev-parse", "--git-common-dir"]) {
        let common = Path::new(&common);
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watch.push(common.join(r));
        }
        watch.push(common.join("packed-refs"));
    }
    for p in watch.iter().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", p.display());
    }
    println!("cargo:rerun-if-changed=build.rs");
}
