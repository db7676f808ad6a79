//! Criterion: the door's overhead. The same one-element add kernel called directly,
//! and through `door` with three operands (one written, two read). Goal: under 100 ns
//! of overhead.

use criterion::{criterion_group, criterion_main, Criterion};
use nxrig::array::door;
use nxrig::{AnyArray, Array};

fn kernel(z: &mut f32, x: f32, y: f32) {
    *z = x + y;
}

fn bench(c: &mut Criterion) {
    let ops: Vec<AnyArray> = (0..3)
        .map(|_| Array::<f32>::of_array(&[1], &[1.0]).unwrap().into())
        .collect();
    let (mut z, x, y) = (0f32, 1f32, 2f32);
    let mut g = c.benchmark_group("door");
    g.bench_function("direct", |b| {
        b.iter(|| kernel(std::hint::black_box(&mut z), x, y))
    });
    g.bench_function("through_door_3_operands", |b| {
        b.iter(|| {
            door(&[&ops[0]], &[&ops[1], &ops[2]], || {
                kernel(std::hint::black_box(&mut z), x, y)
            })
            .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
