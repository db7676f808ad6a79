//! The walk of host kernels: the elements of several layouts of one shape as runs
//! along their innermost axis, each run contiguous or at a fixed stride in every
//! operand, so that a kernel gets whole runs (typed loops) rather than one element at
//! a time. Axes of extent 1 drop out and axes that continue each other in every
//! layout merge, so a C-contiguous array is one run, and a transposed one runs along
//! its output. Host kernels and placement walk with it.

use super::Layout;

/// `N` layouts of one shape, merged into runs.
pub(crate) struct Runs<const N: usize> {
    /// Merged extents, outermost first; the last is the run.
    shape: Vec<usize>,
    /// Each layout's strides over `shape` (elements).
    strides: [Vec<isize>; N],
    /// Each layout's offset (elements).
    offsets: [usize; N],
}

impl<const N: usize> Runs<N> {
    /// The runs of `layouts`, which have one shape.
    pub(crate) fn new(layouts: [&Layout; N]) -> Runs<N> {
        let shape0 = layouts[0].shape();
        let keep: Vec<usize> = (0..shape0.len()).filter(|&k| shape0[k] != 1).collect();
        let mut shape: Vec<usize> = Vec::with_capacity(keep.len());
        let mut strides: [Vec<isize>; N] = std::array::from_fn(|_| Vec::new());
        for &k in &keep {
            let n = shape0[k];
            let merges = !shape.is_empty()
                && (0..N).all(|j| {
                    let s = &strides[j];
                    s[s.len() - 1] == layouts[j].strides()[k] * n as isize
                });
            if merges {
                *shape.last_mut().expect("an axis") *= n;
                for (j, l) in layouts.iter().enumerate() {
                    *strides[j].last_mut().expect("an axis") = l.strides()[k];
                }
            } else {
                shape.push(n);
                for (j, l) in layouts.iter().enumerate() {
                    strides[j].push(l.strides()[k]);
                }
            }
        }
        if shape.is_empty() {
            // A single element (or none, where an axis of extent 0 was kept).
            shape.push(1);
            for s in &mut strides {
                s.push(0);
            }
        }
        Runs {
            shape,
            strides,
            offsets: std::array::from_fn(|j| layouts[j].offset()),
        }
    }

    /// The number of elements.
    #[cfg(test)]
    pub(crate) fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Each layout's stride along the runs (elements).
    pub(crate) fn inner(&self) -> [isize; N] {
        std::array::from_fn(|j| *self.strides[j].last().expect("an axis"))
    }

    /// Calls `f(positions, len)` for the runs of the elements with C-order indices
    /// `from..to` (parts of runs at either end), `positions` each layout's position
    /// (elements) of the run's first element.
    pub(crate) fn each(&self, from: usize, to: usize, mut f: impl FnMut([usize; N], usize)) {
        if from >= to {
            return;
        }
        let r = self.shape.len();
        let run = self.shape[r - 1];
        // The index of element `from`, and the positions there.
        let mut index = vec![0usize; r];
        let mut rest = from;
        for k in (0..r).rev() {
            index[k] = rest % self.shape[k];
            rest /= self.shape[k];
        }
        let mut pos: [isize; N] = std::array::from_fn(|j| {
            self.offsets[j] as isize
                + (0..r)
                    .map(|k| index[k] as isize * self.strides[j][k])
                    .sum::<isize>()
        });
        let mut i = from;
        while i < to {
            let len = (run - index[r - 1]).min(to - i);
            f(std::array::from_fn(|j| pos[j] as usize), len);
            i += len;
            // Advance to the next run's first element.
            for (p, s) in pos.iter_mut().zip(&self.strides) {
                *p += len as isize * s[r - 1];
            }
            index[r - 1] += len;
            let mut k = r - 1;
            while index[k] == self.shape[k] && k > 0 {
                for (p, s) in pos.iter_mut().zip(&self.strides) {
                    *p += s[k - 1] - self.shape[k] as isize * s[k];
                }
                index[k] = 0;
                index[k - 1] += 1;
                k -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: each layout's positions in C order.
    fn positions(l: &Layout) -> Vec<usize> {
        let mut v = Vec::new();
        l.for_each_position(|p| v.push(p));
        v
    }

    #[test]
    fn runs_cover_every_element_in_order_from_any_start() {
        let a = Layout::new(&[3, 1, 4, 5], &[20, 7, 5, 1], 2).unwrap();
        let b = Layout::new(&[3, 1, 4, 5], &[1, 0, -15, 3], 57).unwrap();
        let c = Layout::new(&[3, 1, 4, 5], &[0, 0, 5, 1], 0).unwrap();
        let r = Runs::new([&a, &b, &c]);
        assert_eq!(r.numel(), 60);
        let want = [positions(&a), positions(&b), positions(&c)];
        for from in [0, 1, 4, 5, 17, 59, 60] {
            for to in [from, from + 1, 33.max(from), 60] {
                let mut got: [Vec<usize>; 3] = Default::default();
                r.each(from, to.min(60), |p, len| {
                    for (j, g) in got.iter_mut().enumerate() {
                        for i in 0..len {
                            g.push((p[j] as isize + i as isize * r.inner()[j]) as usize);
                        }
                    }
                });
                for j in 0..3 {
                    assert_eq!(got[j], want[j][from.min(60)..to.min(60)], "{from}..{to}");
                }
            }
        }
        // A C-contiguous pair is one run.
        let d = Layout::contiguous(&[4, 6, 2]).unwrap();
        let mut runs = 0;
        Runs::new([&d, &d]).each(0, 48, |_, len| {
            runs += 1;
            assert_eq!(len, 48);
        });
        assert_eq!(runs, 1);
    }
}
