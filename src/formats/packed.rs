//! Elements whose files hold them at another width than memory does: the float6s, one
//! a byte in memory, four in three bytes in `.safetensors` files (element `i` at bits
//! `6i..6i + 6` of the little-endian bytes, as DLPack packs them too), packed as they
//! are written and unpacked as they are read; and the 4-bit dtypes, two a byte in
//! memory, one a byte in ml_dtypes' `.npy` files, packed as they are read.

use crate::dtype::DType;

/// The bytes of `elements` (one element a byte, its low [`DType::packed_bits`] bits; the
/// bits above are dropped) of `dtype` packed, element `i` at bits `bits * i..` of the
/// little-endian result: `ceil(n * bits / 8)` bytes, the last byte's unused bits zero.
/// A dtype not held wider than it packs ([`DType::is_padded`] false): the bytes as they
/// are.
pub(crate) fn pack(dtype: DType, elements: &[u8]) -> Vec<u8> {
    if !dtype.is_padded() {
        return elements.to_vec();
    }
    let bits = dtype.packed_bits();
    let mut out = vec![0u8; (elements.len() * bits as usize).div_ceil(8)];
    if bits == 6 {
        // Four elements, one 24-bit little-endian word: three bytes.
        let (whole, _) = elements.as_chunks::<4>();
        for (q, o) in whole.iter().zip(out.chunks_exact_mut(3)) {
            let w = q
                .iter()
                .enumerate()
                .fold(0u32, |w, (k, &e)| w | (u32::from(e) & 0x3f) << (6 * k));
            o.copy_from_slice(&w.to_le_bytes()[..3]);
        }
    }
    let done = if bits == 6 { elements.len() / 4 * 4 } else { 0 };
    let mask = (1u16 << bits) - 1;
    for (i, &e) in elements.iter().enumerate().skip(done) {
        let at = i * bits as usize;
        let v = (u16::from(e) & mask) << (at % 8);
        out[at / 8] |= v as u8;
        if let Some(next) = out.get_mut(at / 8 + 1) {
            *next |= (v >> 8) as u8;
        }
    }
    out
}

/// `n` elements of `dtype` unpacked from `packed` (element `i` at bits `bits * i..`,
/// [`pack`]'s layout), one a byte in its low bits, the bits above zero. A dtype not held
/// wider than it packs: the first bytes of `packed` as they are.
///
/// # Panics
/// Where `packed` is shorter than `n` elements (a caller's length check first).
pub(crate) fn unpack(dtype: DType, packed: &[u8], n: usize) -> Vec<u8> {
    if !dtype.is_padded() {
        return packed[..n].to_vec();
    }
    let bits = dtype.packed_bits() as usize;
    assert!(
        packed.len() * 8 >= n * bits,
        "{n} elements of {dtype} need more bytes"
    );
    let mut out = vec![0u8; n];
    let mask = (1u16 << bits) - 1;
    let mut done = 0;
    if bits == 6 {
        let (whole, _) = packed.as_chunks::<3>();
        for (t, o) in whole.iter().zip(out.chunks_exact_mut(4)) {
            let w = u32::from_le_bytes([t[0], t[1], t[2], 0]);
            for (k, e) in o.iter_mut().enumerate() {
                *e = (w >> (6 * k)) as u8 & 0x3f;
            }
            done += 4;
        }
    }
    for (i, e) in out.iter_mut().enumerate().skip(done) {
        let at = i * bits;
        let lo = u16::from(packed[at / 8]);
        let hi = packed.get(at / 8 + 1).map_or(0, |&b| u16::from(b));
        *e = (((hi << 8 | lo) >> (at % 8)) & mask) as u8;
    }
    out
}

/// `n` elements of `dtype` as memory holds them, from `file` holding them `file_bits`
/// each: a float6's unpacked one a byte ([`unpack`]); a 4-bit dtype's one a byte (the
/// low nibble; ml_dtypes' layout) packed two a byte, low nibble first; the bytes as they
/// are where the widths agree.
///
/// # Panics
/// Where `file` is shorter than `n` elements (a caller's length check first).
pub(crate) fn to_memory(dtype: DType, file_bits: u32, file: &[u8], n: usize) -> Vec<u8> {
    match (file_bits, dtype.bits()) {
        (8, 4) => {
            let mut out = vec![0u8; n.div_ceil(2)];
            for (i, &b) in file[..n].iter().enumerate() {
                out[i / 2] |= (b & 0xf) << (4 * (i % 2));
            }
            out
        }
        (f, _) if f == dtype.packed_bits() => unpack(dtype, file, n),
        _ => file[..(n * file_bits as usize).div_ceil(8)].to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Element `i` at bits `6i..6i + 6`, read back bit by bit, for every count up to 9
    /// (whole groups of four and every tail) and every pattern in every place.
    #[test]
    fn float6_packs_at_six_bits_each_and_unpacks_back() {
        let d = DType::Float6E2m3fn;
        for n in 0..=9usize {
            for seed in 0..64u8 {
                let e: Vec<u8> = (0..n)
                    .map(|i| seed.wrapping_mul(7).wrapping_add(i as u8 * 13) & 0x3f)
                    .collect();
                let p = pack(d, &e);
                assert_eq!(p.len(), (n * 6).div_ceil(8));
                for (i, &x) in e.iter().enumerate() {
                    let got: u8 = (0..6)
                        .map(|b| ((p[(6 * i + b) / 8] >> ((6 * i + b) % 8)) & 1) << b)
                        .sum();
                    assert_eq!(got, x, "n {n} element {i}");
                }
                assert_eq!(unpack(d, &p, n), e);
            }
        }
        // The top two bits of a byte are not the element's.
        assert_eq!(pack(d, &[0xff, 0xc0, 0x40, 0x80]), [0x3f, 0, 0]);
        assert_eq!(pack(DType::Uint8, &[0xff]), [0xff]);
    }

    #[test]
    fn a_4_bit_dtype_one_a_byte_is_packed_two_a_byte_low_first() {
        // ml_dtypes' int4 -1, 7, -8 are bytes 0x0f, 0x07, 0x08 (a byte's high nibble
        // ignored).
        assert_eq!(
            to_memory(DType::Int4, 8, &[0x0f, 0x07, 0xf8], 3),
            [0x7f, 0x08]
        );
        assert_eq!(
            to_memory(DType::Float6E2m3fn, 6, &[0x40, 0, 0], 4),
            [0, 1, 0, 0]
        );
        assert_eq!(to_memory(DType::Uint8, 8, &[1, 2, 3], 2), [1, 2]);
    }
}
