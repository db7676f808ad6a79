//! Raw kernels on every device: a whole WGSL module over nxrig's `load_`, `store_`
//! and `numel_` of each operand, on the workgroups the caller gives. `z[i] =
//! x[n - 1 - i] * 2 + y[i % m]` (a reversal through the layout walk, an input of
//! another shape) over bfloat16, float8_e4m3fn, float16, float32, int32 and int4 in
//! flipped, strided and odd-offset layouts, against an oracle of its own (Rust's
//! float32 arithmetic, the roundings of `tests/common/rounding.rs`, wrapping
//! integers); an output's neighbours untouched; every refusal, and a module's error
//! at its line. Every other device (the host, CUDA) refuses: raw kernels are WGSL.

use nxrig::kernels::RawKernel;
use nxrig::rig::RigKind;
use nxrig::{AnyArray, DType, Error, Rig, Slice};

#[path = "common/dut.rs"]
#[macro_use]
mod dut;
use dut::{dut, On};

#[path = "common/rounding.rs"]
mod rounding;

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const CALL: &str = "RawKernel::call";

/// Whether the device under test is a GPU through wgpu (every other device refuses).
fn on_wgpu() -> bool {
    dut().kind() == RigKind::Wgpu
}

/// The module, in `ty`'s literals (`2.0` or `2`).
fn module(two: &str) -> String {
    format!(
        "@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x + id.y * 64u * 4u;
    if (i < numel_z()) {{
        store_z(i, load_x(numel_x() - 1u - i) * {two} + load_y(i % numel_y()));
    }}
}}
"
    )
}

fn reverse_f32() -> RawKernel<f32> {
    RawKernel::<f32>::new("reverse")
        .input("x", "T")
        .input("y", "T")
        .output("z", "T")
        .wgsl(&module("2.0"))
}

fn reverse_i32() -> RawKernel<i32> {
    RawKernel::<i32>::new("reverse int")
        .input("x", "T")
        .input("y", "T")
        .output("z", "T")
        .wgsl(&module("2"))
}

use rounding::value;

/// `x * 2 + y` computed in the compute type and rounded once into `d`.
fn expected(d: DType, x: u128, y: u128) -> u128 {
    let (a, b) = (value(d, x), value(d, y));
    match d {
        DType::Int32 => (a as i32).wrapping_mul(2).wrapping_add(b as i32) as u32 as u128,
        DType::Int4 => ((a as i32 * 2 + b as i32) & 0xf) as u128,
        _ => {
            let z = (a as f32) * 2.0 + b as f32;
            match d {
                DType::Bfloat16 => rounding::nearest16(z as f64, true) as u128,
                DType::Float16 => rounding::nearest16(z as f64, false) as u128,
                DType::Float8E4m3fn => {
                    rounding::f8_nearest(z as f64, rounding::f8_of(d).unwrap()) as u128
                }
                _ => z.to_bits() as u128,
            }
        }
    }
}

/// `n` elements of `d`: finite floats of magnitude under 100 (so that e4m3's sums stay
/// finite), any integers.
fn sample(d: DType, n: usize, seed: u64) -> Vec<u128> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let bits = (s as u128) & ((1u128 << d.bits()) - 1);
        let v = value(d, bits).abs();
        if d.is_float() && (v.is_nan() || v >= 100.0) {
            continue;
        }
        out.push(bits);
    }
    out
}

fn of_bits(d: DType, shape: &[usize], bits: &[u128]) -> AnyArray {
    AnyArray::of_bits(d, shape, bits).unwrap()
}

fn host_bits(a: &AnyArray) -> Vec<u128> {
    a.to_device(&Rig::host()).unwrap().to_bits_vec().unwrap()
}

/// The kernel over `x` and `y` (host arrays, any layouts) into `z` (on the device under
/// test, any layout), against the oracle; `z`'s memory outside its view kept.
fn check(d: DType, x: &AnyArray, y: &AnyArray, z: &AnyArray, whole: &AnyArray) {
    let before = host_bits(whole);
    let (xs, ys) = (x.to_bits_vec().unwrap(), y.to_bits_vec().unwrap());
    let (xd, yd) = (x.clone().on(), y.clone().on());
    let n = z.layout().numel() as u32;
    // Two rows of workgroups where there are more than four groups' elements.
    let groups = [n.div_ceil(64).min(4), n.div_ceil(256), 1];
    if matches!(d, DType::Int32 | DType::Int4) {
        reverse_i32().call(&[&xd, &yd], &[z], groups)
    } else {
        reverse_f32().call(&[&xd, &yd], &[z], groups)
    }
    .unwrap();
    let got = host_bits(z);
    for (i, &g) in got.iter().enumerate() {
        let want = expected(d, xs[xs.len() - 1 - i], ys[i % ys.len()]);
        assert_eq!(g, want, "{d} element {i}: gave {g:#x}, not {want:#x}");
    }
    // The rest of z's memory: every element not in the view as it was.
    let after = host_bits(whole);
    let mut inside = vec![false; before.len()];
    z.layout()
        .for_each_position(|p| inside[p - whole.layout().offset()] = true);
    for (k, (a, b)) in before.iter().zip(&after).enumerate() {
        if !inside[k] {
            assert_eq!(a, b, "{d}: element {k} outside the output changed");
        }
    }
}

use rounding::KERNEL_DTYPES as DTYPES;

