//! Raw modules: a whole WGSL module of the user's own (its entry point `main`, its
//! workgroup size), after what nxrig generates for its operands from the dtype table
//! (`shaders/raw.wgsl`): for each operand `x`, `numel_x()`, and `load_x(i)` (an
//! input) or `store_x(i, v)` (an output) of its element `i` in C order of its own
//! shape, through its layout (strides, broadcast, flips, offsets).

use super::elementwise::Generated;
use super::operands::{compute_type, parts, Access, Slot, Values};
use crate::dtype::DType;
use crate::layout::Layout;

/// What every raw module starts with: the operands' layouts and their walk.
const HEAD: &str = include_str!("../../shaders/raw.wgsl");

/// Axes a raw module's layout has at most (after axes that continue each other merge).
pub const RAW_AXES: usize = 16;

/// Bytes of one operand's `NxLayout`: 4 words, then 16 axes of 2 words.
pub const RAW_LAYOUT_BYTES: usize = 16 + RAW_AXES * 8;

/// The module of a raw kernel: `slots` bound in order (binding 0 their layouts, then
/// each operand), each loaded or stored in `compute` (float32, int32 or uint32), then
/// `source`, the user's module, which calls them. An index at or past an operand's
/// `numel` loads 0 and stores nothing.
///
/// # Errors
/// A sentence for a compute dtype other than those three, or other than 1 to 8
/// operands.
pub fn raw_module(slots: &[Slot<'_>], compute: DType, source: &str) -> Result<Generated, String> {
    let ty = compute_type(compute)
        .ok_or_else(|| format!("no WGSL compute type is {compute} (float32, int32, uint32)"))?;
    let p = parts(slots, Values::Compute(compute), Access::Element)?;
    let mut accessors = Vec::with_capacity(2 * slots.len());
    for (j, s) in slots.iter().enumerate() {
        let name = s.name;
        accessors.push(format!(
            "fn numel_{name}() -> u32 {{\n    return nx_layouts[{j}].numel;\n}}"
        ));
        accessors.push(if s.output {
            format!(
                "fn store_{name}(i: u32, v: {ty}) {{\n    if (i < nx_layouts[{j}].numel) {{\n        nx_store4_{name}(nx_at({j}u, i), nx_bits_{name}(v));\n    }}\n}}"
            )
        } else {
            format!(
                "fn load_{name}(i: u32) -> {ty} {{\n    if (i >= nx_layouts[{j}].numel) {{\n        return {ty}();\n    }}\n    return nx_load_{name}(nx_at({j}u, i));\n}}"
            )
        });
    }
    let layouts = format!(
        "@group(0) @binding(0) var<uniform> nx_layouts: array<NxLayout, {}>;",
        slots.len()
    );
    let mut module = [
        HEAD,
        &layouts,
        &p.bindings.join("\n"),
        &p.helpers,
        &p.operands.join("\n\n"),
        &accessors.join("\n\n"),
    ]
    .join("\n\n");
    if !module.ends_with('\n') {
        module.push('\n');
    }
    module.push('\n');
    let body_line = module.lines().count() as u32 + 1;
    module.push_str(source);
    Ok(Generated {
        module,
        body_line,
        one_axis: String::new(),
    })
}

/// The `NxLayout`s of a raw module's operands, each layout's positions counted from
/// its binding's first element: `None` where an operand has more than [`RAW_AXES`]
/// axes after merging, or a count, a stride or a position does not fit 32-bit
/// arithmetic.
pub fn raw_params(layouts: &[Layout]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(layouts.len() * RAW_LAYOUT_BYTES);
    for l in layouts {
        let numel = u32::try_from(l.numel()).ok()?;
        if let Some((_, hi)) = l.bounds() {
            i32::try_from(hi).ok()?;
        }
        let offset = i32::try_from(l.offset()).ok()?;
        // Axes outermost first; one that continues the next merges with it.
        let mut axes: Vec<(usize, isize)> = Vec::with_capacity(l.rank());
        for (&e, &s) in l.shape().iter().zip(l.strides()) {
            if e == 1 {
                continue;
            }
            i32::try_from(s).ok()?;
            match axes.last_mut() {
                Some((pe, ps)) if *ps == s * e as isize => {
                    *pe *= e;
                    *ps = s;
                }
                _ => axes.push((e, s)),
            }
        }
        if axes.len() > RAW_AXES {
            return None;
        }
        let mut w: Vec<u32> = vec![numel, axes.len() as u32, offset as u32, 0];
        for k in 0..RAW_AXES {
            match axes.len().checked_sub(k + 1).map(|k| axes[k]) {
                Some((e, s)) => w.extend([u32::try_from(e).ok()?, s as i32 as u32]),
                None => w.extend([1, 0]),
            }
        }
        out.extend(w.iter().flat_map(|x| x.to_le_bytes()));
    }
    Some(out)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn every_dtype_loads_and_stores_in_every_compute_type() {
        let src = "@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n    store_z(id.x, load_x(id.x) + load_y(numel_y() - 1u));\n}\n";
        for c in [DType::Float32, DType::Int32, DType::Uint32] {
            for d in DType::ALL {
                let slots = [
                    Slot::input("x", d),
                    Slot::input("y", DType::Int4),
                    Slot::output("z", d),
                ];
                let g = raw_module(&slots, c, src).unwrap();
                assert!(!g.module.contains("{{"), "{c} {d}");
                crate::wgsl::tests::validate(&g.module);
            }
        }
    }
}
