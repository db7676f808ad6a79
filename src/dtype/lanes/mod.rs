//! Typed element loops: every dtype as a Rust type ("lane"), every conversion between
//! two dtypes as one loop over typed slices, generic over the pair and monomorphized
//! for each pair of dtypes, which the compiler vectorizes (no dispatch on the dtype
//! per element, no 128-bit patterns). Each conversion rounds once, to nearest even
//! (see [`encode`]), and equals [`super::convert_bits`] bit for bit: the tests check
//! every pair against the oracle vectors, contiguous and strided.
//!
//! Sub-byte dtypes load as one `i8`/`u8` a nibble and store packed (`io.rs`); a bool
//! source reads as 0 or 1 (any nonzero byte is true). The lanes themselves are in
//! `kinds.rs`, the sums in `sum.rs`, the other operations' loops in
//! `arith_loops.rs` (their meanings, from the operations' table, `op_loops.rs`; the
//! helpers those call, `arith.rs`), the select in `select.rs`.

mod arith;
mod arith_loops;
mod decode;
mod encode;
#[macro_use]
mod io;
mod kinds;
mod op_loops;
mod select;
mod sum;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm_sum;

use io::pack_nibbles;
pub(crate) mod tier;

pub(crate) use arith_loops::{BinRun, Strided};
pub(crate) use op_loops::binary_run;
pub(crate) use select::{selector, SelectRun};
pub(crate) use sum::{adder, Operand};

use super::variants::every_dtype;
use super::DType;
use kinds::*;

/// A dtype as a Rust type: its unpacked element `T`, how runs of it load from and
/// store into little-endian bytes, and how a value of another dtype becomes one.
pub(crate) trait Lane: 'static {
    /// One element, unpacked.
    type T: bytemuck::Pod + Default;
    /// The dtype.
    const DT: DType;
    /// Whether memory holds the elements as `Self::T` itself, so that loops may run over
    /// typed slices of the bytes: not the 4-bit dtypes (nibbles), nor the integers held
    /// one a byte in fewer bits (int2: its loads sign-extend and its stores mask).
    const IN_PLACE: bool =
        !Self::DT.is_sub_byte() && !(Self::DT.is_padded() && !Self::DT.is_float());
    /// Whether memory holds one `Self::T` an element, as it is ([`Lane::IN_PLACE`]) or
    /// as the integers held one a byte in fewer bits hold it (read through
    /// [`Lane::wrap`], written through [`Lane::stored`]): a contiguous run of it is a
    /// typed slice.
    const SLICES: bool = Self::IN_PLACE || (Self::DT.is_padded() && !Self::DT.is_float());

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
    /// An integer result of the register type wrapped to the dtype's width (its bits
    /// kept, sign-extended where signed): itself but for the integers narrower than a
    /// byte.
    #[inline(always)]
    fn wrap(x: Self::T) -> Self::T {
        x
    }
    /// The bits memory holds of the element `x` (its low bits, the others zero, for the
    /// integers held one a byte in fewer bits): itself for the others.
    #[inline(always)]
    fn stored(x: Self::T) -> Self::T {
        x
    }
}

/// The position `pos + i * stride`.
#[inline(always)]
fn at(pos: usize, stride: isize, i: usize) -> usize {
    (pos as isize + i as isize * stride) as usize
}

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
    if s_stride == 1 && d_stride == 1 && S::SLICES && D::SLICES {
        let (sw, dw) = (std::mem::size_of::<S::T>(), std::mem::size_of::<D::T>());
        let sb = &s[s_pos * sw..(s_pos + n) * sw];
        let db = &mut d[d_pos * dw..(d_pos + n) * dw];
        if let (Ok(sv), Ok(dv)) = (
            bytemuck::try_cast_slice::<u8, S::T>(sb),
            bytemuck::try_cast_slice_mut::<u8, D::T>(db),
        ) {
            for (o, &i) in dv.iter_mut().zip(sv) {
                *o = D::stored(S::put::<D>(S::wrap(i)));
            }
            return;
        }
    }
    // Into 4-bit lanes the pairs of a contiguous run go packed; what is left (an odd
    // last element, or all of a run they cannot take) goes in blocks.
    let done = if s_stride == 1 && d_stride == 1 && D::DT.is_sub_byte() && S::IN_PLACE {
        into_nibbles::<S, D>(s, s_pos, d, d_pos, n).unwrap_or(0)
    } else {
        0
    };
    convert_blocks::<S, D>(
        s,
        s_pos + done,
        s_stride,
        d,
        d_pos + done,
        d_stride,
        n - done,
    )
}

/// Converts the pairs of a contiguous run of whole-byte lane `S` into packed 4-bit
/// lane `D` whose first element starts a byte: a block converted into `D`'s unpacked
/// elements, then each two bytes packed into one (a narrowing the compiler
/// vectorizes). Returns the elements done (the run less an odd last one), or `None`
/// where the target starts mid-byte or the source is not aligned for `S::T`.
#[inline(always)]
fn into_nibbles<S: Lane, D: Lane>(
    s: &[u8],
    s_pos: usize,
    d: &mut [u8],
    d_pos: usize,
    n: usize,
) -> Option<usize> {
    let sw = std::mem::size_of::<S::T>();
    let pairs = n / 2;
    if d_pos % 2 == 1 {
        return None;
    }
    let sv = bytemuck::try_cast_slice::<u8, S::T>(&s[s_pos * sw..(s_pos + 2 * pairs) * sw]).ok()?;
    let out = &mut d[d_pos / 2..d_pos / 2 + pairs];
    let mut db = [D::T::default(); BLOCK];
    for (o, i) in out.chunks_mut(BLOCK / 2).zip(sv.chunks(BLOCK)) {
        for (x, &v) in db.iter_mut().zip(i) {
            *x = S::put::<D>(v);
        }
        pack_nibbles(o, bytemuck::cast_slice(&db[..i.len()]));
    }
    Some(2 * pairs)
}

/// Converts `n` elements of lane `S` into lane `D` in blocks through aligned buffers
/// (any strides, sub-byte lanes, unaligned bytes).
#[inline(always)]
fn convert_blocks<S: Lane, D: Lane>(
    s: &[u8],
    s_pos: usize,
    s_stride: isize,
    d: &mut [u8],
    d_pos: usize,
    d_stride: isize,
    n: usize,
) {
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
            $(DType::$S => every_dtype!(to_each!($S, $dst,)),)*
        }
    };
}

/// The typed conversion of `src` elements into `dst` elements (little-endian bytes;
/// into the same dtype it converts too, quieting NaNs: callers copy instead).
pub(crate) fn converter(src: DType, dst: DType) -> Run {
    every_dtype!(from_each!(src, dst,))
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
    if s_stride == 1 && d_stride == 1 && L::IN_PLACE {
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

/// The bit-for-bit move of `d` elements between any two runs (a dtype held one a byte
/// in fewer bits, int2, moves whole bytes: its lane's loads would drop the bits above).
pub(crate) fn copier(d: DType) -> Run {
    if d.is_padded() {
        return copy::<Uint8>();
    }
    every_dtype!(copy_each!(d,))
}
