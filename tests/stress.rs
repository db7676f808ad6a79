//! A stress run of the runtime: threads draw random views of seven dtypes
//! on the host, the GPU and a second GPU that emulates every type, and random
//! operations on them (placement blocking and async between the devices, copy, cast,
//! add with broadcast, the donating add under holds), and check every result, read
//! back from its buffer's raw bytes, against values computed apart: the elements are
//! small numbers whose casts and sums this file computes exactly. A watchdog fails a
//! hang. `NXRIG_STRESS_SECONDS` sets the length (20 s by default).
#![cfg(not(target_arch = "wasm32"))]

#[path = "common/zoo.rs"]
mod zoo;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nxrig::kernels::{add, add_donated};
use nxrig::rig::wgpu::Options;
use nxrig::rig::Claim;
use nxrig::{AnyArray, DType, Move, Rig, Slice};

const DTYPES: [DType; 7] = [
    DType::Float32,
    DType::Bfloat16,
    DType::Float16,
    DType::Int8,
    DType::Int4,
    DType::Int32,
    DType::Int64,
];

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

/// A value of dtype `d` that every dtype of the run holds exactly where it is in
/// range: quarters up to 16 for floats, small integers otherwise.
fn draw(d: DType, r: &mut Rng) -> f64 {
    match d {
        DType::Int4 => r.range(-8, 7) as f64,
        DType::Int8 => r.range(-128, 127) as f64,
        d if is_float(d) => r.range(-64, 64) as f64 / 4.0,
        _ => r.range(-100_000, 100_000) as f64,
    }
}

fn is_float(d: DType) -> bool {
    matches!(
        d,
        DType::Float32 | DType::Bfloat16 | DType::Float16 | DType::Float64
    )
}

/// The bits of `v` in dtype `d`: exact for floats (every value drawn or summed here
/// is representable), two's complement (wrapping) for integers.
fn encode(d: DType, v: f64) -> u128 {
    match d {
        DType::Float32 => (v as f32).to_bits() as u128,
        DType::Float64 => v.to_bits() as u128,
        DType::Float16 => half::f16::from_f64(v).to_bits() as u128,
        DType::Bfloat16 => half::bf16::from_f64(v).to_bits() as u128,
        _ => (v as i128 as u128) & ((1u128 << d.bits()) - 1),
    }
}

/// `v` of a `from` element cast into `to`: floats exact; float into an integer
/// truncates and saturates; an integer into an integer wraps (`encode`).
fn cast_value(from: DType, to: DType, v: f64) -> f64 {
    if is_float(from) && !is_float(to) {
        let b = to.bits() - 1;
        let (lo, hi) = (-(2f64.powi(b as i32)), 2f64.powi(b as i32) - 1.0);
        return v.trunc().clamp(lo, hi);
    }
    v
}

/// `x + y` in dtype `d`, wrapping for integers.
fn sum_value(d: DType, x: f64, y: f64) -> f64 {
    let s = x + y;
    if is_float(d) {
        return s;
    }
    let b = d.bits();
    let m = 1i128 << b;
    let w = (s as i128).rem_euclid(m);
    (if w >= m / 2 { w - m } else { w }) as f64
}

/// A random movement of an array of `shape`, valid by construction.
fn movement(shape: &[usize], r: &mut Rng) -> Move {
    let rank = shape.len();
    match r.below(5) {
        0 if rank > 0 => Move::Flip(vec![r.below(rank)]),
        1 if rank > 1 => {
            let mut p: Vec<usize> = (0..rank).collect();
            for k in (1..rank).rev() {
                p.swap(k, r.below(k + 1));
            }
            Move::Permute(p)
        }
        2 if rank > 0 => {
            let step = [1, 2, 3, -1, -2][r.below(5)];
            let pick = |r: &mut Rng, n: usize| {
                (r.below(3) > 0).then(|| r.range(-(n as i64) - 1, n as i64 + 1) as isize)
            };
            let k = r.below(rank);
            let mut s = vec![Slice::FULL; rank];
            s[k] = Slice::new(pick(r, shape[k]), pick(r, shape[k]), step);
            Move::Slice(s)
        }
        3 if rank < 4 => Move::Unsqueeze(r.below(rank + 1)),
        _ => match shape.iter().position(|&n| n == 1) {
            Some(k) => {
                let mut to = shape.to_vec();
                to[k] = 2 + r.below(2);
                Move::Expand(to)
            }
            None => Move::Unsqueeze(0),
        },
    }
}

/// An array on `rig` and its elements' values (C order), viewed through one to three
/// random movements of a fresh base.
fn random_view(d: DType, rig: &Rig, r: &mut Rng) -> (AnyArray, Vec<f64>) {
    let rank = 1 + r.below(3);
    let shape: Vec<usize> = (0..rank)
        .map(|_| r.below(6) + (r.below(8) > 0) as usize)
        .collect();
    let n: usize = shape.iter().product();
    let vals: Vec<f64> = (0..n).map(|_| draw(d, r)).collect();
    let bits: Vec<u128> = vals.iter().map(|&v| encode(d, v)).collect();
    let mut a = AnyArray::of_bits(d, &shape, &bits)
        .unwrap()
        .to_device(rig)
        .unwrap();
    for _ in 0..1 + r.below(3) {
        let m = movement(a.shape(), r);
        if let Some(v) = a.move_(&m).unwrap() {
            a = v;
        }
    }
    let want = zoo::positions(a.layout())
        .iter()
        .map(|&p| vals[p])
        .collect();
    (a, want)
}

