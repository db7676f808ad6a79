//! WGSL generated from the dtype table: loads and stores over `u32` words, and the
//! kernels built from them. No per-dtype shader is written by hand: templates in
//! `shaders/` are filled from [`Words`], which [`crate::dtype`]'s widths decide.
//!
//! Uses only [`crate::dtype`] and [`crate::layout`]. The GPU backend binds
//! device memory as `array<u32>` and runs these modules.

mod add;
mod cast;
mod contiguous;
pub(crate) mod elementwise;
mod facts;
pub(crate) mod first_pass;
mod grid;
mod kernel;
mod narrow;
mod native;
mod operands;
pub(crate) mod ops;
mod params;
mod raw;
mod walked;
mod words;

pub(crate) use add::add_kernel;
pub(crate) use cast::cast_kernel;
pub use elementwise::{compute_type, Generated, Slot};
pub(crate) use kernel::{FirstPass, Form, Kernel};
pub use native::Native;
pub use params::{merged_rank, walk_params_n, MAX_BOUND};
pub use raw::{raw_module, raw_params, RAW_AXES};

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::words::Words;
    use super::*;
    use crate::dtype::DType;

    /// Every type native, the probe's exact float32 sums aside.
    const ALL_NATIVE: Native = Native {
        f32: true,
        f16: true,
        f64: true,
        int64: true,
        f32_exact: false,
    };

    /// Every form a kernel has, each module with the form.
    fn modules(k: &Kernel<'_>) -> Vec<(Form, String)> {
        let mut forms = vec![];
        for b in [false, true] {
            forms.push(Form::Walked { one_axis: b });
            forms.push(Form::Contiguous { at_zero: b });
            if k.packed_len().is_some() {
                forms.push(Form::Packed { one_axis: b });
            }
            if k.has_first() {
                forms.push(Form::First { at_zero: b });
            }
        }
        forms.into_iter().map(|f| (f, k.module(f))).collect()
    }

    /// What the generators' docs say of them.
    #[test]
    fn the_generators_do_what_their_docs_say() {
        let all = ALL_NATIVE;
        let m = add_kernel(DType::Float16, all).module(Form::Walked { one_axis: false });
        assert!(m.contains("enable f16"));
        let k = add_kernel(DType::Float16, Native::NONE);
        let m = k.module(Form::Walked { one_axis: false });
        assert!(m.contains("add_small(a.x, b.x, f)") && !m.contains("enable f16"));
        assert!(!k.has_first(), "no float32 on the device, no first pass");
        let first = add_kernel(DType::Bfloat16, all).module(Form::First { at_zero: true });
        assert!(first.contains("f32_to_bfloat16"));
        assert!(!add_kernel(DType::Int16, all).has_first());
        let exact = Native {
            f32_exact: true,
            ..all
        };
        assert!(add_kernel(DType::Float32, all).has_first());
        assert!(!add_kernel(DType::Float32, exact).has_first());
        let slot = |dtype, output| Slot {
            name: "x",
            dtype,
            output,
        };
        let group = |slots| Kernel::new(slots, None, "").unwrap().group_len();
        assert_eq!(
            group(vec![
                slot(DType::Float32, false),
                slot(DType::Bfloat16, true)
            ]),
            8
        );
        assert_eq!(
            group(vec![slot(DType::Int4, false), slot(DType::Float64, true)]),
            32
        );
        assert_eq!(group(vec![slot(DType::Complex128, true)]), 4);
        let slots = vec![
            Slot::input("x", DType::Bfloat16),
            Slot::output("z", DType::Float8E4m3fn),
        ];
        let g = Kernel::new(slots, Some(DType::Float32), "z = x * 2.0;")
            .unwrap()
            .walked();
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
        // float32 into a float8: the short path, and 8-bit targets share words.
        let m = cast_kernel(DType::Float32, DType::Float8E4m3fn)
            .module(Form::Walked { one_axis: false });
        assert!(m.contains("f32_to_float8_e4m3fn(a.x)") && m.contains("atomicOr"));
        let m = cast_kernel(DType::Int8, DType::Float16).module(Form::Contiguous { at_zero: true });
        assert!(
            m.contains("fn nx_cast(") && m.contains("for (var nx_k"),
            "looped"
        );
        let slots = [
            Slot::input("x", DType::Int4),
            Slot::output("z", DType::Bfloat16),
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
                                                    // Two contiguous axes walk as one: 6 elements, rank 1, the offsets.
        let p = walk_params_n(&[(&c, 4), (&c, 0), (&c, 0)]).unwrap();
        assert_eq!(p[..8], le(&[6, 1]));
        assert_eq!(p[16..20], le(&[4])); // the first operand's offset
        assert!(walk_params_n(&[(&c, 1 << 31), (&c, 0)]).is_none());
        assert_eq!(merged_rank(&[c, c]), 1);
        assert_eq!(merged_rank(&[c, t]), 2);
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
    fn every_cast_kernel_validates_in_every_form() {
        for s in DType::ALL {
            for d in DType::ALL {
                for (form, m) in modules(&cast_kernel(s, d)) {
                    assert!(
                        !m.contains("{{"),
                        "unfilled placeholder: {s} -> {d} {form:?}"
                    );
                    validate(&m);
                }
            }
        }
    }

    #[test]
    fn every_add_kernel_validates_emulated_and_native_in_every_form() {
        use naga::valid::Capabilities as C;
        let all = ALL_NATIVE;
        let caps = C::SHADER_FLOAT16 | C::SHADER_FLOAT16_IN_FLOAT32 | C::FLOAT64 | C::SHADER_INT64;
        for d in DType::ALL {
            for (form, m) in modules(&add_kernel(d, Native::NONE)) {
                assert!(!m.contains("{{"), "unfilled placeholder: {d} {form:?}");
                assert!(
                    !m.contains("bitcast<f") && !m.contains("u64"),
                    "{d} {form:?} emulated uses a native type"
                );
                validate(&m);
            }
            let n = all.for_dtype(d);
            for (form, m) in modules(&add_kernel(d, all)) {
                validate_with(&m, caps);
                if matches!(form, Form::First { .. }) {
                    continue;
                }
                assert_eq!(m.contains("add_f32_scaled(a.x"), n.f32, "{d}");
                assert_eq!(m.contains("enable f16"), n.f16, "{d}");
                assert_eq!(m.contains("bitcast<f64>"), n.f64, "{d}");
                assert_eq!(m.contains("join64(a.xy)"), n.int64, "{d}");
            }
            let exact = Native {
                f32_exact: true,
                ..all
            };
            for (form, m) in modules(&add_kernel(d, exact)) {
                validate_with(&m, caps);
                if !matches!(form, Form::First { .. }) {
                    assert_eq!(
                        m.contains("return vec2<u32>(add_f32_exact"),
                        matches!(d, DType::Float32 | DType::Complex64),
                        "{d}"
                    );
                }
            }
        }
    }

    #[test]
    fn sub_word_stores_use_atomics_where_walked_and_whole_words_contiguous() {
        for d in DType::ALL {
            let k = cast_kernel(d, d);
            let walked = k.module(Form::Walked { one_axis: false });
            assert_eq!(walked.contains("atomicOr"), d.bits() < 32, "{d}");
            let contiguous = k.module(Form::Contiguous { at_zero: false });
            assert!(!contiguous.contains("atomicOr"), "{d}");
        }
    }
}
