//! What a conversion's casts did past their targets' ranges, tensor by tensor:
//! counted on the host over each piece's source values, as it is read.

use crate::array::AnyArray;
use crate::dtype::overflow::{tallied, threshold};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::dtype::{f64_of_bits, CastMode, Class, DType, Tally};
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
    if let Some(t) = tally_bytes(&flat, to, mode)? {
        return Ok(t);
    }
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

/// The tally of the host array `flat` (one axis) read from its bytes where they are
/// its own and its dtype a real one of 8 or 16 bits (its codes counted by runs that
/// count alike, [`runs_of`]) or float32 (value by value): no float64 copy of the
/// piece. `None` for other arrays.
fn tally_bytes(flat: &AnyArray, to: DType, mode: CastMode) -> Result<Option<Tally>, Error> {
    let from = flat.dtype();
    if from.class() == Class::Complex {
        return Ok(None);
    }
    let Some(bytes) = flat.own_bytes().transpose()? else {
        return Ok(None);
    };
    let t = match from.bits() {
        8 | 16 => {
            let runs = runs_of(from, to, mode);
            bytes.read(
                |b| match (from.bits(), bytemuck::try_cast_slice::<u8, u16>(b)) {
                    (8, _) => count_runs(b, &runs),
                    (_, Ok(codes)) if cfg!(target_endian = "little") => count_runs(codes, &runs),
                    _ => {
                        let codes: Vec<u16> = b
                            .chunks_exact(2)
                            .map(|c| u16::from_le_bytes([c[0], c[1]]))
                            .collect();
                        count_runs(&codes, &runs)
                    }
                },
            )?
        }
        32 if from == DType::Float32 => {
            bytes.read(|b| match bytemuck::try_cast_slice::<u8, f32>(b) {
                Ok(v) if cfg!(target_endian = "little") => tally_f32(v, to, mode),
                _ => {
                    let v: Vec<f32> = b
                        .chunks_exact(4)
                        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect();
                    tally_f32(&v, to, mode)
                }
            })?
        }
        _ => return Ok(None),
    };
    Ok(Some(t))
}

/// The codes of an 8- or 16-bit `from` in runs that a tally into `to` in `mode` counts
/// alike: each run's first code and what one value of it adds (a run for every
/// change, so a handful: a float's finite codes, those past `to`, its infinity, its
/// NaNs, for each sign). Worked out once for each cast.
fn runs_of(from: DType, to: DType, mode: CastMode) -> Rc<Runs> {
    thread_local! {
        static RUNS: RefCell<HashMap<(DType, DType, CastMode), Rc<Runs>>> = RefCell::default();
    }
    let of = |codes: std::ops::Range<u32>, less: u32| {
        let mut runs: Vec<(u32, Tally)> = Vec::new();
        for code in codes {
            let mut t = Tally::default();
            t.count_weighted(to, mode, [(f64_of_bits(from, code as u128), 1)]);
            if runs.last().is_none_or(|r| r.1 != t) {
                runs.push((code - less, t));
            }
        }
        runs
    };
    RUNS.with_borrow_mut(|m| {
        m.entry((from, to, mode))
            .or_insert_with(|| {
                let half = 1u32 << (from.bits() - 1);
                let (low, high) = (of(0..half, 0), of(half..2 * half, half));
                // A float's sign counts alike on both sides (a signed target): its
                // magnitude's runs, half as many.
                Rc::new(if from.class() == Class::Float && low == high {
                    Runs {
                        mask: half - 1,
                        runs: low,
                    }
                } else {
                    let mut runs = low;
                    runs.extend(high.into_iter().map(|(c, t)| (c + half, t)));
                    runs.dedup_by(|b, a| a.1 == b.1);
                    Runs {
                        mask: 2 * half - 1,
                        runs,
                    }
                })
            })
            .clone()
    })
}

/// Runs of codes that count alike ([`runs_of`]): each run's first code (of the codes
/// masked by `mask`) and what one value of it adds.
#[derive(Debug)]
struct Runs {
    mask: u32,
    runs: Vec<(u32, Tally)>,
}

/// An 8- or 16-bit code, compared in its own width (twice the lanes of a `u32`).
trait Code: Copy + PartialOrd + std::ops::BitAnd<Output = Self> {
    /// `x` (a code of this width, or a mask of one) in this width.
    fn of(x: u32) -> Self;
}

impl Code for u8 {
    fn of(x: u32) -> u8 {
        x as u8
    }
}

impl Code for u16 {
    fn of(x: u32) -> u16 {
        x as u16
    }
}

/// The tally of `codes` from their runs ([`runs_of`]): how many codes lie at or past
/// each run's first, by comparisons the compiler makes SIMD, a block at a time; only
/// the firsts a run that adds something needs (its own and the next run's), and every
/// code lies at or past 0.
fn count_runs<C: Code>(codes: &[C], runs: &Runs) -> Tally {
    let Runs { mask, ref runs } = *runs;
    let adds = |i: usize| runs.get(i).is_some_and(|r| r.1 != Tally::default());
    let mut at_or_past = vec![0u64; runs.len()];
    let mut counted = Vec::new();
    for (i, &(first, _)) in runs.iter().enumerate() {
        if first == 0 {
            at_or_past[i] = codes.len() as u64;
        } else if adds(i) || (i > 0 && adds(i - 1)) {
            counted.push((i, C::of(first)));
        }
    }
    let m = C::of(mask);
    // 4096 codes a block: a count fits 16 bits.
    for block in codes.chunks(1 << 12) {
        for &(i, first) in &counted {
            at_or_past[i] += block
                .iter()
                .map(|&c| u16::from(c & m >= first))
                .sum::<u16>() as u64;
        }
    }
    let mut t = Tally::default();
    for (i, &(_, one)) in runs.iter().enumerate() {
        if !adds(i) {
            continue;
        }
        let n = at_or_past[i] - at_or_past.get(i + 1).copied().unwrap_or(0);
        t.add(Tally {
            overflowed: one.overflowed * n,
            infinities: one.infinities * n,
            nans: one.nans * n,
        });
    }
    t
}

