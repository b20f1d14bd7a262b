//! What a user installing the tool gets: the version names its commit, completions and man
//! pages cover every command (they come from the same clap definitions as `--help`).

use crate::util::headroom;
use std::process::Command;

/// The subcommands `headroom --help` lists, read from its "Commands:" block.
fn subcommands() -> Vec<String> {
    let (code, out, _) = headroom(&["--help"]);
    assert_eq!(code, 0);
    let block = out
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands: block in --help");
    let names: Vec<String> = block
        .lines()
        .take_while(|l| !l.trim().is_empty())
        // A name sits two spaces in; a wrapped description line sits deeper.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect();
    assert!(names.len() >= 20, "{names:?}");
    names
}

#[test]
fn version_names_the_commit_it_was_built_from() {
    let (code, out, _) = headroom(&["--version"]);
    assert_eq!(code, 0);
    let git = Command::new("git")
        .args(["rev-parse", "--short=10", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    match git {
        Ok(g) if g.status.success() => {
            let commit = String::from_utf8_lossy(&g.stdout).trim().to_string();
            assert!(
                out.starts_with(&format!(
                    "headroom {} ({commit} ",
                    env!("CARGO_PKG_VERSION")
                )),
                "{out:?} should name {commit}"
            );
        }
        // A source tarball: the stamp says so rather than naming a commit.
        _ => assert!(out.contains("not built from a git checkout"), "{out:?}"),
    }
}

#[test]
fn completions_cover_every_command_and_parse() {
    let commands = subcommands();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let (code, script, err) = headroom(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        for c in &commands {
            assert!(script.contains(c.as_str()), "{shell} completion lacks {c}");
        }
    }
    // bash is everywhere: the script must at least parse and register the function.
    let (_, script, _) = headroom(&["completions", "bash"]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("headroom.bash");
    std::fs::write(&file, script).unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("source {} && complete -p headroom", file.display()))
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("_headroom headroom"));

    let (code, _, err) = headroom(&["completions", "tcsh"]);
    assert_eq!(code, 1, "an unknown shell is a usage error");
    assert!(err.contains("possible values"), "{err}");
}

#[test]
fn man_pages_one_per_command_each_with_its_options() {
    let (code, page, _) = headroom(&["man"]);
    assert_eq!(code, 0);
    assert!(
        page.contains(".TH headroom 1"),
        "{}",
        &page[..page.len().min(300)]
    );

    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = headroom(&["man", "--dir", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for c in subcommands() {
        let path = dir.path().join(format!("headroom-{c}.1"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(text.contains(&format!(".TH headroom-{c} 1")), "{c}");
        assert!(text.contains(".SH OPTIONS"), "{c} page lists no options");
    }
    // Nested commands get their own page too, named as `man headroom-probe-depth` finds it.
    let depth = std::fs::read_to_string(dir.path().join("headroom-probe-depth.1")).unwrap();
    assert!(
        depth.contains("\\-\\-depths"),
        "probe depth's page lacks --depths"
    );
}
