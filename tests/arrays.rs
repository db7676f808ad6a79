//! Arrays: making, elements, views, copies and casts, on every device, and the cases
//! on which other libraries gave wrong answers (a tie rounded to even, a mantissa
//! carrying into the exponent, a NaN of low payload bits, saturation, int4 signs, the
//! reshape of a view, negative-step slices), each with its input and answer.

use half::f16;
use nxrig::dtype::{convert_bits, F8E4m3fn, Specials, I4, U4};
use nxrig::{AnyArray, Array, DType, Error, Move, Slice};

mod common;

#[path = "common/dut.rs"]
#[macro_use]
mod dut;
use dut::{dut, On};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn slice1(start: Option<isize>, stop: Option<isize>, step: isize) -> Move {
    Move::Slice(vec![Slice::new(start, stop, step)])
}

on_every_device! {
    /// float32 into float8_e4m3fn rounds to nearest, ties to even: 1.8131605 (between 1.75
    /// and 1.875, past the midpoint 1.8125) is 1.875 (0x3F); 4.25, a tie, is 4.0 (0x48).
    fn float32_to_e4m3_rounds_to_nearest_even() {
        let a = Array::<f32>::of_array(&[2], &[1.8131605, 4.25])
            .unwrap()
            .on();
        let b = a.cast::<F8E4m3fn>().unwrap().to_vec().unwrap();
        assert_eq!(b, [F8E4m3fn(0x3f), F8E4m3fn(0x48)]);
    }
}

on_every_device! {
    /// float64 into float16, the mantissa carrying into the exponent: 0.499994 is 0.5
    /// (0x3800), 7.9999999 is 8.0 (0x4800).
    fn float64_to_float16_carries_into_the_exponent() {
        let a = Array::<f64>::of_array(&[2], &[0.499994, 7.9999999])
            .unwrap()
            .on();
        let b = common::bits(&a.cast::<f16>().unwrap());
        assert_eq!(b, [0x3800, 0x4800]);
    }
}

on_every_device! {
    /// A NaN whose payload lies only in bits a narrower float drops (float64 bits
    /// 0x7FF0000000000001) is a NaN in float16 (0x7E00, or 0xFE00 by sign), never infinity.
    fn a_nan_with_only_low_payload_bits_stays_nan() {
        let a = Array::<f64>::of_array(
            &[2],
            &[
                f64::from_bits(0x7FF0000000000001),
                f64::from_bits(0xFFF0000000000001),
            ],
        )
        .unwrap()
        .on();
        let b = common::bits(&a.cast::<f16>().unwrap());
        assert_eq!(b, [0x7E00, 0xFE00]);
        // The kind: every narrower float target, from every wider float source.
        for (src, nan) in [
            (DType::Float64, 0x7FF0000000000001u128),
            (DType::Float32, 0x7F800001),
            (DType::Float16, 0x7C01),
        ] {
            for dst in [
                DType::Float32,
                DType::Float16,
                DType::Bfloat16,
                DType::Float8E5m2,
                DType::Float8E4m3fn,
            ] {
                if dst.bits() < src.bits() {
                    let got = convert_bits(src, dst, nan);
                    let f = dst.float_format().unwrap();
                    let e_all = (1u128 << f.exponent_bits) - 1;
                    let (e, m) = (
                        (got >> f.fraction_bits) & e_all,
                        got & ((1 << f.fraction_bits) - 1),
                    );
                    assert!(
                        e == e_all && (m != 0) && (f.specials == Specials::Ieee || m == (1 << f.fraction_bits) - 1),
                        "{src} {nan:#x} -> {dst} = {got:#x}"
                    );
                }
            }
        }
    }
}

