//! How each dtype's elements lie in the `u32` words WGSL binds: the one table from
//! which every load and store is generated.
//!
//! Element position `p` of a dtype `b` bits wide:
//! - `b` < 32 (4, 8, 16): bit field `(p % (32 / b)) * b` of word `p / (32 / b)`;
//! - `b` = 32: word `p`;
//! - `b` = 64 or 128: words `p * b / 32` onward, low word first.

use crate::dtype::DType;

/// The word layout of elements `bits` wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Words {
    /// Several elements a word: each a bit field of `bits` bits.
    Field {
        /// Element width in bits (4, 8 or 16).
        bits: u32,
    },
    /// One element a word.
    Word,
    /// `count` words an element (2 for 64-bit, 4 for 128-bit).
    Multi {
        /// Words an element.
        count: u32,
    },
}

impl Words {
    /// The word layout of `d`'s elements.
    pub fn of(d: DType) -> Words {
        Words::of_bits(d.bits())
    }

    /// The word layout of elements `bits` wide (4, 8, 16, 32, 64 or 128).
    ///
    /// # Panics
    /// For another width, which no dtype has.
    pub fn of_bits(bits: u32) -> Words {
        match bits {
            4 | 8 | 16 => Words::Field { bits },
            32 => Words::Word,
            64 | 128 => Words::Multi { count: bits / 32 },
            b => no_dtype_is(b),
        }
    }

    /// True when a store writes part of a word that other elements share, so that a
    /// kernel storing at arbitrary positions must use atomics.
    pub fn shares_words(self) -> bool {
        matches!(self, Words::Field { .. })
    }

    /// The element type of a destination binding of these elements: `atomic<u32>`
    /// where elements share words, else `u32`.
    pub fn dst_word(self) -> &'static str {
        if self.shares_words() {
            "atomic<u32>"
        } else {
            "u32"
        }
    }
}

#[cold]
fn no_dtype_is(bits: u32) -> ! {
    panic!("nxrig bug: no dtype is {bits} bits wide")
}

/// `fn NAME(p: u32) -> T` reading element position `p` of the `array<u32>` named `array`.
pub(crate) fn load_named(w: Words, name: &str, array: &str) -> String {
    match w {
        Words::Field { bits } => {
            let per = 32 / bits;
            format!(
                "fn {name}(p: u32) -> u32 {{\n    let shift = (p % {per}u) * {bits}u;\n    return ({array}[p / {per}u] >> shift) & {mask:#x}u;\n}}",
                mask = (1u64 << bits) - 1
            )
        }
        Words::Word => format!("fn {name}(p: u32) -> u32 {{\n    return {array}[p];\n}}"),
        Words::Multi { count: 2 } => format!("fn {name}(p: u32) -> vec2<u32> {{\n    return vec2<u32>({array}[2u * p], {array}[2u * p + 1u]);\n}}"),
        Words::Multi { .. } => format!(
            "fn {name}(p: u32) -> vec4<u32> {{\n    let q = 4u * p;\n    return vec4<u32>({array}[q], {array}[q + 1u], {array}[q + 2u], {array}[q + 3u]);\n}}"
        ),
    }
}

/// `fn NAME(p: u32, x: T)` writing element position `p` of the array named `array`.
/// Bit fields are stored with `atomicAnd` then `atomicOr` on an `array<atomic<u32>>`:
/// each invocation changes only its own element's bits, so no neighbour's store is
/// lost.
pub(crate) fn store_named(w: Words, name: &str, array: &str) -> String {
    match w {
        Words::Field { bits } => {
            let per = 32 / bits;
            format!(
                "fn {name}(p: u32, x: u32) {{\n    let shift = (p % {per}u) * {bits}u;\n    let q = p / {per}u;\n    atomicAnd(&{array}[q], ~({mask:#x}u << shift));\n    atomicOr(&{array}[q], (x & {mask:#x}u) << shift);\n}}",
                mask = (1u64 << bits) - 1
            )
        }
        Words::Word => format!("fn {name}(p: u32, x: u32) {{\n    {array}[p] = x;\n}}"),
        Words::Multi { count: 2 } => format!("fn {name}(p: u32, x: vec2<u32>) {{\n    {array}[2u * p] = x.x;\n    {array}[2u * p + 1u] = x.y;\n}}"),
        Words::Multi { .. } => format!(
            "fn {name}(p: u32, x: vec4<u32>) {{\n    let q = 4u * p;\n    {array}[q] = x.x;\n    {array}[q + 1u] = x.y;\n    {array}[q + 2u] = x.z;\n    {array}[q + 3u] = x.w;\n}}"
        ),
    }
}
