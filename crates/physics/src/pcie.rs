//! The PCIe link's ceiling per direction ("peak ~230 MB/s against a ~7,900 MB/s
//! link = ~3 %").
//!
//! A link moves data in both directions at once, each at `lanes × per-lane rate`. The per-lane
//! rate is the signalling rate after line encoding: Gen1/Gen2 use 8b/10b, Gen3 to Gen5 use
//! 128b/130b (research §4: "Gen3: 8 GT/s, 128b/130b, 15.75 GB/s" for x16, Gen4 31.5, Gen5 63).
//! Packet headers take a further 10–20 % ("expect about 80–90 % in practice", same section), so
//! the figure is a ceiling no transfer reaches, not a target.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Where the per-lane rates come from.
pub const LANE_RATE_SOURCE: &str =
    "PCIe line rate after encoding: GT/s × 128/130 ÷ 8 for Gen3–Gen5 \
(8b/10b for Gen1–Gen2), from the PCI-SIG base specifications' transfer rates: x16 per \
direction Gen3 15.75 GB/s, Gen4 31.5, Gen5 63";

/// The widths the PCIe specification defines.
pub const WIDTHS: [u8; 6] = [1, 2, 4, 8, 16, 32];

/// A PCIe link: generation and width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// Generation, 1 to 5.
    pub gen: u8,
    /// Lanes: 1, 2, 4, 8, 16 or 32.
    pub lanes: u8,
}

/// A `--link` value or a catalog entry that is not a PCIe link.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LinkError {
    #[error(
        "PCIe link {0:?} is not of the form gen4x16 (a generation 1-5, then x and the lane count)"
    )]
    Syntax(String),
    #[error("PCIe generation {0} is not one of 1, 2, 3, 4, 5")]
    Gen(u8),
    #[error("PCIe width x{0} is not one of x1, x2, x4, x8, x16, x32")]
    Lanes(u8),
}

impl Link {
    pub fn new(gen: u8, lanes: u8) -> Result<Link, LinkError> {
        if lane_mbps(gen).is_none() {
            return Err(LinkError::Gen(gen));
        }
        if !WIDTHS.contains(&lanes) {
            return Err(LinkError::Lanes(lanes));
        }
        Ok(Link { gen, lanes })
    }

    /// The line rate in one direction, MB/s (10^6 bytes per second).
    pub fn per_direction_mbps(&self) -> f64 {
        lane_mbps(self.gen).unwrap_or(0.0) * f64::from(self.lanes)
    }
}

/// One lane's rate in one direction, MB/s, after line encoding; `None` for an unknown
/// generation.
pub fn lane_mbps(gen: u8) -> Option<f64> {
    let (gts, payload, frame) = match gen {
        1 => (2.5, 8.0, 10.0),
        2 => (5.0, 8.0, 10.0),
        3 => (8.0, 128.0, 130.0),
        4 => (16.0, 128.0, 130.0),
        5 => (32.0, 128.0, 130.0),
        _ => return None,
    };
    // GT/s is one bit per transfer per lane: bytes/s = GT/s × payload/frame ÷ 8.
    Some(gts * 1000.0 * payload / frame / 8.0)
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Gen{} x{}", self.gen, self.lanes)
    }
}

impl FromStr for Link {
    type Err = LinkError;

    /// `gen4x16`, `Gen4 x16`, `gen4-x16`, `4x16` (case and separators are free).
    fn from_str(s: &str) -> Result<Link, LinkError> {
        let bad = || LinkError::Syntax(s.to_string());
        let t: String = s
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_'))
            .flat_map(char::to_lowercase)
            .collect();
        let t = t.strip_prefix("gen").unwrap_or(&t);
        let (g, l) = t.split_once('x').ok_or_else(bad)?;
        let gen: u8 = g.parse().map_err(|_| bad())?;
        let lanes: u8 = l.parse().map_err(|_| bad())?;
        Link::new(gen, lanes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_rates_match_the_published_x16_figures() {
        // research §4 (rounded): x16 per direction Gen3 15.75 GB/s, Gen4 31.5, Gen5 63.
        for (gen, x16_gbs) in [(3, 15.75), (4, 31.5), (5, 63.0)] {
            let got = Link::new(gen, 16).unwrap().per_direction_mbps() / 1000.0;
            assert!((got - x16_gbs).abs() < 0.05, "gen{gen}: {got}");
        }
        // 8b/10b generations: 250 and 500 MB/s per lane.
        assert_eq!(lane_mbps(1), Some(250.0));
        assert_eq!(lane_mbps(2), Some(500.0));
        // The spec's "~7,900 MB/s link" is a Gen4 x4 (or Gen3 x8): 7,877 MB/s.
        let x4 = Link::new(4, 4).unwrap().per_direction_mbps();
        assert!((x4 - 7876.9).abs() < 0.1, "{x4}");
    }

    #[test]
    fn links_parse_loosely_and_refuse_what_is_not_pcie() {
        for s in ["gen4x16", "Gen4 x16", "GEN4-X16", "4x16", "gen5 x8"] {
            assert!(s.parse::<Link>().is_ok(), "{s}");
        }
        assert_eq!("gen4x16".parse::<Link>().unwrap().to_string(), "Gen4 x16");
        assert_eq!("gen7x16".parse::<Link>(), Err(LinkError::Gen(7)));
        assert_eq!("gen4x3".parse::<Link>(), Err(LinkError::Lanes(3)));
        for s in [
            "",
            "gen4",
            "x16",
            "gen4x",
            "genx16",
            "pcie",
            "gen4x16x2",
            "gen999x16",
        ] {
            assert!(s.parse::<Link>().is_err(), "{s}");
        }
    }
}
