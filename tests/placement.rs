//! Placement: to_device's layout rule, transfer's errors and overlap rule, copy and
//! borrow, all bit for bit (NaN payloads included).

use nxrig::dtype::U4;
use nxrig::rig::{Buffer, Claim, Kind};
use nxrig::{AnyArray, Array, DType, Error, Move, Rig, Slice};

mod common;
#[path = "common/dut.rs"]
#[macro_use]
mod dut;
use dut::{dut, On};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

fn iota(shape: &[usize]) -> Array<i32> {
    let n: usize = shape.iter().product();
    Array::of_array(shape, &(0..n as i32).collect::<Vec<_>>())
        .unwrap()
        .on()
}

on_every_device! {
    fn to_device_keeps_a_compact_layout_shifted() {
        let a = iota(&[4, 3]);
        let f = a.move_(&Move::Flip(vec![0])).unwrap().unwrap();
        let c = f.any().to_device(&dut()).unwrap();
        assert_eq!(c.layout().strides(), [-3, 1], "the flipped layout is kept");
        assert_eq!(c.buffer().len(), 48);
        assert_eq!(
            c.expect::<i32>().unwrap().to_vec().unwrap(),
            f.to_vec().unwrap()
        );
        // A slice from the middle: the same strides, shifted to offset 0.
        let s = a
            .move_(&Move::Slice(vec![Slice::new(Some(1), Some(3), 1)]))
            .unwrap()
            .unwrap();
        let c = s.any().to_device(&dut()).unwrap();
        assert_eq!((c.layout().offset(), c.buffer().len()), (0, 24));
        // A sub-byte array at an odd nibble keeps the source's neighbour bits.
        let n = Array::<U4>::of_array(&[5], &[1, 2, 3, 4, 5].map(|x| U4::new(x).unwrap()))
            .unwrap()
            .on();
        let tail = n
            .move_(&Move::Slice(vec![Slice::new(Some(1), Some(4), 1)]))
            .unwrap()
            .unwrap();
        let c = tail.any().to_device(&dut()).unwrap();
        assert_eq!(c.layout().offset(), 1);
        assert_eq!(c.buffer().read(|b| b.to_vec()).unwrap(), [0x21, 0x43]);
        assert_eq!(c.to_bits_vec().unwrap(), [2, 3, 4]);
    }
}

on_every_device! {
    fn to_device_packs_by_decreasing_stride_otherwise() {
        // The specification's example: shape [3, 2] at strides [2, 2] gets strides [2, 1].
        let buf = Buffer::create(&dut(), 64, Kind::Device).unwrap();
        let l = nxrig::Layout::new(&[3, 2], &[2, 2], 0).unwrap();
        let a = AnyArray::v(DType::Int32, l, buf).unwrap();
        assert_eq!(a.to_device(&dut()).unwrap().layout().strides(), [2, 1]);
        // A transposed, every-other-column view: axes by decreasing |stride|, signs kept.
        let x = iota(&[4, 6]);
        let v = x
            .move_(&Move::Slice(vec![Slice::FULL, Slice::new(None, None, -2)]))
            .unwrap()
            .unwrap();
        let t = v.move_(&Move::Permute(vec![1, 0])).unwrap().unwrap();
        let c = t.any().to_device(&dut()).unwrap();
        assert_eq!(c.layout().strides(), [-1, 3]);
        assert_eq!(c.layout().offset(), 2);
        assert_eq!(c.buffer().len(), 48);
        assert_eq!(
            c.expect::<i32>().unwrap().to_vec().unwrap(),
            t.to_vec().unwrap()
        );
        // Broadcast axes keep stride 0 and count once.
        let r = iota(&[1, 3])
            .move_(&Move::Expand(vec![5, 3]))
            .unwrap()
            .unwrap();
        let c = r.any().to_device(&dut()).unwrap();
        assert_eq!(c.layout().strides(), [0, 1]);
        assert_eq!(c.buffer().len(), 12);
    }
}

