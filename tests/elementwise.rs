//! Elementwise kernels of the user's own on every device: `x * y + 1` over bfloat16,
//! float8_e4m3fn, float16, float32, int32 and int4, contiguous, strided, broadcast,
//! flipped and sub-byte at odd offsets, against an oracle of its own (the `half`
//! crate's roundings, a brute-force float8 rounding over all 256 values, wrapping
//! integer arithmetic); every refusal, and a WGSL (or CUDA) body's error at its line.

use half::{bf16, f16};
use nxrig::kernels::Elementwise;
use nxrig::{AnyArray, Array, DType, Error, Rig, Slice};

#[path = "common/rounding.rs"]
mod rounding;
#[path = "common/xy1.rs"]
mod xy1;
use xy1::{xy1_f32, xy1_i32};

#[path = "common/dut.rs"]
#[macro_use]
mod dut;
use dut::{dut, On};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use rounding::value;

fn expected(d: DType, x: u128, y: u128) -> u128 {
    let (a, b) = (value(d, x), value(d, y));
    match d {
        DType::Int32 => (a as i32).wrapping_mul(b as i32).wrapping_add(1) as u32 as u128,
        DType::Int4 => ((a as i32 * b as i32 + 1) & 0xf) as u128,
        _ => {
            let z = (a as f32) * (b as f32) + 1.0; // in the compute type, as NumPy's float32
            match d {
                DType::Bfloat16 => bf16::from_f32(z).to_bits() as u128,
                DType::Float16 => f16::from_f32(z).to_bits() as u128,
                DType::Float8E4m3fn => {
                    rounding::f8_nearest(z as f64, rounding::f8_of(d).unwrap()) as u128
                }
                _ => z.to_bits() as u128,
            }
        }
    }
}

/// `n` elements of `d`: normal values of magnitude 2^-20 to 16 for floats (so that
/// products are exact in float32 and no device's flushing shows), any for integers;
/// float32 elements with 8 significant bits.
fn sample(d: DType, n: usize, seed: u64) -> Vec<u128> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = (s >> 16) as u128;
        let bits = match d {
            DType::Float32 => (r & 0xffff) << 16,
            DType::Int32 => r & 0xffff_ffff,
            _ => r & ((1 << d.bits()) - 1),
        };
        if d.is_float() {
            let v = value(d, bits).abs();
            if !(v == 0.0 || (2f64.powi(-20)..=16.0).contains(&v)) {
                continue;
            }
        }
        out.push(bits);
    }
    out
}

fn of_bits(d: DType, shape: &[usize], bits: &[u128]) -> AnyArray {
    AnyArray::of_bits(d, shape, bits).unwrap()
}

/// The kernel of compute type fit for `d` over `x` and `y`, into fresh outputs.
fn call(d: DType, x: &AnyArray, y: &AnyArray) -> AnyArray {
    let mut z = if matches!(d, DType::Int32 | DType::Int4) {
        xy1_i32().call(&[x, y])
    } else {
        xy1_f32().call(&[x, y])
    }
    .unwrap();
    z.remove(0)
}

/// A host array `a` through `view`, and `a` placed on the device under test, then
/// through `view` there (a view placed alone would be compacted: its offset and
/// strides would not reach the device).
fn both(a: AnyArray, view: impl Fn(&AnyArray) -> AnyArray) -> (AnyArray, AnyArray) {
    let on = a.clone().on();
    (view(&a), view(&on))
}

/// The array itself.
fn whole(a: &AnyArray) -> AnyArray {
    a.clone()
}