fn read(a: &AnyArray) -> Vec<u128> {
    pollster::block_on(zoo::read_bits(a))
}

fn expect(a: &AnyArray, d: DType, vals: &[f64]) -> Result<(), String> {
    let want: Vec<u128> = vals.iter().map(|&v| encode(d, v)).collect();
    let got = read(a);
    if a.dtype() != d || got != want {
        return Err(format!(
            "{} {:?}: got {got:x?}, want {want:x?}",
            a.dtype(),
            a.shape()
        ));
    }
    Ok(())
}

/// One random operation; `Err` says what went wrong.
fn step(rigs: &[Rig], r: &mut Rng) -> Result<(), String> {
    let d = DTYPES[r.below(DTYPES.len())];
    let from = &rigs[r.below(rigs.len())];
    let to = &rigs[r.below(rigs.len())];
    let (a, vals) = random_view(d, from, r);
    let what = format!("{d} {:?} {:?} on {}", a.shape(), a.layout(), from.name());
    let ctx = |e: String| format!("{what}: {e}");
    let fail = |e: nxrig::Error| ctx(e.to_string());
    match r.below(6) {
        0 => expect(&a.to_device(to).map_err(fail)?, d, &vals).map_err(ctx),
        1 => {
            let b = pollster::block_on(a.to_device_async(to)).map_err(fail)?;
            expect(&b, d, &vals).map_err(ctx)
        }
        2 => expect(&a.copy().map_err(fail)?, d, &vals).map_err(ctx),
        3 => {
            let t = DTYPES[r.below(DTYPES.len())];
            let want: Vec<f64> = vals.iter().map(|&v| cast_value(d, t, v)).collect();
            expect(&a.cast(t).map_err(fail)?, t, &want).map_err(ctx)
        }
        4 => {
            // y: a fresh array of a's shape, or of its last axis (broadcast).
            let shape = a.shape().to_vec();
            let row = r.below(2) == 0 && !shape.is_empty();
            let ys = if row {
                vec![*shape.last().unwrap()]
            } else {
                shape.clone()
            };
            let yv: Vec<f64> = (0..ys.iter().product()).map(|_| draw(d, r)).collect();
            let ybits: Vec<u128> = yv.iter().map(|&v| encode(d, v)).collect();
            let y = AnyArray::of_bits(d, &ys, &ybits)
                .unwrap()
                .to_device(from)
                .unwrap();
            let last = ys.last().copied().unwrap_or(1).max(1);
            let want: Vec<f64> = vals
                .iter()
                .enumerate()
                .map(|(i, &x)| sum_value(d, x, yv[if row { i % last } else { i }]))
                .collect();
            expect(&add(&a, &y).map_err(fail)?, d, &want).map_err(ctx)
        }
        _ => {
            // The donating add on a copy, held by another claim or not.
            let x = a.copy().map_err(fail)?;
            let want: Vec<f64> = vals.iter().map(|&v| sum_value(d, v, v)).collect();
            let held = r.below(2) == 0;
            let hold = held.then(|| Claim::hold(&[x.buffer()]).unwrap());
            let z = add_donated(x.clone(), &a).map_err(fail)?;
            expect(&z, d, &want).map_err(ctx)?;
            if held {
                drop(hold);
                expect(&x, d, &vals).map_err(|e| ctx(format!("held x changed: {e}")))?;
            } else if x.buffer().is_live() == z.buffer().same_memory(x.buffer()) {
                // x must be donated exactly when the sum went in place (z over x's
                // memory), and live otherwise.
                return Err(ctx("x was neither donated nor kept".into()));
            }
            Ok(())
        }
    }
}

#[test]
fn random_views_and_operations_on_threads_agree_with_values_computed_apart() {
    let secs: u64 = std::env::var("NXRIG_STRESS_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let gpu = Rig::by_name("gpu").expect("a GPU device: install mesa-vulkan-drivers (lavapipe)");
    let emulated = Rig::gpu_with(&Options {
        emulate: true,
        ..Options::default()
    })
    .unwrap();
    let rigs = Arc::new(vec![Rig::host(), gpu, emulated]);
    let failures = Arc::new(Mutex::new(Vec::<String>::new()));
    let steps = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let end = Instant::now() + Duration::from_secs(secs);
    let (tx, rx) = std::sync::mpsc::channel();
    for t in 0..4u64 {
        let (rigs, failures, steps, tx) =
            (rigs.clone(), failures.clone(), steps.clone(), tx.clone());
        std::thread::spawn(move || {
            let mut r = Rng(0x5EED_0000 + t * 7919);
            while Instant::now() < end {
                let seed = r.0;
                let out =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| step(&rigs, &mut r)));
                let e = match out {
                    Ok(Ok(())) => None,
                    Ok(Err(e)) => Some(e),
                    Err(_) => Some("panicked".into()),
                };
                if let Some(e) = e {
                    failures
                        .lock()
                        .unwrap()
                        .push(format!("thread {t}, rng state {seed:#x}: {e}"));
                }
                steps.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            let _ = tx.send(());
        });
    }
    drop(tx);
    for _ in 0..4 {
        rx.recv_timeout(Duration::from_secs(secs + 60))
            .expect("watchdog: a stress thread hung");
    }
    let n = steps.load(std::sync::atomic::Ordering::Relaxed);
    let f = failures.lock().unwrap();
    eprintln!("{n} random operations, {} wrong", f.len());
    assert!(n > 200, "only {n} operations ran");
    assert!(
        f.is_empty(),
        "{}",
        f.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}
