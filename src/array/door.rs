//! The door: claims every operand of a kernel call or none, and answers what is wrong
//! with an operand.
//!
//! The door allocates nothing: it claims the operands in place and releases them from
//! the same slices.

use super::any::{describe, described, AnyArray};
use crate::error::Error;
use crate::rig::ReadClaims;

/// The most operands of one kernel call: `nx_array.h`'s `NX_MAX_OPERANDS`.
pub const MAX_OPERANDS: usize = 18;

/// What a kernel answers: `Done`, `Declined`, or, before any write, a refusal naming
/// what is wrong with an operand. The order is `nx_array.h`'s enum's
/// (`NX_DONE` = 0, ...).
///
/// ```
/// use nxrig::array::{door, Answer};
/// use nxrig::Array;
///
/// let x = Array::<f32>::of_array(&[3], &[1.0, 2.0, 3.0])?;
/// let r = x.flip(&[0])?;
/// assert_eq!(door(&[x.any()], &[r.any()], || ())?, Answer::Overlapping);
/// assert_eq!(Answer::of_code(7), Some(Answer::RepeatedElements)); // nx_array.h's codes
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Answer {
    /// The work is done on the host or queued on the device's timeline.
    Done = 0,
    /// The kernel does not compute this case.
    Declined = 1,
    /// An operand's dtype is not the one the kernel loads.
    WrongDtype = 2,
    /// An operand's buffer is dead.
    DeadBuffer = 3,
    /// The host does not address an operand's memory.
    OffHost = 4,
    /// An operand's memory is held exclusive.
    HeldExclusive = 5,
    /// A written operand's memory admits only reads.
    ReadOnly = 6,
    /// A written operand reaches an element twice.
    RepeatedElements = 7,
    /// A written operand shares a byte with another written operand, or with a read
    /// operand not identical to it.
    Overlapping = 8,
    /// The operands do not fit the operation: their number, or their shapes.
    ShapeMismatch = 9,
}

impl Answer {
    /// Every answer, in the enum's order.
    pub const ALL: [Answer; 10] = [
        Answer::Done,
        Answer::Declined,
        Answer::WrongDtype,
        Answer::DeadBuffer,
        Answer::OffHost,
        Answer::HeldExclusive,
        Answer::ReadOnly,
        Answer::RepeatedElements,
        Answer::Overlapping,
        Answer::ShapeMismatch,
    ];

    /// The answer of C code `code`, `None` for another number.
    pub fn of_code(code: i32) -> Option<Answer> {
        usize::try_from(code)
            .ok()
            .and_then(|i| Answer::ALL.get(i).copied())
    }

    /// The reason a refusal gives.
    fn reason(self) -> &'static str {
        match self {
            Answer::Done => "done, which refuses nothing",
            Answer::Declined => "declined, which refuses nothing",
            Answer::WrongDtype => "an operand's dtype is not the one the kernel loads",
            Answer::DeadBuffer => "an operand's buffer is dead",
            Answer::OffHost => "the host does not address an operand's memory",
            Answer::HeldExclusive => "an operand's memory is held exclusive",
            Answer::ReadOnly => "a written operand's memory admits only reads",
            Answer::RepeatedElements => "a written operand reaches an element twice",
            Answer::Overlapping => "a written operand shares bytes with another operand",
            Answer::ShapeMismatch => "the operands do not fit the operation",
        }
    }
}

