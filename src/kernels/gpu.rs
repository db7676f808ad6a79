//! Device kernels on a GPU: the WGSL that `crate::wgsl` generates from the dtype
//! table, dispatched through the rig. Called from the kernels' front doors (cast, fill)
//! when the arrays are on a GPU; the door's claims are held by then. Seed: `Nx_array`
//! § Kernels (device kernels); DESIGN.md decision 6.

use crate::array::AnyArray;
use crate::dtype::write_bits;
use crate::error::Error;
use crate::layout::Layout;
use crate::wgsl::cast_module;

/// `src`'s elements converted into `dst`'s dtype (one rounding, the dtype table's
/// rule), both on one GPU in two memories, any layouts.
pub(crate) fn cast(src: &AnyArray, dst: &AnyArray, op: &'static str) -> Result<(), Error> {
    let (Some((sb, _)), Some((db, _))) = (src.buffer().gpu_memory(), dst.buffer().gpu_memory())
    else {
        unreachable!("nxrig bug: a GPU cast of host memory")
    };
    let (sbase, dbase) = (src.gpu_base(op)?, dst.gpu_base(op)?);
    let (sd, dd) = (src.dtype(), dst.dtype());
    let rig = dst.rig();
    let g = rig.wgpu().expect("GPU memory is on a GPU");
    let params = g.walk(op, (src.layout(), sbase), (dst.layout(), dbase), &[sb, db])?;
    rig.submit(&[src.buffer()], &[dst.buffer()], || {
        g.dispatch(
            op,
            &format!("cast {sd} {dd}"),
            || cast_module(sd, dd),
            &params,
            &[sb, db],
            src.layout().numel() as u32,
        )
    })?;
    Ok(())
}

/// Every element of `out` (on a GPU) set to the raw `bits`: the strided blit from one
/// staged element at stride 0.
pub(crate) fn fill(out: &AnyArray, bits: u128, op: &'static str) -> Result<(), Error> {
    let Some((db, _)) = out.buffer().gpu_memory() else {
        unreachable!("nxrig bug: a GPU fill of host memory")
    };
    let d = out.dtype();
    let base = out.gpu_base(op)?;
    let mut one = [0u8; 16];
    write_bits(d, &mut one, 0, bits);
    let rig = out.rig();
    let g = rig.wgpu().expect("GPU memory is on a GPU");
    let src = g.staged(&one);
    let l = Layout::new(out.shape(), &vec![0; out.shape().len()], 0)?;
    rig.submit(&[], &[out.buffer()], || {
        g.blit_strided(op, d.bits(), &src, (&l, 0), db, (out.layout(), base))
    })?;
    Ok(())
}
