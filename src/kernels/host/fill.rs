//! The host fill kernel.

use crate::array::AnyArray;
use crate::dtype::write_bits;
use crate::error::Error;

/// Every element of `out` (on a host device, any layout; sub-byte neighbours keep
/// their bits) set to the raw `bits`; the caller holds the door's claims.
pub(crate) fn fill(out: &AnyArray, bits: u128, op: &'static str) -> Result<(), Error> {
    let d = out.dtype();
    out.buffer().write_as(op, |b| {
        out.layout()
            .for_each_position(|p| write_bits(d, b, p, bits))
    })
}
