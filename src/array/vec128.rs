//! The 128-bit vector operations the transposes (`transpose.rs`) move bits with:
//! x86_64's SSE2 (its baseline), aarch64's NEON (its baseline) and wasm32's simd128
//! (on in every build of nxrig for the browser, `.cargo/config.toml`). Loads, stores,
//! the interleaving of two vectors' elements, and the masks and shifts of nibbles.
//! Nothing here computes: each operation only moves or masks bits, the same on all
//! three.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

#[cfg(target_arch = "wasm32")]
use core::arch::wasm32::*;

#[cfg(target_arch = "aarch64")]
use std::arch::aarch64::*;

/// 16 bytes in a register.
#[cfg(target_arch = "x86_64")]
pub(super) type V = __m128i;
/// 16 bytes in a register.
#[cfg(target_arch = "wasm32")]
pub(super) type V = v128;
/// 16 bytes in a register.
#[cfg(target_arch = "aarch64")]
pub(super) type V = uint8x16_t;

/// The 16 bytes at `p`, any alignment.
///
/// # Safety
/// The 16 bytes lie inside an allocation.
#[inline(always)]
pub(super) unsafe fn load(p: *const u8) -> V {
    // SAFETY: the caller's; an unaligned load.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        _mm_loadu_si128(p.cast())
    }
    #[cfg(target_arch = "wasm32")]
    unsafe {
        v128_load(p.cast())
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        vld1q_u8(p)
    }
}

/// Stores `v` into the 16 bytes at `p`, any alignment.
///
/// # Safety
/// The 16 bytes lie inside an allocation that nothing else accesses meanwhile.
#[inline(always)]
pub(super) unsafe fn store(p: *mut u8, v: V) {
    // SAFETY: the caller's; an unaligned store.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        _mm_storeu_si128(p.cast(), v)
    }
    #[cfg(target_arch = "wasm32")]
    unsafe {
        v128_store(p.cast(), v)
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        vst1q_u8(p, v)
    }
}

/// 16 zero bytes.
#[inline(always)]
pub(super) fn zero() -> V {
    splat(0)
}

/// 16 bytes of `b`.
#[inline(always)]
pub(super) fn splat(b: u8) -> V {
    // SAFETY: SSE2 and NEON are part of the x86_64 and aarch64 baselines.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        _mm_set1_epi8(b as i8)
    }
    #[cfg(target_arch = "wasm32")]
    {
        u8x16_splat(b)
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        vdupq_n_u8(b)
    }
}

/// `a & b`, bit by bit.
#[inline(always)]
pub(super) fn and(a: V, b: V) -> V {
    // SAFETY: SSE2 and NEON are part of the x86_64 and aarch64 baselines.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        _mm_and_si128(a, b)
    }
    #[cfg(target_arch = "wasm32")]
    {
        v128_and(a, b)
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        vandq_u8(a, b)
    }
}

/// `a | b`, bit by bit.
#[inline(always)]
pub(super) fn or(a: V, b: V) -> V {
    // SAFETY: SSE2 and NEON are part of the x86_64 and aarch64 baselines.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        _mm_or_si128(a, b)
    }
    #[cfg(target_arch = "wasm32")]
    {
        v128_or(a, b)
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        vorrq_u8(a, b)
    }
}

/// Each 16-bit lane shifted up by 4 bits (zeros in).
#[inline(always)]
pub(super) fn shl4(v: V) -> V {
    // SAFETY: SSE2 and NEON are part of the x86_64 and aarch64 baselines.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        _mm_slli_epi16::<4>(v)
    }
    #[cfg(target_arch = "wasm32")]
    {
        i16x8_shl(v, 4)
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        vreinterpretq_u8_u16(vshlq_n_u16::<4>(vreinterpretq_u16_u8(v)))
    }
}

/// Each 16-bit lane shifted down by 4 bits (zeros in).
#[inline(always)]
pub(super) fn shr4(v: V) -> V {
    // SAFETY: SSE2 and NEON are part of the x86_64 and aarch64 baselines.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        _mm_srli_epi16::<4>(v)
    }
    #[cfg(target_arch = "wasm32")]
    {
        u16x8_shr(v, 4)
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        vreinterpretq_u8_u16(vshrq_n_u16::<4>(vreinterpretq_u16_u8(v)))
    }
}