on_every_device! {
    /// Float into integer saturates and NaN is 0: -1.0, 300.0, NaN into uint8 are 0, 255,
    /// 0; +inf into int32 is 2147483647.
    fn float_to_integer_saturates_and_nan_is_zero() {
        let a = Array::<f64>::of_array(&[3], &[-1.0, 300.0, f64::NAN])
            .unwrap()
            .on();
        assert_eq!(a.cast::<u8>().unwrap().to_vec().unwrap(), [0, 255, 0]);
        let inf = Array::<f32>::of_array(&[2], &[f32::INFINITY, f32::NEG_INFINITY])
            .unwrap()
            .on();
        assert_eq!(
            inf.cast::<i32>().unwrap().to_vec().unwrap(),
            [i32::MAX, i32::MIN]
        );
        assert_eq!(
            inf.cast::<I4>().unwrap().to_vec().unwrap(),
            [I4::new(7).unwrap(), I4::new(-8).unwrap()]
        );
        assert_eq!(
            inf.cast::<U4>().unwrap().to_vec().unwrap(),
            [U4::new(15).unwrap(), U4::new(0).unwrap()]
        );
        assert_eq!(inf.cast::<u64>().unwrap().to_vec().unwrap(), [u64::MAX, 0]);
        assert_eq!(
            inf.cast::<i64>().unwrap().to_vec().unwrap(),
            [i64::MAX, i64::MIN]
        );
    }
}

fn int4_ramp() -> AnyArray {
    // 17 int4 elements: a filler, then -8..=7, so the ramp starts at an odd nibble.
    let mut v = vec![I4::new(5).unwrap()];
    v.extend((-8..=7).map(|x| I4::new(x).unwrap()));
    Array::<I4>::of_array(&[17], &v).unwrap().on().into()
}

on_every_device! {
    /// A packed int4 keeps its sign at every nibble: [-8, ..., 7] cast to int8, at even
    /// and odd indices and in views at odd offsets, is [-8, ..., 7].
    fn packed_int4_keeps_its_sign_at_every_nibble() {
        let a = int4_ramp();
        let ramp: Vec<i8> = (-8..=7).collect();
        // Odd offset: the view starts on a high nibble.
        let odd = a.move_(&slice1(Some(1), None, 1)).unwrap().unwrap();
        assert_eq!(odd.layout().offset(), 1);
        assert_eq!(
            odd.cast(DType::Int8)
                .unwrap()
                .expect::<i8>()
                .unwrap()
                .to_vec()
                .unwrap(),
            ramp
        );
        // Even and odd indices separately, and reversed.
        let even_idx = odd.move_(&slice1(None, None, 2)).unwrap().unwrap();
        let want: Vec<i8> = ramp.iter().step_by(2).copied().collect();
        assert_eq!(
            int8s(&even_idx),
            want
        );
        let odd_idx = odd.move_(&slice1(Some(1), None, 2)).unwrap().unwrap();
        let want: Vec<i8> = ramp.iter().skip(1).step_by(2).copied().collect();
        assert_eq!(
            int8s(&odd_idx),
            want
        );
        let rev = odd.move_(&Move::Flip(vec![0])).unwrap().unwrap();
        let want: Vec<i8> = ramp.iter().rev().copied().collect();
        assert_eq!(
            rev.cast(DType::Int8)
                .unwrap()
                .expect::<i8>()
                .unwrap()
                .to_vec()
                .unwrap(),
            want
        );
        // Into every wider signed dtype too.
        for d in [
            DType::Int16,
            DType::Int32,
            DType::Int64,
            DType::Float32,
            DType::Float16,
        ] {
            let got: Vec<f64> = odd
                .cast(d)
                .unwrap()
                .to_bits_vec()
                .unwrap()
                .iter()
                .map(|&b| nxrig::dtype::f64_of_bits(d, b))
                .collect();
            assert_eq!(
                got,
                ramp.iter().map(|&x| x as f64).collect::<Vec<_>>(),
                "{d}"
            );
        }
    }
}

on_every_device! {
    /// [[0, 1], [2, 3]] permuted (1, 0) has no view of shape [4]: `move_` answers `None`,
    /// and the copy is [0, 2, 1, 3].
    fn reshape_of_a_permuted_view_is_no_view() {
        let a = Array::<i32>::of_array(&[2, 2], &[0, 1, 2, 3]).unwrap().on();
        let t = a.move_(&Move::Permute(vec![1, 0])).unwrap().unwrap();
        assert!(
            t.move_(&Move::Reshape(vec![2, 2])).unwrap().is_some(),
            "same shape: a view"
        );
        assert!(
            t.move_(&Move::Reshape(vec![4])).unwrap().is_none(),
            "no view: the caller copies"
        );
        let c = t.any().move_or_copy(&Move::Reshape(vec![4])).unwrap();
        assert_eq!(c.expect::<i32>().unwrap().to_vec().unwrap(), [0, 2, 1, 3]);
        let c = t.copy().unwrap();
        assert_eq!(c.to_vec().unwrap(), [0, 2, 1, 3]);
        assert_eq!(c.get(&[0, 1]).unwrap(), 2);
    }
}

