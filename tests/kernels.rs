//! Host kernels through the door: add (broadcast, negative strides, sub-byte at odd
//! offsets, every dtype), fill, cast, and the donating add. The add oracle is
//! independent of nxrig's conversions: native arithmetic, the `half` crate, and a
//! brute-force nearest-value search over every float8 pattern.

use half::{bf16, f16};
use nxrig::dtype::Class;
use nxrig::kernels::{add, add_donated, add_into, fill};
use nxrig::rig::Claim;
use nxrig::{AnyArray, Array, DType, Error, Move, Slice};

#[path = "common/dut.rs"]
#[macro_use]
mod dut;
use dut::{dut, On};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[path = "common/rounding.rs"]
mod rounding;
use rounding::{f8_nearest, f8_of, f8_value, nearest16};

/// The oracle: `a + b` for dtype `d` on raw bits (a few values per dtype are tested).
fn oracle(d: DType, a: u128, b: u128) -> u128 {
    match d {
        DType::Float16 => nearest16(
            f16::from_bits(a as u16).to_f64() + f16::from_bits(b as u16).to_f64(),
            false,
        ) as u128,
        DType::Bfloat16 => nearest16(
            bf16::from_bits(a as u16).to_f64() + bf16::from_bits(b as u16).to_f64(),
            true,
        ) as u128,
        d if f8_of(d).is_some() => {
            let f = f8_of(d).unwrap();
            f8_nearest(f8_value(a as u8, f) + f8_value(b as u8, f), f) as u128
        }
        DType::Float32 => (f32::from_bits(a as u32) + f32::from_bits(b as u32)).to_bits() as u128,
        DType::Float64 => (f64::from_bits(a as u64) + f64::from_bits(b as u64)).to_bits() as u128,
        DType::Complex32 => {
            oracle(DType::Float16, a & 0xffff, b & 0xffff)
                | oracle(DType::Float16, a >> 16, b >> 16) << 16
        }
        DType::Bcomplex32 => {
            oracle(DType::Bfloat16, a & 0xffff, b & 0xffff)
                | oracle(DType::Bfloat16, a >> 16, b >> 16) << 16
        }
        DType::Complex64 => {
            oracle(DType::Float32, a & 0xffff_ffff, b & 0xffff_ffff)
                | oracle(DType::Float32, a >> 32, b >> 32) << 32
        }
        DType::Complex128 => {
            oracle(DType::Float64, a & u64::MAX as u128, b & u64::MAX as u128)
                | oracle(DType::Float64, a >> 64, b >> 64) << 64
        }
        DType::Bool => (a != 0 || b != 0) as u128,
        d => (a + b) % (1u128 << d.packed_bits()),
    }
}

/// Small values of every dtype, as bits: 0, 1, 2, 3, 5, 7 in the dtype (and for
/// floats 1.5, -2.25, 0.1 rounded by the oracle's own means where it can).
fn values(d: DType, n: usize) -> Vec<u128> {
    (0..n)
        .map(|i| {
            let k = (i * 7 + 3) % 11;
            match d.class() {
                Class::Float | Class::Complex => match d {
                    DType::Float16 => f16::from_f64(k as f64 * 0.375 - 1.0).to_bits() as u128,
                    DType::Bfloat16 => bf16::from_f64(k as f64 * 0.375 - 1.0).to_bits() as u128,
                    d if f8_of(d).is_some() => {
                        f8_nearest(k as f64 * 0.375 - 1.0, f8_of(d).unwrap()) as u128
                    }
                    DType::Float32 => ((k as f32) * 0.1 - 0.3).to_bits() as u128,
                    DType::Float64 => ((k as f64) * 0.1 - 0.3).to_bits() as u128,
                    DType::Complex32 => {
                        f16::from_f64(k as f64 * 0.25).to_bits() as u128
                            | (f16::from_f64(k as f64 - 5.0).to_bits() as u128) << 16
                    }
                    DType::Bcomplex32 => {
                        bf16::from_f64(k as f64 * 0.25).to_bits() as u128
                            | (bf16::from_f64(k as f64 - 5.0).to_bits() as u128) << 16
                    }
                    DType::Complex64 => {
                        ((k as f32) * 0.25).to_bits() as u128
                            | (((k as f32) - 5.0).to_bits() as u128) << 32
                    }
                    _ => {
                        ((k as f64) * 0.25).to_bits() as u128
                            | (((k as f64) - 5.0).to_bits() as u128) << 64
                    }
                },
                Class::Bool => (k % 2) as u128,
                _ => (k as u128 * 29) % (1u128 << d.packed_bits()),
            }
        })
        .collect()
}

