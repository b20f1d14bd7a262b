//! Ceilings when the experts live off the GPU.
//!
//! **Host-RAM-bound MoE**, for experts served from host RAM:
//!
//! ```text
//! routed experts/token = top_k × n_layers
//! bytes/token          = routed_params × bytes_per_param + shared_expert_bytes
//! ceiling (tok/s)      = measured_bandwidth / bytes_per_token
//! ```
//!
//! **Expert-offload duty cycle**, for experts gathered over PCIe into a GPU arena:
//!
//! ```text
//! resident fraction = arena slots / total experts
//! PCIe bytes/token  = miss_rate × lookups × slab_bytes
//! predicted duty    = compute_ms / (compute_ms + wait_ms)
//! ```

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::bits::BitsSource;
use crate::ceilings::ModelFigures;
use crate::provenance::{Figure, Known, Mark, Provenance};
use crate::spec::ModelSpec;
use crate::PhysicsError;

/// Raw figures for the RAM-bound ceiling (the `headroom ceiling ram` form).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RamInputs {
    /// Routed experts one token visits (top_k × MoE layers).
    pub experts_per_token: f64,
    /// Parameters of one expert.
    pub params_per_expert: f64,
    /// Bits per expert parameter.
    pub bits: f64,
    /// Bytes per token read besides the routed experts (shared experts, attention ...), bytes.
    pub shared_bytes: f64,
    /// Measured host memory bandwidth, GB/s.
    pub bandwidth_gbps: f64,
}

/// The RAM-bound ceiling and its terms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RamBound {
    /// Routed experts per token, when the source gives the count (`None` for a model file).
    pub experts_per_token: Option<Figure>,
    pub routed_params_per_token: Figure,
    pub expert_bits: Figure,
    pub routed_bytes_per_token: Figure,
    pub shared_bytes_per_token: Figure,
    /// Where the shared bytes came from.
    pub shared_from: String,
    pub bytes_per_token: Figure,
    pub bandwidth: Figure,
    /// The ceiling, tok/s (one sequence).
    pub ceiling_tps: Figure,
    /// FLOPs per routed byte (2 per parameter): what the CPU must sustain per byte read.
    pub cpu_flops_per_byte: Figure,
    /// CPU GFLOPS needed to keep up at the ceiling (flops/byte × bandwidth).
    pub cpu_gflops_needed: Figure,
    pub notes: Vec<String>,
}

fn positive(name: &str, v: f64) -> Result<f64, PhysicsError> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(PhysicsError::InvalidInput(format!(
            "{name} must be a positive number, got {v}"
        )))
    }
}

/// The RAM-bound ceiling from raw figures.
pub fn ram_bound(i: &RamInputs) -> Result<RamBound, PhysicsError> {
    let experts = positive("--experts-per-token", i.experts_per_token)?;
    let per_expert = positive("--expert-params", i.params_per_expert)?;
    let bits = positive("--bits", i.bits)?;
    let bw = positive("--bandwidth-gbps", i.bandwidth_gbps)?;
    if !(i.shared_bytes.is_finite() && i.shared_bytes >= 0.0) {
        return Err(PhysicsError::InvalidInput(format!(
            "--shared-gb must be zero or positive, got {}",
            i.shared_bytes
        )));
    }
    let flag = Provenance::EngineFlag;
    Ok(assemble(
        Some(Figure::new(experts, "experts", flag, Mark::Exact)),
        experts * per_expert,
        bits,
        i.shared_bytes,
        "--shared-gb".into(),
        bw,
        flag,
        Vec::new(),
    ))
}

