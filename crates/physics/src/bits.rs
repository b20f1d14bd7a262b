//! Bits per parameter: weight formats, KV cache formats, and the resolution chain.
//!
//! The chain, first that is set wins and is named: engine-reported quantization,
//! the model file's own tensor types (a GGUF is what llama.cpp streams), `--quantization`,
//! engine-reported dtype, `--dtype`, the catalog default, then bf16 as a labelled fallback.
//! `auto` (vLLM's default dtype) defers to the next link. An engine-reported name headroom does
//! not know is skipped with a note; an unknown name the user typed is an error.

use serde::{Deserialize, Serialize};

use crate::provenance::Provenance;
use crate::PhysicsError;

/// Which tensor-core rate a weight format computes at (prefill and the ridge).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ComputeClass {
    /// 16-bit activations: bf16/fp16 weights and weight-only quantization (W4A16, W8A16).
    Bf16,
    /// FP8 weights and activations (W8A8-FP8).
    Fp8,
    /// FP4 weights and activations (NVFP4 on Blackwell).
    Fp4,
}

/// A weight storage format.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WeightFormat {
    /// Canonical name.
    pub name: &'static str,
    /// Stored bits per parameter, scales included where the format defines them
    /// (MXFP4: 4 + 8/32; GGUF block types from their block size). Group-quantized formats
    /// (AWQ, GPTQ) are counted at their nominal 4 bits; their scales add a few percent.
    pub bits: f64,
    pub compute: ComputeClass,
}

const fn wf(name: &'static str, bits: f64, compute: ComputeClass) -> WeightFormat {
    WeightFormat {
        name,
        bits,
        compute,
    }
}

use ComputeClass::{Bf16, Fp4, Fp8};

