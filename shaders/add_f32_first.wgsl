// The first pass of float32 add where the device's float32 sums are not trusted (it
// flushes subnormals): the native sums, stored, and a flag raised where any element
// of the piece needs shaders/add_f32_scaled.wgsl's exact sum: an operand pair below
// 2^-60 that is not two zeros, or a NaN result (a NaN operand, inf - inf). Only then
// does the exact kernel run over the piece (dispatched indirectly: the count of its
// workgroups is set from the flag by shaders/add_f32_again.wgsl). A branch would not
// do: a CPU adapter such as SwiftShader runs both sides of every branch.

@group(0) @binding(4) var<storage, read_write> flag: atomic<u32>;

// Set where an element of this invocation needs the exact sum.
var<private> seen: u32 = 0u;

fn add_f32_first(a: u32, b: u32) -> u32 {
    let r = bitcast<u32>(bitcast<f32>(a) + bitcast<f32>(b));
    let m = max(a & 0x7fffffffu, b & 0x7fffffffu);
    seen = seen | select(0u, 1u, m - 1u < 0x217fffffu) | select(0u, 1u, (r & 0x7fffffffu) > 0x7f800000u);
    return r;
}