/// The RAM-bound ceiling for a model whose routed experts sit in host RAM. `shared_bytes`
/// overrides what else each token reads from RAM; by default that is everything else on the
/// token path (attention, dense layers, shared experts, embeddings), i.e. the whole model in
/// host RAM. Pass 0 when those stay on the GPU.
pub fn ram_bound_for_model(
    model: &ModelSpec,
    figures: &ModelFigures,
    bandwidth_gbps: f64,
    shared_bytes: Option<f64>,
) -> Result<Known<RamBound>, PhysicsError> {
    let bw = positive("--ram-bandwidth", bandwidth_gbps)?;
    let mut notes = Vec::new();
    let prov = Provenance::derive(&[figures.decode_stream.provenance]);
    let bits = &figures.bits;
    let (experts, routed_params, expert_bits) = match &model.moe {
        Some(moe) => {
            let eb = match (bits.source, bits.expert_bits) {
                (BitsSource::ModelFile, _) => {
                    notes.push(
                        "expert bits are the file's average over the active weights; the \
                         experts' own type may differ"
                            .into(),
                    );
                    figures.stream_bits.value
                }
                (_, Some(eb)) => eb,
                (_, None) => bits.bits,
            };
            let experts = moe
                .experts_per_token()
                .map(|e| Figure::new(e as f64, "experts", model.provenance, Mark::Exact));
            (experts, moe.routed_params_per_token(), eb)
        }
        None => {
            notes.push("dense model: every active weight streams from host RAM".into());
            (None, 0.0, figures.stream_bits.value)
        }
    };
    let routed_bytes = routed_params * expert_bits / 8.0;
    let (shared, shared_from) = match shared_bytes {
        Some(s) if s.is_finite() && s >= 0.0 => (s, "--shared-gb".to_string()),
        Some(s) => {
            return Err(PhysicsError::InvalidInput(format!(
                "--shared-gb must be zero or positive, got {s}"
            )))
        }
        None => (
            (figures.decode_stream.value - routed_bytes).max(0.0),
            "the rest of the decode stream (attention, dense and shared weights)".to_string(),
        ),
    };
    let mut rb = assemble(
        experts,
        routed_params,
        expert_bits,
        shared,
        shared_from,
        bw,
        prov,
        notes,
    );
    if routed_params == 0.0 {
        // Dense: the CPU multiplies every streamed weight.
        let fpb = 2.0 * model.params_active / rb.bytes_per_token.value;
        rb.cpu_flops_per_byte.value = fpb;
        rb.cpu_gflops_needed.value = fpb * bw;
    }
    Ok(Known::Known(rb))
}

#[allow(clippy::too_many_arguments)]
fn assemble(
    experts_per_token: Option<Figure>,
    routed_params: f64,
    bits: f64,
    shared_bytes: f64,
    shared_from: String,
    bandwidth_gbps: f64,
    prov: Provenance,
    notes: Vec<String>,
) -> RamBound {
    let routed_bytes = routed_params * bits / 8.0;
    let bytes = routed_bytes + shared_bytes;
    let ceiling = bandwidth_gbps * 1e9 / bytes;
    let derived = Provenance::derive(&[prov]);
    // Two FLOPs (multiply, add) per parameter, over the bytes that parameter occupies.
    let fpb = 16.0 / bits;
    RamBound {
        experts_per_token,
        routed_params_per_token: Figure::new(routed_params, "params", prov, Mark::Exact),
        expert_bits: Figure::new(bits, "bits", prov, Mark::Exact),
        routed_bytes_per_token: Figure::new(routed_bytes, "bytes/token", derived, Mark::Exact),
        shared_bytes_per_token: Figure::new(shared_bytes, "bytes/token", prov, Mark::Exact),
        shared_from,
        bytes_per_token: Figure::new(bytes, "bytes/token", derived, Mark::Exact),
        bandwidth: Figure::new(bandwidth_gbps, "GB/s", Provenance::EngineFlag, Mark::Exact),
        ceiling_tps: Figure::new(ceiling, "tok/s", derived, Mark::Est),
        cpu_flops_per_byte: Figure::new(fpb, "FLOP/byte", derived, Mark::Exact),
        cpu_gflops_needed: Figure::new(fpb * bandwidth_gbps, "GFLOPS", derived, Mark::Approx),
        notes,
    }
}

/// Inputs of the duty-cycle arithmetic (the `headroom ceiling duty` form).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DutyInputs {
    /// Expert slots in the GPU arena.
    pub arena_slots: f64,
    /// Experts in the model (all layers).
    pub experts: f64,
    /// Fraction of expert lookups that miss the arena; `None` assumes uniform use
    /// (1 − resident fraction).
    pub miss_rate: Option<f64>,
    /// Expert lookups per token (top_k × MoE layers).
    pub lookups: f64,
    /// Bytes of one expert slab, MiB.
    pub slab_mib: f64,
    /// Compute burst per decode step, ms.
    pub compute_ms: f64,
    /// Expert-gather wait per decode step, ms.
    pub wait_ms: f64,
}

