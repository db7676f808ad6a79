//! The CUDA dequantization kernel (`src/quant/nx_dequant.cu`) compiled for the host as
//! C99 (through `nx_launch.h`) and run by `tests/c/check_dequant.c` on the tables nxrig
//! builds for a GPU (`Group::lut`), each band's words against the host's
//! dequantization of the same bytes (`Group::dequantize`, itself held to a NumPy oracle
//! of the published formulas in `tests/quant/dequant.py`): every packing, bfloat16,
//! float16 and float32, both nibble orders. A CUDA device runs this source; where
//! none is, its arithmetic is checked here.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::HashMap;

use nxrig::dtype::CastMode;
use nxrig::formats::Entry;
use nxrig::quant::{Choice, Grouping, Nibbles, Quantization};
use nxrig::DType;

/// xorshift64*: the tensors' bytes, the same every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// An integer in `lo..hi`.
    fn int(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// A tensor of a layout: its name, dtype, shape and bytes.
type Tensor = (&'static str, DType, Vec<usize>, Vec<u8>);

/// `n` float16s in [2^-10, 2^-4) (a scale's range).
fn f16s(r: &mut Rng, n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|_| (((r.int(5, 11) << 10) | r.int(0, 1024)) as u16).to_le_bytes())
        .collect()
}

/// `n` bfloat16s in [2^-10, 2^-4).
fn bf16s(r: &mut Rng, n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|_| (((r.int(117, 123) << 7) | r.int(0, 128)) as u16).to_le_bytes())
        .collect()
}

/// `n` int32s of any bits.
fn i32s(r: &mut Rng, n: usize) -> Vec<u8> {
    r.bytes(4 * n)
}

