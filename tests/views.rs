//! Bitcast views against the bytes they read.

use nxrig::dtype::{I4, U4};
use nxrig::{AnyArray, Array, DType, Move, Slice};

#[path = "common/dut.rs"]
#[macro_use]
mod dut;
use dut::{dut, On};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

on_every_device! {
    fn equal_widths_keep_the_layout() {
        let a = Array::<f32>::of_array(&[2, 2], &[1.0, -2.0, 0.5, f32::from_bits(0x7f802000)])
            .unwrap()
            .on();
        let t = a.move_(&Move::Permute(vec![1, 0])).unwrap().unwrap();
        let b = t.any().bitcast(DType::Uint32).unwrap().unwrap();
        assert_eq!(b.layout(), t.layout());
        let got = b.expect::<u32>().unwrap().to_vec().unwrap();
        assert_eq!(got, [0x3f800000, 0x3f000000, 0xc0000000, 0x7f802000]);
    }
}

on_every_device! {
    fn narrowing_appends_a_trailing_axis_and_scales_strides_and_offset() {
        let a = Array::<u32>::of_array(&[3], &[0x04030201, 0x08070605, 0x0c0b0a09])
            .unwrap()
            .on();
        let s = a
            .move_(&Move::Slice(vec![Slice::new(Some(2), None, -2)]))
            .unwrap()
            .unwrap(); // [2, 0]
        let b = s.any().bitcast(DType::Uint8).unwrap().unwrap();
        assert_eq!(b.shape(), [2, 4]);
        assert_eq!(b.layout().strides(), [-8, 1]);
        assert_eq!(b.layout().offset(), 8);
        assert_eq!(
            b.expect::<u8>().unwrap().to_vec().unwrap(),
            [9, 10, 11, 12, 1, 2, 3, 4]
        );
        // uint8 into int4: the low nibble first, sign kept.
        let u = Array::<u8>::of_array(&[2], &[0x8f, 0x17]).unwrap().on();
        let n = u.any().bitcast(DType::Int4).unwrap().unwrap();
        assert_eq!(n.shape(), [2, 2]);
        let v: Vec<i8> = n
            .expect::<I4>()
            .unwrap()
            .to_vec()
            .unwrap()
            .iter()
            .map(|x| x.get())
            .collect();
        assert_eq!(v, [-1, -8, 7, 1]);
        // complex64 into float32: real, imaginary.
        let c =
            Array::<num_complex::Complex<f32>>::of_array(&[1], &[num_complex::Complex::new(1.5, -2.0)])
                .unwrap()
                .on();
        let f = c.any().bitcast(DType::Float32).unwrap().unwrap();
        assert_eq!(f.expect::<f32>().unwrap().to_vec().unwrap(), [1.5, -2.0]);
    }
}

on_every_device! {
    fn widening_needs_the_trailing_axis_and_multiples() {
        let a = Array::<u8>::of_array(&[2, 4], &[1, 2, 3, 4, 5, 6, 7, 8])
            .unwrap()
            .on();
        let w = a.any().bitcast(DType::Uint32).unwrap().unwrap();
        assert_eq!(w.shape(), [2]);
        assert_eq!(
            w.expect::<u32>().unwrap().to_vec().unwrap(),
            [0x04030201, 0x08070605]
        );
        assert!(
            a.any().bitcast(DType::Uint64).unwrap().is_none(),
            "trailing axis of 4, not 8"
        );
        let t = a.move_(&Move::Permute(vec![1, 0])).unwrap().unwrap();
        assert!(
            t.any().bitcast(DType::Uint16).unwrap().is_none(),
            "trailing stride is not 1"
        );
        let off = a
            .move_(&Move::Slice(vec![
                Slice::FULL,
                Slice::new(Some(1), Some(3), 1),
            ]))
            .unwrap()
            .unwrap();
        assert_eq!(off.shape(), [2, 2]);
        assert!(
            off.any().bitcast(DType::Uint16).unwrap().is_none(),
            "offset 1 is no multiple of 2"
        );
        // int4 pairs into uint8, and back: the same bytes.
        let n = Array::<U4>::of_array(&[2, 2], &[1, 2, 3, 4].map(|x| U4::new(x).unwrap()))
            .unwrap()
            .on();
        let b = n.any().bitcast(DType::Uint8).unwrap().unwrap();
        assert_eq!(b.expect::<u8>().unwrap().to_vec().unwrap(), [0x21, 0x43]);
        // An empty array needs only the trailing axis.
        let e = AnyArray::create(&dut(), DType::Uint8, &[0, 4]).unwrap();
        assert_eq!(e.bitcast(DType::Float32).unwrap().unwrap().shape(), [0]);
    }
}

on_every_device! {
    fn misaligned_results_are_none_and_max_rank_narrowing_errs() {
        // uint8 at byte offset 1 as uint16 pairs: misaligned.
        let a = Array::<u8>::of_array(&[5], &[0, 1, 2, 3, 4]).unwrap().on();
        let s = a
            .move_(&Move::Slice(vec![Slice::new(Some(1), None, 1)]))
            .unwrap()
            .unwrap();
        let s = s.move_(&Move::Reshape(vec![2, 2])).unwrap().unwrap();
        assert!(s.any().bitcast(DType::Uint16).unwrap().is_none());
        // complex64 (align 4) as uint64 (align 8) at an odd element: misaligned.
        let buf = nxrig::rig::Buffer::create(&dut(), 24, nxrig::rig::Kind::Device).unwrap();
        let at4 = buf.view(4, 16).unwrap();
        let cc = AnyArray::v(
            DType::Complex64,
            nxrig::Layout::contiguous(&[2]).unwrap(),
            at4,
        )
        .unwrap();
        assert!(cc.bitcast(DType::Uint64).unwrap().is_none());
        assert!(cc.bitcast(DType::Float32).unwrap().is_some());
        let r16 = AnyArray::create(&dut(), DType::Uint16, &[1; 16]).unwrap();
        let r = r16.bitcast(DType::Uint8);
        assert!(
            matches!(r, Err(nxrig::Error::Layout { op: "AnyArray::bitcast", .. })),
            "{r:?}"
        );
        assert!(r16.bitcast(DType::Int16).unwrap().is_some());
    }
}