on_every_device! {
    /// NaN payloads survive placement: float64 bits 0x7FF0000000000001 and
    /// 0xFFF0000000000002 come back the same through `to_device`, `transfer` and `copy`,
    /// never quietened to 0x7FF8....
    fn nan_payloads_survive_to_device_transfer_and_copy() {
        let bits = [0x7FF0000000000001u64, 0xFFF0000000000002];
        let a = Array::<f64>::of_array(&[2], &bits.map(f64::from_bits))
            .unwrap()
            .on();
        let dev = Rig::virtual_host("second");
        let on = a.any().to_device(&dev).unwrap();
        assert_eq!(on.rig(), &dev);
        let back = on.copy().unwrap();
        let dst = AnyArray::create(&dut(), DType::Float64, &[2]).unwrap();
        AnyArray::transfer(&back, &dst).unwrap();
        let got = common::bits(&dst.expect::<f64>().unwrap());
        assert_eq!(got, bits);
        let f = Array::<f32>::of_array(&[1], &[f32::from_bits(0x7F802000)])
            .unwrap()
            .on();
        let g = f.any().to_device(&dev).unwrap().copy().unwrap();
        assert_eq!(
            g.expect::<f32>().unwrap().to_vec().unwrap()[0].to_bits(),
            0x7F802000
        );
    }
}

on_every_device! {
    fn transfer_writes_only_the_destinations_elements() {
        let n = Array::<U4>::of_array(&[6], &[15; 6].map(|x| U4::new(x).unwrap()))
            .unwrap()
            .on();
        let mid = n
            .move_(&Move::Slice(vec![Slice::new(Some(1), Some(4), 1)]))
            .unwrap()
            .unwrap();
        let src = Array::<U4>::of_array(&[3], &[1, 2, 3].map(|x| U4::new(x).unwrap()))
            .unwrap()
            .on();
        AnyArray::transfer(src.any(), mid.any()).unwrap();
        assert_eq!(
            n.any().buffer().read(|b| b.to_vec()).unwrap(),
            [0x1f, 0x32, 0xff]
        );
        // Strided and broadcast sources, negative-stride destinations.
        let d = iota(&[2, 3]);
        let r = iota(&[1, 3])
            .move_(&Move::Expand(vec![2, 3]))
            .unwrap()
            .unwrap();
        let df = d.move_(&Move::Flip(vec![1])).unwrap().unwrap();
        AnyArray::transfer(r.any(), df.any()).unwrap();
        assert_eq!(d.to_vec().unwrap(), [2, 1, 0, 2, 1, 0]);
    }
}

on_every_device! {
    fn transfer_errors() {
        let a = iota(&[2, 3]);
        let b = iota(&[3, 2]);
        let e = AnyArray::transfer(a.any(), b.any()).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Invalid {
                    op: "AnyArray::transfer",
                    ..
                }
            ),
            "{e}"
        );
        // A destination that reaches an element twice.
        let r = iota(&[1, 3])
            .move_(&Move::Expand(vec![2, 3]))
            .unwrap()
            .unwrap();
        let e = AnyArray::transfer(a.any(), r.any()).unwrap_err();
        assert!(e.to_string().contains("twice"), "{e}");
        // Overlap: a destination sharing bytes with a source not identical to it.
        let x = iota(&[6]);
        let lo = x
            .move_(&Move::Slice(vec![Slice::new(Some(0), Some(4), 1)]))
            .unwrap()
            .unwrap();
        let hi = x
            .move_(&Move::Slice(vec![Slice::new(Some(2), Some(6), 1)]))
            .unwrap()
            .unwrap();
        let e = AnyArray::transfer(lo.any(), hi.any()).unwrap_err();
        assert!(e.to_string().contains("shares bytes"), "{e}");
        // Identical arrays are fine (a transfer onto itself), and disjoint views of one memory.
        AnyArray::transfer(x.any(), x.any()).unwrap();
        let even = x
            .move_(&Move::Slice(vec![Slice::new(None, None, 2)]))
            .unwrap()
            .unwrap();
        let odd = x
            .move_(&Move::Slice(vec![Slice::new(Some(1), None, 2)]))
            .unwrap()
            .unwrap();
        AnyArray::transfer(even.any(), odd.any()).unwrap();
        assert_eq!(x.to_vec().unwrap(), [0, 0, 2, 2, 4, 4]);
        // Read-only memory as destination.
        #[repr(align(16))]
        struct Aligned([u8; 4]);
        static RO: Aligned = Aligned([0; 4]);
        let ro = AnyArray::v(
            DType::Int32,
            nxrig::Layout::contiguous(&[1]).unwrap(),
            Buffer::of_bytes(&RO.0[..]),
        )
        .unwrap();
        let one = iota(&[1]);
        let e = AnyArray::transfer(one.any(), &ro).unwrap_err();
        assert!(e.to_string().contains("only reads"), "{e}");
        // A dead source, named with its consumer's reason.
        let dead = iota(&[1]);
        Claim::with(&[], &[dead.buffer()], |c| {
            c.consume("donated to Nx.mul", dead.buffer()).unwrap()
        })
        .unwrap();
        let e = AnyArray::transfer(dead.any(), one.any()).unwrap_err();
        assert!(
            e.to_string().contains("int32 [1] was donated to Nx.mul"),
            "{e}"
        );
    }
}

