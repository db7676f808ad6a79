//! Typed element loops: every dtype as a Rust type ("lane"), every conversion between
//! two dtypes as one loop over typed slices, generic over the pair and monomorphized
//! for each of the 19 x 19, which the compiler vectorizes (no dispatch on the dtype
//! per element, no 128-bit patterns). Each conversion rounds once, to nearest even
//! (see [`encode`]), and equals [`super::convert_bits`] bit for bit: the tests check
//! every pair against the oracle vectors, contiguous and strided. Seed: `Nx_array`
//! § Dtypes (conversions); DESIGN.md decision 13.
//!
//! Sub-byte dtypes load as one `i8`/`u8` a nibble and store packed; bool loads as
//! 0 or 1 (any nonzero byte is true).

mod decode;
mod encode;
mod sum;
pub(crate) mod tier;

pub(crate) use sum::{adder, Operand};

use super::DType;
use decode::{bf16_to_f32, e4m3_to_f32, e5m2_to_f32, f16_to_f32};
use encode::*;

/// A dtype as a Rust type: its unpacked element `T`, how runs of it load from and
/// store into little-endian bytes, and how a value of another dtype becomes one.
pub(crate) trait Lane: 'static {
    /// One element, unpacked.
    type T: bytemuck::Pod + Default;
    /// The dtype.
    const DT: DType;

    /// `out.len()` elements from element positions `pos + i * stride` of `bytes`.
    fn load(bytes: &[u8], pos: usize, stride: isize, out: &mut [Self::T]);
    /// `vals` into element positions `pos + i * stride` of `bytes`.
    fn store(bytes: &mut [u8], pos: usize, stride: isize, vals: &[Self::T]);

    /// A float32 (or narrower float) value.
    fn from_f32(x: f32) -> Self::T;
    /// A float64 value.
    fn from_f64(x: f64) -> Self::T;
    /// A 64-bit integer.
    fn from_i64(x: i64) -> Self::T;
    /// An unsigned 64-bit integer.
    fn from_u64(x: u64) -> Self::T;
    /// A 32-bit integer.
    fn from_i32(x: i32) -> Self::T {
        Self::from_i64(x as i64)
    }
    /// An integer below 2^24 in magnitude (from 16-bit and narrower integers and bool),
    /// exact in float32.
    fn from_small(x: i32) -> Self::T;
    /// A complex64 value (real dtypes keep the real part).
    fn from_c64(re: f32, _im: f32) -> Self::T {
        Self::from_f32(re)
    }
    /// A complex128 value (real dtypes keep the real part).
    fn from_c128(re: f64, _im: f64) -> Self::T {
        Self::from_f64(re)
    }
    /// This dtype's element `x` as dtype `D`'s.
    fn put<D: Lane>(x: Self::T) -> D::T;
}

/// The position `pos + i * stride`.
#[inline(always)]
fn at(pos: usize, stride: isize, i: usize) -> usize {
    (pos as isize + i as isize * stride) as usize
}

/// Loads and stores of a dtype of whole bytes: little-endian `T`s.
macro_rules! bytes_io {
    () => {
        #[inline(always)]
        fn load(bytes: &[u8], pos: usize, stride: isize, out: &mut [Self::T]) {
            let w = std::mem::size_of::<Self::T>();
            if stride == 1 {
                let n = out.len();
                bytemuck::cast_slice_mut::<_, u8>(out)
                    .copy_from_slice(&bytes[pos * w..(pos + n) * w]);
                return;
            }
            for (i, o) in out.iter_mut().enumerate() {
                let p = at(pos, stride, i) * w;
                *o = bytemuck::pod_read_unaligned(&bytes[p..p + w]);
            }
        }
        #[inline(always)]
        fn store(bytes: &mut [u8], pos: usize, stride: isize, vals: &[Self::T]) {
            let w = std::mem::size_of::<Self::T>();
            if stride == 1 {
                let n = vals.len();
                bytes[pos * w..(pos + n) * w].copy_from_slice(bytemuck::cast_slice(vals));
                return;
            }
            for (i, v) in vals.iter().enumerate() {
                let p = at(pos, stride, i) * w;
                bytes[p..p + w].copy_from_slice(bytemuck::bytes_of(v));
            }
        }
    };
}

