//! Clock-event (formerly "throttle") reasons: the bitmask NVML returns from
//! `nvmlDeviceGetCurrentClocksEventReasons`, which DCGM exports as
//! `DCGM_FI_DEV_CLOCKS_EVENT_REASONS` (field 112; `DCGM_FI_DEV_CLOCK_THROTTLE_REASONS` before
//! DCGM 3.3) and nvidia-smi prints as `clocks_event_reasons.active`
//! (`clocks_throttle_reasons.active` on older drivers).
//!
//! The bit values are NVML's public header, nvml.h, as NVIDIA ships it in
//! https://github.com/NVIDIA/go-nvml/blob/2f9e261fe40a7a1c54783d66805e8920564763b4/gen/nvml/nvml.h
//! (lines 3322–3404): `nvmlClocksEventReasonGpuIdle` 0x1, `…ApplicationsClocksSetting` 0x2,
//! `…SwPowerCap` 0x4, `nvmlClocksThrottleReasonHwSlowdown` 0x8, `…SyncBoost` 0x10,
//! `…SwThermalSlowdown` 0x20, `nvmlClocksThrottleReasonHwThermalSlowdown` 0x40,
//! `nvmlClocksThrottleReasonHwPowerBrakeSlowdown` 0x80, `…DisplayClockSetting` 0x100.

use serde::{Serialize, Serializer};

/// One reason, its bit, its name, and whether it is a power or thermal limit (the reasons that
/// hold a busy GPU below its clocks; idle, application clocks, sync boost and display clocks are
/// not limits the workload hit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reason {
    pub bit: u64,
    pub name: &'static str,
    pub power_or_thermal: bool,
}

/// Every reason NVML defines, in bit order.
pub const REASONS: [Reason; 9] = [
    Reason {
        bit: 0x1,
        name: "gpu_idle",
        power_or_thermal: false,
    },
    Reason {
        bit: 0x2,
        name: "applications_clocks_setting",
        power_or_thermal: false,
    },
    Reason {
        bit: 0x4,
        name: "sw_power_cap",
        power_or_thermal: true,
    },
    Reason {
        bit: 0x8,
        name: "hw_slowdown",
        power_or_thermal: true,
    },
    Reason {
        bit: 0x10,
        name: "sync_boost",
        power_or_thermal: false,
    },
    Reason {
        bit: 0x20,
        name: "sw_thermal_slowdown",
        power_or_thermal: true,
    },
    Reason {
        bit: 0x40,
        name: "hw_thermal_slowdown",
        power_or_thermal: true,
    },
    Reason {
        bit: 0x80,
        name: "hw_power_brake_slowdown",
        power_or_thermal: true,
    },
    Reason {
        bit: 0x100,
        name: "display_clock_setting",
        power_or_thermal: false,
    },
];

/// The active-reasons bitmask of one reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClockEvents(pub u64);

impl ClockEvents {
    /// Parses nvidia-smi's `0x0000000000000004` (or a decimal, as DCGM prints it).
    pub fn parse(s: &str) -> Option<ClockEvents> {
        let s = s.trim();
        let v = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).ok()?,
            None => s.parse::<u64>().ok()?,
        };
        Some(ClockEvents(v))
    }

    /// From an exposition value: a non-negative integer below 2^53 (DCGM prints the mask as a
    /// number); anything else is not a mask.
    pub fn from_value(v: f64) -> Option<ClockEvents> {
        (v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v < 9_007_199_254_740_992.0)
            .then_some(ClockEvents(v as u64))
    }

    /// The named reasons set in the mask, in bit order.
    pub fn names(self) -> Vec<&'static str> {
        REASONS
            .iter()
            .filter(|r| self.0 & r.bit != 0)
            .map(|r| r.name)
            .collect()
    }

    /// Bits set that NVML's header does not name (a newer driver's reason).
    pub fn unknown_bits(self) -> u64 {
        let known: u64 = REASONS.iter().map(|r| r.bit).sum();
        self.0 & !known
    }

    /// Whether a power or thermal reason is active.
    pub fn power_or_thermal(self) -> bool {
        REASONS
            .iter()
            .any(|r| r.power_or_thermal && self.0 & r.bit != 0)
    }

    /// The power or thermal reasons set, in bit order.
    pub fn power_or_thermal_names(self) -> Vec<&'static str> {
        REASONS
            .iter()
            .filter(|r| r.power_or_thermal && self.0 & r.bit != 0)
            .map(|r| r.name)
            .collect()
    }
}

/// Serialized as the mask and its decoded names: `{"mask": 4, "active": ["sw_power_cap"]}`.
impl Serialize for ClockEvents {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("ClockEvents", 2)?;
        st.serialize_field("mask", &self.0)?;
        st.serialize_field("active", &self.names())?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_every_bit_nvml_names() {
        let cases: &[(u64, &[&str], bool)] = &[
            (0x0, &[], false),
            (0x1, &["gpu_idle"], false),
            (0x2, &["applications_clocks_setting"], false),
            (0x4, &["sw_power_cap"], true),
            (0x8, &["hw_slowdown"], true),
            (0x10, &["sync_boost"], false),
            (0x20, &["sw_thermal_slowdown"], true),
            (0x40, &["hw_thermal_slowdown"], true),
            (0x80, &["hw_power_brake_slowdown"], true),
            (0x100, &["display_clock_setting"], false),
            (0x5, &["gpu_idle", "sw_power_cap"], true),
            (
                0x111,
                &["gpu_idle", "sync_boost", "display_clock_setting"],
                false,
            ),
        ];
        for &(mask, names, pt) in cases {
            let c = ClockEvents(mask);
            assert_eq!(c.names(), names, "{mask:#x}");
            assert_eq!(c.power_or_thermal(), pt, "{mask:#x}");
            assert_eq!(c.unknown_bits(), 0);
        }
        assert_eq!(ClockEvents(0x204).unknown_bits(), 0x200);
    }

    #[test]
    fn parses_nvidia_smi_and_dcgm_forms() {
        assert_eq!(
            ClockEvents::parse("0x0000000000000004"),
            Some(ClockEvents(4))
        );
        assert_eq!(
            ClockEvents::parse(" 0x0000000000000000 "),
            Some(ClockEvents(0))
        );
        assert_eq!(ClockEvents::parse("1"), Some(ClockEvents(1)));
        assert_eq!(ClockEvents::parse("[N/A]"), None);
        assert_eq!(ClockEvents::parse("0xZZ"), None);
        assert_eq!(ClockEvents::from_value(4.0), Some(ClockEvents(4)));
        assert_eq!(ClockEvents::from_value(-1.0), None);
        assert_eq!(ClockEvents::from_value(0.5), None);
        assert_eq!(ClockEvents::from_value(f64::NAN), None);
    }
}
