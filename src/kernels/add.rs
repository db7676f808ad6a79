//! The add kernel's front door: `out = x + y` elementwise, `x` and `y` broadcast to
//! `out`'s shape (NumPy's rule), over any layouts and every dtype, on the arrays'
//! device's backend (`host/add.rs`, `wgpu.rs`, `cuda.rs`); and a donating add that writes in place
//! when its input is held exclusive.
//!
//! On the host the sum is the typed loop of the dtype (`dtype::lanes`) over runs of
//! the walk, on the pool's threads where the output is long: float32 and float64
//! natively, float16, bfloat16 and the float8s through float32 (one correct rounding
//! for them: float32 has at least twice their precision plus two bits), integers
//! wrapping, bool as `or`, complex per part. NaNs follow one rule on every device
//! (see [`add`]); [`add_bits`], one element at a time through float64, is the
//! reference the tests hold the loops to.

use super::broadcast::{broadcast, broadcast_shape};
use crate::array::{described, door_with, refused, AnyArray};
use crate::dtype::{bits_of_f64, convert_bits, f64_of_bits, Class, DType};
use crate::error::Error;
use crate::rig::backend::Backend;
use crate::rig::Claim;

/// The sum of two elements' bits of dtype `d`, one element at a time: the reference
/// the typed sums are tested against (`kernels::reference`). A NaN operand gives that
/// NaN quieted (its sign and payload kept; `x`'s first), infinities of opposite signs
/// the positive quiet NaN: the same bits on every device, whatever the hardware's NaN
/// rules.
#[cfg_attr(any(not(test), target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn add_bits(d: DType, a: u128, b: u128) -> u128 {
    if d.class() == Class::Float {
        let (x, y) = (f64_of_bits(d, a), f64_of_bits(d, b));
        if x.is_nan() {
            return convert_bits(d, d, a);
        }
        if y.is_nan() {
            return convert_bits(d, d, b);
        }
        if x.is_infinite() && y.is_infinite() && x != y {
            return bits_of_f64(d, f64::NAN);
        }
    }
    match d.class() {
        Class::Float if d == DType::Float64 => {
            (f64::from_bits(a as u64) + f64::from_bits(b as u64)).to_bits() as u128
        }
        Class::Float => bits_of_f64(d, f64_of_bits(d, a) + f64_of_bits(d, b)),
        Class::Complex => {
            let c = crate::dtype::component(d);
            let w = c.bits();
            let m = (1u128 << w) - 1;
            add_bits(c, a & m, b & m) | add_bits(c, (a >> w) & m, (b >> w) & m) << w
        }
        Class::Signed | Class::Unsigned => (a.wrapping_add(b)) & ((1u128 << d.packed_bits()) - 1),
        Class::Bool => ((a | b) & 0xff != 0) as u128,
    }
}

/// Stores `x + y` into `out`: one dtype, `x` and `y` broadcast to `out`'s shape. `out`
/// may be identical to `x` or `y` (an add in place).
///
/// # Errors
/// [`Error::Invalid`] naming `add_into`, in this order: operands of another dtype
/// than `out`'s; operands on several devices (`to_device` one first); `x` or `y`
/// that do not broadcast to `out`'s shape (the shapes given);
/// the door's refusals (a dead buffer, memory held exclusive or read-only, an `out`
/// that reaches an element twice or shares bytes with `x` or `y` without being
/// identical to it); [`Error::Lost`].
pub fn add_into(out: &AnyArray, x: &AnyArray, y: &AnyArray) -> Result<(), Error> {
    sum_into("add_into", out, x, y, &[out, x, y])
}

/// [`add_into`] as the function `name` does it, its refusals listing `shown` (the
/// operands the user passed).
fn sum_into(
    name: &'static str,
    out: &AnyArray,
    x: &AnyArray,
    y: &AnyArray,
    shown: &[&AnyArray],
) -> Result<(), Error> {
    check_add(name, out, x, y, shown)?;
    let (Some(xb), Some(yb)) = (broadcast(x, out.shape())?, broadcast(y, out.shape())?) else {
        return Err(not_broadcast(name, out, x, y));
    };
    door_with(
        name,
        &[out],
        &[&xb, &yb],
        || add_claimed(out, &xb, &yb, name),
        |a| refused(name, a, shown),
    )
}

