//! The generated WGSL transfer kernels (`nxrig::wgsl`) run on a real Vulkan device
//! through wgpu (Mesa's lavapipe here; any adapter elsewhere) and store exactly the
//! bytes the host transfer stores, neighbours' bits included, for every element width.
//! A machine without an adapter fails this test: install mesa-vulkan-drivers.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::gpu;
use nxrig::rig::{Buffer, Kind};
use nxrig::wgsl::{transfer_module, widths};
use nxrig::{AnyArray, DType, Layout, Move, Rig, Slice};

/// A dtype of each width.
fn dtype_of(bits: u32) -> DType {
    DType::ALL.into_iter().find(|d| d.bits() == bits).unwrap()
}

/// Runs the transfer kernel for `src` into `dst` (host arrays whose whole buffers it
/// uploads) and returns the destination buffer's bytes.
fn gpu_transfer(dev: &wgpu::Device, q: &wgpu::Queue, src: &AnyArray, dst: &AnyArray) -> Vec<u8> {
    let (sl, dl) = (src.layout(), dst.layout());
    let axes: Vec<(usize, isize, isize)> = (0..sl.rank())
        .map(|k| (sl.shape()[k], sl.strides()[k], dl.strides()[k]))
        .collect();
    let p = gpu::params(sl.numel(), (sl.offset(), dl.offset()), &axes);
    let sbytes = src.buffer().read(|b| b.to_vec()).unwrap();
    let dbytes = dst.buffer().read(|b| b.to_vec()).unwrap();
    pollster::block_on(gpu::dispatch(
        dev,
        q,
        &transfer_module(src.dtype().bits()),
        &p,
        sl.numel(),
        &sbytes,
        &dbytes,
    ))
}

#[test]
fn generated_transfer_kernels_equal_the_host_transfer_on_a_gpu() {
    let (dev, q, name) = pollster::block_on(gpu::device());
    eprintln!("adapter: {name}");
    for bits in widths() {
        let d = dtype_of(bits);
        // A 5 x 7 source, one element in, flipped and transposed.
        let n = 36;
        let mut bytes = vec![0u8; d.bytes(n).unwrap()];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i * 151 + 29) as u8;
        }
        let base = AnyArray::of_bytes(d, &[n], bytes).unwrap();
        let src = base
            .move_(&Move::Slice(vec![Slice::new(Some(1), None, 1)]))
            .unwrap()
            .unwrap()
            .move_(&Move::Reshape(vec![5, 7]))
            .unwrap()
            .unwrap()
            .move_(&Move::Flip(vec![1]))
            .unwrap()
            .unwrap()
            .move_(&Move::Permute(vec![1, 0]))
            .unwrap()
            .unwrap();
        // Into a transposed destination, every other byte of its buffer a pattern.
        let dlen = d.bytes(35).unwrap() + 3;
        let dbuf = Buffer::create(&Rig::host(), dlen, Kind::Device).unwrap();
        dbuf.write(|b| {
            b.iter_mut()
                .enumerate()
                .for_each(|(i, x)| *x = if i % 2 == 0 { 0xa5 } else { 0x5a })
        })
        .unwrap();
        let dl = Layout::new(&[7, 5], &[1, 7], if d.is_sub_byte() { 1 } else { 0 }).unwrap();
        let dst = AnyArray::v(d, dl, dbuf).unwrap();
        let gpu = gpu_transfer(&dev, &q, &src, &dst);
        AnyArray::transfer(&src, &dst).unwrap();
        let host = dst.buffer().read(|b| b.to_vec()).unwrap();
        assert_eq!(gpu, host, "{bits}-bit elements on {name}");
    }
}

/// K8: a float32 arange of shape [27, 31, 31], permuted [1, 2, 0], made contiguous by
/// the generated transfer kernel on a GPU: element [30, 30, 26] is 25946, and every
/// element equals the source's (the tail of an odd-sized dispatch included).
#[test]
fn k8_the_tail_of_an_odd_sized_kernel() {
    let (dev, q, name) = pollster::block_on(gpu::device());
    let n = 27 * 31 * 31;
    let bytes: Vec<u8> = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let a = AnyArray::of_bytes(DType::Float32, &[27, 31, 31], bytes).unwrap();
    let p = a.move_(&Move::Permute(vec![1, 2, 0])).unwrap().unwrap();
    let dst = AnyArray::create(&Rig::host(), DType::Float32, &[31, 31, 27]).unwrap();
    let out = gpu_transfer(&dev, &q, &p, &dst);
    let got: Vec<f32> = out
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(got[(30 * 31 + 30) * 27 + 26], 25946.0, "on {name}");
    let want = p.to_bits_vec().unwrap();
    assert!(
        got.iter()
            .zip(&want)
            .all(|(g, w)| g.to_bits() as u128 == *w),
        "on {name}"
    );
}