/// Loads and stores of a 4-bit dtype: nibbles, low first; `$signed` sign-extends.
/// Contiguous runs go a byte (two elements) at a time.
macro_rules! nibble_io {
    ($signed:expr) => {
        #[inline(always)]
        fn load(bytes: &[u8], pos: usize, stride: isize, out: &mut [Self::T]) {
            let lo = |b: u8| -> Self::T {
                if $signed {
                    (((b << 4) as i8) >> 4) as _
                } else {
                    (b & 15) as _
                }
            };
            let hi = |b: u8| -> Self::T {
                if $signed {
                    ((b as i8) >> 4) as _
                } else {
                    (b >> 4) as _
                }
            };
            if stride == 1 {
                let (mut p, mut out) = (pos, out);
                if p % 2 == 1 && !out.is_empty() {
                    out[0] = hi(bytes[p / 2]);
                    out = &mut out[1..];
                    p += 1;
                }
                let pairs = out.len() / 2;
                let (two, tail) = out.split_at_mut(2 * pairs);
                for (o, &b) in two.chunks_exact_mut(2).zip(&bytes[p / 2..p / 2 + pairs]) {
                    o[0] = lo(b);
                    o[1] = hi(b);
                }
                if let Some(t) = tail.first_mut() {
                    *t = lo(bytes[p / 2 + pairs]);
                }
                return;
            }
            for (i, o) in out.iter_mut().enumerate() {
                let p = at(pos, stride, i);
                let b = bytes[p / 2];
                *o = if p % 2 == 0 { lo(b) } else { hi(b) };
            }
        }
        #[inline(always)]
        fn store(bytes: &mut [u8], pos: usize, stride: isize, vals: &[Self::T]) {
            let put = |bytes: &mut [u8], p: usize, v: Self::T| {
                let shift = (p % 2) * 4;
                let b = &mut bytes[p / 2];
                *b = (*b & !(15 << shift)) | (((v as u8) & 15) << shift);
            };
            if stride == 1 {
                let (mut p, mut vals) = (pos, vals);
                if p % 2 == 1 && !vals.is_empty() {
                    put(bytes, p, vals[0]);
                    vals = &vals[1..];
                    p += 1;
                }
                let pairs = vals.len() / 2;
                let (two, tail) = vals.split_at(2 * pairs);
                for (b, v) in bytes[p / 2..p / 2 + pairs]
                    .iter_mut()
                    .zip(two.chunks_exact(2))
                {
                    *b = ((v[0] as u8) & 15) | ((v[1] as u8) << 4);
                }
                if let Some(&t) = tail.first() {
                    put(bytes, p + 2 * pairs, t);
                }
                return;
            }
            for (i, &v) in vals.iter().enumerate() {
                put(bytes, at(pos, stride, i), v);
            }
        }
    };
}

