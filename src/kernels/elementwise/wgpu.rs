//! The WGSL body of an elementwise kernel on a GPU through wgpu: the module generated
//! around it (`crate::wgsl::elementwise_module`) for the operands' dtypes, compiled
//! once a device and dtype signature (its compiler's messages turned into the body's
//! lines), and run over every operand's layout, in pieces that fit the device.

use std::hash::{Hash, Hasher};

use super::{Compute, Elementwise};
use crate::array::AnyArray;
use crate::error::Error;
use crate::rig::wgpu::{Gpu, Operand};
use crate::wgsl::{compute_type, elementwise_module, walk_params_n, Slot};

/// `body` of kernel `k` over `inputs` (broadcast to the outputs' shape) into
/// `outputs`, on `g`'s device; the caller holds the door's claims.
pub(crate) fn run<C: Compute>(
    g: &Gpu,
    k: &Elementwise<C>,
    body: &str,
    inputs: &[AnyArray],
    outputs: &[&AnyArray],
    op: &'static str,
) -> Result<(), Error> {
    let invalid = |reason: String| Error::Invalid {
        op,
        reason,
        operands: String::new(),
    };
    if compute_type(C::DTYPE).is_none() {
        return Err(invalid(format!(
            "it computes in {}, which its WGSL body cannot (f32, i32 or u32)",
            C::DTYPE
        )));
    }
    // WebGPU binds no buffer as a source and a destination of one dispatch: an input
    // over an output's memory is read from a copy.
    let rig = outputs[0].rig();
    let inputs = inputs
        .iter()
        .map(|a| {
            if outputs.iter().any(|o| o.buffer().same_memory(a.buffer())) {
                a.to_device(rig)
            } else {
                Ok(a.clone())
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let all: Vec<&AnyArray> = inputs.iter().chain(outputs.iter().copied()).collect();
    let slots: Vec<Slot<'_>> = k
        .inputs
        .iter()
        .chain(&k.outputs)
        .zip(&all)
        .enumerate()
        .map(|(j, ((name, _), a))| Slot {
            name,
            dtype: a.dtype(),
            output: j >= inputs.len(),
        })
        .collect();
    let generated = elementwise_module(&slots, C::DTYPE, body).map_err(&invalid)?;
    let key = {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        generated.module.hash(&mut h);
        format!("elementwise {} {:016x}", k.name, h.finish())
    };
    let pipeline = g
        .pipeline_checked(&key, || generated.module.clone())
        .map_err(|said| {
            let lines: Vec<String> = said
                .iter()
                .map(
                    |(line, m)| match line.and_then(|l| l.checked_sub(generated.body_line)) {
                        Some(l) if l < body.lines().count().max(1) as u32 => {
                            format!("line {} of the WGSL body: {m}", l + 1)
                        }
                        _ => format!("in the module nxrig made around the WGSL body: {m}"),
                    },
                )
                .collect();
            invalid(format!("its WGSL does not compile: {}", lines.join("; ")))
        })?;
    let mut ops = Vec::with_capacity(all.len());
    for a in &all {
        ops.push(Operand {
            mem: a.wgpu_memory(op)?,
            layout: a.layout(),
            base: a.wgpu_base(op)?,
            bits: a.dtype().bits(),
        });
    }
    let reads: Vec<_> = inputs.iter().map(|a| a.buffer()).collect();
    let writes: Vec<_> = outputs.iter().map(|a| a.buffer()).collect();
    rig.submit_as(op, &reads, &writes, || {
        g.run_walked(op, &key, &pipeline, &ops, |ls| {
            walk_params_n(&ls.iter().map(|l| (l, 0)).collect::<Vec<_>>())
        })
    })?;
    Ok(())
}