/// Known weight formats, as `(accepted spellings, format)`. Spellings are compared after
/// lower-casing and dropping `-`/`_`.
const FORMATS: &[(&[&str], WeightFormat)] = &[
    (&["fp32", "float32", "float", "f32"], wf("fp32", 32.0, Bf16)),
    (&["bf16", "bfloat16"], wf("bf16", 16.0, Bf16)),
    (&["fp16", "float16", "half", "f16"], wf("fp16", 16.0, Bf16)),
    (
        &[
            "fp8",
            "fp8e4m3",
            "fp8e5m2",
            "fbgemmfp8",
            "ptpcfp8",
            "modelopt",
            "fp8w8a8",
        ],
        wf("fp8", 8.0, Fp8),
    ),
    (
        &["int8", "w8a8", "smoothquant", "w8a16", "int8w8a16"],
        wf("int8", 8.0, Bf16),
    ),
    (
        &[
            "awq",
            "awqmarlin",
            "gptq",
            "gptqmarlin",
            "int4",
            "w4a16",
            "bitsandbytes",
            "nf4",
            "marlin",
        ],
        wf("int4", 4.0, Bf16),
    ),
    (&["mxfp4", "mxfp4moe"], wf("mxfp4", 4.25, Bf16)),
    (&["nvfp4", "modeloptfp4", "fp4"], wf("nvfp4", 4.5, Fp4)),
    // llama.cpp GGUF file types, as `llama-quantize` names them (any case, `_` optional). A
    // file type is a mix: llama.cpp's per-tensor rules (src/llama-quant.cpp,
    // llama_tensor_get_type) keep output.weight and some attention/FFN tensors at a higher type,
    // so a Q4_K_M file averages ~4.86 bits per weight, not Q4_K's 4.5. Approximate: bytes x 8 /
    // params of real files (the mean over fixtures/scoreboards/gguf_file_bits.toml: Llama 3/3.1
    // 8B and Mistral 7B files on Hugging Face, and llama-quantize's own size table in
    // tools/quantize/quantize.cpp at 03161a4e); where no file was read, the bits per weight
    // llama-quantize's table states for the type (the mix adds a little for output.weight).
    // `--gguf FILE` reads the real tensor types instead and is exact. A catalogued model whose
    // shape `crate::mix` covers is sized by llama-quantize's per-tensor rules instead of this
    // average (its bytes land within 2 % of real files, small tied-embedding models included).
    // llama.cpp computes these through its own kernels; the 16-bit tensor rate stands in.
    (&["q40"], wf("Q4_0", 4.59, Bf16)),
    (&["q41"], wf("Q4_1", 5.11, Bf16)),
    (&["q50"], wf("Q5_0", 5.55, Bf16)),
    (&["q51"], wf("Q5_1", 6.04, Bf16)),
    (&["q80"], wf("Q8_0", 8.51, Bf16)),
    (&["q2k", "q2ks"], wf("Q2_K", 3.28, Bf16)),
    (&["q3ks"], wf("Q3_K_S", 3.57, Bf16)),
    // llama-quantize takes Q3_K, Q4_K and Q5_K as aliases of the _M mixes.
    (&["q3km", "q3k"], wf("Q3_K_M", 3.97, Bf16)),
    (&["q3kl"], wf("Q3_K_L", 4.27, Bf16)),
    (&["q4ks"], wf("Q4_K_S", 4.64, Bf16)),
    (&["q4km", "q4k"], wf("Q4_K_M", 4.86, Bf16)),
    (&["q5ks"], wf("Q5_K_S", 5.58, Bf16)),
    (&["q5km", "q5k"], wf("Q5_K_M", 5.71, Bf16)),
    (&["q6k"], wf("Q6_K", 6.57, Bf16)),
    (&["iq1s"], wf("IQ1_S", 1.56, Bf16)),
    (&["iq1m"], wf("IQ1_M", 1.75, Bf16)),
    (&["iq2xxs"], wf("IQ2_XXS", 2.06, Bf16)),
    (&["iq2xs"], wf("IQ2_XS", 2.31, Bf16)),
    (&["iq2s"], wf("IQ2_S", 2.5, Bf16)),
    (&["iq2m"], wf("IQ2_M", 2.94, Bf16)),
    (&["iq3xxs"], wf("IQ3_XXS", 3.06, Bf16)),
    (&["iq3xs"], wf("IQ3_XS", 3.3, Bf16)),
    (&["iq3s"], wf("IQ3_S", 3.44, Bf16)),
    (&["iq3m"], wf("IQ3_M", 3.66, Bf16)),
    (&["iq4nl"], wf("IQ4_NL", 4.5, Bf16)),
    (&["iq4xs"], wf("IQ4_XS", 4.43, Bf16)),
    (&["tq10"], wf("TQ1_0", 1.69, Bf16)),
    (&["tq20"], wf("TQ2_0", 2.06, Bf16)),
];

/// A name with case, spaces, `-` and `_` ignored.
pub(crate) fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '-' | '_' | ' '))
        .flat_map(|c| c.to_lowercase())
        .collect()
}

/// The weight format a dtype or quantization name denotes. A bare number (`3`, `4.5`,
/// `3bit`, `3bpw`) is taken as bits per parameter. `auto` and unknown names are `None`.
pub fn weight_format(name: &str) -> Option<WeightFormat> {
    let s = squash(name);
    if let Some((_, f)) = FORMATS
        .iter()
        .find(|(names, _)| names.contains(&s.as_str()))
    {
        return Some(*f);
    }
    let num = s
        .strip_suffix("bpw")
        .or_else(|| s.strip_suffix("bits"))
        .or_else(|| s.strip_suffix("bit"))
        .unwrap_or(&s);
    match num.parse::<f64>() {
        Ok(b) if (1.0..=32.0).contains(&b) => Some(wf("bits", b, Bf16)),
        _ => None,
    }
}

