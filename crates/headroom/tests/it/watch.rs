//! `headroom watch` in a real terminal (tmux, on its own socket) against the emulator's
//! kv-pressure scenario: the primary it shows is the one `diagnose --json` names for a window of
//! the same shape on the same server, resizing does not crash it, and `q` exits with status 0
//! and leaves the alternate screen (the terminal is restored).
//!
//! kv-pressure fires R2 in every sub-window of every window we took (KV mean 99 %, preemptions
//! ~2/s against thresholds of 90 % and > 0), so the two windows agree far beyond noise.

use diagnose::report::Report;

use crate::util::Headroom;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A tmux server of our own, killed when the test ends.
struct Tmux(String);

impl Tmux {
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.0])
            .args(args)
            .output()
            .expect("run tmux")
    }
    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "w"]).stdout).into_owned()
    }
    /// Waits until the screen holds `what`.
    fn wait_for(&self, what: &str, secs: u64) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let s = self.screen();
            if s.contains(what) {
                return s;
            }
            assert!(Instant::now() < deadline, "no {what:?} on screen:\n{s}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

fn have_tmux() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var("HEADROOM_REQUIRE_PEERS").as_deref() == Ok("1") {
            panic!("tmux is not installed");
        }
        eprintln!("SKIPPED: tmux is not installed");
    }
    ok
}

#[test]
fn watch_shows_the_primary_survives_resizing_and_quits_cleanly() {
    if !have_tmux() {
        return;
    }
    let emu = crate::util::EmulateProc::driven("kv-pressure", "20", "180s", &[]);
    let url = emu.url.clone();
    // Warm-up: a minute of simulated time (3 s at 20×).
    std::thread::sleep(Duration::from_secs(4));
    let shape = [
        "--gpu",
        "H100-SXM",
        "--model",
        "llama-3.1-8b",
        "--duration",
        "3s",
        "--interval",
        "100ms",
    ];
    let doc: Report = Headroom::cmd(&["diagnose", "--url", &url, "--json", "--quiet"])
        .args(shape)
        .json();
    let primary = doc.primary.expect("kv-pressure has a primary");
    let rule = primary.rule.as_str().to_string();
    let title = primary.title.clone();

    let t = Tmux(format!("headroom-watch-{}", std::process::id()));
    // tmux runs it through a shell: the same command, as its line.
    let cmd = format!(
        "{}; echo WATCH-EXIT=$?; sleep 60",
        Headroom::cmd(&["watch", "--url", &url])
            .args(shape)
            .args(["--sub-windows", "3"])
            .command_line()
    );
    let o = t.run(&[
        "new-session",
        "-d",
        "-s",
        "w",
        "-x",
        "150",
        "-y",
        "45",
        &cmd,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = t.wait_for(&format!("Primary: {rule} {title}"), 60);
    assert!(s.contains("rules") && s.contains("tok/s"), "{s}");
    // Every rule has a row in the scoreboard.
    for r in ["R1 ", "R2 ", "R2b", "R3 ", "R4 ", "R5 ", "R6 ", "R7 "] {
        assert!(
            s.lines()
                .any(|l| l.trim_start_matches(['│', ' ']).starts_with(r)),
            "row {r}:\n{s}"
        );
    }
    // Small, tiny, and back: still running, still drawing.
    for (x, y) in [("60", "15"), ("20", "5"), ("150", "45")] {
        assert!(t
            .run(&["resize-window", "-t", "w", "-x", x, "-y", y])
            .status
            .success());
        std::thread::sleep(Duration::from_millis(800));
        assert!(
            !t.screen().contains("WATCH-EXIT"),
            "watch ended at {x}×{y}:\n{}",
            t.screen()
        );
    }
    // At 80x24 the primary's fix (its first flag) and the measured throughput are on screen.
    assert!(t
        .run(&["resize-window", "-t", "w", "-x", "80", "-y", "24"])
        .status
        .success());
    let first_flag = primary
        .fix
        .iter()
        .find_map(|f| f.flag.clone())
        .expect("R2's fix names a flag");
    let s = t.wait_for(&format!("fix: {first_flag}"), 20);
    let gen_line = s
        .lines()
        .find(|l| l.contains(" gen ") && l.contains("tok/s"))
        .unwrap_or_else(|| panic!("no throughput title at 80x24:\n{s}"));
    let figure = gen_line
        .split(" gen ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or("");
    assert!(
        figure.parse::<f64>().is_ok_and(|g| g > 0.0),
        "the live figure is a number at 80x24: {gen_line:?}\n{s}"
    );
    assert!(t
        .run(&["resize-window", "-t", "w", "-x", "150", "-y", "45"])
        .status
        .success());
    t.wait_for("Primary:", 20);
    assert!(t.run(&["send-keys", "-t", "w", "q"]).status.success());
    let s = t.wait_for("WATCH-EXIT=", 20);
    assert!(s.contains("WATCH-EXIT=0"), "{s}");
    // The alternate screen is gone: nothing of the view is left on the terminal.
    assert!(!s.contains("q quits") && !s.contains("Primary:"), "{s}");
}

/// Without a terminal (stdout a pipe, stdin not a tty, as under cron or CI) watch ends at once
/// with a clear error and exit 1, not a panic (101), and before it scrapes anything: the URL
/// here has nothing listening.
#[test]
fn watch_without_a_terminal_is_a_clear_error_not_a_panic() {
    let out = Headroom::cmd(&["watch", "--url", "http://127.0.0.1:9", "--duration", "10s"])
        .stdin_io(Stdio::null())
        .assert_exit(1);
    let err = &out.stderr;
    assert!(
        err.contains("terminal") && err.contains("headroom diagnose"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}
