// flat4: the contiguous form of an elementwise kernel over 32-bit elements. Every
// operand is C-contiguous from an offset that is a multiple of 4 elements, bound as
// vec4<u32> and taken four elements at a time: a quarter of the invocations and no
// layout walk. nxrig's src/wgsl chooses this form for each piece of a kernel where it
// applies, and fills the placeholders (a name in double braces) with the kernel's own
// element function (and what an invocation does last); the parameters' count and
// offsets are in units of 4 elements.
{{ENABLE}}
{{WALK}}

// Every operand starts its binding window (compiled apart: the common case of arrays
// that start their memory, where a CPU adapter such as SwiftShader, seeing that each
// index is the invocation's own, moves whole vectors; with the parameters' offsets
// added it does not, and the kernel takes half as long again).
const AT_ZERO: bool = {{AT_ZERO}};

// The index of element group i of an operand that starts at group `offset`.
fn at(offset: u32, i: u32) -> u32 {
    return select(offset, 0u, AT_ZERO) + i;
}

@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;
{{SRC2}}

{{FUNCTIONS}}

// One element's raw bits from one of src's (and src2's).
fn one(a: u32, b: u32) -> u32 {
    {{ONE}}
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let step = invocations(groups);
    for (var i = element(gid, groups); i < params.n; i = i + step) {
        let a = src[at(params.src_offset, i)];
        let b = {{LOAD_B}};
        dst[at(params.dst_offset, i)] = vec4<u32>(one(a.x, b.x), one(a.y, b.y), one(a.z, b.z), one(a.w, b.w));
    }
    {{END}}
}
