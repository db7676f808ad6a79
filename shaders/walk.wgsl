// The parameters every elementwise kernel takes, and the walk from an element's C-order
// number to its positions in the source, the destination and (for kernels of two
// operands) the second source's layouts (in elements: position = offset +
// sum(index[k] * strides[k])).

struct Params {
    // Number of elements, rank, and the offsets (in elements) of source and destination.
    n: u32,
    rank: u32,
    src_offset: u32,
    dst_offset: u32,
    // Per axis, innermost first: extent, source stride, destination stride, second
    // source stride.
    axes: array<vec4<i32>, 16>,
    // The second source's offset (x; the rest pads the struct).
    src2_offset: vec4<u32>,
}

@group(0) @binding(0) var<uniform> params: Params;

// The first element this invocation handles, from a dispatch of up to 65535 x Y
// groups of 256; it then takes every `invocations(groups)`-th element after it (a
// grid-stride loop: neighbouring invocations touch neighbouring elements, and each
// invocation's fixed cost is spread over several elements).
fn element(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * groups.x * 256u;
}

fn invocations(groups: vec3<u32>) -> u32 {
    return groups.x * groups.y * 256u;
}

// The source and destination positions of element i (a kernel of one source; the
// compiler drops the unused third position).
fn positions(i: u32) -> vec2<u32> {
    return positions3(i).xy;
}

// The source, destination and second source positions of element i.
fn positions3(i: u32) -> vec3<u32> {
    if (params.rank == 1u) {
        let a = params.axes[0];
        return vec3<u32>(
            u32(i32(params.src_offset) + i32(i) * a.y),
            u32(i32(params.dst_offset) + i32(i) * a.z),
            u32(i32(params.src2_offset.x) + i32(i) * a.w),
        );
    }
    var rest = i;
    var sp = i32(params.src_offset);
    var dp = i32(params.dst_offset);
    var tp = i32(params.src2_offset.x);
    for (var k = 0u; k + 1u < params.rank; k = k + 1u) {
        let a = params.axes[k];
        let e = u32(a.x);
        let j = rest % e;
        rest = rest / e;
        sp = sp + i32(j) * a.y;
        dp = dp + i32(j) * a.z;
        tp = tp + i32(j) * a.w;
    }
    if (params.rank > 0u) {
        let a = params.axes[params.rank - 1u];
        sp = sp + i32(rest) * a.y;
        dp = dp + i32(rest) * a.z;
        tp = tp + i32(rest) * a.w;
    }
    return vec3<u32>(u32(sp), u32(dp), u32(tp));
}
