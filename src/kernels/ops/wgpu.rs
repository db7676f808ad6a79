//! nxrig's elementwise operations on a GPU through wgpu: one module an operation and
//! dtype (`crate::wgsl::ops`: exact in 32-bit integer arithmetic on every adapter),
//! each operand's raw bits loaded and stored by the elementwise kernels' generated
//! module and walk, run on the job path (`rig/wgpu/job.rs`).

use super::job::Job;
use crate::array::AnyArray;
use crate::error::Error;
use crate::kernels::elementwise::wgpu::prepare_bits;
use crate::kernels::wgpu::run_kernel;
use crate::rig::wgpu::Gpu;
use crate::wgsl::first_pass::{first_helpers, FIRST_BODY, FIRST_END};
use crate::wgsl::ops::{op_helpers, BINARY_BODY, SELECT_BODY, UNARY_BODY};
use crate::wgsl::{FirstPass, Slot};

/// `job` over `inputs` (broadcast to `out`'s layout already, all on `g`'s device:
/// the front door checked) into `out`; the caller holds the door's claims.
///
/// # Errors
/// The device's errors.
pub(crate) fn apply(
    g: &Gpu,
    out: &AnyArray,
    inputs: &[&AnyArray],
    job: Job,
    op: &'static str,
) -> Result<(), Error> {
    let slot = |name, a: &AnyArray, output| Slot {
        name,
        dtype: a.dtype(),
        output,
    };
    let (slots, helpers, body) = match job {
        Job::Select => (
            vec![
                slot("c", inputs[0], false),
                slot("a", inputs[1], false),
                slot("b", inputs[2], false),
                slot("z", out, true),
            ],
            String::new(),
            SELECT_BODY,
        ),
        Job::Operation(o) if o.arity() == 1 => (
            vec![slot("a", inputs[0], false), slot("z", out, true)],
            op_helpers(o, inputs[0].dtype()),
            UNARY_BODY,
        ),
        Job::Operation(o) => (
            vec![
                slot("a", inputs[0], false),
                slot("b", inputs[1], false),
                slot("z", out, true),
            ],
            op_helpers(o, inputs[0].dtype()),
            BINARY_BODY,
        ),
    };
    // An operation whose row names a native operator (sub, mul and div of the 8- and
    // 16-bit floats, sub and mul of float32), where the device has float32: native
    // float32 first, the exact module only over pieces whose flag is up
    // (`wgsl::first_pass`).
    let first = match job {
        Job::Operation(o) if g.native().f32 && slots.iter().all(|s| s.dtype == out.dtype()) => {
            first_helpers(o, out.dtype()).map(|helpers| FirstPass {
                helpers,
                body: FIRST_BODY,
                end: FIRST_END,
            })
        }
        _ => None,
    };
    let kernel = prepare_bits(slots, helpers, body, first, op)?;
    let owned: Vec<AnyArray> = inputs.iter().map(|a| (*a).clone()).collect();
    run_kernel(g, &kernel, &owned, &[out], op)
}
