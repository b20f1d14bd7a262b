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

/// Streams addresses from `r` into `f`, one per non-blank line (spaces around it allowed).
/// A line that is not one hexadecimal number is an error naming the line.
///
/// One pass over each buffer with the parse state carried across reads (a line cut by a read
/// boundary needs no copy): perf data holds tens of millions of lines.
pub fn parse_addresses(
    mut r: impl Read,
    source_name: &str,
    mut f: impl FnMut(u64),
) -> Result<AddressStats, AttributeError> {
    let mut stats = AddressStats::default();
    let mut buf = vec![0u8; 1 << 20];
    let mut line_no: u64 = 1;
    // The number so far, its digit count, whether a `0x` was seen, whether it has ended (a
    // space after digits).
    let (mut acc, mut digits, mut prefixed, mut ended) = (0u64, 0u32, false, false);
    let bad = |line: u64, what: String| AttributeError::Address {
        source_name: source_name.to_string(),
        line,
        text: what,
    };
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => {
                return Err(AttributeError::Io {
                    what: source_name.to_string(),
                    error,
                })
            }
        };
        for &b in &buf[..n] {
            let v = HEX[usize::from(b)];
            if v < 16 {
                if ended || digits == 16 {
                    return Err(bad(
                        line_no,
                        "more than one 64-bit hexadecimal number".into(),
                    ));
                }
                acc = (acc << 4) | u64::from(v);
                digits += 1;
            } else if v == NEWLINE {
                if digits > 0 {
                    if acc == 0 {
                        stats.zero += 1;
                    } else {
                        stats.addresses += 1;
                        f(acc);
                    }
                } else if prefixed {
                    return Err(bad(line_no, "`0x` without digits".into()));
                }
                (acc, digits, prefixed, ended) = (0, 0, false, false);
                line_no += 1;
            } else if v == SPACE {
                ended |= digits > 0 || prefixed;
            } else if v == X && digits == 1 && acc == 0 && !prefixed && !ended {
                (digits, prefixed) = (0, true);
            } else {
                return Err(bad(
                    line_no,
                    format!("{:?} is not part of a hexadecimal address", char::from(b)),
                ));
            }
        }
    }
    if digits > 0 {
        if acc == 0 {
            stats.zero += 1;
        } else {
            stats.addresses += 1;
            f(acc);
        }
    } else if prefixed {
        return Err(bad(line_no, "`0x` without digits".into()));
    }
    Ok(stats)
}

const NEWLINE: u8 = 16;
const SPACE: u8 = 17;
const X: u8 = 18;
const OTHER: u8 = 19;

/// Byte classes: 0-15 the hex digit's value, then newline, space (and tab, CR), `x`, other.
static HEX: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t[b'\n' as usize] = NEWLINE;
    t[b' ' as usize] = SPACE;
    t[b'\t' as usize] = SPACE;
    t[b'\r' as usize] = SPACE;
    t[b'x' as usize] = X;
    t[b'X' as usize] = X;
    t
};
