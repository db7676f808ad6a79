//! The native WGSL types a device offers its generated kernels.

use crate::dtype::DType;

/// The native WGSL types a generated kernel may use; the rest is emulated in 32-bit
/// integer arithmetic. A GPU device uses what its adapter has (`SHADER_F16`,
/// `SHADER_F64` with `SHADER_INT64`, `SHADER_INT64`; `f32` always) unless it was opened
/// to emulate everything. Native floats are used only where operands and result are
/// normal numbers (so flushing subnormals or a NaN's payload never shows), except
/// `f32` on a device whose additions a probe found exact on subnormals (`f32_exact`):
/// there the native sum stands, NaNs fixed up by bit selects. Conversions (casts) are
/// always emulated, because WGSL lets a narrowing conversion round either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Native {
    /// Use `f32` arithmetic.
    pub f32: bool,
    /// Use `f16` arithmetic (`enable f16`).
    pub f16: bool,
    /// Use `f64` arithmetic.
    pub f64: bool,
    /// Use `i64`/`u64` arithmetic.
    pub int64: bool,
    /// The device's `f32` addition is exact on subnormal operands and results (probed
    /// when the device opens): no exact fallback beside it.
    pub f32_exact: bool,
}

impl Native {
    /// Nothing native: every dtype in 32-bit integer arithmetic.
    pub const NONE: Native = Native {
        f32: false,
        f16: false,
        f64: false,
        int64: false,
        f32_exact: false,
    };

    /// What a kernel of dtype `d` uses of `self`: only the types it needs, so that one
    /// module serves devices that differ in the others.
    pub fn for_dtype(self, d: DType) -> Native {
        let comp = match d {
            DType::Complex64 => DType::Float32,
            DType::Complex128 => DType::Float64,
            d => d,
        };
        Native {
            f32: self.f32 && comp == DType::Float32,
            f16: self.f16 && comp == DType::Float16,
            // f64 goes to and from its bits through u64.
            f64: self.f64 && self.int64 && comp == DType::Float64,
            int64: self.int64 && matches!(d, DType::Int64 | DType::Uint64),
            f32_exact: self.f32 && self.f32_exact && comp == DType::Float32,
        }
    }
}
