//! A tensor's pieces read from its checkpoint: [`PIECE_BYTES`] at a time, C-order
//! runs of the file's bytes as host arrays (byte-swapped, unpacked), or a GGUF
//! tensor's whole blocks dequantized into float32.

use super::checkpoint::Shard;
use super::source::Source;
use crate::array::AnyArray;
use crate::dtype::{CastMode, DType, Tally};
use crate::error::Error;
use crate::formats::{host_size, Entry};

/// The most input bytes converted at a time (a piece): 64 MiB natively, 16 M
/// float32s. A conversion holds a piece, its cast and (on a GPU) their staging,
/// whatever the sizes of the files and tensors.
#[cfg(not(target_arch = "wasm32"))]
pub const PIECE_BYTES: usize = 64 << 20;

/// The most input bytes converted at a time (a piece): 16 MiB in WebAssembly, where
/// a conversion's pieces in flight in JavaScript (read ahead, written behind) and its
/// wasm memory together stay under 256 MiB.
#[cfg(target_arch = "wasm32")]
pub const PIECE_BYTES: usize = 16 << 20;

/// The elements of a piece of `d`: [`PIECE_BYTES`] of them, a multiple of 8 (so that
/// a piece of elements packed under a byte, two, four or eight a byte or four in
/// three bytes, starts and ends on a byte).
fn piece_elements(d: DType) -> u64 {
    (PIECE_BYTES as u64 * 8 / d.bits() as u64).max(8) & !7
}

/// The least count of elements of `e` that fills whole bytes of its file: 2 for a
/// 4-bit dtype, 4 for a float6 (packed four in three bytes), 1 for a dtype of whole
/// bytes.
pub(super) fn byte_group(e: &Entry) -> u64 {
    // 8 over the greatest power of two that divides both 8 and the width.
    1 << (3 - e.file_bits.trailing_zeros().min(3))
}

/// Elements `from..from + n` of `e` (C order) as a one-axis host array: the bytes
/// read from `shard`'s source (byte-swapped where big-endian). A Fortran-order
/// tensor is read whole, in its layout (its C-order pieces are not runs of the
/// file).
pub(super) async fn read_piece<S: Source>(
    shard: &Shard<S>,
    e: &Entry,
    from: u64,
    n: u64,
) -> Result<AnyArray, Error> {
    let (start, len) = if e.fortran {
        (e.start, e.len)
    } else {
        let bits = e.file_bits as u64;
        (e.start + from * bits / 8, (n * bits).div_ceil(8))
    };
    let name = shard.source.name();
    let tensor = |err: Error| match err {
        Error::Format { path, reason, .. } => Error::Format {
            path,
            tensor: Some(e.name.clone()),
            reason,
        },
        other => other,
    };
    let bytes = shard
        .source
        .read(start, host_size(len)?)
        .await
        .map_err(tensor)?;
    let piece = Entry {
        shape: if e.fortran {
            e.shape.clone()
        } else {
            vec![n as usize]
        },
        start: 0,
        len,
        ..e.clone()
    };
    piece.array(name, &bytes)
}

/// `err` of the tensor `e` of `shard`: an [`Error::Format`] naming the file and the
/// tensor.
pub(super) fn in_tensor<S: Source>(shard: &Shard<S>, e: &Entry, err: Error) -> Error {
    Error::Format {
        path: shard.source.name().to_owned(),
        tensor: Some(e.name.clone()),
        reason: match err {
            Error::Format { reason, .. } => reason,
            other => other.to_string(),
        },
    }
}

/// The bytes of elements `from..from + n` (whole blocks) of the block-quantized GGUF
/// tensor `e` of type `q`, read from `shard`.
pub(super) async fn block_bytes<S: Source>(
    shard: &Shard<S>,
    e: &Entry,
    q: crate::formats::GgmlType,
    (from, n): (u64, u64),
) -> Result<crate::rig::Buffer, Error> {
    let (block, bytes) = (q.block as u64, q.block_bytes as u64);
    shard
        .source
        .read(
            e.start + from / block * bytes,
            host_size(n / block * bytes)?,
        )
        .await
        .map_err(|err| in_tensor(shard, e, err))
}

