// cast: every element of `src` (any layout) converted into the dtype of `dst` (any
// layout), by `convert` (shaders/convert.wgsl). nxrig's src/wgsl generates one module
// per (source, target) pair from the dtype table; the placeholders (a name in double
// braces) are filled there.

{{WALK}}

@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<{{DST_WORD}}>;

{{FACTS}}

{{CONVERT}}

{{LOAD}}

{{STORE}}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let step = invocations(groups);
    for (var i = element(gid, groups); i < params.n; i = i + step) {
        let p = positions(i);
        store4(p.y, convert(load4(p.x)));
    }
}
