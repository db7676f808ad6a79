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

#[cfg(test)]
mod tests {
    use super::*;

    /// A cast from a signed narrow float (bfloat16, float16, the float8s, float6s and
    /// float4 with a sign) into float32, another narrow float, int32 or uint32 is a
    /// short path: the exact float32 bits, then one rounding in 32-bit integers, never
    /// `convert.wgsl`'s general `convert` in a loop (on SwiftShader bfloat16 ->
    /// float16 took 10x float32 -> bfloat16's time a element that way). The bits are
    /// the oracle vectors' (`tests/cast_on_devices.rs`).
    #[test]
    fn casts_from_signed_narrow_floats_are_short() {
        let mut n = 0;
        for s in DType::ALL {
            if super::super::narrow::exact_f32(s).is_none() {
                continue;
            }
            for d in DType::ALL {
                let into = d == DType::Float32 || super::super::facts::from_f32_short(d);
                if d == s || !into {
                    continue;
                }
                let (helpers, short) = cast_helpers(s, d);
                assert!(short, "{s} -> {d} is not short");
                assert!(!helpers.contains("convert(a,"), "{s} -> {d} calls convert");
                n += 1;
            }
        }
        // bfloat16 and float16 at least, into float32 and each other.
        assert!(n > 4, "{n} short casts from narrow floats");
        assert!(cast_helpers(DType::Bfloat16, DType::Float16).1);
        assert!(cast_helpers(DType::Float16, DType::Bfloat16).1);
    }
}