/// Elements `from..from + n` (whole blocks) of the block-quantized GGUF tensor `e`
/// of type `q`, dequantized into a one-axis float32 host array.
pub(super) async fn read_blocks<S: Source>(
    shard: &Shard<S>,
    e: &Entry,
    q: crate::formats::GgmlType,
    from: u64,
    n: u64,
) -> Result<AnyArray, Error> {
    let (values, _) =
        read_blocks_cast(shard, e, q, (from, n), DType::Float32, CastMode::Default).await?;
    Ok(values)
}

/// Elements `from..from + n` (whole blocks) of the block-quantized GGUF tensor `e`
/// of type `q`, dequantized on `device` (a GPU that dequantizes `q`,
/// [`crate::quant::dequantizes_on`]): a one-axis float32 array there, and its
/// workgroups' greatest magnitudes ([`crate::quant::dequantize_ggml_into`]).
pub(super) async fn read_blocks_on<S: Source>(
    shard: &Shard<S>,
    e: &Entry,
    q: crate::formats::GgmlType,
    (from, n): (u64, u64),
    device: &crate::Rig,
) -> Result<(AnyArray, AnyArray), Error> {
    let b = block_bytes(shard, e, q, (from, n)).await?;
    let b = b.read(|b| b.to_vec())?;
    crate::quant::dequantize_ggml_on(q, &b, device)
        .await
        .map_err(|err| in_tensor(shard, e, err))
}

/// What float32 `values` on a GPU become cast into `to` in `mode`, where `peaks` are
/// its workgroups' greatest magnitudes ([`read_blocks_on`]): the peaks read back, and
/// the values too only where one of them may count.
pub(super) async fn tally_on_device(
    values: &AnyArray,
    peaks: &AnyArray,
    to: DType,
    mode: CastMode,
) -> Result<Tally, Error> {
    if !crate::dtype::overflow::tallied(DType::Float32, to) {
        return Ok(Tally::default());
    }
    let p = super::sink::host_bytes(peaks).await?;
    let peak = p.read(|b| {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .max()
            .unwrap_or(0)
    })?;
    if crate::dtype::f32_cut(to).is_some_and(|cut| peak < cut) {
        return Ok(Tally::default());
    }
    let v = super::sink::host_bytes(values).await?;
    let host = AnyArray::of_bytes(
        DType::Float32,
        &[values.layout().numel()],
        v.read(|b| b.to_vec())?,
    )?;
    super::overflow::tally(&host, to, mode)
}

/// Whether a block-quantized tensor's pieces into `to` in `mode` on `device` are
/// dequantized and rounded together ([`read_blocks_cast`]): on a device whose memory
/// the host addresses, into a dtype other than float32, where saturating changes
/// nothing or is not asked.
pub(super) fn fuses(device: &crate::Rig, to: DType, mode: CastMode) -> bool {
    device.host_addressable()
        && to != DType::Float32
        && (mode == CastMode::Default || !crate::dtype::overflow::saturates(DType::Float32, to))
}