on_every_device! {
    fn a_reversal_over_every_layout() {
        if !on_wgpu() {
            return;
        }
        for d in DTYPES {
            // Contiguous x, y of three elements, z contiguous.
            let x = of_bits(d, &[2, 150], &sample(d, 300, 1));
            let y = of_bits(d, &[3], &sample(d, 3, 2));
            let z = AnyArray::create(&dut(), d, &[300]).unwrap();
            check(d, &x, &y, &z, &z);
            // x flipped and strided, y a transposed block, z every other element from
            // an odd one (int4: the high nibble first), of a longer array.
            let wide = of_bits(d, &[4, 301], &sample(d, 1204, 3));
            let x = wide
                .slice(&[Slice::new(None, None, 2), Slice::new(Some(1), None, 3)])
                .unwrap()
                .flip(&[1])
                .unwrap();
            let y = of_bits(d, &[3, 5], &sample(d, 15, 4)).permute(&[1, 0]).unwrap();
            let whole = of_bits(d, &[403], &vec![0x5; 403]).on();
            let z = whole.slice(&[Slice::new(Some(1), Some(401), 2)]).unwrap();
            assert_eq!(x.layout().numel(), 200);
            check(d, &x, &y, &z, &whole);
        }
    }
}

/// The message of `r`'s error, which must be `Error::Invalid` naming the call.
fn refused<T: std::fmt::Debug>(r: Result<T, Error>) -> String {
    let e = r.unwrap_err();
    assert!(matches!(e, Error::Invalid { .. }), "{e:?}");
    let s = e.to_string();
    assert!(s.starts_with(&format!("{CALL}: kernel ")), "{s}");
    s
}

on_every_device! {
    fn every_refusal_names_the_kernel_and_why() {
        let f = |shape: &[usize]| AnyArray::create(&dut(), DType::Float32, shape).unwrap();
        let (x, y, z) = (f(&[4]), f(&[4]), f(&[4]));
        let k = reverse_f32();
        let g = [1, 1, 1];
        if !on_wgpu() {
            let s = refused(k.call(&[&x, &y], &[&z], g));
            assert!(s.contains("runs on GPUs through wgpu, and its operands are on"), "{s}");
            return;
        }
        assert!(refused(k.call(&[&x], &[&z], g)).contains("1 inputs given, 2 declared"));
        assert!(refused(k.call(&[&x, &y], &[], g)).contains("0 outputs given, 1 declared"));
        let b = AnyArray::create(&dut(), DType::Bfloat16, &[4]).unwrap();
        assert!(refused(k.call(&[&x, &b], &[&z], g)).contains("input y is bfloat16, declared T = float32"));
        assert!(refused(k.call(&[&x, &y], &[&b], g)).contains("output z is bfloat16, declared T = float32"));
        let none = RawKernel::<f32>::new("none").input("x", "T").output("z", "T");
        assert!(refused(none.call(&[&x], &[&z], g)).contains("no WGSL module"));
        let wide = RawKernel::<f64>::new("f64").input("x", "T").output("z", "T").wgsl("");
        let x64 = AnyArray::create(&dut(), DType::Float64, &[4]).unwrap();
        assert!(refused(wide.call(&[&x64], &[&x64.copy().unwrap()], g)).contains("computes in float64"));
        // Outputs: repeated elements, an overlap that is not identity.
        let rep = f(&[1]).expand(&[4]).unwrap();
        assert!(refused(k.call(&[&x, &y], &[&rep], g)).contains("twice"));
        let flipped = z.flip(&[0]).unwrap();
        assert!(refused(k.call(&[&flipped, &y], &[&z], g)).contains("shares"));
        let s = refused(k.call(&[&x, &y], &[&z], [u32::MAX, 1, 1]));
        assert!(s.contains("dispatches at most"), "{s}");
        // Refused: the output as it was.
        assert_eq!(host_bits(&z), vec![0; 4]);
    }
}

on_every_device! {
    fn a_modules_error_is_said_at_its_line_and_identity_reads_the_old_values() {
        if !on_wgpu() {
            return;
        }
        let x = of_bits(DType::Float32, &[4], &[1.0f32, 2.0, 3.0, 4.0].map(|v| v.to_bits() as u128)).on();
        let bad = RawKernel::<f32>::new("typo").input("x", "T").output("z", "T").wgsl(
            "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n    store_z(id.x, load_x(id.x) * );\n}\n",
        );
        let s = refused(bad.call(&[&x], &[&x.copy().unwrap()], [1, 1, 1]));
        assert!(s.contains("does not compile: line 3 of the WGSL module"), "{s}");
        // In place, reversed: every element read as it was before the call.
        let k = RawKernel::<f32>::new("flip").input("x", "T").output("z", "T").wgsl(
            "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n    store_z(id.x, load_x(numel_x() - 1u - id.x));\n}\n",
        );
        k.call(&[&x], &[&x], [1, 1, 1]).unwrap();
        let got: Vec<f32> = host_bits(&x).iter().map(|&b| f32::from_bits(b as u32)).collect();
        assert_eq!(got, [4.0, 3.0, 2.0, 1.0]);
        // Past numel: loads 0, stores nothing; an unused input still binds.
        let k = RawKernel::<f32>::new("past").input("x", "T").input("unused", "T").output("z", "T").wgsl(
            "@compute @workgroup_size(1)\nfn main() {\n    store_z(0u, load_x(9u) + 5.0);\n    store_z(4u, 7.0);\n}\n",
        );
        let z = x.copy().unwrap();
        k.call(&[&x, &x], &[&z], [1, 1, 1]).unwrap();
        let got: Vec<f32> = host_bits(&z).iter().map(|&b| f32::from_bits(b as u32)).collect();
        assert_eq!(got, [5.0, 3.0, 2.0, 1.0]);
        #[cfg(not(target_arch = "wasm32"))]
        {
            let s = refused(pollster::block_on(bad.call_async(&[&x], &[&z], [1, 1, 1])));
            assert!(s.contains("line 3 of the WGSL module"), "{s}");
        }
    }
}