fn array(d: DType, shape: &[usize], bits: &[u128]) -> AnyArray {
    AnyArray::of_bits(d, shape, bits).unwrap().on()
}

on_every_device! {
    fn add_every_dtype_with_broadcast_and_negative_strides() {
        for d in DType::ALL {
            // x: [3, 4] flipped on axis 1; y: a row [4] broadcast; one odd-offset sub-byte view.
            let xs = values(d, 13);
            let x0 = array(d, &[13], &xs);
            let x = x0
                .move_(&Move::Slice(vec![Slice::new(Some(1), None, 1)]))
                .unwrap()
                .unwrap()
                .move_(&Move::Reshape(vec![3, 4]))
                .unwrap()
                .unwrap()
                .move_(&Move::Flip(vec![1]))
                .unwrap()
                .unwrap();
            let ys = values(d, 4).into_iter().rev().collect::<Vec<_>>();
            let y = array(d, &[4], &ys);
            let z = add(&x, &y).unwrap();
            assert_eq!(z.shape(), [3, 4]);
            let got = z.to_bits_vec().unwrap();
            for i in 0..3 {
                for j in 0..4 {
                    let a = xs[1 + i * 4 + (3 - j)];
                    let want = oracle(d, a, ys[j]);
                    assert_eq!(got[i * 4 + j], want, "{d}: [{i},{j}] {a:#x} + {:#x}", ys[j]);
                }
            }
        }
    }
}

on_every_device! {
    fn add_in_place_into_an_identical_output_and_refusals() {
        let x = Array::<i16>::of_array(&[3], &[1, 2, 32767]).unwrap().on();
        let y = Array::<i16>::of_array(&[1], &[1]).unwrap().on();
        add_into(x.any(), x.any(), y.any()).unwrap();
        assert_eq!(x.to_vec().unwrap(), [2, 3, -32768], "wraps");
        let f = Array::<f32>::of_array(&[3], &[0.0; 3]).unwrap().on();
        let e = add_into(f.any(), x.any(), y.any()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "add_into: the operands' dtypes differ (cast one first) \
             (float32 [3], int16 [3], int16 [1])"
        );
        let z = Array::<i16>::of_array(&[2], &[0; 2]).unwrap().on();
        let e = add_into(z.any(), x.any(), y.any()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "add_into: shape mismatch: x [3] and y [1] do not broadcast to out [2]"
        );
        let e = add(x.any(), z.any()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "add: shape mismatch: [3] and [2] do not broadcast (int16 [3], int16 [2])"
        );
        // Two operands given, two listed: the output is nxrig's own.
        let e = add(f.any(), x.any()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "add: the operands' dtypes differ (cast one first) (float32 [3], int16 [3])"
        );
    }
}

on_every_device! {
    fn fill_every_layout_keeps_sub_byte_neighbours() {
        let n: AnyArray = Array::<nxrig::dtype::U4>::of_array(
            &[5],
            &[1, 2, 3, 4, 5].map(|x| nxrig::dtype::U4::new(x).unwrap()),
        )
        .unwrap()
        .on()
        .into();
        let odd = n
            .move_(&Move::Slice(vec![Slice::new(Some(1), None, 2)]))
            .unwrap()
            .unwrap();
        fill(&odd, 9.0).unwrap();
        assert_eq!(n.to_bits_vec().unwrap(), [1, 9, 3, 9, 5]);
        let b = Array::<u8>::of_array(&[1], &[0])
            .unwrap()
            .on()
            .move_(&Move::Expand(vec![3]))
            .unwrap()
            .unwrap();
        assert!(fill(b.any(), 1.0)
            .unwrap_err()
            .to_string()
            .contains("twice"));
        for d in DType::ALL {
            let a = AnyArray::create(&dut(), d, &[2, 3]).unwrap();
            fill(&a, 1.0).unwrap();
            let one = nxrig::dtype::bits_of_f64(d, 1.0);
            assert!(a.to_bits_vec().unwrap().iter().all(|&x| x == one), "{d}");
        }
    }
}