on_every_device! {
    fn borrow_shares_memory() {
        let a = iota(&[3]);
        let same = a.any().borrow(&dut()).unwrap().unwrap();
        assert!(same.buffer().same_memory(a.buffer()));
        let other = Rig::virtual_host("peer");
        if !dut().host_addressable() {
            // Another device cannot map a GPU's memory.
            assert!(a.any().borrow(&other).unwrap().is_none());
            return;
        }
        let b = a.any().borrow(&other).unwrap().unwrap();
        b.clone().expect::<i32>().unwrap().set(&[0], 7).unwrap();
        assert_eq!(
            a.get(&[0]).unwrap(),
            7,
            "writes through either show in the other"
        );
    }
}

on_every_device! {
    fn copy_is_c_contiguous_and_bit_for_bit_for_every_dtype() {
        for d in DType::ALL {
            let n = 7;
            let mut bytes = vec![0u8; d.bytes(n).unwrap()];
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = (i * 37 + 11) as u8;
            }
            let a = AnyArray::of_bytes(d, &[n], bytes).unwrap();
            let f = a.move_(&Move::Flip(vec![0])).unwrap().unwrap();
            let c = f.copy().unwrap();
            assert!(c.layout().is_contiguous() && c.layout().offset() == 0);
            let mut want = a.to_bits_vec().unwrap();
            want.reverse();
            assert_eq!(c.to_bits_vec().unwrap(), want, "{d}");
        }
    }
}

on_every_device! {
    /// Transfers between many pairs of layouts (permuted, flipped, sliced, broadcast
    /// sources) of every byte width, checked element by element against `to_bits_vec`.
    fn transfer_between_many_layouts_of_every_width() {
        let shapes: [&[usize]; 5] = [&[], &[7], &[3, 5], &[2, 3, 4], &[33, 40]];
        for d in [
            DType::Uint8,
            DType::Float16,
            DType::Float32,
            DType::Float64,
            DType::Complex128,
            DType::Int4,
        ] {
            for shape in shapes {
                let n: usize = shape.iter().product();
                let r = shape.len();
                let mut bytes = vec![0u8; d.bytes(n).unwrap()];
                for (i, b) in bytes.iter_mut().enumerate() {
                    *b = (i * 131 + 7) as u8;
                }
                let a = AnyArray::of_bytes(d, shape, bytes).unwrap();
                let views: Vec<AnyArray> = vec![
                    a.clone(),
                    a.move_(&Move::Flip((0..r).collect())).unwrap().unwrap(),
                    a.move_(&Move::Permute((0..r).rev().collect()))
                        .unwrap()
                        .unwrap(),
                ];
                for v in &views {
                    // Into a fresh array laid out as the transpose of a C-contiguous one.
                    let vs: Vec<usize> = v.shape().iter().rev().copied().collect();
                    let dst0 = AnyArray::create(&dut(), d, &vs).unwrap();
                    let dst = dst0
                        .move_(&Move::Permute((0..r).rev().collect()))
                        .unwrap()
                        .unwrap();
                    AnyArray::transfer(v, &dst).unwrap();
                    assert_eq!(
                        dst.to_bits_vec().unwrap(),
                        v.to_bits_vec().unwrap(),
                        "{d} {shape:?}"
                    );
                }
            }
        }
    }
}

