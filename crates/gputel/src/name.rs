//! The GPU named by its own telemetry, resolved against the catalog for the ceiling.
//!
//! DCGM's `modelName` and nvidia-smi's `name` print NVML's device name ("NVIDIA A100 80GB PCIe",
//! "Tesla V100-SXM2-32GB", "NVIDIA H100 80GB HBM3"). The catalog's lookup
//! ([`physics::Catalog::gpu`]) takes it as printed: it drops the NVIDIA/Tesla/GeForce words and
//! answers with one entry, or an error (ambiguous or unknown), never a neighbour.

use crate::{GpuSample, Source};
use physics::{Catalog, Gpu, LookupError};

/// A catalog entry found from telemetry, with the name as the telemetry printed it.
#[derive(Debug, Clone)]
pub struct NamedGpu<'a> {
    pub gpu: &'a Gpu,
    /// The name as printed by the telemetry.
    pub printed: String,
    /// "dcgm" or "nvidia-smi".
    pub provenance: &'static str,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum NameError {
    #[error("the GPU telemetry names no GPU (no modelName label, no name column); give --gpu")]
    Unnamed,
    #[error("the GPU telemetry names several GPU models ({}); give --gpu for the one serving", .0.join(", "))]
    Mixed(Vec<String>),
    #[error("the GPU telemetry names {printed:?}: {source}")]
    Lookup {
        printed: String,
        #[source]
        source: LookupError,
    },
}

/// The one GPU model the samples name. Samples without a name are skipped; two different names
/// are an error (a node with mixed GPUs cannot say which one serves).
pub fn printed_name(samples: &[GpuSample]) -> Result<(String, &'static str), NameError> {
    let mut names: Vec<(&str, Option<Source>)> = Vec::new();
    for s in samples {
        if let Some(n) = s.name.as_deref() {
            if !names.iter().any(|(m, _)| *m == n) {
                names.push((n, s.source));
            }
        }
    }
    match names.as_slice() {
        [] => Err(NameError::Unnamed),
        [(n, src)] => Ok((
            n.to_string(),
            src.map(Source::provenance).unwrap_or("telemetry"),
        )),
        many => Err(NameError::Mixed(
            many.iter().map(|(n, _)| n.to_string()).collect(),
        )),
    }
}

/// The catalog entry for the GPU the samples name.
pub fn resolve<'a>(catalog: &'a Catalog, samples: &[GpuSample]) -> Result<NamedGpu<'a>, NameError> {
    let (printed, provenance) = printed_name(samples)?;
    match catalog.gpu(&printed) {
        Ok(found) => Ok(NamedGpu {
            gpu: found.entry,
            printed,
            provenance,
        }),
        Err(source) => Err(NameError::Lookup { printed, source }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(n: &str, src: Source) -> GpuSample {
        GpuSample {
            source: Some(src),
            name: Some(n.to_string()),
            ..GpuSample::default()
        }
    }

    /// The names NVML prints for the parts the issue names, each to its one entry.
    #[test]
    fn nvml_names_resolve_to_their_entry() {
        let c = Catalog::embedded().unwrap();
        for (printed, id) in [
            ("NVIDIA A100 80GB PCIe", "a100-pcie-80gb"),
            ("Tesla V100-SXM2-32GB", "v100-sxm2-32gb"),
            ("NVIDIA H100 80GB HBM3", "h100-sxm"),
            ("NVIDIA GeForce RTX 4090", "rtx-4090"),
            ("NVIDIA A100-SXM4-80GB", "a100-sxm-80gb"),
        ] {
            let g = resolve(&c, &[named(printed, Source::NvidiaSmi)]).unwrap();
            assert_eq!(g.gpu.id, id, "{printed}");
            assert_eq!(g.provenance, "nvidia-smi");
        }
    }

    #[test]
    fn no_name_mixed_names_and_unknown_names_are_errors() {
        let c = Catalog::embedded().unwrap();
        assert_eq!(
            resolve(&c, &[GpuSample::default()]).unwrap_err(),
            NameError::Unnamed
        );
        let mixed = [
            named("NVIDIA L40S", Source::Dcgm),
            named("NVIDIA A30", Source::Dcgm),
            named("NVIDIA L40S", Source::Dcgm),
        ];
        assert_eq!(
            resolve(&c, &mixed).unwrap_err(),
            NameError::Mixed(vec!["NVIDIA L40S".into(), "NVIDIA A30".into()])
        );
        // A GRID vGPU profile is not a catalogued part: an error, not the A100 next door.
        match resolve(&c, &[named("GRID A100-40C", Source::Dcgm)]) {
            Err(NameError::Lookup { printed, .. }) => assert_eq!(printed, "GRID A100-40C"),
            other => panic!("{other:?}"),
        }
    }
}