/// Whether values whose greatest magnitude is `peak` may overflow `to`, or become a
/// NaN there (an unsigned `to`, whose NaN a negative value becomes): else a tally of
/// them counts nothing.
pub(crate) fn may_overflow(peak: f64, to: DType) -> bool {
    let signed = to.float_format().is_none_or(|f| f.signed());
    to != DType::Float64
        && (!signed || peak.is_infinite() || threshold(to).is_some_and(|t| t.overflows(peak)))
}

/// What float32 `values` become cast into `to` in `mode`: a block of 1024 at a time,
/// its magnitudes against the least that may count (one comparison a value,
/// vectorized); a block with one at or past it has its finite values that overflow and
/// its infinities counted by their bits (two comparisons a value, vectorized), each
/// kind then tallied as one value of it (a signed `to` counts every overflowing finite
/// value alike, and every infinity).
pub(crate) fn tally_f32(values: &[f32], to: DType, mode: CastMode) -> Tally {
    const INF: u32 = 0x7F80_0000;
    let mut t = Tally::default();
    if !tallied(DType::Float32, to) {
        return t;
    }
    let Some(cut) = crate::dtype::f32_cut(to) else {
        t.count_weighted(to, mode, values.iter().map(|&x| (x as f64, 1)));
        return t;
    };
    // The least magnitude's bits that overflow: `cut` (the largest float32 at or under
    // the threshold) where the threshold itself overflows, else the float32 after it.
    let overflows = |a: u32| threshold(to).is_some_and(|t| t.overflows(f32::from_bits(a) as f64));
    let over = if cut < INF && !overflows(cut) {
        cut + 1
    } else {
        cut
    };
    for block in values.chunks(1024) {
        // Whether a magnitude reaches the cut: signed comparisons (both are under
        // 2^31), which the baseline's vectors have (SSE2 has no unsigned max).
        let reaches = block.iter().fold(0u32, |r, x| {
            r | u32::from((x.to_bits() & 0x7FFF_FFFF) as i32 >= cut as i32)
        });
        if reaches != 0 {
            // `over <= a < INF` as one unsigned comparison; 32-bit counts (a block's
            // fit), so that the loop is vectors of four.
            let (mut past, mut infinite) = (0u32, 0u32);
            for x in block {
                let a = x.to_bits() & 0x7FFF_FFFF;
                past += u32::from(a.wrapping_sub(over) < INF - over);
                infinite += u32::from(a == INF);
            }
            let one_past = f32::from_bits(over) as f64;
            t.count_weighted(
                to,
                mode,
                [(one_past, past.into()), (f64::INFINITY, infinite.into())],
            );
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tally of `piece` counted from its float64 values, the way the bytes' fast
    /// path does not.
    fn by_values(piece: &AnyArray, to: DType, mode: CastMode) -> Tally {
        let mut t = Tally::default();
        let values = piece.cast(DType::Float64).unwrap().expect::<f64>().unwrap();
        t.count(to, mode, &values.to_vec().unwrap());
        t
    }

    #[test]
    fn a_tally_from_bytes_is_the_tally_from_values() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut checked = 0;
        for from in DType::ALL {
            if ![8, 16, 32].contains(&from.bits()) || from.class() == Class::Complex {
                continue;
            }
            // Every code of an 8- or 16-bit dtype (twice, so that counts add), and
            // float32's specials and random words.
            let bits: Vec<u128> = match from.bits() {
                8 => (0..512u128).map(|c| c & 0xff).collect(),
                16 => (0..1u128 << 17).map(|c| c & 0xffff).collect(),
                _ => [
                    0x7f80_0000u128,
                    0xff80_0000,
                    0x7fc0_0000,
                    0x7f7f_ffff,
                    0x8000_0000,
                ]
                .into_iter()
                .chain((0..4096).map(|_| (next() >> 32) as u128))
                // Each target's cut, and the float32s either side of it, of both signs.
                .chain(
                    DType::ALL
                        .into_iter()
                        .filter_map(crate::dtype::f32_cut)
                        .flat_map(|c| {
                            let c = c as u128;
                            [c - 1, c, c + 1, c | 1 << 31, (c + 1) | 1 << 31]
                        }),
                )
                .collect(),
            };
            let piece = AnyArray::of_bits(from, &[bits.len()], &bits).unwrap();
            for to in DType::ALL {
                if !crate::dtype::overflow::tallied(from, to) {
                    continue;
                }
                for mode in [CastMode::Default, CastMode::Saturate] {
                    let fast = tally_bytes(&piece, to, mode).unwrap();
                    if from.bits() == 32 && from != DType::Float32 {
                        assert_eq!(fast, None, "{from} has no fast path");
                        continue;
                    }
                    assert_eq!(
                        fast,
                        Some(by_values(&piece, to, mode)),
                        "{from} -> {to} {mode:?}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "{checked} casts checked");
    }
}
