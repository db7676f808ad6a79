//! Device loss at any point, and stamps waited for under contention: a
//! device destroyed while threads run every kind of operation on it settles each
//! with its values or `Error::Lost`, never a panic nor wgpu's validation text; and
//! threads placing and reading on one GPU never see a wait give up early. Natively,
//! on lavapipe; a watchdog fails a hang.
#![cfg(not(target_arch = "wasm32"))]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nxrig::kernels::{add, add_donated};
use nxrig::rig::wgpu::Options;
use nxrig::{AnyArray, DType, Error, Move, Rig};

/// Runs `f` on a thread and fails the test if it has not returned within `limit`.
fn watchdog<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let _ = tx.send(r);
    });
    match rx.recv_timeout(limit) {
        Ok(Ok(v)) => v,
        Ok(Err(p)) => std::panic::resume_unwind(p),
        Err(_) => panic!("hung: no result within {limit:?}"),
    }
}

fn device() -> Rig {
    Rig::gpu_with(&Options {
        skip_probe: true,
        ..Options::default()
    })
    .expect("a GPU device: install mesa-vulkan-drivers (lavapipe)")
}

/// bfloat16 [7, 9, 11]: small integers, so that every sum is exact.
fn source() -> (AnyArray, Vec<u128>) {
    let n = 7 * 9 * 11;
    let vals: Vec<f32> = (0..n).map(|i| (i % 37) as f32 - 18.0).collect();
    let bits: Vec<u128> = vals
        .iter()
        .map(|&v| half::bf16::from_f32(v).to_bits() as u128)
        .collect();
    (
        AnyArray::of_bits(DType::Bfloat16, &[7, 9, 11], &bits).unwrap(),
        bits,
    )
}

/// The bits of `a` + `a`, bfloat16, computed apart.
fn doubled(bits: &[u128]) -> Vec<u128> {
    bits.iter()
        .map(|&b| {
            let x = half::bf16::from_bits(b as u16).to_f32();
            half::bf16::from_f32(x + x).to_bits() as u128
        })
        .collect()
}

/// Counts of how operations settled: with their values, with `Lost`, otherwise.
#[derive(Default)]
struct Tally {
    values: AtomicUsize,
    lost: AtomicUsize,
    bad: AtomicUsize,
}