/// The bytes moved up by one (byte `k` gets byte `k - 1`), a zero into byte 0.
#[inline(always)]
pub(super) fn bytes_up(v: V) -> V {
    // SAFETY: SSE2 and NEON are part of the x86_64 and aarch64 baselines.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        _mm_slli_si128::<1>(v)
    }
    #[cfg(target_arch = "wasm32")]
    {
        i8x16_shuffle::<16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14>(v, zero())
    }
    // Bytes 15.. of zero, then 0..15 of `v`.
    #[cfg(target_arch = "aarch64")]
    unsafe {
        vextq_u8::<15>(zero(), v)
    }
}

/// Byte 15 (the last).
#[inline(always)]
pub(super) fn last(v: V) -> u8 {
    // SAFETY: SSE2 and NEON are part of the x86_64 and aarch64 baselines.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        (_mm_extract_epi16::<7>(v) >> 8) as u8
    }
    #[cfg(target_arch = "wasm32")]
    {
        u8x16_extract_lane::<15>(v)
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        vgetq_lane_u8::<15>(v)
    }
}

/// The elements of `W` bytes (1, 2, 4 or 8) of `a` and `b` interleaved: of their low
/// halves (`a0 b0 a1 b1 ...`), then of their high halves.
#[inline(always)]
pub(super) fn zip<const W: usize>(a: V, b: V) -> (V, V) {
    // SAFETY: SSE2 and NEON are part of the x86_64 and aarch64 baselines.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        match W {
            1 => (_mm_unpacklo_epi8(a, b), _mm_unpackhi_epi8(a, b)),
            2 => (_mm_unpacklo_epi16(a, b), _mm_unpackhi_epi16(a, b)),
            4 => (_mm_unpacklo_epi32(a, b), _mm_unpackhi_epi32(a, b)),
            _ => (_mm_unpacklo_epi64(a, b), _mm_unpackhi_epi64(a, b)),
        }
    }
    #[cfg(target_arch = "wasm32")]
    match W {
        1 => (
            i8x16_shuffle::<0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23>(a, b),
            i8x16_shuffle::<8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31>(a, b),
        ),
        2 => (
            i16x8_shuffle::<0, 8, 1, 9, 2, 10, 3, 11>(a, b),
            i16x8_shuffle::<4, 12, 5, 13, 6, 14, 7, 15>(a, b),
        ),
        4 => (
            i32x4_shuffle::<0, 4, 1, 5>(a, b),
            i32x4_shuffle::<2, 6, 3, 7>(a, b),
        ),
        _ => (i64x2_shuffle::<0, 2>(a, b), i64x2_shuffle::<1, 3>(a, b)),
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        // ZIP1 and ZIP2 on lanes of W bytes.
        macro_rules! zips {
            ($to:ident, $from:ident, $z1:ident, $z2:ident) => {{
                let (a, b) = ($to(a), $to(b));
                ($from($z1(a, b)), $from($z2(a, b)))
            }};
        }
        match W {
            1 => (vzip1q_u8(a, b), vzip2q_u8(a, b)),
            2 => zips!(
                vreinterpretq_u16_u8,
                vreinterpretq_u8_u16,
                vzip1q_u16,
                vzip2q_u16
            ),
            4 => zips!(
                vreinterpretq_u32_u8,
                vreinterpretq_u8_u32,
                vzip1q_u32,
                vzip2q_u32
            ),
            _ => zips!(
                vreinterpretq_u64_u8,
                vreinterpretq_u8_u64,
                vzip1q_u64,
                vzip2q_u64
            ),
        }
    }
}

/// Asks for the cache line of `p` ahead of its use: a hint, which reads nothing and
/// cannot fault, wherever `p` points (none on wasm32, and none on aarch64, whose
/// prefetch intrinsic is not stable Rust).
#[inline(always)]
pub(super) fn prefetch(p: *const u8) {
    // SAFETY: a prefetch has no effect but on the caches; it does not fault.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        _mm_prefetch::<_MM_HINT_T0>(p.cast())
    };
    #[cfg(any(target_arch = "wasm32", target_arch = "aarch64"))]
    let _ = p;
}
