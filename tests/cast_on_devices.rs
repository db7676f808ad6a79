//! Cast on a GPU device through the runtime (`AnyArray::cast` on an array placed on
//! the first GPU: the generated WGSL, integer arithmetic only; on each CUDA device:
//! `nx_kernels.cu` through NVRTC) against the committed oracle vectors: every source
//! dtype into every target, all 1,021,255 records, any bit difference fails. A
//! machine without an adapter fails: install lavapipe. `NXRIG_CAST_DEVICE` names
//! another device for the first test (`scripts/device-check.sh`: `cuda0`). On each
//! CUDA device too, GGUF's block types (`nx_ggml.cu`) against the host's dequantization.
#![cfg(not(target_arch = "wasm32"))]

mod common;
#[path = "common/dut.rs"]
#[macro_use]
mod dut;
#[path = "common/ggml_blocks.rs"]
mod ggml_blocks;

use nxrig::{AnyArray, DType, Rig};

#[test]
fn cast_on_a_gpu_equals_the_oracle_vectors() {
    let name = std::env::var("NXRIG_CAST_DEVICE").unwrap_or_else(|_| "gpu".into());
    let gpu = Rig::by_name(&name).expect("a GPU device: install mesa-vulkan-drivers (lavapipe)");
    check(&gpu);
}

cuda_test! {
    /// The CUDA devices (cargo feature `cuda`).
    fn cast_on_each_cuda_device_equals_the_oracle_vectors() {
        for c in dut::cudas() {
            check(&c);
        }
    }
}

/// Every source dtype's vectors placed on `gpu` and cast there into every target.
fn check(gpu: &Rig) {
    eprintln!("device: {}", gpu.name());
    let mut bad = Vec::new();
    for src in DType::ALL {
        let data = common::records(src);
        let rl = common::record_len(src);
        let n = data.len() / rl;
        let w = common::width(src);
        let a = AnyArray::of_bits(src, &[n], &common::source_bits(src, &data))
            .unwrap()
            .to_device(gpu)
            .unwrap();
        let mut at = w;
        for dst in DType::ALL {
            let dw = common::width(dst);
            let c = a.cast(dst).unwrap();
            assert_eq!(c.rig(), gpu);
            let got = c.to_bits_vec().unwrap();
            let mut wrong = 0;
            for (i, rec) in data.chunks_exact(rl).enumerate() {
                // A cast into the same dtype is a copy: bit for bit, signalling NaNs too.
                let want = if dst == src {
                    common::le(&rec[..w])
                } else {
                    common::le(&rec[at..at + dw])
                };
                if got[i] != want {
                    if wrong < 3 {
                        bad.push(format!(
                            "{src} {:#x} -> {dst}: got {:#x}, want {want:#x}",
                            common::le(&rec[..w]),
                            got[i]
                        ));
                    }
                    wrong += 1;
                }
            }
            if wrong > 0 {
                bad.push(format!("{src} -> {dst}: {wrong} of {n} wrong"));
            }
            at += dw;
        }
    }
    assert!(bad.is_empty(), "on {}:\n{}", gpu.name(), bad.join("\n"));
}

cuda_test! {
    /// GGUF's block types on every CUDA device (`nx_ggml.cu` compiled by NVRTC): each
    /// element equal to the host's dequantization bit for bit, each 2048 elements'
    /// peak their greatest magnitude.
    fn the_ggml_kernel_on_cuda_writes_the_hosts_values() {
        for c in dut::cudas() {
            assert_eq!(pollster::block_on(ggml_blocks::every_type_on(&c)), 24);
        }
    }
}
