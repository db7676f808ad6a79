//! What is written from the dtype table outside Rust: `js/index.d.ts`'s dtype section
//! (the `DType` union, `DataTypeMap`, `ValueMap`), which fails here while it differs
//! from the table (`NX_BLESS=1 cargo test --test dtype_table` writes it); the C header's
//! is `tests/c_header.rs`'s. And the names the table parses.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::path::Path;

use nxrig::{DType, Error};

#[test]
fn index_d_ts_dtype_section_is_written_from_the_table() {
    use common::ts_table::{section, BEGIN, END};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("js/index.d.ts");
    let text = std::fs::read_to_string(&path).unwrap();
    let a = text.find(BEGIN).expect("the section's BEGIN line");
    let b = text.find(END).expect("the section's END line") + END.len();
    let want = section();
    if std::env::var_os("NX_BLESS").is_some() {
        std::fs::write(&path, format!("{}{want}{}", &text[..a], &text[b..])).unwrap();
        return;
    }
    assert!(
        text[a..b] == want,
        "js/index.d.ts's dtype section differs from the table: NX_BLESS=1 cargo test --test dtype_table writes it"
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
        if let Some(code) = r.safetensors {
            assert_eq!(code.parse::<DType>().unwrap(), d, "safetensors' {code}");
        }
    }
    let Error::UnknownDtype { name, expected } = "float8_e4m3fnuz_".parse::<DType>().unwrap_err()
    else {
        panic!("an unknown dtype")
    };
    assert_eq!(name, "float8_e4m3fnuz_");
    let names: Vec<&str> = DType::ALL.iter().map(|d| d.name()).collect();
    assert_eq!(expected, names.join(", "));
}
