// cast: every element of `src` (any layout) converted into the dtype of `dst` (any
// layout), by `convert` (shaders/convert.wgsl). nxrig's src/wgsl generates one module
// per (source, target) pair from the dtype table; the placeholders (a name in double
// braces) are filled there.

struct Params {
    n: u32,
    rank: u32,
    src_offset: u32,
    dst_offset: u32,
    // Per axis, innermost first: extent, source stride, destination stride.
    axes: array<vec4<i32>, 16>,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<{{DST_WORD}}>;

{{FACTS}}

{{CONVERT}}

{{LOAD}}

{{STORE}}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = gid.x + gid.y * groups.x * 256u;
    if (i >= params.n) {
        return;
    }
    var rest = i;
    var sp = i32(params.src_offset);
    var dp = i32(params.dst_offset);
    for (var k = 0u; k < params.rank; k = k + 1u) {
        let a = params.axes[k];
        let e = u32(a.x);
        let j = rest % e;
        rest = rest / e;
        sp = sp + i32(j) * a.y;
        dp = dp + i32(j) * a.z;
    }
    store4(u32(dp), convert(load4(u32(sp))));
}
