//! The engine flags the emulator honours, in vLLM's words and with vLLM V1's defaults.

use serde::{Deserialize, Serialize};

use crate::cost::GIB;

/// vLLM V1 online-serving defaults depend on the GPU: ≥ 70 GiB parts get the larger budget.
pub const LARGE_GPU_BYTES: f64 = 70.0 * GIB;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineArgs {
    /// `--served-model-name`; the model id otherwise.
    pub served_model_name: String,
    pub max_num_seqs: u32,
    pub max_model_len: u32,
    pub max_num_batched_tokens: u32,
    pub gpu_memory_utilization: f64,
    pub enable_prefix_caching: bool,
    /// Prompts may be split across steps (on by default in vLLM V1). Off, a prompt is admitted
    /// only whole, and `--max-num-batched-tokens` must cover `--max-model-len`.
    pub enable_chunked_prefill: bool,
    /// "auto" (the model's 16-bit dtype) or "fp8".
    pub kv_cache_dtype: String,
    pub tensor_parallel_size: u32,
    /// `--quantization` (weights format, e.g. fp8); None = the model's own dtype.
    pub quantization: Option<String>,
    pub block_size: u32,
    /// Seeds the generated tokens (and, through the scenario, the load).
    pub seed: u64,
}

/// Flags as given; `None` takes vLLM's default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ArgOverrides {
    pub served_model_name: Option<String>,
    pub max_num_seqs: Option<u32>,
    pub max_model_len: Option<u32>,
    pub max_num_batched_tokens: Option<u32>,
    pub gpu_memory_utilization: Option<f64>,
    pub enable_prefix_caching: Option<bool>,
    pub enable_chunked_prefill: Option<bool>,
    pub kv_cache_dtype: Option<String>,
    pub tensor_parallel_size: Option<u32>,
    pub quantization: Option<String>,
    pub seed: Option<u64>,
}

impl ArgOverrides {
    /// These flags as a vLLM command line, `vllm serve MODEL --flag value`, with only the flags
    /// that were given (a flag left out takes vLLM's default, as on a real vLLM's command line).
    pub fn vllm_argv(&self, model_id: String) -> Vec<String> {
        let mut v: Vec<String> = vec!["vllm".into(), "serve".into(), model_id];
        let mut put = |flag: &str, value: Option<String>| {
            if let Some(x) = value {
                v.push(flag.into());
                v.push(x);
            }
        };
        put("--served-model-name", self.served_model_name.clone());
        put("--max-num-seqs", self.max_num_seqs.map(|x| x.to_string()));
        put("--max-model-len", self.max_model_len.map(|x| x.to_string()));
        put(
            "--max-num-batched-tokens",
            self.max_num_batched_tokens.map(|x| x.to_string()),
        );
        put(
            "--gpu-memory-utilization",
            self.gpu_memory_utilization.map(|x| x.to_string()),
        );
        put("--kv-cache-dtype", self.kv_cache_dtype.clone());
        put(
            "--tensor-parallel-size",
            self.tensor_parallel_size.map(|x| x.to_string()),
        );
        put("--quantization", self.quantization.clone());
        for (on, yes, no) in [
            (
                self.enable_prefix_caching,
                "--enable-prefix-caching",
                "--no-enable-prefix-caching",
            ),
            (
                self.enable_chunked_prefill,
                "--enable-chunked-prefill",
                "--no-enable-chunked-prefill",
            ),
        ] {
            if let Some(on) = on {
                v.push(if on { yes } else { no }.into());
            }
        }
        v
    }

