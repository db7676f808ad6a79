//! GGUF's block-quantized tensors dequantized on a GPU: the blocks' bytes uploaded as
//! they are in the file (Q8_0's a quarter of their float32s, Q4_K's a seventh, Q1_0's
//! a twenty-eighth), a kernel of the
//! type writing each element's float32, equal bit for bit to the host's
//! ([`super::ggml`]), and each 2048 elements' greatest magnitude, from which a
//! conversion knows whether any value may overflow its target without reading the
//! values back. Through wgpu (Vulkan, Metal, DX12, the browser's WebGPU) a raw kernel
//! whose WGSL is [`super::ggml_wgsl`]'s; on CUDA `nx_ggml.cu` (`ggml_cuda.rs`), which
//! writes a contiguous `z` (a conversion's and a load's are).

use super::ggml::{dequantizes, IQ4_VALUES};
use super::ggml_grids::*;
use super::ggml_wgsl::{value, COMMON};
use crate::array::AnyArray;
use crate::dtype::DType;
use crate::error::Error;
use crate::formats::GgmlType;
use crate::kernels::RawKernel;
use crate::rig::backend::Backend;
use crate::rig::Rig;

/// Invocations a workgroup.
const GROUP: u32 = 256;
/// Consecutive elements an invocation writes (of one block: every type's block holds
/// a multiple of 8), all computed before the first is stored. A workgroup writes
/// `GROUP * EACH`: a piece of 16 M float32s is 8192 workgroups, under a dispatch's
/// 65 535.
const EACH: u32 = 8;

/// Whether a conversion or a load onto `rig` dequantizes blocks of `ty` there: a GPU
/// through wgpu that is not a CPU adapter, and a type nxrig dequantizes. A CPU adapter
/// (lavapipe, SwiftShader) runs the kernel ([`dequantize_ggml_on`] on it is exact too)
/// slower than the host's own dequantization: Q4_K into float16 through lavapipe,
/// 256 MiB of blocks, 26.6 s against 5.4 s with the blocks dequantized on the host and
/// the cast on lavapipe. A CUDA device dequantizes there too (`nx_ggml.cu`); the host
/// on the host. Where the environment has `NXRIG_GGML_ON_CPU=1` (natively), a CPU
/// adapter dequantizes too: the tests' way through the device's path on lavapipe.
pub fn dequantizes_on(ty: GgmlType, rig: &Rig) -> bool {
    #[cfg(not(target_arch = "wasm32"))]
    let cpu_too = std::env::var("NXRIG_GGML_ON_CPU").is_ok_and(|v| v == "1");
    #[cfg(target_arch = "wasm32")]
    let cpu_too = false;
    runs_on(ty, rig)
        && rig
            .wgpu()
            .is_none_or(|g| cpu_too || g.info().device_type != "Cpu")
}

/// Whether [`dequantize_ggml_into`] runs on `rig`: a GPU (through wgpu, or CUDA), and a
/// type nxrig dequantizes.
fn runs_on(ty: GgmlType, rig: &Rig) -> bool {
    let gpu = match rig.backend() {
        Backend::Host(_) => false,
        Backend::Wgpu(_) => true,
        #[cfg(feature = "cuda")]
        Backend::Cuda(_) => true,
    };
    gpu && dequantizes(ty) && value(ty.name).is_some()
}

