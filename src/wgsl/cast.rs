//! The cast kernel: `nx_cast`, one a (source, target) pair (a short path where one is
//! exact, else `shaders/convert.wgsl`'s `convert`), on raw bits.

use super::kernel::{abz, Kernel};
use super::operands::{converter, Path};
use crate::dtype::DType;

/// The kernel of the cast of `from` into `to` on raw bits (`a` into `z`): a short
/// conversion written out for each element of the contiguous form's group,
/// `convert.wgsl`'s whole one in a loop.
pub(crate) fn cast_kernel(from: DType, to: DType) -> Kernel<'static> {
    let (helpers, short) = cast_helpers(from, to);
    let k = Kernel::new(abz(&[from, to]), None, "z = nx_cast(a);")
        .expect("two operands")
        .helpers(helpers);
    if short {
        k
    } else {
        k.looped()
    }
}

/// The functions of the cast of `src` into `dst` for a kernel on raw bits (its body
/// calls `nx_cast(a)`, an element's `vec4<u32>` bits, whose low bits it stores), and
/// whether the conversion is a short path (else `convert.wgsl`'s whole `convert`).
fn cast_helpers(src: DType, dst: DType) -> (String, bool) {
    let (f, path) = converter("nx_cast", src, dst);
    match path {
        Path::FromF32 => (format!("{}\n{f}", super::narrow::convert_f32()), true),
        Path::Short => (f, true),
        Path::General => (f, false),
    }
}
