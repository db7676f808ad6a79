//! Layouts and movements against brute-force walks of every index (proptest), and
//! slices against Python's own slicing (the table below was printed by CPython).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::collections::HashSet;

use nxrig::{Layout, Move, Slice};
use proptest::prelude::*;

/// Every index of `shape` in C order.
fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for &n in shape {
        out = out
            .into_iter()
            .flat_map(|p| (0..n).map(move |i| [p.clone(), vec![i]].concat()))
            .collect();
    }
    out
}

/// The position of `i` by the definition: offset + Σ i[k] * strides[k].
fn pos(l: &Layout, i: &[usize]) -> isize {
    l.offset() as isize
        + i.iter()
            .zip(l.strides())
            .map(|(&a, &s)| a as isize * s)
            .sum::<isize>()
}

fn positions(l: &Layout) -> Vec<isize> {
    indices(l.shape()).iter().map(|i| pos(l, i)).collect()
}

/// A layout of rank 0 to 4, extents 0 to 4, strides -7 to 7, with its least position
/// at `extra` (0 to 3).
fn layout() -> impl Strategy<Value = Layout> {
    (0usize..=4)
        .prop_flat_map(|r| {
            (
                prop::collection::vec(0usize..=4, r),
                prop::collection::vec(-7isize..=7, r),
                0usize..=3,
            )
        })
        .prop_map(|(shape, strides, extra)| {
            let low: isize = shape
                .iter()
                .zip(&strides)
                .map(|(&n, &s)| {
                    if s < 0 && n > 0 {
                        (n as isize - 1) * s
                    } else {
                        0
                    }
                })
                .sum();
            Layout::new(&shape, &strides, (extra as isize - low) as usize).unwrap()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn is_distinct_is_exact(l in layout()) {
        let p = positions(&l);
        let distinct = p.iter().collect::<HashSet<_>>().len() == p.len();
        prop_assert_eq!(l.is_distinct(), distinct, "{:?}", l);
    }

    #[test]
    fn bounds_are_the_least_and_greatest_positions(l in layout()) {
        let p = positions(&l);
        let want = if p.is_empty() { None } else { Some((*p.iter().min().unwrap() as usize, *p.iter().max().unwrap() as usize)) };
        prop_assert_eq!(l.bounds(), want);
    }

    #[test]
    fn is_contiguous_means_consecutive_positions(l in layout()) {
        let p = positions(&l);
        let want = p.iter().enumerate().all(|(k, &q)| q == l.offset() as isize + k as isize);
        prop_assert_eq!(l.is_contiguous(), want, "{:?}", l);
    }

    #[test]
    fn for_each_position_walks_c_order(l in layout()) {
        let mut got = vec![];
        l.for_each_position(|p| got.push(p as isize));
        prop_assert_eq!(got, positions(&l));
    }

    #[test]
    fn reshape_is_a_view_exactly_when_one_exists(l in layout(), split in 0usize..4) {
        let n = l.numel();
        // Target shapes: every way to write n as up to three factors, and a few with unit axes.
        let mut targets = vec![vec![n], vec![1, n], vec![n, 1]];
        for a in 1..=n.max(1) {
            if n % a == 0 {
                targets.push(vec![a, n / a]);
                for b in 1..=(n / a).max(1) {
                    if (n / a) % b == 0 { targets.push(vec![a, b, n / a / b]); }
                }
            }
        }
        if n == 0 { targets.extend([vec![0, 3], vec![2, 0, 2]]); }
        let t = &targets[split % targets.len()];
        let src = positions(&l);
        match l.move_(&Move::Reshape(t.clone())).unwrap() {
            Some(m) => {
                prop_assert_eq!(m.shape(), t.as_slice());
                prop_assert_eq!(positions(&m), src);
            }
            None => {
                // No strides reproduce the positions: derive the only candidates and check.
                let idx = indices(t);
                let mut strides = vec![0isize; t.len()];
                for k in 0..t.len() {
                    if t[k] > 1 {
                        let mut e = vec![0; t.len()];
                        e[k] = 1;
                        let at = idx.iter().position(|i| *i == e).unwrap();
                        strides[k] = src[at] - src[0];
                    }
                }
                let cand: Vec<isize> = idx.iter().map(|i| src[0] + i.iter().zip(&strides).map(|(&a, &s)| a as isize * s).sum::<isize>()).collect();
                prop_assert_ne!(cand, src, "{:?} to {:?} has a view", l, t);
            }
        }
    }

    #[test]
    fn permute_expand_flip_squeeze_map_indices(l in layout(), seed in any::<u64>()) {
        let r = l.rank();
        let shape = l.shape().to_vec();
        // Permute: a rotation by seed.
        let perm: Vec<usize> = (0..r).map(|k| (k + seed as usize) % r.max(1)).collect();
        let m = l.move_(&Move::Permute(perm.clone())).unwrap().unwrap();
        for i in indices(m.shape()) {
            let mut j = vec![0; r];
            for k in 0..r { j[perm[k]] = i[k]; }
            prop_assert_eq!(pos(&m, &i), pos(&l, &j));
        }
        // Flip: the axes whose bit is set in seed.
        let axes: Vec<usize> = (0..r).filter(|k| seed >> k & 1 == 1).collect();
        let m = l.move_(&Move::Flip(axes.clone())).unwrap().unwrap();
        for i in indices(&shape) {
            let j: Vec<usize> = (0..r).map(|k| if axes.contains(&k) { shape[k] - 1 - i[k] } else { i[k] }).collect();
            prop_assert_eq!(pos(&m, &i), pos(&l, &j));
        }
        // Unsqueeze then squeeze at every place.
        for k in 0..=r {
            if r == nxrig::layout::MAX_RANK { break; }
            let u = l.move_(&Move::Unsqueeze(k)).unwrap().unwrap();
            let mut s = shape.clone();
            s.insert(k, 1);
            prop_assert_eq!(u.shape(), s.as_slice());
            prop_assert_eq!(positions(&u), positions(&l));
            prop_assert_eq!(u.move_(&Move::Squeeze(k)).unwrap().unwrap(), l);
        }
        // Expand: every unit axis to 3.
        let to: Vec<usize> = shape.iter().map(|&n| if n == 1 { 3 } else { n }).collect();
        let e = l.move_(&Move::Expand(to.clone())).unwrap().unwrap();
        for i in indices(&to) {
            let j: Vec<usize> = (0..r).map(|k| if shape[k] == 1 { 0 } else { i[k] }).collect();
            prop_assert_eq!(pos(&e, &i), pos(&l, &j));
        }
    }
}

/// (extent, start, stop, step, Python's `list(range(n))[start:stop:step]`).
type PySlice = (usize, Option<isize>, Option<isize>, isize, &'static [usize]);

const PY_SLICES: &[PySlice] = &[
    (0, Some(-1), Some(-7), 1, &[]),
    (0, Some(5), None, -3, &[]),
    (0, Some(2), Some(-12), -1, &[]),
    (0, Some(3), None, 2, &[]),
    (0, Some(-5), None, -3, &[]),
    (0, Some(0), Some(0), -3, &[]),
    (0, Some(-5), Some(-12), 2, &[]),
    (0, Some(0), None, 2, &[]),
    (0, Some(-12), Some(-5), 3, &[]),
    (0, Some(5), Some(3), -3, &[]),
    (0, Some(3), Some(3), 1, &[]),
    (0, None, Some(-5), -3, &[]),
    (0, Some(2), Some(-7), -1, &[]),
    (0, Some(0), Some(-7), 2, &[]),
    (0, Some(-12), Some(3), -1, &[]),
    (0, Some(2), Some(5), -2, &[]),
    (0, Some(-12), Some(3), 2, &[]),
    (0, Some(5), Some(-5), -1, &[]),
    (0, Some(-12), Some(2), 3, &[]),
    (0, Some(-12), Some(3), -3, &[]),
    (0, Some(3), Some(-5), 1, &[]),
    (0, Some(5), Some(2), 1, &[]),
    (0, Some(12), Some(-1), 1, &[]),
    (0, Some(3), Some(1), -1, &[]),
    (0, Some(-3), Some(-5), -2, &[]),
    (0, Some(7), Some(12), -2, &[]),
    (0, Some(-12), Some(3), -1, &[]),
    (0, Some(2), Some(1), -1, &[]),
    (0, Some(7), Some(1), -1, &[]),
    (0, Some(3), Some(-12), -3, &[]),
    (0, Some(2), Some(0), -2, &[]),
    (0, Some(12), Some(-1), -2, &[]),
    (0, Some(1), Some(0), -3, &[]),
    (0, Some(5), Some(-12), 2, &[]),
    (0, Some(3), Some(12), -1, &[]),
    (0, Some(-1), Some(7), -1, &[]),
    (0, Some(3), Some(1), 2, &[]),
    (0, Some(12), Some(1), -3, &[]),
    (0, Some(-12), Some(-3), 1, &[]),
    (0, Some(7), Some(5), -3, &[]),
    (1, None, Some(7), 3, &[0]),
    (1, Some(-3), Some(5), 2, &[0]),
    (1, Some(5), Some(1), -1, &[]),
    (1, Some(7), Some(0), 3, &[]),
    (1, Some(-1), None, 1, &[0]),
    (1, Some(-1), Some(-7), 2, &[]),
    (1, Some(-12), Some(1), -3, &[]),
    (1, Some(-5), Some(12), -1, &[]),
    (1, Some(-7), Some(7), -2, &[]),
    (1, Some(0), Some(0), 1, &[]),
    (1, Some(-12), Some(-7), 1, &[]),
    (1, Some(0), Some(2), -1, &[]),
    (1, Some(-7), Some(0), 2, &[]),
    (1, Some(-3), Some(7), 1, &[0]),
    (1, Some(-1), Some(5), 1, &[0]),
    (1, Some(-5), Some(-7), -3, &[]),
    (1, Some(-7), Some(-7), -2, &[]),
    (1, Some(5), Some(-5), -3, &[0]),
    (1, Some(1), Some(3), -2, &[]),
    (1, Some(-3), Some(-3), -3, &[]),
    (1, Some(-7), Some(0), 2, &[]),
    (1, Some(-1), Some(3), 2, &[0]),
    (1, Some(-1), Some(-7), 3, &[]),
    (1, Some(2), Some(3), 3, &[]),
    (1, Some(5), Some(7), -3, &[]),
    (1, Some(1), Some(12), 3, &[]),
    (1, Some(12), Some(2), 1, &[]),
    (1, Some(0), Some(0), 1, &[]),
    (1, Some(-12), Some(1), 3, &[0]),
    (1, Some(0), None, -2, &[0]),
    (1, Some(-12), Some(-5), 1, &[]),
    (1, Some(-7), Some(-12), -1, &[]),
    (1, Some(3), None, -3, &[0]),
    (1, None, Some(3), -2, &[]),
    (1, Some(2), Some(-12), -1, &[0]),
    (1, Some(3), None, -3, &[0]),
    (1, Some(-5), Some(3), 1, &[0]),
    (1, Some(-7), Some(5), -1, &[]),
    (1, Some(-1), Some(3), -1, &[]),
    (1, Some(1), Some(-12), -3, &[0]),
    (2, Some(1), Some(1), 1, &[]),
    (2, Some(1), Some(-3), -3, &[1]),
    (2, Some(-7), Some(-12), 3, &[]),
    (2, Some(-1), Some(7), -1, &[]),
    (2, Some(1), Some(7), -2, &[]),
    (2, Some(2), None, -2, &[1]),
    (2, Some(2), Some(-1), -2, &[]),
    (2, Some(7), Some(2), -3, &[]),
    (2, Some(12), Some(2), -1, &[]),
    (2, Some(5), Some(-12), 3, &[]),
    (2, Some(-3), Some(2), -1, &[]),
    (2, Some(-7), Some(-1), -2, &[]),
    (2, Some(2), Some(2), 2, &[]),
    (2, Some(-1), Some(5), -2, &[]),
    (2, Some(3), Some(12), -2, &[]),
    (2, Some(12), Some(-5), 1, &[]),
    (2, Some(7), Some(12), -2, &[]),
    (2, Some(-5), Some(2), 1, &[0, 1]),
    (2, Some(-1), Some(7), -3, &[]),
    (2, None, Some(12), -1, &[]),
    (2, Some(1), Some(-3), -2, &[1]),
    (2, Some(7), Some(3), -1, &[]),
    (2, Some(1), Some(12), 3, &[1]),
    (2, Some(-1), Some(-1), -3, &[]),
    (2, Some(-5), Some(-12), -2, &[]),
    (2, Some(1), Some(-5), -1, &[1, 0]),
    (2, Some(-5), Some(1), 2, &[0]),
    (2, Some(3), None, 1, &[]),
    (2, Some(5), Some(-1), 3, &[]),
    (2, Some(-12), Some(5), -3, &[]),
    (2, Some(0), Some(12), 3, &[0]),
    (2, Some(12), Some(-5), 1, &[]),
    (2, Some(-7), Some(0), 3, &[]),
    (2, Some(-1), Some(-12), 3, &[]),
    (2, Some(0), Some(1), 1, &[0]),
    (2, Some(7), Some(-12), 3, &[]),
    (2, Some(-7), Some(-7), -2, &[]),
    (2, None, Some(-7), 2, &[]),
    (2, Some(1), Some(12), 3, &[1]),
    (2, Some(-7), Some(3), 2, &[0]),
    (5, Some(1), Some(5), -1, &[]),
    (5, Some(-7), Some(2), 2, &[0]),
    (5, Some(-7), None, -3, &[]),
    (5, Some(12), Some(7), 3, &[]),
    (5, Some(-12), Some(2), 3, &[0]),
    (5, Some(-7), Some(0), -2, &[]),
    (5, Some(-5), None, -1, &[0]),
    (5, Some(-5), Some(-3), 2, &[0]),
    (5, Some(-5), Some(12), 2, &[0, 2, 4]),
    (5, Some(-1), Some(-3), 2, &[]),
    (5, Some(0), Some(-7), -3, &[0]),
    (5, Some(7), Some(-1), 1, &[]),
    (5, Some(5), Some(3), 2, &[]),
    (5, Some(0), Some(2), -2, &[]),
    (5, Some(2), Some(-7), 2, &[]),
    (5, Some(2), None, 1, &[2, 3, 4]),
    (5, Some(12), Some(-7), 2, &[]),
    (5, None, Some(12), -2, &[]),
    (5, Some(-7), Some(-7), 1, &[]),
    (5, Some(3), Some(7), -3, &[]),
    (5, Some(2), None, -1, &[2, 1, 0]),
    (5, Some(5), Some(2), 2, &[]),
    (5, Some(2), Some(1), -3, &[2]),
    (5, Some(2), None, -2, &[2, 0]),
    (5, Some(-5), Some(-3), -3, &[]),
    (5, Some(12), Some(-12), 2, &[]),
    (5, Some(1), Some(2), -3, &[]),
    (5, Some(12), Some(-12), 1, &[]),
    (5, Some(-1), Some(3), 2, &[]),
    (5, Some(3), Some(2), -2, &[3]),
    (5, Some(7), Some(-3), 1, &[]),
    (5, Some(2), Some(2), 1, &[]),
    (5, Some(2), Some(-5), 3, &[]),
    (5, Some(2), Some(-3), 2, &[]),
    (5, Some(-5), Some(1), -2, &[]),
    (5, Some(0), Some(-12), 1, &[]),
    (5, Some(1), Some(-1), -3, &[]),
    (5, Some(5), Some(-5), 1, &[]),
    (5, Some(-12), Some(-5), 3, &[]),
    (5, Some(-3), Some(12), -3, &[]),
    (7, Some(12), Some(-7), 3, &[]),
    (7, Some(5), Some(5), -1, &[]),
    (7, Some(-7), Some(-3), -2, &[]),
    (7, Some(1), Some(-5), 3, &[1]),
    (7, Some(-12), Some(0), 1, &[]),
    (7, Some(-7), Some(5), -2, &[]),
    (7, Some(-7), Some(7), 1, &[0, 1, 2, 3, 4, 5, 6]),
    (7, Some(2), Some(0), -1, &[2, 1]),
    (7, Some(0), Some(-5), -1, &[]),
    (7, Some(-1), Some(-12), 3, &[]),
    (7, Some(-1), None, -1, &[6, 5, 4, 3, 2, 1, 0]),
    (7, Some(2), Some(1), 1, &[]),
    (7, Some(7), None, 1, &[]),
    (7, Some(-1), Some(2), 2, &[]),
    (7, Some(-3), Some(2), -3, &[4]),
    (7, Some(-12), Some(12), -2, &[]),
    (7, Some(-12), Some(-12), -1, &[]),
    (7, Some(-3), None, -2, &[4, 2, 0]),
    (7, Some(-3), Some(12), -2, &[]),
    (7, Some(0), Some(5), -1, &[]),
    (7, Some(0), Some(-7), 2, &[]),
    (7, Some(2), Some(3), 1, &[2]),
    (7, Some(7), Some(-1), -3, &[]),
    (7, Some(-3), None, 3, &[4]),
    (7, Some(-7), Some(0), -3, &[]),
    (7, Some(-3), None, 3, &[4]),
    (7, Some(-12), Some(12), -1, &[]),
    (7, Some(-12), Some(3), -2, &[]),
    (7, Some(-12), Some(-3), -3, &[]),
    (7, Some(1), None, -1, &[1, 0]),
    (7, Some(2), Some(0), -1, &[2, 1]),
    (7, Some(3), Some(-7), -3, &[3]),
    (7, Some(2), Some(7), -2, &[]),
    (7, Some(-12), Some(-7), -1, &[]),
    (7, None, Some(-7), -2, &[6, 4, 2]),
    (7, Some(-3), Some(5), -1, &[]),
    (7, Some(2), Some(12), -2, &[]),
    (7, Some(-3), Some(1), 2, &[]),
    (7, Some(5), Some(-7), -1, &[5, 4, 3, 2, 1]),
    (7, Some(-1), Some(12), -3, &[]),
];

#[test]
fn slices_take_what_python_takes() {
    for &(n, start, stop, step, want) in PY_SLICES {
        let l = Layout::contiguous(&[n]).unwrap();
        let m = l
            .move_(&Move::Slice(vec![Slice::new(start, stop, step)]))
            .unwrap()
            .unwrap();
        let got: Vec<usize> = positions(&m).into_iter().map(|p| p as usize).collect();
        assert_eq!(got, want, "range({n})[{start:?}:{stop:?}:{step}]");
        if let Some((_, hi)) = m.bounds() {
            assert!(hi < n);
        }
        assert!(
            n == 0 || m.offset() < n,
            "offset {} outside range({n})",
            m.offset()
        );
    }
}

#[test]
fn bad_movements_are_errors_not_panics() {
    let l = Layout::contiguous(&[2, 3]).unwrap();
    for m in [
        Move::Reshape(vec![4]),
        Move::Permute(vec![0, 0]),
        Move::Permute(vec![0]),
        Move::Expand(vec![4, 3]),
        Move::Expand(vec![2]),
        Move::Slice(vec![Slice::new(None, None, 0)]),
        Move::Slice(vec![Slice::FULL; 3]),
        Move::Flip(vec![2]),
        Move::Flip(vec![1, 1]),
        Move::Unsqueeze(3),
        Move::Squeeze(0),
        Move::Squeeze(5),
        Move::Reshape(vec![1; 17]),
    ] {
        common::refused(l.move_(&m), "Layout", m.name());
    }
    common::refused(Layout::new(&[2], &[1, 1], 0), "Layout", "Layout::new");
    let e = common::refused(Layout::new(&[2], &[-1], 0), "Layout", "Layout::new");
    assert!(
        e.to_string().contains("below 0"),
        "a negative position: {e}"
    );
    common::refused(Layout::contiguous(&[1; 17]), "Layout", "Layout::contiguous");
    common::refused(
        Layout::contiguous(&[usize::MAX, 2]),
        "Layout",
        "Layout::contiguous",
    );
}
