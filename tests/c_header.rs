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
        let (code, bits) = d.dlpack().map_or((-1, -1), |(c, b)| (c as i32, b as i32));
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
fn header_dtype_section_is_written_from_the_table() {
    use common::c_table::{section, BEGIN, END};
    common::sections::written(
        "include/nx_dtype.h",
        BEGIN,
        END,
        &section(),
        "--test c_header",
    );
}

#[test]
fn header_converts_every_vector_bit_for_bit() {
    for d in DType::ALL {
        let records = common::records(d);
        common::check_records(checker(), &[&d.code().to_string()], d.name(), &records);
    }
}

#[test]
fn nx_capi_h_follows_a_released_dlpack_h() {
    // Compiled (and linked against nothing: the functions are only named).
    let src = "tests/c/dlpack_first.c";
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = env!("NXRIG_TARGET");
    let cc = cc::Build::new()
        .target(target)
        .host(target)
        .cargo_metadata(false)
        .opt_level(0)
        .get_compiler();
    let out = cc
        .to_command()
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-fsyntax-only",
            "-I",
        ])
        .arg(root.join("include"))
        .arg(root.join(src))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn nx_capi_h_dlpack_structures_equal_rusts() {
    use nxrig::array::dlpack::*;
    use nxrig::dtype::dlpack as code;
    use std::mem::{offset_of, size_of};
    let out = Command::new(common::compile_c("tests/c/dlpack_abi.c", "dlpack_abi"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let got: Vec<Vec<u64>> = text
        .lines()
        .map(|l| l.split(' ').map(|x| x.parse().unwrap()).collect())
        .collect();
    let want: Vec<Vec<u64>> = vec![
        [
            size_of::<DLPackVersion>(),
            size_of::<DLDevice>(),
            size_of::<DLDataType>(),
            size_of::<DLTensor>(),
            size_of::<DLManagedTensor>(),
            size_of::<DLManagedTensorVersioned>(),
        ]
        .map(|x| x as u64)
        .to_vec(),
        [
            offset_of!(DLTensor, device),
            offset_of!(DLTensor, ndim),
            offset_of!(DLTensor, dtype),
            offset_of!(DLTensor, shape),
            offset_of!(DLTensor, strides),
            offset_of!(DLTensor, byte_offset),
            offset_of!(DLManagedTensor, deleter),
        ]
        .map(|x| x as u64)
        .to_vec(),
        [
            offset_of!(DLManagedTensorVersioned, manager_ctx),
            offset_of!(DLManagedTensorVersioned, deleter),
            offset_of!(DLManagedTensorVersioned, flags),
            offset_of!(DLManagedTensorVersioned, dl_tensor),
        ]
        .map(|x| x as u64)
        .to_vec(),
        vec![
            u64::from(VERSION.major),
            u64::from(VERSION.minor),
            FLAG_READ_ONLY,
            FLAG_IS_COPIED,
            FLAG_IS_SUBBYTE_TYPE_PADDED,
            DEVICE_CPU as u64,
            DEVICE_CUDA as u64,
            DEVICE_CUDA_HOST as u64,
        ],
        [
            code::INT,
            code::UINT,
            code::FLOAT,
            code::BFLOAT,
            code::COMPLEX,
            code::BOOL,
            code::FLOAT8_E4M3FN,
            code::FLOAT8_E5M2,
        ]
        .map(u64::from)
        .into_iter()
        .chain([0, 1]) // NX_OK and NX_ERROR, as `nxrig::capi` (feature `capi`) says
        .collect(),
    ];
    assert_eq!(got, want);
}