    /// The flags after one prescribed step turns `knob` (to `value` when the step names one),
    /// with the value applied; None where the emulator has no such setting, or the step would
    /// not change what runs. `current` is what runs now (the defaults resolved).
    pub fn turn(
        &self,
        knob: engines::Knob,
        value: Option<&str>,
        current: &EngineArgs,
    ) -> Option<(ArgOverrides, Option<String>)> {
        use engines::Knob;
        let mut o = self.clone();
        let count = || {
            value
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| *v >= 1.0)
                .map(|v| v as u32)
        };
        let applied = match knob {
            Knob::PrefixCaching => {
                if current.enable_prefix_caching {
                    return None;
                }
                o.enable_prefix_caching = Some(true);
                None
            }
            Knob::KvCache8bit => {
                if current.kv_cache_dtype == "fp8" {
                    return None;
                }
                o.kv_cache_dtype = Some("fp8".into());
                None
            }
            Knob::MaxNumSeqs => {
                let v = count()?;
                o.max_num_seqs = Some(v);
                Some(v.to_string())
            }
            Knob::MaxNumBatchedTokens => {
                let v = count()?;
                o.max_num_batched_tokens = Some(v);
                Some(v.to_string())
            }
            Knob::TensorParallelSize => {
                let v = count()?;
                o.tensor_parallel_size = Some(v);
                Some(v.to_string())
            }
            Knob::GpuMemoryUtilization => {
                // A step without a value means "raise it": by 0.05, at most 0.95.
                let now = current.gpu_memory_utilization;
                let v = value
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or((now + 0.05).min(0.95));
                if v <= now {
                    return None;
                }
                o.gpu_memory_utilization = Some(v);
                Some(format!("{v:.2}"))
            }
            // The emulator sizes its pool from the memory share only: no fixed-size pool to grow.
            Knob::MaxModelLen
            | Knob::KvOffloading
            | Knob::KvBlocksOverride
            | Knob::KvCacheMemoryBytes
            | Knob::KvPoolTokens => return None,
        };
        Some((o, applied))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    #[error("{flag} {value}: {why}")]
    Invalid {
        flag: &'static str,
        value: String,
        why: String,
    },
}

fn invalid(flag: &'static str, value: impl ToString, why: &str) -> ArgsError {
    ArgsError::Invalid {
        flag,
        value: value.to_string(),
        why: why.to_string(),
    }
}

impl EngineArgs {
    /// Resolves overrides against vLLM V1's OpenAI-server defaults for a GPU group of
    /// `vram_bytes` per GPU: max-num-seqs 1024 and max-num-batched-tokens 8192 on ≥ 70 GiB
    /// parts, else 256 and 2048; prefix caching on; utilization 0.9; max-model-len from the
    /// model (`model_max_len`).
    pub fn resolve(
        o: &ArgOverrides,
        model_id: &str,
        vram_bytes_per_gpu: f64,
        model_max_len: u32,
    ) -> Result<EngineArgs, ArgsError> {
        let large = vram_bytes_per_gpu >= LARGE_GPU_BYTES;
        let a = EngineArgs {
            served_model_name: o
                .served_model_name
                .clone()
                .unwrap_or_else(|| model_id.into()),
            max_num_seqs: o.max_num_seqs.unwrap_or(if large { 1024 } else { 256 }),
            max_model_len: o.max_model_len.unwrap_or(model_max_len),
            max_num_batched_tokens: o.max_num_batched_tokens.unwrap_or(if large {
                8192
            } else {
                2048
            }),
            gpu_memory_utilization: o.gpu_memory_utilization.unwrap_or(0.9),
            enable_prefix_caching: o.enable_prefix_caching.unwrap_or(true),
            enable_chunked_prefill: o.enable_chunked_prefill.unwrap_or(true),
            kv_cache_dtype: o.kv_cache_dtype.clone().unwrap_or_else(|| "auto".into()),
            tensor_parallel_size: o.tensor_parallel_size.unwrap_or(1),
            quantization: o.quantization.clone(),
            block_size: 16,
            seed: o.seed.unwrap_or(0),
        };
        a.validate()?;
        Ok(a)
    }

