//! The typed host kernels against the element-by-element reference: random
//! dtypes and layouts (contiguous, flipped, stepped, transposed, broadcast, at odd
//! offsets), random bits, every result compared bit for bit with
//! [`crate::dtype::convert_bits`] and [`super::add::add_bits`] applied one element
//! at a time to the operands' elements as the layout walk reads them.

use proptest::prelude::*;

use super::add::{add, add_bits};
use crate::array::AnyArray;
use crate::dtype::{convert_bits, DType};
use crate::layout::{Move, Slice};

/// xorshift64*.
fn bits(n: usize, mut s: u64) -> Vec<u128> {
    (0..n)
        .map(|_| {
            let mut w = 0u128;
            for _ in 0..2 {
                s ^= s >> 12;
                s ^= s << 25;
                s ^= s >> 27;
                w = (w << 64) | s.wrapping_mul(0x2545_F491_4F6C_DD1D) as u128;
            }
            w
        })
        .collect()
}

/// An array of `shape` and dtype `d` with random elements, laid out by `form`: 0
/// contiguous, 1 every axis flipped, 2 every other element of a doubled last axis, 3
/// axes reversed and permuted back (transposed storage), 4 a row expanded over the
/// other axes (stride 0), 5 one element past the start of its buffer.
fn operand(d: DType, shape: &[usize], form: u8, seed: u64) -> AnyArray {
    let n: usize = shape.iter().product();
    let r = shape.len();
    let make =
        |shape: &[usize], k: usize| AnyArray::of_bits(d, shape, &bits(k, seed)).expect("an array");
    let view = |a: AnyArray, m: Move| a.move_(&m).expect("a move").expect("a view");
    match form {
        1 => view(make(shape, n), Move::Flip((0..r).collect())),
        2 => {
            let mut wide = shape.to_vec();
            wide[r - 1] *= 2;
            let mut s = vec![Slice::FULL; r];
            s[r - 1] = Slice::new(None, None, 2);
            view(make(&wide, 2 * n), Move::Slice(s))
        }
        3 => {
            let rev: Vec<usize> = shape.iter().rev().copied().collect();
            view(make(&rev, n), Move::Permute((0..r).rev().collect()))
        }
        4 => {
            let mut row = vec![1; r];
            row[r - 1] = shape[r - 1];
            view(make(&row, shape[r - 1]), Move::Expand(shape.to_vec()))
        }
        5 => {
            let flat = view(
                make(&[n + 1], n + 1),
                Move::Slice(vec![Slice::new(Some(1), None, 1)]),
            );
            view(flat, Move::Reshape(shape.to_vec()))
        }
        _ => make(shape, n),
    }
}

fn dtype(i: usize) -> DType {
    DType::ALL[i % DType::ALL.len()]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn typed_casts_equal_the_element_reference(
        s in 0usize..DType::ALL.len(), t in 0usize..DType::ALL.len(),
        shape in prop::collection::vec(1usize..7, 1..4),
        form in 0u8..6, seed in any::<u64>(),
    ) {
        let (sd, td) = (dtype(s), dtype(t));
        let a = operand(sd, &shape, form, seed);
        let got = a.cast(td).unwrap().to_bits_vec().unwrap();
        let want: Vec<u128> = a
            .to_bits_vec()
            .unwrap()
            .into_iter()
            .map(|b| if sd == td { b } else { convert_bits(sd, td, b) })
            .collect();
        prop_assert_eq!(got, want, "{} -> {} {:?} form {}", sd, td, shape, form);
    }

    #[test]
    fn typed_sums_equal_the_element_reference(
        d in 0usize..DType::ALL.len(),
        shape in prop::collection::vec(1usize..7, 1..4),
        fx in 0u8..6, fy in 0u8..6, seed in any::<u64>(),
    ) {
        let d = dtype(d);
        let x = operand(d, &shape, fx, seed);
        let y = operand(d, &shape, fy, seed ^ 0x5555);
        let got = add(&x, &y).unwrap().to_bits_vec().unwrap();
        let (xs, ys) = (x.to_bits_vec().unwrap(), y.to_bits_vec().unwrap());
        let want: Vec<u128> = xs.iter().zip(&ys).map(|(&a, &b)| add_bits(d, a, b)).collect();
        prop_assert_eq!(&got, &want, "{} {:?} forms {} {}", d, shape, fx, fy);
        // In place: into a copy of x, read and written through the same bytes.
        let out = x.copy().unwrap();
        super::add::add_into(&out, &out, &y).unwrap();
        prop_assert_eq!(out.to_bits_vec().unwrap(), want, "{} in place", d);
    }
}
