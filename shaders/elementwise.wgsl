// elementwise: a kernel of the user's own, one invocation an element of the outputs'
// shape. nxrig's src/wgsl generates the module: each operand's binding, its load (the
// element's bits decoded into the compute type, exactly) or store (the compute type's
// value rounded once into the operand's dtype; sub-word elements stored with atomics,
// so that no neighbour's bits are lost), the walk of every operand's layout (strides,
// broadcast, flips, offsets), and around it the body the user wrote. The placeholders
// (a name in double braces) are filled there.
{{ENABLE}}
struct Walk {
    // Elements, axes (innermost first), then padding.
    n: u32,
    rank: u32,
    pad0: u32,
    pad1: u32,
    // Each operand's offset, in elements of its binding.
    offsets: array<vec4<u32>, 2>,
    // Each axis's extent.
    extents: array<vec4<u32>, 4>,
    // Axis k's stride of operand j at [2k + j / 4][j % 4].
    strides: array<vec4<i32>, 32>,
}

@group(0) @binding(0) var<uniform> nx_walk: Walk;

{{BINDINGS}}

{{HELPERS}}

{{OPERANDS}}

// Each operand's position of element i.
fn nx_positions(i: u32) -> array<u32, {{COUNT}}> {
    var p: array<i32, {{COUNT}}>;
    for (var j = 0u; j < {{COUNT}}u; j = j + 1u) {
        p[j] = i32(nx_walk.offsets[j / 4u][j % 4u]);
    }
    var rest = i;
    for (var k = 0u; k < nx_walk.rank; k = k + 1u) {
        var index = rest;
        if (k + 1u < nx_walk.rank) {
            let e = nx_walk.extents[k / 4u][k % 4u];
            index = rest % e;
            rest = rest / e;
        }
        for (var j = 0u; j < {{COUNT}}u; j = j + 1u) {
            p[j] = p[j] + i32(index) * nx_walk.strides[2u * k + j / 4u][j % 4u];
        }
    }
    var q: array<u32, {{COUNT}}>;
    for (var j = 0u; j < {{COUNT}}u; j = j + 1u) {
        q[j] = u32(p[j]);
    }
    return q;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) nx_gid: vec3<u32>, @builtin(num_workgroups) nx_groups: vec3<u32>) {
    let nx_step = nx_groups.x * nx_groups.y * 256u;
    for (var nx_i = nx_gid.x + nx_gid.y * nx_groups.x * 256u; nx_i < nx_walk.n; nx_i = nx_i + nx_step) {
        let nx_p = nx_positions(nx_i);
{{LOADS}}
{{BODY}}
{{STORES}}
    }
}
