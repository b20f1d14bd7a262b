//! The stripped symbol of a device event: the kernel's qualified name with its template
//! arguments, argument list and return type removed, so that every instantiation of one kernel
//! aggregates into one row. (The full name keeps the template arguments: they are the tuning
//! signal, and that view is kept too.)

use cpp_demangle::{DemangleOptions, Symbol};

/// The stripped symbol for an event of category `cat` named `name`.
///
/// - Memcpy and memset names ("Memcpy HtoD (Pinned -> Device)") are already their own symbol.
/// - Itanium-mangled names (`_Z...`, when the profiler did not demangle) go through a real
///   demangler first.
/// - ROCm Tensile / hipBLASLt GEMMs (`Cijk_...`) keep the problem description before the
///   `_MT` macro-tile field; what follows is tuning, the analogue of template arguments.
/// - Plain C names (`ampere_sgemm_128x64_nn`, triton kernels) are unchanged.
pub fn symbol(name: &str, is_kernel: bool) -> String {
    if !is_kernel {
        return name.to_string();
    }
    if let Some(family) = tensile_family(name) {
        return family.to_string();
    }
    let demangled;
    let readable = if name.starts_with("_Z") {
        demangled = demangle(name);
        demangled.as_deref().unwrap_or(name)
    } else {
        name
    };
    let s = strip_cpp(readable);
    if s.is_empty() {
        readable.to_string()
    } else {
        s
    }
}

/// Demangles an Itanium C++ symbol; None when it is not one.
pub fn demangle(name: &str) -> Option<String> {
    let sym = Symbol::new(name).ok()?;
    sym.demangle(&DemangleOptions::default()).ok()
}

fn tensile_family(name: &str) -> Option<&str> {
    if !name.starts_with("Cijk_") {
        return None;
    }
    let bytes = name.as_bytes();
    let mut from = 0;
    while let Some(k) = name[from..].find("_MT") {
        let at = from + k;
        if bytes.get(at + 3).is_some_and(|c| c.is_ascii_digit()) {
            return Some(&name[..at]);
        }
        from = at + 3;
    }
    None
}

const ANON: &str = "(anonymous namespace)";

/// Removes template argument lists, the parameter list, cv-qualifiers after it and the return
/// type from a demangled C++ name.
///
/// `<` and `>` count as brackets only outside parentheses: inside them they are comparison
/// operators in template expressions (`std::enable_if<(((8)>(0)))&&X<T>::v, void>::type`).
/// `(anonymous namespace)` and `{lambda(...)#n}` are part of the qualified name and kept.
fn strip_cpp(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len().min(128));
    // Byte length of `out` just after the last top-level space: the return type ends there.
    let mut name_start = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if s[i..].starts_with(ANON) {
            out.push_str(ANON);
            i += ANON.len();
            continue;
        }
        if s[i..].starts_with("operator") && !ident_byte(prev(b, i)) {
            // Keep the operator's own token ("operator()", "operator<<") as part of the name.
            out.push_str("operator");
            i += "operator".len();
            if s[i..].starts_with("()") {
                out.push_str("()");
                i += 2;
            } else {
                // The operator token itself: at most three operator characters.
                let mut n = 0;
                while n < 3 && i < b.len() && b"<>=!+-*/%^&|~[],".contains(&b[i]) {
                    out.push(b[i] as char);
                    i += 1;
                    n += 1;
                }
            }
            // "operator< <int>": the space only separates the token from its template list.
            while i < b.len() && b[i] == b' ' {
                i += 1;
            }
            continue;
        }
        match c {
            b'<' | b'(' | b'[' => {
                let end = skip_group(b, i);
                let was_params = c == b'(';
                i = end;
                if was_params && !s[i..].starts_with("::") {
                    // The parameter list: what follows is cv-qualifiers or clone suffixes.
                    break;
                }
            }
            b'{' => {
                let end = skip_group(b, i);
                out.push_str(&s[i..end]);
                i = end;
            }
            b' ' => {
                // "> >" spacing leaves no trace once the lists are gone; a space between two
                // name parts separates the return type from the name.
                out.push(' ');
                name_start = out.len();
                i += 1;
            }
            _ => {
                let next = s[i..]
                    .find(['<', '(', '[', '{', ' ', 'o'])
                    .map_or(b.len(), |k| i + k.max(1));
                out.push_str(&s[i..next]);
                i = next;
            }
        }
    }
    out[name_start..].trim().to_string()
}

