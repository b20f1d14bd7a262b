//! The one check of the names a command is given, made before any window, query or server
//! starts: a `--gpu` or `--model` that the catalog does not resolve to exactly one entry, or a
//! `--gguf` whose header does not read, is an error (exit 1), worded by `physics::LookupError`
//! so that every command says it the same way.

use std::path::Path;

use anyhow::{Context, Result};
use physics::Catalog;

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
pub(crate) fn check_target(t: &super::diagnose::Target) -> Result<Catalog> {
    let catalog = super::diagnose::catalog(t.catalog.as_deref())?;
    check(
        &catalog,
        t.gpu.as_deref(),
        t.model.as_deref(),
        t.gguf.as_deref(),
    )?;
    Ok(catalog)
}