/// The target side of an integer dtype `$t`: floats truncate and saturate (NaN 0),
/// integers wrap. A float is clamped first (to `$lo..=$hi` for dtypes of 16 bits or
/// fewer; for the wide ones raised to `$lo`, and `MAX` from `$end` up) and converted
/// unchecked, which vectorizes (a saturating `as` does not).
macro_rules! int_target {
    ($t:ty, wide $lo:expr, $end:expr) => {
        #[inline(always)]
        fn from_f32(x: f32) -> $t {
            // wasm's saturating conversion is one vector instruction: `as` is it.
            #[cfg(target_arch = "wasm32")]
            return x as $t;
            #[cfg(not(target_arch = "wasm32"))]
            if x.is_nan() {
                0
            } else if x >= $end {
                <$t>::MAX
            } else {
                // SAFETY: `x` is a number inside the range of the integer (or below
                // it, then raised to its least).
                unsafe { x.max($lo).to_int_unchecked::<$t>() }
            }
        }
        #[inline(always)]
        fn from_f64(x: f64) -> $t {
            #[cfg(target_arch = "wasm32")]
            return x as $t;
            #[cfg(not(target_arch = "wasm32"))]
            if x.is_nan() {
                0
            } else if x >= $end {
                <$t>::MAX
            } else {
                // SAFETY: as above.
                unsafe { x.max($lo).to_int_unchecked::<$t>() }
            }
        }
        int_target!(@ints $t);
    };
    ($t:ty, $lo:expr, $hi:expr) => {
        #[inline(always)]
        fn from_f32(x: f32) -> $t {
            #[cfg(target_arch = "wasm32")]
            return x as $t;
            #[cfg(not(target_arch = "wasm32"))]
            {
                let c = if x.is_nan() { 0.0 } else { x.clamp($lo, $hi) };
                // SAFETY: `c` is finite and inside the range of i32.
                unsafe { c.to_int_unchecked::<i32>() as $t }
            }
        }
        #[inline(always)]
        fn from_f64(x: f64) -> $t {
            #[cfg(target_arch = "wasm32")]
            return x as $t;
            #[cfg(not(target_arch = "wasm32"))]
            {
                let c = if x.is_nan() { 0.0 } else { x.clamp($lo, $hi) };
                // SAFETY: `c` is finite and inside the range of i32.
                unsafe { c.to_int_unchecked::<i32>() as $t }
            }
        }
        int_target!(@ints $t);
    };
    (@ints $t:ty) => {
        #[inline(always)]
        fn from_i64(x: i64) -> $t {
            x as $t
        }
        #[inline(always)]
        fn from_u64(x: u64) -> $t {
            x as $t
        }
        #[inline(always)]
        fn from_i32(x: i32) -> $t {
            x as $t
        }
        #[inline(always)]
        fn from_small(x: i32) -> $t {
            x as $t
        }
    };
}

/// The target side of a narrow float whose float32 encoder is `$enc`.
macro_rules! narrow_target {
    ($t:ty, $enc:ident) => {
        #[inline(always)]
        fn from_f32(x: f32) -> $t {
            $enc(x)
        }
        #[inline(always)]
        fn from_f64(x: f64) -> $t {
            $enc(odd_f32(x))
        }
        #[inline(always)]
        fn from_i64(x: i64) -> $t {
            $enc(odd_f32(odd_f64_of_i64(x)))
        }
        #[inline(always)]
        fn from_u64(x: u64) -> $t {
            $enc(odd_f32(odd_f64_of_u64(x)))
        }
        #[inline(always)]
        fn from_i32(x: i32) -> $t {
            $enc(odd_f32_of_i32(x))
        }
        #[inline(always)]
        fn from_small(x: i32) -> $t {
            $enc(x as f32)
        }
    };
}

macro_rules! lane {
    ($name:ident, $t:ty, $io:ident $(($arg:expr))?, { $($body:tt)* }) => {
        #[doc = concat!("The ", stringify!($name), " lane.")]
        pub(crate) struct $name;
        impl Lane for $name {
            type T = $t;
            const DT: DType = DType::$name;
            $io!($($arg)?);
            $($body)*
        }
    };
}

