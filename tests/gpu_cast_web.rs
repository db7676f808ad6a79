//! The generated WGSL cast kernels on WebGPU in the browser (headless Chromium's
//! SwiftShader adapter: no f16, no i64, no f64), against the oracle vectors: every
//! source dtype into every target, on a sample of at most 4096 records a source (every
//! record of the 8-bit and 4-bit sources). Run by `wasm-pack test --headless --chrome`.
#![cfg(target_arch = "wasm32")]

mod common;

use common::gpu;
use nxrig::dtype::read_bits;
use nxrig::wgsl::cast_module;
use nxrig::{AnyArray, DType};
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn generated_cast_kernels_equal_the_oracle_vectors_on_webgpu() {
    let (dev, q, name) = gpu::device().await;
    console_log!("adapter: {name}");
    let mut bad = Vec::new();
    for src in DType::ALL {
        let data = common::records(src);
        let rl = common::record_len(src);
        let all = data.len() / rl;
        let step = all.div_ceil(4096);
        let recs: Vec<&[u8]> = data.chunks_exact(rl).step_by(step).collect();
        let n = recs.len();
        let w = common::width(src);
        let bits: Vec<u128> = recs.iter().map(|r| common::le(&r[..w])).collect();
        let a = AnyArray::of_bits(src, &[n], &bits).unwrap();
        let sbytes = a.buffer().read(|b| b.to_vec()).unwrap();
        let mut at = w;
        for dst in DType::ALL {
            let dw = common::width(dst);
            let p = gpu::params(n, (0, 0), &[(n, 1, 1)]);
            let out = gpu::dispatch(
                &dev,
                &q,
                &cast_module(src, dst),
                &p,
                n,
                &sbytes,
                &vec![0u8; dst.bytes(n).unwrap()],
            )
            .await;
            let wrong = recs
                .iter()
                .enumerate()
                .filter(|(i, rec)| read_bits(dst, &out, *i) != common::le(&rec[at..at + dw]))
                .count();
            if wrong > 0 {
                bad.push(format!("{src} -> {dst}: {wrong} of {n} wrong"));
            }
            at += dw;
        }
        console_log!("{src}: {n} records into every dtype");
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
