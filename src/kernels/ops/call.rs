//! The front door of nxrig's elementwise operations besides add: the operands'
//! dtypes checked against the operation, broadcast to the output's shape (NumPy's
//! rule), claimed through the door, then one match over the device's backend.

use super::super::broadcast::{broadcast, broadcast_shape};
use crate::array::{described, door_with, refused, AnyArray};
use crate::dtype::lanes::{takes, Arith};
use crate::dtype::DType;
use crate::error::Error;
use crate::rig::backend::Backend;

use super::which::Which;

fn invalid(name: &'static str, reason: String, shown: &[&AnyArray]) -> Error {
    Error::Invalid {
        op: name,
        reason,
        operands: described(shown),
    }
}

/// The operands' dtype (of `x` and `y`), checked: one dtype, which the operation
/// takes; for the select, a bool condition.
fn operands_dtype(
    name: &'static str,
    which: Which,
    ins: &[&AnyArray],
    shown: &[&AnyArray],
) -> Result<DType, Error> {
    let values = match which {
        Which::Select => {
            if ins[0].dtype() != DType::Bool {
                return Err(invalid(
                    name,
                    format!("the condition is {}, not bool", ins[0].dtype()),
                    shown,
                ));
            }
            &ins[1..]
        }
        _ => ins,
    };
    let d = values[0].dtype();
    if values.iter().any(|a| a.dtype() != d) {
        return Err(invalid(
            name,
            "the operands' dtypes differ (cast one first)".into(),
            shown,
        ));
    }
    if let Which::Binary(a) | Which::Unary(a) = which {
        if !takes(a, d) {
            return Err(invalid(name, format!("{d} has no {}", verb(a)), shown));
        }
    }
    Ok(d)
}

/// What `a` does, in a refusal.
fn verb(a: Arith) -> &'static str {
    match a {
        Arith::Sub => "subtraction",
        Arith::Mul => "multiplication",
        Arith::Div => "division",
        Arith::Maximum | Arith::Minimum => "extrema (maximum, minimum)",
        Arith::Neg => "negation",
        Arith::Abs => "abs",
        Arith::Eq | Arith::Ne => "equality",
        Arith::Lt | Arith::Le | Arith::Gt | Arith::Ge => "ordering",
    }
}

/// `which` over `ins` into `out`, as the function `name` does it, its refusals
/// listing `shown` (the operands the user passed).
pub(crate) fn into(
    name: &'static str,
    which: Which,
    out: &AnyArray,
    ins: &[&AnyArray],
    shown: &[&AnyArray],
) -> Result<(), Error> {
    let d = operands_dtype(name, which, ins, shown)?;
    let all: Vec<&AnyArray> = std::iter::once(out).chain(ins.iter().copied()).collect();
    super::super::one_device(name, &all)?;
    if out.dtype() != which.result(d) {
        return Err(invalid(
            name,
            format!(
                "out is {}, where the result is {}",
                out.dtype(),
                which.result(d)
            ),
            shown,
        ));
    }
    let mut bs = Vec::with_capacity(ins.len());
    for a in ins {
        match broadcast(a, out.shape())? {
            Some(b) => bs.push(b),
            None => {
                let shapes: Vec<String> = ins.iter().map(|a| format!("{:?}", a.shape())).collect();
                return Err(invalid(
                    name,
                    format!(
                        "shape mismatch: {} do not broadcast to out {:?}",
                        shapes.join(", "),
                        out.shape()
                    ),
                    shown,
                ));
            }
        }
    }
    let refs: Vec<&AnyArray> = bs.iter().collect();
    door_with(
        name,
        &[out],
        &refs,
        || claimed(out, &refs, which, name),
        |a| refused(name, a, shown),
    )
}

/// `which` over `ins` into a fresh C-contiguous array on the first operand's device,
/// of the operands' broadcast shape.
pub(crate) fn made(name: &'static str, which: Which, ins: &[&AnyArray]) -> Result<AnyArray, Error> {
    let d = operands_dtype(name, which, ins, ins)?;
    let mut shape = ins[0].shape().to_vec();
    for a in &ins[1..] {
        shape = broadcast_shape(&shape, a.shape()).ok_or_else(|| {
            let shapes: Vec<String> = ins.iter().map(|a| format!("{:?}", a.shape())).collect();
            invalid(
                name,
                format!("shape mismatch: {} do not broadcast", shapes.join(" and ")),
                ins,
            )
        })?;
    }
    let rig = ins[0].rig();
    let out = AnyArray::create_to_fill(rig, which.result(d), &shape).map_err(|e| e.called(name))?;
    into(name, which, &out, ins, ins)?;
    Ok(out)
}

fn claimed(
    out: &AnyArray,
    ins: &[&AnyArray],
    which: Which,
    name: &'static str,
) -> Result<(), Error> {
    match out.rig().backend() {
        Backend::Host(_) => {
            use super::super::host::ops::{apply, binary, Loop};
            let run = match which {
                Which::Select => Some((
                    Loop::Select(crate::dtype::lanes::selector(ins[1].dtype())),
                    false,
                )),
                Which::Binary(a) | Which::Unary(a) => binary(a, ins[0].dtype()),
            };
            // None only for a dtype the operation does not take, which the door refused.
            let Some((run, swap)) = run else {
                return Err(invalid(
                    name,
                    format!("{} has no loop", ins[0].dtype()),
                    ins,
                ));
            };
            let order = match which {
                Which::Unary(_) => vec![ins[0], ins[0]],
                _ if swap => vec![ins[1], ins[0]],
                _ => ins.to_vec(),
            };
            apply(out, &order, run, name)
        }
        Backend::Wgpu(g) => super::wgpu::apply(g, out, ins, which, name),
        #[cfg(feature = "cuda")]
        Backend::Cuda(c) => {
            use super::super::cuda;
            match which {
                Which::Select => cuda::select(&c.0, out, ins[0], ins[1], ins[2], name),
                Which::Binary(a) => cuda::op2(&c.0, out, ins[0], ins[1], a, name),
                Which::Unary(a) => cuda::op2(&c.0, out, ins[0], ins[0], a, name),
            }
        }
    }
}