/// The names [`weight_format`] accepts, for error messages.
pub fn known_weight_formats() -> String {
    let mut v: Vec<&str> = FORMATS.iter().map(|(_, f)| f.name).collect();
    v.dedup();
    format!("{}, or a number of bits (e.g. 4.5)", v.join(", "))
}

fn is_unset(name: &str) -> bool {
    matches!(squash(name).as_str(), "" | "auto" | "none" | "null")
}

/// Bytes per element of a KV cache dtype. `auto` means the model's 16-bit activation dtype.
pub fn kv_dtype_bytes(name: &str) -> Option<(f64, &'static str)> {
    Some(match squash(name).as_str() {
        "auto" | "bf16" | "bfloat16" | "fp16" | "float16" | "f16" | "half" => (2.0, "16-bit"),
        "fp32" | "float32" | "f32" => (4.0, "fp32"),
        "fp8" | "fp8e4m3" | "fp8e5m2" | "fp8inc" => (1.0, "fp8"),
        "q80" => (34.0 / 32.0, "q8_0"),
        "q40" | "iq4nl" => (18.0 / 32.0, "q4_0"),
        "q41" => (20.0 / 32.0, "q4_1"),
        "q50" => (22.0 / 32.0, "q5_0"),
        "q51" => (24.0 / 32.0, "q5_1"),
        _ => return None,
    })
}

/// Which link of the chain supplied the bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BitsSource {
    EngineQuantization,
    ModelFile,
    QuantizationFlag,
    EngineDtype,
    DtypeFlag,
    CatalogDefault,
    Fallback,
}

impl BitsSource {
    pub fn label(self) -> &'static str {
        match self {
            BitsSource::EngineQuantization => "engine-reported quantization",
            BitsSource::ModelFile => "model file tensor types",
            BitsSource::QuantizationFlag => "--quantization",
            BitsSource::EngineDtype => "engine-reported dtype",
            BitsSource::DtypeFlag => "--dtype",
            BitsSource::CatalogDefault => "catalog default",
            BitsSource::Fallback => "bf16 fallback",
        }
    }

    pub fn provenance(self) -> Provenance {
        match self {
            BitsSource::EngineQuantization | BitsSource::EngineDtype => Provenance::Measured,
            BitsSource::ModelFile => Provenance::ModelFile,
            BitsSource::QuantizationFlag | BitsSource::DtypeFlag => Provenance::EngineFlag,
            BitsSource::CatalogDefault => Provenance::Catalog,
            BitsSource::Fallback => Provenance::Fallback,
        }
    }
}

/// What the chain is given. Every field is optional.
#[derive(Debug, Clone, Default)]
pub struct BitsInputs<'a> {
    pub engine_quantization: Option<&'a str>,
    /// Effective bits per active parameter of a model file (GGUF: active bytes × 8 / active
    /// params).
    pub model_file_bits: Option<f64>,
    pub quantization: Option<&'a str>,
    pub engine_dtype: Option<&'a str>,
    pub dtype: Option<&'a str>,
    pub catalog_dtype: Option<&'a str>,
    /// The catalog's routed-expert format, used only when the catalog default wins.
    pub catalog_expert_dtype: Option<&'a str>,
}

/// The chain's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BitsResolution {
    pub source: BitsSource,
    pub provenance: Provenance,
    /// Format name of the winner.
    pub format: String,
    /// Bits per parameter (for all weights, or the non-expert ones when `expert_bits` is set).
    pub bits: f64,
    /// Bits per routed-expert parameter, when the winner stores experts differently.
    pub expert_bits: Option<f64>,
    pub expert_format: Option<String>,
    pub compute: ComputeClass,
    /// Inputs that were given but did not win, or were skipped, with why.
    pub notes: Vec<String>,
}