on_every_device! {
    fn donating_add_writes_in_place_only_when_exclusive() {
        let x = Array::<f32>::of_array(&[3], &[1.0, 2.0, 3.0]).unwrap().on();
        let y = Array::<f32>::of_array(&[3], &[10.0, 20.0, 30.0])
            .unwrap()
            .on();
        let z = add_donated(x.any().clone(), y.any()).unwrap();
        assert!(z.buffer().same_memory(x.buffer()), "in place");
        assert_eq!(
            z.expect::<f32>().unwrap().to_vec().unwrap(),
            [11.0, 22.0, 33.0]
        );
        let e = x.to_vec().unwrap_err();
        assert!(e.to_string().contains("donated to add_donated"), "{e}");
        // A caller that still needs x holds a read claim across the call: x is untouched.
        let x = Array::<f32>::of_array(&[3], &[1.0, 2.0, 3.0]).unwrap().on();
        let z = Claim::with(&[x.buffer()], &[], |_| {
            add_donated(x.any().clone(), y.any())
        })
        .unwrap()
        .unwrap();
        assert!(!z.buffer().same_memory(x.buffer()));
        assert_eq!(x.to_vec().unwrap(), [1.0, 2.0, 3.0]);
        assert_eq!(
            z.expect::<f32>().unwrap().to_vec().unwrap(),
            [11.0, 22.0, 33.0]
        );
    }
}

on_every_device! {
    /// Where `x` cannot hold the sum (it broadcasts to a larger shape, or reaches an
    /// element twice), the donating add gives a fresh array and leaves `x` as it was,
    /// though the call held `x` exclusive: its fallback runs after the claim is released.
    fn donating_add_copies_where_x_cannot_hold_the_result() {
        let x = Array::<f32>::of_array(&[3], &[1.0, 2.0, 3.0]).unwrap().on();
        let y = Array::<f32>::of_array(&[2, 1], &[10.0, 20.0]).unwrap().on();
        let z = add_donated(x.any().clone(), y.any()).unwrap();
        assert_eq!(z.shape(), [2, 3]);
        assert_eq!(
            z.expect::<f32>().unwrap().to_vec().unwrap(),
            [11.0, 12.0, 13.0, 21.0, 22.0, 23.0]
        );
        assert_eq!(
            x.to_vec().unwrap(),
            [1.0, 2.0, 3.0],
            "x is live and unchanged"
        );
        // x expanded to [2, 3] (stride 0) plus y [3].
        let e = x.move_(&Move::Unsqueeze(0)).unwrap().unwrap();
        let e = e.move_(&Move::Expand(vec![2, 3])).unwrap().unwrap();
        let y = Array::<f32>::of_array(&[3], &[10.0, 20.0, 30.0])
            .unwrap()
            .on();
        let z = add_donated(e.any().clone(), y.any()).unwrap();
        assert!(!z.buffer().same_memory(x.buffer()));
        assert_eq!(
            z.expect::<f32>().unwrap().to_vec().unwrap(),
            [11.0, 22.0, 33.0, 11.0, 22.0, 33.0]
        );
        assert_eq!(x.to_vec().unwrap(), [1.0, 2.0, 3.0]);
        // Dtypes that differ: the fallback's own refusal, not "held exclusive".
        let i = Array::<i32>::of_array(&[3], &[1, 2, 3]).unwrap().on();
        let err = add_donated(x.any().clone(), i.any())
            .unwrap_err()
            .to_string();
        assert!(err.contains("dtype"), "{err}");
    }
}

on_every_device! {
    /// y = copy(x), then `add_donated(x, ..)`: y keeps its values and x's later use names
    /// the function it was donated to; a call that donates x and reads x errs at once.
    fn copy_then_donate_and_the_aliased_call() {
        let x = Array::<f64>::of_array(&[2], &[1.0, 2.0]).unwrap().on();
        let y = x.copy().unwrap();
        let one = Array::<f64>::of_array(&[1], &[1.0]).unwrap().on();
        add_donated(x.any().clone(), one.any()).unwrap();
        assert_eq!(y.to_vec().unwrap(), [1.0, 2.0], "the copy keeps its values");
        let e = x.get(&[0]).unwrap_err();
        assert!(e.to_string().contains("donated to add_donated"), "{e}");
        // A call that donates x and also reads x: an error at once, never a hang.
        let x = Array::<f64>::of_array(&[2], &[1.0, 2.0]).unwrap().on();
        let e = add_donated(x.any().clone(), x.any()).unwrap_err();
        assert!(matches!(e, Error::Claim { .. }), "{e}");
        assert_eq!(x.to_vec().unwrap(), [1.0, 2.0]);
    }
}

on_every_device! {
    fn cast_goes_through_the_door() {
        let x = Array::<f32>::of_array(&[2], &[1.0, 2.0]).unwrap().on();
        Claim::with(&[], &[x.buffer()], |_| {
            let e = x.cast::<f64>().unwrap_err();
            assert!(e.to_string().contains("held exclusive"), "{e}");
        })
        .unwrap();
    }
}

