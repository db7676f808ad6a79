//! Elements in byte storage: reading and writing one element's bits at an element
//! position, and converting runs of contiguous elements.
//!
//! Positions are in elements. A sub-byte element at position `p` is nibble `p % 2`
//! (0 = low) of byte `p / 2`. Storage is little-endian.

#[cfg(target_endian = "big")]
use super::convert::convert_bits;
use super::table::DType;

/// The bits of the element of dtype `dt` at element position `pos` of `bytes`.
///
/// # Panics
/// If the element lies past `bytes` (callers check layouts first).
#[inline]
pub fn read_bits(dt: DType, bytes: &[u8], pos: usize) -> u128 {
    if dt.is_sub_byte() {
        let b = bytes[pos / 2];
        return ((b >> ((pos % 2) * 4)) & 0xf) as u128;
    }
    let w = dt.storage_bytes();
    let s = &bytes[pos * w..pos * w + w];
    let mut buf = [0u8; 16];
    buf[..w].copy_from_slice(s);
    u128::from_le_bytes(buf)
}

/// Stores `bits` as the element of dtype `dt` at element position `pos` of `bytes`;
/// a sub-byte store keeps the other nibble of its byte.
///
/// # Panics
/// If the element lies past `bytes` (callers check layouts first).
#[inline]
pub fn write_bits(dt: DType, bytes: &mut [u8], pos: usize, bits: u128) {
    if dt.is_sub_byte() {
        let shift = (pos % 2) * 4;
        let b = &mut bytes[pos / 2];
        *b = (*b & !(0xf << shift)) | (((bits as u8) & 0xf) << shift);
        return;
    }
    let w = dt.storage_bytes();
    bytes[pos * w..pos * w + w].copy_from_slice(&bits.to_le_bytes()[..w]);
}

/// Converts the `n` contiguous elements of dtype `src` starting at element position
/// `src_pos` of `src_bytes` into dtype `dst`, stored from element position `dst_pos`
/// of `dst_bytes`, by the typed loop of the pair (one rounding, as
/// [`convert_bits`](super::convert_bits); into the same dtype a copy of every bit).
/// Sub-byte neighbours outside the run keep their bits.
///
/// # Panics
/// If either run lies past its bytes.
pub fn convert_run(
    src: DType,
    src_bytes: &[u8],
    src_pos: usize,
    dst: DType,
    dst_bytes: &mut [u8],
    dst_pos: usize,
    n: usize,
) {
    #[cfg(target_endian = "little")]
    {
        let run = if src == dst {
            super::lanes::copier(src)
        } else {
            super::lanes::converter(src, dst)
        };
        run(src_bytes, src_pos, 1, dst_bytes, dst_pos, 1, n);
    }
    #[cfg(target_endian = "big")]
    for i in 0..n {
        let bits = read_bits(src, src_bytes, src_pos + i);
        let b = if src == dst {
            bits
        } else {
            convert_bits(src, dst, bits)
        };
        write_bits(dst, dst_bytes, dst_pos + i, b);
    }
}