/// `x * y + 1` of `x` and `y` (each a host view and the same view on the device under
/// test, any layouts) checked on the device against the oracle over the broadcast
/// shape.
fn check(d: DType, (x, xd): &(AnyArray, AnyArray), (y, yd): &(AnyArray, AnyArray)) {
    let shape = x.shape().to_vec();
    let mut yb = y.clone();
    while yb.shape().len() < shape.len() {
        yb = yb.unsqueeze(0).unwrap();
    }
    let yb = yb.expand(&shape).unwrap();
    let (xs, ys) = (x.to_bits_vec().unwrap(), yb.to_bits_vec().unwrap());
    let z = call(d, xd, yd);
    assert_eq!(z.rig(), &dut());
    assert_eq!((z.dtype(), z.shape()), (d, &shape[..]));
    let got = z.to_device(&Rig::host()).unwrap().to_bits_vec().unwrap();
    for (k, ((&a, &b), &g)) in xs.iter().zip(&ys).zip(&got).enumerate() {
        let want = expected(d, a, b);
        assert_eq!(
            g, want,
            "{d} element {k}: {a:#x} * {b:#x} + 1 gave {g:#x}, not {want:#x}"
        );
    }
}

use rounding::KERNEL_DTYPES as DTYPES;

on_every_device! {
    fn x_times_y_plus_1_over_every_layout() {
        let from = |k: isize| move |a: &AnyArray| a.slice(&[Slice::new(Some(k), None, 1)]).unwrap();
        for d in DTYPES {
            // Contiguous, both operands of one shape.
            let x = both(of_bits(d, &[3, 5], &sample(d, 15, 1)), whole);
            let y = both(of_bits(d, &[3, 5], &sample(d, 15, 2)), whole);
            check(d, &x, &y);
            // Strided x (every other column), y broadcast along rows.
            let x = both(of_bits(d, &[3, 10], &sample(d, 30, 3)), |a| {
                a.slice(&[Slice::FULL, Slice::new(None, None, 2)]).unwrap()
            });
            let y = both(of_bits(d, &[5], &sample(d, 5, 4)), whole);
            check(d, &x, &y);
            // Flipped x, y a column broadcast along the columns.
            let x = both(of_bits(d, &[3, 5], &sample(d, 15, 5)), |a| a.flip(&[1]).unwrap());
            let y = both(of_bits(d, &[3, 1], &sample(d, 3, 6)), whole);
            check(d, &x, &y);
            // Contiguous from the ninth element and the first (the contiguous form's
            // whole groups, then its tail walked).
            let x = both(of_bits(d, &[1009], &sample(d, 1009, 9)), from(8));
            let y = both(of_bits(d, &[1001], &sample(d, 1001, 10)), whole);
            check(d, &x, &y);
            // From element 33 and 65: a whole group of every dtype's contiguous form
            // (four words of the narrowest operand: 32 of int4), read from its offset.
            let x = both(of_bits(d, &[1033], &sample(d, 1033, 11)), from(32));
            let y = both(of_bits(d, &[1065], &sample(d, 1065, 12)), from(64));
            check(d, &x, &y);
            // Odd offsets (the high nibble first for int4), longer than a block's worth
            // of whole words.
            let x = both(of_bits(d, &[1001], &sample(d, 1001, 7)), from(1));
            let y = both(of_bits(d, &[1001], &sample(d, 1001, 8)), from(1));
            check(d, &x, &y);
        }
    }
}

on_every_device! {
    fn long_contiguous_operands_into_an_output_given_past_its_start() {
        // Long enough for the host's threads (each a range of the output, a block at a
        // time) and the GPUs' contiguous form; the output a view from element 8 (or
        // nibble 8) of a larger array, whose first elements stay as they were.
        let n = (1 << 20) + 3;
        for d in [DType::Float32, DType::Bfloat16, DType::Int4] {
            let x = of_bits(d, &[n], &sample(d, n, 11));
            let y = of_bits(d, &[n], &sample(d, n, 12));
            let z = of_bits(d, &[n + 8], &sample(d, n + 8, 13)).on();
            let view = z.slice(&[Slice::new(Some(8), None, 1)]).unwrap();
            let (xd, yd) = (x.clone().on(), y.clone().on());
            if d == DType::Int4 {
                xy1_i32().call_into(&[&xd, &yd], &[&view]).unwrap();
            } else {
                xy1_f32().call_into(&[&xd, &yd], &[&view]).unwrap();
            }
            let got = z.to_device(&Rig::host()).unwrap().to_bits_vec().unwrap();
            assert_eq!(got[..8], sample(d, n + 8, 13)[..8], "{d}: the elements before the view");
            let (xs, ys) = (x.to_bits_vec().unwrap(), y.to_bits_vec().unwrap());
            for k in 0..n {
                let want = expected(d, xs[k], ys[k]);
                assert_eq!(got[k + 8], want, "{d} element {k}");
            }
        }
    }
}

