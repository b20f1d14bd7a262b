//! Helpers every command shares: the history database's path, the clock, writing an HTML page.
//! A leaf: it uses no other command module, so no command reaches another through it.

use crate::output;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The history database: `--db`, else the default under the data folder.
pub fn db_path(p: &Option<PathBuf>) -> Result<PathBuf> {
    match p {
        Some(p) => Ok(p.clone()),
        None => store::default_path()
            .context("cannot find a data folder: set XDG_DATA_HOME or HOME, or pass --db"),
    }
}

/// Seconds since the Unix epoch, as the saved runs and scrape records carry it.
pub fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Writes a page to a file (or stdout for `-`) and says where on stderr, so a command's own
/// stdout (a table, a JSON document) stays what it was.
pub fn write_page(path: &Path, html: &str) -> Result<()> {
    if path == Path::new("-") {
        return output::emit(html);
    }
    std::fs::write(path, html).with_context(|| format!("writing {}", path.display()))?;
    eprintln!(
        "Wrote {} ({} KiB).",
        path.display(),
        html.len().div_ceil(1024)
    );
    Ok(())
}

/// A one-thread async runtime for a command's network work.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}