    pub fn validate(&self) -> Result<(), ArgsError> {
        if self.max_num_seqs == 0 {
            return Err(invalid("--max-num-seqs", 0, "must be at least 1"));
        }
        if self.max_model_len < 2 {
            return Err(invalid(
                "--max-model-len",
                self.max_model_len,
                "must be at least 2",
            ));
        }
        if self.max_num_batched_tokens == 0 {
            return Err(invalid("--max-num-batched-tokens", 0, "must be at least 1"));
        }
        if !self.enable_chunked_prefill && self.max_num_batched_tokens < self.max_model_len {
            return Err(invalid(
                "--max-num-batched-tokens",
                self.max_num_batched_tokens,
                &format!(
                    "is smaller than --max-model-len {} with chunked prefill off: no request \
                     longer than the budget could ever run (vLLM refuses this too)",
                    self.max_model_len
                ),
            ));
        }
        let u = self.gpu_memory_utilization;
        if !(u > 0.0 && u <= 1.0) {
            return Err(invalid("--gpu-memory-utilization", u, "must be in (0, 1]"));
        }
        if !matches!(
            self.kv_cache_dtype.as_str(),
            "auto" | "fp8" | "fp8_e4m3" | "fp8_e5m2"
        ) {
            return Err(invalid(
                "--kv-cache-dtype",
                &self.kv_cache_dtype,
                "the emulator knows auto, fp8, fp8_e4m3, fp8_e5m2",
            ));
        }
        if self.tensor_parallel_size == 0 || self.tensor_parallel_size > 64 {
            return Err(invalid(
                "--tensor-parallel-size",
                self.tensor_parallel_size,
                "must be 1–64",
            ));
        }
        Ok(())
    }

    /// The command line a real vLLM would be launched with for this config (what `headroom
    /// diagnose --engine-args` reads: max-num-seqs and the batch budget are not in /metrics).
    pub fn command_line(&self, model: &str) -> String {
        let mut s = format!(
            "vllm serve {model} --served-model-name {} --max-num-seqs {} --max-model-len {} \
             --max-num-batched-tokens {} --gpu-memory-utilization {} --kv-cache-dtype {} \
             --tensor-parallel-size {}",
            self.served_model_name,
            self.max_num_seqs,
            self.max_model_len,
            self.max_num_batched_tokens,
            self.gpu_memory_utilization,
            self.kv_cache_dtype,
            self.tensor_parallel_size
        );
        if let Some(q) = &self.quantization {
            s.push_str(&format!(" --quantization {q}"));
        }
        if !self.enable_chunked_prefill {
            s.push_str(" --no-enable-chunked-prefill");
        }
        s.push_str(if self.enable_prefix_caching {
            " --enable-prefix-caching"
        } else {
            " --no-enable-prefix-caching"
        });
        s
    }

