//! Placeholder while the command is being built.
#[derive(clap::Args)]
pub struct Args {}
#[derive(clap::Args)]
pub struct RemeasureArgs {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("this command is being built")
}
pub fn remeasure(_args: RemeasureArgs) -> anyhow::Result<()> {
    anyhow::bail!("this command is being built")
}
