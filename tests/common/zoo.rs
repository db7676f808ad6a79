//! A zoo of views for the placement conformance tests: flipped, permuted, sliced with
//! steps, broadcast with strided axes, empty at offsets, sub-byte at odd offsets, rank
//! 0, overlapping. Each view comes with its elements' bits computed apart from nxrig:
//! by walking its layout (shape, strides, offset) over the bits the base array was
//! made from. Results are read the same way: the raw bytes of their buffer
//! (`Buffer::read_async`) walked by their layout, so no placement code of nxrig
//! decides what a test sees.
#![allow(dead_code)]

use nxrig::layout::Layout;
use nxrig::{AnyArray, DType, Move, Rig, Slice};

/// The dtypes of the zoo: a word, a byte, a nibble, a pair of words, a half word, a
/// quad, and bool.
pub const DTYPES: [DType; 7] = [
    DType::Int32,
    DType::Uint8,
    DType::Int4,
    DType::Float64,
    DType::Bfloat16,
    DType::Complex128,
    DType::Bool,
];

/// Varied bits of `d` for element `i` (NaN payloads of the floats included, and
/// signalling NaNs, which no placement may quiet).
pub fn bits_at(d: DType, i: usize) -> u128 {
    let mut s = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    s ^= s >> 29;
    let w = ((s as u128) << 64 | s.rotate_left(17) as u128) ^ (i as u128);
    let bits = d.bits();
    let mask = if bits == 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    };
    let v = match (d, i % 5) {
        (DType::Float64, 0) => 0x7FF0_0000_0000_0001, // a signalling NaN: placement keeps its payload
        (DType::Complex128, 0) => 0x7FF0_0000_0000_0001 << 64 | 0x7FF4_0000_0000_0000,
        (DType::Bool, _) => w & 1,
        _ => w,
    };
    v & mask
}

/// Brute force: the position (in elements) of every index of `l`, in C order.
pub fn positions(l: &Layout) -> Vec<usize> {
    let (shape, strides) = (l.shape(), l.strides());
    let n: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut index = vec![0usize; shape.len()];
    for _ in 0..n {
        let p: isize = l.offset() as isize
            + index
                .iter()
                .zip(strides)
                .map(|(&i, &s)| i as isize * s)
                .sum::<isize>();
        out.push(p as usize);
        for k in (0..shape.len()).rev() {
            index[k] += 1;
            if index[k] < shape[k] {
                break;
            }
            index[k] = 0;
        }
    }
    out
}

/// The bits of element position `p` of dtype `d` in `bytes` (little-endian; two
/// 4-bit elements a byte, low nibble first).
pub fn element(d: DType, bytes: &[u8], p: usize) -> u128 {
    if d.is_sub_byte() {
        let b = bytes[p / 2];
        return (if p.is_multiple_of(2) { b & 15 } else { b >> 4 }) as u128;
    }
    let w = d.storage_bytes();
    let mut buf = [0u8; 16];
    buf[..w].copy_from_slice(&bytes[p * w..(p + 1) * w]);
    u128::from_le_bytes(buf)
}

/// The elements of `a` in C order, from the raw bytes of its buffer.
pub async fn read_bits(a: &AnyArray) -> Vec<u128> {
    let bytes = a
        .buffer()
        .read_async()
        .await
        .expect("the buffer reads back");
    positions(a.layout())
        .into_iter()
        .map(|p| element(a.dtype(), &bytes, p))
        .collect()
}

/// One view of the zoo: what it is, the view, and its elements' bits.
pub struct View {
    pub name: String,
    pub array: AnyArray,
    pub want: Vec<u128>,
}

fn moved(a: &AnyArray, ms: &[Move]) -> AnyArray {
    let mut v = a.clone();
    for m in ms {
        v = v.move_(m).unwrap().expect("a view");
    }
    v
}