on_every_device! {
    /// The C kernel `nx_cpu_add`, through the door, equals the Rust kernel on every dtype,
    /// over broadcast, flipped and odd-offset sub-byte layouts.
    #[cfg(not(target_arch = "wasm32"))]
    fn c_add_equals_the_rust_add_on_every_dtype() {
        use nxrig::kernels::c_add_into;
        // A C kernel reaches bytes through host pointers: host arrays, whatever the suite's device.
        let array =
            |d: DType, shape: &[usize], bits: &[u128]| AnyArray::of_bits(d, shape, bits).unwrap();
        for d in DType::ALL {
            let xs = values(d, 25);
            let x0 = array(d, &[25], &xs);
            let x = x0
                .move_(&Move::Slice(vec![Slice::new(Some(1), None, 1)]))
                .unwrap()
                .unwrap()
                .move_(&Move::Reshape(vec![4, 6]))
                .unwrap()
                .unwrap()
                .move_(&Move::Flip(vec![0]))
                .unwrap()
                .unwrap();
            let y = array(d, &[6], &values(d, 6));
            let rust = add(&x, &y).unwrap();
            let c = AnyArray::create(&nxrig::Rig::host(), d, &[4, 6]).unwrap();
            c_add_into(&c, &x, &y).unwrap();
            assert_eq!(c.to_bits_vec().unwrap(), rust.to_bits_vec().unwrap(), "{d}");
        }
        // The same refusals as the Rust kernel.
        let f = array(DType::Float32, &[2], &[0, 0]);
        let i = array(DType::Int32, &[2], &[0, 0]);
        assert!(c_add_into(&f, &i, &i)
            .unwrap_err()
            .to_string()
            .contains("dtype"));
        let rep = array(DType::Float32, &[1], &[0])
            .move_(&Move::Expand(vec![2]))
            .unwrap()
            .unwrap();
        assert!(c_add_into(&rep, &f, &f)
            .unwrap_err()
            .to_string()
            .contains("twice"));
    }
}

on_every_device! {
    /// The nibble past the last element of a kernel's 4-bit output of an odd count
    /// reads 0, even over reused memory that held ones (on the host, freed memory of
    /// 1 MiB and more is reused as it is, and outputs are not cleared first): a cast
    /// into int4 and into uint4, an add and a transposed copy, each right after an
    /// array of the same bytes, every one 0xff, was dropped.
    fn padding_nibbles_of_outputs_read_zero_over_reused_memory() {
        // 2^21 - 1 elements (1 MiB, the last byte half used): 889 x 2359.
        let (r, c): (usize, usize) = (889, 2359);
        let n = r * c;
        let bytes: Vec<u8> = (0..n.div_ceil(2)).map(|i| (i * 37 + 5) as u8).collect();
        let x = AnyArray::of_bytes(DType::Int4, &[n], bytes.clone()).unwrap().on();
        let m = AnyArray::of_bytes(DType::Int4, &[r, c], bytes).unwrap().on();
        let t = m.move_(&Move::Permute(vec![1, 0])).unwrap().unwrap();
        let small: Vec<i8> = (0..n).map(|i| (i % 16) as i8 - 8).collect();
        let s: AnyArray = Array::<i8>::of_array(&[n], &small).unwrap().into();
        let s = s.on();
        type Kernel<'a> = Box<dyn Fn() -> AnyArray + 'a>;
        let kernels: [(&str, Kernel); 4] = [
            ("cast into int4", Box::new(|| s.cast(DType::Int4).unwrap())),
            ("cast into uint4", Box::new(|| s.cast(DType::Uint4).unwrap())),
            ("add", Box::new(|| add(&x, &x).unwrap())),
            ("transposed copy", Box::new(|| t.copy().unwrap())),
        ];
        for (name, kernel) in kernels {
            for _ in 0..3 {
                let dirty = AnyArray::create(&dut(), DType::Int4, &[n]).unwrap();
                nxrig::rig::Buffer::fill(dirty.buffer(), 0xff).unwrap();
                drop(dirty);
                let out = kernel();
                let last = *out.to_bytes().unwrap().last().unwrap();
                assert_eq!(last >> 4, 0, "{name}: the padding nibble");
            }
        }
    }
}

/// `x + y` of one float part of `w` bits (32 or 64) by the NaN rule of docs/numerics.md, from
/// native arithmetic: a NaN operand gives that NaN quieted (its sign and payload kept;
/// `x`'s first), infinities of opposite signs the positive quiet NaN.
fn part_sum(w: u32, a: u64, b: u64) -> u64 {
    if w == 32 {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let r = x + y;
        let bits = match () {
            _ if x.is_nan() => a as u32 | 0x0040_0000,
            _ if y.is_nan() => b as u32 | 0x0040_0000,
            _ if r.is_nan() => 0x7fc0_0000,
            _ => r.to_bits(),
        };
        bits as u64
    } else {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        let r = x + y;
        match () {
            _ if x.is_nan() => a | 0x0008_0000_0000_0000,
            _ if y.is_nan() => b | 0x0008_0000_0000_0000,
            _ if r.is_nan() => 0x7ff8_0000_0000_0000,
            _ => r.to_bits(),
        }
    }
}

