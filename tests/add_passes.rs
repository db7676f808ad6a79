//! float32 add, sub and mul in two passes on a device whose float32 sums are not trusted (opened
//! with `Options::skip_probe`, as a device that flushes subnormals is): the native
//! sums where no element needs more, the exact kernel over the pieces where one does;
//! every case equals the host's add (natively, lavapipe here; the browser suite runs
//! the same cases on SwiftShader, which does flush). The 8- and 16-bit floats the
//! same way wherever the device has float32.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::add_passes::{cases, float32_ops, narrow_cases, narrow_ops, wrong};
use nxrig::rig::wgpu::Options;
use nxrig::{AnyArray, DType, Rig};

#[test]
fn float32_add_sub_mul_in_two_passes_equal_the_host() {
    let whole = Options {
        skip_probe: true,
        ..Options::default()
    };
    // Bindings of 64 KiB: each case's 400 KB in several pieces, one of them flagged.
    let pieces = Options {
        max_storage_buffer_binding_size: Some(64 << 10),
        ..whole.clone()
    };
    for options in [whole, pieces] {
        let gpu =
            Rig::gpu_with(&options).expect("a GPU device: install mesa-vulkan-drivers (lavapipe)");
        assert!(!gpu.wgpu().unwrap().native().f32_exact);
        check(&gpu);
    }
}

/// The 8- and 16-bit floats' add, sub, mul and div, natively in float32 first on a
/// device that has it: on lavapipe (whose float32 is exact) and as a device whose
/// sums are not trusted, whole and in pieces.
#[test]
fn the_narrow_floats_compute_natively_first_and_equal_the_host() {
    let whole = Options {
        skip_probe: true,
        ..Options::default()
    };
    let pieces = Options {
        max_storage_buffer_binding_size: Some(16 << 10),
        ..whole.clone()
    };
    for options in [Options::default(), whole, pieces] {
        let gpu =
            Rig::gpu_with(&options).expect("a GPU device: install mesa-vulkan-drivers (lavapipe)");
        assert!(gpu.wgpu().unwrap().native().f32);
        for (name, d, xs, ys) in narrow_cases() {
            let n = xs.len();
            let x = AnyArray::of_bits(d, &[n], &xs).unwrap();
            let y = AnyArray::of_bits(d, &[n], &ys).unwrap();
            let (gx, gy) = (x.to_device(&gpu).unwrap(), y.to_device(&gpu).unwrap());
            for (op, f) in narrow_ops() {
                let want = f(&x, &y).unwrap().to_bits_vec().unwrap();
                let z = f(&gx, &gy).unwrap();
                let got = z.to_device(&Rig::host()).unwrap().to_bits_vec().unwrap();
                if let Some(m) = wrong(&format!("{op} {name}"), &xs, &ys, &got, &want) {
                    panic!("{m}");
                }
            }
        }
    }
}

fn check(gpu: &Rig) {
    for (name, xs, ys) in cases() {
        let n = xs.len();
        let x = AnyArray::of_bits(DType::Float32, &[n], &xs).unwrap();
        let y = AnyArray::of_bits(DType::Float32, &[n], &ys).unwrap();
        let (gx, gy) = (x.to_device(gpu).unwrap(), y.to_device(gpu).unwrap());
        for (op, f) in float32_ops() {
            let want = f(&x, &y).unwrap().to_bits_vec().unwrap();
            let z = f(&gx, &gy).unwrap();
            let got = z.to_device(&Rig::host()).unwrap().to_bits_vec().unwrap();
            if let Some(m) = wrong(&format!("{op} {name}"), &xs, &ys, &got, &want) {
                panic!("{m}");
            }
        }
    }
}
