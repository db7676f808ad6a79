//! WGSL generated from the dtype table: loads and stores over `u32` words, and the
//! kernels built from them. No per-dtype shader is written by hand: templates in
//! `shaders/` are filled from [`Words`], which [`crate::dtype`]'s widths decide.
//!
//! Uses only [`crate::dtype`] and [`crate::layout`]. The GPU backend binds
//! device memory as `array<u32>` and runs these modules.

mod add;
mod add_subword;
mod cast;
mod contiguous;
pub(crate) mod elementwise;
pub(crate) mod first_pass;
mod grid;
mod narrow;
mod operands;
pub(crate) mod ops;
mod params;
mod raw;
mod walked;
mod words;

pub use add::{
    add_module, add_module_f32_again, add_module_f32_first, add_module_flat4,
    add_module_narrow_first, Native,
};
pub use cast::{cast_module, cast_module_flat4};
pub use elementwise::{
    compute_type, elementwise_module, elementwise_module_contiguous, elementwise_module_packed,
    group_len, packed_per, Generated, Slot,
};
pub use params::{walk_params, walk_params3, walk_params_n, MAX_BOUND};
pub use raw::{raw_module, raw_params, RAW_AXES};
pub use words::{load_fn, store_fn, Words};

/// The template of the transfer kernel.
const TRANSFER: &str = include_str!("../../shaders/transfer.wgsl");

/// The parameters and index walk every elementwise kernel shares.
pub(crate) const WALK: &str = include_str!("../../shaders/walk.wgsl");

/// The contiguous form of a kernel over 32-bit elements.
const FLAT4: &str = include_str!("../../shaders/flat4.wgsl");

/// What a kernel puts into `shaders/flat4.wgsl`.
pub(crate) struct FlatParts<'a> {
    /// The `enable` directives its types need.
    pub(crate) enable: &'a str,
    /// A second source, bound at 3 (`b` of `one(a, b)`; else `b` is `a`).
    pub(crate) two_sources: bool,
    /// Its functions, which `one` calls.
    pub(crate) functions: &'a str,
    /// The body of `one(a: u32, b: u32) -> u32`.
    pub(crate) one: &'a str,
    /// What an invocation does after its loop.
    pub(crate) end: &'a str,
}

/// `shaders/flat4.wgsl` filled with `k`'s parts; `at_zero`: the form for operands that
/// all start their binding windows, which ignores the offsets.
pub(crate) fn flat4_module(k: &FlatParts<'_>, at_zero: bool) -> String {
    let (src2, load_b) = if k.two_sources {
        (
            "@group(0) @binding(3) var<storage, read> src2: array<vec4<u32>>;",
            "src2[at(params.src2_offset.x, i)]",
        )
    } else {
        ("", "a")
    };
    FLAT4
        .replace("{{ENABLE}}", k.enable)
        .replace("{{WALK}}", WALK)
        .replace("{{SRC2}}", src2)
        .replace("{{FUNCTIONS}}", k.functions)
        .replace("{{ONE}}", k.one)
        .replace("{{AT_ZERO}}", if at_zero { "true" } else { "false" })
        .replace("{{LOAD_B}}", load_b)
        .replace("{{END}}", k.end)
}

