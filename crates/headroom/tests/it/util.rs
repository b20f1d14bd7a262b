//! What every module of this test binary shares: the binary under test and how to run it.

use std::process::{Command, Output};

/// The headroom binary built for these tests.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_headroom")
}

/// Runs headroom with `args`: (exit code, stdout, stderr); -1 when killed by a signal.
pub fn headroom(args: &[&str]) -> (i32, String, String) {
    let out = headroom_output(args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs headroom with `args` and returns its whole output.
pub fn headroom_output(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .output()
        .expect("run headroom")
}