lane!(Float16, u16, bytes_io, {
    narrow_target!(u16, to_f16);
    #[inline(always)]
    fn put<D: Lane>(x: u16) -> D::T {
        D::from_f32(f16_to_f32(x))
    }
});
lane!(Bfloat16, u16, bytes_io, {
    narrow_target!(u16, to_bf16);
    #[inline(always)]
    fn put<D: Lane>(x: u16) -> D::T {
        D::from_f32(bf16_to_f32(x))
    }
});
lane!(Float8E4m3, u8, bytes_io, {
    narrow_target!(u8, to_e4m3);
    #[inline(always)]
    fn put<D: Lane>(x: u8) -> D::T {
        D::from_f32(e4m3_to_f32(x))
    }
});
lane!(Float8E5m2, u8, bytes_io, {
    narrow_target!(u8, to_e5m2);
    #[inline(always)]
    fn put<D: Lane>(x: u8) -> D::T {
        D::from_f32(e5m2_to_f32(x))
    }
});
lane!(Float32, f32, bytes_io, {
    #[inline(always)]
    fn from_f32(x: f32) -> f32 {
        quiet32(x)
    }
    #[inline(always)]
    fn from_f64(x: f64) -> f32 {
        f64_to_f32(x)
    }
    #[inline(always)]
    fn from_i64(x: i64) -> f32 {
        x as f32
    }
    #[inline(always)]
    fn from_u64(x: u64) -> f32 {
        x as f32
    }
    #[inline(always)]
    fn from_i32(x: i32) -> f32 {
        x as f32
    }
    #[inline(always)]
    fn from_small(x: i32) -> f32 {
        x as f32
    }
    #[inline(always)]
    fn put<D: Lane>(x: f32) -> D::T {
        D::from_f32(x)
    }
});
lane!(Float64, f64, bytes_io, {
    #[inline(always)]
    fn from_f32(x: f32) -> f64 {
        f32_to_f64(x)
    }
    #[inline(always)]
    fn from_f64(x: f64) -> f64 {
        quiet64(x)
    }
    #[inline(always)]
    fn from_i64(x: i64) -> f64 {
        x as f64
    }
    #[inline(always)]
    fn from_u64(x: u64) -> f64 {
        x as f64
    }
    #[inline(always)]
    fn from_i32(x: i32) -> f64 {
        x as f64
    }
    #[inline(always)]
    fn from_small(x: i32) -> f64 {
        x as f64
    }
    #[inline(always)]
    fn put<D: Lane>(x: f64) -> D::T {
        D::from_f64(x)
    }
});
lane!(Int4, i8, nibble_io(true), {
    #[inline(always)]
    fn from_f32(x: f32) -> i8 {
        Int8::from_f32(x.clamp(-8.0, 7.0))
    }
    #[inline(always)]
    fn from_f64(x: f64) -> i8 {
        Int8::from_f64(x.clamp(-8.0, 7.0))
    }
    #[inline(always)]
    fn from_i64(x: i64) -> i8 {
        ((x as i8) << 4) >> 4
    }
    #[inline(always)]
    fn from_u64(x: u64) -> i8 {
        ((x as i8) << 4) >> 4
    }
    #[inline(always)]
    fn from_small(x: i32) -> i8 {
        ((x as i8) << 4) >> 4
    }
    #[inline(always)]
    fn put<D: Lane>(x: i8) -> D::T {
        D::from_small(x as i32)
    }
});
lane!(Uint4, u8, nibble_io(false), {
    #[inline(always)]
    fn from_f32(x: f32) -> u8 {
        Uint8::from_f32(x.clamp(0.0, 15.0))
    }
    #[inline(always)]
    fn from_f64(x: f64) -> u8 {
        Uint8::from_f64(x.clamp(0.0, 15.0))
    }
    #[inline(always)]
    fn from_i64(x: i64) -> u8 {
        (x as u8) & 15
    }
    #[inline(always)]
    fn from_u64(x: u64) -> u8 {
        (x as u8) & 15
    }
    #[inline(always)]
    fn from_small(x: i32) -> u8 {
        (x as u8) & 15
    }
    #[inline(always)]
    fn put<D: Lane>(x: u8) -> D::T {
        D::from_small(x as i32)
    }
});

macro_rules! int_lane {
    ($name:ident, $t:ty, $put:ident, $wide:ty, $($range:tt)*) => {
        lane!($name, $t, bytes_io, {
            int_target!($t, $($range)*);
            #[inline(always)]
            fn put<D: Lane>(x: $t) -> D::T { D::$put(x as $wide) }
        });
    };
}

int_lane!(Int8, i8, from_small, i32, -128.0, 127.0);
int_lane!(Uint8, u8, from_small, i32, 0.0, 255.0);
int_lane!(Int16, i16, from_small, i32, -32768.0, 32767.0);
int_lane!(Uint16, u16, from_small, i32, 0.0, 65535.0);
int_lane!(Int32, i32, from_i32, i32, wide - 2147483648.0, 2147483648.0);
int_lane!(Uint32, u32, from_i64, i64, wide 0.0, 4294967296.0);
int_lane!(
    Int64,
    i64,
    from_i64,
    i64,
    wide - 9223372036854775808.0,
    9223372036854775808.0
);
int_lane!(Uint64, u64, from_u64, u64, wide 0.0, 18446744073709551616.0);

