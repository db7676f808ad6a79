//! The generated WGSL cast kernels (`nxrig::wgsl::cast_module`, integer arithmetic
//! only: the path for adapters without f16, i64 or f64) on a real GPU through wgpu,
//! against the committed oracle vectors: every source dtype into every target, any
//! bit difference fails. A machine without an adapter fails: install lavapipe.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::gpu;
use nxrig::dtype::read_bits;
use nxrig::wgsl::cast_module;
use nxrig::{AnyArray, DType};

#[test]
fn generated_cast_kernels_equal_the_oracle_vectors_on_a_gpu() {
    let (dev, q, name) = pollster::block_on(gpu::device());
    eprintln!("adapter: {name}");
    let mut bad = Vec::new();
    for src in DType::ALL {
        let data = common::records(src);
        let rl = common::record_len(src);
        let n = data.len() / rl;
        let w = common::width(src);
        let a = AnyArray::of_bits(src, &[n], &common::source_bits(src, &data)).unwrap();
        let sbytes = a.buffer().read(|b| b.to_vec()).unwrap();
        let mut at = w;
        for dst in DType::ALL {
            let dw = common::width(dst);
            let p = gpu::params(n, (0, 0), &[(n, 1, 1)]);
            let out = pollster::block_on(gpu::dispatch(
                &dev,
                &q,
                &cast_module(src, dst),
                &p,
                n,
                &sbytes,
                &vec![0u8; dst.bytes(n).unwrap()],
            ));
            let mut wrong = 0;
            for (i, rec) in data.chunks_exact(rl).enumerate() {
                let want = common::le(&rec[at..at + dw]);
                let got = read_bits(dst, &out, i);
                if got != want {
                    if wrong < 3 {
                        bad.push(format!(
                            "{src} {:#x} -> {dst}: got {got:#x}, want {want:#x}",
                            common::le(&rec[..w])
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
    assert!(bad.is_empty(), "on {name}:\n{}", bad.join("\n"));
}
