// The first pass of the 8- and 16-bit floats' add (bfloat16, float16, the float8s) in
// the contiguous form, over words of LANES elements: each pair decoded into float32
// exactly, summed natively (one correct rounding in float32, which rounded once more
// into the dtype is the exact sum's one rounding: float32 has more than twice their
// precision and two bits), and a flag raised where any element of the piece needs
// shaders/add_float.wgsl's exact sum: a NaN or infinite operand, or (bfloat16, whose
// range is float32's) a pair below 2^-100 that is not two zeros, whose sum a device
// that flushes subnormals would get wrong. Only then does the exact kernel run over
// the piece (dispatched indirectly, as float32's first pass is). A branch would not
// do: a CPU adapter such as SwiftShader runs both sides of every branch. The
// placeholders (a name in double braces) are filled by src/wgsl/add_subword.rs.

@group(0) @binding(4) var<storage, read_write> flag: atomic<u32>;

// Set where an element of this invocation needs the exact sum.
var<private> seen: u32 = 0u;

// The float32 bits of an element's bits `v`, exact; `seen` raised for a NaN or an
// infinity.
fn decode(v: u32) -> u32 {
    {{DECODE}}
}

fn add_lane(a: u32, b: u32) -> u32 {
    let x = decode(a);
    let y = decode(b);
    let r = bitcast<u32>(bitcast<f32>(x) + bitcast<f32>(y));
    {{NEAR_ZERO}}
    return {{ROUND}}(r);
}
