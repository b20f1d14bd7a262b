//! What a llama.cpp file type stores for one model: `llama-quantize`'s per-tensor rules applied
//! to the tensors of the model's shape, so `--quantization Q4_K_M` gives the bytes a real
//! Q4_K_M file of this model holds, not one average for every model.
//!
//! The rules are llama.cpp's `llama_tensor_get_type_impl`, `tensor_type_fallback` and
//! `llama_ftype_get_default_type` (src/llama-quant.cpp in ggml-org/llama.cpp, read at
//! 007dbbf3fd17eefe9b47fee45f48f7ba5e62b714): the output head (and a tied input embedding, which
//! is the output head) at Q6_K, or Q8_0 when its width is not a multiple of the type's block;
//! more bits for `attn_v` and `ffn_down` in chosen layers of the `_M`/`_L` mixes; 8-expert
//! models' attention at higher types; and any tensor whose row width is not a multiple of its
//! type's block falling back (Q4_K to Q5_0, Q6_K to Q8_0 ...). An importance matrix is assumed
//! only for the types `llama-quantize` refuses to write without one (IQ1, IQ2, IQ3_XXS,
//! Q2_K_S); it changes only `attn_v` and the first `ffn_down` layers.
//! Norms and biases stay F32. Shapes the rules are not written for here (MLA attention, models
//! with vision towers, gpt-oss) keep the averaged table in [`crate::bits`].

use gguf::GgmlType;
use serde::{Deserialize, Serialize};

/// The tensor shapes of a transformer as llama.cpp stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MixShape {
    pub layers: u64,
    pub hidden: u64,
    pub heads: u64,
    pub kv_heads: u64,
    pub head_dim: u64,
    pub vocab: u64,
    /// The input embedding is also the output head (no `output.weight` in the file).
    pub tied: bool,
    /// Feed-forward width of a dense layer (0 when every layer is MoE).
    pub ff: u64,
    /// Phi-3 stores Q, K and V as one `attn_qkv` and gate with up as one `ffn_up`.
    pub fused: bool,
    /// Routed experts: how many, and the feed-forward width of one (every layer routed, no
    /// shared expert: Qwen3 MoE, Mixtral).
    pub experts: Option<(u64, u64)>,
    /// Experts read per token.
    pub experts_used: u64,
    /// llama.cpp's "70B" model type (Llama 2/3 70B: 80 layers), which bumps `attn_v`.
    pub is_70b: bool,
    /// F32 elements outside the weight matrices (norms, biases), per layer and once.
    pub f32_per_layer: u64,
    pub f32_once: u64,
}

/// The bytes a file type stores for a shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MixBytes {
    /// Every tensor.
    pub footprint: f64,
    /// What a token reads: the used experts' share, no untied input embedding.
    pub stream: f64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cat {
    TokenEmbd,
    Output,
    Q,
    K,
    V,
    /// Fused Q/K/V: llama.cpp treats it as `attn_v`.
    Qkv,
    AttnOut,
    Gate,
    Up,
    Down,
}

struct Tensor {
    cat: Cat,
    layer: u64,
    /// Row width (ggml's ne[0]): what the block size must divide.
    ne0: u64,
    elems: f64,
    /// Share of the elements a token reads.
    read: f64,
}

fn ty(name: &str) -> GgmlType {
    GgmlType::from_name(name).expect("ggml type in gguf's table")
}

/// The file types `llama-quantize` writes with per-tensor rules, by canonical name (as
/// [`crate::bits`] names them), with the default tensor type of each.
fn default_type(ftype: &str) -> Option<&'static str> {
    Some(match ftype {
        "Q4_0" => "Q4_0",
        "Q4_1" => "Q4_1",
        "Q5_0" => "Q5_0",
        "Q5_1" => "Q5_1",
        "Q8_0" => "Q8_0",
        "Q2_K" | "Q2_K_S" => "Q2_K",
        "IQ3_XS" | "IQ3_S" | "IQ3_M" => "IQ3_S",
        "Q3_K_S" | "Q3_K_M" | "Q3_K_L" => "Q3_K",
        "Q4_K_S" | "Q4_K_M" => "Q4_K",
        "Q5_K_S" | "Q5_K_M" => "Q5_K",
        "Q6_K" => "Q6_K",
        "TQ1_0" => "TQ1_0",
        "TQ2_0" => "TQ2_0",
        "IQ2_XXS" => "IQ2_XXS",
        "IQ2_XS" | "IQ2_S" => "IQ2_XS",
        "IQ2_M" => "IQ2_S",
        "IQ3_XXS" => "IQ3_XXS",
        "IQ1_S" => "IQ1_S",
        "IQ1_M" => "IQ1_M",
        "IQ4_NL" => "IQ4_NL",
        "IQ4_XS" => "IQ4_XS",
        _ => return None,
    })
}

