//! Placeholder while the command is being built; replaced by its owner.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("this command is being built")
}