on_every_device! {
    fn an_output_given_at_an_odd_nibble_leaves_its_neighbours() {
        let d = DType::Int4;
        let x = of_bits(d, &[5], &sample(d, 5, 9)).on();
        let y = of_bits(d, &[5], &sample(d, 5, 10)).on();
        let out = of_bits(d, &[7], &[0xf; 7]).on();
        let inner = out.slice(&[Slice::new(Some(1), Some(6), 1)]).unwrap();
        xy1_i32().call_into(&[&x, &y], &[&inner]).unwrap();
        let got = out.to_device(&Rig::host()).unwrap().to_bits_vec().unwrap();
        let (xs, ys) = (x.to_device(&Rig::host()).unwrap().to_bits_vec().unwrap(),
                        y.to_device(&Rig::host()).unwrap().to_bits_vec().unwrap());
        assert_eq!((got[0], got[6]), (0xf, 0xf), "the neighbours keep their bits");
        for k in 0..5 {
            assert_eq!(got[k + 1], expected(d, xs[k], ys[k]), "element {k}");
        }
        // In place: z written over x, each element read before it is written.
        let x2 = x.copy().unwrap();
        xy1_i32().call_into(&[&x2, &y], &[&x2]).unwrap();
        let got = x2.to_device(&Rig::host()).unwrap().to_bits_vec().unwrap();
        for k in 0..5 {
            assert_eq!(got[k], expected(d, xs[k], ys[k]), "in place, element {k}");
        }
    }
}

/// The message of `r`'s error, which must be `Error::Invalid` naming `op`.
fn refused<T: std::fmt::Debug>(r: Result<T, Error>, op: &str) -> String {
    let e = r.unwrap_err();
    assert!(matches!(e, Error::Invalid { .. }), "{e:?}");
    let s = e.to_string();
    assert!(s.starts_with(&format!("{op}: kernel ")), "{s}");
    s
}