/// Walk the chain.
pub fn resolve_bits(i: &BitsInputs) -> Result<BitsResolution, PhysicsError> {
    // One link: its source, the name given (or the file's bits), and the user flag it came
    // from ("" for values the engine or the catalog reported).
    enum Given<'a> {
        Name(Option<&'a str>, &'static str),
        FileBits(Option<f64>),
    }
    let links = [
        (
            BitsSource::EngineQuantization,
            Given::Name(i.engine_quantization, ""),
        ),
        (BitsSource::ModelFile, Given::FileBits(i.model_file_bits)),
        (
            BitsSource::QuantizationFlag,
            Given::Name(i.quantization, "--quantization"),
        ),
        (BitsSource::EngineDtype, Given::Name(i.engine_dtype, "")),
        (BitsSource::DtypeFlag, Given::Name(i.dtype, "--dtype")),
        (BitsSource::CatalogDefault, Given::Name(i.catalog_dtype, "")),
    ];
    let mut notes = Vec::new();
    let mut winner: Option<(BitsSource, WeightFormat, Option<WeightFormat>)> = None;
    // The routed experts' format when the model ships them in MXFP4 (gpt-oss).
    let catalog_mxfp4 = i
        .catalog_expert_dtype
        .and_then(weight_format)
        .filter(|e| e.name == "mxfp4");
    for (src, given) in links {
        let (fmt, shown) = match given {
            Given::FileBits(None) | Given::Name(None, _) => continue,
            Given::FileBits(Some(b)) => (wf("gguf", b, Bf16), format!("{b:.3} bits")),
            Given::Name(Some(name), _) if is_unset(name) => continue,
            Given::Name(Some(name), flag) => match weight_format(name) {
                Some(f) => (f, format!("'{name}'")),
                None if !flag.is_empty() => {
                    return Err(PhysicsError::UnknownFormat {
                        flag,
                        name: name.to_string(),
                        known: known_weight_formats(),
                    })
                }
                None => {
                    notes.push(format!(
                        "{} '{name}' is not a known format; skipped",
                        src.label()
                    ));
                    continue;
                }
            },
        };
        if let Some((w, _, _)) = &winner {
            notes.push(format!(
                "{} {shown} ignored: {} wins",
                src.label(),
                w.label()
            ));
            continue;
        }
        let (fmt, expert) = if src == BitsSource::CatalogDefault {
            (fmt, i.catalog_expert_dtype.and_then(weight_format))
        } else if let (Some(e), "mxfp4") = (catalog_mxfp4, fmt.name) {
            // MXFP4 named for a model whose experts ship in MXFP4 (gpt-oss) names the experts;
            // the rest is llama.cpp's MXFP4_MOE mix, Q8_0 (src/llama-quant.cpp): published
            // files (gpt-oss-20b 11.27 GiB, -120b 59.02 GiB) match that, not 4.25 bits
            // throughout.
            notes.push(
                "MXFP4 covers the routed experts; the other weights are counted as Q8_0, as \
                 llama.cpp's MXFP4_MOE files store them (vLLM and SGLang keep the checkpoint's \
                 BF16 there: leave --quantization out for their figure)"
                    .into(),
            );
            (
                weight_format("q8_0").expect("Q8_0 is a known format"),
                Some(e),
            )
        } else if names_gguf_file_type(src, &fmt) {
            // gpt-oss in GGUF: llama.cpp's converter writes the experts as MXFP4 whatever the
            // output type (conversion/gpt_oss.py), and llama-quantize does not requantize a
            // quantized tensor without --allow-requantize: the file type names the rest.
            if catalog_mxfp4.is_some() {
                notes.push(format!(
                    "the routed experts stay MXFP4 in every GGUF file type of this model \
                     (llama.cpp converts them as the checkpoint ships them); {} covers the \
                     other weights; --gguf FILE reads the file's own tensor types",
                    fmt.name
                ));
            }
            (fmt, catalog_mxfp4)
        } else {
            (fmt, None)
        };
        winner = Some((src, fmt, expert));
    }
    let (source, fmt, expert) = winner.unwrap_or_else(|| {
        notes.push("no quantization or dtype known: assuming bf16 (16 bits)".into());
        (BitsSource::Fallback, wf("bf16", 16.0, Bf16), None)
    });
    let compute = match expert {
        Some(e) => e.compute.min_rate(fmt.compute),
        None => fmt.compute,
    };
    Ok(BitsResolution {
        source,
        provenance: source.provenance(),
        format: fmt.name.to_string(),
        bits: fmt.bits,
        expert_bits: expert.map(|e| e.bits),
        expert_format: expert.map(|e| e.name.to_string()),
        compute,
        notes,
    })
}