/// Whether the rules cover this file type (a llama.cpp quantized mix).
pub fn is_mix(ftype: &str) -> bool {
    default_type(ftype).is_some()
}

fn use_more_bits(i: u64, n: u64) -> bool {
    i < n / 8 || i >= 7 * n / 8 || (i as i64 - (n / 8) as i64).rem_euclid(3) == 2
}

impl MixShape {
    fn tensors(&self) -> Vec<Tensor> {
        let (h, v) = (self.hidden, self.vocab);
        let q = self.heads * self.head_dim;
        let kv = self.kv_heads * self.head_dim;
        // Element counts in f64: a user catalog's figures may be any size.
        let t = |cat, layer, ne0: u64, rows: u64, read: f64| Tensor {
            cat,
            layer,
            ne0,
            elems: ne0 as f64 * rows as f64,
            read,
        };
        let mut out = vec![t(
            Cat::TokenEmbd,
            0,
            h,
            v,
            if self.tied { 1.0 } else { 0.0 },
        )];
        if !self.tied {
            out.push(t(Cat::Output, 0, h, v, 1.0));
        }
        for l in 0..self.layers {
            if self.fused {
                out.push(t(Cat::Qkv, l, h, q + 2 * kv, 1.0));
            } else {
                out.push(t(Cat::Q, l, h, q, 1.0));
                out.push(t(Cat::K, l, h, kv, 1.0));
                out.push(t(Cat::V, l, h, kv, 1.0));
            }
            out.push(t(Cat::AttnOut, l, q, h, 1.0));
            let mut ffn = |width: u64, n: u64, read: f64| {
                if self.fused {
                    out.push(t(Cat::Up, l, h, 2 * width * n, read));
                } else {
                    out.push(t(Cat::Gate, l, h, width * n, read));
                    out.push(t(Cat::Up, l, h, width * n, read));
                }
                out.push(t(Cat::Down, l, width, h * n, read));
            };
            match self.experts {
                Some((n, width)) => ffn(width, n, self.experts_used as f64 / n as f64),
                None => ffn(self.ff, 1, 1.0),
            }
        }
        out
    }

    /// Every element the shapes hold (weights, norms and biases).
    pub fn params(&self) -> f64 {
        self.tensors().iter().map(|t| t.elems).sum::<f64>() + self.f32_elems()
    }

    fn f32_elems(&self) -> f64 {
        self.f32_per_layer as f64 * self.layers as f64 + self.f32_once as f64
    }

