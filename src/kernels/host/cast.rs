//! The host cast kernel: the typed loop of the dtype pair over runs of the walk
//! (contiguous or at a fixed stride), on the pool's threads where it is long.

use super::split::split;
use crate::array::AnyArray;
use crate::dtype::lanes;
use crate::error::Error;
use crate::layout::Runs;
use crate::rig::Buffer;

/// `src`'s elements converted into `dst`'s dtype (an equal dtype copies bits), both
/// on one host device, `dst` written whole; the caller holds the door's claims.
pub(crate) fn cast(src: &AnyArray, dst: &AnyArray, op: &'static str) -> Result<(), Error> {
    let n = src.layout().numel();
    let (sd, dd) = (src.dtype(), dst.dtype());
    // The typed loop of the pair; into the same dtype a copy of every bit.
    let run = if sd == dd {
        lanes::copier(sd)
    } else {
        lanes::converter(sd, dd)
    };
    let runs = Runs::new([src.layout(), dst.layout()]);
    let [is, id] = runs.inner();
    Buffer::read_write(src.buffer(), dst.buffer(), op, |s, d| {
        split(n, d, dst.layout().offset(), dd, |from, to, bytes, base| {
            runs.each(from, to, |[ps, pd], len| {
                run(s, ps, is, bytes, pd - base, id, len)
            })
        })
    })
}