/// Whether the winning name is a llama.cpp GGUF file type: the quantization's name (a flag or
/// what the engine reports) in llama-quantize's upper-case spelling (`Q4_K_M`, `IQ4_XS`), or
/// F16/BF16/F32, which only GGUF names as a quantization (vLLM and SGLang take them as a dtype).
fn names_gguf_file_type(src: BitsSource, fmt: &WeightFormat) -> bool {
    matches!(
        src,
        BitsSource::QuantizationFlag | BitsSource::EngineQuantization
    ) && (fmt.name.starts_with(|c: char| c.is_ascii_uppercase())
        || matches!(fmt.name, "fp16" | "bf16" | "fp32"))
}

impl ComputeClass {
    /// Of two compute classes in one model, the slower (a mix runs its 16-bit parts at 16-bit).
    fn min_rate(self, other: ComputeClass) -> ComputeClass {
        let rank = |c: ComputeClass| match c {
            Bf16 => 0,
            Fp8 => 1,
            Fp4 => 2,
        };
        if rank(self) <= rank(other) {
            self
        } else {
            other
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn format_names() {
        let cases: &[(&str, Option<f64>)] = &[
            ("bf16", Some(16.0)),
            ("BFloat16", Some(16.0)),
            ("float16", Some(16.0)),
            ("fp8", Some(8.0)),
            ("FP8_E4M3", Some(8.0)),
            ("awq", Some(4.0)),
            ("gptq_marlin", Some(4.0)),
            ("mxfp4", Some(4.25)),
            ("nvfp4", Some(4.5)),
            ("Q4_0", Some(4.59)),
            ("q8_0", Some(8.51)),
            ("Q6_K", Some(6.57)),
            ("Q4_K_M", Some(4.86)),
            ("q4_k_m", Some(4.86)),
            ("Q4_K", Some(4.86)),
            ("q3_k_l", Some(4.27)),
            ("IQ2_XXS", Some(2.06)),
            ("iq4_xs", Some(4.43)),
            ("TQ1_0", Some(1.69)),
            ("MXFP4_MOE", Some(4.25)),
            ("F16", Some(16.0)),
            ("BF16", Some(16.0)),
            ("F32", Some(32.0)),
            ("3", Some(3.0)),
            ("4.5bit", Some(4.5)),
            ("3bpw", Some(3.0)),
            ("auto", None),
            ("0.5", None),
            ("compressed-tensors", None),
        ];
        for (n, want) in cases {
            assert_eq!(weight_format(n).map(|f| f.bits), *want, "{n}");
        }
    }

    /// One real GGUF file of fixtures/scoreboards/gguf_file_bits.toml.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub(crate) struct RealFile {
        pub file_type: String,
        pub file: String,
        pub source: String,
        pub bytes: f64,
        pub params: f64,
        /// `false`: kept out of the averaged table (a small tied-embedding model).
        pub averaged: Option<bool>,
        /// Why a file predates today's llama-quantize rules.
        pub older_mix: Option<String>,
    }

    /// The real files, parsed.
    pub(crate) fn real_files() -> Vec<RealFile> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Files {
            file: Vec<RealFile>,
        }
        let f: Files = toml::from_str(include_str!(
            "../../../fixtures/scoreboards/gguf_file_bits.toml"
        ))
        .unwrap();
        f.file
    }

