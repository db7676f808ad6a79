// raw: a whole module of the user's own over nxrig's operands. nxrig's
// src/wgsl/raw.rs writes what comes before the user's module: this walk of each
// operand's layout from an element's index in C order of its shape, binding 0 the
// layouts (`nx_layouts`, one an operand), then each operand's binding in order and its
// load (the element's bits decoded into the compute type, exactly) or store (rounded
// once into its dtype; sub-word elements stored with atomics, so that no neighbour's
// bits are lost). The user's module comes after, with its own entry point `main`,
// workgroup size and grid.
struct NxLayout {
    // Elements, axes (innermost first), the first element's position in the binding.
    numel: u32,
    rank: u32,
    offset: u32,
    pad: u32,
    // Axis k's extent at axes[k / 2u][2u * (k % 2u)], its stride after it.
    axes: array<vec4<i32>, 8>,
}

// Operand j's position of its element i.
fn nx_at(j: u32, i: u32) -> u32 {
    var p = i32(nx_layouts[j].offset);
    var rest = i;
    let rank = nx_layouts[j].rank;
    for (var k = 0u; k < rank; k = k + 1u) {
        let a = nx_layouts[j].axes[k / 2u];
        let odd = (k % 2u) == 1u;
        let e = u32(select(a.x, a.z, odd));
        var index = rest;
        if (k + 1u < rank) {
            index = rest % e;
            rest = rest / e;
        }
        p = p + i32(index) * select(a.y, a.w, odd);
    }
    return u32(p);
}
