//! `/proc/PID/maps`: `start-end perms pgoff dev inode path`.

use crate::AttributeError;

/// One mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vma {
    pub start: u64,
    pub end: u64,
    /// File offset of `start`, in bytes.
    pub pgoff: u64,
    /// The mapped file (or `[heap]`, `[stack]` …; empty for anonymous memory).
    pub path: String,
}

/// Parses maps text. `source_name` names the input in errors.
pub fn parse_maps(text: &str, source_name: &str) -> Result<Vec<Vma>, AttributeError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |what: &str| AttributeError::Maps {
            source_name: source_name.to_string(),
            line: i + 1,
            what: format!("{what} in {line:?} (want `start-end perms pgoff dev inode [path]`)"),
        };
        let mut fields = line.splitn(6, ' ').filter(|f| !f.is_empty());
        let range = fields.next().ok_or_else(|| bad("no address range"))?;
        let (lo, hi) = range
            .split_once('-')
            .ok_or_else(|| bad("no `-` in the address range"))?;
        let hex = |s: &str, what: &str| u64::from_str_radix(s, 16).map_err(|_| bad(what));
        let start = hex(lo, "bad start address")?;
        let end = hex(hi, "bad end address")?;
        if end < start {
            return Err(bad("end below start"));
        }
        let _perms = fields.next().ok_or_else(|| bad("no permissions"))?;
        let pgoff = hex(fields.next().ok_or_else(|| bad("no offset"))?, "bad offset")?;
        let _dev = fields.next().ok_or_else(|| bad("no device"))?;
        let _inode = fields.next().ok_or_else(|| bad("no inode"))?;
        let path = fields
            .next()
            .map(|p| p.trim().to_string())
            .unwrap_or_default();
        out.push(Vma {
            start,
            end,
            pgoff,
            path,
        });
    }
    Ok(out)
}
