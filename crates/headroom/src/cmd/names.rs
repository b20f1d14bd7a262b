//! The one check of the names a command is given, made before any window, query or server
//! starts: a `--gpu` or `--model` that the catalog does not resolve to exactly one entry, or a
//! `--gguf` whose header does not read, is an error (exit 1), worded by `physics::LookupError`
//! so that every command says it the same way.

use std::path::Path;

use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use physics::Catalog;
use std::path::PathBuf;

/// Resolve `--gpu` and `--model` in `catalog`, and read `--gguf`'s header; an error names the
/// flag and the value.
pub(crate) fn check(
    catalog: &Catalog,
    gpu: Option<&str>,
    model: Option<&str>,
    gguf: Option<&Path>,
) -> Result<()> {
    if let Some(g) = gpu {
        catalog.gpu(g).with_context(|| format!("--gpu {g:?}"))?;
    }
    if let Some(m) = model {
        catalog.model(m).with_context(|| format!("--model {m:?}"))?;
    }
    if let Some(p) = gguf {
        gguf::read_model_facts(p).with_context(|| format!("--gguf {}", p.display()))?;
    }
    Ok(())
}

/// [`check`] on a diagnose-style target, in the catalog it names; returns that catalog.
pub(crate) fn check_target(t: &Target) -> Result<Catalog> {
    let catalog = catalog(t.catalog.as_deref())?;
    check(
        &catalog,
        t.gpu.as_deref(),
        t.model.as_deref(),
        t.gguf.as_deref(),
    )?;
    Ok(catalog)
}

/// The GPU and model the ceiling is computed for.
#[derive(ClapArgs, Debug, Clone, Default)]
pub struct Target {
    /// Catalogued GPU, named exactly (any case; spaces, dashes, NVIDIA/GeForce/Tesla words
    /// optional): H100-SXM, "rtx 3090", "NVIDIA A100-SXM4-80GB". A name several entries share
    /// ("A100") needs its memory size ("A100 80GB") or form factor; an unknown or ambiguous
    /// name is an error, never a neighbour (`headroom ceiling --list`).
    #[arg(long)]
    pub gpu: Option<String>,
    /// Catalogued model, named exactly (a Hugging Face org/ prefix, an -Instruct suffix and
    /// Ollama's llama3.1:8b form are accepted); default: the name the engine serves.
    #[arg(long)]
    pub model: Option<String>,
    /// Take the model's figures from this GGUF file.
    #[arg(long, conflicts_with = "model")]
    pub gguf: Option<PathBuf>,
    /// Tensor-parallel size, when the engine's flags do not say.
    #[arg(long)]
    pub tp: Option<u32>,
    /// Weight dtype (bf16, fp8 ...), when the engine does not report it.
    #[arg(long)]
    pub dtype: Option<String>,
    /// Weight quantization (awq, gptq, fp8 ...), when the engine does not report it.
    #[arg(long)]
    pub quantization: Option<String>,
    /// A TOML catalog laid over the embedded one.
    #[arg(long)]
    pub catalog: Option<PathBuf>,
}

/// The embedded catalog, with `--catalog`'s TOML laid over it when given.
pub(crate) fn catalog(path: Option<&Path>) -> Result<::physics::Catalog> {
    Ok(match path {
        Some(p) => {
            let f = std::fs::File::open(p)
                .with_context(|| format!("reading catalog {}", p.display()))?;
            ::physics::Catalog::from_user_reader(f, &p.display().to_string())?
        }
        None => ::physics::Catalog::embedded()?,
    })
}