/// The WGSL module of the transfer kernel for elements `bits` wide: every element of
/// `src` into `dst`, any layouts, bit for bit. Bindings: 0 the parameters (uniform), 1
/// `src` (`array<u32>`), 2 `dst` (`array<u32>`, or `array<atomic<u32>>` for elements
/// narrower than a word).
///
/// # Panics
/// For a width no dtype has.
pub fn transfer_module(bits: u32) -> String {
    let w = Words::of_bits(bits);
    TRANSFER
        .replace("{{WALK}}", WALK)
        .replace("{{DST_WORD}}", w.dst_word())
        .replace("{{LOAD}}", &load_fn(w))
        .replace("{{STORE}}", &store_fn(w))
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// Every type native, the probe's exact float32 sums aside.
    const ALL_NATIVE: Native = Native {
        f32: true,
        f16: true,
        f64: true,
        int64: true,
        f32_exact: false,
    };

    /// What the generators' docs say of them.
    #[test]
    fn the_generators_do_what_their_docs_say() {
        use crate::dtype::DType;
        let all = ALL_NATIVE;
        assert!(add_module(DType::Float16, all.for_dtype(DType::Float16)).contains("enable f16"));
        let m = add_module(DType::Float16, Native::NONE);
        assert!(m.contains("add_small(a.x, b.x, f)") && !m.contains("enable f16"));
        let first = add_module_narrow_first(DType::Bfloat16, true).unwrap();
        assert!(first.contains("f32_to_bfloat16"));
        assert!(add_module_narrow_first(DType::Int16, true).is_none());
        let slot = |dtype, output| Slot {
            name: "x",
            dtype,
            output,
        };
        assert_eq!(
            group_len(&[slot(DType::Float32, false), slot(DType::Bfloat16, true)]),
            8
        );
        assert_eq!(
            group_len(&[slot(DType::Int4, false), slot(DType::Float64, true)]),
            32
        );
        assert_eq!(group_len(&[slot(DType::Complex128, true)]), 4);
        let slots = [
            Slot {
                name: "x",
                dtype: DType::Bfloat16,
                output: false,
            },
            Slot {
                name: "z",
                dtype: DType::Float8E4m3,
                output: true,
            },
        ];
        let g = elementwise_module(&slots, DType::Float32, "z = x * 2.0;").unwrap();
        assert!(g
            .module
            .contains("var<storage, read_write> nx_op_z: array<atomic<u32>>"));
        assert_eq!(
            g.module.lines().nth(g.body_line as usize - 1),
            Some("z = x * 2.0;")
        );
        assert_eq!(Words::of(DType::Int4), Words::Field { bits: 4 });
        assert_eq!(Words::of(DType::Float32), Words::Word);
        assert_eq!(Words::of(DType::Complex128), Words::Multi { count: 4 });
        assert!(Words::of(DType::Uint8).shares_words());
        let m = cast_module(DType::Float32, DType::Float8E4m3);
        assert!(m.contains("fn convert(") && m.contains("atomicOr")); // 8-bit targets share words
        let slots = [
            Slot {
                name: "x",
                dtype: DType::Int4,
                output: false,
            },
            Slot {
                name: "z",
                dtype: DType::Bfloat16,
                output: true,
            },
        ];
        let src = "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n    store_z(id.x, load_x(numel_x() - 1u - id.x));\n}\n";
        let g = raw_module(&slots, DType::Float32, src).unwrap();
        assert!(g.module.contains("fn load_x(i: u32) -> f32"));
        assert!(g.module.contains("fn store_z(i: u32, v: f32)"));
        assert_eq!(
            g.module.lines().nth(g.body_line as usize - 1),
            Some("@compute @workgroup_size(64)")
        );
        use crate::layout::Layout;
        let le = |w: &[u32]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let c = Layout::contiguous(&[2, 3]).unwrap();
        let t = Layout::new(&[3, 2], &[1, 3], 0).unwrap(); // its transpose
        let p = raw_params(&[c, t]).unwrap();
        assert_eq!(p[..16], le(&[6, 1, 0, 0])); // one axis of 6
        assert_eq!(p[144..160], le(&[6, 2, 0, 0])); // two axes
        let p = walk_params((&c, 8), (&c, 0)).unwrap();
        // Two contiguous axes walk as one: 6 elements, rank 1, offsets 8 and 0.
        assert_eq!(p[..16], le(&[6, 1, 8, 0]));
        assert!(walk_params((&c, 1 << 31), (&c, 0)).is_none());
        let p = walk_params_n(&[(&c, 4), (&c, 0), (&c, 0)]).unwrap();
        assert_eq!(p[..8], le(&[6, 1])); // one axis of 6
        assert_eq!(p[16..20], le(&[4])); // the first operand's offset
    }

    /// Every element width a dtype has, narrowest first.
    fn widths() -> Vec<u32> {
        let mut w: Vec<u32> = crate::dtype::DType::ALL.iter().map(|d| d.bits()).collect();
        w.sort_unstable();
        w.dedup();
        w
    }

    /// Parses and validates `src` with naga, as wgpu will, for an adapter with no
    /// shader feature.
    pub(crate) fn validate(src: &str) {
        validate_with(src, naga::valid::Capabilities::empty())
    }

    fn validate_with(src: &str, caps: naga::valid::Capabilities) {
        let module = naga::front::wgsl::parse_str(src)
            .unwrap_or_else(|e| panic!("{}\n{src}", e.emit_to_string(src)));
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
            .validate(&module)
            .unwrap_or_else(|e| panic!("{e:?}\n{src}"));
    }

    #[test]
    fn every_transfer_module_validates() {
        assert_eq!(widths(), [4, 8, 16, 32, 64, 128]);
        for b in widths() {
            let m = transfer_module(b);
            assert!(!m.contains("{{"), "unfilled placeholder for {b} bits");
            validate(&m);
        }
    }

    #[test]
    fn every_cast_module_validates() {
        use crate::dtype::DType;
        for s in DType::ALL {
            for d in DType::ALL {
                let m = cast_module(s, d);
                assert!(!m.contains("{{"), "unfilled placeholder: {s} -> {d}");
                validate(&m);
            }
        }
    }

    #[test]
    fn every_add_module_validates_emulated_and_native() {
        use crate::dtype::DType;
        use naga::valid::Capabilities as C;
        let all = ALL_NATIVE;
        for d in DType::ALL {
            let m = add_module(d, Native::NONE);
            assert!(!m.contains("{{"), "unfilled placeholder: {d}");
            assert!(
                !m.contains("bitcast<f") && !m.contains("u64"),
                "{d} emulated uses a native type"
            );
            validate(&m);
            let m = add_module(d, all);
            validate_with(
                &m,
                C::SHADER_FLOAT16 | C::SHADER_FLOAT16_IN_FLOAT32 | C::FLOAT64 | C::SHADER_INT64,
            );
            let n = all.for_dtype(d);
            assert_eq!(m.contains("add_f32_scaled(a.x"), n.f32, "{d}");
            assert_eq!(m.contains("enable f16"), n.f16, "{d}");
            assert_eq!(m.contains("bitcast<f64>"), n.f64, "{d}");
            assert_eq!(m.contains("join64(a.xy)"), n.int64, "{d}");
            let exact = Native {
                f32_exact: true,
                ..all
            };
            let m = add_module(d, exact);
            validate_with(
                &m,
                C::SHADER_FLOAT16 | C::SHADER_FLOAT16_IN_FLOAT32 | C::FLOAT64 | C::SHADER_INT64,
            );
            assert_eq!(
                m.contains("return vec2<u32>(add_f32_exact"),
                matches!(d, DType::Float32 | DType::Complex64),
                "{d}"
            );
        }
    }

    #[test]
    fn the_contiguous_forms_validate_where_they_exist() {
        use crate::dtype::DType;
        for s in DType::ALL {
            for d in DType::ALL {
                for at_zero in [false, true] {
                    let m = cast_module_flat4(s, d, at_zero);
                    assert_eq!(m.is_some(), s.bits() == 32 && d.bits() == 32, "{s} -> {d}");
                    if let Some(m) = m {
                        assert!(!m.contains("{{"), "{s} -> {d}");
                        validate(&m);
                    }
                }
            }
            for at_zero in [false, true] {
                let m = add_module_flat4(s, Native::NONE, at_zero);
                assert_eq!(m.is_some(), matches!(s.bits(), 8 | 16 | 32), "{s}");
                if let Some(m) = m {
                    assert!(!m.contains("{{"), "{s}");
                    validate(&m);
                }
                let narrow = s.is_float() && matches!(s.bits(), 8 | 16);
                let m = add_module_narrow_first(s, at_zero);
                assert_eq!(m.is_some(), narrow, "{s}");
                if let Some(m) = m {
                    assert!(!m.contains("{{"), "{s}");
                    validate(&m);
                }
            }
        }
        for at_zero in [false, true] {
            let m = add_module_f32_first(at_zero);
            assert!(!m.contains("{{"));
            validate(&m);
        }
        validate(&add_module_f32_again());
    }

    #[test]
    fn sub_word_stores_use_atomics_and_whole_words_do_not() {
        for b in widths() {
            let m = transfer_module(b);
            assert_eq!(m.contains("atomicOr"), b < 32, "{b} bits");
        }
    }
}
