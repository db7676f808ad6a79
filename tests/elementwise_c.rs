//! The CUDA C body of an elementwise kernel, in the source nxrig compiles for a CUDA
//! device (`Elementwise::cuda_source`), compiled for the host as C99 (through
//! `nx_launch.h`) and run over `x * y + 1` of bfloat16, float8_e4m3fn, float16,
//! float32, int32 and int4 arrays, x contiguous, y reversed, z every other element
//! from an odd position: against the kernel's host body (held to its own oracle in
//! `tests/elementwise.rs`), z's other elements kept. A body's compile error is said at
//! its line. On every machine, not only where a CUDA device is.
#![cfg(not(target_arch = "wasm32"))]

mod common;
#[path = "common/rounding.rs"]
mod rounding;
#[path = "common/xy1.rs"]
mod xy1;
use xy1::{xy1_f32, xy1_i32};

use std::fmt::Write as _;

use nxrig::kernels::Elementwise;
use nxrig::{AnyArray, DType, Slice};

/// `n` pseudo-random element bits of `d` (floats: finite, any magnitude).
fn sample(d: DType, n: usize, seed: u64) -> Vec<u128> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s as u128) & ((1u128 << d.bits()) - 1)
        })
        .collect()
}

/// A C array of `bytes` named `name`.
fn c_bytes(name: &str, bytes: &[u8]) -> String {
    let mut s = format!("static uint8_t {name}[{}] = {{", bytes.len() + 1);
    for b in bytes {
        write!(s, "{b},").unwrap();
    }
    s + "0};\n"
}

/// `source` with a `main` that runs `nx_user` over `n` elements (x contiguous, y
/// reversed, z at stride 2 from element 1 of `zs`) and prints z's bytes.
fn program(source: &str, n: usize, xs: &[u8], ys: &[u8], zs: &[u8]) -> String {
    let mut s = String::from(source);
    s.push_str("#include <stdio.h>\n");
    s.push_str(&c_bytes("xs", xs));
    s.push_str(&c_bytes("ys", ys));
    s.push_str(&c_bytes("zs", zs));
    write!(
        s,
        "static nx_walk line(int64_t offset, int64_t n, int64_t stride)
{{
    nx_walk w;
    int k;
    w.offset = offset;
    w.rank = 1;
    w.pad = 0;
    for (k = 0; k < NX_MAX_RANK; ++k) {{ w.shape[k] = 1; w.strides[k] = 0; }}
    w.shape[0] = n;
    w.strides[0] = stride;
    return w;
}}

int main(void)
{{
    size_t k;
    nx_user(xs, line(0, {n}, 1), ys, line({n} - 1, {n}, -1), zs, line(1, {n}, 2), {n});
    for (k = 0; k < sizeof zs - 1; ++k) printf(\"%u \", (unsigned)zs[k]);
    return 0;
}}
"
    )
    .unwrap();
    s
}

/// Compiles `program` as C99 and runs it: its output, or the compiler's messages.
fn run_c(name: &str, program: &str) -> Result<Vec<u8>, String> {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(format!("{name}.c"));
    std::fs::write(&src, program).unwrap();
    let exe = std::panic::catch_unwind(|| common::compile_c(src.to_str().unwrap(), name)).map_err(
        |e| {
            e.downcast_ref::<String>()
                .cloned()
                .unwrap_or_else(|| "the C compiler failed".into())
        },
    )?;
    let out = std::process::Command::new(&exe).output().unwrap();
    assert!(out.status.success(), "{name} failed");
    Ok(String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .map(|b| b.parse().unwrap())
        .collect())
}

#[test]
fn the_cuda_body_compiled_for_the_host_equals_the_host_body() {
    for d in rounding::KERNEL_DTYPES {
        let n = 301;
        let x = AnyArray::of_bits(d, &[n], &sample(d, n, 1)).unwrap();
        let y = AnyArray::of_bits(d, &[n], &sample(d, n, 2)).unwrap();
        let z = AnyArray::of_bits(d, &[2 * n + 1], &sample(d, 2 * n + 1, 3)).unwrap();
        let (yr, zv) = (
            y.flip(&[0]).unwrap(),
            z.slice(&[Slice::new(Some(1), None, 2)]).unwrap(),
        );
        let int = matches!(d, DType::Int32 | DType::Int4);
        let source = if int {
            xy1_i32().cuda_source(&[d; 3])
        } else {
            xy1_f32().cuda_source(&[d; 3])
        }
        .unwrap();
        let p = program(
            &source,
            n,
            &x.to_bytes().unwrap(),
            &y.to_bytes().unwrap(),
            &z.to_bytes().unwrap(),
        );
        let got = run_c(&format!("xy1-{}", d.name()), &p).unwrap();
        // The host body into a copy of z, through the same views.
        let want = z.copy().unwrap();
        let wv = want.slice(&[Slice::new(Some(1), None, 2)]).unwrap();
        if int {
            xy1_i32().call_into(&[&x, &yr], &[&wv]).unwrap();
        } else {
            xy1_f32().call_into(&[&x, &yr], &[&wv]).unwrap();
        }
        let _ = zv;
        let got = AnyArray::of_bytes(d, &[2 * n + 1], got).unwrap();
        let (g, w) = (got.to_bits_vec().unwrap(), want.to_bits_vec().unwrap());
        for k in 0..g.len() {
            assert_eq!(
                g[k], w[k],
                "{d} element {k} of z: {:#x}, the host body's {:#x}",
                g[k], w[k]
            );
        }
    }
}

#[test]
fn a_cuda_bodys_error_is_said_at_its_line_and_refusals_name_the_kernel() {
    let k = Elementwise::<f32>::new("typo")
        .input("x", "T")
        .output("z", "T")
        .cuda("float t = x * 2.0f;\nz = t * ;");
    let source = k.cuda_source(&[DType::Float32; 2]).unwrap();
    let p = program(
        &source.replace(
            "nx_at_x, nx_walk nx_w_x, uint8_t",
            "nx_at_x, nx_walk nx_w_x, const uint8_t *nx_at_y, nx_walk nx_w_y, uint8_t",
        ),
        1,
        &[0; 4],
        &[0; 4],
        &[0; 12],
    );
    let e = run_c("typo", &p).unwrap_err();
    assert!(
        e.contains("body:2:"),
        "the compiler names the body's line 2: {e}"
    );
    let e = Elementwise::<f32>::new("none")
        .input("x", "T")
        .output("z", "T")
        .cuda_source(&[DType::Float32; 2])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Elementwise::cuda_source: kernel \"none\": it has no CUDA body"),
        "{e}"
    );
    let e = xy1_f32()
        .cuda_source(&[DType::Float32; 2])
        .unwrap_err()
        .to_string();
    assert!(e.contains("2 dtypes given for 3 operands"), "{e}");
    let e = Elementwise::<u32>::new("u")
        .input("x", "T")
        .output("z", "T")
        .cuda("z = x;");
    assert!(e
        .cuda_source(&[DType::Uint8; 2])
        .unwrap()
        .contains("uint32_t z = 0;"));
}
