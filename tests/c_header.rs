//! `include/nx_dtype.h` against Rust's dtype table and the committed vectors: the
//! system C compiler (found by the `cc` crate) builds `tests/c/check_vectors.c`, which
//! converts every vector with the header's `nx_convert` and compares bit for bit.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use nxrig::DType;

/// The checker, compiled once per test process.
fn checker() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| common::compile_c("tests/c/check_vectors.c", "check_vectors"))
}

#[test]
fn nx_array_h_answers_and_limits_equal_rusts() {
    let out = Command::new(common::compile_c("tests/c/answers.c", "answers"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let codes: Vec<usize> = lines
        .next()
        .unwrap()
        .split(' ')
        .map(|x| x.parse().unwrap())
        .collect();
    let want: Vec<usize> = nxrig::array::Answer::ALL
        .iter()
        .map(|&a| a as usize)
        .collect();
    assert_eq!(codes, want);
    let limits: Vec<usize> = lines
        .next()
        .unwrap()
        .split(' ')
        .map(|x| x.parse().unwrap())
        .collect();
    assert_eq!(
        limits[..2],
        [nxrig::array::MAX_OPERANDS, nxrig::layout::MAX_RANK]
    );
    assert_eq!(
        limits[2],
        8 + 4 + 4 + 16 * 8 * 2 + 8,
        "nx_operand's size matches the Rust mirror"
    );
}

#[test]
fn header_facts_equal_the_dtype_table() {
    let out = Command::new(checker()).arg("facts").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), DType::ALL.len());
    for (line, d) in lines.iter().zip(DType::ALL) {
        let (code, bits) = d.dlpack();
        let want = format!(
            "{} {} {} {} {} {}",
            d.code(),
            d.name(),
            d.bits(),
            d.align(),
            code,
            bits
        );
        assert_eq!(*line, want);
    }
}

#[test]
fn header_converts_every_vector_bit_for_bit() {
    for d in DType::ALL {
        let records = common::records(d);
        common::check_records(checker(), &[&d.code().to_string()], d.name(), &records);
    }
}
