//! Arrays larger than the device allows in one binding or one allocation (split,
//! never refused): devices opened with small limits (1 MiB buffers; 1 MiB or 256 KiB
//! bindings, which the device then enforces) move 3 MiB arrays through every kernel,
//! equal to the host byte for byte. Never refused, never a silent zero.
#![cfg(not(target_arch = "wasm32"))]

use nxrig::kernels::{add, fill, mul, Elementwise};
use nxrig::rig::wgpu::Options;
use nxrig::rig::{Buffer, Kind};
use nxrig::{AnyArray, DType, Move, Rig, Slice};

const MIB: u64 = 1 << 20;

fn small(binding: u64) -> Rig {
    let r = Rig::gpu_with(&Options {
        max_buffer_size: Some(MIB),
        max_storage_buffer_binding_size: Some(binding),
        ..Options::default()
    })
    .expect("a GPU device: install mesa-vulkan-drivers (lavapipe)");
    let l = r.wgpu().unwrap().limits();
    assert_eq!(
        (l.max_buffer_size, l.max_storage_buffer_binding_size),
        (MIB, binding)
    );
    r
}

fn bits(d: DType, n: usize, seed: u64) -> AnyArray {
    let mut s = seed | 1;
    let v: Vec<u128> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s as u128) << 64 | s.rotate_left(29) as u128
        })
        .collect();
    AnyArray::of_bits(d, &[n], &v).unwrap()
}

/// `n` bfloat16 elements of magnitude 1/4 to 4 (products exact in float32, none near a
/// subnormal that a device might flush), of random signs and mantissas.
fn normal_bf16(n: usize, seed: u64) -> AnyArray {
    let b = bits(DType::Uint16, n, seed).to_bits_vec().unwrap();
    let v: Vec<u128> = b
        .iter()
        .map(|&x| 0x3e80 + (x & 0x80ff) % 0x200 + (x & 0x8000))
        .collect();
    AnyArray::of_bits(DType::Bfloat16, &[n], &v).unwrap()
}

fn same(g: &AnyArray, h: &AnyArray, what: &str) {
    assert_eq!(g.shape(), h.shape(), "{what}");
    assert!(
        g.to_bits_vec().unwrap() == h.to_bits_vec().unwrap(),
        "{what}: differs from the host"
    );
}

