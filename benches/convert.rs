//! Criterion: nxrig's host cast of 64 MiB of float32 into float16, bfloat16,
//! float8_e4m3fn and float8_e5m2 (throughput in elements). The comparison with
//! ml_dtypes is `benches/convert_vs_ml_dtypes.py`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nxrig::{AnyArray, DType};

fn cast(c: &mut Criterion) {
    let n = (64 << 20) / 4;
    // A deterministic spread of values: every exponent float8 reaches, and beyond.
    let bytes: Vec<u8> = (0..n as u32)
        .flat_map(|i| {
            (((i.wrapping_mul(2654435761) >> 8) as f32 / 16777216.0 - 0.5) * 1024.0).to_le_bytes()
        })
        .collect();
    let a = AnyArray::of_bytes(DType::Float32, &[n], bytes).unwrap();
    let mut g = c.benchmark_group("cast_f32_64MiB");
    g.throughput(Throughput::Elements(n as u64)).sample_size(10);
    for to in [
        DType::Float16,
        DType::Bfloat16,
        DType::Float8E4m3fn,
        DType::Float8E5m2,
    ] {
        g.bench_function(to.name(), |b| b.iter(|| a.cast(to).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, cast);
criterion_main!(benches);
