//! The host's meaning of every operation of the table (`dtype/operations/rows.rs`) over
//! every lane, written from the rows' Rust expressions: a type an operation (`op::Sub`,
//! ...) implementing [`Apply`] for each lane of each class its row takes, and the
//! dispatch from an operation and a dtype to its loop (`arith_loops.rs`). The lanes of
//! each class are listed here once; an operation adds no line.

use super::arith::*;
use super::arith_loops::{
    computes_wide, narrow_loop, native_loop, Apply, BinRun, Computes, Pick, Through,
};
use super::kinds::*;
use super::Lane;
use crate::dtype::operations::{with_operations, Operation};
use crate::dtype::{DType, Specials};

/// The result lane of an operation of `same` or `bool` result over lane `L`.
macro_rules! out {
    (same, $l:ty) => {
        $l
    };
    (bool, $l:ty) => {
        Bool
    };
}

/// The function `apply` of two values `$a`, `$b` of `$t` (a unary operation's ignores
/// the second) into `$o`: `$e`.
macro_rules! apply_fn {
    (($x:ident, $y:ident), $t:ty, $o:ty, |$a:ident, $b:ident| $e:expr) => {
        #[inline(always)]
        fn apply($a: $t, $b: $t) -> $o {
            $e
        }
    };
    (($x:ident), $t:ty, $o:ty, |$a:ident, $b:ident| $e:expr) => {
        #[inline(always)]
        fn apply($a: $t, _: $t) -> $o {
            $e
        }
    };
}

/// A result of `same` or `bool` result as the output lane's value (`$wrap` applied to
/// a `same` one).
macro_rules! result {
    (same, $r:ident, $wrap:expr, $e:expr) => {{
        let $r = $e;
        $wrap
    }};
    (bool, $r:ident, $wrap:expr, $e:expr) => {
        ($e) as u8
    };
}

/// Binds the row's operand names to the values `a` (and `b`).
macro_rules! bind {
    (($x:ident, $y:ident), $a:expr, $b:expr) => {
        let ($x, $y) = ($a, $b);
    };
    (($x:ident), $a:expr, $b:expr) => {
        let $x = $a;
    };
}

/// float32 and float64 (`Real`), and the narrow floats' bits where the row reads bits.
macro_rules! floats {
    ($v:ident $args:tt $res:ident [none]) => {};
    ($v:ident $args:tt $res:ident [values $body:block]) => {
        floats!(@values $v $args $res $body Float32 f32);
        floats!(@values $v $args $res $body Float64 f64);
    };
    (@values $v:ident $args:tt $res:ident $body:block $l:ident $t:ident) => {
        impl Apply<$l> for op::$v {
            type Out = out!($res, $l);
            apply_fn!($args, $t, <out!($res, $l) as Lane>::T, |a, b| {
                bind!($args, a, b);
                result!($res, r, r, $body)
            });
        }
    };
    ($v:ident ($($arg:ident),+) $res:ident [bits($sign:ident) $body:block]) => {
        floats!(@bits $v ($($arg),+) $sign $body Float32 f32 u32 0x8000_0000u32);
        floats!(@bits $v ($($arg),+) $sign $body Float64 f64 u64 0x8000_0000_0000_0000u64);
        floats!(@raw $v ($($arg),+) $sign $body Float16 u16 0x8000u16);
        floats!(@raw $v ($($arg),+) $sign $body Bfloat16 u16 0x8000u16);
        impl<const CODE: u8> Apply<Minifloat<CODE>> for op::$v {
            type Out = Minifloat<CODE>;
            apply_fn!(($($arg),+), u8, u8, |a, b| {
                bind!(($($arg),+), a, b);
                // A format without -0 has no sign to flip or clear where the magnitude
                // is zero (its +0, and its NaN at the -0 pattern). An unsigned one's
                // "sign" is every bit the value lacks: `-x` is then its NaN (every bit
                // set), `|x|` is `x`; none at its zero (`-0` is 0).
                let sign = Minifloat::<CODE>::FORMAT.sign_bit() as u8;
                let $sign = match Minifloat::<CODE>::FORMAT.specials {
                    Specials::NegZeroNan if a & (sign - 1) == 0 => 0,
                    Specials::Unsigned if a == 0 => 0,
                    Specials::UnsignedNoZero | Specials::Unsigned => !a,
                    _ => sign,
                };
                $body
            });
        }
    };
    (@bits $v:ident ($($arg:ident),+) $sign:ident $body:block $l:ident $t:ident $bt:ident $s:tt) => {
        impl Apply<$l> for op::$v {
            type Out = $l;
            apply_fn!(($($arg),+), $t, $t, |a, b| {
                bind!(($($arg),+), a.to_bits(), b.to_bits());
                let $sign: $bt = $s;
                <$t>::from_bits($body)
            });
        }
    };
    (@raw $v:ident ($($arg:ident),+) $sign:ident $body:block $l:ident $bt:ident $s:tt) => {
        impl Apply<$l> for op::$v {
            type Out = $l;
            apply_fn!(($($arg),+), $bt, $bt, |a, b| {
                bind!(($($arg),+), a, b);
                let $sign: $bt = $s;
                $body
            });
        }
    };
}

