//! The contiguous form of elementwise modules: where every operand of a piece is
//! C-contiguous from an offset that is a multiple of [`flat_per`] elements, an
//! invocation takes a group of that many elements: each input's words loaded whole
//! and its elements taken out by constant shifts, the body called on each element,
//! each output's elements put into whole words by constant shifts and stored, with no
//! walk of positions and no atomics (the words of a group are its own).

use super::grid::{indented, MAIN_HEAD};
use super::operands::Slot;
use super::words::Words;

/// Elements an invocation of the contiguous form computes: four, or the most
/// elements a word of any operand holds (eight 4-bit ones), so that a group is whole
/// words of every operand.
pub fn flat_per(slots: &[Slot<'_>]) -> u32 {
    slots
        .iter()
        .map(|s| 32 / s.dtype.bits().min(32))
        .max()
        .unwrap_or(1)
        .max(4)
}

/// Words of `s`'s elements in a group of `g`.
fn words(s: &Slot<'_>, g: u32) -> u32 {
    g * s.dtype.bits() / 32
}

/// `let nx_at<j>`: the first word of group `nx_g` of operand `j` (groups of `g`).
fn at(slots: &[Slot<'_>], j: usize, g: u32) -> String {
    format!(
        "let nx_at{j} = (nx_walk.offsets[{}].{} + nx_g) * {}u;",
        j / 4,
        ["x", "y", "z", "w"][j % 4],
        words(&slots[j], g)
    )
}

/// The raw bits (`vec4<u32>`) of element `k` of the group of input `s`, from its
/// words `nx_w_<name>_<c>`.
fn element(s: &Slot<'_>, k: u32) -> String {
    let w = |c: u32| format!("nx_w_{}_{c}", s.name);
    match Words::of(s.dtype) {
        Words::Field { bits } => {
            let per = 32 / bits;
            let (c, shift) = (k / per, (k % per) * bits);
            let mask = (1u64 << bits) - 1;
            if shift == 0 {
                format!("vec4<u32>({} & {mask:#x}u, 0u, 0u, 0u)", w(c))
            } else {
                format!("vec4<u32>(({} >> {shift}u) & {mask:#x}u, 0u, 0u, 0u)", w(c))
            }
        }
        Words::Word => format!("vec4<u32>({}, 0u, 0u, 0u)", w(k)),
        Words::Multi { count: 2 } => format!("vec4<u32>({}, {}, 0u, 0u)", w(2 * k), w(2 * k + 1)),
        Words::Multi { .. } => format!(
            "vec4<u32>({}, {}, {}, {})",
            w(4 * k),
            w(4 * k + 1),
            w(4 * k + 2),
            w(4 * k + 3)
        ),
    }
}

/// The statements that put element `k`'s result of output `s` (operand `j`) into its
/// words: bit fields into the group's word variables, whole words stored at once.
fn put(j: usize, s: &Slot<'_>, k: u32) -> Vec<String> {
    let name = s.name;
    let bits = format!("nx_bits_{name}(nx_r{k}.{name})");
    match Words::of(s.dtype) {
        Words::Field { bits: b } => {
            let per = 32 / b;
            let (c, shift) = (k / per, (k % per) * b);
            vec![format!(
                "nx_w_{name}_{c} = nx_w_{name}_{c} | (({bits}.x & {:#x}u) << {shift}u);",
                (1u64 << b) - 1
            )]
        }
        Words::Word => vec![format!("nx_op_{name}[nx_at{j} + {k}u] = {bits}.x;")],
        Words::Multi { count } => {
            let mut v = vec![format!("let nx_o{k}_{name} = {bits};")];
            for c in 0..count {
                v.push(format!(
                    "nx_op_{name}[nx_at{j} + {}u] = nx_o{k}_{name}.{};",
                    k * count + c,
                    ["x", "y", "z", "w"][c as usize]
                ));
            }
            v
        }
    }
}

/// The contiguous `main`: a grid-stride loop over groups of [`flat_per`] elements,
/// the walk's count and each operand's offset (`nx_walk.offsets`) in groups.
pub(crate) fn main_flat(slots: &[Slot<'_>]) -> String {
    let g = flat_per(slots);
    let mut lines: Vec<String> = (0..slots.len()).map(|j| at(slots, j, g)).collect();
    for (j, s) in slots.iter().enumerate() {
        for c in 0..words(s, g) {
            if !s.output {
                lines.push(format!(
                    "let nx_w_{0}_{c} = nx_op_{0}[nx_at{j} + {c}u];",
                    s.name
                ));
            } else if Words::of(s.dtype).shares_words() {
                lines.push(format!("var nx_w_{}_{c} = 0u;", s.name));
            }
        }
    }
    for k in 0..g {
        let args: Vec<String> = slots
            .iter()
            .filter(|s| !s.output)
            .map(|s| format!("nx_value_{}({})", s.name, element(s, k)))
            .collect();
        lines.push(format!("let nx_r{k} = nx_body({});", args.join(", ")));
        for (j, s) in slots.iter().enumerate().filter(|(_, s)| s.output) {
            lines.extend(put(j, s, k));
        }
    }
    for (j, s) in slots.iter().enumerate() {
        if s.output && Words::of(s.dtype).shares_words() {
            for c in 0..words(s, g) {
                lines.push(format!(
                    "nx_op_{0}[nx_at{j} + {c}u] = nx_w_{0}_{c};",
                    s.name
                ));
            }
        }
    }
    format!(
        "{MAIN_HEAD}    for (var nx_g = nx_first; nx_g < nx_walk.n; nx_g = nx_g + nx_step) {{\n{}    }}\n}}\n",
        indented(&lines, 2)
    )
}

/// The raw bits (`vec4<u32>`) of element `nx_k` of the group of input `s` (operand
/// `j`), loaded at a position the loop computes.
fn element_at(j: usize, s: &Slot<'_>) -> String {
    let w = |c: &str| format!("nx_op_{}[nx_at{j} + {c}]", s.name);
    match Words::of(s.dtype) {
        Words::Field { bits } => {
            let per = 32 / bits;
            format!(
                "vec4<u32>(({} >> ((nx_k % {per}u) * {bits}u)) & {:#x}u, 0u, 0u, 0u)",
                w(&format!("nx_k / {per}u")),
                (1u64 << bits) - 1
            )
        }
        Words::Word => format!("vec4<u32>({}, 0u, 0u, 0u)", w("nx_k")),
        Words::Multi { count: 2 } => {
            format!(
                "vec4<u32>({}, {}, 0u, 0u)",
                w("2u * nx_k"),
                w("2u * nx_k + 1u")
            )
        }
        Words::Multi { .. } => format!(
            "vec4<u32>({}, {}, {}, {})",
            w("4u * nx_k"),
            w("4u * nx_k + 1u"),
            w("4u * nx_k + 2u"),
            w("4u * nx_k + 3u")
        ),
    }
}

/// The contiguous `main` with the group's elements in a loop rather than written out
/// (for bodies too large to repeat, as nxrig's exact operations are: a CPU adapter
/// such as SwiftShader compiles each copy): the same groups, words and stores as
/// [`main_flat`]'s.
pub(crate) fn main_flat_looped(slots: &[Slot<'_>]) -> String {
    let g = flat_per(slots);
    let mut head = Vec::new();
    for (j, s) in slots.iter().enumerate() {
        head.push(at(slots, j, g));
        if s.output && Words::of(s.dtype).shares_words() {
            head.push(format!("var nx_w_{} = 0u;", s.name));
        }
    }
    let args: Vec<String> = slots
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.output)
        .map(|(j, s)| format!("nx_value_{}({})", s.name, element_at(j, s)))
        .collect();
    let mut each = vec![format!("let nx_r = nx_body({});", args.join(", "))];
    for (j, s) in slots.iter().enumerate().filter(|(_, s)| s.output) {
        let name = s.name;
        let bits = format!("nx_bits_{name}(nx_r.{name})");
        match Words::of(s.dtype) {
            Words::Field { bits: b } => {
                let per = 32 / b;
                each.push(format!(
                    "nx_w_{name} = nx_w_{name} | (({bits}.x & {:#x}u) << ((nx_k % {per}u) * {b}u));",
                    (1u64 << b) - 1
                ));
                each.push(format!(
                    "if (nx_k % {per}u == {}u) {{ nx_op_{name}[nx_at{j} + nx_k / {per}u] = nx_w_{name}; nx_w_{name} = 0u; }}",
                    per - 1
                ));
            }
            Words::Word => each.push(format!("nx_op_{name}[nx_at{j} + nx_k] = {bits}.x;")),
            Words::Multi { count } => {
                each.push(format!("let nx_o_{name} = {bits};"));
                for c in 0..count {
                    each.push(format!(
                        "nx_op_{name}[nx_at{j} + {count}u * nx_k + {c}u] = nx_o_{name}.{};",
                        ["x", "y", "z", "w"][c as usize]
                    ));
                }
            }
        }
    }
    format!(
        "{MAIN_HEAD}    for (var nx_g = nx_first; nx_g < nx_walk.n; nx_g = nx_g + nx_step) {{\n{}        for (var nx_k = 0u; nx_k < {g}u; nx_k = nx_k + 1u) {{\n{}        }}\n    }}\n}}\n",
        indented(&head, 2),
        indented(&each, 3)
    )
}
