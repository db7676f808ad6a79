//! Every conversion against the committed oracle vectors (`tests/vectors/`, made by
//! ml_dtypes, NumPy and exact rational arithmetic): any bit difference fails.

mod common;

use nxrig::dtype::convert_bits;
use nxrig::{AnyArray, DType, Move, Slice};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// The element conversion, one element at a time.
fn check_elements(src: DType) {
    let mut bad = Vec::new();
    let n = common::for_each(src, |s, t, want| {
        let got = convert_bits(src, t, s);
        if got != want && bad.len() < 20 {
            bad.push(format!("{src} {s:#x} -> {t}: got {got:#x}, want {want:#x}"));
        }
    });
    assert!(n > 0);
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// The records' sources as four arrays of the same elements: contiguous; every other
/// element of twice as many (stride 2, junk between); reversed (a flipped view of the
/// reversed records); at an odd offset (junk first). Names say which.
fn forms(src: DType, bits: &[u128]) -> Vec<(&'static str, AnyArray)> {
    let n = bits.len();
    let junk = |i: usize| (i as u128).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835);
    let mut spread = Vec::with_capacity(2 * n);
    for (i, &b) in bits.iter().enumerate() {
        spread.push(b);
        spread.push(junk(i));
    }
    let rev: Vec<u128> = bits.iter().rev().copied().collect();
    let shifted: Vec<u128> = std::iter::once(junk(7))
        .chain(bits.iter().copied())
        .collect();
    let a = |shape: usize, b: &[u128]| AnyArray::of_bits(src, &[shape], b).unwrap();
    let step = |a: AnyArray, s: Slice| a.move_(&Move::Slice(vec![s])).unwrap().unwrap();
    vec![
        ("contiguous", a(n, bits)),
        (
            "strided",
            step(a(2 * n, &spread), Slice::new(None, None, 2)),
        ),
        (
            "reversed",
            a(n, &rev).move_(&Move::Flip(vec![0])).unwrap().unwrap(),
        ),
        (
            "at an odd offset",
            step(a(n + 1, &shifted), Slice::new(Some(1), None, 1)),
        ),
    ]
}

/// The array cast kernel (typed loops over runs), the whole vector set as one array
/// in each of four layouts. A cast into the source's own dtype is a copy and keeps
/// every bit.
fn check_cast(src: DType) {
    let data = common::records(src);
    let rl = common::record_len(src);
    let w = common::width(src);
    let bits = common::source_bits(src, &data);
    for (form, a) in forms(src, &bits) {
        let mut at = w;
        for &t in &DType::ALL {
            let got = a.cast(t).unwrap().to_bits_vec().unwrap();
            let tw = common::width(t);
            let mut bad = 0;
            for (i, rec) in data.chunks_exact(rl).enumerate() {
                // A cast into the same dtype is a copy: bit for bit, signaling NaNs too.
                let want = if t == src {
                    common::le(&rec[..w])
                } else {
                    common::le(&rec[at..at + tw])
                };
                if got[i] != want {
                    if bad < 5 {
                        eprintln!(
                            "{form}: cast {src} {:#x} -> {t}: got {:#x}, want {want:#x}",
                            bits[i], got[i]
                        );
                    }
                    bad += 1;
                }
            }
            assert_eq!(bad, 0, "{form}: cast {src} -> {t}: {bad} records wrong");
            at += tw;
        }
    }
}

macro_rules! vector_tests {
    ($($name:ident: $d:ident),* $(,)?) => {
        mod elements {
            use super::*;
            $(#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
            #[cfg_attr(not(target_arch = "wasm32"), test)]
            fn $name() { check_elements(DType::$d) })*
        }
        mod cast {
            use super::*;
            $(#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
            #[cfg_attr(not(target_arch = "wasm32"), test)]
            fn $name() { check_cast(DType::$d) })*
        }
    };
}

vector_tests! {
    float16: Float16, bfloat16: Bfloat16, float8_e4m3fn: Float8E4m3fn, float8_e5m2: Float8E5m2,
    float32: Float32, float64: Float64, int4: Int4, uint4: Uint4, int8: Int8, uint8: Uint8,
    int16: Int16, uint16: Uint16, int32: Int32, uint32: Uint32, int64: Int64, uint64: Uint64,
    complex64: Complex64, complex128: Complex128, bool: Bool, float8_e4m3: Float8E4m3,
    float8_e3m4: Float8E3m4, float8_e4m3fnuz: Float8E4m3fnuz, float8_e5m2fnuz: Float8E5m2fnuz,
    float8_e4m3b11fnuz: Float8E4m3b11fnuz, float8_e8m0fnu: Float8E8m0fnu,
    float8_e5m3fnu: Float8E5m3fnu, float4_e2m1fn: Float4E2m1fn, float6_e2m3fn: Float6E2m3fn,
    float6_e3m2fn: Float6E3m2fn, int2: Int2, uint2: Uint2, int1: Int1, uint1: Uint1,
    complex32: Complex32, bcomplex32: Bcomplex32,
}