    /// The bytes `ftype` (a name [`is_mix`] accepts) stores, or `None` for another name.
    pub fn bytes(&self, ftype: &str) -> Option<MixBytes> {
        let default = ty(default_type(ftype)?);
        let n_expert = self.experts.map_or(0, |e| e.0);
        let n_gqa = self.heads / self.kv_heads.max(1);
        let is = |names: &[&str]| names.contains(&ftype);
        let iq2 = ["IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"];
        let (mut i_wv, n_wv) = (0u64, self.layers);
        let n = self.layers;
        let mut total = MixBytes {
            footprint: 0.0,
            stream: 0.0,
        };
        for t in self.tensors() {
            let name: &str = match t.cat {
                Cat::Output | Cat::TokenEmbd if t.cat == Cat::Output || self.tied => {
                    if t.ne0 % u64::from(default.block_elems) != 0 {
                        "Q8_0"
                    } else if is(&["IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ2_S", "IQ2_M"])
                        || ftype == "IQ1_M"
                    {
                        "Q5_K"
                    } else if default.name != "Q8_0" {
                        "Q6_K"
                    } else {
                        default.name
                    }
                }
                Cat::TokenEmbd => {
                    if is(&["IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ1_M"]) {
                        "Q2_K"
                    } else if is(&["IQ2_S", "IQ2_M", "IQ3_XXS"]) {
                        "IQ3_S"
                    } else if is(&["TQ1_0", "TQ2_0"]) {
                        "Q4_K"
                    } else {
                        default.name
                    }
                }
                c if is(&iq2) => match c {
                    Cat::V | Cat::Qkv => {
                        i_wv += 1;
                        if n_gqa >= 4 || n_expert >= 4 {
                            "Q4_K"
                        } else if is(&["IQ2_S", "IQ2_M"]) {
                            "IQ3_S"
                        } else {
                            "Q2_K"
                        }
                    }
                    Cat::K if n_expert == 8 => "Q4_K",
                    // The counter runs over ffn_down tensors, one per layer.
                    Cat::Down if t.layer < n / 8 => {
                        if is(&["IQ2_S", "IQ2_M"]) {
                            "IQ3_S"
                        } else {
                            "Q2_K"
                        }
                    }
                    Cat::AttnOut if n_expert == 8 => "Q5_K",
                    Cat::AttnOut if is(&["IQ1_S", "IQ1_M"]) => "IQ2_XXS",
                    Cat::AttnOut if is(&["IQ2_S", "IQ2_M"]) => "IQ3_S",
                    _ => default.name,
                },
                Cat::V | Cat::Qkv => {
                    let i = i_wv;
                    i_wv += 1;
                    let mut x = match ftype {
                        "Q2_K" if n_gqa >= 4 => "Q4_K",
                        "Q2_K" => "Q3_K",
                        "Q2_K_S" if n_gqa >= 4 => "Q4_K",
                        "IQ3_XXS" if n_gqa >= 4 => "Q4_K",
                        // With the importance matrix IQ3_XXS requires, attn_v stays IQ3_XXS.
                        "IQ3_XXS" => "IQ3_XXS",
                        "IQ3_XS" | "IQ3_S" if n_gqa >= 4 => "Q4_K",
                        "IQ3_M" => "Q4_K",
                        "Q3_K_M" if i < 2 => "Q5_K",
                        "Q3_K_M" => "Q4_K",
                        "Q3_K_L" => "Q5_K",
                        "IQ4_NL" | "IQ4_XS" if n_gqa >= 4 => "Q5_K",
                        "Q4_K_M" | "Q5_K_M" if use_more_bits(i, n_wv) => "Q6_K",
                        "Q4_K_S" if i < 4 => "Q5_K",
                        _ => default.name,
                    };
                    if self.is_70b && (x == "Q3_K" || x == "Q4_K") {
                        x = "Q5_K";
                    }
                    if n_expert == 8 {
                        x = "Q8_0";
                    }
                    x
                }
                Cat::K if n_expert == 8 => "Q8_0",
                Cat::K | Cat::Q if ftype == "IQ3_XS" => "IQ3_XXS",
                Cat::K | Cat::Q if ftype == "IQ3_XXS" => "IQ2_S",
                Cat::Down => {
                    let (i, m) = (t.layer, n);
                    match ftype {
                        "Q2_K" => "Q3_K",
                        "Q2_K_S" if i < m / 8 => "Q4_K",
                        // IQ3_XXS's own rule for ffn_down applies only without an imatrix.
                        "Q3_K_M" if i < m / 16 => "Q5_K",
                        // Every architecture here is not Falcon: Q4_K.
                        "Q3_K_M" => "Q4_K",
                        "IQ3_M" if i < m / 8 || (n_expert == 8 && use_more_bits(i, m)) => "Q4_K",
                        "Q3_K_L" => "Q5_K",
                        "Q4_K_M" if use_more_bits(i, m) => "Q6_K",
                        "IQ4_NL" | "IQ4_XS" if i < m / 8 => "Q5_K",
                        "Q5_K_M" if use_more_bits(i, m) => "Q6_K",
                        "Q4_K_S" if i < m / 8 => "Q5_K",
                        _ => default.name,
                    }
                }
                Cat::AttnOut if n_expert == 8 => {
                    if is(&[
                        "Q2_K", "IQ3_XS", "IQ3_XXS", "Q3_K_S", "Q3_K_M", "IQ4_NL", "Q4_K_S",
                        "Q4_K_M", "IQ3_S", "IQ3_M", "IQ4_XS",
                    ]) {
                        "Q5_K"
                    } else {
                        default.name
                    }
                }
                Cat::AttnOut => match ftype {
                    "Q2_K" => "Q3_K",
                    "IQ3_XXS" => "IQ3_S",
                    "Q3_K_M" | "IQ3_M" => "Q4_K",
                    "Q3_K_L" => "Q5_K",
                    _ => default.name,
                },
                Cat::Gate | Cat::Up
                    if ftype == "IQ3_XS" && t.layer >= n / 8 && t.layer < 7 * n / 8 =>
                {
                    "IQ3_XXS"
                }
                _ => default.name,
            };
            let chosen = fallback(ty(name), t.ne0);
            let bytes = t.elems * chosen.bits_per_element() / 8.0;
            total.footprint += bytes;
            total.stream += bytes * t.read;
        }
        let f32s = self.f32_elems();
        total.footprint += f32s * 4.0;
        total.stream += f32s * 4.0;
        Some(total)
    }
}

