//! The dtypes' variants as lists for macros: `every_dtype!` (every dtype, in code
//! order: the typed loops' dispatch) and `minifloats!` (the floats of 8 bits or fewer),
//! each checked against the table when the crate compiles.

use super::table::{Class, DType};

/// `$m!(ARGS Float16 Bfloat16 ... Bool Float8E4m3 ...)`: the macro `$m` given every
/// dtype's variant, in code order, after its arguments (the typed loops' dispatch over
/// every dtype).
macro_rules! every_dtype {
    ($m:ident!($($args:tt)*)) => {
        $m!($($args)* Float16 Bfloat16 Float8E4m3fn Float8E5m2 Float32 Float64 Int4 Uint4 Int8
            Uint8 Int16 Uint16 Int32 Uint32 Int64 Uint64 Complex64 Complex128 Bool Float8E4m3
            Float8E3m4 Float8E4m3fnuz Float8E5m2fnuz Float8E4m3b11fnuz Float8E8m0fnu
            Float8E5m3fnu Float4E2m1fn Float6E2m3fn Float6E3m2fn Int2 Uint2 Int1 Uint1 Complex32
            Bcomplex32)
    };
}
pub(crate) use every_dtype;

/// `$m!(ARGS Float8E4m3fn Float8E5m2 ...)`: the macro `$m` given the variant of every
/// dtype whose format is a float of 8 bits or fewer (held in a byte or less), a minifloat (its lane is
/// `lanes::kinds::Minifloat<CODE>`).
macro_rules! minifloats {
    ($m:ident!($($args:tt)*)) => {
        $m! { $($args)* Float8E4m3fn Float8E5m2 Float8E4m3 Float8E3m4 Float8E4m3fnuz
            Float8E5m2fnuz Float8E4m3b11fnuz Float8E8m0fnu Float8E5m3fnu Float4E2m1fn Float6E2m3fn
            Float6E3m2fn }
    };
}
pub(crate) use minifloats;

// `minifloats!` lists exactly the dtypes of a float format of 8 bits or fewer.
const _: () = {
    macro_rules! listed {
        ($($d:ident)*) => {
            [$(DType::$d),*]
        };
    }
    let l = minifloats!(listed!());
    let mut i = 0;
    let mut n = 0;
    while i < DType::ALL.len() {
        let r = DType::ALL[i].row();
        if let (Class::Float, 4 | 8) = (r.class, r.bits) {
            let mut j = 0;
            while l[j] as usize != i {
                j += 1; // out of bounds (a compile error) where it is not listed
            }
            n += 1;
        }
        i += 1;
    }
    assert!(n == l.len());
};

// `every_dtype!` lists the table's dtypes, in its order.
const _: () = {
    macro_rules! listed {
        ($($d:ident)*) => {
            [$(DType::$d),*]
        };
    }
    let l = every_dtype!(listed!());
    assert!(l.len() == DType::ALL.len());
    let mut i = 0;
    while i < l.len() {
        assert!(l[i] as usize == i);
        i += 1;
    }
};
