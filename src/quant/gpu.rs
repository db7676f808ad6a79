//! A band dequantized on a GPU: its tables ([`super::lut`]) and its weight's words
//! uploaded, and a kernel of the weight's packing gathering each element's entry by
//! its code, two 16-bit outputs a word. On a wgpu device (Vulkan, Metal, DX12, the
//! browser's WebGPU) nxrig's raw kernels run it (`load_`, `store_` and `numel_` of
//! `u32` operands): its WGSL is written here, one `elem` function a packing, from the
//! layouts the host's dequantization reads ([`super::dequant`]); on a CUDA device,
//! `nx_dequant.cu` is the same kernel in CUDA C (`cuda.rs`).

use super::lut::Lut;
use super::scheme::Packing;
use crate::array::AnyArray;
use crate::dtype::DType;
use crate::error::Error;
use crate::kernels::RawKernel;
use crate::rig::backend::Backend;
use crate::rig::Rig;

/// Invocations a workgroup.
const GROUP: u32 = 256;

/// What every packing's module starts with: a byte of the weight, a field of a word.
const COMMON: &str = "
fn byte_w(b: u32) -> u32 {
    return (load_w(b >> 2u) >> ((b & 3u) * 8u)) & 255u;
}

fn field(word: u32, at: u32, bits: u32) -> u32 {
    return (word >> (bits * at)) & ((1u << bits) - 1u);
}

fn nibble(b: u32, odd: u32) -> u32 {
    return select(b & 15u, b >> 4u, odd == 1u);
}
";

/// `elem(e)`: the output bits of the band's element `e` (C order), for each packing.
/// Parameters `p`: 0 the band's elements, then the packing's (see `Lut::params`).
fn elem(packing: Packing) -> &'static str {
    match packing {
        // p: n, c, columns a block. a: each row's first table. 256 entries a table.
        Packing::Float8 => {
            "
fn elem(e: u32) -> u32 {
    let c = load_p(1u);
    let i = e / c;
    let col = e - i * c;
    return load_t((load_a(i) + col / load_p(2u)) * 256u + byte_w(e));
}
"
        }
        // p: n, c, scales a row, block, high-first. 16 entries a table.
        Packing::Fp4 => {
            "
fn elem(e: u32) -> u32 {
    let c = load_p(1u);
    let i = e / c;
    let col = e - i * c;
    let b = byte_w(i * (c / 2u) + col / 2u);
    let q = nibble(b, (col & 1u) ^ load_p(4u));
    return load_t((i * load_p(2u) + col / load_p(3u)) * 16u + q);
}
"
        }
        // gpt-oss: the band [rows of K, N] from the strip [N, width]: 16 bytes (32
        // rows) a scale. p: n, N, width, scales a column, high-first.
        Packing::Fp4Experts => {
            "
fn elem(e: u32) -> u32 {
    let nc = load_p(1u);
    let r = e / nc;
    let j = e - r * nc;
    let blk = r / 32u;
    let b = byte_w(j * load_p(2u) + blk * 16u + (r % 32u) / 2u);
    let q = nibble(b, (r & 1u) ^ load_p(4u));
    return load_t((j * load_p(3u) + blk) * 16u + q);
}
"
        }
        // compressed-tensors: weight [band, K / per]. p: n, K, words a row, per, bits,
        // groups. a: each column's group. Tables [band, groups].
        Packing::IntRows => {
            "
fn elem(e: u32) -> u32 {
    let k = load_p(1u);
    let i = e / k;
    let col = e - i * k;
    let per = load_p(3u);
    let bits = load_p(4u);
    let q = field(load_w(i * load_p(2u) + col / per), col % per, bits);
    return load_t(((i * load_p(5u) + load_a(col)) << bits) + q);
}
"
        }
        // GPTQ: the strip [K / per, band]. p: n, K, band rows, per, bits. Tables
        // [groups, band].
        Packing::IntGptq => {
            "
fn elem(e: u32) -> u32 {
    let k = load_p(1u);
    let i = e / k;
    let col = e - i * k;
    let nr = load_p(2u);
    let per = load_p(3u);
    let bits = load_p(4u);
    let q = field(load_w((col / per) * nr + i), col % per, bits);
    return load_t(((load_a(col) * nr + i) << bits) + q);
}
"
        }
        // AWQ: the strip [K, band / 8], nibbles in the order 0, 2, 4, 6, 1, 3, 5, 7.
        // p: n, K, band rows, words a column, bits. Tables [groups, band].
        Packing::IntAwq => {
            "
fn elem(e: u32) -> u32 {
    let k = load_p(1u);
    let i = e / k;
    let col = e - i * k;
    let m = i % 8u;
    let q = field(load_w(col * load_p(3u) + i / 8u), (m >> 1u) + (m & 1u) * 4u, 4u);
    return load_t(((load_a(col) * load_p(2u) + i) << 4u) + q);
}
"
        }
    }
}