on_every_device! {
    fn every_refusal_names_the_kernel_and_why() {
        let f = |shape: &[usize]| AnyArray::create(&dut(), DType::Float32, shape).unwrap();
        let (x, y) = (f(&[4]), f(&[4]));
        let k = xy1_f32();
        let call = "Elementwise::call";
        let into = "Elementwise::call_into";
        assert!(refused(k.call(&[&x]), call).contains("1 inputs given, 2 declared"));
        let b = AnyArray::create(&dut(), DType::Bfloat16, &[4]).unwrap();
        assert!(refused(k.call(&[&x, &b]), call).contains("input y is bfloat16, declared T = float32"));
        assert!(refused(k.call(&[&x, &f(&[3])]), call).contains("do not broadcast"));
        let unbound = Elementwise::<f32>::new("u").input("x", "T").output("z", "U").wgsl("").host(|_, _| {});
        assert!(refused(unbound.call(&[&x]), call).contains("type variable U is bound by no input"));
        for (bad, said) in [("nx_x", "not a WGSL identifier"), ("1x", "not a WGSL identifier"), ("var", "no keyword"), ("y", "declared twice")] {
            let k = Elementwise::<f32>::new("names").input("y", "T").input(bad, "T").output("z", "T");
            assert!(refused(k.call(&[&x, &y]), call).contains(said), "{bad}");
        }
        // A dtype's name is that dtype; any other type starts with a capital letter.
        let typo = Elementwise::<f32>::new("typo").input("x", "flaot32").output("z", "flaot32").host(|_, _| {});
        assert!(refused(typo.call(&[&x]), call).contains("\"flaot32\" is neither a dtype nor a type variable"));
        let named = Elementwise::<f32>::new("named").input("x", "float32").output("z", "bfloat16");
        assert!(refused(named.call(&[&b]), call).contains("input x is bfloat16, declared float32"));
        // A capitalized alias is a type variable, a lowercase one the dtype.
        let alias = Elementwise::<f32>::new("alias").input("x", "Float").input("y", "bf16").output("z", "Float").host(|i, o| o[0].copy_from_slice(i[0]));
        if !dut().kind().is_gpu() {
            assert_eq!(alias.call(&[&b, &b]).unwrap()[0].dtype(), DType::Bfloat16);
        }
        assert!(refused(alias.call(&[&b, &x]), call).contains("input y is float32, declared bfloat16"));
        let none = Elementwise::<f32>::new("none").input("x", "T");
        assert!(refused(none.call(&[&x]), call).contains("no output"));
        // No input: the outputs come given, or the call is refused (not a panic).
        let seven = Elementwise::<f32>::new("seven")
            .output("z", DType::Float32)
            .wgsl("z = 7.0;")
            .cuda("z = 7.0f;")
            .host(|_, o| o[0].fill(7.0));
        assert!(refused(seven.call(&[]), call).contains("reads no input"));
        let z = f(&[5]);
        seven.call_into(&[], &[&z]).unwrap();
        assert_eq!(z.to_device(&Rig::host()).unwrap().to_bits_vec().unwrap(), vec![0x40e0_0000; 5]);
        let only_host = Elementwise::<f32>::new("h").input("x", "T").output("z", "T").host(|_, _| {});
        let only_gpu = Elementwise::<f32>::new("g").input("x", "T").output("z", "T").wgsl("z = x;");
        let missing = if dut().kind().is_gpu() { only_host.call(&[&x]) } else { only_gpu.call(&[&x]) };
        assert!(refused(missing, call).contains("body, and its operands are on"));
        // Outputs: read-only memory, repeated elements, an overlap that is not identity.
        let ro = AnyArray::v(DType::Float32, *x.layout(), nxrig::rig::Buffer::of_bytes(&[0u8; 16][..])).unwrap();
        if dut() == Rig::host() {
            assert!(refused(k.call_into(&[&x, &y], &[&ro]), into).contains("only reads"));
        }
        let rep = f(&[1]).expand(&[4]).unwrap();
        assert!(refused(k.call_into(&[&x, &y], &[&rep]), into).contains("twice"));
        let flipped = x.flip(&[0]).unwrap();
        assert!(refused(k.call_into(&[&flipped, &y], &[&x]), into).contains("shares"));
        assert!(refused(k.call_into(&[&x, &y], &[&f(&[3])]), into).contains("does not broadcast"));
    }
}

on_every_device! {
    fn a_wgsl_error_is_said_at_its_line() {
        let x = AnyArray::create(&dut(), DType::Float32, &[4]).unwrap();
        if dut().kind() == nxrig::rig::RigKind::Cuda {
            let k = Elementwise::<f32>::new("typo").input("x", "T").output("z", "T").cuda("float t = x * 2.0f;\nz = t * ;");
            let s = refused(k.call(&[&x]), "Elementwise::call");
            assert!(s.contains("does not compile") && s.contains("line 2 of the CUDA body"), "{s}");
        }
        if dut().kind() != nxrig::rig::RigKind::Wgpu {
            return;
        }
        let k = Elementwise::<f32>::new("typo").input("x", "T").output("z", "T").wgsl("let t = x * 2.0;\nz = t * ;");
        let s = refused(k.call(&[&x]), "Elementwise::call");
        assert!(s.contains("does not compile: line 2 of the WGSL body"), "{s}");
        // The device is still good: a kernel that compiles runs.
        let ok = Elementwise::<f32>::new("ok").input("x", "T").output("z", "T").wgsl("z = x + 1.0;");
        let z = ok.call(&[&x]).unwrap().remove(0);
        assert_eq!(z.to_device(&Rig::host()).unwrap().expect::<f32>().unwrap().to_vec().unwrap(), [1.0; 4]);
    }
}