/// A layout of every packing: its `config.json`, `hf_quant_config.json` and tensors.
fn layouts(
    r: &mut Rng,
) -> Vec<(
    &'static str,
    serde_json::Value,
    Option<serde_json::Value>,
    Vec<Tensor>,
)> {
    use serde_json::json;
    let perm = |r: &mut Rng, groups: usize, group: usize| -> Vec<u8> {
        let mut g: Vec<i32> = (0..groups * group).map(|i| (i / group) as i32).collect();
        for i in (1..g.len()).rev() {
            g.swap(i, r.int(0, i as u64 + 1) as usize);
        }
        g.iter().flat_map(|v| v.to_le_bytes()).collect()
    };
    let shape64 = |a: usize, b: usize| -> Vec<u8> {
        [a as i64, b as i64]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect()
    };
    let f32s = |r: &mut Rng, n: usize| -> Vec<u8> {
        (0..n)
            .flat_map(|_| (r.int(1, 2000) as f32 / 1000.0).to_le_bytes())
            .collect()
    };
    vec![
        (
            "fp8 blocks (DeepSeek-V3), edge blocks",
            json!({"quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}),
            None,
            vec![
                (
                    "l.weight",
                    DType::Float8E4m3fn,
                    vec![300, 200],
                    r.bytes(60000),
                ),
                ("l.weight_scale_inv", DType::Float32, vec![3, 2], f32s(r, 6)),
            ],
        ),
        (
            "NVFP4 (ModelOpt)",
            json!({}),
            Some(json!({"quantization": {"quant_algo": "NVFP4", "group_size": 16}})),
            vec![
                ("q.weight", DType::Uint8, vec![32, 40], r.bytes(1280)),
                (
                    "q.weight_scale",
                    DType::Float8E4m3fn,
                    vec![32, 5],
                    (0..160).map(|_| r.int(0x20, 0x60) as u8).collect(),
                ),
                (
                    "q.weight_scale_2",
                    DType::Float32,
                    vec![],
                    0.000123f32.to_le_bytes().to_vec(),
                ),
            ],
        ),
        (
            "MXFP4 experts (gpt-oss)",
            json!({"quantization_config": {"quant_method": "mxfp4"}}),
            None,
            vec![
                (
                    "m.experts.down_proj_blocks",
                    DType::Uint8,
                    vec![2, 40, 3, 16],
                    r.bytes(3840),
                ),
                (
                    "m.experts.down_proj_scales",
                    DType::Uint8,
                    vec![2, 40, 3],
                    (0..240).map(|_| r.int(118, 136) as u8).collect(),
                ),
            ],
        ),
        (
            "compressed-tensors int4 groups, zero points, g_idx",
            json!({"quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
                "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
                "strategy": "group", "group_size": 32, "symmetric": false, "actorder": "group"}}}}}),
            None,
            vec![
                (
                    "d.weight_packed",
                    DType::Int32,
                    vec![48, 12],
                    i32s(r, 48 * 12),
                ),
                (
                    "d.weight_scale",
                    DType::Bfloat16,
                    vec![48, 3],
                    bf16s(r, 144),
                ),
                ("d.weight_zero_point", DType::Int32, vec![6, 3], i32s(r, 18)),
                ("d.weight_g_idx", DType::Int32, vec![96], perm(r, 3, 32)),
                ("d.weight_shape", DType::Int64, vec![2], shape64(48, 96)),
            ],
        ),
        (
            "compressed-tensors int8 channels",
            json!({"quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
                "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "int",
                "strategy": "channel", "symmetric": true}}}}}),
            None,
            vec![
                ("u.weight_packed", DType::Int32, vec![16, 16], i32s(r, 256)),
                ("u.weight_scale", DType::Float16, vec![16, 1], f16s(r, 16)),
                ("u.weight_shape", DType::Int64, vec![2], shape64(16, 64)),
            ],
        ),
        (
            "GPTQ v2 4-bit, g_idx",
            json!({"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 32,
                "desc_act": true, "sym": false, "checkpoint_format": "gptq_v2"}}),
            None,
            vec![
                ("o.qweight", DType::Int32, vec![12, 40], i32s(r, 480)),
                ("o.qzeros", DType::Int32, vec![3, 5], i32s(r, 15)),
                ("o.scales", DType::Float16, vec![3, 40], f16s(r, 120)),
                ("o.g_idx", DType::Int32, vec![96], perm(r, 3, 32)),
            ],
        ),
        (
            "GPTQ v2 8-bit",
            json!({"quantization_config": {"quant_method": "gptq", "bits": 8, "group_size": 32,
                "desc_act": false, "sym": false, "checkpoint_format": "gptq_v2"}}),
            None,
            vec![
                ("k.qweight", DType::Int32, vec![16, 24], i32s(r, 384)),
                ("k.qzeros", DType::Int32, vec![2, 6], i32s(r, 12)),
                ("k.scales", DType::Float16, vec![2, 24], f16s(r, 48)),
            ],
        ),
        (
            "AWQ GEMM",
            json!({"quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 32,
                "version": "gemm", "zero_point": true}}),
            None,
            vec![
                ("a.qweight", DType::Int32, vec![64, 6], i32s(r, 384)),
                ("a.qzeros", DType::Int32, vec![2, 6], i32s(r, 12)),
                ("a.scales", DType::Float16, vec![2, 48], f16s(r, 96)),
            ],
        ),
    ]
}

