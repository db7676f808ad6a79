//! Every block-quantized ggml type dequantized by a GPU's kernel against the host's
//! dequantization (which `tests/gguf/gguf_check.py` holds bit for bit to
//! `gguf.quants.dequantize`): random blocks, every byte of them (so scales of every
//! float16, E8M0 and UE4M3 code, NaNs and infinities included), 40 blocks a type
//! (several workgroups of the K-quants), each float32 equal bit for bit (a NaN equal to
//! a NaN), and each workgroup's peak the greatest magnitude among its 2048 values.
#![allow(dead_code)]

use nxrig::formats::{GgmlType, GGML_TYPES};
use nxrig::quant::{dequantize_ggml, dequantize_ggml_on, dequantizes};
use nxrig::{AnyArray, Rig};

/// Random bytes (a 64-bit LCG's high bytes) from `seed`.
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 56) as u8
        })
        .collect()
}

/// The host bytes of `a`, on any device.
async fn host_bytes(a: &AnyArray) -> Vec<u8> {
    a.to_device_async(&Rig::host())
        .await
        .unwrap()
        .to_bytes()
        .unwrap()
}

/// Every type nxrig dequantizes, on `gpu`, against the host; returns how many.
pub async fn every_type_on(gpu: &Rig) -> usize {
    let mut seen = 0;
    for (k, ty) in GGML_TYPES
        .iter()
        .copied()
        .filter(|&t| dequantizes(t))
        .enumerate()
    {
        let b = bytes(k as u64 + 1, 40 * ty.block_bytes as usize);
        let want = dequantize_ggml(ty, &b).unwrap();
        let (z, m) = dequantize_ggml_on(ty, &b, gpu).await.unwrap();
        let got: Vec<f32> = bytemuck::pod_collect_to_vec(&host_bytes(&z).await);
        check(ty, &want, &got);
        let peaks: Vec<u32> = bytemuck::pod_collect_to_vec(&host_bytes(&m).await);
        let wanted: Vec<u32> = want
            .chunks(2048)
            .map(|c| c.iter().map(|x| x.to_bits() & 0x7FFF_FFFF).max().unwrap())
            .collect();
        assert_eq!(peaks, wanted, "{}: the workgroups' peaks", ty.name);
        seen += 1;
    }
    seen
}

fn check(ty: GgmlType, want: &[f32], got: &[f32]) {
    assert_eq!(want.len(), got.len(), "{}", ty.name);
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        assert!(
            w.to_bits() == g.to_bits() || (w.is_nan() && g.is_nan()),
            "{}: element {i} (block {}) is {g:e} ({:#010x}) on the GPU, {w:e} ({:#010x}) on the host",
            ty.name,
            i / ty.block as usize,
            g.to_bits(),
            w.to_bits()
        );
    }
}
