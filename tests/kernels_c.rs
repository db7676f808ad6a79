//! The CUDA kernel sources (`src/kernels/cuda/nx_kernels.cu`) compiled for the host as
//! C99 (through `nx_launch.h`) and run by `tests/c/check_kernels.c`: cast into every
//! target, transfer and fill over every conversion vector (all 1,021,255 records), and
//! add against nxrig's host add (itself held to independent oracles in
//! `tests/kernels.rs`), the other operations (`nx_ops.cu`) and select against nxrig's
//! host operations (held to theirs in `tests/ops.rs`), each contiguous, reversed, and
//! from odd offsets at a stride of 2
//! with every other element of the destination kept: the kernels' arithmetic is tested
//! on every machine, not only where a CUDA device is.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;

use nxrig::{AnyArray, Array, DType};

fn checker() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| common::compile_c("tests/c/check_kernels.c", "check_kernels"))
}

/// Runs the checker on `records` written to a file; asserts it found no mismatch.
fn check(what: &str, d: DType, records: &[u8]) {
    let name = format!("{what}-{}", d.name());
    common::check_records(checker(), &[what, &d.code().to_string()], &name, records);
}

#[test]
fn cast_transfer_and_fill_match_every_vector_in_three_layouts() {
    for d in DType::ALL {
        check("cast", d, &common::records(d));
    }
}

/// The storage bytes of element bits `b` of `d`.
fn storage(d: DType, b: u128) -> Vec<u8> {
    b.to_le_bytes()[..common::width(d)].to_vec()
}

/// Pairs of dtype `d`'s elements: every vector source (NaNs of every payload,
/// infinities, subnormals, integer edges) against another and against itself, and
/// every pair of the dtype's special values (made by casting float64's).
fn pairs(d: DType) -> (Vec<u128>, Vec<u128>) {
    let v = common::source_bits(d, &common::records(d));
    let n = v.len();
    let specials: Vec<f64> = vec![
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        5e-324,
    ];
    let sp = Array::<f64>::of_array(&[specials.len()], &specials)
        .unwrap()
        .any()
        .cast(d)
        .unwrap()
        .to_bits_vec()
        .unwrap();
    let all = sp.iter().flat_map(|&a| sp.iter().map(move |&b| (a, b)));
    let (sx, sy): (Vec<u128>, Vec<u128>) = all.unzip();
    let x: Vec<u128> = v.iter().chain(&v).chain(&sx).copied().collect();
    let y: Vec<u128> = (0..n)
        .map(|i| v[(i * 7919 + 13) % n])
        .chain(v.iter().copied())
        .chain(sy)
        .collect();
    (x, y)
}

#[test]
fn operations_and_select_match_the_hosts_on_every_pair_of_vector_sources() {
    use nxrig::kernels::{self as k, Operation};
    for d in DType::ALL {
        let (x, y) = pairs(d);
        let a = AnyArray::of_bits(d, &[x.len()], &x).unwrap();
        let b = AnyArray::of_bits(d, &[y.len()], &y).unwrap();
        // nx_ops.cu numbers the operations (NX_OP_*) in the table's order.
        for (code, &op) in Operation::ALL.iter().enumerate() {
            if !op.takes(d) {
                continue;
            }
            let z = k::operation(op, &[&a, &b][..op.arity()]).unwrap();
            let (zd, z) = (z.dtype(), z.to_bits_vec().unwrap());
            let mut records = Vec::new();
            for i in 0..x.len() {
                records.extend(storage(d, x[i]));
                records.extend(storage(d, y[i]));
                records.extend(storage(zd, z[i]));
            }
            let name = format!("op{code}-{}", d.name());
            let args = ["op", &d.code().to_string(), &code.to_string()];
            common::check_records(checker(), &args, &name, &records);
        }
        let c: Vec<bool> = (0..x.len()).map(|i| i % 3 == 1).collect();
        let cond: AnyArray = Array::<bool>::of_array(&[c.len()], &c).unwrap().into();
        let z = k::select(&cond, &a, &b).unwrap().to_bits_vec().unwrap();
        let mut records = Vec::new();
        for i in 0..x.len() {
            records.push(c[i] as u8);
            records.extend(storage(d, x[i]));
            records.extend(storage(d, y[i]));
            records.extend(storage(d, z[i]));
        }
        check("select", d, &records);
    }
}

#[test]
fn add_matches_the_host_add_on_every_pair_of_vector_sources() {
    for d in DType::ALL {
        let (x, y) = pairs(d);
        let sum = |a: &[u128], b: &[u128]| {
            let a = AnyArray::of_bits(d, &[a.len()], a).unwrap();
            let b = AnyArray::of_bits(d, &[b.len()], b).unwrap();
            nxrig::kernels::add(&a, &b).unwrap().to_bits_vec().unwrap()
        };
        let s = sum(&x, &y);
        let mut records = Vec::new();
        for i in 0..x.len() {
            records.extend(storage(d, x[i]));
            records.extend(storage(d, y[i]));
            records.extend(storage(d, s[i]));
        }
        check("add", d, &records);
    }
}