/// `x + y` of dtype `d` (bits, one length) in three forms, each against `want`: the
/// operands and the output contiguous; each a view one element in; in place, into a
/// copy of `x`. A failure names `what`, the form, and the first wrong element.
fn check_add_forms(d: DType, what: &str, xs: &[u128], ys: &[u128], want: &[u128]) {
    let n = xs.len();
    let check = |form: &str, got: Vec<u128>| {
        let bad: Vec<usize> = (0..n).filter(|&i| got[i] != want[i]).collect();
        if let Some(&i) = bad.first() {
            panic!(
                "{d} {what} ({form}): {} of {n} wrong, first at {i}: {:#x} + {:#x} = {:#x}, want {:#x}",
                bad.len(),
                xs[i],
                ys[i],
                got[i],
                want[i]
            );
        }
    };
    let (x, y) = (array(d, &[n], xs), array(d, &[n], ys));
    check("contiguous", add(&x, &y).unwrap().to_bits_vec().unwrap());
    let inward = |v: &[u128]| {
        let mut b = vec![0u128];
        b.extend_from_slice(v);
        array(d, &[n + 1], &b)
            .move_(&Move::Slice(vec![Slice::new(Some(1), None, 1)]))
            .unwrap()
            .unwrap()
    };
    let out = inward(&vec![0; n]);
    add_into(&out, &inward(xs), &inward(ys)).unwrap();
    check("one element in", out.to_bits_vec().unwrap());
    let x2 = x.copy().unwrap();
    add_into(&x2, &x2, &y).unwrap();
    check("in place", x2.to_bits_vec().unwrap());
}

/// Bits of a normal float part of `w` bits, varied by `i`, either sign, magnitudes
/// from 2^-60 to 2^90.
fn part_normal(w: u32, i: usize) -> u64 {
    let i = i as u64;
    let (m, e) = if w == 32 { (23, 8) } else { (52, 11) };
    let bias = (1u64 << (e - 1)) - 1;
    let exponent = bias - 60 + (i * 7919) % 150;
    ((i & 1) << (w - 1)) | (exponent << m) | ((i.wrapping_mul(2_654_435_761)) & ((1 << m) - 1))
}

on_every_device! {
    /// Float sums over runs long enough for every part of the contiguous loops (their
    /// vectors, the stretches they check for NaNs at once, and the tail past them),
    /// each holding the NaN rule of docs/numerics.md: NaN operands (signalling, negative, with
    /// payloads, in `x`, in `y`, in both) and infinities of opposite signs planted at
    /// the first and last elements, at vector and stretch edges, and in the tail, one
    /// kind at a time and all at once; infinities that give no NaN, and finite sums
    /// that overflow. Contiguous from the start of the buffer, one element in, and in
    /// place. The oracle is native arithmetic with the rule applied element by element.
    fn float_sums_keep_the_nan_rule_over_long_runs() {
        let n = 3 * 4096 + 21;
        let edges = [0, 1, 15, 16, 17, 63, 64, 4095, 4096, 4097, 8191, 8192, n - 21, n - 2, n - 1];
        for d in [DType::Float32, DType::Float64, DType::Complex64, DType::Complex128] {
            let w: u32 = if matches!(d, DType::Float32 | DType::Complex64) { 32 } else { 64 };
            let parts = if d.class() == Class::Complex { 2 } else { 1 };
            let sign = 1u64 << (w - 1);
            let exp = if w == 32 { 0xffu64 << 23 } else { 0x7ffu64 << 52 };
            let quiet = if w == 32 { 1u64 << 22 } else { 1u64 << 51 };
            let big = exp - (1u64 << if w == 32 { 23 } else { 52 }); // the largest finite
            // (x, y) pairs of parts: (name, pairs planted at the edges).
            let specials: [(&str, u64, u64); 8] = [
                ("signalling NaN in x", exp | 5, 0),
                ("negative quiet NaN in y", 0, sign | exp | quiet | 9),
                ("NaNs in both (x's kept)", exp | 3, sign | exp | quiet),
                ("inf + -inf", exp, sign | exp),
                ("-inf + inf", sign | exp, exp),
                ("inf + inf (no NaN)", exp, exp),
                ("-inf + a finite (no NaN)", sign | exp, 1 << 20),
                ("finite sums that overflow (no NaN)", big, big - 1),
            ];
            let mut cases: Vec<(String, Vec<(u64, u64)>)> = Vec::new();
            let clean: Vec<(u64, u64)> = (0..n * parts)
                .map(|i| (part_normal(w, i), part_normal(w, i * 31 + 7)))
                .collect();
            cases.push(("normal operands only".into(), clean.clone()));
            let mut all = clean.clone();
            for (k, &(name, a, b)) in specials.iter().enumerate() {
                let mut one = clean.clone();
                for (j, &e) in edges.iter().enumerate() {
                    // Each part of a complex element in turn.
                    let p = e * parts + (j % parts);
                    one[p] = (a, b);
                    all[(e * parts + k % parts + j) % (n * parts)] = (a, b);
                }
                cases.push((name.into(), one));
                // Alone in the tail, and alone mid-stretch.
                for at in [n - 3, 5000] {
                    let mut one = clean.clone();
                    one[at * parts] = (a, b);
                    cases.push((format!("{name} alone at {at}"), one));
                }
            }
            cases.push(("all of them".into(), all));
            let element = |ps: &[u64]| ps.iter().enumerate().fold(0u128, |e, (k, &p)| e | (p as u128) << (k as u32 * w));
            for (name, pairs) in &cases {
                let xs: Vec<u128> = pairs.chunks(parts).map(|c| element(&c.iter().map(|p| p.0).collect::<Vec<_>>())).collect();
                let ys: Vec<u128> = pairs.chunks(parts).map(|c| element(&c.iter().map(|p| p.1).collect::<Vec<_>>())).collect();
                let want: Vec<u128> = pairs
                    .chunks(parts)
                    .map(|c| element(&c.iter().map(|&(a, b)| part_sum(w, a, b)).collect::<Vec<_>>()))
                    .collect();
                check_add_forms(d, name, &xs, &ys, &want);
            }
        }
    }
}

