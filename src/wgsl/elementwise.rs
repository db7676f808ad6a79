//! Elementwise modules of the user's own: `shaders/elementwise.wgsl` around a body of
//! WGSL statements, each operand's binding, load (its dtype decoded into the compute
//! type, exactly) and store (the compute type rounded once into its dtype) generated
//! from the dtype table, and the walk of up to [`MAX_BOUND`] layouts.

pub use super::contiguous::group_len;
pub use super::operands::{compute_type, Slot};
use super::operands::{parts, Access, Parts};
#[cfg(doc)]
use super::params::MAX_BOUND;
pub use super::walked::packed_per;
use super::walked::{main_packed, main_walked, positions};
use crate::dtype::DType;

const TEMPLATE: &str = include_str!("../../shaders/elementwise.wgsl");

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

/// The module of an elementwise kernel: `slots` bound in order, computed in `compute`
/// (float32, int32 or uint32), `body` the statements that set every output from the
/// inputs (values of the compute type named as the operands).
///
/// # Errors
/// A sentence for a compute dtype other than those three, or more than
/// [`MAX_BOUND`] operands.
pub fn elementwise_module(
    slots: &[Slot<'_>],
    compute: DType,
    body: &str,
) -> Result<Generated, String> {
    generate(slots, Some(compute), "", body, Main::Walked, "")
}

/// The packed form of [`elementwise_module`], for outputs of one width under 32 bits
/// that are C-contiguous from a word's first element and a whole number of words: an
/// invocation computes the elements of one output word and stores it whole (no
/// atomics); the walk's count stays in elements. `None` where the outputs are not of
/// one sub-word width.
///
/// # Errors
/// As [`elementwise_module`].
pub fn elementwise_module_packed(
    slots: &[Slot<'_>],
    compute: DType,
    body: &str,
) -> Result<Option<Generated>, String> {
    if packed_per(slots).is_none() {
        return Ok(None);
    }
    generate(slots, Some(compute), "", body, Main::Packed, "").map(Some)
}

/// The contiguous form of [`elementwise_module`], for pieces whose operands are all
/// C-contiguous from offsets that are multiples of its elements an invocation (the
/// second value, [`group_len`]): an invocation loads whole vectors of each input,
/// computes that many elements, and stores whole vectors of each output, with no walk
/// and no atomics; `at_zero`: for operands that all start their binding windows (the
/// offsets unread). Its `one_axis` is empty. The walk's count and offsets are in those
/// groups of elements.
///
/// # Errors
/// As [`elementwise_module`].
pub fn elementwise_module_contiguous(
    slots: &[Slot<'_>],
    compute: DType,
    body: &str,
    at_zero: bool,
) -> Result<(Generated, u32), String> {
    let main = Main::Contiguous {
        at_zero,
        looped: false,
    };
    generate(slots, Some(compute), "", body, main, "").map(|g| (g, group_len(slots)))
}

/// The module of one of nxrig's own operations: every operand its raw bits (a
/// `vec4<u32>`, lowest word first, as `shaders/convert.wgsl` holds an element), no
/// conversion around the body, `helpers` (the operation's functions) after
/// `convert.wgsl`'s, in the form `main`; `None` where the outputs have no packed form.
///
/// # Errors
/// As [`elementwise_module`].
pub(crate) fn bits_module(
    slots: &[Slot<'_>],
    helpers: &str,
    body: &str,
    main: Main,
) -> Result<Option<Generated>, String> {
    bits_module_then(slots, helpers, body, main, "")
}

/// [`bits_module`] whose invocations run `end` after their loop.
///
/// # Errors
/// As [`elementwise_module`].
pub(crate) fn bits_module_then(
    slots: &[Slot<'_>],
    helpers: &str,
    body: &str,
    main: Main,
    end: &str,
) -> Result<Option<Generated>, String> {
    if main == Main::Packed && packed_per(slots).is_none() {
        return Ok(None);
    }
    generate(slots, None, helpers, body, main, end).map(Some)
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

/// The module around `body`: operands decoded into `compute` and rounded back
/// (`None`: their raw bits), `extra` after the helpers, `main` of that form, whose
/// invocations run `end` after their loop. The body is the function `nx_body` (the
/// inputs its parameters, the outputs `var`s it returns), which every form calls.
fn generate(
    slots: &[Slot<'_>],
    compute: Option<DType>,
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
        compute,
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
    let code = format!("{}\n\n{code}", body_fn(slots, ty));
    let with = |walk: &str| {
        let head = TEMPLATE
            .replace("{{ENABLE}}", "")
            .replace("{{BINDINGS}}", &bindings.join("\n"))
            .replace("{{HELPERS}}", &helpers)
            .replace("{{OPERANDS}}", &operands.join("\n\n"))
            .replace("{{POSITIONS}}", walk)
            .replace("{{MAIN}}", &code);
        let (before, after) = head.split_at(head.find("{{BODY}}").expect("the template's body"));
        let body_line = before.lines().count() as u32 + 1;
        let after = &after["{{BODY}}".len()..];
        let mut module = String::with_capacity(before.len() + body.len() + after.len() + 1);
        module.push_str(before);
        module.push_str(body);
        if !body.ends_with('\n') {
            module.push('\n');
        }
        module.push_str(after.strip_prefix('\n').unwrap_or(after));
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

/// `struct nx_out` (the outputs) and `fn nx_body` (the inputs in, the outputs out)
/// around the body's placeholder, in the compute type `ty`.
fn body_fn(slots: &[Slot<'_>], ty: &str) -> String {
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
    format!(
        "struct nx_out {{\n{fields}}}\n\n// The body: the inputs' values in, the outputs' out.\nfn nx_body({}) -> nx_out {{\n{vars}    {{\n{{{{BODY}}}}\n    }}\n    return nx_out({});\n}}",
        ins.join(", "),
        outs.join(", ")
    )
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn validate(src: &str) -> Result<(), String> {
        let module = naga::front::wgsl::parse_str(src).map_err(|e| e.emit_to_string(src))?;
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module)
        .map(|_| ())
        .map_err(|e| format!("{e:?}"))
    }

    #[test]
    fn every_dtype_loads_and_stores_in_every_compute_type() {
        for c in [DType::Float32, DType::Int32, DType::Uint32] {
            for d in DType::ALL {
                let slots = [
                    Slot {
                        name: "x",
                        dtype: d,
                        output: false,
                    },
                    Slot {
                        name: "y",
                        dtype: DType::Int4,
                        output: false,
                    },
                    Slot {
                        name: "z",
                        dtype: d,
                        output: true,
                    },
                ];
                let g = elementwise_module(&slots, c, "z = x + y;").unwrap();
                assert!(!g.module.contains("{{"), "{c} {d}");
                validate(&g.module).unwrap_or_else(|e| panic!("{c} {d}: {e}\n{}", g.module));
                validate(&g.one_axis)
                    .unwrap_or_else(|e| panic!("{c} {d} one axis: {e}\n{}", g.one_axis));
                for at_zero in [false, true] {
                    let (f, per) =
                        elementwise_module_contiguous(&slots, c, "z = x + y;", at_zero).unwrap();
                    assert_eq!(per, 32, "four words of int4");
                    assert!(
                        !f.module.contains("atomicOr"),
                        "{c} {d}: the contiguous form stores words whole"
                    );
                    assert_eq!(f.module.contains("nx_walk.offsets"), !at_zero, "{c} {d}");
                    validate(&f.module)
                        .unwrap_or_else(|e| panic!("{c} {d} contiguous: {e}\n{}", f.module));
                }
                let p = elementwise_module_packed(&slots, c, "z = x + y;").unwrap();
                assert_eq!(p.is_some(), d.bits() < 32, "{c} {d}");
                if let Some(p) = p {
                    assert!(!p.module.contains("atomicOr"), "{c} {d}: stored whole");
                    validate(&p.module)
                        .unwrap_or_else(|e| panic!("{c} {d} packed: {e}\n{}", p.module));
                    validate(&p.one_axis)
                        .unwrap_or_else(|e| panic!("{c} {d} packed one axis: {e}\n{}", p.one_axis));
                }
            }
        }
    }

    #[test]
    fn the_body_line_is_where_the_body_is_and_its_errors_are_there() {
        let slots = [
            Slot {
                name: "x",
                dtype: DType::Float32,
                output: false,
            },
            Slot {
                name: "z",
                dtype: DType::Float32,
                output: true,
            },
        ];
        let g = elementwise_module(&slots, DType::Float32, "let t = x * 2.0;\nz = t +;").unwrap();
        let lines: Vec<&str> = g.module.lines().collect();
        assert_eq!(lines[g.body_line as usize], "z = t +;");
        assert!(validate(&g.module).is_err());
        assert!(elementwise_module(&slots, DType::Float16, "").is_err());
    }
}
