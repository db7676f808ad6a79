//! The programs of nxrig's cast and add on GPUs through wgpu: which generated module
//! each is and which forms it has, for the runtime to run ([`Program`]).

use crate::dtype::DType;
use crate::rig::wgpu::{no_flat4, Form, Program};
use crate::wgsl::{
    add_module, add_module_f32_first, add_module_flat4, add_module_narrow_first, cast_module,
    cast_module_flat4, Native,
};

/// Elements of `from` converted into `to` (the dtype table's one rounding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cast {
    pub(crate) from: DType,
    pub(crate) to: DType,
}

/// `out = x + y` of `dtype`, with the device's `native` types (narrowed to the
/// dtype); `f32`: whether the device has native float32, which the 8- and 16-bit
/// floats' first pass sums in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Add {
    pub(crate) dtype: DType,
    pub(crate) native: Native,
    pub(crate) f32: bool,
}

impl Add {
    /// Whether the dtype is an 8- or 16-bit float summed natively in float32 first.
    fn narrow_first(&self) -> bool {
        self.f32 && self.dtype.is_float() && matches!(self.dtype.bits(), 8 | 16)
    }
}

impl Program for Cast {
    fn key(&self) -> String {
        format!("cast {} {}", self.from, self.to)
    }

    fn has_flat4(&self) -> bool {
        self.from.bits() == 32 && self.to.bits() == 32
    }

    fn module(&self, form: Form) -> String {
        match form {
            Form::Walked => cast_module(self.from, self.to),
            Form::Flat4 { at_zero } => cast_module_flat4(self.from, self.to, at_zero)
                .unwrap_or_else(|| no_flat4(&self.key())),
        }
    }
}

impl Program for Add {
    fn key(&self) -> String {
        let first = if self.narrow_first() {
            " f32 first"
        } else {
            ""
        };
        format!("add {} {:?}{first}", self.dtype, self.native)
    }

    fn has_flat4(&self) -> bool {
        matches!(self.dtype.bits(), 8 | 16 | 32)
    }

    fn module(&self, form: Form) -> String {
        match form {
            Form::Walked => add_module(self.dtype, self.native),
            Form::Flat4 { at_zero } => add_module_flat4(self.dtype, self.native, at_zero)
                .unwrap_or_else(|| no_flat4(&self.key())),
        }
    }

    /// float32 where the device's native sums are not trusted on subnormals, and the
    /// 8- and 16-bit floats wherever the device has float32: the native sums first,
    /// raising the flag where one may be wrong (or a NaN's bits matter).
    fn first_pass(&self, form: Form) -> Option<(String, String)> {
        let Form::Flat4 { at_zero } = form else {
            return None;
        };
        let n = self.native;
        let name = format!("{} first{}", self.key(), if at_zero { " at 0" } else { "" });
        if self.narrow_first() {
            return add_module_narrow_first(self.dtype, at_zero).map(|m| (name, m));
        }
        if self.dtype != DType::Float32 || !n.f32 || n.f32_exact {
            return None;
        }
        Some((name, add_module_f32_first(at_zero)))
    }
}