/// `tensor_type_fallback`: a row width the type's block does not divide takes a type with
/// 32-element blocks, or F16 when even that does not divide it.
fn fallback(t: GgmlType, ne0: u64) -> GgmlType {
    if ne0.is_multiple_of(u64::from(t.block_elems)) {
        return t;
    }
    let r = ty(match t.name {
        "IQ1_S" | "IQ1_M" | "IQ2_XXS" | "IQ2_XS" | "IQ2_S" | "IQ3_XXS" | "IQ3_S" | "IQ4_XS" => {
            "IQ4_NL"
        }
        "Q2_K" | "Q3_K" | "TQ1_0" | "TQ2_0" => "Q4_0",
        "Q4_K" => "Q5_0",
        "Q5_K" => "Q5_1",
        "Q6_K" => "Q8_0",
        _ => return ty("F16"),
    });
    if ne0.is_multiple_of(u64::from(r.block_elems)) {
        r
    } else {
        ty("F16")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::tests::real_files;
    use crate::{Catalog, ModelSpec};

    /// Every catalogued shape the rules cover adds up to the catalog's own parameter count
    /// (which comes from the model card or config, independently of these shapes).
    #[test]
    fn shapes_add_up_to_the_catalog_counts() {
        let c = Catalog::embedded().unwrap();
        let mut n = 0;
        for m in &c.models {
            let Some(shape) = ModelSpec::from_catalog(m).mix else {
                continue;
            };
            n += 1;
            let sim = shape.params();
            let want = m.params_total;
            assert!(
                (sim / want - 1.0).abs() < 0.006,
                "{}: shapes give {sim:.4e} params, the catalog {want:.4e}",
                m.id
            );
        }
        assert!(n >= 30, "{n} shapes");
    }

    /// Every file type the rules cover sizes every covered shape: no type name outside gguf's
    /// table, a token never reads more than the file holds, and more bits never give fewer bytes.
    #[test]
    fn every_covered_type_sizes_every_shape() {
        let c = Catalog::embedded().unwrap();
        let types = [
            "IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ2_M", "Q2_K", "Q2_K_S", "IQ3_XXS",
            "IQ3_XS", "IQ3_S", "IQ3_M", "Q3_K_S", "Q3_K_M", "Q3_K_L", "IQ4_XS", "IQ4_NL", "Q4_0",
            "Q4_K_S", "Q4_K_M", "Q4_1", "Q5_0", "Q5_K_S", "Q5_K_M", "Q5_1", "Q6_K", "Q8_0",
            "TQ1_0", "TQ2_0",
        ];
        for m in &c.models {
            let Some(shape) = ModelSpec::from_catalog(m).mix else {
                continue;
            };
            for t in types {
                assert!(is_mix(t), "{t}");
                let b = shape.bytes(t).unwrap();
                assert!(b.stream > 0.0 && b.stream <= b.footprint, "{} {t}", m.id);
            }
            let size = |t: &str| shape.bytes(t).unwrap().footprint;
            for pair in [
                "Q2_K", "Q3_K_M", "Q4_K_S", "Q4_K_M", "Q5_K_S", "Q5_K_M", "Q6_K", "Q8_0",
            ]
            .windows(2)
            {
                assert!(size(pair[0]) < size(pair[1]), "{} {pair:?}", m.id);
            }
        }
        assert!(!is_mix("F16") && !is_mix("MXFP4") && !is_mix("awq"));
    }

    /// llama.cpp's layer pick for the `_M` mixes: the first and last eighth, and every third
    /// layer between. 32 layers: 16 of them.
    #[test]
    fn more_bits_for_half_the_layers_of_32() {
        let picked: Vec<u64> = (0..32).filter(|&i| use_more_bits(i, 32)).collect();
        assert_eq!(
            picked,
            [0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31]
        );
    }

    /// A file type's bytes for a model, by the rules, against real files of that model
    /// (fixtures/scoreboards/gguf_file_bits.toml: Hugging Face sizes and llama-quantize's own
    /// table). Within 2 % for every row (measured: 0.0-0.6 % for 7-14B files, 0.3-1.5 % under
    /// for the small tied-embedding Qwen2.5 files, whose tokenizer metadata is a larger share),
    /// where the averaged table is off by up to 33 % for those small models.
    #[test]
    fn rules_match_real_files() {
        let c = Catalog::embedded().unwrap();
        let files = real_files();
        let mut worst = 0.0f64;
        let mut n = 0;
        assert_eq!(files.iter().filter(|x| x.older_mix.is_some()).count(), 1);
        for x in files.iter().filter(|x| x.older_mix.is_none()) {
            let Some(m) = c.models.iter().find(|m| m.params_total == x.params) else {
                continue;
            };
            let Some(shape) = ModelSpec::from_catalog(m).mix else {
                continue;
            };
            let sim = shape.bytes(&x.file_type).unwrap().footprint;
            let err = sim / x.bytes - 1.0;
            println!(
                "{:8} {:50} {:>7.3} GB rules {:>7.3} GB {:+.1} %",
                x.file_type,
                x.file,
                x.bytes / 1e9,
                sim / 1e9,
                err * 100.0
            );
            worst = worst.max(err.abs());
            n += 1;
        }
        assert!(n >= 35, "{n} files");
        assert!(worst < 0.02, "worst {:.1} %", worst * 100.0);
    }
}