/// Claims the memory of `written` for writing and of `read` for reading, every claim
/// or none, runs `f`, and releases the claims when `f` returns or panics. Answers
/// `Done` once `f` returns, and otherwise, without running `f` or holding a claim,
/// `DeadBuffer` or `HeldExclusive` for an array, or `ReadOnly`, `RepeatedElements` or
/// `Overlapping` for a written one, in that precedence (a dead operand is
/// `DeadBuffer` whatever else is wrong with it). Waits for no device work. `f` must
/// touch the arrays' elements only through work it submits with
/// [`crate::rig::Rig::submit`] (or host reads and writes). Allocates nothing.
///
/// ```
/// use nxrig::array::{door, refused, Answer};
/// use nxrig::{AnyArray, Array, Move};
/// let x: AnyArray = Array::<f32>::of_array(&[3], &[1.0, 2.0, 3.0])?.into();
/// let out = AnyArray::create(x.rig(), x.dtype(), &[3])?;
/// assert_eq!(door(&[&out], &[&x], || { /* the kernel */ })?, Answer::Done);
/// let reversed = x.move_(&Move::Flip(vec![0]))?.unwrap();
/// let a = door(&[&x], &[&reversed], || unreachable!())?; // shares bytes, not identical
/// assert_eq!(a, Answer::Overlapping);
/// assert!(refused("add", a, &[&x, &reversed]).to_string().starts_with("add: "));
/// # Ok::<(), nxrig::Error>(())
/// ```
///
/// # Errors
/// [`Error::Lost`], without running `f`, if an array's memory is a lost device's.
pub fn door(written: &[&AnyArray], read: &[&AnyArray], f: impl FnOnce()) -> Result<Answer, Error> {
    const OP: &str = "door";
    let all = || written.iter().chain(read);
    for a in all() {
        a.rig().check(OP)?;
    }
    if all().any(|a| !a.buffer.is_live()) {
        return Ok(Answer::DeadBuffer);
    }
    let nth = |k: usize| match written.get(k) {
        Some(a) => *a,
        None => read[k - written.len()],
    };
    let mut claims = ReadClaims::new(|k| &nth(k).buffer.memory.word);
    for _ in all() {
        if !claims.claim_next() {
            return Ok(Answer::HeldExclusive);
        }
    }
    // A consume may have killed a buffer between the check and the claims.
    if all().any(|a| !a.buffer.is_live()) {
        return Ok(Answer::DeadBuffer);
    }
    if written
        .iter()
        .any(|a| a.buffer.access() == crate::rig::Access::Read)
    {
        return Ok(Answer::ReadOnly);
    }
    if written.iter().any(|a| !a.layout.is_distinct()) {
        return Ok(Answer::RepeatedElements);
    }
    for (i, w) in written.iter().enumerate() {
        let other_written = written
            .iter()
            .enumerate()
            .any(|(j, o)| j != i && super::overlap::shares_bytes(w, o));
        let other_read = read
            .iter()
            .any(|r| super::overlap::shares_bytes(w, r) && !super::overlap::identical(w, r));
        if other_written || other_read {
            return Ok(Answer::Overlapping);
        }
    }
    f();
    drop(claims);
    Ok(Answer::Done)
}

/// [`door`] around work with a result, the one way nxrig's kernels go through it:
/// `work`'s result once the door let it run, or else the error `refuse` makes of the
/// door's answer. An error of the door itself (a lost device) names `name`, the
/// function the user called.
pub(crate) fn door_with<R>(
    name: &'static str,
    written: &[&AnyArray],
    read: &[&AnyArray],
    work: impl FnOnce() -> Result<R, Error>,
    refuse: impl FnOnce(Answer) -> Error,
) -> Result<R, Error> {
    let mut r = None;
    let a = door(written, read, || r = Some(work())).map_err(|e| e.called(name))?;
    r.unwrap_or_else(|| Err(refuse(a)))
}

/// The error for the refusal `answer` that a kernel called by `name` (the function
/// the user called, as `"add"`) answered for `operands`: the reason, and each
/// operand's dtype and shape. For `DeadBuffer`, and for `HeldExclusive` once the
/// holder consumed the memory, the reason names each dead operand in order, as
/// `float32 [3] was donated to Nx.mul`. `Done` and `Declined` refuse nothing, and say
/// so.
pub fn refused(name: &'static str, answer: Answer, operands: &[&AnyArray]) -> Error {
    let list = described(operands);
    let dead: Vec<String> = operands
        .iter()
        .filter_map(|a| {
            a.buffer
                .dead()
                .map(|why| format!("{} was {why}", describe(a.dtype, &a.layout)))
        })
        .collect();
    let reason = match answer {
        Answer::DeadBuffer | Answer::HeldExclusive if !dead.is_empty() => dead.join(", "),
        a => a.reason().to_owned(),
    };
    Error::Invalid {
        op: name,
        reason,
        operands: list,
    }
}
