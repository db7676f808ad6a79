// add: out = x + y elementwise, over any layouts (x and y broadcast by zero strides),
// one dtype. Floats: the exact sum rounded once to nearest, ties to even (in 32-bit
// integer arithmetic, or in a native type where nxrig's src/wgsl chose one: then only
// for normal operands and results, which native hardware rounds the same); a NaN
// operand gives that NaN quieted, x's first; inf - inf gives the positive quiet NaN.
// Integers wrap; bool is or; complex adds each part. Generated per dtype by nxrig's
// src/wgsl from the dtype table; the placeholders (a name in double braces) are filled
// there.
{{ENABLE}}
{{WALK}}

@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<{{DST_WORD}}>;
@group(0) @binding(3) var<storage, read> src2: array<u32>;

{{ADD_FNS}}

{{LOAD}}

{{STORE}}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let step = invocations(groups);
    for (var i = element(gid, groups); i < params.n; i = i + step) {
        let p = positions3(i);
        store4(p.y, add(load4(p.x), load4_y(p.z)));
    }
}
