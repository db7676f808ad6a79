//! Times `AnyArray::transfer` of 64 MiB of float32 (4096 x 4096) from four layouts
//! into a C-contiguous array, and a `memcpy` of the same bytes: the best of `REPS`
//! runs each, printed as `layout seconds`. Used by `benches/transfer_vs_numpy.py`.
//!
//!     cargo run --release --example transfer_throughput -- [REPS]

use std::time::Instant;

use nxrig::{AnyArray, DType, Move, Rig};

fn best(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() -> Result<(), nxrig::Error> {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let n = 4096;
    let bytes: Vec<u8> = (0..n * n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    // Memory nxrig allocates (huge pages where the kernel has them, as NumPy's).
    let src = AnyArray::create(&Rig::host(), DType::Float32, &[n, n])?;
    src.buffer().write(|b| b.copy_from_slice(&bytes))?;
    let dst = AnyArray::create(&Rig::host(), DType::Float32, &[n, n])?;
    let mut out = vec![0u8; bytes.len()];
    println!("memcpy {:.6}", best(reps, || out.copy_from_slice(&bytes)));
    let row = src
        .move_(&Move::Slice(vec![nxrig::Slice::new(Some(0), Some(1), 1)]))?
        .expect("view");
    let layouts = [
        ("contiguous", src.clone()),
        (
            "transposed",
            src.move_(&Move::Permute(vec![1, 0]))?.expect("view"),
        ),
        (
            "flipped",
            src.move_(&Move::Flip(vec![0, 1]))?.expect("view"),
        ),
        (
            "broadcast",
            row.move_(&Move::Expand(vec![n, n]))?.expect("view"),
        ),
    ];
    for (name, a) in &layouts {
        let t = best(reps, || AnyArray::transfer(a, &dst).expect("transfer"));
        println!("{name} {t:.6}");
    }
    Ok(())
}
