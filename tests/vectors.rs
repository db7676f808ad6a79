//! Every conversion against the committed oracle vectors (`tests/vectors/`, made by
//! ml_dtypes, NumPy and exact rational arithmetic): any bit difference fails.

mod common;

use nxrig::dtype::convert_bits;
use nxrig::{AnyArray, DType};

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

/// The array cast kernel (with its fast runs), the whole vector set as one array.
/// A cast into the source's own dtype is a copy and keeps every bit.
fn check_cast(src: DType) {
    let data = common::records(src);
    let rl = common::record_len(src);
    let n = data.len() / rl;
    let w = common::width(src);
    let a = AnyArray::of_bits(src, &[n], &common::source_bits(src, &data)).unwrap();
    let mut at = w;
    for &t in &DType::ALL {
        let got = a.cast(t).unwrap().to_bits_vec().unwrap();
        let tw = common::width(t);
        for (i, rec) in data.chunks_exact(rl).enumerate() {
            // A cast into the same dtype is a copy: bit for bit, signaling NaNs too.
            let want = if t == src {
                common::le(&rec[..w])
            } else {
                common::le(&rec[at..at + tw])
            };
            assert_eq!(
                got[i],
                want,
                "cast {src} {:#x} -> {t}",
                common::le(&rec[..w])
            );
        }
        at += tw;
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
    float16: Float16, bfloat16: Bfloat16, float8_e4m3: Float8E4m3, float8_e5m2: Float8E5m2,
    float32: Float32, float64: Float64, int4: Int4, uint4: Uint4, int8: Int8, uint8: Uint8,
    int16: Int16, uint16: Uint16, int32: Int32, uint32: Uint32, int64: Int64, uint64: Uint64,
    complex64: Complex64, complex128: Complex128, bool: Bool,
}