on_every_device! {
    /// Transposed transfers into views inside larger arrays (one column in, rows three
    /// longer: an odd row stride for some shapes, so 4-bit rows start and end inside
    /// bytes) write the views' elements and keep every neighbour's bits: the blocks'
    /// edges, whose bytes they share, included. Both ways: a transposed source into a
    /// row-major view, and a row-major source into a transposed view.
    fn transposed_transfers_into_views_keep_their_neighbours() {
        for d in [
            DType::Int4,
            DType::Uint8,
            DType::Float16,
            DType::Float32,
            DType::Float64,
            DType::Complex128,
        ] {
            let mask = if d.bits() == 128 { u128::MAX } else { (1u128 << d.bits()) - 1 };
            let pattern = |n: usize, k: u128| -> Vec<u128> {
                let mix = |i: u128| (k ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15)) & mask;
                (0..n as u128).map(mix).collect()
            };
            let inner = |n: usize| Slice::new(Some(1), Some(n as isize + 1), 1);
            let turn = |a: &AnyArray| a.move_(&Move::Permute(vec![1, 0])).unwrap().unwrap();
            for (r, c) in [(64, 64), (128, 128), (130, 67), (33, 96)] {
                let sbits = pattern(r * c, 0x5a5a);
                for into_turned in [false, true] {
                    let (rows, n) = if into_turned { (r, c) } else { (c, r) };
                    let bbits = pattern(rows * (n + 3), 0x0f0f_1234);
                    // The source: [r, c] turned, or [c, r] as it is; either way
                    // element [j, i] of what is written is `sbits[i * c + j]` or
                    // `sbits[j * r + i]`. `big` is [c, r + 3] or [r, c + 3].
                    let (src, big) = if into_turned {
                        let s = AnyArray::of_bits(d, &[c, r], &sbits).unwrap().on();
                        (s, AnyArray::of_bits(d, &[r, c + 3], &bbits).unwrap().on())
                    } else {
                        let s = AnyArray::of_bits(d, &[r, c], &sbits).unwrap().on();
                        (turn(&s), AnyArray::of_bits(d, &[c, r + 3], &bbits).unwrap().on())
                    };
                    let view = big
                        .move_(&Move::Slice(vec![Slice::FULL, inner(n)]))
                        .unwrap()
                        .unwrap();
                    let view = if into_turned { turn(&view) } else { view };
                    AnyArray::transfer(&src, &view).unwrap();
                    let want: Vec<u128> = (0..bbits.len())
                        .map(|e| {
                            let (y, x) = (e / (n + 3), e % (n + 3));
                            match (into_turned, (1..=n).contains(&x)) {
                                (_, false) => bbits[e],
                                // big[y, x] is view[x - 1, y] of the turned view.
                                (true, true) => sbits[(x - 1) * r + y],
                                (false, true) => sbits[(x - 1) * c + y],
                            }
                        })
                        .collect();
                    let got = big.to_bits_vec().unwrap();
                    assert!(got == want, "{d} {r}x{c}, into a turned view: {into_turned}");
                }
            }
        }
    }
}

