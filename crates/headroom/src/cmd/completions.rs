//! `headroom completions SHELL` and `headroom man`: generated from the clap definitions that
//! also make `--help`, so they cannot drift from it.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::CommandFactory;

use crate::output::{self, Exit};

#[derive(clap::Args)]
#[command(
    after_help = "Prints the completion script on stdout. Install it where your shell looks:

  headroom completions bash > ~/.local/share/bash-completion/completions/headroom
  headroom completions zsh  > ~/.zfunc/_headroom      # with fpath+=(~/.zfunc) before compinit
  headroom completions fish > ~/.config/fish/completions/headroom.fish
  headroom completions powershell >> $PROFILE
  headroom completions elvish"
)]
pub struct Args {
    /// The shell: bash, zsh, fish, powershell or elvish.
    pub shell: clap_complete::Shell,
}

pub fn run(a: Args) -> anyhow::Result<Exit> {
    let mut cmd = crate::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "headroom", &mut buf);
    output::emit(&String::from_utf8(buf).context("completion script is not UTF-8")?)?;
    Ok(Exit::Ok)
}

#[derive(clap::Args)]
#[command(after_help = "Without --dir, prints headroom(1) on stdout:

  headroom man | man -l -
  headroom man --dir ~/.local/share/man/man1    # headroom.1, headroom-diagnose.1, ...
  man headroom-diagnose")]
pub struct ManArgs {
    /// Write one page per command (headroom.1, headroom-ceiling.1, ...) into this folder
    /// instead of printing headroom(1).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn man(a: ManArgs) -> anyhow::Result<Exit> {
    let cmd = crate::Cli::command();
    match a.dir {
        None => {
            let mut buf = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut buf)?;
            output::emit(&String::from_utf8(buf).context("man page is not UTF-8")?)?;
        }
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            let mut written = Vec::new();
            write_pages(&cmd, "headroom", &dir, &mut written)?;
            let mut err = std::io::stderr().lock();
            for p in &written {
                writeln!(err, "wrote {}", p.display())?;
            }
        }
    }
    Ok(Exit::Ok)
}

/// One page per command and subcommand, named as `man` looks them up (`headroom-probe-depth.1`).
fn write_pages(
    cmd: &clap::Command,
    name: &str,
    dir: &std::path::Path,
    written: &mut Vec<PathBuf>,
) -> anyhow::Result<()> {
    let page = cmd
        .clone()
        .display_name(name.to_string())
        .bin_name(name.replace('-', " "));
    let path = dir.join(format!("{name}.1"));
    let mut buf = Vec::new();
    // The footer names the program and its build, on every page (subcommands have no version).
    clap_mangen::Man::new(page)
        .source(format!("headroom {}", crate::VERSION))
        .render(&mut buf)?;
    std::fs::write(&path, buf).with_context(|| format!("cannot write {}", path.display()))?;
    written.push(path);
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        write_pages(sub, &format!("{name}-{}", sub.get_name()), dir, written)?;
    }
    Ok(())
}
