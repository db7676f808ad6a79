//! Times nxrig's host cast of raw little-endian float32 elements into a dtype: the
//! best of `REPS` runs, printed as `seconds elements`. Used by
//! `benches/convert_vs_ml_dtypes.py`, which runs ml_dtypes beside it.
//!
//!     cargo run --release --example cast_throughput -- FILE DTYPE [REPS]

use std::time::Instant;

use nxrig::{AnyArray, DType};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, file, dtype, rest @ ..] = args.as_slice() else {
        return Err("usage: cast_throughput FILE DTYPE [REPS]".into());
    };
    let reps: usize = rest.first().map_or(Ok(5), |r| r.parse())?;
    let to: DType = dtype.parse()?;
    let bytes = std::fs::read(file)?;
    let n = bytes.len() / 4;
    let a = AnyArray::of_bytes(DType::Float32, &[n], bytes)?;
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        let out = a.cast(to)?;
        best = best.min(t.elapsed().as_secs_f64());
        drop(out);
    }
    println!("{best:.6} {n}");
    Ok(())
}