/// Bits `0..2^bits` spread over the whole range (a 64-bit mix of `i`), the top ones
/// often set, so that sums wrap.
fn spread(bits: u32, i: usize) -> u128 {
    let mut z = (i as u64).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) as u128) % (1u128 << bits)
}

on_every_device! {
    fn integer_sums_wrap_over_long_runs() {
        // Three stretches of the wasm loop and a tail: every step of its four vectors,
        // and the tail's element-by-element sums.
        let n = 3 * 4096 + 21;
        for d in DType::ALL.into_iter().filter(|d| matches!(d.class(), Class::Signed | Class::Unsigned)) {
            let xs: Vec<u128> = (0..n).map(|i| spread(d.bits(), i)).collect();
            let ys: Vec<u128> = (0..n).map(|i| spread(d.bits(), i + n)).collect();
            let want: Vec<u128> = xs.iter().zip(&ys).map(|(a, b)| (a + b) % (1u128 << d.packed_bits())).collect();
            check_add_forms(d, "", &xs, &ys, &want);
        }
    }
}

on_every_device! {
    /// The narrow floats' sums over long runs: operands of every finite pattern
    /// (against the oracle's one rounding), and the NaN rule of docs/numerics.md on NaNs and
    /// infinities planted at the edges of the loops' blocks, vectors and stretches.
    fn narrow_float_sums_keep_the_nan_rule_over_long_runs() {
        let n = 3 * 4096 + 21;
        let edges = [0, 1, 15, 16, 17, 63, 64, 255, 256, 4095, 4096, 4097, 8192, n - 2, n - 1];
        // (dtype, its exponent bits, the quiet bit, the sign bit, a finite 1.0)
        let formats = [
            (DType::Float16, 0x7c00u128, 0x0200u128, 0x8000u128, 0x3c00u128),
            (DType::Bfloat16, 0x7f80, 0x0040, 0x8000, 0x3f80),
            (DType::Float8E5m2, 0x7c, 0x02, 0x80, 0x3c),
            (DType::Float8E4m3fn, 0x78, 0, 0x80, 0x38),
        ];
        for (d, exp, quiet, sign, one) in formats {
            let e4m3 = d == DType::Float8E4m3fn;
            // NaN patterns: e4m3fn has only all ones; the others any payload.
            let (snan, nnan) = if e4m3 { (0x7f, 0xff) } else { (exp | (5 & (quiet - 1)), sign | exp | quiet | 1) };
            let is_special = |b: u128| if e4m3 { b & 0x7f == 0x7f } else { b & exp == exp };
            let finite = |i: usize| {
                let b = spread(d.bits(), i);
                if is_special(b) { b & !(exp & (exp >> 1)) } else { b }
            };
            let mut specials: Vec<(&str, u128, u128, u128)> = vec![
                ("NaN in x", snan, one, snan | quiet),
                ("negative NaN in y", one, nnan, nnan | quiet),
                ("NaNs in both (x's kept)", snan, nnan, snan | quiet),
            ];
            if !e4m3 {
                specials.push(("inf + -inf", exp, sign | exp, exp | quiet));
                specials.push(("-inf + inf", sign | exp, exp, exp | quiet));
                specials.push(("inf + 1 (no NaN)", exp, one, exp));
            }
            let xs0: Vec<u128> = (0..n).map(finite).collect();
            let ys0: Vec<u128> = (0..n).map(|i| finite(i + n)).collect();
            let want0: Vec<u128> = xs0.iter().zip(&ys0).map(|(&a, &b)| oracle(d, a, b)).collect();
            let mut cases = vec![("finite operands only".to_owned(), xs0.clone(), ys0.clone(), want0.clone())];
            for &(name, a, b, w) in &specials {
                let (mut xs, mut ys, mut want) = (xs0.clone(), ys0.clone(), want0.clone());
                for &e in &edges {
                    (xs[e], ys[e], want[e]) = (a, b, w);
                }
                cases.push((name.to_owned(), xs, ys, want));
                let (mut xs, mut ys, mut want) = (xs0.clone(), ys0.clone(), want0.clone());
                (xs[5000], ys[5000], want[5000]) = (a, b, w);
                cases.push((format!("{name} alone mid-stretch"), xs, ys, want));
            }
            for (name, xs, ys, want) in &cases {
                check_add_forms(d, name, xs, ys, want);
            }
        }
    }
}