/// The module of `ty`'s kernel: invocation `k` of workgroup `w` writes the `EACH`
/// elements from `(w * GROUP + k) * EACH` (of one block), then the workgroup's
/// greatest magnitude (as bits, the sign cleared: a NaN's above an infinity's) into
/// `m[w]`.
fn module(ty: GgmlType, body: &str) -> String {
    format!(
        "{COMMON}{body}
const BLOCK: u32 = {block}u;
const BLOCK_BYTES: u32 = {bytes}u;
var<workgroup> peak: atomic<u32>;

@compute @workgroup_size({GROUP})
fn main(@builtin(local_invocation_index) k: u32, @builtin(workgroup_id) w: vec3<u32>) {{
    let first = (w.x * {GROUP}u + k) * {EACH}u;
    var m = 0u;
    if (first < numel_z()) {{
        let blk = first / BLOCK;
        let o = blk * BLOCK_BYTES;
        let j = first - blk * BLOCK;
        var v: array<u32, {EACH}>;
        for (var t = 0u; t < {EACH}u; t++) {{
            v[t] = value(o, j + t);
        }}
        for (var t = 0u; t < {EACH}u; t++) {{
            store_z(first + t, v[t]);
            m = max(m, v[t] & 0x7FFFFFFFu);
        }}
    }}
    atomicMax(&peak, m);
    workgroupBarrier();
    if (k == 0u) {{
        store_m(w.x, atomicLoad(&peak));
    }}
}}
",
        block = ty.block,
        bytes = ty.block_bytes,
    )
}

/// The words a GPU's kernel of `ty` reads as its tables (`g`): 16 of the type's values
/// as float32 bits (IQ4's non-linear values, an IQ grid's), then its grid's entries
/// (each 8 or 4 value indices of 2 or 3 bits, the first in the lowest bits); one 0
/// for a type with none.
pub fn ggml_tables(ty: GgmlType) -> Vec<u32> {
    fn of<T: Copy + Into<f32>>(values: &[T], grid: &[u32]) -> Vec<u32> {
        let mut t = vec![0u32; 16];
        for (t, &v) in t.iter_mut().zip(values) {
            *t = v.into().to_bits();
        }
        t.extend_from_slice(grid);
        t
    }
    match ty.name {
        "IQ4_NL" | "IQ4_XS" => of(&IQ4_VALUES, &[]),
        "IQ2_XXS" => of(&IQ2XXS_VALUES, &IQ2XXS_GRID),
        "IQ2_XS" => of(&IQ2XS_VALUES, &IQ2XS_GRID),
        "IQ2_S" => of(&IQ2S_VALUES, &IQ2S_GRID),
        "IQ3_XXS" => of(&IQ3XXS_VALUES, &IQ3XXS_GRID),
        "IQ3_S" => of(&IQ3S_VALUES, &IQ3S_GRID),
        "IQ1_S" | "IQ1_M" => of(&IQ1S_VALUES, &IQ1S_GRID),
        _ => vec![0],
    }
}

/// Whole blocks of `ty` (`blocks`, a multiple of its block's bytes) dequantized on
/// `rig` (a GPU through wgpu): `[n]` float32 there (`n` the blocks' elements, each the
/// value [`super::dequantize_ggml`] gives), and each workgroup's greatest magnitude
/// ([`dequantize_ggml_into`]).
///
/// # Errors
/// As [`dequantize_ggml_into`].
pub async fn dequantize_ggml_on(
    ty: GgmlType,
    blocks: &[u8],
    rig: &Rig,
) -> Result<(AnyArray, AnyArray), Error> {
    let n = blocks.len() / (ty.block_bytes as usize).max(1) * ty.block as usize;
    let z = AnyArray::create(rig, DType::Uint32, &[n])?;
    let m = dequantize_ggml_into(ty, blocks, &z).await?;
    let z = z
        .bitcast(DType::Float32)?
        .ok_or_else(|| fail("nxrig bug: uint32 words do not view as float32".into()))?;
    Ok((z, m))
}

/// An [`Error::Format`] of path `ggml`.
fn fail(reason: String) -> Error {
    Error::Format {
        path: "ggml".into(),
        tensor: None,
        reason,
    }
}

