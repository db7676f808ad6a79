//! The WGSL body of an elementwise kernel on a GPU through wgpu: the module generated
//! around it (`crate::wgsl::elementwise_module`) for the operands' dtypes, compiled
//! once a device and dtype signature before the door (its compiler's messages turned
//! into the body's lines), then run over every operand's layout, in pieces that fit
//! the device.

use super::{Compute, Elementwise};
use crate::array::AnyArray;
use crate::dtype::DType;
use crate::error::Error;
use crate::layout::Layout;
use crate::rig::wgpu::{Dispatch, Gpu};
use crate::wgsl::elementwise::Main;
use crate::wgsl::{
    compute_type, elementwise_module, elementwise_module_contiguous, elementwise_module_packed,
    group_len, packed_per, walk_params_n, Generated, Slot,
};

/// A kernel's modules for one dtype signature (walked, packed where the outputs are
/// narrower than a word, and contiguous), and their pipelines' name.
pub(crate) struct Prepared {
    key: String,
    generated: Generated,
    /// The packed form and its elements a word.
    packed: Option<(Generated, usize)>,
    /// The contiguous form (the offsets read; every operand at its window's start).
    contiguous: [Generated; 2],
    /// Elements a group of the contiguous form.
    group: usize,
    /// The contiguous form's cheaper first pass, where it has one (its operands'
    /// bindings and the device's flag after them), as [`Prepared::contiguous`].
    first: Option<[Generated; 2]>,
    /// Operands read.
    inputs: usize,
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

/// The module of `k`'s WGSL `body` over operands of the dtypes of `inputs` and
/// `outputs` (the outputs' dtypes).
///
/// # Errors
/// [`Error::Invalid`] naming `op` for a compute type WGSL lacks.
pub(crate) fn prepare<C: Compute>(
    k: &Elementwise<C>,
    body: &str,
    inputs: &[AnyArray],
    outputs: &[DType],
    op: &'static str,
) -> Result<Prepared, Error> {
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
    let slots = k.slots(dtypes);
    let generated = elementwise_module(&slots, C::DTYPE, body).map_err(|e| invalid(op, e))?;
    let packed = elementwise_module_packed(&slots, C::DTYPE, body)
        .map_err(|e| invalid(op, e))?
        .zip(packed_per(&slots).map(|p| p as usize));
    let contiguous =
        |at_zero| elementwise_module_contiguous(&slots, C::DTYPE, body, at_zero).map(|c| c.0);
    let contiguous = [contiguous(false), contiguous(true)];
    let [Ok(c0), Ok(c1)] = contiguous else {
        let e = contiguous.into_iter().find_map(Result::err);
        return Err(invalid(op, e.unwrap_or_default()));
    };
    Ok(Prepared {
        key: k.key("elementwise", &generated.module),
        generated,
        packed,
        contiguous: [c0, c1],
        group: group_len(&slots) as usize,
        first: None,
        inputs: inputs.len(),
        lines: body.lines().count().max(1) as u32,
    })
}

/// A first pass of the contiguous form of one of nxrig's own operations: its helpers,
/// body and what an invocation does after its loop (`crate::wgsl::first_pass`).
pub(crate) struct First<'a> {
    pub(crate) helpers: String,
    pub(crate) body: &'a str,
    pub(crate) end: &'a str,
}

