//! Elementwise modules of the user's own: `shaders/elementwise.wgsl` around a body of
//! WGSL statements, each operand's binding, load (its dtype decoded into the compute
//! type, exactly) and store (the compute type rounded once into its dtype) generated
//! from the dtype table, and the walk of up to [`MAX_BOUND`] layouts.

pub use super::flat::flat_per;
pub use super::operands::{compute_type, Slot};
use super::operands::{parts, Parts};
#[cfg(doc)]
use super::params::MAX_BOUND;
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
    /// (a raw module).
    pub line: String,
}

/// The module of an elementwise kernel: `slots` bound in order, computed in `compute`
/// (float32, int32 or uint32), `body` the statements that set every output from the
/// inputs (values of the compute type named as the operands).
///
/// ```
/// use nxrig::wgsl::{elementwise_module, Slot};
/// use nxrig::DType;
/// let slots = [
///     Slot { name: "x", dtype: DType::Bfloat16, output: false },
///     Slot { name: "z", dtype: DType::Float8E4m3, output: true },
/// ];
/// let g = elementwise_module(&slots, DType::Float32, "z = x * 2.0;").unwrap();
/// assert!(g.module.contains("var<storage, read_write> nx_op_z: array<atomic<u32>>"));
/// assert_eq!(g.module.lines().nth(g.body_line as usize - 1), Some("z = x * 2.0;"));
/// ```
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

