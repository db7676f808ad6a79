//! A band dequantized on a CUDA device: `nx_dequant.cu`, the kernel `gpu.rs` writes in
//! WGSL for wgpu devices, gathering each element's entry from the band's tables
//! ([`super::lut`]) by its code; compiled by NVRTC once a device (its own program,
//! after the headers and `nx_launch.h`) and launched on the device's stream. The same
//! source runs on the host in `tests/dequant_c.rs`, against the host's
//! dequantization.

use std::sync::Arc;

use super::scheme::Packing;
use crate::array::{door_with, refused, AnyArray};
use crate::error::Error;
use crate::rig::cuda::{arg, Cuda};

/// The source files, in the order they are inlined.
const FILES: [&str; 4] = [
    include_str!("../../include/nx_dtype.h"),
    include_str!("../../include/nx_array.h"),
    include_str!("../kernels/cuda/nx_launch.h"),
    include_str!("nx_dequant.cu"),
];

/// The name the program is compiled under.
const KEY: &str = "nx_dequant.cu";

const NAME: &str = "dequantize";

/// The source NVRTC compiles.
pub(crate) fn source() -> String {
    crate::array::cuda_source::inlined(FILES.iter().copied())
}

/// `z`'s words (`[words]` of uint32, on `c`'s device) from the weight's words `w`,
/// the tables `t`, the index `a` and the parameters `p` (uint32, on the same device)
/// by `nx_dequant`: two 16-bit elements a word where `pairs`.
///
/// # Errors
/// What the door, NVRTC and the launch return ([`Error::Device`] where the program
/// does not compile or load on the device).
pub(crate) fn run(
    c: &Arc<Cuda>,
    inputs: [&AnyArray; 4],
    z: &AnyArray,
    packing: Packing,
    pairs: bool,
) -> Result<(), Error> {
    let [w, t, a, p] = inputs;
    let words = z.layout().numel();
    door_with(
        NAME,
        &[z],
        &inputs,
        || {
            let mut addr = [
                w.cuda_address(NAME)?,
                t.cuda_address(NAME)?,
                a.cuda_address(NAME)?,
                p.cuda_address(NAME)?,
                z.cuda_address(NAME)?,
            ];
            let (mut packing, mut pairs, mut count) =
                (packing.number(), u32::from(pairs), words as i64);
            z.rig().submit(
                &[w.buffer(), t.buffer(), a.buffer(), p.buffer()],
                &[z.buffer()],
                || {
                    let [aw, at, aa, ap, az] = &mut addr;
                    // SAFETY: nx_dequant's parameters in order; every address is of
                    // live memory of `c` under the door's claims, and the kernel reads
                    // only the positions the tables' builder made (`Lut`'s invariants)
                    // and writes `words` words of `z`.
                    unsafe {
                        c.launch_source(
                            NAME,
                            (KEY, "nx_dequant"),
                            source,
                            words,
                            &mut [
                                arg(aw),
                                arg(at),
                                arg(aa),
                                arg(ap),
                                arg(az),
                                arg(&mut packing),
                                arg(&mut pairs),
                                arg(&mut count),
                            ],
                        )
                    }
                },
            )?;
            Ok(())
        },
        |answer| refused(NAME, answer, &[z, w, t, a, p]),
    )
}

#[cfg(test)]
mod tests {
    use crate::array::cuda_source::{params, ptx};

    /// The program NVRTC gets compiles as CUDA device code to PTX, and `nx_dequant`
    /// takes five device addresses, two 32-bit values and a 64-bit count, as `run`
    /// passes them. Its arithmetic is `tests/dequant_c.rs`'s, on the host.
    #[test]
    fn the_nvrtc_source_compiles_to_ptx_with_the_parameters_run_passes() {
        let text = ptx(&super::source());
        assert_eq!(params(&text, "nx_dequant", 0), "pppppiip");
    }
}