/// Elements `from..from + n` (whole blocks) of the block-quantized GGUF tensor `e`
/// of type `q`, dequantized and rounded once into `to` on the host a few blocks at a
/// time (their float32 values never whole in memory, a cache's worth at a time): a
/// one-axis host array of `to`, and the tally of what the rounding did to them.
pub(super) async fn read_blocks_cast<S: Source>(
    shard: &Shard<S>,
    e: &Entry,
    q: crate::formats::GgmlType,
    (from, n): (u64, u64),
    to: DType,
    mode: CastMode,
) -> Result<(AnyArray, Tally), Error> {
    let b = block_bytes(shard, e, q, (from, n)).await?;
    // From the host's pool: memory an earlier piece had, its pages already there.
    let out = AnyArray::create_to_fill(&crate::Rig::host(), to, &[host_size(n)?])?;
    let out_block = to.bytes(q.block as usize)?;
    let convert = crate::dtype::lanes::converter(DType::Float32, to);
    let tallies = b
        .read(|b| {
            out.buffer().write(|o| {
                crate::quant::dequantize_ggml_each(q, b, o, out_block, |v, o| {
                    convert(bytemuck::cast_slice(v), 0, 1, o, 0, 1, v.len());
                    super::overflow::tally_f32(v, to, mode)
                })
            })
        })??
        .map_err(|err| in_tensor(shard, e, err))?;
    Ok((out, tallies.into_iter().sum()))
}

/// Elements of a float32 piece cast and tallied at a time ([`cast_tallied`]): 256 KiB
/// of them, a core's cache.
const FUSED_ELEMENTS: usize = 1 << 16;

/// The float32 host piece `piece` (one axis, its own bytes) cast into `to` on the host
/// `device`, with the tally of what the rounding did, a cache's worth at a time (its
/// values read from memory once, not once for the tally and again for the cast);
/// natively on rayon's pool. `None` where it does not apply (another dtype or layout,
/// a GPU, a mode [`fuses`] refuses): cast and tally it apart.
///
/// # Errors
/// A dead buffer, or an output the host cannot allocate.
pub(super) fn cast_tallied(
    piece: &AnyArray,
    device: &crate::Rig,
    to: DType,
    mode: CastMode,
) -> Result<Option<(AnyArray, Tally)>, Error> {
    if piece.dtype() != DType::Float32
        || piece.shape().len() != 1
        || !fuses(device, to, mode)
        || !cfg!(target_endian = "little")
    {
        return Ok(None);
    }
    let Some(bytes) = piece.own_bytes().transpose()? else {
        return Ok(None);
    };
    let n = piece.shape()[0];
    let out = AnyArray::create_to_fill(&crate::Rig::host(), to, &[n])?;
    let out_chunk = to.bytes(FUSED_ELEMENTS)?;
    let convert = crate::dtype::lanes::converter(DType::Float32, to);
    let work = |(v, o): (&[u8], &mut [u8])| {
        let v: &[f32] = bytemuck::try_cast_slice(v).ok()?;
        convert(bytemuck::cast_slice(v), 0, 1, o, 0, 1, v.len());
        Some(super::overflow::tally_f32(v, to, mode))
    };
    let tallies: Option<Vec<Tally>> = bytes.read(|b| {
        out.buffer().write(|o| {
            crate::kernels::zip_chunks(b, FUSED_ELEMENTS * 4, o, out_chunk, work)
                .into_iter()
                .collect()
        })
    })??;
    // A view not on a float32's boundary: cast and tallied apart.
    let Some(tallies) = tallies else {
        return Ok(None);
    };
    Ok(Some((out, tallies.into_iter().sum())))
}

/// The elements of `e` (of `numel`) a piece reads: [`piece_elements`], whole blocks
/// of a block-quantized GGUF tensor (a piece of float32 at most), a Fortran-order
/// tensor whole.
pub(super) fn step_of(e: &Entry, numel: u64) -> u64 {
    match e.ggml {
        Some(q) => (piece_elements(DType::Float32) / q.block as u64).max(1) * q.block as u64,
        None if e.fortran => numel.max(1),
        None => piece_elements(e.dtype),
    }
}

/// Elements `from..from + n` of `e` as a host array: [`read_piece`], or a
/// block-quantized tensor's whole blocks dequantized ([`read_blocks`]).
pub(super) async fn read_any<S: Source>(
    shard: &Shard<S>,
    e: &Entry,
    from: u64,
    n: u64,
) -> Result<AnyArray, Error> {
    match e.ggml {
        Some(q) => read_blocks(shard, e, q, from, n).await,
        None => read_piece(shard, e, from, n).await,
    }
}
