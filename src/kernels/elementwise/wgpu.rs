//! The WGSL body of an elementwise kernel on a GPU through wgpu: the module generated
//! around it (`crate::wgsl::elementwise_module`) for the operands' dtypes, compiled
//! once a device and dtype signature before the door (its compiler's messages turned
//! into the body's lines), then run over every operand's layout, in pieces that fit
//! the device.

use super::{Compute, Elementwise};
use crate::array::AnyArray;
use crate::dtype::DType;
use crate::error::Error;
use crate::rig::wgpu::{form_key, Gpu};
use crate::wgsl::{compute_type, FirstPass, Form, Generated, Kernel, Slot};

/// A kernel's description for one dtype signature, and its walked module (the body's
/// lines placed in it).
pub(crate) struct Prepared<'a> {
    kernel: Kernel<'a>,
    walked: Generated,
    /// Lines of the body.
    lines: u32,
}

fn invalid(op: &'static str, reason: String) -> Error {
    Error::Invalid {
        op,
        reason,
        operands: String::new(),
    }
}

/// The kernel of `k`'s WGSL `body` over operands of the dtypes of `inputs` and
/// `outputs` (the outputs' dtypes).
///
/// # Errors
/// [`Error::Invalid`] naming `op` for a compute type WGSL lacks.
pub(crate) fn prepare<'a, C: Compute>(
    k: &'a Elementwise<C>,
    body: &'a str,
    inputs: &[AnyArray],
    outputs: &[DType],
    op: &'static str,
) -> Result<Prepared<'a>, Error> {
    if compute_type(C::DTYPE).is_none() {
        return Err(invalid(
            op,
            format!(
                "it computes in {}, which its WGSL body cannot (f32, i32 or u32)",
                C::DTYPE
            ),
        ));
    }
    let dtypes = inputs
        .iter()
        .map(AnyArray::dtype)
        .chain(outputs.iter().copied());
    let kernel = Kernel::new(k.slots(dtypes), Some(C::DTYPE), body).map_err(|e| invalid(op, e))?;
    Ok(Prepared {
        walked: kernel.walked(),
        kernel,
        lines: body.lines().count().max(1) as u32,
    })
}

/// The kernel of one of nxrig's own operations: `slots` as raw bits around `body`,
/// with the operation's `helpers`, its contiguous form's group in a loop (the exact
/// operations' bodies are large), and that form's `first` pass where it has one.
///
/// # Errors
/// [`Error::Invalid`] naming `op` for more operands than a module binds.
pub(crate) fn prepare_bits<'a>(
    slots: Vec<Slot<'a>>,
    helpers: String,
    body: &'a str,
    first: Option<FirstPass>,
    op: &'static str,
) -> Result<Kernel<'a>, Error> {
    Ok(Kernel::new(slots, None, body)
        .map_err(|e| invalid(op, e))?
        .helpers(helpers)
        .looped()
        .first(first))
}

/// The refusal of `p`'s walked module, which does not compile: each message at the
/// body's line.
fn not_compiled(p: &Prepared<'_>, said: Vec<(Option<u32>, String)>, op: &'static str) -> Error {
    let at = |line: Option<u32>| {
        line.and_then(|l| l.checked_sub(p.walked.body_line))
            .filter(|&l| l < p.lines)
    };
    let lines: Vec<String> = said
        .iter()
        .map(|(line, m)| match at(*line) {
            Some(l) => format!("line {} of the WGSL body: {m}", l + 1),
            None => format!("in the module nxrig made around the WGSL body: {m}"),
        })
        .collect();
    invalid(
        op,
        format!("its WGSL does not compile: {}", lines.join("; ")),
    )
}

/// The key of `p`'s walked form, as the runtime compiles it.
fn walked_key(p: &Prepared<'_>) -> String {
    form_key(&p.kernel.key(), Form::Walked { one_axis: false })
}

/// `p`'s walked form compiled on `g` (the other forms, the same body, are compiled
/// when a piece first needs them): natively the compiler's errors are returned here;
/// in the browser, where they come later, use [`compile_async`].
///
/// # Errors
/// [`Error::Invalid`] naming `op` with the compiler's messages.
pub(crate) fn compile(g: &Gpu, p: &Prepared<'_>, op: &'static str) -> Result<(), Error> {
    #[cfg(not(target_arch = "wasm32"))]
    g.pipeline_checked(&walked_key(p), || p.walked.module.clone(), None)
        .map_err(|said| not_compiled(p, said, op))?;
    #[cfg(target_arch = "wasm32")]
    {
        let _ = op;
        g.pipeline(&walked_key(p), || p.walked.module.clone());
    }
    Ok(())
}

/// [`compile`], awaiting the compiler's word (in the browser too).
///
/// # Errors
/// As [`compile`].
pub(crate) async fn compile_async(
    g: &Gpu,
    p: &Prepared<'_>,
    op: &'static str,
) -> Result<(), Error> {
    g.pipeline_checked_async(&walked_key(p), || p.walked.module.clone(), None)
        .await
        .map_err(|said| not_compiled(p, said, op))?;
    Ok(())
}

/// `p` over `inputs` (broadcast to the outputs' shape) into `outputs`,
/// on `g`'s device; the caller holds the door's claims.
pub(crate) fn run(
    g: &Gpu,
    p: &Prepared<'_>,
    inputs: &[AnyArray],
    outputs: &[&AnyArray],
    op: &'static str,
) -> Result<(), Error> {
    crate::kernels::wgpu::run_kernel(g, &p.kernel, inputs, outputs, op)
}