/// The integer lanes: each of its Rust type, a `same` result wrapped to its width
/// ([`Lane::wrap`]).
macro_rules! ints {
    ($v:ident $args:tt $res:ident [none]) => {};
    ($v:ident $args:tt $res:ident [$body:block]) => {
        ints!(@one $v $args $res $body Int4 i8);
        ints!(@one $v $args $res $body Uint4 u8);
        ints!(@one $v $args $res $body Int2 i8);
        ints!(@one $v $args $res $body Uint2 u8);
        ints!(@one $v $args $res $body Int1 i8);
        ints!(@one $v $args $res $body Uint1 u8);
        ints!(@one $v $args $res $body Int8 i8);
        ints!(@one $v $args $res $body Uint8 u8);
        ints!(@one $v $args $res $body Int16 i16);
        ints!(@one $v $args $res $body Uint16 u16);
        ints!(@one $v $args $res $body Int32 i32);
        ints!(@one $v $args $res $body Uint32 u32);
        ints!(@one $v $args $res $body Int64 i64);
        ints!(@one $v $args $res $body Uint64 u64);
    };
    (@one $v:ident $args:tt $res:ident $body:block $l:ident $t:ident) => {
        impl Apply<$l> for op::$v {
            type Out = out!($res, $l);
            apply_fn!($args, $t, <out!($res, $l) as Lane>::T, |a, b| {
                bind!($args, a, b);
                result!($res, r, <$l as Lane>::wrap(r), $body)
            });
        }
    };
}

/// bool: its operands as `bool`s (any nonzero byte true), its results 0 or 1.
macro_rules! bools {
    ($v:ident $args:tt $res:ident [none]) => {};
    ($v:ident $args:tt $res:ident [$body:block]) => {
        impl Apply<Bool> for op::$v {
            type Out = Bool;
            apply_fn!($args, u8, u8, |a, b| {
                bind!($args, a != 0, b != 0);
                ($body) as u8
            });
        }
    };
}

/// The complex lanes: the float expression on each part, or the row's own.
macro_rules! complexes {
    ($v:ident $args:tt $res:ident [none] $float:tt) => {};
    // An operation on each part's bits (neg): complex32's and bcomplex32's parts too,
    // bit for bit as float16's and bfloat16's (not through complex64, which would quiet
    // a signalling NaN).
    ($v:ident $args:tt $res:ident [parts] [bits $($b:tt)*]) => {
        complexes!(@parts $v Complex64 f32 Float32);
        complexes!(@parts $v Complex128 f64 Float64);
        complexes!(@parts $v Complex32 u16 Float16);
        complexes!(@parts $v Bcomplex32 u16 Bfloat16);
    };
    ($v:ident $args:tt $res:ident [parts] $float:tt) => {
        complexes!(@parts $v Complex64 f32 Float32);
        complexes!(@parts $v Complex128 f64 Float64);
    };
    (@parts $v:ident $l:ident $t:ident $part:ident) => {
        impl Apply<$l> for op::$v {
            type Out = $l;
            #[inline(always)]
            fn apply(a: [$t; 2], b: [$t; 2]) -> [$t; 2] {
                [
                    <op::$v as Apply<$part>>::apply(a[0], b[0]),
                    <op::$v as Apply<$part>>::apply(a[1], b[1]),
                ]
            }
        }
    };
    ($v:ident $args:tt $res:ident [$body:block] $float:tt) => {
        complexes!(@own $v $args $res $body Complex64 f32);
        complexes!(@own $v $args $res $body Complex128 f64);
    };
    (@own $v:ident $args:tt $res:ident $body:block $l:ident $t:ident) => {
        impl Apply<$l> for op::$v {
            type Out = out!($res, $l);
            apply_fn!($args, [$t; 2], <out!($res, $l) as Lane>::T, |a, b| {
                bind!($args, a, b);
                result!($res, r, r, $body)
            });
        }
    };
}

