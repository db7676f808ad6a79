//! A server for side-by-side benchmarks of the host kernels
//! (`benches/host_vs_numpy.py`): reads commands on standard input, one a line, and
//! answers each with one line.
//!
//! - `load DTYPE SHAPE FILE`: the source array, from raw little-endian bytes (int4 and
//!   uint4 packed two a byte), SHAPE as `4096x4096`; answers `ok`.
//! - `cast DTYPE REPS`: the best seconds of REPS casts of the source into DTYPE.
//! - `add REPS`: the best seconds of REPS sums of the source with itself.
//! - `xy1 REPS`: the best seconds of REPS runs of a kernel of the user's own,
//!   `z = x * y + 1` (`kernels::Elementwise`), of the source with itself: computed in
//!   float32 for floats, in int32 (wrapping, as NumPy's integers) for integers.
//! - `op NAME REPS`: the best seconds of REPS runs of the operation NAME (a row of the
//!   operations' table: `sub`, `mul`, `div`, `maximum`, `lt`, `neg`, ...) of the source
//!   with itself.
//! - `transpose REPS`: the best seconds of REPS copies of the source's 2-D transpose
//!   into a new C-contiguous array.
//! - `transpose_into REPS`: the same, the source copied as it is into a transposed
//!   view of a new array.
//!
//!     cargo run --release --example host_kernels

use std::io::BufRead;
use std::time::Instant;

use nxrig::kernels::Elementwise;
use nxrig::{AnyArray, DType, Move};

fn best(
    reps: usize,
    mut f: impl FnMut() -> Result<AnyArray, nxrig::Error>,
) -> Result<f64, nxrig::Error> {
    let mut best = f64::INFINITY;
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let out = f()?;
        best = best.min(t.elapsed().as_secs_f64());
        drop(out);
    }
    Ok(best)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let xy1 = Elementwise::<f32>::new("xy1")
        .input("x", "T")
        .input("y", "T")
        .output("z", "T")
        .host(|i, o| {
            for ((z, x), y) in o[0].iter_mut().zip(i[0]).zip(i[1]) {
                *z = x * y + 1.0;
            }
        });
    let xy1_int = Elementwise::<i32>::new("xy1 int")
        .input("x", "T")
        .input("y", "T")
        .output("z", "T")
        .host(|i, o| {
            for ((z, x), y) in o[0].iter_mut().zip(i[0]).zip(i[1]) {
                *z = x.wrapping_mul(*y).wrapping_add(1);
            }
        });
    let mut src: Option<AnyArray> = None;
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let words: Vec<&str> = line.split_whitespace().collect();
        let answer = match words.as_slice() {
            ["load", dtype, shape, file] => {
                let d: DType = dtype.parse()?;
                let shape: Vec<usize> =
                    shape.split('x').map(str::parse).collect::<Result<_, _>>()?;
                src = Some(AnyArray::of_bytes(d, &shape, std::fs::read(file)?)?);
                "ok".to_owned()
            }
            [op, rest @ ..] => {
                let a = src.as_ref().ok_or("load first")?;
                let reps: usize = rest.last().map_or(Ok(1), |r| r.parse())?;
                let s = match (*op, rest) {
                    ("cast", [dtype, _]) => {
                        let d: DType = dtype.parse()?;
                        best(reps, || a.cast(d))?
                    }
                    ("add", _) => best(reps, || nxrig::kernels::add(a, a))?,
                    ("xy1", _) if a.dtype().is_float() => {
                        best(reps, || Ok(xy1.call(&[a, a])?.remove(0)))?
                    }
                    ("xy1", _) => best(reps, || Ok(xy1_int.call(&[a, a])?.remove(0)))?,
                    ("op", [name, _]) => {
                        use nxrig::kernels::{operation, Operation};
                        let op = Operation::of_name(name)
                            .ok_or_else(|| format!("unknown operation {name:?}"))?;
                        best(reps, || operation(op, &[a, a][..op.arity()]))?
                    }
                    ("transpose", _) => {
                        let t = a.move_(&Move::Permute(vec![1, 0]))?.ok_or("2-D")?;
                        best(reps, || t.copy())?
                    }
                    ("transpose_into", _) => {
                        let shape: Vec<usize> = a.shape().iter().rev().copied().collect();
                        best(reps, || {
                            let out = AnyArray::create(a.rig(), a.dtype(), &shape)?;
                            let turned = out.move_(&Move::Permute(vec![1, 0]))?.expect("2-D");
                            AnyArray::transfer(a, &turned)?;
                            Ok(out)
                        })?
                    }
                    _ => return Err(format!("unknown command {line:?}").into()),
                };
                format!("{s:.6}")
            }
            [] => continue,
        };
        println!("{answer}");
    }
    Ok(())
}