/// A complex dtype of two `$c` parts: a real value is its real part (the imaginary
/// part 0), each part converted as the real lane `$part` converts it.
macro_rules! complex_lane {
    ($name:ident, $c:ty, $part:ident, $put:ident) => {
        lane!($name, [$c; 2], bytes_io, {
            #[inline(always)]
            fn from_f32(x: f32) -> [$c; 2] {
                [$part::from_f32(x), 0.0]
            }
            #[inline(always)]
            fn from_f64(x: f64) -> [$c; 2] {
                [$part::from_f64(x), 0.0]
            }
            #[inline(always)]
            fn from_i64(x: i64) -> [$c; 2] {
                [$part::from_i64(x), 0.0]
            }
            #[inline(always)]
            fn from_u64(x: u64) -> [$c; 2] {
                [$part::from_u64(x), 0.0]
            }
            #[inline(always)]
            fn from_i32(x: i32) -> [$c; 2] {
                [$part::from_i32(x), 0.0]
            }
            #[inline(always)]
            fn from_small(x: i32) -> [$c; 2] {
                [$part::from_small(x), 0.0]
            }
            #[inline(always)]
            fn from_c64(re: f32, im: f32) -> [$c; 2] {
                [$part::from_f32(re), $part::from_f32(im)]
            }
            #[inline(always)]
            fn from_c128(re: f64, im: f64) -> [$c; 2] {
                [$part::from_f64(re), $part::from_f64(im)]
            }
            #[inline(always)]
            fn put<D: Lane>(x: [$c; 2]) -> D::T {
                D::$put(x[0], x[1])
            }
        });
    };
}

complex_lane!(Complex64, f32, Float32, from_c64);
complex_lane!(Complex128, f64, Float64, from_c128);
lane!(Bool, u8, bytes_io, {
    #[inline(always)]
    fn from_f32(x: f32) -> u8 {
        (x != 0.0) as u8
    }
    #[inline(always)]
    fn from_f64(x: f64) -> u8 {
        (x != 0.0) as u8
    }
    #[inline(always)]
    fn from_i64(x: i64) -> u8 {
        (x != 0) as u8
    }
    #[inline(always)]
    fn from_u64(x: u64) -> u8 {
        (x != 0) as u8
    }
    #[inline(always)]
    fn from_small(x: i32) -> u8 {
        (x != 0) as u8
    }
    #[inline(always)]
    fn from_c64(re: f32, im: f32) -> u8 {
        (re != 0.0 || im != 0.0) as u8
    }
    #[inline(always)]
    fn from_c128(re: f64, im: f64) -> u8 {
        (re != 0.0 || im != 0.0) as u8
    }
    #[inline(always)]
    fn put<D: Lane>(x: u8) -> D::T {
        D::from_small((x != 0) as i32)
    }
});

/// Elements a block of the strided and unaligned forms holds.
const BLOCK: usize = 256;

/// A conversion of `n` elements: source bytes, first position and stride (in
/// elements), target bytes, first position and stride.
pub(crate) type Run = fn(&[u8], usize, isize, &mut [u8], usize, isize, usize);

