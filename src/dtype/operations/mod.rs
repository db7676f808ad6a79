//! The table of nxrig's elementwise operations besides add and select: a row an
//! operation, the one place each fact of it is written. A row gives the operation's
//! names (its function, its `_into`, its [`Operation`] variant), its operands (one or
//! two), its result (the operands' dtype, or bool), the words of its refusal, a line
//! for JavaScript's types, and its meaning for each class of dtype: the host's Rust
//! expression, the WGSL expression, and `none` where the class does not take it (the
//! refusal). Everything else follows from the rows: the [`Operation`] enum and its
//! facts, the host's typed loops (`lanes::op_loops`), the WGSL modules
//! (`wgsl::ops`), the public functions (`kernels::ops`), JavaScript's exports
//! (`web::ops`), the sections of `js/index.js` and `js/index.d.ts` that
//! `tests/operations_table.rs` writes and the section of CUDA's `nx_ops.cu` that
//! `kernels::cuda_section`'s test writes. CONTRIBUTING's "Adding an operation" is the recipe.
//!
//! The fields of a row, in order:
//! - the Rust documentation of the function into a fresh array, then the variant, the
//!   function, its `_into`, the operands' names (`(x, y)` or `(x)`) and the result:
//!   `same` (the operands' dtype) or `bool`;
//! - `what`: the result in words (`_into`'s documentation); `verb`: the operation in
//!   a refusal ("float8_e4m3fn has no division"); `js`: JavaScript's line;
//! - `float`: `[values { .. }]`, an expression of two float32 or float64 values `x`
//!   and `y` (the narrow floats computed as float32 and rounded once back), or
//!   `[bits(sign) { .. }]`, of every float's raw bits `x` and its sign bit `sign`;
//!   `int`: `[{ .. }]` of two integers of the dtype's Rust type (wrapped into 4 bits
//!   for int4 and uint4); `bool`: of two `bool`s; `complex`: `[parts]` (the float
//!   expression on each part) or an expression of two `[f32; 2]` or `[f64; 2]`; each
//!   may be `[none]`. The helpers they call are `lanes::arith`'s (`difference`,
//!   `maximum`, `floor_div`, ...).
//! - `wgsl_float`: a WGSL expression of raw bits `a`, `b` (`vec2<u32>`, low word
//!   first) and the format `f`; `wgsl_int`: of `a`, `b`, the width `w` and `signed`;
//!   `wgsl_bool`: of `x`, `y` (`bool`); `wgsl_complex`: `parts`, a pair
//!   `(re, im)` or a comparison of `ar`, `ai`, `br`, `bi`, `f`; or `none`. Their
//!   functions are `shaders/ops_float.wgsl`'s and `ops_int.wgsl`'s.
//! - `cuda_float`: C over `double`s `x`, `y` (the operands' values) as `(values ..)`,
//!   the result rounded once (a comparison's, bool); `(picks ..)`, the raw bits of the
//!   result from `va`, `vb` (the operands' bits) and `x`, `y`; `(bits ..)`, of `va`
//!   and `sign` alone (no NaN rule); `cuda_int`: C over `ua`, `ub` (the bits,
//!   `uint64_t`), `sa`, `sb` (their signed values), `s` (signed or not), the result
//!   wrapped to the width; `cuda_bool`: C over `int`s `x`, `y`; `cuda_complex`: `parts`,
//!   `(compare ..)` of `re` and `im` (the float comparison of each part), `(call ..)`
//!   a function of `nx_ops.cu`, or `none`. The helpers they call are `nx_ops.cu`'s.
//! - `first`: float32's native operator of the GPU's first pass (`"-"`, `"*"`,
//!   `"/"`: `wgsl::first_pass`), or `none`.

use super::Class;
use super::DType;

mod rows;

pub(crate) use rows::with_operations;

