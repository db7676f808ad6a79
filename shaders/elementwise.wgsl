// elementwise: a kernel of the user's own, one invocation an element of the outputs'
// shape. nxrig's src/wgsl/elementwise.rs writes the module: this walk's binding, then
// each operand's binding, its load (the element's bits decoded into the compute type,
// exactly) or store (the compute type's value rounded once into the operand's dtype;
// sub-word elements stored with atomics, so that no neighbour's bits are lost), the
// walk of every operand's layout (strides, broadcast, flips, offsets), the body the
// user wrote as the function `nx_body` (the inputs its parameters, the outputs'
// values its result), and `main` in one of three forms: walked (an invocation an
// element, sub-word outputs stored with atomics), packed (an invocation a word of
// C-contiguous sub-word outputs, stored whole) or contiguous (an invocation a group of
// whole words of every operand, no walk).
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