    /// Every file type `llama-quantize` writes is accepted by name, and the mixes' bits match
    /// the real files in fixtures/scoreboards/gguf_file_bits.toml: Q4_K_M within 2 % of their
    /// mean, every type with files within 3 %.
    #[test]
    fn gguf_mix_bits_match_real_files() {
        for t in [
            "Q2_K", "Q3_K_S", "Q3_K_M", "Q3_K_L", "Q4_0", "Q4_1", "Q4_K_S", "Q4_K_M", "Q5_0",
            "Q5_1", "Q5_K_S", "Q5_K_M", "Q6_K", "Q8_0", "IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS",
            "IQ2_S", "IQ2_M", "IQ3_XXS", "IQ3_XS", "IQ3_S", "IQ3_M", "IQ4_NL", "IQ4_XS", "TQ1_0",
            "TQ2_0", "F16", "BF16", "F32", "MXFP4",
        ] {
            for spelling in [t.to_string(), t.to_lowercase(), t.replace('_', "")] {
                assert!(weight_format(&spelling).is_some(), "{spelling}");
            }
        }
        let files = real_files();
        let mut by_type: std::collections::BTreeMap<&str, Vec<f64>> = Default::default();
        for x in files.iter().filter(|x| x.averaged != Some(false)) {
            assert!(x.source.contains("http") || x.source.contains("quantize.cpp"));
            by_type
                .entry(&x.file_type)
                .or_default()
                .push(x.bytes * 8.0 / x.params);
        }
        assert!(by_type["Q4_K_M"].len() >= 4);
        for (t, bits) in by_type {
            let mean = bits.iter().sum::<f64>() / bits.len() as f64;
            let ours = weight_format(t).unwrap().bits;
            let tol = if t == "Q4_K_M" { 0.02 } else { 0.03 };
            assert!(
                (ours / mean - 1.0).abs() <= tol,
                "{t}: {ours} vs the files' mean {mean:.3} (n={})",
                bits.len()
            );
        }
        // A Q4_K_M file is not Q4_K's 4.5 bits: some tensors are Q6_K.
        assert!(weight_format("Q4_K_M").unwrap().bits > 4.5 * 1.05);
    }

    #[test]
    fn kv_formats() {
        assert_eq!(kv_dtype_bytes("auto").unwrap().0, 2.0);
        assert_eq!(kv_dtype_bytes("fp8_e5m2").unwrap().0, 1.0);
        assert_eq!(kv_dtype_bytes("q8_0").unwrap().0, 34.0 / 32.0);
        assert!(kv_dtype_bytes("int3").is_none());
    }

    /// Each link of the chain wins over every link below it, and the winner is named.
    #[test]
    fn chain_order() {
        let full = BitsInputs {
            engine_quantization: Some("awq"),
            model_file_bits: Some(5.0),
            quantization: Some("gptq"),
            engine_dtype: Some("fp8"),
            dtype: Some("float16"),
            catalog_dtype: Some("bf16"),
            catalog_expert_dtype: None,
        };
        let steps: [(BitsSource, f64); 7] = [
            (BitsSource::EngineQuantization, 4.0),
            (BitsSource::ModelFile, 5.0),
            (BitsSource::QuantizationFlag, 4.0),
            (BitsSource::EngineDtype, 8.0),
            (BitsSource::DtypeFlag, 16.0),
            (BitsSource::CatalogDefault, 16.0),
            (BitsSource::Fallback, 16.0),
        ];
        let mut inp = full.clone();
        for (want, bits) in steps {
            let r = resolve_bits(&inp).unwrap();
            assert_eq!((r.source, r.bits), (want, bits));
            match want {
                BitsSource::EngineQuantization => inp.engine_quantization = None,
                BitsSource::ModelFile => inp.model_file_bits = None,
                BitsSource::QuantizationFlag => inp.quantization = None,
                BitsSource::EngineDtype => inp.engine_dtype = None,
                BitsSource::DtypeFlag => inp.dtype = None,
                BitsSource::CatalogDefault => inp.catalog_dtype = None,
                BitsSource::Fallback => {}
            }
        }
        let r = resolve_bits(&inp).unwrap();
        assert_eq!(r.provenance, Provenance::Fallback);
        assert!(r.notes[0].contains("bf16"));
        // Losers are named.
        let r = resolve_bits(&full).unwrap();
        assert!(r
            .notes
            .iter()
            .any(|n| n.contains("--dtype 'float16' ignored")));
    }

