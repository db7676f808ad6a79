//! The `x * y + 1` kernels the elementwise suites run: float32's and int32's compute
//! types, a body for WGSL, CUDA and the host each.
#![allow(dead_code)]

use nxrig::kernels::Elementwise;

/// `z = x * y + 1` computing in float32.
pub fn xy1_f32() -> Elementwise<f32> {
    Elementwise::<f32>::new("xy1")
        .input("x", "T")
        .input("y", "T")
        .output("z", "T")
        .wgsl("z = x * y + 1.0;")
        .cuda("z = x * y + 1.0f;")
        .host(|i, o| {
            for (k, z) in o[0].iter_mut().enumerate() {
                *z = i[0][k] * i[1][k] + 1.0;
            }
        })
}

/// `z = x * y + 1` computing in int32, wrapping.
pub fn xy1_i32() -> Elementwise<i32> {
    Elementwise::<i32>::new("xy1 int")
        .input("x", "T")
        .input("y", "T")
        .output("z", "T")
        .wgsl("z = x * y + 1;")
        // Wrapping, as C's signed arithmetic is not.
        .cuda("z = (int32_t)((uint32_t)x * (uint32_t)y + 1u);")
        .host(|i, o| {
            for (k, z) in o[0].iter_mut().enumerate() {
                *z = i[0][k].wrapping_mul(i[1][k]).wrapping_add(1);
            }
        })
}