/// The rows as the macros that read them take them: a group a row,
/// `($variant $name $name_into ($x, $y) $result [#[doc]...] $what $verb $js $float
/// $int $bool $complex [$wgsl_float $wgsl_int $wgsl_bool $wgsl_complex] [$cuda_float
/// $cuda_int $cuda_bool $cuda_complex] $first)`, so
/// that each reader matches one short pattern.
macro_rules! parsed {
    ($m:ident; $(
        $(#[$doc:meta])*
        $v:ident $name:ident $into:ident ($($arg:ident),+) -> $res:ident {
            what: $what:literal,
            verb: $verb:literal,
            js: $js:literal,
            float: $float:tt,
            int: $int:tt,
            bool: $bool:tt,
            complex: $complex:tt,
            wgsl_float: $wf:tt,
            wgsl_int: $wi:tt,
            wgsl_bool: $wb:tt,
            wgsl_complex: $wc:tt,
            cuda_float: $cf:tt,
            cuda_int: $ci:tt,
            cuda_bool: $cb:tt,
            cuda_complex: $cc:tt,
            first: $first:tt,
        }
    )*) => {
        $m! {$(
            ($v $name $into ($($arg),+) $res [$(#[$doc])*] $what $verb $js
                $float $int $bool $complex [$wf $wi $wb $wc] [$cf $ci $cb $cc] $first)
        )*}
    };
}
pub(crate) use parsed;

/// What a WGSL module computes of a complex dtype.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ComplexWgsl {
    /// Not taken.
    None,
    /// The float expression on each part.
    Parts,
    /// The real and imaginary parts, expressions of `ar`, `ai`, `br`, `bi`, `f`.
    Pair(&'static str, &'static str),
    /// A comparison of `ar`, `ai`, `br`, `bi`, `f`.
    Compare(&'static str),
}

/// What CUDA computes of a float dtype (`cuda_float`).
#[derive(Clone, Copy, Debug)]
#[allow(dead_code)] // read where `nx_ops.cu`'s section is written (a test)
pub(crate) enum CudaFloat {
    /// Of the values `x`, `y`, rounded once (a comparison's bool).
    Values(&'static str),
    /// The raw bits of the result, of `va`, `vb`, `x`, `y`.
    Picks(&'static str),
    /// The raw bits of the result, of `va` and `sign` (no NaN rule).
    Bits(&'static str),
}

/// What CUDA computes of a complex dtype (`cuda_complex`).
#[derive(Clone, Copy, Debug)]
#[allow(dead_code)] // read where `nx_ops.cu`'s section is written (a test)
pub(crate) enum CudaComplex {
    /// Not taken.
    None,
    /// The float operation on each part.
    Parts,
    /// Of `re` and `im`, the float comparison of each part.
    Compare(&'static str),
    /// A function of `nx_ops.cu` taking the dtype and the operands' bytes.
    Call(&'static str),
}

/// A row's facts as data (its Rust expressions are code: `lanes::op_loops`).
#[derive(Debug)]
pub(crate) struct Row {
    pub(crate) name: &'static str,
    pub(crate) name_into: &'static str,
    pub(crate) arity: usize,
    pub(crate) compares: bool,
    pub(crate) verb: &'static str,
    pub(crate) js: &'static str,
    /// Which classes take it: float, integers, bool, complex.
    pub(crate) takes: [bool; 4],
    pub(crate) wgsl_float: Option<&'static str>,
    pub(crate) wgsl_int: Option<&'static str>,
    pub(crate) wgsl_bool: Option<&'static str>,
    pub(crate) wgsl_complex: ComplexWgsl,
    // CUDA's expressions are read where `nx_ops.cu`'s section is written: a test
    // (`kernels::cuda_section`), since NVRTC and the host's C compile the file.
    #[allow(dead_code)]
    pub(crate) cuda_float: Option<CudaFloat>,
    #[allow(dead_code)]
    pub(crate) cuda_int: Option<&'static str>,
    #[allow(dead_code)]
    pub(crate) cuda_bool: Option<&'static str>,
    #[allow(dead_code)]
    pub(crate) cuda_complex: CudaComplex,
    pub(crate) first: Option<&'static str>,
}

macro_rules! taken {
    ([none]) => {
        false
    };
    ($($t:tt)*) => {
        true
    };
}

macro_rules! expr_of {
    (none) => {
        None
    };
    ($s:literal) => {
        Some($s)
    };
}

macro_rules! complex_wgsl {
    (none) => {
        ComplexWgsl::None
    };
    (parts) => {
        ComplexWgsl::Parts
    };
    (($re:literal, $im:literal)) => {
        ComplexWgsl::Pair($re, $im)
    };
    ($c:literal) => {
        ComplexWgsl::Compare($c)
    };
}

macro_rules! cuda_float {
    (none) => {
        None
    };
    ((values $e:literal)) => {
        Some(CudaFloat::Values($e))
    };
    ((picks $e:literal)) => {
        Some(CudaFloat::Picks($e))
    };
    ((bits $e:literal)) => {
        Some(CudaFloat::Bits($e))
    };
}

macro_rules! cuda_complex {
    (none) => {
        CudaComplex::None
    };
    (parts) => {
        CudaComplex::Parts
    };
    ((compare $e:literal)) => {
        CudaComplex::Compare($e)
    };
    ((call $f:literal)) => {
        CudaComplex::Call($f)
    };
}

macro_rules! compares {
    (same) => {
        false
    };
    (bool) => {
        true
    };
}

macro_rules! enum_and_rows {
    ($(($v:ident $name:ident $into:ident ($($arg:ident),+) $res:ident $doc:tt $what:literal
        $verb:literal $js:literal $float:tt $int:tt $bool:tt $complex:tt
        [$wf:tt $wi:tt $wb:tt $wc:tt] [$cf:tt $ci:tt $cb:tt $cc:tt] $first:tt))*) => {
        /// nxrig's elementwise operations besides add and select, a variant a row of
        /// the table (`src/dtype/operations.rs`): each is the function of its name in
        /// [`crate::kernels`], and its `_into`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Operation {
            $(#[doc = $what] $v,)*
        }

        const ROWS: &[Row] = &[$(Row {
            name: stringify!($name),
            name_into: stringify!($into),
            arity: [$(stringify!($arg)),+].len(),
            compares: compares!($res),
            verb: $verb,
            js: $js,
            takes: [taken!($float), taken!($int), taken!($bool), taken!($complex)],
            wgsl_float: expr_of!($wf),
            wgsl_int: expr_of!($wi),
            wgsl_bool: expr_of!($wb),
            wgsl_complex: complex_wgsl!($wc),
            cuda_float: cuda_float!($cf),
            cuda_int: expr_of!($ci),
            cuda_bool: expr_of!($cb),
            cuda_complex: cuda_complex!($cc),
            first: expr_of!($first),
        },)*];

        impl Operation {
            /// Every operation, in the table's order.
            pub const ALL: &'static [Operation] = &[$(Operation::$v),*];
        }
    };
}

with_operations!(enum_and_rows);

impl Operation {
    /// The operation's row.
    pub(crate) fn row(self) -> &'static Row {
        &ROWS[self as usize]
    }

    /// The function's name (`"sub"`; JavaScript's too).
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The name of the function that stores into an array given (`"sub_into"`).
    pub fn name_into(self) -> &'static str {
        self.row().name_into
    }

    /// How many operands it reads: 1 or 2.
    pub fn arity(self) -> usize {
        self.row().arity
    }

    /// Whether its result is bool (the comparisons), else of the operands' dtype.
    pub fn compares(self) -> bool {
        self.row().compares
    }

    /// The dtype of its result from operands of dtype `d`.
    pub fn result(self, d: DType) -> DType {
        if self.compares() {
            DType::Bool
        } else {
            d
        }
    }

    /// Whether operands of dtype `d` take it (an operation a dtype does not take is
    /// refused naming the function).
    pub fn takes(self, d: DType) -> bool {
        let k = match d.class() {
            Class::Float => 0,
            Class::Signed | Class::Unsigned => 1,
            Class::Bool => 2,
            Class::Complex => 3,
        };
        self.row().takes[k]
    }

    /// The operation in a refusal's words ("subtraction").
    pub fn verb(self) -> &'static str {
        self.row().verb
    }

    /// One line of what it computes (JavaScript's documentation), with the classes
    /// that do not take it ("Not bool or complex.").
    pub fn summary(self) -> String {
        let not: Vec<&str> = ["floats", "integers", "bool", "complex"]
            .into_iter()
            .zip(self.row().takes)
            .filter(|&(_, t)| !t)
            .map(|(n, _)| n)
            .collect();
        match not.as_slice() {
            [] => self.row().js.to_owned(),
            [one] => format!("{} Not {one}.", self.row().js),
            [init @ .., last] => format!("{} Not {} or {last}.", self.row().js, init.join(", ")),
        }
    }

    /// The operation of the function `name` (`"sub"`), if any.
    pub fn of_name(name: &str) -> Option<Operation> {
        Operation::ALL.iter().copied().find(|o| o.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rows_are_in_the_enums_order_and_their_wgsl_and_cuda_follow_what_they_take() {
        for (i, &o) in Operation::ALL.iter().enumerate() {
            assert_eq!(o as usize, i);
            let r = o.row();
            let wgsl = [
                r.wgsl_float.is_some(),
                r.wgsl_int.is_some(),
                r.wgsl_bool.is_some(),
                !matches!(r.wgsl_complex, ComplexWgsl::None),
            ];
            let cuda = [
                r.cuda_float.is_some(),
                r.cuda_int.is_some(),
                r.cuda_bool.is_some(),
                !matches!(r.cuda_complex, CudaComplex::None),
            ];
            assert_eq!((wgsl, cuda), (r.takes, r.takes), "{o:?}");
        }
        assert_eq!(Operation::Div.summary(), "`x / y`: floats rounded once; integers floor-divide as NumPy's `//` (`x / 0` is 0). Not bool or complex.");
        assert_eq!(Operation::of_name("ge"), Some(Operation::Ge));
    }
}