fn prev(b: &[u8], i: usize) -> u8 {
    if i == 0 {
        b' '
    } else {
        b[i - 1]
    }
}

fn ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// `b[i]` opens a group; returns the index after its matching close. Angle brackets nest only
/// where the innermost open group is itself an angle bracket or a brace-free top level.
fn skip_group(b: &[u8], i: usize) -> usize {
    let mut stack: Vec<u8> = Vec::with_capacity(8);
    let mut j = i;
    while j < b.len() {
        let c = b[j];
        let top = stack.last().copied();
        match c {
            b'(' | b'[' | b'{' => stack.push(c),
            b'<' if top != Some(b'(') && top != Some(b'[') => stack.push(c),
            b')' | b']' | b'}' | b'>' => {
                let open = match c {
                    b')' => b'(',
                    b']' => b'[',
                    b'}' => b'{',
                    _ => b'<',
                };
                if c == b'>' && top != Some(b'<') {
                    // A comparison or "->" inside parentheses.
                } else {
                    // Pop to the matching opener; unbalanced names end the group here.
                    while let Some(t) = stack.pop() {
                        if t == open {
                            break;
                        }
                    }
                    if stack.is_empty() {
                        return j + 1;
                    }
                }
            }
            _ => {}
        }
        j += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_real_kernel_names() {
        let cases: &[(&str, &str)] = &[
            (
                "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
                "at::native::vectorized_elementwise_kernel",
            ),
            (
                "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
                "at::native::(anonymous namespace)::vectorized_layer_norm_kernel",
            ),
            (
                "std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, c10::BFloat16 const*, float, int, int)",
                "vllm::fused_add_rms_norm_kernel",
            ),
            (
                "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})",
                "at::native::elementwise_kernel",
            ),
            (
                "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>(cudnn::ops::nchw2nhwc_params_t<float>, float const*, float*)",
                "cudnn::ops::nchwToNhwcKernel",
            ),
            ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "ncclKernel_AllReduce_RING_LL_Sum_float"),
            (
                "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, unsigned int**, unsigned long, unsigned long)",
                "(anonymous namespace)::multimem_all_reduce_kernel",
            ),
            ("nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT", "nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT"),
            (
                "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
                "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
            ),
            ("triton_poi_fused_add_0", "triton_poi_fused_add_0"),
            ("void foo::bar<int>::baz(int) const", "foo::bar::baz"),
            ("void foo(int)::{lambda(float)#1}::operator()(float) const", "foo::{lambda(float)#1}::operator()"),
            ("bool operator< <int>(int, int)", "operator<"),
        ];
        for (name, want) in cases {
            assert_eq!(symbol(name, true), *want, "{name}");
        }
    }

    #[test]
    fn demangles_mangled_names_before_stripping() {
        // From the A100 nccl_data trace, where Kineto left two cutlass kernels mangled.
        let name = "_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22ImplicitGemmMultistageINS_4gemm9GemmShapeILi64ELi128ELi32EEENS4_52Conv2dWgradOutputGradientTileAccessIteratorOptimizedINS_11MatrixShapeILi64ELi32EEENS_10tfloat32_tENS_9transform29PitchLinearWarpRakedThreadMapINS_16PitchLinearShapeILi64ELi32EEELi128ENSF_ILi8ELi4EEELi4EEENS_12AlignedArrayISC_Li4ELi16EEEEENSD_11threadblock25RegularTileAccessIteratorISB_SC_NS_6layout40ColumnMajorTensorOpMultiplicandCongruousILi32ELi32EEELi1ESI_Li16EEELNS_4arch14CacheOperation4KindE0ENS4_48Conv2dWgradActivationTileAccessIteratorOptimizedINSA_ILi32ELi128EEESC_NSE_INSF_ILi128ELi32EEELi128ESH_Li4EEESK_EENSN_ISW_SC_NSO_37RowMajorTensorOpMultiplicandCongruousILi32ELi32EEELi0ESY_Li16EEELSU_0ENS6_11threadblock9MmaPolicyINS6_4warp11MmaTensorOpINS7_ILi32ELi64ELi32EEESC_SQ_SC_S11_fNSO_8RowMajorENS15_17MmaTensorOpPolicyINSS_3MmaINS7_ILi16ELi8ELi8EEELi32ESC_S18_SC_NSO_11ColumnMajorEfS18_NSS_13OpMultiplyAddEEENSA_ILi1ELi1EEEEELi1ELb0EbEENSA_ILi0ELi0EEES1I_Li1EEELi3EbEENS_8epilogue11threadblock8EpilogueIS8_S1H_Li1ENS1M_22PredicatedTileIteratorINS1M_26OutputTileOptimalThreadMapINS1M_15OutputTileShapeILi128ELi8ELi2ELi1ELi1EEENS1Q_ILi1ELi4ELi1ELi1ELi4EEELi128ELi4ELi32EEEfLb0ENSO_9NoPermuteELb0EEENS1L_4warp24FragmentIteratorTensorOpIS17_S1B_fNS_5ArrayIfLi4ELb1EEES18_EENS1W_20TileIteratorTensorOpIS17_S1B_fS18_EENS1M_18SharedLoadIteratorINS1T_18CompactedThreadMapEfLi16EEENS1L_6thread17LinearCombinationIfLi4EffLNS26_9ScaleType4KindE0ELNS_15FloatRoundStyleE2EEENSA_ILi0ELi8EEELi2ELi1EEENS13_30GemmIdentityThreadblockSwizzleILi4EEELNS1_8OperatorE2ENS1_17Conv2dProblemSizeELNS1_9GroupModeE0EEEEEvNT_6ParamsE";
        let d = demangle(name).expect("a real Itanium symbol demangles");
        assert!(d.starts_with("void cutlass_cudnn_train::Kernel<cutlass_cudnn_train::conv::kernel::ImplicitGemmConvolution<"), "{d}");
        assert_eq!(symbol(name, true), "cutlass_cudnn_train::Kernel");
        assert_eq!(demangle("_Z3fooi").as_deref(), Some("foo(int)"));
        assert_eq!(symbol("_Z3fooi", true), "foo");
        assert_eq!(
            symbol("_ZN2at6native6kernelIfEEvT_", true),
            "at::native::kernel"
        );
        assert_eq!(demangle("not_mangled"), None);
    }

    #[test]
    fn tensile_gemms_keep_the_problem_and_drop_the_tuning() {
        assert_eq!(
            symbol(
                "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1",
                true
            ),
            "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs"
        );
        assert_eq!(symbol("Cijk_weird_MTx", true), "Cijk_weird_MTx");
    }

    #[test]
    fn memory_operations_are_their_own_symbol() {
        assert_eq!(
            symbol("Memcpy HtoD (Pageable -> Device)", false),
            "Memcpy HtoD (Pageable -> Device)"
        );
    }

    #[test]
    fn never_panics_on_odd_names() {
        for name in [
            "",
            "<",
            ">",
            "(",
            ")",
            "{",
            "operator",
            "a<b(c>d)e",
            "))((",
            "x<<<>>>",
            "é<ü>(ß)",
            "_Z",
            "_ZZZ",
        ] {
            let _ = symbol(name, true);
        }
    }
}