on_every_device! {
    /// Transposed copies go through square vector blocks in whole tiles (16-byte rows:
    /// 16 x 16 bytes, 8 x 8 of 2 bytes, ...; 4-bit elements 32 x 32, shifted where a
    /// column or row starts inside a byte) and element by element at the edges: batches
    /// of tiles, odd edges, a source one element in (columns off a byte), every
    /// element of every width checked against a walk of the source's bits (float NaN
    /// payloads included).
    fn transposed_copies_of_every_width_and_size_keep_every_bit() {
        let shapes = [
            (1, 16, 16),
            (3, 48, 64),
            (2, 50, 35),
            (1, 17, 33),
            (2, 128, 192),
            (1, 130, 67),
            (2, 65, 97),
            (1, 131, 129),
        ];
        let widths = [
            DType::Int4,
            DType::Uint8,
            DType::Float16,
            DType::Float32,
            DType::Uint32,
            DType::Float64,
            DType::Complex128,
        ];
        for (b, r, c) in shapes {
            for d in widths {
                let mask = if d.bits() == 128 { u128::MAX } else { (1u128 << d.bits()) - 1 };
                for skip in [0, 1] {
                    // [b, r, c + skip], its last axis from `skip`: columns start off a
                    // byte for 4-bit elements when `skip` is odd.
                    let n = b * r * (c + skip);
                    let bits: Vec<u128> = (0..n as u128)
                        .map(|i| (0x7f80_0001 ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15)) & mask)
                        .collect();
                    let whole = AnyArray::of_bits(d, &[b, r, c + skip], &bits).unwrap().on();
                    let a = whole
                        .move_(&Move::Slice(vec![Slice::FULL, Slice::FULL, Slice::new(Some(skip as isize), None, 1)]))
                        .unwrap()
                        .unwrap();
                    let t = a.move_(&Move::Permute(vec![0, 2, 1])).unwrap().unwrap();
                    let copy = t.copy().unwrap();
                    assert!(copy.layout().is_contiguous());
                    // Element [k, j, i] of the transpose is [k, i, j] of `a`.
                    let want: Vec<u128> = (0..b * c * r)
                        .map(|e| {
                            let (k, j, i) = (e / (c * r), e / r % c, e % r);
                            bits[(k * r + i) * (c + skip) + j + skip]
                        })
                        .collect();
                    assert!(
                        copy.to_bits_vec().unwrap() == want,
                        "{d} {b}x{r}x{c}, skip {skip}"
                    );
                }
            }
        }
    }
}

on_every_device! {
    /// Large strided copies (cut into bands on several threads natively) keep every
    /// element in place: transposed and flipped views of 1.5 M elements of four widths
    /// copied, and the arrays transferred into transposed views (4-bit ones in tiles
    /// of nibbles; an odd row length puts bands' edges inside bytes), against a walk of
    /// the source's bits.
    fn large_strided_copies_keep_every_element() {
        for (d, r, c) in [
            (DType::Uint16, 1024, 1536),
            (DType::Float32, 1024, 1536),
            (DType::Complex128, 1024, 1536),
            (DType::Int4, 1024, 1536),
            (DType::Uint4, 1001, 1537),
        ] {
            let bits: Vec<u128> = (0..(r * c) as u128)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .collect();
            let a = AnyArray::of_bits(d, &[r, c], &bits).unwrap().on();
            let mask = if d.bits() == 128 {
                u128::MAX
            } else {
                (1u128 << d.bits()) - 1
            };
            let t = a.move_(&Move::Permute(vec![1, 0])).unwrap().unwrap();
            let got = t.copy().unwrap().to_bits_vec().unwrap();
            let want: Vec<u128> = (0..r * c)
                .map(|k| bits[(k % r) * c + k / r] & mask)
                .collect();
            assert!(got == want, "{d} transposed");
            // The same elements by a transfer into a transposed view of a fresh array
            // (cut into bands along the view's last axis, its largest stride).
            let fresh = AnyArray::create(&dut(), d, &[c, r]).unwrap();
            let view = fresh.move_(&Move::Permute(vec![1, 0])).unwrap().unwrap();
            AnyArray::transfer(&a, &view).unwrap();
            assert!(fresh.to_bits_vec().unwrap() == want, "{d} into a transposed view");
            let f = a.move_(&Move::Flip(vec![0, 1])).unwrap().unwrap();
            let got = f.copy().unwrap().to_bits_vec().unwrap();
            let want: Vec<u128> = bits.iter().rev().map(|b| b & mask).collect();
            assert!(got == want, "{d} flipped");
        }
    }
}
