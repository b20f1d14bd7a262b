//! vLLM's own defaults for a flag its command line leaves out, claimed only where the version
//! and what else is known make the value certain. Each figure is read in vLLM's source at the
//! tag named beside it; a version not listed here claims nothing (the value stays unread).

use engines::EngineConfig;

/// A default that holds for this server, and the note that says why (version, source file).
#[derive(Debug, Clone, PartialEq)]
pub struct Claimed {
    pub value: f64,
    pub note: String,
}

/// `--max-num-seqs` left out of a vLLM 0.32.0 command line, with the device known: vLLM's CPU
/// platform (`on_cpu`, read from the process), or the GPU (`--gpu`).
///
/// vllm/engine/arg_utils.py at v0.32.0, `EngineArgs.get_batch_defaults` and
/// `_set_default_max_num_seqs_and_batched_tokens_args`, for the OpenAI server usage context
/// (`vllm serve` and `python -m vllm.entrypoints.openai.api_server` alike,
/// vllm/entrypoints/launchers/api_server/entry.py): on the CPU platform 128 × world size
/// (tensor × pipeline parallel); on a GPU 1024 when the device has ≥ 160 GiB, or ≥ 70 GiB and
/// its name does not contain "a100", else 256. Then doubled under `--performance-mode
/// throughput`, and capped at `max_num_batched_tokens` (its default is never under the seat
/// default; the batched-DP MoE path, data parallel > 1 with expert parallel, sets it to 256,
/// vllm/config/scheduler.py at v0.32.0). So the value is certain only with the performance mode
/// not on the line and data parallel at most 1.
pub fn vllm_max_num_seqs(
    version: &str,
    cfg: &EngineConfig,
    on_cpu: Option<bool>,
    gpu: Option<&physics::catalog::Gpu>,
) -> Option<Claimed> {
    if version.trim() != "0.32.0" || cfg.max_num_seqs.is_some() {
        return None;
    }
    // A mode we cannot read the value of may double it.
    if cfg.unknown_flags.iter().any(|f| f == "--performance-mode") {
        return None;
    }
    if cfg.data_parallel_size.as_ref().is_some_and(|k| k.value > 1) {
        return None;
    }
    let (seqs, on) = if on_cpu == Some(true) {
        let size = |k: &Option<engines::Known<u64>>| k.as_ref().map_or(1, |k| k.value.max(1));
        let world = size(&cfg.tensor_parallel_size) * size(&cfg.pipeline_parallel_size);
        (
            128.0 * world as f64,
            format!("vLLM's CPU platform (128 × world size {world})"),
        )
    } else {
        let gpu = gpu?;
        let gib = gpu.memory_gib.value;
        let a100 = format!("{} {}", gpu.id, gpu.name)
            .to_ascii_lowercase()
            .contains("a100");
        let (seqs, why) = if gib >= 160.0 {
            (1024.0, "≥ 160 GiB")
        } else if gib >= 70.0 && !a100 {
            (1024.0, "≥ 70 GiB, not an A100")
        } else {
            (256.0, "under 70 GiB, or an A100")
        };
        (seqs, format!("{} ({gib:.0} GiB: {why})", gpu.name))
    };
    let (value, capped) = match cfg.max_num_batched_tokens.as_ref() {
        Some(b) if (b.value as f64) < seqs => (b.value as f64, " capped at max_num_batched_tokens"),
        _ => (seqs, ""),
    };
    Some(Claimed {
        value,
        note: format!(
            "vLLM 0.32.0 default for the OpenAI server on {on}{capped}; \
             vllm/engine/arg_utils.py get_batch_defaults at v0.32.0"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use engines::{Known, Source};

    fn gpu(name: &str) -> physics::catalog::Gpu {
        physics::Catalog::embedded()
            .unwrap()
            .gpu(name)
            .unwrap()
            .entry
            .clone()
    }

    #[test]
    fn the_cpu_platform_is_128_per_worker() {
        let c = EngineConfig::default();
        let cpu = vllm_max_num_seqs("0.32.0", &c, Some(true), None).unwrap();
        assert_eq!(cpu.value, 128.0);
        assert!(cpu.note.contains("CPU platform"), "{}", cpu.note);
        // The process's platform wins over a --gpu that names another device.
        let h100 = gpu("H100-SXM");
        assert_eq!(
            vllm_max_num_seqs("0.32.0", &c, Some(true), Some(&h100))
                .unwrap()
                .value,
            128.0
        );
        let mut tp = c.clone();
        tp.tensor_parallel_size = Some(Known::new(2, Source::ProcessCmdline));
        tp.pipeline_parallel_size = Some(Known::new(2, Source::ProcessCmdline));
        assert_eq!(
            vllm_max_num_seqs("0.32.0", &tp, Some(true), None)
                .unwrap()
                .value,
            512.0
        );
        let mut small = c.clone();
        small.max_num_batched_tokens = Some(Known::new(64, Source::ProcessCmdline));
        assert_eq!(
            vllm_max_num_seqs("0.32.0", &small, Some(true), None)
                .unwrap()
                .value,
            64.0
        );
        // Not on CPU, or not read, and no GPU: nothing claimed.
        assert!(vllm_max_num_seqs("0.32.0", &c, Some(false), None).is_none());
        assert!(vllm_max_num_seqs("0.11.0", &c, Some(true), None).is_none());
    }

    #[test]
    fn the_version_and_the_gpu_decide() {
        let c = EngineConfig::default();
        let h100 = gpu("H100-SXM");
        assert_eq!(
            vllm_max_num_seqs("0.32.0", &c, None, Some(&h100))
                .unwrap()
                .value,
            1024.0
        );
        assert_eq!(
            vllm_max_num_seqs("0.32.0", &c, None, Some(&gpu("L4")))
                .unwrap()
                .value,
            256.0
        );
        let a100 = vllm_max_num_seqs("0.32.0", &c, None, Some(&gpu("A100-SXM-80GB"))).unwrap();
        assert_eq!(a100.value, 256.0);
        assert!(a100.note.contains("arg_utils.py"), "{}", a100.note);
        // Another version, no GPU, or the flag on the line: nothing claimed.
        assert!(vllm_max_num_seqs("0.11.0", &c, None, Some(&h100)).is_none());
        assert!(vllm_max_num_seqs("0.32.0", &c, None, None).is_none());
        let mut set = c.clone();
        set.max_num_seqs = Some(Known::new(64, Source::ProcessCmdline));
        assert!(vllm_max_num_seqs("0.32.0", &set, None, Some(&h100)).is_none());
        // A performance mode we did not read, or data parallel: not certain.
        let mut mode = c.clone();
        mode.unknown_flags.push("--performance-mode".into());
        assert!(vllm_max_num_seqs("0.32.0", &mode, None, Some(&h100)).is_none());
        let mut dp = c.clone();
        dp.data_parallel_size = Some(Known::new(2, Source::ProcessCmdline));
        assert!(vllm_max_num_seqs("0.32.0", &dp, None, Some(&h100)).is_none());
        // A batch budget under the seat default caps it.
        let mut small = c.clone();
        small.max_num_batched_tokens = Some(Known::new(512, Source::ProcessCmdline));
        assert_eq!(
            vllm_max_num_seqs("0.32.0", &small, None, Some(&h100))
                .unwrap()
                .value,
            512.0
        );
    }
}