on_every_device! {
    #[cfg(not(target_arch = "wasm32"))]
    fn call_async_says_the_same_and_its_errors_at_the_call() {
        let d = DType::Bfloat16;
        let x = of_bits(d, &[64], &sample(d, 64, 11));
        let y = of_bits(d, &[64], &sample(d, 64, 12));
        let (xd, yd) = (x.clone().on(), y.clone().on());
        let z = pollster::block_on(xy1_f32().call_async(&[&xd, &yd])).unwrap().remove(0);
        let got = z.to_device(&Rig::host()).unwrap().to_bits_vec().unwrap();
        let (xs, ys) = (x.to_bits_vec().unwrap(), y.to_bits_vec().unwrap());
        for k in 0..64 {
            assert_eq!(got[k], expected(d, xs[k], ys[k]), "element {k}");
        }
        if dut().kind() == nxrig::rig::RigKind::Wgpu {
            let k = Elementwise::<f32>::new("typo").input("x", "T").output("z", "T").wgsl("z = x +;");
            let s = refused(pollster::block_on(k.call_async(&[&xd])), "Elementwise::call");
            assert!(s.contains("line 1 of the WGSL body"), "{s}");
        }
    }
}

on_every_device! {
    fn a_donated_input_takes_the_output_where_the_claims_allow() {
        let k = xy1_f32().donates("x");
        let x = Array::<f32>::of_array(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap().on();
        let y = Array::<f32>::of_array(&[3], &[2.0, 0.5, -1.0]).unwrap().on();
        let want = [3.0, 2.0, -2.0, 9.0, 3.5, -5.0];
        // Held exclusive, of the output's dtype and shape: written in place.
        let kept = x.any().clone();
        let z = k.call_donated(vec![x.any().clone(), y.any().clone()]).unwrap().remove(0);
        assert!(z.buffer().same_memory(kept.buffer()), "in place");
        assert_eq!(z.clone().expect::<f32>().unwrap().to_vec().unwrap(), want);
        let e = kept.to_bits_vec().unwrap_err().to_string();
        assert!(e.contains("donated to kernel \"xy1\""), "{e}");
        assert!(y.any().to_bits_vec().is_ok(), "the other input is kept");
        // Broadcast to the output's shape, or of another dtype: a fresh output, the
        // input kept.
        let row = Array::<f32>::of_array(&[3], &[1.0, 2.0, 3.0]).unwrap().on();
        let big = Array::<f32>::of_array(&[2, 3], &[1.0; 6]).unwrap().on();
        let z = k.call_donated(vec![row.any().clone(), big.any().clone()]).unwrap().remove(0);
        assert!(!z.buffer().same_memory(row.any().buffer()));
        assert_eq!(row.to_vec().unwrap(), [1.0, 2.0, 3.0]);
        assert_eq!(z.expect::<f32>().unwrap().to_vec().unwrap(), [2.0, 3.0, 4.0, 2.0, 3.0, 4.0]);
        let h: AnyArray = big.any().cast(DType::Bfloat16).unwrap();
        let k2 = Elementwise::<f32>::new("widen")
            .input("x", DType::Bfloat16)
            .output("z", DType::Float32)
            .donates("x")
            .wgsl("z = x;")
            .cuda("z = x;")
            .host(|i, o| o[0].copy_from_slice(i[0]));
        let z = k2.call_donated(vec![h.clone()]).unwrap().remove(0);
        assert!(!z.buffer().same_memory(h.buffer()) && h.to_bits_vec().is_ok());
        // A donated input read through another input too: refused at once.
        let e = k.call_donated(vec![big.any().clone(), big.any().clone()]).unwrap_err();
        assert!(matches!(e, Error::Claim { .. }), "{e}");
        assert!(big.to_vec().is_ok(), "refused: nothing taken");
        // A name the kernel does not declare.
        let e = xy1_f32().donates("w").call_donated(vec![big.any().clone(), big.any().clone()]);
        assert!(refused(e, "Elementwise::call_donated").contains("it donates \"w\""));
    }
}
