//! Shared by the integration tests: the committed conversion vectors.
#![allow(dead_code)]
pub mod add_passes;
pub mod c_table;
#[cfg(not(target_arch = "wasm32"))]
pub mod sections;
pub mod ts_table;

use std::io::Read;

use nxrig::DType;

/// A float element's bit pattern, widened to `u64` (`f16`, `bf16`, `f32`, `f64`).
pub trait FloatBits: Copy {
    /// The bits.
    fn bits(self) -> u64;
}

impl FloatBits for half::f16 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}

impl FloatBits for half::bf16 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}

impl FloatBits for f32 {
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}

impl FloatBits for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// The elements of `a`, read back to the host, as their bit patterns: NaN payloads
/// and signed zeros compared exactly.
pub fn bits<E: nxrig::dtype::Element + FloatBits>(a: &nxrig::Array<E>) -> Vec<u64> {
    a.to_vec()
        .unwrap()
        .into_iter()
        .map(FloatBits::bits)
        .collect()
}

/// Storage bytes of one element in a vector record.
pub fn width(d: DType) -> usize {
    d.storage_bytes()
}

/// Bytes of one record with source `src`: the source, then every target in code order.
pub fn record_len(src: DType) -> usize {
    width(src) + DType::ALL.iter().map(|&d| width(d)).sum::<usize>()
}

/// Little-endian bits of `b`.
pub fn le(b: &[u8]) -> u128 {
    let mut buf = [0u8; 16];
    buf[..b.len()].copy_from_slice(b);
    u128::from_le_bytes(buf)
}

#[cfg(not(target_arch = "wasm32"))]
fn gz(src: DType) -> Vec<u8> {
    let p = format!(
        "{}/tests/vectors/{}.bin.gz",
        env!("CARGO_MANIFEST_DIR"),
        src.name()
    );
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e} (run tests/vectors/generate.py)"))
}

#[cfg(target_arch = "wasm32")]
fn gz(src: DType) -> Vec<u8> {
    macro_rules! v {
        ($($n:literal),*) => {
            match src.name() {
                $($n => include_bytes!(concat!("../vectors/", $n, ".bin.gz")).to_vec(),)*
                _ => unreachable!(),
            }
        };
    }
    v!(
        "float16",
        "bfloat16",
        "float8_e4m3fn",
        "float8_e5m2",
        "float32",
        "float64",
        "int4",
        "uint4",
        "int8",
        "uint8",
        "int16",
        "uint16",
        "int32",
        "uint32",
        "int64",
        "uint64",
        "complex64",
        "complex128",
        "bool",
        "float8_e4m3",
        "float8_e3m4",
        "float8_e4m3fnuz",
        "float8_e5m2fnuz",
        "float8_e4m3b11fnuz",
        "float8_e8m0fnu",
        "float8_e5m3fnu",
        "float4_e2m1fn",
        "float6_e2m3fn",
        "float6_e3m2fn",
        "int2",
        "uint2",
        "int1",
        "uint1",
        "complex32",
        "bcomplex32"
    )
}

/// The uncompressed vector records of source `src`.
pub fn records(src: DType) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(gz(src).as_slice())
        .read_to_end(&mut out)
        .expect("gzip");
    assert_eq!(
        out.len() % record_len(src),
        0,
        "{src}: truncated vector file"
    );
    out
}

/// The source bits of `records` (records of source `src`), in order.
pub fn source_bits(src: DType, records: &[u8]) -> Vec<u128> {
    records
        .chunks_exact(record_len(src))
        .map(|r| le(&r[..width(src)]))
        .collect()
}

/// Calls `f(source bits, target, expected bits)` for every record and target.
pub fn for_each(src: DType, mut f: impl FnMut(u128, DType, u128)) -> usize {
    let data = records(src);
    let n = data.len() / record_len(src);
    for rec in data.chunks_exact(record_len(src)) {
        let s = le(&rec[..width(src)]);
        let mut at = width(src);
        for &t in &DType::ALL {
            f(s, t, le(&rec[at..at + width(t)]));
            at += width(t);
        }
    }
    n
}

/// `source` (a path from the crate's root) compiled with the system C compiler (found
/// by the `cc` crate for this target, `-O2 -std=c99 -Wall -Wextra -Werror`, `include/`
/// and `src/kernels/cuda/` on the include path) into an executable named `name` in a
/// temporary folder of this process.
#[cfg(not(target_arch = "wasm32"))]
pub fn compile_c(source: &str, name: &str) -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = env!("NXRIG_TARGET");
    let cc = cc::Build::new()
        .target(target)
        .host(target)
        .opt_level(2)
        .cargo_metadata(false)
        .get_compiler();
    let dir = std::env::temp_dir().join(format!("nxrig-c-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join(name);
    let out = cc
        .to_command()
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror"])
        .arg("-I")
        .arg(root.join("include"))
        .arg("-I")
        .arg(root.join("src/kernels/cuda"))
        .arg(root.join(source))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("run the C compiler");
    assert!(
        out.status.success(),
        "C compiler failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// Runs the compiled checker `exe` with `args` and a file holding `records` (named
/// `name` in a temporary folder of this process, removed after); asserts that it
/// succeeded and that its output ends with "0 mismatches".
#[cfg(not(target_arch = "wasm32"))]
pub fn check_records(exe: &std::path::Path, args: &[&str], name: &str, records: &[u8]) {
    let dir = std::env::temp_dir().join(format!("nxrig-records-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, records).unwrap();
    let out = std::process::Command::new(exe)
        .args(args)
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.trim_end().ends_with(" 0 mismatches"),
        "{} {args:?} {name}:\n{text}{}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_file(&file);
}

/// A refusal's error, checked: `r` is an error whose `Debug` starts with `variant`
/// (`"Layout"`, `"Invalid"`) and which names `op`, the function called.
pub fn refused<T: std::fmt::Debug>(
    r: Result<T, nxrig::Error>,
    variant: &str,
    op: &str,
) -> nxrig::Error {
    let e = r.expect_err(&format!("{op} refuses"));
    assert!(
        format!("{e:?}").starts_with(&format!("{variant} ")),
        "{variant} expected: {e:?}"
    );
    assert_eq!(e.op(), Some(op), "{e}");
    e
}
