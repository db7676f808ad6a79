//! GGUF's block-quantized tensors dequantized on a CUDA device: `nx_ggml.cu`, the
//! kernel `ggml_wgsl.rs` writes in WGSL for wgpu devices, each element's float32 and
//! each 2048 elements' greatest magnitude; compiled by NVRTC once a device (its own
//! program, after the headers and `nx_launch.h`) and launched on the device's stream.
//! The same source runs on the host in `tests/dequant_c.rs`, against the host's
//! dequantization.

use std::sync::Arc;

use crate::array::{door_with, refused, AnyArray};
use crate::error::Error;
use crate::formats::GgmlType;
use crate::rig::cuda::{arg, Cuda};

/// The source files, in the order they are inlined.
const FILES: [&str; 4] = [
    include_str!("../../include/nx_dtype.h"),
    include_str!("../../include/nx_array.h"),
    include_str!("../kernels/cuda/nx_launch.h"),
    include_str!("nx_ggml.cu"),
];

/// The name the program is compiled under.
const KEY: &str = "nx_ggml.cu";

const NAME: &str = "dequantize_ggml";

/// The source NVRTC compiles.
pub(crate) fn source() -> String {
    crate::array::cuda_source::inlined(FILES.iter().copied())
}

/// `z` (uint32, the blocks' elements, contiguous, on `c`'s device) and `m` (uint32,
/// one word each 2048 elements, zeroed) from the blocks' words `w` and the type's
/// tables `g` (uint32 on the same device) by `nx_ggml`.
///
/// # Errors
/// What the door, NVRTC and the launch return ([`Error::Device`] where the program
/// does not compile or load on the device).
pub(crate) fn run(
    c: &Arc<Cuda>,
    ty: GgmlType,
    [w, g]: [&AnyArray; 2],
    z: &AnyArray,
    m: &AnyArray,
) -> Result<(), Error> {
    let eights = z.layout().numel() / 8;
    if !z.layout().is_contiguous() {
        return Err(Error::Invalid {
            op: NAME,
            reason: "the output is not contiguous".into(),
            operands: String::new(),
        });
    }
    door_with(
        NAME,
        &[z, m],
        &[w, g],
        || {
            let mut addr = [
                w.cuda_address(NAME)?,
                g.cuda_address(NAME)?,
                z.cuda_address(NAME)?,
                m.cuda_address(NAME)?,
            ];
            let (mut code, mut block, mut bytes, mut count) =
                (ty.code, ty.block, ty.block_bytes, eights as i64);
            z.rig()
                .submit(&[w.buffer(), g.buffer()], &[z.buffer(), m.buffer()], || {
                    let [aw, ag, az, am] = &mut addr;
                    // SAFETY: nx_ggml's parameters in order; every address is of live memory
                    // of `c` under the door's claims; the kernel reads the blocks' words
                    // (whole blocks, `eights * 8` elements), the type's tables (its grid's
                    // entries, indexed by at most its bits), and writes `eights * 8` words
                    // of `z` and `eights * 8 / 2048` rounded up of `m`.
                    unsafe {
                        c.launch_source(
                            NAME,
                            (KEY, "nx_ggml"),
                            source,
                            eights,
                            &mut [
                                arg(aw),
                                arg(ag),
                                arg(az),
                                arg(am),
                                arg(&mut code),
                                arg(&mut block),
                                arg(&mut bytes),
                                arg(&mut count),
                            ],
                        )
                    }
                })?;
            Ok(())
        },
        |answer| refused(NAME, answer, &[z, m, w, g]),
    )
}

#[cfg(test)]
mod tests {
    use crate::array::cuda_source::{params, ptx};

    /// The program NVRTC gets compiles as CUDA device code to PTX, and `nx_ggml` takes
    /// four device addresses, three 32-bit values and a 64-bit count, as `run` passes
    /// them. Its arithmetic is `tests/dequant_c.rs`'s, on the host.
    #[test]
    fn the_nvrtc_source_compiles_to_ptx_with_the_parameters_run_passes() {
        let text = ptx(&super::source());
        assert_eq!(params(&text, "nx_ggml", 0), "ppppiiip");
    }
}
