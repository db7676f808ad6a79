//! Criterion: taking and releasing claims (`Claim::with` over 1, 3 and 18 buffers, and
//! `Claim::hold` + release), uncontended and with a second thread taking read claims
//! on the same memory in a loop. Goal: under 50 ns an operand uncontended.

use std::sync::atomic::{AtomicBool, Ordering};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nxrig::rig::{Buffer, Claim, Kind, Rig};

fn bufs(n: usize) -> Vec<Buffer> {
    (0..n)
        .map(|_| Buffer::create(&Rig::host(), 64, Kind::Device).unwrap())
        .collect()
}

fn run(c: &mut Criterion, contended: bool) {
    let name = if contended {
        "claims_contended"
    } else {
        "claims_uncontended"
    };
    let mut g = c.benchmark_group(name);
    for n in [1usize, 3, 18] {
        let bs = bufs(n);
        let refs: Vec<&Buffer> = bs.iter().collect();
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            if contended {
                let refs = &refs;
                let stop = &stop;
                s.spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let _ = Claim::with(refs, &[], |_| ());
                    }
                });
            }
            g.throughput(Throughput::Elements(n as u64));
            g.bench_with_input(BenchmarkId::new("with_read", n), &refs, |b, refs| {
                b.iter(|| Claim::with(refs, &[], |_| ()).unwrap())
            });
            g.bench_with_input(BenchmarkId::new("with_donate", n), &refs, |b, refs| {
                b.iter(|| Claim::with(&[], refs, |c| c.exclusive(refs[0])).unwrap())
            });
            g.bench_with_input(BenchmarkId::new("hold_release", n), &refs, |b, refs| {
                b.iter(|| Claim::hold(refs).unwrap().release())
            });
            stop.store(true, Ordering::Relaxed);
        });
    }
    g.finish();
}

fn claims(c: &mut Criterion) {
    run(c, false);
    run(c, true);
}

criterion_group!(benches, claims);
criterion_main!(benches);
