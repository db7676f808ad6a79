//! The front door of nxrig's elementwise operations besides add: the operands'
//! dtypes checked against the operation, broadcast to the output's shape (NumPy's
//! rule), claimed through the door, then one match over the device's backend.

use super::super::broadcast::{broadcast, broadcast_shape};
use crate::array::{described, door_with, refused, AnyArray};
use crate::dtype::DType;
use crate::error::Error;
use crate::rig::backend::Backend;

use super::job::Job;

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
    job: Job,
    ins: &[&AnyArray],
    shown: &[&AnyArray],
) -> Result<DType, Error> {
    let values = match job {
        Job::Select => {
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
    if let Job::Operation(o) = job {
        if !o.takes(d) {
            return Err(invalid(name, format!("{d} has no {}", o.verb()), shown));
        }
    }
    Ok(d)
}

/// `job` over `ins` into `out`, as the function `name` does it, its refusals
/// listing `shown` (the operands the user passed).
pub(crate) fn into(
    name: &'static str,
    job: Job,
    out: &AnyArray,
    ins: &[&AnyArray],
    shown: &[&AnyArray],
) -> Result<(), Error> {
    let d = operands_dtype(name, job, ins, shown)?;
    let all: Vec<&AnyArray> = std::iter::once(out).chain(ins.iter().copied()).collect();
    super::super::one_device(name, &all)?;
    if out.dtype() != job.result(d) {
        return Err(invalid(
            name,
            format!(
                "out is {}, where the result is {}",
                out.dtype(),
                job.result(d)
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
        || claimed(out, &refs, job, name),
        |a| refused(name, a, shown),
    )
}

/// `job` over `ins` into a fresh C-contiguous array on the first operand's device,
/// of the operands' broadcast shape.
pub(crate) fn made(name: &'static str, job: Job, ins: &[&AnyArray]) -> Result<AnyArray, Error> {
    let d = operands_dtype(name, job, ins, ins)?;
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
    let out = AnyArray::create_to_fill(rig, job.result(d), &shape).map_err(|e| e.called(name))?;
    into(name, job, &out, ins, ins)?;
    Ok(out)
}

fn claimed(out: &AnyArray, ins: &[&AnyArray], job: Job, name: &'static str) -> Result<(), Error> {
    match out.rig().backend() {
        Backend::Host(_) => {
            use super::super::host::ops::{apply, binary, Loop};
            let run = match job {
                Job::Select => Some(Loop::Select(crate::dtype::lanes::selector(ins[1].dtype()))),
                Job::Operation(o) => binary(o, ins[0].dtype()),
            };
            // None only for a dtype the operation does not take, which the door refused.
            let Some(run) = run else {
                return Err(invalid(
                    name,
                    format!("{} has no loop", ins[0].dtype()),
                    ins,
                ));
            };
            // A unary operation's loop reads `x` twice.
            let order = match ins {
                [x] => vec![*x, *x],
                _ => ins.to_vec(),
            };
            apply(out, &order, run, name)
        }
        Backend::Wgpu(g) => super::wgpu::apply(g, out, ins, job, name),
        #[cfg(feature = "cuda")]
        Backend::Cuda(c) => {
            use super::super::cuda;
            match job {
                Job::Select => cuda::select(&c.0, out, ins[0], ins[1], ins[2], name),
                Job::Operation(o) => {
                    let y = ins.get(1).unwrap_or(&ins[0]);
                    cuda::op2(&c.0, out, ins[0], y, o, name)
                }
            }
        }
    }
}
