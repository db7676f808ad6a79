//! The host body of an elementwise kernel (C-contiguous operands of one shape go to
//! `host_flat.rs`): the outputs' index space cut into blocks
//! of at most [`BLOCK`] elements (boxes of whole inner axes and a run of one axis),
//! on the host's threads; in each block every input decoded into the compute type by
//! the typed cast loops, the user's function over the chunks, and each output rounded
//! once into its dtype and stored into its layout.

use super::{Compute, HostBody};
use crate::array::{AnyArray, Array};
use crate::error::Error;
use crate::layout::Slice;
use crate::rig::Rig;

/// Elements a block at most: the chunks of a few operands stay in the cache.
const BLOCK: usize = 1 << 14;

/// The blocks of `shape`: each the slices of one box, in C order.
fn blocks(shape: &[usize]) -> Vec<Vec<Slice>> {
    if shape.contains(&0) {
        return Vec::new();
    }
    // Axes k.. fit a block whole; axis k - 1 is cut into runs, the axes before it
    // taken one index at a time.
    let (mut k, mut inner) = (shape.len(), 1usize);
    while k > 0 && inner * shape[k - 1] <= BLOCK {
        k -= 1;
        inner *= shape[k];
    }
    if k == 0 {
        return vec![Vec::new()];
    }
    let run = (BLOCK / inner).max(1);
    let cut = k - 1;
    let outer: usize = shape[..cut].iter().product();
    let mut out = Vec::new();
    for o in 0..outer {
        let mut index = vec![0usize; cut];
        let mut rest = o;
        for a in (0..cut).rev() {
            index[a] = rest % shape[a];
            rest /= shape[a];
        }
        let mut s = 0;
        while s < shape[cut] {
            let e = (s + run).min(shape[cut]);
            let mut sl: Vec<Slice> = index
                .iter()
                .map(|&i| Slice::new(Some(i as isize), Some(i as isize + 1), 1))
                .collect();
            sl.push(Slice::new(Some(s as isize), Some(e as isize), 1));
            out.push(sl);
            s = e;
        }
    }
    out
}

/// `f` over `inputs` (broadcast to the outputs' shape) into `outputs`, on the host;
/// the caller holds the door's claims.
pub(crate) fn run<C: Compute>(
    f: &HostBody<C>,
    inputs: &[AnyArray],
    outputs: &[&AnyArray],
    op: &'static str,
) -> Result<(), Error> {
    if super::host_flat::takes(inputs, outputs) {
        return super::host_flat::run(f, inputs, outputs, op);
    }
    let blocks = blocks(outputs[0].shape());
    let one = |sl: &Vec<Slice>| block(f, inputs, outputs, sl, op);
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        if blocks.len() > 1 {
            return blocks.par_iter().try_for_each(one);
        }
    }
    blocks.iter().try_for_each(one)
}

/// One block: decode, `f`, encode.
fn block<C: Compute>(
    f: &HostBody<C>,
    inputs: &[AnyArray],
    outputs: &[&AnyArray],
    sl: &[Slice],
    op: &'static str,
) -> Result<(), Error> {
    let host = Rig::host();
    let view = |a: &AnyArray| {
        if sl.is_empty() {
            Ok(a.clone())
        } else {
            a.slice(sl)
        }
    };
    let outs = outputs
        .iter()
        .map(|a| view(a))
        .collect::<Result<Vec<_>, _>>()?;
    let shape = outs[0].shape().to_vec();
    let len = outs[0].layout().numel();
    // Every input's chunk, one after the other in one array of the compute type.
    let decoded = AnyArray::create_to_fill(&host, C::DTYPE, &[inputs.len().max(1), len])?;
    for (j, a) in inputs.iter().enumerate() {
        let row = row(&decoded, j, &shape)?;
        crate::kernels::host::cast(&view(a)?, &row, op)?;
    }
    let mut results = vec![C::zeroed(); outputs.len() * len];
    decoded.buffer().read(|b| {
        let all: &[C] = bytemuck::cast_slice(&b[..inputs.len() * len * std::mem::size_of::<C>()]);
        let ins: Vec<&[C]> = all.chunks_exact(len.max(1)).take(inputs.len()).collect();
        let mut outs: Vec<&mut [C]> = results.chunks_exact_mut(len.max(1)).collect();
        f(&ins, &mut outs);
    })?;
    let results: AnyArray = Array::from_vec(&[outputs.len(), len], results)?.into();
    for (j, o) in outs.iter().enumerate() {
        crate::kernels::host::cast(&row(&results, j, &shape)?, o, op)?;
    }
    Ok(())
}

/// Row `j` of the C-contiguous `[rows, n]` array `a`, viewed at `shape`.
fn row(a: &AnyArray, j: usize, shape: &[usize]) -> Result<AnyArray, Error> {
    a.slice(&[Slice::new(Some(j as isize), Some(j as isize + 1), 1)])?
        .reshape(shape)
}
