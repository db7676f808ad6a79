//! A probe of a device's native float32 addition, run once when the device opens:
//! sums whose operands or results are subnormal, ties, overflow and signed zeros,
//! against the host's IEEE arithmetic. Where every sum is exact, nxrig's add kernel
//! uses the native sum without the exact integer fallback beside it (which a GPU
//! emulated on a CPU, like SwiftShader, runs for every element).

use super::io::Out;
use super::plan::Operand;
use super::Gpu;
use crate::dtype::DType;
use crate::layout::Layout;
use crate::wgsl::{Kernel, Slot};

/// float32 `z = a + b` by native sums alone: the probe's kernel.
fn probe_add() -> Kernel<'static> {
    let slot = |name, output| Slot {
        name,
        dtype: DType::Float32,
        output,
    };
    let body = "z = vec4<u32>(bitcast<u32>(bitcast<f32>(a.x) + bitcast<f32>(b.x)), 0u, 0u, 0u);";
    Kernel::new(
        vec![slot("a", false), slot("b", false), slot("z", true)],
        None,
        body,
    )
    .expect("three operands")
}

/// Operand pairs (float32 bits), none a NaN.
const PAIRS: [(u32, u32); 14] = [
    (0x0000_0001, 0x0000_0001),
    (0x0080_0000, 0x8000_0001),
    (0x0040_0000, 0x0040_0000),
    (0x007f_ffff, 0x0000_0001),
    (0x8080_0000, 0x0080_0001),
    (0x0000_0003, 0x8000_0001),
    (0x8000_0001, 0x0000_0001),
    (0x0000_0001, 0x8000_0000),
    (0x3f80_0000, 0x0000_0001),
    (0x3f80_0001, 0x3380_0000),
    (0x3f80_0000, 0x3380_0000),
    (0x7f7f_ffff, 0x7f7f_ffff),
    (0xff7f_ffff, 0x7f7f_ffff),
    (0x8000_0000, 0x0000_0000),
];

/// True when `g`'s native float32 sums equal IEEE's on every probe pair.
pub(crate) async fn f32_add_is_exact(g: &std::sync::Arc<Gpu>) -> bool {
    const OP: &str = "Rig::by_name";
    let bytes = |k: usize| -> Vec<u8> {
        PAIRS
            .iter()
            .flat_map(|p| [p.0, p.1][k].to_le_bytes())
            .collect()
    };
    let (x, y) = (g.staged(&bytes(0)), g.staged(&bytes(1)));
    let n = PAIRS.len();
    let Ok(out) = g.create(OP, 4 * n, false) else {
        return false;
    };
    let Ok(l) = Layout::contiguous(&[n]) else {
        return false;
    };
    let op = |mem| Operand {
        mem,
        layout: &l,
        base: 0,
        bits: 32,
    };
    let ran = g.run(OP, &probe_add(), &[op(&x), op(&y), op(&out)]);
    if ran.is_err() {
        return false;
    }
    let Ok(got) = g
        .readback(&out, 0, 4 * n, Out::bytes(4 * n))
        .await
        .map(Out::into_vec)
    else {
        return false;
    };
    PAIRS.iter().zip(got.chunks_exact(4)).all(|(&(a, b), w)| {
        let want = (f32::from_bits(a) + f32::from_bits(b)).to_bits();
        u32::from_le_bytes([w[0], w[1], w[2], w[3]]) == want
    })
}