fn words_of(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

#[test]
fn the_cuda_kernel_writes_the_hosts_bytes_for_every_packing() {
    let exe = common::compile_c("tests/c/check_dequant.c", "check_dequant");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut packings = std::collections::BTreeSet::new();
    for (what, config, hf, tensors) in layouts(&mut rng) {
        let bytes: HashMap<&str, &[u8]> = tensors.iter().map(|t| (t.0, &t.3[..])).collect();
        let entries: Vec<Entry> = tensors
            .iter()
            .map(|(name, dtype, shape, b)| Entry {
                name: name.to_string(),
                dtype: *dtype,
                shape: shape.clone(),
                start: 0,
                len: b.len() as u64,
                fortran: false,
                big_endian: false,
                file_bits: dtype.bits(),
                ggml: None,
            })
            .collect();
        let fp4 = what.contains("FP4");
        let orders: &[Nibbles] = if fp4 {
            &[Nibbles::LowFirst, Nibbles::HighFirst]
        } else {
            &[Nibbles::LowFirst]
        };
        for &nibbles in orders {
            let choice = Choice {
                scheme: None,
                nibbles,
            };
            let q = Quantization::detect(Some(&config), hf.as_ref(), &choice)
                .unwrap()
                .unwrap_or_else(|| panic!("{what}: a scheme"));
            let g = Grouping::new(
                entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (0, i, "m.safetensors", e)),
                &q,
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(g.groups.len(), 1, "{what}");
            let g = &g.groups[0];
            packings.insert(g.packing.number());
            let mut records = Vec::new();
            for to in [DType::Bfloat16, DType::Float16, DType::Float32] {
                for band in g.bands() {
                    let inputs: Vec<_> = g.inputs().collect();
                    let mut b = vec![Vec::new(); inputs.len()];
                    for read in g.reads(&band) {
                        let t = bytes[inputs[read.input].name.as_str()];
                        for (off, len) in read.runs {
                            b[read.input].extend_from_slice(&t[off as usize..(off + len) as usize]);
                        }
                    }
                    let lut = g
                        .lut(&band, &b, to, CastMode::Default)
                        .unwrap()
                        .expect("tables for bfloat16, float16 and float32");
                    let (want, _) = g.dequantize(&band, &b, to, CastMode::Default).unwrap();
                    assert_eq!(want.dtype(), to);
                    let want = words_of(&want.to_bytes().unwrap());
                    let pairs = u32::from(to.bits() == 16);
                    let head = [
                        lut.packing.number(),
                        pairs,
                        lut.words.len() as u32,
                        lut.tables.len() as u32,
                        lut.aux.len() as u32,
                        lut.params.len() as u32,
                        want.len() as u32,
                    ];
                    for v in [
                        &head[..],
                        &lut.words,
                        &lut.tables,
                        &lut.aux,
                        &lut.params,
                        &want,
                    ] {
                        records.extend(v.iter().flat_map(|w| w.to_le_bytes()));
                    }
                }
            }
            let name = format!("dequant-{}-{nibbles:?}", g.packing.number());
            common::check_records(&exe, &[], &name, &records);
        }
    }
    assert_eq!(packings.len(), 6, "every packing: {packings:?}");
}

/// GGUF's block types through the CUDA kernel (`src/quant/nx_ggml.cu`) compiled for the
/// host: random blocks (every byte, so every scale code, NaNs and infinities too), 40 of
/// each type nxrig dequantizes, each element's float32 bits equal to the host's
/// dequantization (a NaN to a NaN) and each 2048 elements' peak the greatest magnitude
/// among them.
#[test]
fn the_cuda_ggml_kernel_writes_the_hosts_values_for_every_type() {
    use nxrig::formats::GGML_TYPES;
    use nxrig::quant::{dequantize_ggml, dequantizes, ggml_tables};
    let exe = common::compile_c("tests/c/check_ggml.c", "check_ggml");
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut records = Vec::new();
    let mut types = 0;
    for ty in GGML_TYPES.iter().copied().filter(|&t| dequantizes(t)) {
        let b = rng.bytes(40 * ty.block_bytes as usize);
        let want = dequantize_ggml(ty, &b).unwrap();
        let peaks: Vec<u32> = want
            .chunks(2048)
            .map(|c| c.iter().map(|x| x.to_bits() & 0x7FFF_FFFF).max().unwrap())
            .collect();
        let w = words_of(&b);
        let g = ggml_tables(ty);
        let head = [
            ty.code,
            ty.block,
            ty.block_bytes,
            w.len() as u32,
            g.len() as u32,
            want.len() as u32,
        ];
        let want: Vec<u32> = want.iter().map(|x| x.to_bits()).collect();
        for v in [&head[..], &w, &g, &want, &peaks] {
            records.extend(v.iter().flat_map(|w| w.to_le_bytes()));
        }
        types += 1;
    }
    assert_eq!(types, 24);
    common::check_records(&exe, &[], "ggml", &records);
}
