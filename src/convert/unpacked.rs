//! compressed-tensors' `weight_shape`: the unpacked shape a packed weight's group
//! stands for, read from the checkpoint and held to the shape its packed words give,
//! before a conversion writes a byte.

use super::checkpoint::Checkpoint;
use super::source::Source;
use crate::dtype::DType;
use crate::error::Error;
use crate::quant::Group;

/// A compressed-tensors weight's `weight_shape` (the unpacked `[out, in]`, int64 or
/// int32) read and held to the shape its packed words give the group, before a byte
/// is written: a packing padded past the input axis (`in` not a multiple of `32 /
/// bits`) is refused, naming the tensor, never written at the padded shape.
pub(super) async fn check_unpacked_shape<S: Source>(
    checkpoint: &Checkpoint<S>,
    g: &Group,
) -> Result<(), Error> {
    let Some(p) = g.dropped.iter().find(|p| p.name.ends_with(".weight_shape")) else {
        return Ok(());
    };
    let shard = &checkpoint.shards[p.shard];
    let e = &shard.header.entries[p.entry];
    let fail = |reason: String| Error::Format {
        path: shard.source.name().to_owned(),
        tensor: Some(p.name.clone()),
        reason,
    };
    let width = match e.dtype {
        DType::Int64 => 8,
        DType::Int32 => 4,
        d => {
            return Err(fail(format!(
                "{d}, expected int64 (the unpacked weight's shape)"
            )))
        }
    };
    if e.len > 64 || e.fortran || e.big_endian {
        return Err(fail(format!(
            "{} bytes of {}: expected the unpacked weight's shape, a few int64s",
            e.len, e.dtype
        )));
    }
    let b = shard.source.read(e.start, e.len as usize).await?;
    let values: Vec<i64> = b.read(|b| {
        b.chunks_exact(width)
            .map(|c| match c.try_into() {
                Ok(w) => i64::from_le_bytes(w),
                Err(_) => i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            })
            .collect()
    })?;
    let planned: Vec<i64> = g.shape.iter().map(|&d| d as i64).collect();
    if values != planned {
        return Err(fail(format!(
            "the unpacked shape {values:?}, but the packed weight {:?} holds {planned:?}: \
             a packing padded past the input axis, which nxrig does not unpack",
            g.weight.name
        )));
    }
    Ok(())
}
