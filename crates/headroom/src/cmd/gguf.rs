//! `headroom gguf FILE`: what a GGUF file holds, from its header and tensor infos only.

use std::path::PathBuf;

use gguf::doc::GgufDoc;
use gguf::{Model, ReadOptions};
use render::gguf::View;

use crate::output::{self, Exit, Format};

#[derive(clap::Args)]
#[command(
    after_help = "Reads the header and tensor infos only (buffered, never the tensor data), so a \
50 GiB file takes milliseconds. Tensor sizes come from consecutive offsets; the size by the \
type table and the padding are shown beside them.

Examples:
  headroom gguf SmolLM2-135M-Instruct.Q4_1.gguf
  headroom gguf Qwen3-30B-A3B-Q4_K_M-00001-of-00002.gguf --tensors
  headroom gguf model.gguf --metadata
  headroom gguf model.gguf --json | jq '.params'
  headroom gguf model.gguf --csv > tensors.csv

JSON schema: docs/json/gguf.md (headroom.gguf/1)."
)]
pub struct Args {
    /// The GGUF file. For a split model, any one shard: the others are found beside it.
    pub file: PathBuf,
    /// Print JSON (schema headroom.gguf/1) instead of the summary.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the tensor table as CSV (shape as ne0xne1..., shard counted from 0).
    #[arg(long)]
    pub csv: bool,
    /// Also print the tensor table: name, type, shape, offset, size, padding.
    #[arg(long)]
    pub tensors: bool,
    /// Also print every metadata key (arrays over 1024 elements by length only).
    #[arg(long)]
    pub metadata: bool,
}

pub fn run(args: Args) -> anyhow::Result<Exit> {
    // The error already names the file and the byte offset.
    let model = Model::open(&args.file, &ReadOptions::default())?;
    let doc = GgufDoc::new(&args.file, &model);
    let view = View {
        doc,
        model,
        tensors: args.tensors,
        metadata: args.metadata,
    };
    output::render(&view, Format::from_flags(args.json, args.csv))?;
    Ok(Exit::Ok)
}