    /// `vllm:cache_config_info` labels: CacheConfig fields as `str(value)` (Python spelling).
    /// vLLM 0.32's whole label set, as a GPU server without a fixed-size pool prints it
    /// (fixtures/vllm-0.32), plus three of the 0.11 fields (`calculate_kv_scales`,
    /// `cpu_offload_gb`, `swap_space`) that 0.32 dropped: R4 reads `cpu_offload_gb`.
    pub fn cache_config_labels(
        &self,
        num_gpu_blocks: usize,
        cpu_offload_gb: f64,
    ) -> Vec<(&'static str, String)> {
        let py_bool = |b: bool| if b { "True" } else { "False" }.to_string();
        let none = || "None".to_string();
        let tokens = num_gpu_blocks as u64 * self.block_size as u64;
        let mut v032 = vec![
            ("_block_size_resolved", py_bool(true)),
            ("cache_hit_alignment_tokens", none()),
            (
                "effective_attention_block_size",
                self.block_size.to_string(),
            ),
            ("enable_mamba_shared_prefix_checkpoint", py_bool(false)),
            ("hash_block_size", none()),
            ("kv_cache_dtype_skip_layers", "[]".into()),
            ("kv_cache_layout", none()),
            (
                "kv_cache_max_concurrency",
                crate::metrics::py_repr(tokens as f64 / self.max_model_len as f64),
            ),
            // Set only by --kv-cache-memory-bytes (or on the CPU build): the emulator's pool
            // is sized by the memory share.
            ("kv_cache_memory_bytes", none()),
            ("kv_cache_size_tokens", tokens.to_string()),
            ("kv_offloading_backend", "native".into()),
            ("kv_offloading_size", none()),
            ("mamba_block_size", none()),
            ("mamba_cache_dtype", "auto".into()),
            ("mamba_cache_mode", "none".into()),
            ("mamba_page_size_padded", none()),
            ("mamba_ssm_cache_dtype", "auto".into()),
            ("prefix_cache_retention_interval", "0".into()),
            ("prefix_match_unit", none()),
            ("replayssm_buffer_len", "16".into()),
            ("skip_page_size_padded", none()),
            ("swa_bounded_replay", py_bool(true)),
            ("use_kda_recoverssm", py_bool(false)),
            ("use_replayssm", py_bool(false)),
            ("user_specified_block_size", py_bool(false)),
        ];
        let mut v = vec![
            ("block_size", self.block_size.to_string()),
            ("cache_dtype", self.kv_cache_dtype.clone()),
            ("calculate_kv_scales", py_bool(false)),
            // vLLM's default is the int 0; a value given on the command line is a float.
            (
                "cpu_offload_gb",
                if cpu_offload_gb > 0.0 {
                    crate::metrics::py_repr(cpu_offload_gb.ceil())
                } else {
                    "0".into()
                },
            ),
            ("enable_prefix_caching", py_bool(self.enable_prefix_caching)),
            (
                "gpu_memory_utilization",
                crate::metrics::py_repr(self.gpu_memory_utilization),
            ),
            ("is_attention_free", py_bool(false)),
            ("kv_sharing_fast_prefill", py_bool(false)),
            ("num_cpu_blocks", "None".into()),
            ("num_gpu_blocks", num_gpu_blocks.to_string()),
            ("num_gpu_blocks_override", "None".into()),
            ("prefix_caching_hash_algo", "sha256".into()),
            ("sliding_window", "None".into()),
            ("swap_space", "4".into()),
        ];
        v.append(&mut v032);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_gpu_size() {
        let o = ArgOverrides::default();
        let big = EngineArgs::resolve(&o, "m", 80.0 * GIB, 131072).unwrap();
        assert_eq!((big.max_num_seqs, big.max_num_batched_tokens), (1024, 8192));
        assert!(big.enable_prefix_caching);
        let small = EngineArgs::resolve(&o, "m", 24.0 * GIB, 4096).unwrap();
        assert_eq!(
            (small.max_num_seqs, small.max_num_batched_tokens),
            (256, 2048)
        );
        assert_eq!(small.max_model_len, 4096);
    }

    #[test]
    fn bad_flags_are_named() {
        let o = ArgOverrides {
            gpu_memory_utilization: Some(1.5),
            ..Default::default()
        };
        let e = EngineArgs::resolve(&o, "m", 80.0 * GIB, 8192).unwrap_err();
        assert!(
            e.to_string().contains("--gpu-memory-utilization 1.5"),
            "{e}"
        );
        let o = ArgOverrides {
            kv_cache_dtype: Some("int3".into()),
            ..Default::default()
        };
        assert!(EngineArgs::resolve(&o, "m", 80.0 * GIB, 8192).is_err());
    }

    #[test]
    fn command_line_and_labels() {
        let o = ArgOverrides {
            max_num_seqs: Some(64),
            enable_prefix_caching: Some(false),
            ..Default::default()
        };
        let a = EngineArgs::resolve(&o, "meta-llama/Llama-3.1-8B", 80.0 * GIB, 8192).unwrap();
        let c = a.command_line("meta-llama/Llama-3.1-8B");
        assert!(c.starts_with("vllm serve meta-llama/Llama-3.1-8B "));
        assert!(c.contains("--max-num-seqs 64") && c.ends_with("--no-enable-prefix-caching"));
        let l = a.cache_config_labels(1234, 0.0);
        let get = |k: &str| l.iter().find(|(n, _)| *n == k).unwrap().1.clone();
        assert_eq!(get("enable_prefix_caching"), "False");
        assert_eq!(get("num_gpu_blocks"), "1234");
        assert_eq!(get("gpu_memory_utilization"), "0.9");
        assert_eq!(get("cpu_offload_gb"), "0");
        assert_eq!(a.cache_config_labels(1, 70.2)[3].1, "71.0");
    }
}