/// The duty-cycle arithmetic and what it predicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Duty {
    /// Arena slots / total experts, %.
    pub resident: Figure,
    pub miss_rate: Figure,
    pub miss_rate_from: Cow<'static, str>,
    /// Bytes per token over PCIe (miss rate × lookups × slab).
    pub pcie_bytes_per_token: Figure,
    /// The same in MiB (the slab's own unit).
    pub pcie_mib_per_token: f64,
    /// compute / (compute + wait), %: the GPU utilization the structure predicts.
    pub predicted_duty: Figure,
    /// compute + wait, ms.
    pub step_ms: Figure,
    /// One token per step: 1000 / step_ms.
    pub tokens_per_s: Figure,
    /// PCIe bytes per token / wait: the gather rate the engine achieves if the wait is all
    /// transfer. Compare with the link's measured rate at this slab size.
    /// `None` when there is no wait.
    pub gather_gbps: Option<Figure>,
}

pub const MIB: f64 = 1024.0 * 1024.0;

pub fn duty(i: &DutyInputs) -> Result<Duty, PhysicsError> {
    let slots = positive("--arena-slots", i.arena_slots)?;
    let experts = positive("--experts", i.experts)?;
    let lookups = positive("--lookups", i.lookups)?;
    let slab = positive("--slab-mib", i.slab_mib)?;
    let compute = positive("--compute-ms", i.compute_ms)?;
    if !(i.wait_ms.is_finite() && i.wait_ms >= 0.0) {
        return Err(PhysicsError::InvalidInput(format!(
            "--wait-ms must be zero or positive, got {}",
            i.wait_ms
        )));
    }
    if slots > experts {
        return Err(PhysicsError::InvalidInput(format!(
            "--arena-slots ({slots}) exceeds --experts ({experts})"
        )));
    }
    let resident = slots / experts;
    let flag = Provenance::EngineFlag;
    let (miss, miss_from, miss_prov) = match i.miss_rate {
        Some(m) if (0.0..=1.0).contains(&m) => (m, "--miss-rate", flag),
        Some(m) => {
            return Err(PhysicsError::InvalidInput(format!(
                "--miss-rate must be within 0..1, got {m}"
            )))
        }
        None => (
            1.0 - resident,
            "1 − resident (uniform expert use)",
            Provenance::Derived,
        ),
    };
    let mib = miss * lookups * slab;
    let bytes = mib * MIB;
    let step = compute + i.wait_ms;
    let d = Provenance::Derived;
    let gather = (i.wait_ms > 0.0)
        .then(|| Figure::new(bytes / (i.wait_ms / 1000.0) / 1e9, "GB/s", d, Mark::Exact));
    Ok(Duty {
        resident: Figure::new(resident * 100.0, "%", d, Mark::Exact),
        miss_rate: Figure::new(miss, "", miss_prov, Mark::Exact),
        miss_rate_from: Cow::Borrowed(miss_from),
        pcie_bytes_per_token: Figure::new(bytes, "bytes/token", d, Mark::Exact),
        pcie_mib_per_token: mib,
        predicted_duty: Figure::new(compute / step * 100.0, "%", d, Mark::Exact),
        step_ms: Figure::new(step, "ms", d, Mark::Exact),
        tokens_per_s: Figure::new(1000.0 / step, "tok/s", d, Mark::Exact),
        gather_gbps: gather,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provenance::sig;

    /// A worked example: 6×40 experts × 35.4M params = 8.5B params/token; at 3 bpw
    /// + 0.53 GB shared = 3.7 GB/token → 42 GB/s ⇒ 11.3 tok/s.
    #[test]
    fn spec_000_s6_worked_example() {
        let r = ram_bound(&RamInputs {
            experts_per_token: 6.0 * 40.0,
            params_per_expert: 35.4e6,
            bits: 3.0,
            shared_bytes: 0.53e9,
            bandwidth_gbps: 42.0,
        })
        .unwrap();
        assert_eq!(sig(r.routed_params_per_token.value / 1e9, 2), "8.5");
        assert_eq!(sig(r.bytes_per_token.value / 1e9, 2), "3.7");
        assert_eq!(sig(r.bytes_per_token.value / 1e9, 3), "3.72");
        assert_eq!(sig(r.ceiling_tps.value, 3), "11.3");
        // "CPU compute rarely binds below 4 bpw (~5.3 flops/byte ⇒ ~223 GFLOPS at 42 GB/s)":
        // 16 / 3 = 5.33 flop/byte; × 42 = 224 (the spec multiplies the rounded 5.3 × 42 = 222.6).
        assert_eq!(sig(r.cpu_flops_per_byte.value, 2), "5.3");
        assert_eq!(sig(r.cpu_gflops_needed.value, 3), "224");
        assert!((r.cpu_gflops_needed.value - 223.0).abs() / 223.0 < 0.01);
        // "PCIe expert STREAMING is worse than CPU compute (Gen5 x8 ~22.7 GB/s effective < half
        // of RAM)": the same bytes over 22.7 GB/s give about half the ceiling.
        let pcie = ram_bound(&RamInputs {
            bandwidth_gbps: 22.7,
            ..RamInputs {
                experts_per_token: 240.0,
                params_per_expert: 35.4e6,
                bits: 3.0,
                shared_bytes: 0.53e9,
                bandwidth_gbps: 0.0,
            }
        })
        .unwrap();
        assert!(pcie.ceiling_tps.value < r.ceiling_tps.value / 1.8);
        assert_eq!(sig(pcie.ceiling_tps.value, 3), "6.11");
    }

    /// The sanity anchors give no bandwidth, so their tok/s cannot be recomputed; what can be
    /// checked is the host bandwidth each implies at 3.7 GB/token, and that the ceiling is
    /// linear in bandwidth.
    #[test]
    fn spec_000_s6_anchor_bandwidths() {
        let at = |bw: f64| {
            ram_bound(&RamInputs {
                experts_per_token: 240.0,
                params_per_expert: 35.4e6,
                bits: 3.0,
                shared_bytes: 0.53e9,
                bandwidth_gbps: bw,
            })
            .unwrap()
        };
        let bytes = at(42.0).bytes_per_token.value;
        // 2×3090 + 768 GB DDR4 ⇒ 12.2 tok/s needs 45.3 GB/s of host bandwidth.
        assert_eq!(sig(12.2 * bytes / 1e9, 3), "45.3");
        assert_eq!(sig(at(45.34).ceiling_tps.value, 3), "12.2");
        // H100 NVL + CPU offload ⇒ 5.8–9.0 tok/s spans 21.6–33.4 GB/s.
        assert_eq!(sig(5.8 * bytes / 1e9, 3), "21.6");
        assert_eq!(sig(9.0 * bytes / 1e9, 3), "33.4");
        assert_eq!(at(84.0).ceiling_tps.value, 2.0 * at(42.0).ceiling_tps.value);
    }

    #[test]
    fn ram_rejects_nonsense() {
        let ok = RamInputs {
            experts_per_token: 240.0,
            params_per_expert: 35.4e6,
            bits: 3.0,
            shared_bytes: 0.0,
            bandwidth_gbps: 42.0,
        };
        assert!(ram_bound(&ok).is_ok());
        for bad in [
            RamInputs { bits: 0.0, ..ok },
            RamInputs {
                bandwidth_gbps: -1.0,
                ..ok
            },
            RamInputs {
                shared_bytes: f64::NAN,
                ..ok
            },
            RamInputs {
                experts_per_token: 0.0,
                ..ok
            },
        ] {
            assert!(ram_bound(&bad).is_err());
        }
    }

    /// A worked example: 6574/24576 ≈ 27 % resident; 0.73 × 480 × 2.344 MiB ≈ 0.84 GB (821 MiB =
    /// 0.861 GB = 0.802 GiB); 100 ms compute, 400 ms wait ⇒ 20 % duty.
    #[test]
    fn spec_000_s2_worked_example() {
        let d = duty(&DutyInputs {
            arena_slots: 6574.0,
            experts: 24576.0,
            miss_rate: Some(0.73),
            lookups: 480.0,
            slab_mib: 2.344,
            compute_ms: 100.0,
            wait_ms: 400.0,
        })
        .unwrap();
        assert_eq!(sig(d.resident.value, 2), "27");
        assert_eq!(sig(d.resident.value, 3), "26.7");
        assert_eq!(sig(d.pcie_mib_per_token, 3), "821");
        assert_eq!(sig(d.pcie_bytes_per_token.value / 1e9, 3), "0.861");
        assert_eq!(sig(d.pcie_bytes_per_token.value / MIB / 1024.0, 3), "0.802");
        assert_eq!(sig(d.predicted_duty.value, 3), "20");
        assert_eq!(d.step_ms.value, 500.0);
        assert_eq!(sig(d.tokens_per_s.value, 3), "2");
        assert_eq!(sig(d.gather_gbps.unwrap().value, 3), "2.15");
        // Uniform use: the miss rate is 1 − resident, 0.733, close to the example's 0.73.
        let u = duty(&DutyInputs {
            miss_rate: None,
            ..example()
        })
        .unwrap();
        assert_eq!(sig(u.miss_rate.value, 3), "0.733");
        assert_eq!(u.miss_rate.provenance, Provenance::Derived);
    }

    fn example() -> DutyInputs {
        DutyInputs {
            arena_slots: 6574.0,
            experts: 24576.0,
            miss_rate: Some(0.73),
            lookups: 480.0,
            slab_mib: 2.344,
            compute_ms: 100.0,
            wait_ms: 400.0,
        }
    }

    #[test]
    fn duty_rejects_nonsense() {
        for bad in [
            DutyInputs {
                arena_slots: 30000.0,
                ..example()
            },
            DutyInputs {
                miss_rate: Some(1.5),
                ..example()
            },
            DutyInputs {
                compute_ms: 0.0,
                ..example()
            },
            DutyInputs {
                wait_ms: -1.0,
                ..example()
            },
            DutyInputs {
                slab_mib: f64::INFINITY,
                ..example()
            },
        ] {
            assert!(duty(&bad).is_err(), "{bad:?}");
        }
        // No wait: 100 % duty, no finite gather rate needed.
        let d = duty(&DutyInputs {
            wait_ms: 0.0,
            ..example()
        })
        .unwrap();
        assert_eq!(d.predicted_duty.value, 100.0);
        assert!(d.gather_gbps.is_none());
    }

    /// The model form: DeepSeek-V3 (fp8) with experts in host RAM at 42 GB/s.
    /// 58 MoE layers × 8 experts × 44.04M params = 20.4B routed params/token at 1 byte; the rest
    /// of the 36.6B read per token (the input embedding is a row lookup) is 16.2 GB; 36.6 GB/token
    /// ⇒ 1.15 tok/s; with attention and shared experts on the GPU (--shared-gb 0) ⇒ 2.06 tok/s.
    #[test]
    fn from_a_catalog_model() {
        use crate::catalog::Catalog;
        use crate::spec::Options;
        let c = Catalog::embedded().unwrap();
        let m = ModelSpec::from_catalog(c.model("deepseek-v3").unwrap().entry);
        let f = ModelFigures::compute(&m, &Options::default()).unwrap();
        let r = ram_bound_for_model(&m, &f, 42.0, None).unwrap();
        let r = r.get().unwrap();
        assert_eq!(r.experts_per_token.as_ref().unwrap().value, 464.0);
        assert_eq!(sig(r.routed_params_per_token.value / 1e9, 3), "20.4");
        assert_eq!(sig(r.shared_bytes_per_token.value / 1e9, 3), "16.2");
        assert_eq!(sig(r.bytes_per_token.value / 1e9, 3), "36.6");
        assert_eq!(sig(r.ceiling_tps.value, 3), "1.15");
        assert_eq!(r.ceiling_tps.provenance, Provenance::Derived);
        let r0 = ram_bound_for_model(&m, &f, 42.0, Some(0.0)).unwrap();
        assert_eq!(sig(r0.get().unwrap().ceiling_tps.value, 3), "2.06");
        assert!(ram_bound_for_model(&m, &f, 0.0, None).is_err());

        // gpt-oss: the experts' own MXFP4 bits, not the BF16 of the rest.
        let m = ModelSpec::from_catalog(c.model("gpt-oss-120b").unwrap().entry);
        let f = ModelFigures::compute(&m, &Options::default()).unwrap();
        let r = ram_bound_for_model(&m, &f, 42.0, Some(0.0)).unwrap();
        assert_eq!(r.get().unwrap().expert_bits.value, 4.25);

        // Dense: everything but the untied input embedding streams: 42 / (7.505e9 × 2 B) = 2.8.
        let m = ModelSpec::from_catalog(c.model("llama-3.1-8b").unwrap().entry);
        let f = ModelFigures::compute(&m, &Options::default()).unwrap();
        let r = ram_bound_for_model(&m, &f, 42.0, None).unwrap();
        let r = r.get().unwrap();
        assert_eq!(sig(r.ceiling_tps.value, 3), "2.8");
        assert!(r.notes[0].contains("dense"));
        assert_eq!(sig(r.cpu_flops_per_byte.value, 3), "1");
    }
}