/// The loop of `$v` over lane `$l` of a class whose row field is `$field`: `None` where
/// the class does not take it; the narrow floats' through float32 where the row
/// computes on values; complex32's and bcomplex32's through complex64 (as ml_dtypes
/// computes them), each part rounded once, but where each part's bits are the float's
/// (`$fields`: the row's complex and float fields).
macro_rules! loop_of {
    ($k:ident $l:ty, $v:ident, [none]) => {
        None
    };
    (narrow $l:ty, $v:ident, [values $b:block]) => {
        Some(narrow_loop::<$l, <$l as Computes>::In, op::$v>())
    };
    (complex32 $l:ty, $v:ident, ([none] $float:tt)) => {
        None
    };
    (complex32 $l:ty, $v:ident, ([parts] [bits $($b:tt)*])) => {
        Some(native_loop::<$l, op::$v>())
    };
    (complex32 $l:ty, $v:ident, $fields:tt) => {
        Some(narrow_loop::<$l, Complex64, op::$v>())
    };
    ($k:ident $l:ty, $v:ident, $field:tt) => {
        Some(native_loop::<$l, op::$v>())
    };
}

/// A lane's loops of the operations.
trait Loops: Lane {
    fn loop_of(op: Operation) -> Option<BinRun>;
}

macro_rules! host_loops {
    ($(($v:ident $name:ident $into:ident ($($arg:ident),+) $res:ident $doc:tt $what:literal
        $verb:literal $js:literal $float:tt $int:tt $bool:tt $complex:tt $wgsl:tt $cuda:tt
        $first:tt))*) => {
        /// The operations, a type each.
        mod op {
            $(pub(super) struct $v;)*
        }
        $(
            floats!($v ($($arg),+) $res $float);
            ints!($v ($($arg),+) $res $int);
            bools!($v ($($arg),+) $res $bool);
            complexes!($v ($($arg),+) $res $complex $float);
        )*
        host_loops!(@class narrow: Float16 Bfloat16; { $($v $float)* });
        crate::dtype::variants::minifloats!(host_loops!(@minifloats { $($v $float)* }));
        host_loops!(@class native: Float32 Float64; { $($v $float)* });
        host_loops!(@class native: Int4 Uint4 Int2 Uint2 Int1 Uint1 Int8 Uint8 Int16 Uint16 Int32 Uint32 Int64 Uint64; { $($v $int)* });
        host_loops!(@class native: Bool; { $($v $bool)* });
        host_loops!(@class native: Complex64 Complex128; { $($v $complex)* });
        host_loops!(@class complex32: Complex32 Bcomplex32; { $($v ($complex $float))* });
    };
    (@minifloats $ops:tt $($l:ident)*) => {
        $(host_loops!(@lane narrow $l $ops);)*
    };
    (@class $k:ident: $($l:ident)*; $ops:tt) => {
        $(host_loops!(@lane $k $l $ops);)*
    };
    (@lane $k:ident $l:ident { $($v:ident $field:tt)* }) => {
        impl Loops for $l {
            fn loop_of(o: Operation) -> Option<BinRun> {
                match o {
                    $(Operation::$v => loop_of!($k $l, $v, $field),)*
                }
            }
        }
    };
}

impl Computes for Float16 {
    type In = Float32;
}

impl Computes for Bfloat16 {
    type In = Float32;
}

/// Each minifloat lane's [`Computes`], from its format.
macro_rules! minifloat_computes {
    ($($d:ident)*) => {
        $(
            impl Computes for $d {
                type In = <Through<{ computes_wide($d::FORMAT) }> as Pick>::Lane;
            }
        )*
    };
}

crate::dtype::variants::minifloats!(minifloat_computes!());

with_operations!(host_loops);

macro_rules! each {
    ($d:expr, $op:expr, $($l:ident)*) => {
        match $d {
            $(DType::$l => <$l as Loops>::loop_of($op),)*
        }
    };
}

/// The loop of `op` over dtype `d`, or `None` where `d` does not take `op`
/// ([`Operation::takes`]).
pub(crate) fn binary_run(op: Operation, d: DType) -> Option<BinRun> {
    crate::dtype::variants::every_dtype!(each!(d, op,))
}