/// Converts `n` elements of lane `S` into lane `D`: straight over typed slices where
/// both runs are contiguous, whole bytes and aligned; otherwise in blocks through
/// aligned buffers.
#[inline(always)]
fn convert_body<S: Lane, D: Lane>(
    s: &[u8],
    s_pos: usize,
    s_stride: isize,
    d: &mut [u8],
    d_pos: usize,
    d_stride: isize,
    n: usize,
) {
    if s_stride == 1 && d_stride == 1 && !S::DT.is_sub_byte() && !D::DT.is_sub_byte() {
        let (sw, dw) = (std::mem::size_of::<S::T>(), std::mem::size_of::<D::T>());
        let sb = &s[s_pos * sw..(s_pos + n) * sw];
        let db = &mut d[d_pos * dw..(d_pos + n) * dw];
        if let (Ok(sv), Ok(dv)) = (
            bytemuck::try_cast_slice::<u8, S::T>(sb),
            bytemuck::try_cast_slice_mut::<u8, D::T>(db),
        ) {
            for (o, &i) in dv.iter_mut().zip(sv) {
                *o = S::put::<D>(i);
            }
            return;
        }
    }
    let mut sb = [S::T::default(); BLOCK];
    let mut db = [D::T::default(); BLOCK];
    let mut done = 0;
    while done < n {
        let k = (n - done).min(BLOCK);
        S::load(s, at(s_pos, s_stride, done), s_stride, &mut sb[..k]);
        for (o, &i) in db[..k].iter_mut().zip(&sb[..k]) {
            *o = S::put::<D>(i);
        }
        D::store(d, at(d_pos, d_stride, done), d_stride, &db[..k]);
        done += k;
    }
}

tier::versions!(convert -> Run = convert_body<S: Lane, D: Lane>(
    s: &[u8], s_pos: usize, s_stride: isize, d: &mut [u8], d_pos: usize, d_stride: isize, n: usize
));

macro_rules! to_each {
    ($S:ident, $dst:expr, $($D:ident)*) => {
        match $dst { $(DType::$D => convert::<$S, $D>(),)* }
    };
}

macro_rules! from_each {
    ($src:expr, $dst:expr, $($S:ident)*) => {
        match $src {
            $(DType::$S => to_each!($S, $dst, Float16 Bfloat16 Float8E4m3 Float8E5m2 Float32
                Float64 Int4 Uint4 Int8 Uint8 Int16 Uint16 Int32 Uint32 Int64 Uint64 Complex64
                Complex128 Bool),)*
        }
    };
}

/// The typed conversion of `src` elements into `dst` elements (little-endian bytes;
/// into the same dtype it converts too, quieting NaNs: callers copy instead).
pub(crate) fn converter(src: DType, dst: DType) -> Run {
    from_each!(src, dst, Float16 Bfloat16 Float8E4m3 Float8E5m2 Float32 Float64 Int4 Uint4
        Int8 Uint8 Int16 Uint16 Int32 Uint32 Int64 Uint64 Complex64 Complex128 Bool)
}

/// Moves `n` elements of lane `L` bit for bit (no conversion: signalling NaNs stay).
#[inline(always)]
fn copy_body<L: Lane>(
    s: &[u8],
    s_pos: usize,
    s_stride: isize,
    d: &mut [u8],
    d_pos: usize,
    d_stride: isize,
    n: usize,
) {
    if s_stride == 1 && d_stride == 1 && !L::DT.is_sub_byte() {
        let w = std::mem::size_of::<L::T>();
        d[d_pos * w..(d_pos + n) * w].copy_from_slice(&s[s_pos * w..(s_pos + n) * w]);
        return;
    }
    let mut b = [L::T::default(); BLOCK];
    let mut done = 0;
    while done < n {
        let k = (n - done).min(BLOCK);
        L::load(s, at(s_pos, s_stride, done), s_stride, &mut b[..k]);
        L::store(d, at(d_pos, d_stride, done), d_stride, &b[..k]);
        done += k;
    }
}

tier::versions!(copy -> Run = copy_body<L: Lane>(
    s: &[u8], s_pos: usize, s_stride: isize, d: &mut [u8], d_pos: usize, d_stride: isize, n: usize
));

macro_rules! copy_each {
    ($d:expr, $($L:ident)*) => {
        match $d { $(DType::$L => copy::<$L>(),)* }
    };
}

/// The bit-for-bit move of `d` elements between any two runs.
pub(crate) fn copier(d: DType) -> Run {
    copy_each!(d, Float16 Bfloat16 Float8E4m3 Float8E5m2 Float32 Float64 Int4 Uint4 Int8
        Uint8 Int16 Uint16 Int32 Uint32 Int64 Uint64 Complex64 Complex128 Bool)
}
