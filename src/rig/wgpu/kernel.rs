//! A kernel of the GPU backend, described by value: which generated module it is, and
//! which forms it has. [`Gpu::run`](super::Gpu::run) compiles each form once per device
//! (keyed by [`Kernel::key`]) and picks one a piece.

use crate::dtype::DType;
use crate::wgsl::{
    add_module, add_module_f32_first, add_module_flat4, cast_module, cast_module_flat4,
    transfer_module, Native,
};

/// A kernel over two operands (source, destination) or three (source, destination,
/// second source), one invocation an element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// Elements `bits` wide moved bit for bit (the strided blit).
    Transfer { bits: u32 },
    /// Elements of `from` converted into `to` (the dtype table's one rounding).
    Cast { from: DType, to: DType },
    /// `out = x + y` of `dtype`, with the device's `native` types.
    Add { dtype: DType, native: Native },
    /// float32 `out = x + y` by native sums alone, walked: the probe of whether they are
    /// exact on subnormals.
    ProbeAdd,
}

/// The forms a piece runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// The general form: any layouts, walked (`shaders/` per kernel).
    Walked,
    /// The contiguous form (`shaders/flat4.wgsl`): 32-bit operands, C-contiguous, four
    /// elements an invocation; `at_zero` where every operand starts its window.
    Flat4 { at_zero: bool },
}

impl Kernel {
    /// The native types of the probe's add.
    const PROBE: Native = Native {
        f32: true,
        f32_exact: true,
        ..Native::NONE
    };

    /// The name its compiled forms are kept under (per form, see [`Kernel::form_key`]).
    pub(crate) fn key(&self) -> String {
        match self {
            Kernel::Transfer { bits } => format!("transfer{bits}"),
            Kernel::Cast { from, to } => format!("cast {from} {to}"),
            Kernel::Add { dtype, native } => format!("add {dtype} {native:?}"),
            Kernel::ProbeAdd => "probe: native float32 add".into(),
        }
    }

    /// The name of `form`'s pipeline.
    pub(crate) fn form_key(&self, form: Form) -> String {
        match form {
            Form::Walked => self.key(),
            Form::Flat4 { at_zero: true } => format!("{} flat4 at 0", self.key()),
            Form::Flat4 { at_zero: false } => format!("{} flat4", self.key()),
        }
    }

    /// True where the kernel has the contiguous form (every operand 32 bits wide).
    pub(crate) fn has_flat4(&self) -> bool {
        match self {
            Kernel::Transfer { .. } | Kernel::ProbeAdd => false,
            Kernel::Cast { from, to } => from.bits() == 32 && to.bits() == 32,
            Kernel::Add { dtype, .. } => dtype.bits() == 32,
        }
    }

    /// The WGSL of `form`.
    ///
    /// # Panics
    /// For [`Form::Flat4`] of a kernel without it (see [`Kernel::has_flat4`]): an nxrig
    /// bug.
    pub(crate) fn module(&self, form: Form) -> String {
        let flat4 =
            |m: Option<String>| m.expect("nxrig bug: a contiguous form of a kernel without one");
        match (self, form) {
            (Kernel::Transfer { bits }, Form::Walked) => transfer_module(*bits),
            (Kernel::Cast { from, to }, Form::Walked) => cast_module(*from, *to),
            (Kernel::Cast { from, to }, Form::Flat4 { at_zero }) => {
                flat4(cast_module_flat4(*from, *to, at_zero))
            }
            (Kernel::Add { dtype, native }, Form::Walked) => add_module(*dtype, *native),
            (Kernel::Add { dtype, native }, Form::Flat4 { at_zero }) => {
                flat4(add_module_flat4(*dtype, *native, at_zero))
            }
            (Kernel::ProbeAdd, Form::Walked) => add_module(DType::Float32, Kernel::PROBE),
            (Kernel::Transfer { .. } | Kernel::ProbeAdd, Form::Flat4 { .. }) => flat4(None),
        }
    }

    /// The cheaper first pass of `form` where the kernel has one: float32 add where the
    /// device's native sums are not trusted on subnormals runs them first and raises a
    /// flag where one may be wrong; the full form then runs only over pieces whose flag
    /// is up (`indirect.rs`). Its pipeline's name and WGSL.
    pub(crate) fn first_pass(&self, form: Form) -> Option<(String, String)> {
        let Form::Flat4 { at_zero } = form else {
            return None;
        };
        match self {
            Kernel::Add { dtype, native }
                if *dtype == DType::Float32 && native.f32 && !native.f32_exact =>
            {
                let name = format!("{} first{}", self.key(), if at_zero { " at 0" } else { "" });
                Some((name, add_module_f32_first(at_zero)))
            }
            _ => None,
        }
    }
}
