//! What is written from the dtype table outside Rust: `js/index.d.ts`'s dtype section
//! (the `DType` union, `DataTypeMap`, `ValueMap`), which fails here while it differs
//! from the table (`NX_BLESS=1 cargo test --test dtype_table` writes it); the C header's
//! is `tests/c_header.rs`'s. And the names the table parses.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use nxrig::{DType, Error};

#[test]
fn index_d_ts_dtype_section_is_written_from_the_table() {
    use common::ts_table::{section, BEGIN, END};
    common::sections::written(
        "js/index.d.ts",
        BEGIN,
        END,
        &section(),
        "--test dtype_table",
    );
}

#[test]
fn every_name_and_alias_parses_to_its_row_in_any_case_and_nothing_else_does() {
    for d in DType::ALL {
        let r = d.row();
        for name in std::iter::once(&r.name).chain(r.aliases) {
            assert_eq!(name.parse::<DType>().unwrap(), d, "{name}");
            assert_eq!(name.to_ascii_uppercase().parse::<DType>().unwrap(), d);
        }
        // Every safetensors code but F4, which NumPy's "f4" (float32) makes ambiguous.
        if let Some(code) = r.safetensors.filter(|&c| c != "F4") {
            assert_eq!(code.parse::<DType>().unwrap(), d, "safetensors' {code}");
        }
    }
    for f4 in ["F4", "f4"] {
        let e = f4.parse::<DType>().unwrap_err().to_string();
        assert!(e.contains("float32") && e.contains("float4_e2m1fn"), "{e}");
    }
    let Error::UnknownDtype { name, expected } = "float8_e4m3fnuz_".parse::<DType>().unwrap_err()
    else {
        panic!("an unknown dtype")
    };
    assert_eq!(name, "float8_e4m3fnuz_");
    let names: Vec<&str> = DType::ALL.iter().map(|d| d.name()).collect();
    assert_eq!(expected, names.join(", "));
}
