//! Time of nxrig's elementwise operations on a GPU device (`gpu` unless named on the
//! command line): `add`, `sub`, `mul`, `div` and `lt` of a float32 and a bfloat16
//! array of 4 M elements with itself, best of three calls each (`NX_ROUNDS` calls
//! where set), the result read back to the host before the clock stops.
//! BENCHMARKS.md's lavapipe table is its output.
//!
//!     NX_ROUNDS=10 cargo run --release --example gpu_ops [-- gpu]

use std::time::Instant;

use nxrig::kernels as k;
use nxrig::{AnyArray, DType, Error, Rig};

type Op = fn(&AnyArray, &AnyArray) -> Result<AnyArray, Error>;

fn main() -> Result<(), Error> {
    let name = std::env::args().nth(1).unwrap_or_else(|| "gpu".into());
    let rounds: usize = std::env::var("NX_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let rig = Rig::by_name(&name)?;
    let about = rig.describe().unwrap_or_default();
    println!("{} ({about}), 4 M elements, best of 3, ms", rig.name());
    let ops: [(&str, Op); 5] = [
        ("add", k::add),
        ("sub", k::sub),
        ("mul", k::mul),
        ("div", k::div),
        ("lt", k::lt),
    ];
    println!("| dtype | {} |", ops.map(|o| o.0).join(" | "));
    println!("| --- |{}", " ---: |".repeat(ops.len()));
    let n = 4 << 20;
    let values: Vec<f32> = (0..n).map(|i| 1.0 + (i % 1000) as f32 / 1000.0).collect();
    let host = nxrig::Array::<f32>::of_array(&[n], &values)?.any().clone();
    for d in [DType::Float32, DType::Bfloat16] {
        let x = host.cast(d)?.to_device(&rig)?;
        let mut row = format!("| {d} |");
        for (_, f) in ops {
            let mut best = f64::INFINITY;
            for _ in 0..rounds {
                let t = Instant::now();
                let z = f(&x, &x)?;
                z.to_device(&Rig::host())?;
                best = best.min(t.elapsed().as_secs_f64() * 1e3);
            }
            row.push_str(&format!(" {best:.1} ms |"));
        }
        println!("{row}");
    }
    Ok(())
}