/// What one operation gave: its values, or the loss. Anything else is a failure.
fn settle(what: &str, r: Result<Vec<u128>, Error>, want: &[u128], t: &Tally) {
    let bad = &t.bad;
    match r {
        Ok(v) if v == want => {
            t.values.fetch_add(1, Ordering::Relaxed);
        }
        Err(Error::Lost { .. }) => {
            t.lost.fetch_add(1, Ordering::Relaxed);
        }
        Ok(_) => {
            eprintln!("{what}: wrong values");
            bad.fetch_add(1, Ordering::Relaxed);
        }
        Err(e) => {
            eprintln!("{what}: {e}");
            bad.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// One thread's loop of operation `k` on `g` until `stop`.
fn work(k: usize, g: Rig, stop: Arc<AtomicBool>, ready: Arc<AtomicUsize>, bad: Arc<Tally>) {
    let (src, bits) = source();
    let twice = doubled(&bits);
    let t = src.move_(&Move::Permute(vec![2, 0, 1])).unwrap().unwrap();
    let transposed: Vec<u128> = t.to_bits_vec().unwrap();
    let back = |a: Result<AnyArray, Error>| -> Result<Vec<u128>, Error> {
        a?.to_device(&Rig::host())?.to_bits_vec()
    };
    let back_async = |a: Result<AnyArray, Error>| -> Result<Vec<u128>, Error> {
        pollster::block_on(a?.to_device_async(&Rig::host()))?.to_bits_vec()
    };
    let mut i = 0usize;
    let mut after = 0;
    // Past the first operation (pipelines compiled), until a few after the loss.
    while !stop.load(Ordering::Relaxed) && after < 3 {
        if i == 1 {
            ready.fetch_add(1, Ordering::Relaxed);
        }
        after += g.is_lost() as usize;
        let on = src.to_device(&g);
        match (k + i) % 6 {
            0 => settle("add", back(on.and_then(|x| add(&x, &x))), &twice, &bad),
            1 => {
                let r = on.and_then(|x| {
                    let y = x.copy()?;
                    add_donated(x, &y)
                });
                settle("add_donated", back(r), &twice, &bad)
            }
            2 => {
                let r = on.and_then(|x| x.cast(DType::Float32)?.cast(DType::Bfloat16));
                settle("cast", back_async(r), &bits, &bad)
            }
            3 => {
                let r = on.and_then(|x| x.move_(&Move::Permute(vec![2, 0, 1]))?.unwrap().copy());
                settle("copy", back(r), &transposed, &bad)
            }
            4 => {
                let r = on.and_then(|x| Ok(x.move_(&Move::Permute(vec![2, 0, 1]))?.unwrap()));
                settle("to_device_async", back_async(r), &transposed, &bad)
            }
            _ => {
                let r = on.and_then(|x| {
                    x.buffer().write_bytes(0, &[0x80, 0x3f])?; // 1.0
                    Ok(x)
                });
                let mut want = bits.clone();
                want[0] = 0x3f80;
                settle("write_bytes", back(r), &want, &bad)
            }
        }
        i += 1;
    }
}

#[test]
fn destroy_under_every_operation_settles_each_with_values_or_lost() {
    let trials = 24;
    let bad = Arc::new(Tally::default());
    let b = bad.clone();
    watchdog(Duration::from_secs(240), move || {
        for trial in 0..trials {
            let g = device();
            let stop = Arc::new(AtomicBool::new(false));
            let ready = Arc::new(AtomicUsize::new(0));
            let threads: Vec<_> = (0..4)
                .map(|k| {
                    let (g, stop, r, b) = (g.clone(), stop.clone(), ready.clone(), b.clone());
                    std::thread::spawn(move || work(k + trial, g, stop, r, b))
                })
                .collect();
            while ready.load(Ordering::Relaxed) < 4 {
                std::thread::sleep(Duration::from_micros(100));
            }
            // Destroy at a different point of the work each trial.
            std::thread::sleep(Duration::from_micros(150 * (trial as u64 % 12)));
            g.destroy();
            std::thread::sleep(Duration::from_millis(5));
            stop.store(true, Ordering::Relaxed);
            for t in threads {
                t.join().expect("no operation panics on a lost device");
            }
            // Every later operation fails at once with Lost.
            let r = source().0.to_device(&g);
            assert!(matches!(r, Err(Error::Lost { .. })), "after destroy: {r:?}");
        }
    });
    let (values, lost) = (
        bad.values.load(Ordering::Relaxed),
        bad.lost.load(Ordering::Relaxed),
    );
    eprintln!("{values} operations gave their values, {lost} Lost");
    assert!(
        values > 0 && lost > 0,
        "the destroys fell before or after all the work"
    );
    assert_eq!(
        bad.bad.load(Ordering::Relaxed),
        0,
        "operations settled with neither values nor Lost"
    );
}

#[test]
fn waits_on_stamps_under_contention_never_give_up() {
    let g = Rig::by_name("gpu").expect("a GPU device: install mesa-vulkan-drivers (lavapipe)");
    let bad = Arc::new(AtomicUsize::new(0));
    let count = Arc::new(AtomicUsize::new(0));
    let (b, c) = (bad.clone(), count.clone());
    watchdog(Duration::from_secs(120), move || {
        let end = Instant::now() + Duration::from_secs(4);
        let threads: Vec<_> = (0..6)
            .map(|k| {
                let (g, b, c) = (g.clone(), b.clone(), c.clone());
                std::thread::spawn(move || {
                    let bits: Vec<u128> = (0..6).map(|i| 0x3f80 + 17 * (i + k) as u128).collect();
                    let a = AnyArray::of_bits(DType::Bfloat16, &[6], &bits).unwrap();
                    while Instant::now() < end {
                        let r = a
                            .to_device(&g)
                            .and_then(|x| x.to_device(&Rig::host()))
                            .and_then(|h| h.to_bits_vec());
                        c.fetch_add(1, Ordering::Relaxed);
                        match r {
                            Ok(v) if v == bits => {}
                            r => {
                                eprintln!("{r:?}");
                                b.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    });
    let n = count.load(Ordering::Relaxed);
    assert!(n > 100, "only {n} placements ran");
    assert_eq!(bad.load(Ordering::Relaxed), 0, "of {n} placements");
}
