//! The C add kernel (`nx_cpu_add` in `src/kernels/c/`, over `include/nx_array.h`)
//! called through the door: native targets only.

use super::add::{check_add, not_broadcast};
use super::broadcast::broadcast;
use crate::array::{door_with, refused, Answer, AnyArray};
use crate::error::Error;
use crate::layout::MAX_RANK;
use crate::rig::Buffer;

const NAME: &str = "c_add_into";

/// `nx_array.h`'s `nx_operand`.
#[repr(C)]
struct NxOperand {
    data: *mut u8,
    dtype: i32,
    rank: i32,
    shape: [i64; MAX_RANK],
    strides: [i64; MAX_RANK],
    offset: i64,
}

extern "C" {
    fn nx_cpu_add(out: *const NxOperand, x: *const NxOperand, y: *const NxOperand) -> i32;
}

fn operand(a: &AnyArray, data: *mut u8) -> NxOperand {
    let l = a.layout();
    let mut o = NxOperand {
        data,
        dtype: a.dtype().code() as i32,
        rank: l.rank() as i32,
        shape: [0; MAX_RANK],
        strides: [0; MAX_RANK],
        offset: l.offset() as i64,
    };
    for k in 0..l.rank() {
        o.shape[k] = l.shape()[k] as i64;
        o.strides[k] = l.strides()[k] as i64;
    }
    o
}

/// [`super::add_into`] computed by the C kernel `nx_cpu_add`: the same checks, the
/// same door, the same results bit for bit.
///
/// # Errors
/// As [`super::add_into`].
pub fn c_add_into(out: &AnyArray, x: &AnyArray, y: &AnyArray) -> Result<(), Error> {
    let ops = [out, x, y];
    check_add(NAME, out, x, y, &ops)?;
    let (Some(xb), Some(yb)) = (broadcast(x, out.shape())?, broadcast(y, out.shape())?) else {
        return Err(not_broadcast(NAME, out, x, y));
    };
    let code = door_with(
        NAME,
        &[out],
        &[&xb, &yb],
        || {
            Buffer::with_host_pointers(out.buffer(), &[xb.buffer(), yb.buffer()], NAME, |w, rd| {
                let (o, xo, yo) = (
                    operand(out, w),
                    operand(&xb, rd[0] as *mut u8),
                    operand(&yb, rd[1] as *mut u8),
                );
                // SAFETY: the operands describe layouts that `AnyArray::v` checked lie
                // inside their buffers; the door holds their claims and the memories are
                // locked (out for writing) while the kernel runs.
                let code = unsafe { nx_cpu_add(&o, &xo, &yo) };
                Answer::of_code(code).unwrap_or(Answer::Declined)
            })
        },
        |a| refused(NAME, a, &ops),
    )?;
    // The C kernel's own answer: its checks of the operands, as the door's.
    match code {
        Answer::Done => Ok(()),
        a => Err(refused(NAME, a, &ops)),
    }
}
