//! How a lane's elements load from and store into little-endian bytes: whole-byte
//! dtypes as their Rust type (a slice copy where contiguous), 4-bit ones as nibbles,
//! low first, a byte (two elements) at a time along contiguous runs, the 2- and 1-bit
//! integers one a byte in its low bits. Macros that each lane's `impl` expands
//! (`kinds.rs`).

/// Loads and stores of a dtype of whole bytes: little-endian `Self::T`s (or `$t`s).
macro_rules! bytes_io {
    () => {
        bytes_io!(Self::T);
    };
    ($t:ty) => {
        #[inline(always)]
        fn load(bytes: &[u8], pos: usize, stride: isize, out: &mut [$t]) {
            let w = std::mem::size_of::<$t>();
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
        fn store(bytes: &mut [u8], pos: usize, stride: isize, vals: &[$t]) {
            let w = std::mem::size_of::<$t>();
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

/// Packs `bytes` two a byte into `out` (`bytes.len() / 2` bytes), the low 4 bits of
/// each, the first of a pair low: one 16-bit narrowing a byte, which the compiler
/// vectorizes.
#[inline(always)]
pub(crate) fn pack_nibbles(out: &mut [u8], bytes: &[u8]) {
    for (o, two) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        let w = u16::from_le_bytes([two[0], two[1]]);
        *o = ((w & 0x0f) | ((w >> 4) & 0xf0)) as u8;
    }
}

/// Loads and stores of a 4-bit dtype: nibbles, low first; `$signed` sign-extends.
/// Contiguous runs go a byte (two elements) at a time. Of type `Self::T`, or `$t`.
macro_rules! nibble_io {
    ($signed:expr) => {
        nibble_io!($signed, Self::T);
    };
    ($signed:expr, $t:ty) => {
        #[inline(always)]
        fn load(bytes: &[u8], pos: usize, stride: isize, out: &mut [$t]) {
            let lo = |b: u8| -> $t {
                if $signed {
                    (((b << 4) as i8) >> 4) as _
                } else {
                    (b & 15) as _
                }
            };
            let hi = |b: u8| -> $t {
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
        fn store(bytes: &mut [u8], pos: usize, stride: isize, vals: &[$t]) {
            let put = |bytes: &mut [u8], p: usize, v: $t| {
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
                crate::dtype::lanes::pack_nibbles(
                    &mut bytes[p / 2..p / 2 + pairs],
                    bytemuck::cast_slice(two),
                );
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

/// Loads and stores of an integer held one a byte in its low `$bits` bits (int2, uint2,
/// int1, uint1): a load reads those bits (`$signed` sign-extends from the top one) and
/// ignores the others, a store writes them and zeros above (ml_dtypes' layout).
macro_rules! low_bits_io {
    ($signed:expr, $bits:expr) => {
        #[inline(always)]
        fn load(bytes: &[u8], pos: usize, stride: isize, out: &mut [Self::T]) {
            let get = |b: u8| -> Self::T {
                if $signed {
                    (((b << (8 - $bits)) as i8) >> (8 - $bits)) as _
                } else {
                    (b & ((1u8 << $bits) - 1)) as _
                }
            };
            if stride == 1 {
                let n = out.len();
                for (o, &b) in out.iter_mut().zip(&bytes[pos..pos + n]) {
                    *o = get(b);
                }
                return;
            }
            for (i, o) in out.iter_mut().enumerate() {
                *o = get(bytes[at(pos, stride, i)]);
            }
        }
        #[inline(always)]
        fn store(bytes: &mut [u8], pos: usize, stride: isize, vals: &[Self::T]) {
            let mask = (1u8 << $bits) - 1;
            if stride == 1 {
                let n = vals.len();
                for (b, &v) in bytes[pos..pos + n].iter_mut().zip(vals) {
                    *b = (v as u8) & mask;
                }
                return;
            }
            for (i, &v) in vals.iter().enumerate() {
                bytes[at(pos, stride, i)] = (v as u8) & mask;
            }
        }
    };
}
