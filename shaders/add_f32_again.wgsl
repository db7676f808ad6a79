// Between the two passes of float32 add on a device whose sums are not trusted: the
// workgroups of the exact pass (an indirect dispatch), the piece's own where the first
// pass raised its flag and none otherwise; the flag is lowered for the next piece.

struct Groups {
    // The exact pass's workgroups on x and y.
    xy: vec4<u32>,
}

@group(0) @binding(0) var<uniform> groups: Groups;
@group(0) @binding(1) var<storage, read_write> flag: u32;
@group(0) @binding(2) var<storage, read_write> args: array<u32, 4>;

@compute @workgroup_size(1)
fn main() {
    args[0] = select(0u, groups.xy.x, flag != 0u);
    args[1] = groups.xy.y;
    args[2] = 1u;
    flag = 0u;
}
