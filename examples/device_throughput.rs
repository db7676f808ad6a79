//! Throughput of nxrig's operations on the devices named on the command line (`cuda0`,
//! `gpu`, `host`, ...), on float32 arrays of 64 MiB and 1 GiB (`--mib` to choose):
//! placement onto the device, cast to bfloat16 and to float8_e4m3fn, add (x + x) and
//! the transposed copy, best of `--reps` runs, each waiting for the device to finish
//! (`Buffer::wait`). Prints GB/s (bytes read and written by the operation, per
//! second) and the share of a memory bandwidth given with `--peak` (GB/s; an H200's
//! HBM3e is about 4800). `scripts/device-check.sh` runs it on an H200.
//!
//!     cargo run --release --features cuda --example device_throughput -- cuda0 gpu [--reps 5] [--mib 64,1024] [--peak 4800]

use std::time::Instant;

use nxrig::kernels::add;
use nxrig::{AnyArray, DType, Error, Move, Rig};

type Op = fn(&Rig, &AnyArray, &AnyArray) -> Result<AnyArray, Error>;

/// Each operation: its name, its bytes read and written per source byte, and what it
/// does on device `r` given the host's array `h` and the device's copy `a`.
const OPS: [(&str, f64, Op); 5] = [
    ("place onto the device", 2.0, |r, h, _| h.to_device(r)),
    ("cast to bfloat16", 1.5, |_, _, a| a.cast(DType::Bfloat16)),
    ("cast to float8_e4m3fn", 1.25, |_, _, a| {
        a.cast(DType::Float8E4m3fn)
    }),
    ("add (x + x)", 3.0, |_, _, a| add(a, a)),
    ("copy, transposed", 2.0, |_, _, a| {
        a.move_(&Move::Permute(vec![1, 0]))?.expect("a view").copy()
    }),
];

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("device_throughput: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (mut names, mut reps, mut mibs, mut peak) = (Vec::new(), 5usize, vec![64usize, 1024], None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--reps" => reps = args.next().ok_or("--reps N")?.parse()?,
            "--peak" => peak = Some(args.next().ok_or("--peak GB/s")?.parse::<f64>()?),
            "--mib" => {
                mibs = args
                    .next()
                    .ok_or("--mib 64,1024")?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?
            }
            _ => names.push(a),
        }
    }
    if names.is_empty() {
        names.push("gpu".into());
    }
    let rigs: Vec<Rig> = names
        .iter()
        .map(|n| Rig::by_name(n))
        .collect::<Result<_, _>>()?;
    for mib in mibs {
        // A square of float32: side * side * 4 bytes.
        let side = (((mib << 20) / 4) as f64).sqrt() as usize;
        let n = side * side;
        let bytes: Vec<u8> = (0..n)
            .flat_map(|i| ((i % 4093) as f32 * 0.37).to_le_bytes())
            .collect();
        let host = AnyArray::of_bytes(DType::Float32, &[side, side], bytes)?;
        let bytes = (n * 4) as f64;
        print!("| {} x {} float32 ({mib} MiB) |", side, side);
        for r in &rigs {
            print!(" {} GB/s |", r.name());
            if peak.is_some() {
                print!(" share of {:.0} GB/s |", peak.unwrap_or_default());
            }
        }
        println!();
        println!(
            "| --- |{}",
            " ---: |".repeat(rigs.len() * (1 + usize::from(peak.is_some())))
        );
        let on: Vec<AnyArray> = rigs
            .iter()
            .map(|r| host.to_device(r))
            .collect::<Result<_, _>>()?;
        for (name, traffic, op) in OPS {
            let mut best = vec![f64::INFINITY; rigs.len()];
            for _ in 0..reps {
                for (k, r) in rigs.iter().enumerate() {
                    let s = Instant::now();
                    let out = op(r, &host, &on[k])?;
                    out.buffer().wait(false)?;
                    best[k] = best[k].min(s.elapsed().as_secs_f64());
                    drop(out);
                }
            }
            print!("| {name} |");
            for b in best {
                let gbs = traffic * bytes / b / 1e9;
                print!(" {gbs:.1} |");
                if let Some(p) = peak {
                    print!(" {:.0}% |", 100.0 * gbs / p);
                }
            }
            println!();
        }
        println!();
    }
    Ok(())
}