on_every_device! {
    /// Negative-step slices as NumPy means them, over x = arange(10): x[5:2:-1] is
    /// [5, 4, 3], x[2:5:-1] is [], x[:7:-1] is [9, 8], x[7::-1] is [7, ..., 0]; a 5x5 array
    /// sliced on axis 0 from 0 to 0 by -1 has shape (0, 5), its offset inside the buffer.
    fn negative_step_slices_mean_what_numpy_means() {
        let x = Array::<i64>::of_array(&[10], &(0..10).collect::<Vec<_>>())
            .unwrap()
            .on();
        let take = |s, e, st| {
            x.move_(&slice1(s, e, st))
                .unwrap()
                .unwrap()
                .to_vec()
                .unwrap()
        };
        assert_eq!(take(Some(5), Some(2), -1), [5, 4, 3]);
        assert_eq!(take(Some(2), Some(5), -1), Vec::<i64>::new());
        assert_eq!(take(None, Some(7), -1), [9, 8]);
        assert_eq!(take(Some(7), None, -1), [7, 6, 5, 4, 3, 2, 1, 0]);
        let y = Array::<f32>::create(&dut(), &[5, 5]).unwrap();
        let e = y.move_(&slice1(Some(0), Some(0), -1)).unwrap().unwrap();
        assert_eq!(e.shape(), [0, 5]);
        assert!(e.layout().offset() < 25, "offset inside the buffer");
        assert_eq!(e.to_vec().unwrap(), Vec::<f32>::new());
        assert_eq!(e.copy().unwrap().shape(), [0, 5]);
    }
}

