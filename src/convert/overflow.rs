//! What a conversion's casts did past their targets' ranges, tensor by tensor:
//! counted on the host over each piece's source values, as it is read.

use crate::array::AnyArray;
use crate::dtype::overflow::{tallied, threshold};
use crate::dtype::{CastMode, DType, Tally};
use crate::error::Error;
use crate::layout::{Move, Slice};

/// The elements of a piece tallied at a time: their float64 values are 512 KiB.
const CHUNK: usize = 1 << 16;

/// A tensor some of whose values overflowed its new dtype, or became an infinity or
/// a NaN there (see [`Tally`]).
///
/// ```
/// # use nxrig::convert::{BufferSource, Checkpoint};
/// # use nxrig::formats::{self, Format, Tensor, TensorFile};
/// # use nxrig::{Array, DType};
/// use nxrig::convert::{self, MemorySink, Overflow, Pick, Plan};
/// use nxrig::dtype::{CastMode, Tally};
///
/// let w = Array::<f32>::of_array(&[3], &[1.0, 70000.0, -1e6])?;
/// # let file = TensorFile { tensors: vec![Tensor { name: "w".into(), array: w.into() }], metadata: None };
/// # let bytes = formats::encode(Format::Safetensors, "model", &file)?;
/// # let source = BufferSource::new("model.safetensors", nxrig::rig::Buffer::of_vec(bytes));
/// let ck = pollster::block_on(Checkpoint::open(source, Format::Safetensors))?;
/// let run = |mode| {
///     let plan = Plan::new(&ck, &Pick::floats(DType::Float16).with_mode(mode), "out.safetensors")?;
///     pollster::block_on(convert::run(&ck, &plan, &mut MemorySink::default(), &nxrig::Rig::host(), &mut |_| {}))
/// };
/// let tally = |overflowed, infinities| Tally { overflowed, infinities, nans: 0 };
/// let w16 = |t| vec![Overflow { tensor: "w".into(), dtype: DType::Float16, tally: t }];
/// assert_eq!(run(CastMode::Default)?.overflows, w16(tally(2, 2)));
/// assert_eq!(run(CastMode::Saturate)?.overflows, w16(tally(2, 0)));
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// The tensor's name.
    pub tensor: String,
    /// Its new dtype.
    pub dtype: DType,
    /// What its values became.
    pub tally: Tally,
}

/// What `piece` (a host array of `from`'s values) becomes cast into `to` in `mode`:
/// nothing counted where no value of `from` can overflow `to` (float16 into float32,
/// any cast into an integer).
pub(crate) fn tally(piece: &AnyArray, to: DType, mode: CastMode) -> Result<Tally, Error> {
    let mut t = Tally::default();
    if !tallied(piece.dtype(), to) {
        return Ok(t);
    }
    // A Fortran-order tensor is read whole: its values are counted in any order, so its
    // axes reversed (C-contiguous) and flattened, a view in its own dtype.
    let rank = piece.shape().len();
    let flat = piece
        .move_or_copy(&Move::Permute((0..rank).rev().collect()))?
        .move_or_copy(&Move::Reshape(vec![piece.layout().numel()]))?;
    let n = flat.shape()[0];
    let mut at = 0;
    while at < n {
        let end = (at + CHUNK).min(n);
        let part = flat.move_or_copy(&Move::Slice(vec![Slice::new(
            Some(at as isize),
            Some(end as isize),
            1,
        )]))?;
        let values = part.cast(DType::Float64)?.expect::<f64>()?.to_vec()?;
        t.count(to, mode, &values);
        at = end;
    }
    Ok(t)
}

/// Whether values whose greatest magnitude is `peak` may overflow `to`, or become a
/// NaN there (an unsigned `to`, whose NaN a negative value becomes): else a tally of
/// them counts nothing.
pub(crate) fn may_overflow(peak: f64, to: DType) -> bool {
    let signed = to.float_format().is_none_or(|f| f.signed());
    to != DType::Float64
        && (!signed || peak.is_infinite() || threshold(to).is_some_and(|t| t.overflows(peak)))
}