/// Elements past the host's split (two ranges of its smallest, 2^18 elements each):
/// a cast or add this long runs on rayon's pool natively, cut at ranges that are no
/// multiple of the loops' blocks, vectors or stretches.
const LONG: usize = 3 * (1 << 19) + 13;

/// Elements a piece of [`LONG`] cast alone: below the split, one thread.
const PIECE: usize = 1 << 16;

/// `a`'s elements `from..to` (a 1-D view).
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
fn part(a: &AnyArray, from: usize, to: usize) -> AnyArray {
    a.move_(&Move::Slice(vec![Slice::new(
        Some(from as isize),
        Some(to as isize),
        1,
    )]))
    .unwrap()
    .unwrap()
}

/// The array's elements as comparable bits: bytes where whole, else unpacked.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
fn contents(a: &AnyArray) -> Vec<u128> {
    if a.dtype().is_sub_byte() {
        a.to_bits_vec().unwrap()
    } else {
        a.to_bytes().unwrap().into_iter().map(u128::from).collect()
    }
}

on_the_hosts! {
    /// Casts long enough to be split over the pool's threads equal the same casts made
    /// piece by piece on one thread: every target, from sources of every kind (a
    /// float over all its patterns, reversed too; a sub-byte source; bool). The hosts
    /// only: a GPU has no such split (its casts are held to the vectors and to the host
    /// in `cast_on_devices` and `gpu_backend`; these 1.5 M-element casts took 55 s a
    /// lavapipe device). Not in wasm, which has one thread: no split to compare, and
    /// these casts held the browser's page for 20 s.
    #[cfg(not(target_arch = "wasm32"))]
    fn long_casts_split_over_threads_equal_one_thread() {
        let sources = [DType::Float32, DType::Float64, DType::Bfloat16, DType::Int4, DType::Uint64, DType::Bool];
        for s in sources {
            let bits: Vec<u128> = (0..LONG).map(|i| spread(s.bits().max(1), i) % (1u128 << s.bits())).collect();
            let x0 = array(s, &[LONG], &bits);
            let mut forms = vec![("contiguous", x0.clone())];
            if s == DType::Float32 {
                forms.push(("reversed", x0.move_(&Move::Flip(vec![0])).unwrap().unwrap()));
            }
            for (form, x) in &forms {
                for d in DType::ALL {
                    let whole = contents(&x.cast(d).unwrap());
                    let mut pieces = Vec::with_capacity(whole.len());
                    for k in (0..LONG).step_by(PIECE) {
                        pieces.extend(contents(&part(x, k, (k + PIECE).min(LONG)).cast(d).unwrap()));
                    }
                    if let Some(i) = (0..whole.len()).find(|&i| whole[i] != pieces[i]) {
                        panic!("{s} -> {d} ({form}): first difference at item {i} of {} (bytes; elements where sub-byte): {:#x}, one thread {:#x}", whole.len(), whole[i], pieces[i]);
                    }
                    assert_eq!(whole.len(), pieces.len(), "{s} -> {d} ({form})");
                }
            }
        }
    }
}

