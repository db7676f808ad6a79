// transfer: copies every element of `src` (any layout) into `dst` (any layout), bit
// for bit. Placement, not arithmetic: no value is converted, NaN payloads are kept.
// Generated per element width by nxrig's src/wgsl from the dtype table; the
// placeholders (a name in double braces) are filled there.

{{WALK}}

@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<{{DST_WORD}}>;

{{LOAD}}

{{STORE}}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let step = invocations(groups);
    for (var i = element(gid, groups); i < params.n; i = i + step) {
        let p = positions(i);
        store(p.y, load(p.x));
    }
}
