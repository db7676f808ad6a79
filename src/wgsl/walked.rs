//! The walked forms of an elementwise module's `main`: the walk of every operand's
//! layout (`nx_positions`, written out for the operands, with a form for walks of one
//! axis), an invocation an element (sub-word outputs stored with atomics), or packed:
//! an invocation a word of C-contiguous sub-word outputs, stored whole.

use super::grid::{indented, MAIN_HEAD};
use super::operands::Slot;

/// Elements a word of the outputs, where they are all of one width under 32 bits.
pub fn packed_per(slots: &[Slot<'_>]) -> Option<u32> {
    let mut bits = slots.iter().filter(|s| s.output).map(|s| s.dtype.bits());
    let b = bits.next()?;
    (b < 32 && bits.all(|x| x == b)).then_some(32 / b)
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
/// array in private memory (which a CPU adapter's vector lanes spill). `one_axis`: the
/// walk of one axis alone (the parameters' rank at most 1).
pub(super) fn positions(n: usize, one_axis: bool) -> String {
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
    if one_axis {
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

/// The walked `main`: an invocation an element (a grid-stride loop).
pub(super) fn main_walked(slots: &[Slot<'_>]) -> String {
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
pub(super) fn main_packed(slots: &[Slot<'_>]) -> String {
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