on_every_device! {
    /// Adds long enough to be split over the pool's threads: float32 with NaNs and
    /// infinities planted at the ranges' and pieces' edges (the NaN rule of docs/numerics.md),
    /// float16 through its plain path, and int8 wrapping, against oracles.
    fn long_adds_split_over_threads_keep_every_rule() {
        // Edges of the split's ranges (for 1, 2, 4 and 8 threads) and of 2^16 pieces.
        let mut edges = vec![0, 1, LONG - 2, LONG - 1];
        for t in [1usize, 2, 4, 8] {
            let per = LONG.div_ceil(t * 8).max(1 << 16).next_multiple_of(2);
            for k in (per..LONG).step_by(per) {
                edges.extend([k - 1, k, k + 1]);
            }
        }
        edges.extend((1..24).map(|k| k * PIECE));
        edges.retain(|&e| e < LONG);
        // float32: part_sum is the oracle.
        let exp = 0xffu64 << 23;
        let specials = [(exp | 5, 0), (0, (1 << 31) | exp | (1 << 22) | 9), (exp, (1 << 31) | exp), ((1 << 31) | exp, exp)];
        let mut pairs: Vec<(u64, u64)> = (0..LONG).map(|i| (part_normal(32, i), part_normal(32, i * 31 + 7))).collect();
        for (j, &e) in edges.iter().enumerate() {
            pairs[e] = specials[j % specials.len()];
        }
        let xs: Vec<u128> = pairs.iter().map(|p| p.0 as u128).collect();
        let ys: Vec<u128> = pairs.iter().map(|p| p.1 as u128).collect();
        let got = add(&array(DType::Float32, &[LONG], &xs), &array(DType::Float32, &[LONG], &ys)).unwrap().to_bits_vec().unwrap();
        for (i, &(a, b)) in pairs.iter().enumerate() {
            assert_eq!(got[i], part_sum(32, a, b) as u128, "float32 [{i}]: {a:#x} + {b:#x}");
        }
        // float16 (finite patterns, and a NaN and inf + -inf at the edges) and int8.
        for d in [DType::Float16, DType::Int8] {
            let mut xs: Vec<u128> = (0..LONG).map(|i| spread(d.bits(), i)).collect();
            let mut ys: Vec<u128> = (0..LONG).map(|i| spread(d.bits(), i + LONG)).collect();
            if d == DType::Float16 {
                for v in xs.iter_mut().chain(ys.iter_mut()) {
                    if *v & 0x7c00 == 0x7c00 {
                        *v &= !0x4000; // finite
                    }
                }
            }
            let mut want: Vec<u128> = xs.iter().zip(&ys).map(|(&a, &b)| oracle(d, a, b)).collect();
            if d == DType::Float16 {
                for (j, &e) in edges.iter().enumerate() {
                    (xs[e], ys[e], want[e]) = if j % 2 == 0 { (0x7c05, 0x3c00, 0x7e05) } else { (0x7c00, 0xfc00, 0x7e00) };
                }
            }
            let got = add(&array(d, &[LONG], &xs), &array(d, &[LONG], &ys)).unwrap().to_bits_vec().unwrap();
            if let Some(i) = (0..LONG).find(|&i| got[i] != want[i]) {
                panic!("{d} [{i}]: {:#x} + {:#x} = {:#x}, want {:#x}", xs[i], ys[i], got[i], want[i]);
            }
        }
    }
}

on_every_device! {
    /// A float16 sum whose exact value lies just past a tie, by bits more than 20 places
    /// below its leading one: half 2.7's software `from_f64` (wasm's) drops them and
    /// rounds to the even neighbour; one correct rounding gives the odd one.
    fn float16_sums_round_past_ties_by_their_lowest_bits() {
        // -455.25 + 0.12481689453125 = -455.12518310546875: nearer -455.25 (0xdf1d)
        // than -455 (0xdf1c) by 2^-13 + 2^-14.
        let cases: [(u128, u128, u128); 2] = [(0xdf1d, 0x2ffd, 0xdf1d), (0x5f1d, 0xaffd, 0x5f1d)];
        for (a, b, want) in cases {
            assert_eq!(nearest16(f16::from_bits(a as u16).to_f64() + f16::from_bits(b as u16).to_f64(), false) as u128, want, "the oracle");
            let x = array(DType::Float16, &[1], &[a]);
            let y = array(DType::Float16, &[1], &[b]);
            assert_eq!(add(&x, &y).unwrap().to_bits_vec().unwrap(), [want], "{a:#x} + {b:#x}");
        }
    }
}