/// The refusal of an add whose operands' dtypes differ.
pub(crate) fn check_add(
    name: &'static str,
    out: &AnyArray,
    x: &AnyArray,
    y: &AnyArray,
    shown: &[&AnyArray],
) -> Result<(), Error> {
    if x.dtype() != out.dtype() || y.dtype() != out.dtype() {
        return Err(Error::Invalid {
            op: name,
            reason: "the operands' dtypes differ (cast one first)".into(),
            operands: described(shown),
        });
    }
    super::one_device(name, &[out, x, y])
}

/// The refusal of an [`add_into`] whose `x` or `y` does not broadcast to `out`.
pub(crate) fn not_broadcast(
    name: &'static str,
    out: &AnyArray,
    x: &AnyArray,
    y: &AnyArray,
) -> Error {
    Error::Invalid {
        op: name,
        reason: format!(
            "shape mismatch: x {:?} and y {:?} do not broadcast to out {:?}",
            x.shape(),
            y.shape(),
            out.shape()
        ),
        operands: String::new(),
    }
}

fn add_claimed(
    out: &AnyArray,
    x: &AnyArray,
    y: &AnyArray,
    name: &'static str,
) -> Result<(), Error> {
    match out.rig().backend() {
        Backend::Host(_) => super::host::add(out, x, y, name),
        Backend::Wgpu(g) => super::wgpu::add(g, out, x, y, name),
        #[cfg(feature = "cuda")]
        Backend::Cuda(c) => super::cuda::add(&c.0, out, x, y, name),
    }
}

/// `x + y` in a fresh C-contiguous array on `x`'s device, of the broadcast shape.
///
/// ```
/// use nxrig::kernels::add;
/// use nxrig::{AnyArray, Array};
/// let x: AnyArray = Array::<i8>::of_array(&[2, 2], &[1, 2, 127, -128])?.into();
/// let y: AnyArray = Array::<i8>::of_array(&[2], &[10, 1])?.into();
/// let z = add(&x, &y)?.expect::<i8>()?;
/// assert_eq!(z.to_vec()?, [11, 3, -119, -127]); // broadcast; integers wrap
/// # Ok::<(), nxrig::Error>(())
/// ```
///
/// # Errors
/// As [`add_into`], and what [`AnyArray::create`] returns.
pub fn add(x: &AnyArray, y: &AnyArray) -> Result<AnyArray, Error> {
    sum("add", x, y)
}

/// [`add`] as the function `name` does it.
fn sum(name: &'static str, x: &AnyArray, y: &AnyArray) -> Result<AnyArray, Error> {
    if x.dtype() != y.dtype() {
        check_add(name, x, x, y, &[x, y])?;
    }
    let Some(shape) = broadcast_shape(x.shape(), y.shape()) else {
        return Err(Error::Invalid {
            op: name,
            reason: format!(
                "shape mismatch: {:?} and {:?} do not broadcast",
                x.shape(),
                y.shape()
            ),
            operands: described(&[x, y]),
        });
    };
    let out = AnyArray::create_to_fill(x.rig(), x.dtype(), &shape).map_err(|e| e.called(name))?;
    sum_into(name, &out, x, y, &[x, y])?;
    Ok(out)
}

/// `x + y`, donating `x`: where the call holds `x`'s memory exclusive (nothing else
/// claims it, its buffer spans it) and `x` reaches no element twice and has the
/// result's shape, the sum is written in place over `x`'s memory, which `x` and every
/// buffer over it lose ("donated to add_donated"); otherwise the sum goes into a fresh array
/// and `x` stays as it was.
///
/// # Errors
/// As [`add`]; [`Error::Claim`] at once if `y` shares `x`'s memory (a call that donates
/// `x` and also reads it).
pub fn add_donated(x: AnyArray, y: &AnyArray) -> Result<AnyArray, Error> {
    let shape = broadcast_shape(x.shape(), y.shape());
    // The fallback runs after `with` has released its claims: under them `x`'s
    // memory may be held exclusive, which `add`'s door would refuse.
    let in_place = Claim::with(&[y.buffer()], &[x.buffer()], |c| {
        let fits = shape.as_deref() == Some(x.shape())
            && x.dtype() == y.dtype()
            && x.layout().is_distinct();
        (fits && c.exclusive(x.buffer())).then(|| {
            let buffer = c.consume("donated to add_donated", x.buffer())?;
            let out = AnyArray::v(x.dtype(), *x.layout(), buffer)?;
            sum_into("add_donated", &out, &out, y, &[&out, y])?;
            Ok(out)
        })
    })
    .map_err(|e| e.called("add_donated"))?;
    in_place.unwrap_or_else(|| sum("add_donated", &x, y))
}