/// Elements a word of the outputs, where they are all of one width under 32 bits.
pub fn packed_per(slots: &[Slot<'_>]) -> Option<u32> {
    let mut bits = slots.iter().filter(|s| s.output).map(|s| s.dtype.bits());
    let b = bits.next()?;
    (b < 32 && bits.all(|x| x == b)).then_some(32 / b)
}

/// The contiguous form of [`elementwise_module`], for pieces whose operands are all
/// C-contiguous from offsets that are multiples of its elements an invocation (the
/// second value, [`flat_per`]): an invocation loads whole words of each input,
/// computes that many elements, and stores whole words of each output, with no walk
/// and no atomics. Its `line` is empty. The walk's count and offsets are in those
/// groups of elements.
///
/// # Errors
/// As [`elementwise_module`].
pub fn elementwise_module_flat(
    slots: &[Slot<'_>],
    compute: DType,
    body: &str,
) -> Result<(Generated, u32), String> {
    generate(slots, Some(compute), "", body, Main::Flat, "").map(|g| (g, flat_per(slots)))
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
    /// An invocation a group of [`flat_per`] elements of C-contiguous operands.
    Flat,
    /// [`Main::Flat`] with the group's elements in a loop, the body written once.
    FlatLooped,
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
    } = parts(slots, compute, main != Main::Walked)?;
    if !extra.is_empty() {
        helpers.push('\n');
        helpers.push_str(extra);
    }
    let code = match main {
        Main::Walked => main_walked(slots),
        Main::Packed => main_packed(slots),
        Main::Flat => super::flat::main_flat(slots),
        Main::FlatLooped => super::flat::main_flat_looped(slots),
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
    if matches!(main, Main::Flat | Main::FlatLooped) {
        let (module, body_line) = with("");
        return Ok(Generated {
            module,
            body_line,
            line: String::new(),
        });
    }
    let (module, body_line) = with(&positions(slots.len(), false));
    let (line, _) = with(&positions(slots.len(), true));
    Ok(Generated {
        module,
        body_line,
        line,
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

/// The call of the body on the inputs at the walk's positions `nx_p`.
fn call_walked(slots: &[Slot<'_>]) -> String {
    let args: Vec<String> = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.output)
        .map(|(j, s)| format!("nx_load_{}(nx_p.p{j})", s.name))
        .collect();
    format!("let nx_r = nx_body({});", args.join(", "))
}

/// `struct NxPos` (each operand's position, `p0`, `p1`, ...) and `nx_positions(i)`,
/// the walk of element `i`, written out for `n` operands: every index a constant, no
/// array in private memory (which a CPU adapter's vector lanes spill). `line`: the
/// walk of one axis alone (the parameters' rank at most 1).
fn positions(n: usize, line: bool) -> String {
    let comp = |j: usize| ["x", "y", "z", "w"][j % 4];
    let field = |j: usize| format!("p{j}");
    let fields: String = (0..n)
        .map(|j| format!("    {}: u32,\n", field(j)))
        .collect();
    let offsets: String = (0..n)
        .map(|j| {
            format!(
                "    var {} = i32(nx_walk.offsets[{}].{});\n",
                field(j),
                j / 4,
                comp(j)
            )
        })
        .collect();
    let step = |indent: &str, index: &str| -> String {
        (0..n)
            .map(|j| {
                format!(
                    "{indent}{0} = {0} + i32({index}) * nx_walk.strides[2u * k + {1}u].{2};\n",
                    field(j),
                    j / 4,
                    comp(j)
                )
            })
            .collect()
    };
    let names: Vec<String> = (0..n).map(|j| format!("u32({})", field(j))).collect();
    if line {
        return format!(
            "struct NxPos {{\n{fields}}}\n\n// Each operand's position of element i, on one axis.\nfn nx_positions(i: u32) -> NxPos {{\n{offsets}    let k = 0u;\n{}    return NxPos({});\n}}",
            step("    ", "i"),
            names.join(", ")
        );
    }
    format!(
        "struct NxPos {{\n{fields}}}\n\n// Each operand's position of element i.\nfn nx_positions(i: u32) -> NxPos {{\n{offsets}    if (nx_walk.rank <= 1u) {{\n        // One axis (every contiguous walk): no division.\n        let k = 0u;\n{}        return NxPos({});\n    }}\n    var rest = i;\n    for (var k = 0u; k < nx_walk.rank; k = k + 1u) {{\n        var index = rest;\n        if (k + 1u < nx_walk.rank) {{\n            let e = nx_walk.extents[k / 4u][k % 4u];\n            index = rest % e;\n            rest = rest / e;\n        }}\n{}    }}\n    return NxPos({});\n}}",
        step("        ", "i"),
        names.join(", "),
        step("        ", "index"),
        names.join(", ")
    )
}

/// The start of every form of `main`.
pub(super) const MAIN_HEAD: &str = "@compute @workgroup_size(256)\nfn main(@builtin(global_invocation_id) nx_gid: vec3<u32>, @builtin(num_workgroups) nx_groups: vec3<u32>) {\n    let nx_step = nx_groups.x * nx_groups.y * 256u;\n    let nx_first = nx_gid.x + nx_gid.y * nx_groups.x * 256u;\n";

/// `lines`, each indented by `depth` levels of four spaces.
pub(super) fn indented(lines: &[String], depth: usize) -> String {
    let pad = "    ".repeat(depth);
    lines.iter().map(|l| format!("{pad}{l}\n")).collect()
}

/// The walked `main`: an invocation an element (a grid-stride loop).
fn main_walked(slots: &[Slot<'_>]) -> String {
    let stores: Vec<String> = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| s.output)
        .map(|(j, s)| format!("nx_store4_{0}(nx_p.p{j}, nx_bits_{0}(nx_r.{0}));", s.name))
        .collect();
    format!(
        "{MAIN_HEAD}    for (var nx_i = nx_first; nx_i < nx_walk.n; nx_i = nx_i + nx_step) {{\n        let nx_p = nx_positions(nx_i);\n        {}\n{}    }}\n}}\n",
        call_walked(slots),
        indented(&stores, 2)
    )
}

/// The packed `main`: an invocation a word of the outputs, its elements computed in
/// turn and the word stored whole.
fn main_packed(slots: &[Slot<'_>]) -> String {
    let per = packed_per(slots).expect("outputs of one sub-word width");
    let outs: Vec<(usize, &Slot<'_>)> =
        slots.iter().enumerate().filter(|(_, s)| s.output).collect();
    let words: Vec<String> = outs
        .iter()
        .flat_map(|(_, s)| {
            [
                format!("var nx_word_{} = 0u;", s.name),
                format!("var nx_at_{} = 0u;", s.name),
            ]
        })
        .collect();
    let at: Vec<String> = outs
        .iter()
        .map(|(j, s)| {
            format!(
                "if (nx_j == 0u) {{ nx_at_{} = nx_p.p{j} / {per}u; }}",
                s.name
            )
        })
        .collect();
    let stores: Vec<String> = outs
        .iter()
        .map(|(_, s)| {
            let b = s.dtype.bits();
            format!(
                "nx_word_{0} = nx_word_{0} | ((nx_bits_{0}(nx_r.{0}).x & {1:#x}u) << (nx_j * {b}u));",
                s.name,
                (1u64 << b) - 1
            )
        })
        .collect();
    let put: Vec<String> = outs
        .iter()
        .map(|(_, s)| format!("nx_op_{0}[nx_at_{0}] = nx_word_{0};", s.name))
        .collect();
    format!(
        "{MAIN_HEAD}    let nx_words = nx_walk.n / {per}u;\n    for (var nx_w = nx_first; nx_w < nx_words; nx_w = nx_w + nx_step) {{\n{}        for (var nx_j = 0u; nx_j < {per}u; nx_j = nx_j + 1u) {{\n            let nx_p = nx_positions(nx_w * {per}u + nx_j);\n{}            {}\n{}        }}\n{}    }}\n}}\n",
        indented(&words, 2),
        indented(&at, 3),
        call_walked(slots),
        indented(&stores, 3),
        indented(&put, 2)
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
                validate(&g.line).unwrap_or_else(|e| panic!("{c} {d} line: {e}\n{}", g.line));
                let (f, per) = elementwise_module_flat(&slots, c, "z = x + y;").unwrap();
                assert_eq!(per, 8, "int4's eight a word");
                assert!(
                    !f.module.contains("atomicOr"),
                    "{c} {d}: flat stores words whole"
                );
                validate(&f.module).unwrap_or_else(|e| panic!("{c} {d} flat: {e}\n{}", f.module));
                let p = elementwise_module_packed(&slots, c, "z = x + y;").unwrap();
                assert_eq!(p.is_some(), d.bits() < 32, "{c} {d}");
                if let Some(p) = p {
                    assert!(!p.module.contains("atomicOr"), "{c} {d}: stored whole");
                    validate(&p.module)
                        .unwrap_or_else(|e| panic!("{c} {d} packed: {e}\n{}", p.module));
                    validate(&p.line)
                        .unwrap_or_else(|e| panic!("{c} {d} packed line: {e}\n{}", p.line));
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
