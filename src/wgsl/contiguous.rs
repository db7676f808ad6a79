//! The contiguous form of elementwise modules: where every operand of a piece is
//! C-contiguous from an offset that is a multiple of [`group_len`] elements, an
//! invocation takes a group of that many elements: each operand bound as
//! `array<vec4<u32>>`, its group's words loaded (or stored) as whole vectors, its
//! elements taken out (or put in) by constant shifts, the body called on each element,
//! with no walk of positions and no atomics (the words of a group are its own). A
//! group is four words of the narrowest operand, so that every operand's share of it
//! is whole vectors.

use super::grid::{indented, MAIN_HEAD};
use super::operands::Slot;
use super::words::Words;

/// Elements an invocation of the contiguous form computes: four words of the
/// narrowest operand (four float32s, eight bfloat16s, thirty-two 4-bit integers), at
/// least four elements, so that a group is whole `vec4<u32>`s of every operand.
pub fn group_len(slots: &[Slot<'_>]) -> u32 {
    slots
        .iter()
        .map(|s| 128 / s.dtype.bits().min(128))
        .max()
        .unwrap_or(1)
        .max(4)
}

/// Words of `s`'s elements in a group of `g`.
fn words(s: &Slot<'_>, g: u32) -> u32 {
    g * s.dtype.bits() / 32
}

/// The lane of word `c` in its vector.
fn lane(c: u32) -> &'static str {
    ["x", "y", "z", "w"][(c % 4) as usize]
}

/// `let nx_at<j>`: the first vector of group `nx_g` of operand `j` (groups of `g`);
/// `at_zero`: every operand starts its binding window, and the offsets are not read
/// (a CPU adapter such as SwiftShader, seeing that each index is the invocation's own,
/// moves whole vectors).
fn at(slots: &[Slot<'_>], j: usize, g: u32, at_zero: bool) -> String {
    let vecs = words(&slots[j], g) / 4;
    if at_zero {
        return format!("let nx_at{j} = nx_g * {vecs}u;");
    }
    format!(
        "let nx_at{j} = (nx_walk.offsets[{}].{} + nx_g) * {vecs}u;",
        j / 4,
        lane(j as u32)
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

/// The statements that put element `k`'s result of output `s` into its words
/// `nx_w_<name>_<c>`: bit fields into the group's word variables, whole words bound.
fn put(s: &Slot<'_>, k: u32) -> Vec<String> {
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
        Words::Word => vec![format!("let nx_w_{name}_{k} = {bits}.x;")],
        Words::Multi { count } => {
            let mut v = vec![format!("let nx_o{k}_{name} = {bits};")];
            for c in 0..count {
                v.push(format!(
                    "let nx_w_{name}_{} = nx_o{k}_{name}.{};",
                    k * count + c,
                    lane(c)
                ));
            }
            v
        }
    }
}

/// The loads of input `s` (operand `j`): its group's vectors, and each word of them
/// as `nx_w_<name>_<c>`.
fn loads(j: usize, s: &Slot<'_>, g: u32) -> Vec<String> {
    let name = s.name;
    let mut lines = Vec::new();
    for v in 0..words(s, g) / 4 {
        lines.push(format!(
            "let nx_v_{name}_{v} = nx_op_{name}[nx_at{j} + {v}u];"
        ));
    }
    for c in 0..words(s, g) {
        lines.push(format!(
            "let nx_w_{name}_{c} = nx_v_{name}_{}.{};",
            c / 4,
            lane(c)
        ));
    }
    lines
}

/// The stores of output `s` (operand `j`): its group's words as whole vectors.
fn stores(j: usize, s: &Slot<'_>, g: u32) -> Vec<String> {
    let name = s.name;
    (0..words(s, g) / 4)
        .map(|v| {
            let w: Vec<String> = (0..4)
                .map(|c| format!("nx_w_{name}_{}", 4 * v + c))
                .collect();
            format!(
                "nx_op_{name}[nx_at{j} + {v}u] = vec4<u32>({});",
                w.join(", ")
            )
        })
        .collect()
}

/// The contiguous `main`, the body written out for each element of the group: a
/// grid-stride loop over groups of [`group_len`] elements, the walk's count and each
/// operand's offset (`nx_walk.offsets`, unread where `at_zero`) in groups.
pub(crate) fn main_contiguous(slots: &[Slot<'_>], at_zero: bool) -> String {
    let g = group_len(slots);
    let mut lines: Vec<String> = (0..slots.len()).map(|j| at(slots, j, g, at_zero)).collect();
    for (j, s) in slots.iter().enumerate() {
        if !s.output {
            lines.extend(loads(j, s, g));
        } else if Words::of(s.dtype).shares_words() {
            for c in 0..words(s, g) {
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
        for s in slots.iter().filter(|s| s.output) {
            lines.extend(put(s, k));
        }
    }
    for (j, s) in slots.iter().enumerate().filter(|(_, s)| s.output) {
        lines.extend(stores(j, s, g));
    }
    format!(
        "{MAIN_HEAD}    for (var nx_g = nx_first; nx_g < nx_walk.n; nx_g = nx_g + nx_step) {{\n{}    }}\n}}\n",
        indented(&lines, 2)
    )
}

/// `let nx_at<j>`: the first word of group `nx_g` of operand `j` (groups of `g`), as
/// [`at`]'s.
fn at_word(slots: &[Slot<'_>], j: usize, g: u32, at_zero: bool) -> String {
    let words = words(&slots[j], g);
    if at_zero {
        return format!("let nx_at{j} = nx_g * {words}u;");
    }
    format!(
        "let nx_at{j} = (nx_walk.offsets[{}].{} + nx_g) * {words}u;",
        j / 4,
        lane(j as u32)
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
/// such as SwiftShader compiles each copy): the same groups as [`main_contiguous`]'s, each
/// operand bound as `array<u32>` and reached a word at a time (a vector's lane chosen
/// at run time measured slower on lavapipe), the offsets (unread where `at_zero`) in
/// groups.
pub(crate) fn main_contiguous_looped(slots: &[Slot<'_>], at_zero: bool) -> String {
    let g = group_len(slots);
    let mut head = Vec::new();
    for (j, s) in slots.iter().enumerate() {
        head.push(at_word(slots, j, g, at_zero));
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
