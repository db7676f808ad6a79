//! A tensor written into the open file of a sink, a piece at a time: read, on a GPU
//! dequantized or cast there with one piece in flight while the next is read (its
//! read back started behind its work), tallied against the target's range, written.

use super::ahead::Ahead;
use super::checkpoint::Shard;
use super::overflow;
use super::piece::{
    cast_tallied, fuses, read_any, read_blocks_cast, read_blocks_on, step_of, tally_on_device,
};
use super::progress::{told, At, Progress};
use super::sink::Sink;
use super::source::Source;
use crate::array::AnyArray;
use crate::dtype::{CastMode, DType, Tally};
use crate::error::Error;
use crate::formats::Entry;
use crate::rig::Rig;

/// `a` (on the host) cast into `to` in `mode` on `device`: the cast's output stays
/// there.
pub(super) fn cast_on(
    a: AnyArray,
    device: &Rig,
    to: DType,
    mode: CastMode,
) -> Result<AnyArray, Error> {
    if a.dtype() == to {
        return Ok(a);
    }
    if a.rig() == device || device.host_addressable() {
        return a.cast_with(to, mode);
    }
    a.to_device(device)?.cast_with(to, mode)
}

/// `out` (of `to`) written to the open file of `sink`: packed where `to` is (every
/// output that holds a float6 packs it, `.safetensors`).
pub(super) async fn write_out<K: Sink>(
    sink: &mut K,
    out: &AnyArray,
    to: DType,
) -> Result<(), Error> {
    if to.is_padded() {
        let b = super::sink::host_bytes(out).await?;
        let p = b.read(|b| crate::formats::packed::pack(to, b))?;
        sink.write_bytes(&p).await
    } else {
        sink.write_array(out).await
    }
}

/// A piece's (or a band's) output, and on a device that queues its work its read back,
/// started when the work was submitted (not for a packed output, which is packed on
/// the host when written).
pub(super) struct Landing {
    out: AnyArray,
    ahead: Option<Ahead>,
}

impl Landing {
    /// `out`, its read back started now where `queued`.
    ///
    /// # Errors
    /// A dead buffer; a lost device.
    pub(super) fn start<K: Sink>(
        sink: &K,
        out: AnyArray,
        to: DType,
        queued: bool,
    ) -> Result<Landing, Error> {
        let ahead = match queued && !to.is_padded() {
            true => Some(sink.read_ahead(&out)?),
            false => None,
        };
        Ok(Landing { out, ahead })
    }

    /// The output written to the open file of `sink`.
    pub(super) async fn write<K: Sink>(self, sink: &mut K, to: DType) -> Result<(), Error> {
        match self.ahead {
            Some(a) => sink.write_ahead(a).await,
            None => write_out(sink, &self.out, to).await,
        }
    }
}

/// A piece's output on its way to the sink: `n` elements, whether the tensor's last,
/// and for a piece dequantized on a GPU its float32 values and their peaks, tallied
/// when it lands.
struct Flying {
    landing: Landing,
    n: u64,
    last: bool,
    check: Option<(AnyArray, AnyArray)>,
}

impl Flying {
    /// The output written to the open file of `sink` (its device's work done by then),
    /// and the values dequantized on the device tallied into `tally`: its count and
    /// whether the tensor's last, to be told.
    async fn land<K: Sink>(
        self,
        sink: &mut K,
        to: DType,
        mode: CastMode,
        tally: &mut Tally,
    ) -> Result<(u64, bool), Error> {
        self.landing.write(sink, to).await?;
        if let Some((values, peaks)) = &self.check {
            if values.dtype() != to {
                tally.add(tally_on_device(values, peaks, to, mode).await?);
            }
        }
        Ok((self.n, self.last))
    }
}

/// The tensor `e` of `shard` cast into `to`, a piece at a time, into the open file
/// `file` of `sink`.
#[allow(clippy::too_many_arguments)]
pub(super) async fn write_tensor<S: Source, K: Sink>(
    shard: &Shard<S>,
    e: &Entry,
    to: DType,
    mode: CastMode,
    file: &str,
    sink: &mut K,
    device: &Rig,
    at: &mut At,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<(), Error> {
    let numel = crate::formats::planned_numel(&e.shape).unwrap_or(0);
    let step = step_of(e, numel);
    let mut from = 0;
    let mut tally = Tally::default();
    let in_tensor = |err: Error| Error::Format {
        path: shard.source.name().to_owned(),
        tensor: Some(e.name.clone()),
        reason: err.to_string(),
    };
    // On a GPU one piece's output is in flight: its read back is submitted behind its
    // cast, and it is written after the next piece is read, uploaded and its cast
    // submitted, so that the device casts and copies while the host reads. With it, a
    // piece dequantized on the device keeps its float32 values and their peaks until
    // then, to be tallied.
    let mut flight: Option<Flying> = None;
    // This run's pieces of the tensor.
    let mut mine = 0;
    let queued = !device.host_addressable();
    while from < numel {
        let n = step.min(numel - from);
        if !at.dealt.mine() {
            // Another run's piece: the one in flight lands first, in order.
            if let Some(f) = flight.take() {
                let (n, last) = f.land(sink, to, mode, &mut tally).await?;
                told(at, progress, e, file, n, last);
            }
            sink.skip().await?;
            from += n;
            continue;
        }
        mine += 1;
        let mut check = None;
        let piece = match e.ggml {
            // Dequantized and rounded a cache's worth at a time.
            Some(q) if fuses(device, to, mode) => {
                let (piece, t) = read_blocks_cast(shard, e, q, (from, n), to, mode).await?;
                tally.add(t);
                piece
            }
            // The blocks uploaded as they are, dequantized there.
            Some(q) if crate::quant::dequantizes_on(q, device) => {
                let (values, peaks) = read_blocks_on(shard, e, q, (from, n), device).await?;
                check = Some((values.clone(), peaks));
                values
            }
            _ => {
                let piece = read_any(shard, e, from, n).await?;
                if piece.dtype() == to {
                    piece
                } else if let Some((out, t)) =
                    cast_tallied(&piece, device, to, mode).map_err(in_tensor)?
                {
                    // Cast on the host with its tally, a cache's worth at a time.
                    tally.add(t);
                    out
                } else {
                    tally.add(overflow::tally(&piece, to, mode).map_err(in_tensor)?);
                    piece
                }
            }
        };
        let out = cast_on(piece, device, to, mode).map_err(in_tensor)?;
        // On a GPU its read back starts now, behind its cast: it runs while the next
        // piece is read and uploaded.
        let landing = Landing::start(sink, out, to, queued).map_err(in_tensor)?;
        from += n;
        let flying = Flying {
            landing,
            n,
            last: from == numel,
            check,
        };
        let ready = if queued {
            flight.replace(flying)
        } else {
            Some(flying)
        };
        if let Some(f) = ready {
            let (n, last) = f.land(sink, to, mode, &mut tally).await?;
            told(at, progress, e, file, n, last);
        }
    }
    if let Some(f) = flight {
        let (n, last) = f.land(sink, to, mode, &mut tally).await?;
        told(at, progress, e, file, n, last);
    }
    let on_device = (mine > 0 || numel == 0)
        && e.ggml
            .is_some_and(|q| !fuses(device, to, mode) && crate::quant::dequantizes_on(q, device));
    at.finished(&e.name, to, tally, on_device);
    Ok(())
}
