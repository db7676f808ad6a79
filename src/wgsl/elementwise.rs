//! Elementwise modules of the user's own: `shaders/elementwise.wgsl` (the walk's
//! binding), then each operand's binding, load (its dtype decoded into the compute
//! type, exactly) and store (the compute type rounded once into its dtype) generated
//! from the dtype table, and the walk of up to [`MAX_BOUND`] layouts.

pub use super::operands::{compute_type, Slot};
use super::operands::{parts, Access, Parts, Values};
#[cfg(doc)]
use super::params::MAX_BOUND;
use super::walked::{main_packed, main_walked, positions};

/// What every elementwise module starts with: the walk's binding.
const HEAD: &str = include_str!("../../shaders/elementwise.wgsl");

/// A generated module and where its body starts.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The WGSL: entry point `main`, binding 0 the walk ([`super::walk_params_n`]),
    /// then one binding an operand in their order.
    pub module: String,
    /// The module's line of the body's first line (1-based).
    pub body_line: u32,
    /// The same module for walks of one axis (every layout merged into one, as
    /// contiguous and evenly strided arrays are): no loop over axes, which a CPU
    /// adapter such as SwiftShader runs whatever the rank; empty where there is none
    /// (a raw module, the contiguous form).
    pub one_axis: String,
}

/// The forms of an elementwise module's `main`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Main {
    /// An invocation an element, walked; sub-word outputs stored with atomics.
    Walked,
    /// An invocation a word of C-contiguous sub-word outputs, walked, stored whole.
    Packed,
    /// An invocation a group of [`group_len`] elements of C-contiguous operands:
    /// whole vectors of each, the body written out for each element; or, `looped`,
    /// a word at a time, the body written once in a loop; `at_zero`: every operand
    /// starts its binding window.
    Contiguous { at_zero: bool, looped: bool },
}

/// The module around `body`: its values `values` (operands decoded into a compute
/// type and rounded back, or their raw bits), `enable` first, `extra` after the helpers, `main` of
/// that form, whose invocations run `end` after their loop. The body is the function
/// `nx_body` (the inputs its parameters, the outputs `var`s it returns), which every
/// form calls.
///
/// # Errors
/// A sentence for a compute dtype WGSL lacks, or other than 1 to
/// [`super::MAX_BOUND`] operands.
pub(super) fn generate(
    slots: &[Slot<'_>],
    values: Values,
    enable: &str,
    extra: &str,
    body: &str,
    main: Main,
    end: &str,
) -> Result<Generated, String> {
    let Parts {
        mut helpers,
        bindings,
        operands,
        ty,
    } = parts(
        slots,
        values,
        match main {
            Main::Walked => Access::Element,
            Main::Packed => Access::PackedOutputs,
            Main::Contiguous { looped: false, .. } => Access::Vectors,
            Main::Contiguous { looped: true, .. } => Access::Words,
        },
    )?;
    if !extra.is_empty() {
        helpers.push('\n');
        helpers.push_str(extra);
    }
    let code = match main {
        Main::Walked => main_walked(slots),
        Main::Packed => main_packed(slots),
        Main::Contiguous {
            at_zero,
            looped: false,
        } => super::contiguous::main_contiguous(slots, at_zero),
        Main::Contiguous {
            at_zero,
            looped: true,
        } => super::contiguous::main_contiguous_looped(slots, at_zero),
    };
    let code = match code.strip_suffix("}\n") {
        Some(head) if !end.is_empty() => format!("{head}    {end}\n}}\n"),
        _ => code,
    };
    let (body_head, body_tail) = body_fn(slots, ty);
    let bindings = bindings.join("\n");
    let operands = operands.join("\n\n");
    let with = |walk: &str| {
        let before = [
            enable, HEAD, &bindings, &helpers, &operands, walk, &body_head,
        ]
        .join("\n\n");
        let body_line = before.lines().count() as u32 + 1;
        let mut module = before;
        module.push_str(body);
        if !body.ends_with('\n') {
            module.push('\n');
        }
        module.push_str(&body_tail);
        module.push_str("\n\n");
        module.push_str(&code);
        (module, body_line)
    };
    if matches!(main, Main::Contiguous { .. }) {
        let (module, body_line) = with("");
        return Ok(Generated {
            module,
            body_line,
            one_axis: String::new(),
        });
    }
    let (module, body_line) = with(&positions(slots.len(), false));
    let (one_axis, _) = with(&positions(slots.len(), true));
    Ok(Generated {
        module,
        body_line,
        one_axis,
    })
}

/// `struct nx_out` (the outputs) and `fn nx_body` (the inputs in, the outputs out) in
/// the compute type `ty`: what comes before the body's first line and after its last.
fn body_fn(slots: &[Slot<'_>], ty: &str) -> (String, String) {
    let ins: Vec<String> = slots
        .iter()
        .filter(|s| !s.output)
        .map(|s| format!("{}: {ty}", s.name))
        .collect();
    let outs: Vec<&str> = slots.iter().filter(|s| s.output).map(|s| s.name).collect();
    let fields: String = outs.iter().map(|o| format!("    {o}: {ty},\n")).collect();
    let vars: String = outs
        .iter()
        .map(|o| format!("    var {o}: {ty};\n"))
        .collect();
    (
        format!(
            "struct nx_out {{\n{fields}}}\n\n// The body: the inputs' values in, the outputs' out.\nfn nx_body({}) -> nx_out {{\n{vars}    {{\n",
            ins.join(", ")
        ),
        format!("    }}\n    return nx_out({});\n}}", outs.join(", ")),
    )
}