/// The zoo of `d` views, their bases placed on `rig` (C-contiguous at offset 0, so
/// that a view's positions index the base's bits).
pub fn views(d: DType, rig: &Rig) -> Vec<View> {
    let s = |a: Option<isize>, b: Option<isize>, c: isize| Slice::new(a, b, c);
    let full = Slice::FULL;
    let cases: Vec<(&str, Vec<usize>, Vec<Move>)> = vec![
        ("whole [4, 6]", vec![4, 6], vec![]),
        ("flip axis 1", vec![2, 3], vec![Move::Flip(vec![1])]),
        ("flip both", vec![4, 6], vec![Move::Flip(vec![0, 1])]),
        (
            "permute [1, 0]",
            vec![2, 3],
            vec![Move::Permute(vec![1, 0])],
        ),
        (
            "permute [2, 0, 1] of [3, 4, 5]",
            vec![3, 4, 5],
            vec![Move::Permute(vec![2, 0, 1])],
        ),
        (
            "unsqueeze 0, expand [2, 2, 3]",
            vec![2, 3],
            vec![Move::Unsqueeze(0), Move::Expand(vec![2, 2, 3])],
        ),
        (
            "[::2], unsqueeze 0, expand [2, 3]",
            vec![6],
            vec![
                Move::Slice(vec![s(None, None, 2)]),
                Move::Unsqueeze(0),
                Move::Expand(vec![2, 3]),
            ],
        ),
        (
            "[:, ::2], unsqueeze 1, expand [4, 2, 3]",
            vec![4, 6],
            vec![
                Move::Slice(vec![full, s(None, None, 2)]),
                Move::Unsqueeze(1),
                Move::Expand(vec![4, 2, 3]),
            ],
        ),
        (
            "[1:, 1::2] of [5, 7] (odd nibbles)",
            vec![5, 7],
            vec![Move::Slice(vec![s(Some(1), None, 1), s(Some(1), None, 2)])],
        ),
        (
            "[3::-2, ::-3] of [5, 7]",
            vec![5, 7],
            vec![Move::Slice(vec![s(Some(3), None, -2), s(None, None, -3)])],
        ),
        (
            "[1:4] of [7] (odd offset)",
            vec![7],
            vec![Move::Slice(vec![s(Some(1), Some(4), 1)])],
        ),
        (
            "[5:0:-2] of [7]",
            vec![7],
            vec![Move::Slice(vec![s(Some(5), Some(0), -2)])],
        ),
        (
            "[3::-3] of [5, 4, 0] (empty at an offset)",
            vec![5, 4, 0],
            vec![Move::Slice(vec![s(Some(3), None, -3)])],
        ),
        (
            "[2:2] of [4, 6] (empty at offset 12)",
            vec![4, 6],
            vec![Move::Slice(vec![s(Some(2), Some(2), 1)])],
        ),
        (
            "[2:3, 3:4] squeezed (rank 0)",
            vec![4, 6],
            vec![
                Move::Slice(vec![s(Some(2), Some(3), 1), s(Some(3), Some(4), 1)]),
                Move::Squeeze(0),
                Move::Squeeze(0),
            ],
        ),
        (
            "[1, 1, 1] expanded to [3, 0, 2]",
            vec![1, 1, 1],
            vec![Move::Expand(vec![3, 0, 2])],
        ),
    ];
    let mut out = Vec::new();
    for (name, shape, ms) in cases {
        let n: usize = shape.iter().product();
        let bits: Vec<u128> = (0..n).map(|i| bits_at(d, i)).collect();
        let base = AnyArray::of_bits(d, &shape, &bits)
            .unwrap()
            .to_device(rig)
            .unwrap();
        let array = moved(&base, &ms);
        let want = positions(array.layout()).iter().map(|&p| bits[p]).collect();
        out.push(View {
            name: format!("{d} {name}"),
            array,
            want,
        });
    }
    // Overlapping without stride 0: shape [3, 2] at strides [2, 2] (the specification's example).
    let bits: Vec<u128> = (0..8).map(|i| bits_at(d, i)).collect();
    let base = AnyArray::of_bits(d, &[8], &bits)
        .unwrap()
        .to_device(rig)
        .unwrap();
    let l = Layout::new(&[3, 2], &[2, 2], 0).unwrap();
    let array = AnyArray::v(d, l, base.buffer().clone()).unwrap();
    let want = positions(&l).iter().map(|&p| bits[p]).collect();
    out.push(View {
        name: format!("{d} [3, 2] at strides [2, 2]"),
        array,
        want,
    });
    out
}

/// Whether placement from `from` to `to` may use its blocking forms: everywhere
/// natively; in the browser only where no GPU memory comes back to the host.
fn may_block(from: &Rig, to: &Rig) -> bool {
    cfg!(not(target_arch = "wasm32")) || from.host_addressable() || from == to
}

/// Checks an array `got` that a form of placement gave for `v` on `to`.
async fn check(
    bad: &mut Vec<String>,
    what: String,
    got: Result<AnyArray, nxrig::Error>,
    to: &Rig,
    v: &View,
) {
    let a = match got {
        Ok(a) => a,
        Err(e) => return bad.push(format!("{what}: {e}")),
    };
    if a.rig() != to || a.shape() != v.array.shape() || a.dtype() != v.array.dtype() {
        return bad.push(format!(
            "{what}: {:?} {:?} on {:?}",
            a.dtype(),
            a.shape(),
            a.rig()
        ));
    }
    let got = read_bits(&a).await;
    if got != v.want {
        bad.push(format!("{what}: got {got:x?}, want {:x?}", v.want));
    }
}

/// Every form of placement of every view of the zoo, from each of `rigs` to each:
/// `to_device` (blocking) and `to_device_async`, which must agree on the layout too;
/// `transfer` into a fresh C-contiguous array and into a flipped one; `copy`. Returns
/// what went wrong, one line each.
pub async fn every_form(rigs: &[Rig]) -> Vec<String> {
    let mut bad = Vec::new();
    for d in DTYPES {
        for from in rigs {
            for v in views(d, from) {
                let name = format!("{} on {}", v.name, from.name());
                for to in rigs {
                    let what = |form: &str| format!("{name}: {form} to {}", to.name());
                    let a = v.array.to_device_async(to).await;
                    let layout = a.as_ref().ok().map(|a| *a.layout());
                    check(&mut bad, what("to_device_async"), a, to, &v).await;
                    if !may_block(from, to) {
                        continue;
                    }
                    let b = v.array.to_device(to);
                    if let (Ok(b), Some(l)) = (&b, layout) {
                        if *b.layout() != l {
                            bad.push(format!(
                                "{}: {:?}, async {l:?}",
                                what("to_device's layout"),
                                b.layout()
                            ));
                        }
                    }
                    check(&mut bad, what("to_device"), b, to, &v).await;
                    let dst = AnyArray::create(to, d, v.array.shape()).unwrap();
                    let r = AnyArray::transfer(&v.array, &dst).map(|()| dst);
                    check(&mut bad, what("transfer"), r, to, &v).await;
                    let axes: Vec<usize> = (0..v.array.shape().len()).collect();
                    let dst = AnyArray::create(to, d, v.array.shape()).unwrap();
                    let flipped = dst.move_(&Move::Flip(axes)).unwrap().unwrap();
                    let r = AnyArray::transfer(&v.array, &flipped).map(|()| flipped);
                    check(&mut bad, what("transfer into a flipped array"), r, to, &v).await;
                }
                check(&mut bad, format!("{name}: copy"), v.array.copy(), from, &v).await;
            }
        }
    }
    bad
}
