//! Side by side in one process, on 64 MiB of float32 (4096 x 4096): the host and the
//! first GPU device (and the GPU with every type emulated) on placement, transfer,
//! cast and add, best of `REPS` runs each, rounds alternating. GPU times wait for the
//! device to finish (`Buffer::wait`). Prints a Markdown table of GB/s (bytes read and
//! written by the operation, per second) and the GPU / host ratio.
//!
//!     cargo run --release --example gpu_throughput -- [REPS]

use std::time::Instant;

use nxrig::kernels::add;
use nxrig::rig::wgpu::Options;
use nxrig::{AnyArray, DType, Error, Move, Rig};

type Op = Box<dyn Fn(&Rig, &AnyArray) -> Result<AnyArray, Error>>;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let reps: usize = std::env::args().nth(1).map_or(Ok(5), |r| r.parse())?;
    let host = Rig::host();
    let gpu = Rig::by_name("gpu")?;
    let emulated = Rig::gpu_with(&Options {
        emulate: true,
        ..Options::default()
    })?;
    let n = 4096 * 4096;
    let bits: Vec<u128> = (0..n)
        .map(|i| ((i as f32) * 0.37).to_bits() as u128)
        .collect();
    let x = AnyArray::of_bits(DType::Float32, &[4096, 4096], &bits)?;
    let mb = (n * 4) as f64;
    let t = Move::Permute(vec![1, 0]);
    let ops: Vec<(&str, f64, bool, Op)> = vec![
        (
            "place onto the device (host -> device)",
            2.0,
            false,
            Box::new(|r, a| a.to_device(r)),
        ),
        ("copy, contiguous", 2.0, true, Box::new(|_, a| a.copy())),
        (
            "copy, transposed",
            2.0,
            true,
            Box::new(move |_, a| a.move_(&t)?.expect("a view").copy()),
        ),
        (
            "cast to bfloat16",
            1.5,
            true,
            Box::new(|_, a| a.cast(DType::Bfloat16)),
        ),
        (
            "cast to float16",
            1.5,
            true,
            Box::new(|_, a| a.cast(DType::Float16)),
        ),
        (
            "cast to float8_e4m3fn",
            1.25,
            true,
            Box::new(|_, a| a.cast(DType::Float8E4m3fn)),
        ),
        (
            "cast to int32",
            2.0,
            true,
            Box::new(|_, a| a.cast(DType::Int32)),
        ),
        (
            "cast to float64",
            3.0,
            true,
            Box::new(|_, a| a.cast(DType::Float64)),
        ),
        ("add (x + x)", 3.0, true, Box::new(|_, a| add(a, a))),
        (
            "place back (device -> host)",
            2.0,
            true,
            Box::new(|_, a| a.to_device(&Rig::host())),
        ),
    ];
    println!(
        "| 64 MiB float32 | host GB/s | {} GB/s | emulated GB/s | GPU / host |",
        gpu.name()
    );
    println!("| --- | ---: | ---: | ---: | ---: |");
    let on_gpu = x.to_device(&gpu)?;
    let on_emu = x.to_device(&emulated)?;
    for (name, traffic, from_device, op) in &ops {
        let mut best = [f64::INFINITY; 3];
        for _ in 0..reps {
            for (k, (r, a)) in [(&host, &x), (&gpu, &on_gpu), (&emulated, &on_emu)]
                .into_iter()
                .enumerate()
            {
                let src = if *from_device { a } else { &x };
                let s = Instant::now();
                let out = op(r, src)?;
                out.buffer().wait(false)?;
                best[k] = best[k].min(s.elapsed().as_secs_f64());
            }
        }
        let gbs = best.map(|s| traffic * mb / s / 1e9);
        println!(
            "| {name} | {:.2} | {:.2} | {:.2} | {:.2}x |",
            gbs[0],
            gbs[1],
            gbs[2],
            gbs[1] / gbs[0]
        );
    }
    Ok(())
}
