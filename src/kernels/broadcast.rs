//! NumPy's broadcasting: an array viewed at a larger shape (unit axes prepended, unit
//! axes expanded, zero strides), and the shape operands broadcast to.

use crate::array::AnyArray;
use crate::error::Error;
use crate::layout::Move;

/// `a` broadcast to `shape` as NumPy does (unit axes prepended, then unit axes
/// expanded), or `None` where it does not broadcast.
pub(crate) fn broadcast(a: &AnyArray, shape: &[usize]) -> Result<Option<AnyArray>, Error> {
    if a.shape().len() > shape.len() {
        return Ok(None);
    }
    let mut b = a.clone();
    while b.shape().len() < shape.len() {
        b = b.unsqueeze(0)?;
    }
    if b.shape().iter().zip(shape).any(|(&n, &m)| n != m && n != 1) {
        return Ok(None);
    }
    b.move_(&Move::Expand(shape.to_vec()))
}

/// The shape `x` and `y` broadcast to, NumPy's rule.
pub(crate) fn broadcast_shape(x: &[usize], y: &[usize]) -> Option<Vec<usize>> {
    let r = x.len().max(y.len());
    (0..r)
        .map(|k| {
            let a = if k + x.len() >= r {
                x[k + x.len() - r]
            } else {
                1
            };
            let b = if k + y.len() >= r {
                y[k + y.len() - r]
            } else {
                1
            };
            match (a, b) {
                (a, b) if a == b => Some(a),
                (1, b) => Some(b),
                (a, 1) => Some(a),
                _ => None,
            }
        })
        .collect()
}
