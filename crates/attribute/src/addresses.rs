//! Sampled data addresses as text: `perf script -F addr` prints one hexadecimal address per
//! line (space-padded, no `0x`); files written by other tools may add `0x`.

use std::io::Read;

use serde::{Deserialize, Serialize};

use crate::AttributeError;

/// What the address reader saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddressStats {
    /// Addresses parsed.
    pub addresses: u64,
    /// Zero addresses (perf writes 0 when a sample carries no data address): not attributed.
    pub zero: u64,
}

/// Streams addresses from `r` into `f`, one per non-blank line. A line that is not a
/// hexadecimal number is an error naming the line.
pub fn parse_addresses(
    mut r: impl Read,
    source_name: &str,
    mut f: impl FnMut(u64),
) -> Result<AddressStats, AttributeError> {
    let mut stats = AddressStats::default();
    let mut buf = vec![0u8; 1 << 20];
    // Bytes of a line cut by the end of the previous read.
    let mut carry: Vec<u8> = Vec::new();
    let mut line_no: u64 = 0;
    let io = |error| AttributeError::Io {
        what: source_name.to_string(),
        error,
    };
    let mut one = |line: &[u8], line_no: u64, stats: &mut AddressStats| match parse_hex_line(line) {
        Ok(None) => Ok(()),
        Ok(Some(0)) => {
            stats.zero += 1;
            Ok(())
        }
        Ok(Some(a)) => {
            stats.addresses += 1;
            f(a);
            Ok(())
        }
        Err(()) => Err(AttributeError::Address {
            source_name: source_name.to_string(),
            line: line_no,
            text: String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned(),
        }),
    };
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        let mut chunk = &buf[..n];
        if !carry.is_empty() {
            match chunk.iter().position(|&b| b == b'\n') {
                Some(p) => {
                    carry.extend_from_slice(&chunk[..p]);
                    line_no += 1;
                    one(&carry, line_no, &mut stats)?;
                    carry.clear();
                    chunk = &chunk[p + 1..];
                }
                None => {
                    carry.extend_from_slice(chunk);
                    if carry.len() > 4096 {
                        return Err(AttributeError::Address {
                            source_name: source_name.to_string(),
                            line: line_no + 1,
                            text: String::from_utf8_lossy(&carry[..80]).into_owned(),
                        });
                    }
                    continue;
                }
            }
        }
        let mut lines = chunk.split(|&b| b == b'\n');
        let last = lines.next_back().unwrap_or(&[]);
        for line in lines {
            line_no += 1;
            one(line, line_no, &mut stats)?;
        }
        carry.extend_from_slice(last);
    }
    if !carry.is_empty() {
        line_no += 1;
        one(&carry, line_no, &mut stats)?;
    }
    Ok(stats)
}

/// `   7f3a00001000` → Some(0x7f3a00001000); blank → None; anything else → Err.
fn parse_hex_line(line: &[u8]) -> Result<Option<u64>, ()> {
    let t = line.trim_ascii();
    if t.is_empty() {
        return Ok(None);
    }
    let digits = t
        .strip_prefix(b"0x")
        .or_else(|| t.strip_prefix(b"0X"))
        .unwrap_or(t);
    if digits.is_empty() || digits.len() > 16 {
        return Err(());
    }
    let mut v: u64 = 0;
    for &b in digits {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return Err(()),
        };
        v = (v << 4) | u64::from(d);
    }
    Ok(Some(v))
}