on_every_device! {
    fn get_set_and_to_vec_in_c_order() {
        let a = Array::<f32>::of_f64(&[2, 3], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
            .unwrap()
            .on();
        assert_eq!(a.get(&[1, 2]).unwrap(), 5.0);
        a.set(&[0, 1], 9.5).unwrap();
        let t = a.move_(&Move::Permute(vec![1, 0])).unwrap().unwrap();
        assert_eq!(t.to_vec().unwrap(), [0.0, 3.0, 9.5, 4.0, 2.0, 5.0]);
        // Index errors name the function and the operand.
        for bad in [&[2usize, 0][..], &[0, 3], &[0], &[0, 0, 0]] {
            let e = a.get(bad).unwrap_err();
            assert!(
                matches!(
                    e,
                    Error::Invalid {
                        op: "Array::get",
                        ..
                    }
                ),
                "{e}"
            );
            assert!(e.to_string().contains("float32 [2, 3]"), "{e}");
        }
        // A broadcast array reaches an element twice: no set.
        let r = Array::<f32>::of_array(&[1, 3], &[1.0, 2.0, 3.0])
            .unwrap()
            .on();
        let b = r.move_(&Move::Expand(vec![4, 3])).unwrap().unwrap();
        assert_eq!(b.get(&[3, 2]).unwrap(), 3.0);
        common::refused(b.set(&[0, 0], 1.0), "Invalid", "Array::set");
        // Rank 0.
        let s = Array::<u16>::of_array(&[], &[7]).unwrap().on();
        assert_eq!(s.get(&[]).unwrap(), 7);
        assert_eq!(s.to_vec().unwrap(), [7]);
    }
}

on_every_device! {
    fn sub_byte_set_keeps_the_neighbouring_nibble() {
        let a = Array::<U4>::of_array(&[4], &[1, 2, 3, 4].map(|x| U4::new(x).unwrap()))
            .unwrap()
            .on();
        a.set(&[1], U4::new(15).unwrap()).unwrap();
        a.set(&[2], U4::new(0).unwrap()).unwrap();
        assert_eq!(
            a.to_vec().unwrap(),
            [1, 15, 0, 4].map(|x| U4::new(x).unwrap())
        );
        assert_eq!(a.any().to_bytes().unwrap(), [0xf1, 0x40]);
        // An odd count leaves the last byte's high nibble zero.
        let b = Array::<I4>::of_array(&[3], &[-1, -1, -1].map(|x| I4::new(x).unwrap()))
            .unwrap()
            .on();
        assert_eq!(b.any().to_bytes().unwrap(), [0xff, 0x0f]);
    }
}

on_every_device! {
    fn of_array_counts_and_expect_names_both_dtypes() {
        common::refused(Array::<f32>::of_array(&[2, 2], &[1.0; 3]), "Invalid", "Array::of_array");
        let a: AnyArray = Array::<f32>::of_array(&[1], &[1.0]).unwrap().on().into();
        let e = a.expect::<f64>().unwrap_err();
        assert!(
            e.to_string().contains("float64") && e.to_string().contains("float32"),
            "{e}"
        );
    }
}

on_every_device! {
    fn from_vec_is_zero_copy() {
        let v = vec![1.0f32, 2.0, 3.0, 4.0];
        let p = v.as_ptr() as usize;
        let a = Array::<f32>::from_vec(&[2, 2], v).unwrap();
        assert_eq!(a.buffer().addr(), p);
        a.set(&[1, 1], 8.0).unwrap();
        assert_eq!(a.to_vec().unwrap(), [1.0, 2.0, 3.0, 8.0]);
        common::refused(Array::<f32>::from_vec(&[3], vec![1.0; 2]), "Invalid", "Array::from_vec");
    }
}

on_every_device! {
    fn v_checks_bounds_and_alignment() {
        let buf = nxrig::rig::Buffer::create(&dut(), 16, nxrig::rig::Kind::Device).unwrap();
        let l = nxrig::Layout::contiguous(&[4]).unwrap();
        assert!(AnyArray::v(DType::Float32, l, buf.clone()).is_ok());
        let l5 = nxrig::Layout::contiguous(&[5]).unwrap();
        assert!(
            common::refused(AnyArray::v(DType::Float32, l5, buf.clone()), "Invalid", "AnyArray::v")
                .to_string()
                .contains("reaches bit 160"),
            "past the bytes"
        );
        let at1 = buf.view(1, 8).unwrap();
        // Misaligned.
        common::refused(
            AnyArray::v(DType::Int16, nxrig::Layout::contiguous(&[2]).unwrap(), at1.clone()),
            "Invalid",
            "AnyArray::v",
        );
        assert!(AnyArray::v(DType::Int8, nxrig::Layout::contiguous(&[8]).unwrap(), at1).is_ok());
        // Sub-byte: 32 nibbles fit 16 bytes, 33 do not.
        assert!(AnyArray::v(
            DType::Int4,
            nxrig::Layout::contiguous(&[32]).unwrap(),
            buf.clone()
        )
        .is_ok());
        common::refused(
            AnyArray::v(DType::Int4, nxrig::Layout::contiguous(&[33]).unwrap(), buf),
            "Invalid",
            "AnyArray::v",
        );
    }
}

on_every_device! {
    fn copy_keeps_nan_payloads_bit_for_bit() {
        let bits = [0x7FF0000000000001u64, 0xFFF4000000000000];
        let a = Array::<f64>::of_array(&[2], &bits.map(f64::from_bits))
            .unwrap()
            .on();
        let back = common::bits(&a.copy().unwrap());
        assert_eq!(back, bits);
        let f = Array::<f32>::of_array(&[1], &[f32::from_bits(0x7F802000)])
            .unwrap()
            .on();
        assert_eq!(
            f.cast::<f32>().unwrap().to_vec().unwrap()[0].to_bits(),
            0x7F802000
        );
    }
}

on_every_device! {
    @casts
    fn empty_arrays_and_every_dtype_cast_over_strided_layouts() {
        for &src in &DType::ALL {
            let e = AnyArray::create(&dut(), src, &[0, 3]).unwrap();
            for &dst in &DType::ALL {
                assert_eq!(e.cast(dst).unwrap().shape(), [0, 3]);
            }
            // A 3x4 array of small integers, transposed and flipped, into every dtype.
            let vals: Vec<f64> = (0..12).map(|i| (i % 2) as f64).collect();
            let bits: Vec<u128> = vals
                .iter()
                .map(|&x| nxrig::dtype::bits_of_f64(src, x))
                .collect();
            let a = AnyArray::of_bits(src, &[3, 4], &bits).unwrap().on();
            let t = a
                .move_(&Move::Permute(vec![1, 0]))
                .unwrap()
                .unwrap()
                .move_(&Move::Flip(vec![0]))
                .unwrap()
                .unwrap();
            let order: Vec<usize> = (0..4)
                .rev()
                .flat_map(|j| (0..3).map(move |i| i * 4 + j))
                .collect();
            for &dst in &DType::ALL {
                let got = t.cast(dst).unwrap().to_bits_vec().unwrap();
                let want: Vec<u128> = order
                    .iter()
                    .map(|&k| convert_bits(src, dst, bits[k]))
                    .collect();
                assert_eq!(got, want, "{src} -> {dst}");
            }
        }
    }
}

on_every_device! {
    /// Two threads set the even and the odd nibbles of one int4 array at once: every
    /// store is kept.
    #[cfg(not(target_arch = "wasm32"))]
    fn concurrent_sub_byte_sets_keep_each_others_nibbles() {
        let a = Array::<I4>::of_array(&[64], &[I4::new(0).unwrap(); 64])
            .unwrap()
            .on();
        std::thread::scope(|s| {
            for parity in 0..2usize {
                let a = &a;
                s.spawn(move || {
                    for round in 0..50 {
                        for i in (parity..64).step_by(2) {
                            let v = ((round + i) % 8) as i8 - if parity == 1 { 8 } else { 0 };
                            a.set(&[i], I4::new(v).unwrap()).unwrap();
                        }
                    }
                });
            }
        });
        let got: Vec<i8> = a.to_vec().unwrap().iter().map(|x| x.get()).collect();
        let want: Vec<i8> = (0..64)
            .map(|i| ((49 + i) % 8) as i8 - if i % 2 == 1 { 8 } else { 0 })
            .collect();
        assert_eq!(got, want);
    }
}

on_every_device! {
    fn set_on_read_only_memory_is_an_error() {
        #[repr(align(16))]
        struct Aligned([u8; 8]);
        static RO: Aligned = Aligned([0; 8]);
        let a = AnyArray::v(
            DType::Int32,
            nxrig::Layout::contiguous(&[2]).unwrap(),
            nxrig::rig::Buffer::of_bytes(&RO.0[..]),
        )
        .unwrap()
        .expect::<i32>()
        .unwrap();
        let e = a.set(&[0], 1).unwrap_err();
        assert!(matches!(e, Error::ReadOnly { op: "Array::set" }), "{e}");
        assert_eq!(a.get(&[1]).unwrap(), 0);
    }
}

on_every_device! {
    /// A cast into the array's own dtype copies every bit over any layout: signalling NaNs
    /// and bool bytes other than 0 and 1 (made by a bitcast) included.
    fn same_dtype_casts_copy_every_bit_over_strided_layouts() {
        let f = AnyArray::of_bits(DType::Float32, &[4], &[0x7F802000, 1, 0xFF800001, 2])
            .unwrap()
            .on();
        let flipped = f.move_(&Move::Flip(vec![0])).unwrap().unwrap();
        assert_eq!(
            flipped.cast(DType::Float32).unwrap().to_bits_vec().unwrap(),
            [2, 0xFF800001, 1, 0x7F802000]
        );
        let u = AnyArray::of_bits(DType::Uint8, &[4], &[0, 1, 2, 200])
            .unwrap()
            .on();
        let b = u.bitcast(DType::Bool).unwrap().unwrap();
        let every_other = b
            .move_(&Move::Slice(vec![Slice::new(None, None, 2)]))
            .unwrap()
            .unwrap();
        assert_eq!(
            every_other
                .cast(DType::Bool)
                .unwrap()
                .to_bits_vec()
                .unwrap(),
            [0, 2]
        );
        assert_eq!(
            every_other
                .cast(DType::Uint8)
                .unwrap()
                .to_bits_vec()
                .unwrap(),
            [0, 1]
        );
    }
}

on_every_device! {
    /// Freed memory the device keeps for reuse never shows: a fresh array over reused
    /// memory reads zeros, and a kernel's output over reused memory holds its values.
    fn memory_kept_for_reuse_never_shows() {
        let d = dut();
        let n = 1 << 20; // 4 MiB of float32, above the host's smallest kept size
        let junk: Vec<f32> = (0..n).map(|i| i as f32 + 0.5).collect();
        let a = Array::<f32>::from_vec(&[n], junk).unwrap().on();
        for _ in 0..3 {
            let c = a.copy().unwrap();
            drop(c);
            let z = AnyArray::create(&d, DType::Float32, &[n]).unwrap();
            let zs = z.expect::<f32>().unwrap().to_vec().unwrap();
            assert!(zs.iter().all(|&x| x == 0.0), "a created array reads zeros");
            let ints = a.any().cast(DType::Int32).unwrap().expect::<i32>().unwrap();
            let v = ints.to_vec().unwrap();
            assert!(v.iter().enumerate().all(|(i, &x)| x == i as i32));
        }
        // Other tests of this binary free memory and empty the host's cache meanwhile
        // (its pool is the process's): freed memory seen kept in one of many tries.
        let kept = (0..100).any(|_| {
            drop(a.copy().unwrap());
            d.cached_bytes() > 0
        });
        assert!(kept, "freed memory is kept");
        d.empty_cache();
    }
}

on_every_device! {
    /// Byte counts up to the platform's limit, whose bit counts overflow a 32-bit `usize`
    /// from 512 MiB on (wasm32): reckoned wide, they are found.
    fn byte_counts_past_512_mib_are_found_on_every_platform() {
        let n: usize = 600 << 20;
        assert_eq!(DType::Uint8.bytes(n).ok(), Some(600 << 20));
        assert_eq!(DType::Int4.bytes(n + 1).ok(), Some((300 << 20) + 1));
        assert_eq!(DType::Float32.bytes(n / 4).ok(), Some(600 << 20));
        assert_eq!(
            DType::Float16.bytes(usize::MAX / 2).ok(),
            Some(usize::MAX - 1)
        );
        assert!(matches!(
            DType::Complex128.bytes(usize::MAX / 8),
            Err(Error::TooLarge { .. })
        ));
    }
}

on_every_device! {
    /// An allocation the host cannot make is a typed error naming the bytes, not a
    /// string. Natively only: in wasm every size a layout allows might fit.
    #[cfg(not(target_arch = "wasm32"))]
    fn memory_the_host_cannot_make_is_out_of_memory() {
        let n = usize::MAX / 4;
        match AnyArray::create(&nxrig::Rig::host(), DType::Uint8, &[n]) {
            Err(Error::OutOfMemory { bytes, .. }) => assert_eq!(bytes, n),
            other => panic!("{other:?}"),
        }
    }
}

/// `a`'s elements cast into int8, read back.
fn int8s(a: &AnyArray) -> Vec<i8> {
    a.cast(DType::Int8)
        .unwrap()
        .expect::<i8>()
        .unwrap()
        .to_vec()
        .unwrap()
}

on_every_device! {
    /// The saturating cast (`CastMode::Saturate`) of float32, bfloat16, float16,
    /// float64 and int32 values into every float dtype: a NaN as the default cast
    /// makes it; any other value clipped to the target's largest finite of its sign (to
    /// its largest alone where it is unsigned: a negative value's NaN stays) and then
    /// rounded once. The oracle: the scalar `convert_bits` of the clipped float64.
    /// (70000 in float16 is 65504; -inf in float8_e4m3fn is -448; 1e300 in
    /// float8_e8m0fnu is 2^127; the default cast gives inf, NaN and NaN.)
    fn saturating_casts_clip_to_the_largest_finite() {
        use nxrig::dtype::{bits_of_f64, f64_of_bits, CastMode, Class, Scalar};
        let values = [
            0.0, -0.0, 1.0, -2.5, 240.0, 448.0, 464.0, 465.0, -500.0, 57344.0, 61440.0,
            65504.0, 65519.0, 65520.0, -70000.0, 3.0e38, -3.5e38, 1e300, f64::INFINITY,
            f64::NEG_INFINITY, f64::NAN,
        ];
        let mut bad = Vec::new();
        for src in [DType::Float32, DType::Bfloat16, DType::Float16, DType::Float64, DType::Int32] {
            let bits: Vec<u128> = values.iter().map(|&v| bits_of_f64(src, v)).collect();
            let a = AnyArray::of_bits(src, &[bits.len()], &bits).unwrap().on();
            for to in DType::ALL.into_iter().filter(|d| d.class() == Class::Float) {
                let f = to.float_format().unwrap();
                let Scalar::Float(max) = to.max_value() else {
                    panic!("{to}: a float's bound is a float");
                };
                let got = a.cast_with(to, CastMode::Saturate).unwrap().to_bits_vec().unwrap();
                for (i, &b) in bits.iter().enumerate() {
                    let x = f64_of_bits(src, b);
                    let domain_nan = !f.signed()
                        && (x < 0.0 || (x == 0.0 && f.specials == Specials::UnsignedNoZero));
                    let want = if x.is_nan() || domain_nan {
                        convert_bits(src, to, b)
                    } else {
                        bits_of_f64(to, x.clamp(-max, max))
                    };
                    if got[i] != want {
                        bad.push(format!("{src} {x} -> {to}: {:#x}, not {want:#x}", got[i]));
                    }
                }
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}

on_every_device! {
    /// int2, uint2, int1 and uint1, held one a byte in their low bits: a load reads the
    /// low bits (sign-extended for the signed ones; a byte's other bits ignored),
    /// integers wrap into them and floats saturate, `add` and `mul` wrap at their
    /// width, and every result's bits above it are zero. Expected values written out by
    /// hand from ml_dtypes' (NumPy's `int2(5)` is 1, `int2(1) + int2(1)` is -2).
    fn narrow_integers_wrap_at_their_width() {
        use nxrig::kernels::{add, operation, Operation};
        let bytes = |a: AnyArray| a.to_bytes().unwrap();
        // Loads: 0xfe is int2's -2 (low bits 10), 0x07 its -1, 0x05 uint2's 1.
        let a = AnyArray::of_bytes(DType::Int2, &[4], vec![0xfe, 0x07, 0x01, 0x00]).unwrap().on();
        assert_eq!(int8s(&a), [-2, -1, 1, 0]);
        let u = AnyArray::of_bytes(DType::Uint2, &[3], vec![0x05, 0xff, 0x02]).unwrap().on();
        assert_eq!(int8s(&u), [1, 3, 2]);
        let i1 = AnyArray::of_bytes(DType::Int1, &[3], vec![0x01, 0xfe, 0x03]).unwrap().on();
        assert_eq!(int8s(&i1), [-1, 0, -1]);
        // Integers wrap, floats saturate (NaN 0), into each.
        let ints = Array::<i32>::of_array(&[5], &[5, -5, 2, -3, 7]).unwrap().any().clone().on();
        let floats = Array::<f32>::of_array(&[5], &[2.5, -7.0, 0.9, f32::NAN, -0.9]).unwrap().any().clone().on();
        for (d, from_ints, from_floats) in [
            (DType::Int2, [1, 3, 2, 1, 3], [1, 2, 0, 0, 0]),
            (DType::Uint2, [1, 3, 2, 1, 3], [2, 0, 0, 0, 0]),
            (DType::Int1, [1, 1, 0, 1, 1], [0, 1, 0, 0, 0]),
            (DType::Uint1, [1, 1, 0, 1, 1], [1, 0, 0, 0, 0]),
        ] {
            assert_eq!(bytes(ints.cast(d).unwrap()), from_ints, "int32 into {d}");
            assert_eq!(bytes(floats.cast(d).unwrap()), from_floats, "float32 into {d}");
        }
        // Arithmetic wraps at the width; the result's top bits are zero.
        let x = AnyArray::of_bytes(DType::Int2, &[4], vec![1, 1, 2, 3]).unwrap().on();
        let y = AnyArray::of_bytes(DType::Int2, &[4], vec![1, 0, 2, 3]).unwrap().on();
        assert_eq!(bytes(add(&x, &y).unwrap()), [2, 1, 0, 2]); // 1+1=-2, -2+-2=0, -1+-1=-2
        assert_eq!(bytes(operation(Operation::Mul, &[&x, &y]).unwrap()), [1, 0, 0, 1]);
        let x = AnyArray::of_bytes(DType::Uint1, &[2], vec![1, 1]).unwrap().on();
        let y = AnyArray::of_bytes(DType::Uint1, &[2], vec![1, 0]).unwrap().on();
        assert_eq!(bytes(add(&x, &y).unwrap()), [0, 1]);
        let b = operation(Operation::Lt, &[&a, &AnyArray::of_bytes(DType::Int2, &[4], vec![0; 4]).unwrap().on()]).unwrap();
        assert_eq!(bytes(b), [1, 1, 0, 0]);
    }
}