#[test]
fn three_mib_arrays_move_through_every_kernel_on_small_devices() {
    for binding in [MIB, MIB / 4] {
        let dev = small(binding);
        // float32 [768, 1024]: 3 MiB in three allocations.
        let h = bits(DType::Float32, 768 * 1024, 1)
            .move_(&Move::Reshape(vec![768, 1024]))
            .unwrap()
            .unwrap();
        let g = h.to_device(&dev).unwrap();
        let (hb, gb) = (h.buffer(), g.buffer());
        assert_eq!(gb.wgpu_memory().unwrap().0.buffers().len(), 3);
        assert_eq!(
            gb.read(|b| b.to_vec()).unwrap(),
            hb.read(|b| b.to_vec()).unwrap()
        );
        // Transposed and flipped copies (the strided blit).
        for m in [Move::Permute(vec![1, 0]), Move::Flip(vec![0, 1])] {
            let (hv, gv) = (h.move_(&m).unwrap().unwrap(), g.move_(&m).unwrap().unwrap());
            same(
                &gv.copy().unwrap(),
                &hv,
                &format!("copy {m:?} at {binding}"),
            );
        }
        // Casts narrower and wider (6 MiB out).
        for d in [DType::Bfloat16, DType::Float64, DType::Int4] {
            same(
                &g.cast(d).unwrap(),
                &h.cast(d).unwrap(),
                &format!("cast to {d} at {binding}"),
            );
        }
        // Add with a broadcast row; fill of every third column.
        let row = bits(DType::Float32, 1024, 2);
        same(
            &add(&g, &row.to_device(&dev).unwrap()).unwrap(),
            &add(&h, &row).unwrap(),
            "add",
        );
        let pick = Move::Slice(vec![
            Slice::new(None, None, 1),
            Slice::new(Some(1), None, 3),
        ]);
        fill(&g.move_(&pick).unwrap().unwrap(), 0.5).unwrap();
        fill(&h.move_(&pick).unwrap().unwrap(), 0.5).unwrap();
        same(&g, &h, "fill");
        // A kernel of the user's own over pieces: bfloat16 x * y + 1 from the ninth
        // element (whole groups of the contiguous form in each piece, the rest walked),
        // and with y broadcast (walked); mul of int4 from the 17th nibble.
        let xy1 = Elementwise::<f32>::new("xy1")
            .input("x", "T")
            .input("y", "T")
            .output("z", "T")
            .wgsl("z = x * y + 1.0;")
            .host(|i, o| {
                for (k, z) in o[0].iter_mut().enumerate() {
                    *z = i[0][k] * i[1][k] + 1.0;
                }
            });
        let from = |a: &AnyArray, at: isize| a.slice(&[Slice::new(Some(at), None, 1)]).unwrap();
        let (hx, hy) = (normal_bf16(3 << 19, 4), normal_bf16(3 << 19, 5));
        let (gx, gy) = (hx.to_device(&dev).unwrap(), hy.to_device(&dev).unwrap());
        let (hx1, hy1, gx1, gy1) = (from(&hx, 8), from(&hy, 8), from(&gx, 8), from(&gy, 8));
        same(
            &xy1.call(&[&gx1, &gy1]).unwrap()[0],
            &xy1.call(&[&hx1, &hy1]).unwrap()[0],
            &format!("x * y + 1 at {binding}"),
        );
        let (hr, gr) = (
            hx.reshape(&[768, 2048]).unwrap(),
            gx.reshape(&[768, 2048]).unwrap(),
        );
        let (hrow, grow) = (from(&hy, 1 << 20), from(&gy, 1 << 20));
        let (hrow, grow) = (
            hrow.slice(&[Slice::new(None, Some(2048), 1)]).unwrap(),
            grow.slice(&[Slice::new(None, Some(2048), 1)]).unwrap(),
        );
        same(
            &xy1.call(&[&gr, &grow]).unwrap()[0],
            &xy1.call(&[&hr, &hrow]).unwrap()[0],
            &format!("x * y + 1 broadcast at {binding}"),
        );
        let (hp, hq) = (bits(DType::Int4, 6 << 20, 6), bits(DType::Int4, 6 << 20, 7));
        let (gp, gq) = (hp.to_device(&dev).unwrap(), hq.to_device(&dev).unwrap());
        same(
            &mul(&from(&gp, 16), &from(&gq, 16)).unwrap(),
            &mul(&from(&hp, 16), &from(&hq, 16)).unwrap(),
            &format!("int4 mul at {binding}"),
        );
        // int4: 6 Mi elements at an odd offset, reversed.
        let q = bits(DType::Int4, 6 << 20, 3);
        let qv = Move::Slice(vec![Slice::new(Some(-2), Some(0), -1)]);
        let gq = q.to_device(&dev).unwrap();
        same(
            &gq.move_(&qv).unwrap().unwrap().copy().unwrap(),
            &q.move_(&qv).unwrap().unwrap(),
            "int4",
        );
        // Byte ranges across allocations, at odd bytes.
        let m = Buffer::create(&dev, 3 * MIB as usize, Kind::Device).unwrap();
        let src = Buffer::of_vec(
            (0..3 * MIB as usize)
                .map(|i| (i * 7 % 251) as u8)
                .collect::<Vec<u8>>(),
        );
        Buffer::blit(&src, 3, &m, MIB as usize - 5, 2 * MIB as usize).unwrap();
        Buffer::blit(&m, MIB as usize - 5, &m, 7, 2 * MIB as usize).unwrap();
        let mut want = vec![0u8; 3 * MIB as usize];
        want[MIB as usize - 5..3 * MIB as usize - 5]
            .copy_from_slice(&src.read(|b| b[3..2 * MIB as usize + 3].to_vec()).unwrap());
        want.copy_within(MIB as usize - 5..3 * MIB as usize - 5, 7);
        let got = pollster::block_on(m.read_async()).unwrap();
        assert!(got == want, "blits across allocations at {binding}");
    }
}