/// The module of `packing`'s kernel: one output word an invocation, two 16-bit
/// elements (`pairs`) or one 32-bit.
fn module(packing: Packing, pairs: bool) -> String {
    let body = if pairs {
        "let e = 2u * k;
    var v = elem(e);
    if (e + 1u < load_p(0u)) {
        v = v | (elem(e + 1u) << 16u);
    }
    store_z(k, v);"
    } else {
        "store_z(k, elem(k));"
    };
    format!(
        "{COMMON}{}
@compute @workgroup_size({GROUP})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    let k = id.x;
    if (k >= numel_z()) {{
        return;
    }}
    {body}
}}
",
        elem(packing)
    )
}

impl Lut {
    /// Whether `rig` runs this band's kernel: a CUDA device, or a wgpu device where
    /// the band's output words fit one row of workgroups.
    pub fn runs_on(&self, rig: &Rig) -> bool {
        match rig.backend() {
            Backend::Host(_) => false,
            Backend::Wgpu(_) => self.output_words().div_ceil(GROUP as usize) <= 65535,
            #[cfg(feature = "cuda")]
            Backend::Cuda(_) => true,
        }
    }

    fn output_words(&self) -> usize {
        let n = self.params[0] as usize;
        if self.to.bits() == 16 {
            n.div_ceil(2)
        } else {
            n
        }
    }

    /// The band on `rig` (a GPU, [`Lut::runs_on`]): `[n]` of the output dtype, every
    /// element its table's entry.
    ///
    /// # Errors
    /// What uploading, allocating on `rig` and running the kernel return;
    /// [`Error::Invalid`] on the host (which dequantizes without tables).
    pub async fn run(&self, rig: &Rig) -> Result<AnyArray, Error> {
        let pairs = self.to.bits() == 16;
        let up = |v: &[u32]| -> Result<AnyArray, Error> {
            let v = if v.is_empty() { vec![0] } else { v.to_vec() };
            AnyArray::from(crate::Array::from_vec(&[v.len()], v)?).to_device(rig)
        };
        let (w, t, a, p) = (
            up(&self.words)?,
            up(&self.tables)?,
            up(&self.aux)?,
            up(&self.params)?,
        );
        let words = self.output_words();
        let z = AnyArray::create(rig, DType::Uint32, &[words])?;
        match rig.backend() {
            Backend::Host(_) => {
                return Err(Error::Invalid {
                    op: "dequantize",
                    reason:
                        "a band's tables are gathered on a GPU; the host dequantizes without them"
                            .into(),
                    operands: String::new(),
                })
            }
            Backend::Wgpu(_) => {
                let k = RawKernel::<u32>::new(&format!("dequantize {:?}", self.packing))
                    .input("w", DType::Uint32)
                    .input("t", DType::Uint32)
                    .input("a", DType::Uint32)
                    .input("p", DType::Uint32)
                    .output("z", DType::Uint32)
                    .wgsl(&module(self.packing, pairs));
                k.call_async(
                    &[&w, &t, &a, &p],
                    &[&z],
                    [(words as u32).div_ceil(GROUP), 1, 1],
                )
                .await?;
            }
            #[cfg(feature = "cuda")]
            Backend::Cuda(c) => super::cuda::run(&c.0, [&w, &t, &a, &p], &z, self.packing, pairs)?,
        }
        let n = self.params[0] as usize;
        let bad = || Error::Format {
            path: String::new(),
            tensor: None,
            reason: "nxrig bug: a band's words do not view as its dtype".into(),
        };
        if pairs {
            let h = z.bitcast(DType::Uint16)?.ok_or_else(bad)?;
            let h = h.reshape(&[2 * words])?.slice(&[crate::layout::Slice {
                start: Some(0),
                stop: Some(n as isize),
                step: 1,
            }])?;
            h.bitcast(self.to)?.ok_or_else(bad)
        } else {
            z.bitcast(self.to)?.ok_or_else(bad)
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// Every packing's module parses as WGSL with the raw kernels' functions declared.
    #[test]
    fn modules_parse() {
        let pre = "fn load_w(i: u32) -> u32 { return i; }
fn load_t(i: u32) -> u32 { return i; }
fn load_a(i: u32) -> u32 { return i; }
fn load_p(i: u32) -> u32 { return i; }
fn numel_z() -> u32 { return 1u; }
fn store_z(i: u32, v: u32) {}
";
        for p in [
            Packing::Float8,
            Packing::Fp4,
            Packing::Fp4Experts,
            Packing::IntRows,
            Packing::IntGptq,
            Packing::IntAwq,
        ] {
            for pairs in [false, true] {
                let src = format!("{pre}{}", module(p, pairs));
                naga::front::wgsl::parse_str(&src)
                    .unwrap_or_else(|e| panic!("{p:?}: {}", e.emit_to_string(&src)));
            }
        }
    }
}
