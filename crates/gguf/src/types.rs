//! The ggml tensor types a GGUF file may name, with their block geometry.
//!
//! Names are spelled as gguf-py's `GGMLQuantizationType` spells them. Sizes follow ggml's own
//! block structs (llama.cpp `ggml/src/ggml-common.h`), which is also what the newer gguf-py in
//! llama.cpp's tree says. One deliberate difference from PyPI's gguf 0.19.0: that release gives
//! Q8_1 40 bytes per block, while ggml's `block_q8_1` is 36 (two halves + 32 quants). Extents
//! never depend on this table (they come from consecutive offsets); it only sizes the
//! type-table figure and the padding beside it.

/// One ggml tensor type: its id in the file, its name, and how many bytes a block of
/// `block_elems` elements takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GgmlType {
    pub id: u32,
    pub name: &'static str,
    pub block_elems: u32,
    pub block_bytes: u32,
}

const fn t(id: u32, name: &'static str, block_elems: u32, block_bytes: u32) -> GgmlType {
    GgmlType {
        id,
        name,
        block_elems,
        block_bytes,
    }
}

const QK_K: u32 = 256;

/// Every type id a current GGUF may carry. Removed ids (4, 5, 31–33, 36–38) are absent on
/// purpose: files with them are not readable by llama.cpp either.
pub const GGML_TYPES: &[GgmlType] = &[
    t(0, "F32", 1, 4),
    t(1, "F16", 1, 2),
    t(2, "Q4_0", 32, 2 + 16),
    t(3, "Q4_1", 32, 2 + 2 + 16),
    t(6, "Q5_0", 32, 2 + 4 + 16),
    t(7, "Q5_1", 32, 2 + 2 + 4 + 16),
    t(8, "Q8_0", 32, 2 + 32),
    t(9, "Q8_1", 32, 2 + 2 + 32),
    t(10, "Q2_K", QK_K, 2 + 2 + QK_K / 16 + QK_K / 4),
    t(11, "Q3_K", QK_K, 2 + QK_K / 4 + QK_K / 8 + 12),
    t(12, "Q4_K", QK_K, 2 + 2 + QK_K / 2 + 12),
    t(13, "Q5_K", QK_K, 2 + 2 + QK_K / 2 + QK_K / 8 + 12),
    t(14, "Q6_K", QK_K, 2 + QK_K / 2 + QK_K / 4 + QK_K / 16),
    t(15, "Q8_K", QK_K, 4 + QK_K + QK_K / 8),
    t(16, "IQ2_XXS", QK_K, 2 + QK_K / 4),
    t(17, "IQ2_XS", QK_K, 2 + QK_K / 4 + QK_K / 32),
    t(18, "IQ3_XXS", QK_K, 2 + QK_K / 4 + QK_K / 8),
    t(19, "IQ1_S", QK_K, 2 + QK_K / 8 + QK_K / 16),
    t(20, "IQ4_NL", 32, 2 + 16),
    t(21, "IQ3_S", QK_K, 2 + QK_K / 4 + QK_K / 8 + QK_K / 32 + 4),
    t(22, "IQ2_S", QK_K, 2 + QK_K / 4 + QK_K / 16),
    t(23, "IQ4_XS", QK_K, 2 + 2 + QK_K / 2 + QK_K / 64),
    t(24, "I8", 1, 1),
    t(25, "I16", 1, 2),
    t(26, "I32", 1, 4),
    t(27, "I64", 1, 8),
    t(28, "F64", 1, 8),
    t(29, "IQ1_M", QK_K, QK_K / 8 + QK_K / 16 + QK_K / 32),
    t(30, "BF16", 1, 2),
    t(34, "TQ1_0", QK_K, 2 + 4 * 13),
    t(35, "TQ2_0", QK_K, 2 + 64),
    t(39, "MXFP4", 32, 1 + 16),
    t(40, "NVFP4", 64, 4 + 32),
    t(41, "Q1_0", 128, 2 + 16),
    t(42, "Q2_0", 64, 2 + 16),
];

impl GgmlType {
    /// The type with this id, or `None` for an id no ggml type has.
    pub fn from_id(id: u32) -> Option<GgmlType> {
        GGML_TYPES.iter().copied().find(|t| t.id == id)
    }

    /// The type with this name (gguf-py spelling, any case).
    pub fn from_name(name: &str) -> Option<GgmlType> {
        GGML_TYPES
            .iter()
            .copied()
            .find(|t| t.name.eq_ignore_ascii_case(name))
    }

    /// Bits per element, block overhead included.
    pub fn bits_per_element(self) -> f64 {
        f64::from(self.block_bytes) * 8.0 / f64::from(self.block_elems)
    }

    /// Whether the type is block-quantized (not a plain float or integer element).
    pub fn is_quantized(self) -> bool {
        self.block_elems > 1
    }
}

impl std::fmt::Display for GgmlType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_sizes_match_ggml() {
        for (i, a) in GGML_TYPES.iter().enumerate() {
            for b in &GGML_TYPES[i + 1..] {
                assert_ne!(a.id, b.id, "{} and {}", a.name, b.name);
                assert_ne!(a.name, b.name);
            }
        }
        // (name, block elements, bytes, bits per element) as ggml-common.h lays the blocks out.
        let cases = [
            ("F32", 1, 4, 32.0),
            ("BF16", 1, 2, 16.0),
            ("Q4_0", 32, 18, 4.5),
            ("Q8_0", 32, 34, 8.5),
            ("Q8_1", 32, 36, 9.0),
            ("Q2_K", 256, 84, 2.625),
            ("Q3_K", 256, 110, 3.4375),
            ("Q4_K", 256, 144, 4.5),
            ("Q5_K", 256, 176, 5.5),
            ("Q6_K", 256, 210, 6.5625),
            ("Q8_K", 256, 292, 9.125),
            ("IQ2_XXS", 256, 66, 2.0625),
            ("IQ2_XS", 256, 74, 2.3125),
            ("IQ3_XXS", 256, 98, 3.0625),
            ("IQ1_S", 256, 50, 1.5625),
            ("IQ4_NL", 32, 18, 4.5),
            ("IQ3_S", 256, 110, 3.4375),
            ("IQ2_S", 256, 82, 2.5625),
            ("IQ4_XS", 256, 136, 4.25),
            ("IQ1_M", 256, 56, 1.75),
            ("TQ1_0", 256, 54, 1.6875),
            ("TQ2_0", 256, 66, 2.0625),
            ("MXFP4", 32, 17, 4.25),
            ("NVFP4", 64, 36, 4.5),
            ("Q1_0", 128, 18, 1.125),
            ("Q2_0", 64, 18, 2.25),
        ];
        for (name, block, bytes, bpw) in cases {
            let t = GgmlType::from_name(name).unwrap();
            assert_eq!((t.block_elems, t.block_bytes), (block, bytes), "{name}");
            assert_eq!(t.bits_per_element(), bpw, "{name}");
        }
    }

    #[test]
    fn removed_and_future_ids_are_unknown() {
        for id in [4, 5, 31, 32, 33, 36, 37, 38, 43, 1000, u32::MAX] {
            assert!(GgmlType::from_id(id).is_none(), "{id}");
        }
        assert_eq!(GgmlType::from_id(39).unwrap().name, "MXFP4");
        assert_eq!(GgmlType::from_name("q4_k").unwrap().id, 12);
    }
}
