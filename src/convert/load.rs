//! A tensor, or a sample of one, read alone onto a device, a piece at a time.

use super::checkpoint::{Checkpoint, Shard};
use super::piece::{
    block_bytes, byte_group, in_tensor, read_any, read_blocks, read_blocks_on, read_piece, step_of,
    PIECE_BYTES,
};
use super::source::Source;
use crate::array::AnyArray;
use crate::dtype::DType;
use crate::error::Error;
use crate::formats::{host_size, Entry};
use crate::rig::Rig;

/// The tensor `name` of `checkpoint`, with its shard.
fn found<'a, S: Source>(
    checkpoint: &'a Checkpoint<S>,
    name: &str,
) -> Result<(&'a Shard<S>, &'a Entry), Error> {
    checkpoint.find(name).ok_or_else(|| Error::Format {
        path: checkpoint
            .index
            .as_ref()
            .map(|(n, _)| n.clone())
            .unwrap_or_else(|| checkpoint.shards[0].source.name().to_owned()),
        tensor: Some(name.to_owned()),
        reason: "no tensor of that name".into(),
    })
}

/// Elements `from..from + n` (in C order) of the tensor `name` of `checkpoint`, as a
/// one-axis array on `device`, reading only their bytes: a sample of a tensor of any
/// size.
///
/// # Errors
/// [`Error::Format`] naming the checkpoint and the tensor: no tensor of that name, a
/// range past its elements, a Fortran-order tensor, a `from` whose element starts inside
/// a byte of the file (an odd one of a 4-bit dtype, one not a multiple of 4 of a
/// float6); a source that fails to read.
pub async fn load_range<S: Source>(
    checkpoint: &Checkpoint<S>,
    name: &str,
    from: u64,
    n: u64,
    device: &Rig,
) -> Result<AnyArray, Error> {
    let (shard, e) = found(checkpoint, name)?;
    let numel = crate::formats::planned_numel(&e.shape).unwrap_or(0);
    let refuse = |reason: String| {
        Err(Error::Format {
            path: shard.source.name().to_owned(),
            tensor: Some(e.name.clone()),
            reason,
        })
    };
    if from.checked_add(n).is_none_or(|end| end > numel) {
        return refuse(format!(
            "elements {from}..{from}+{n} are not inside its {numel}"
        ));
    }
    if e.fortran {
        return refuse("a range of a Fortran-order tensor is not one run of the file".into());
    }
    if let Some(q) = e.ggml {
        let b = q.block as u64;
        if !from.is_multiple_of(b) || !n.is_multiple_of(b) {
            return refuse(format!(
                "a range of {} must be whole blocks of {b} elements",
                q.name
            ));
        }
        if crate::quant::dequantizes_on(q, device) {
            return Ok(read_blocks_on(shard, e, q, (from, n), device).await?.0);
        }
        return read_blocks(shard, e, q, from, n).await?.to_device(device);
    }
    let group = byte_group(e);
    if !from.is_multiple_of(group) {
        return refuse(format!(
            "a range of {} must start at a multiple of {group} elements (the first of a byte)",
            e.dtype
        ));
    }
    read_piece(shard, e, from, n).await?.to_device(device)
}

/// The tensor `name` of `checkpoint` on `device`, reading only its bytes, a piece at
/// a time, each written into the new array as it is read (a GPU's memory gets pieces
/// uploaded as they come: the host holds at most a piece).
///
/// # Errors
/// [`Error::Format`] naming the checkpoint and the tensor: no tensor of that name, a
/// source that fails to read; an array the device cannot hold
/// ([`Error::OutOfMemory`], [`Error::TooLarge`]).
pub async fn load<S: Source>(
    checkpoint: &Checkpoint<S>,
    name: &str,
    device: &Rig,
) -> Result<AnyArray, Error> {
    let (shard, e) = found(checkpoint, name)?;
    if e.fortran {
        return read_piece(shard, e, 0, 0).await?.to_device(device);
    }
    let out = AnyArray::create_async(device, e.dtype, &e.shape).await?;
    let numel = crate::formats::planned_numel(&e.shape).unwrap_or(0);
    let step = step_of(e, numel);
    let mut from = 0;
    let mut queued = 0;
    let mut uploading: Option<crate::rig::ReadAsync> = None;
    let on_device = e.ggml.filter(|&q| crate::quant::dequantizes_on(q, device));
    let flat = match on_device {
        Some(_) => Some(out.reshape(&[host_size(numel)?])?),
        None => None,
    };
    while from < numel {
        let n = step.min(numel - from);
        if let (Some(q), Some(flat)) = (on_device, &flat) {
            // The blocks uploaded as they are, dequantized into the array there.
            let z = flat
                .slice(&[crate::layout::Slice::new(
                    Some(host_size(from)? as isize),
                    Some(host_size(from + n)? as isize),
                    1,
                )])?
                .bitcast(DType::Uint32)?
                .ok_or_else(|| {
                    in_tensor(
                        shard,
                        e,
                        Error::Format {
                            path: String::new(),
                            tensor: None,
                            reason: "nxrig bug: float32 does not view as uint32".into(),
                        },
                    )
                })?;
            let b = block_bytes(shard, e, q, (from, n)).await?;
            let b = b.read(|b| b.to_vec())?;
            crate::quant::dequantize_ggml_into(q, &b, &z)
                .await
                .map_err(|err| in_tensor(shard, e, err))?;
            from += n;
            continue;
        }
        // Read while the piece before is uploaded.
        let piece = read_any(shard, e, from, n).await?;
        let at = (from * e.dtype.bits() as u64 / 8) as usize;
        let bytes = super::sink::host_bytes(&piece).await?;
        // A GPU's queue takes writes faster than it does them (the browser keeps each in
        // shared memory until then): one piece's upload in flight, awaited once the
        // next piece is read, before that one is written.
        if let Some(done) = uploading.take() {
            done.await?;
        }
        bytes.read(|b| out.buffer().write_bytes(at, b))??;
        queued += bytes.len();
        if !device.host_addressable() && queued >= PIECE_BYTES {
            queued = 0;
            // Done when a read of its last bytes, queued behind it, is.
            uploading = Some(out.buffer().view(at, bytes.len().min(4))?.read_async());
        }
        from += n;
    }
    if let Some(done) = uploading {
        done.await?;
    }
    Ok(out)
}