/// Whole blocks of `ty` (`blocks`, a multiple of its block's bytes) dequantized into
/// `z` (uint32 of the blocks' elements, any view, on a GPU through wgpu):
/// each element the float32 bits of the value [`super::dequantize_ggml`] gives. Returns
/// `[w]` uint32 on `z`'s device, each workgroup's greatest magnitude among its
/// elements as float32 bits with the sign cleared: their greatest says whether any
/// value may overflow a target (a NaN's is above every other).
///
/// # Errors
/// [`Error::Format`] (path `ggml`): bytes that are not whole blocks, a `z` of another
/// count, a type `z`'s device does not dequantize; what uploading, allocating and
/// running the kernel return.
pub async fn dequantize_ggml_into(
    ty: GgmlType,
    blocks: &[u8],
    z: &AnyArray,
) -> Result<AnyArray, Error> {
    let rig = z.rig();
    let bb = ty.block_bytes as usize;
    let body = value(ty.name).filter(|_| runs_on(ty, rig)).ok_or_else(|| {
        fail(format!(
            "ggml type {}: {} does not dequantize it",
            ty.name,
            rig.name()
        ))
    })?;
    if !blocks.len().is_multiple_of(bb) {
        return Err(fail(format!(
            "{} bytes are not whole blocks of {} ({bb} bytes)",
            blocks.len(),
            ty.name
        )));
    }
    let n = blocks.len() / bb * ty.block as usize;
    if z.layout().numel() != n || z.dtype() != DType::Uint32 {
        return Err(fail(format!(
            "{n} elements of {} into {} {}",
            ty.name,
            z.layout().numel(),
            z.dtype()
        )));
    }
    let groups = n.div_ceil((GROUP * EACH) as usize).max(1);
    let count = u32::try_from(groups).map_err(|_| {
        fail(format!(
            "{n} elements are more than one dispatch of {} takes",
            ty.name
        ))
    })?;
    let mut words = blocks.to_vec();
    words.resize(blocks.len().next_multiple_of(4).max(4), 0);
    let w = AnyArray::of_bytes(DType::Uint32, &[words.len() / 4], words)?.to_device(rig)?;
    let t = ggml_tables(ty);
    let g = AnyArray::from(crate::Array::from_vec(&[t.len()], t)?).to_device(rig)?;
    let m = AnyArray::create(rig, DType::Uint32, &[groups])?;
    match rig.backend() {
        Backend::Host(_) => unreachable!("refused by runs_on"),
        Backend::Wgpu(_) => {
            let k = RawKernel::<u32>::new(&format!("dequantize {}", ty.name))
                .input("w", DType::Uint32)
                .input("g", DType::Uint32)
                .output("z", DType::Uint32)
                .output("m", DType::Uint32)
                .wgsl(&module(ty, body));
            k.call_async(&[&w, &g], &[z, &m], [count, 1, 1]).await?;
        }
        #[cfg(feature = "cuda")]
        Backend::Cuda(c) => super::ggml_cuda::run(&c.0, ty, [&w, &g], z, &m)?,
    }
    Ok(m)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::formats::GGML_TYPES;

    /// Every dequantized type's module parses and validates as WGSL with the raw
    /// kernels' functions declared.
    #[test]
    fn modules_validate() {
        let pre = "@group(0) @binding(0) var<storage, read> w_: array<u32>;
@group(0) @binding(1) var<storage, read_write> z_: array<u32>;
fn load_w(i: u32) -> u32 { return w_[i]; }
fn load_g(i: u32) -> u32 { return w_[i]; }
fn numel_z() -> u32 { return arrayLength(&z_); }
fn store_z(i: u32, v: u32) { z_[i] = v; }
fn store_m(i: u32, v: u32) { z_[i] = v; }
";
        let mut seen = 0;
        for ty in GGML_TYPES.iter().filter(|t| dequantizes(**t)) {
            let body = value(ty.name).unwrap_or_else(|| panic!("{}: no WGSL", ty.name));
            let src = format!("{pre}{}", module(*ty, body));
            let m = naga::front::wgsl::parse_str(&src)
                .unwrap_or_else(|e| panic!("{}: {}", ty.name, e.emit_to_string(&src)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::empty(),
            )
            .validate(&m)
            .unwrap_or_else(|e| panic!("{}: {}", ty.name, e.emit_to_string(&src)));
            seen += 1;
        }
        assert_eq!(seen, 24);
    }
}