    #[test]
    fn auto_defers_and_unknown_engine_names_skip() {
        let r = resolve_bits(&BitsInputs {
            engine_quantization: Some("compressed-tensors"),
            engine_dtype: Some("auto"),
            dtype: Some("auto"),
            catalog_dtype: Some("fp8"),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(r.source, BitsSource::CatalogDefault);
        assert_eq!(r.bits, 8.0);
        assert_eq!(r.compute, ComputeClass::Fp8);
        assert!(r.notes[0].contains("compressed-tensors"));
    }

    #[test]
    fn unknown_user_flag_is_an_error() {
        let e = resolve_bits(&BitsInputs {
            dtype: Some("bf17"),
            ..Default::default()
        })
        .unwrap_err();
        assert!(e.to_string().contains("--dtype 'bf17'"), "{e}");
    }

    #[test]
    fn catalog_expert_format_only_with_catalog_default() {
        let inp = BitsInputs {
            catalog_dtype: Some("bf16"),
            catalog_expert_dtype: Some("mxfp4"),
            ..Default::default()
        };
        let r = resolve_bits(&inp).unwrap();
        assert_eq!((r.bits, r.expert_bits), (16.0, Some(4.25)));
        let r = resolve_bits(&BitsInputs {
            dtype: Some("fp8"),
            ..inp
        })
        .unwrap();
        assert_eq!((r.bits, r.expert_bits), (8.0, None));
    }

    /// A GGUF file type of gpt-oss keeps the MXFP4 experts (a published "F16" gpt-oss-20b file
    /// is 12.83 GiB, not the 39 GiB of 20.9 B params at 16 bits); a format that is not a GGUF
    /// file type still applies to every weight.
    #[test]
    fn gguf_file_types_keep_mxfp4_experts() {
        let inp = BitsInputs {
            catalog_dtype: Some("bf16"),
            catalog_expert_dtype: Some("mxfp4"),
            ..Default::default()
        };
        for (q, bits) in [
            ("F16", 16.0),
            ("q8_0", 8.51),
            ("Q4_K_M", 4.86),
            ("bf16", 16.0),
        ] {
            let r = resolve_bits(&BitsInputs {
                quantization: Some(q),
                ..inp.clone()
            })
            .unwrap();
            assert_eq!((r.bits, r.expert_bits), (bits, Some(4.25)), "{q}");
            assert!(r.notes.iter().any(|n| n.contains("stay MXFP4")), "{q}");
        }
        // MXFP4 names the experts; the rest is MXFP4_MOE's Q8_0.
        let r = resolve_bits(&BitsInputs {
            quantization: Some("MXFP4_MOE"),
            ..inp.clone()
        })
        .unwrap();
        assert_eq!((r.bits, r.expert_bits), (8.51, Some(4.25)));
        for q in ["fp8", "awq"] {
            let r = resolve_bits(&BitsInputs {
                quantization: Some(q),
                ..inp.clone()
            })
            .unwrap();
            assert_eq!(r.expert_bits, None, "{q}");
        }
        // A dense model has no experts to keep.
        let r = resolve_bits(&BitsInputs {
            quantization: Some("Q4_K_M"),
            catalog_dtype: Some("bf16"),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(r.expert_bits, None);
    }
}