/// The modules of one of nxrig's own operations, named `key`: `slots` as raw bits
/// around `body`, with the operation's `helpers` ([`crate::wgsl::elementwise::bits_module`]),
/// and the contiguous form's `first` pass where it has one.
///
/// # Errors
/// [`Error::Invalid`] naming `op` for more operands than a module binds.
pub(crate) fn prepare_bits(
    key: String,
    slots: &[Slot<'_>],
    helpers: &str,
    body: &str,
    first: Option<First<'_>>,
    op: &'static str,
) -> Result<Prepared, Error> {
    use crate::wgsl::elementwise::{bits_module, bits_module_then};
    let made = |main| bits_module(slots, helpers, body, main).map_err(|e| invalid(op, e));
    let generated = made(Main::Walked)?.expect("the walked form is always made");
    let packed = made(Main::Packed)?.zip(packed_per(slots).map(|p| p as usize));
    // The exact operations' bodies are large: their group in a loop, not repeated.
    let looped = |at_zero| Main::Contiguous {
        at_zero,
        looped: true,
    };
    let contiguous = [made(looped(false))?, made(looped(true))?]
        .map(|m| m.expect("the contiguous form is always made"));
    let first = match first {
        Some(f) => {
            let made = |at_zero| {
                let main = Main::Contiguous {
                    at_zero,
                    looped: false,
                };
                bits_module_then(slots, &f.helpers, f.body, main, f.end)
                    .map_err(|e| invalid(op, e))
                    .map(|m| m.expect("the contiguous form is always made"))
            };
            Some([made(false)?, made(true)?])
        }
        None => None,
    };
    Ok(Prepared {
        key,
        generated,
        packed,
        contiguous,
        group: group_len(slots) as usize,
        first,
        inputs: slots.iter().filter(|s| !s.output).count(),
        lines: body.lines().count().max(1) as u32,
    })
}

/// The refusal of `p`'s walked module, which does not compile: each message at the
/// body's line.
fn not_compiled(p: &Prepared, said: Vec<(Option<u32>, String)>, op: &'static str) -> Error {
    let at = |line: Option<u32>| {
        line.and_then(|l| l.checked_sub(p.generated.body_line))
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

/// `p`'s walked form compiled on `g` (the other forms, the same body, are compiled
/// when a piece first needs them): natively the compiler's errors are returned here;
/// in the browser, where they come later, use [`compile_async`].
///
/// # Errors
/// [`Error::Invalid`] naming `op` with the compiler's messages.
pub(crate) fn compile(g: &Gpu, p: &Prepared, op: &'static str) -> Result<(), Error> {
    #[cfg(not(target_arch = "wasm32"))]
    g.pipeline_checked(&p.key, || p.generated.module.clone(), None)
        .map_err(|said| not_compiled(p, said, op))?;
    #[cfg(target_arch = "wasm32")]
    {
        let _ = op;
        g.pipeline(&p.key, || p.generated.module.clone());
    }
    Ok(())
}

/// [`compile`], awaiting the compiler's word (in the browser too).
///
/// # Errors
/// As [`compile`].
pub(crate) async fn compile_async(g: &Gpu, p: &Prepared, op: &'static str) -> Result<(), Error> {
    g.pipeline_checked_async(&p.key, || p.generated.module.clone(), None)
        .await
        .map_err(|said| not_compiled(p, said, op))?;
    Ok(())
}

/// `p` over `inputs` (broadcast to the outputs' shape) into `outputs`,
/// on `g`'s device; the caller holds the door's claims.
pub(crate) fn run(
    g: &Gpu,
    p: &Prepared,
    inputs: &[AnyArray],
    outputs: &[&AnyArray],
    op: &'static str,
) -> Result<(), Error> {
    // An input over an output's memory is read from a copy.
    let rig = outputs[0].rig();
    let inputs = inputs
        .iter()
        .map(|a| crate::kernels::wgpu::apart(a, outputs))
        .collect::<Result<Vec<_>, _>>()?;
    let ops = crate::kernels::wgpu::operands(&inputs, outputs, op)?;
    let reads: Vec<_> = inputs.iter().map(|a| a.buffer()).collect();
    let writes: Vec<_> = outputs.iter().map(|a| a.buffer()).collect();
    rig.submit_as(op, &reads, &writes, || {
        g.run_walked(
            op,
            &p.key,
            |ls| plan(g, p, ls),
            &ops,
            |ls| walk_params_n(&ls.iter().map(|l| (l, 0)).collect::<Vec<_>>()),
        )
    })?;
    Ok(())
}

/// The dispatches of a piece whose operands have layouts `ls`: where every operand
/// is C-contiguous from a multiple of the contiguous form's group, its whole groups
/// in that form (after its first pass where it has one) and the rest (fewer than a
/// group) as any other piece; that, in the packed form where every output is whole
/// words of its own, else walked, each the walk of one axis where the layouts merge
/// into one. Each form is compiled when a piece first needs it (the same body as the
/// walked form, compiled before the door).
fn plan(g: &Gpu, p: &Prepared, ls: &[Layout]) -> Vec<Dispatch> {
    let group = p.group;
    let n = ls[0].numel();
    let flat = n >= group
        && ls
            .iter()
            .all(|l| l.is_contiguous() && l.offset() % group == 0);
    if !flat {
        return vec![walked(g, p, ls.to_vec())];
    }
    let line = |len: usize, at: usize, div: usize| -> Vec<Layout> {
        ls.iter()
            .map(|l| {
                Layout::new(&[len], &[1], (l.offset() + at) / div)
                    .expect("a part of a contiguous layout")
            })
            .collect()
    };
    let layouts = line(n / group, 0, group);
    let at_zero = layouts.iter().all(|l| l.offset() == 0);
    let z = usize::from(at_zero);
    let first = p.first.as_ref().map(|f| {
        let key = format!("{} contiguous first {at_zero}", p.key);
        g.pipeline(&key, || f[z].module.clone())
    });
    let key = format!("{} contiguous {at_zero}", p.key);
    let mut v = vec![Dispatch {
        pipeline: g.pipeline(&key, || p.contiguous[z].module.clone()),
        layouts,
        per: 1,
        flat: true,
        first,
    }];
    if !n.is_multiple_of(group) {
        v.push(walked(g, p, line(n % group, n - n % group, 1)));
    }
    v
}

/// The dispatch of layouts `ls` walked: packed where every output is whole words of
/// its own, on one axis where the layouts merge into one.
fn walked(g: &Gpu, p: &Prepared, ls: Vec<Layout>) -> Dispatch {
    let packed = match &p.packed {
        Some((g2, per)) => ls[p.inputs..]
            .iter()
            .all(|l| l.is_contiguous() && l.offset() % per == 0 && l.numel() % per == 0)
            .then_some((g2, *per)),
        None => None,
    };
    let line = walk_params_n(&ls.iter().map(|l| (l, 0)).collect::<Vec<_>>())
        .is_some_and(|w| u32::from_le_bytes([w[4], w[5], w[6], w[7]]) <= 1);
    let (key, module, per) = match (packed, line) {
        (Some((g2, per)), true) => (format!("{} packed one axis", p.key), &g2.one_axis, per),
        (Some((g2, per)), false) => (format!("{} packed", p.key), &g2.module, per),
        (None, true) => (format!("{} one axis", p.key), &p.generated.one_axis, 1),
        (None, false) => (p.key.clone(), &p.generated.module, 1),
    };
    let pipeline = g.pipeline(&key, || module.clone());
    Dispatch {
        pipeline,
        layouts: ls,
        per,
        flat: false,
        first: None,
    }
}
