//! A block-scaled group dequantized into the open file of a sink, a band of rows at a
//! time, each input's bytes read from whichever file holds them; on a GPU one band's
//! output in flight (its read back started behind its work) while the next is read.

use super::checkpoint::Checkpoint;
use super::overflow;
use super::piece::PIECE_BYTES;
use super::progress::{At, Progress};
use super::sink::Sink;
use super::source::Source;
use super::write_tensor::{cast_on, Landing};
use crate::dtype::{CastMode, DType, Tally};
use crate::error::Error;
use crate::formats::host_size;
use crate::quant::{Group, Part};
use crate::rig::{Rig, RigKind};

/// A band's output on its way to the sink: its read back (on a GPU, started when its
/// work was submitted), the bytes of the group it counts for, whether the group's
/// last.
struct Band {
    landing: Landing,
    share: u64,
    last: bool,
}

impl Band {
    /// The output written to the open file of `sink`, and told.
    async fn land<K: Sink>(
        self,
        sink: &mut K,
        to: DType,
        at: &mut At,
        progress: &mut dyn FnMut(Progress<'_>),
        tensor: &str,
        file: &str,
    ) -> Result<(), Error> {
        self.landing.write(sink, to).await?;
        at.done += self.share;
        progress(Progress {
            done: at.done,
            total: at.total,
            tensor,
            file,
            tensor_done: self.last,
        });
        Ok(())
    }
}

/// The group `g` dequantized into `to`, a band of rows at a time (each input's bytes
/// for the band read from whichever file holds it), into the open file `file` of
/// `sink`.
#[allow(clippy::too_many_arguments)]
pub(super) async fn write_group<S: Source, K: Sink>(
    checkpoint: &Checkpoint<S>,
    g: &Group,
    to: DType,
    mode: CastMode,
    file: &str,
    sink: &mut K,
    device: &Rig,
    at: &mut At,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<(), Error> {
    let inputs: Vec<&Part> = g.inputs().collect();
    let entry = |p: &Part| {
        (
            &checkpoint.shards[p.shard],
            &checkpoint.shards[p.shard].header.entries[p.entry],
        )
    };
    let group_bytes: u64 = inputs
        .iter()
        .chain(&g.dropped.iter().collect::<Vec<_>>())
        .map(|p| entry(p).1.len)
        .sum();
    let in_group = |p: &Part, err: Error| match err {
        Error::Format { path, reason, .. } => Error::Format {
            path: if path.is_empty() {
                entry(p).0.source.name().to_owned()
            } else {
                path
            },
            tensor: Some(g.weight.name.clone()),
            reason,
        },
        other => Error::Format {
            path: entry(p).0.source.name().to_owned(),
            tensor: Some(g.weight.name.clone()),
            reason: other.to_string(),
        },
    };
    let (rows, _) = g.rows_cols();
    let bands = g.bands();
    let mut tally = Tally::default();
    let mut counted = 0u64;
    let mut on_device = 0;
    let mut mine = 0;
    // On a GPU one band's output is in flight, as a tensor's piece is.
    let queued = !device.host_addressable();
    let mut flight: Option<Band> = None;
    for (b, band) in bands.iter().enumerate() {
        let share = if b + 1 == bands.len() {
            group_bytes - counted
        } else {
            group_bytes * band.end as u64 / rows.max(1) as u64 - counted
        };
        counted += share;
        if !at.dealt.mine() {
            // Another run's band: the one in flight lands first, in order.
            if let Some(f) = flight.take() {
                f.land(sink, to, at, progress, &g.name, file).await?;
            }
            sink.skip().await?;
            continue;
        }
        mine += 1;
        let mut bytes = vec![Vec::new(); inputs.len()];
        for r in g.reads(band) {
            let p = inputs[r.input];
            let (shard, e) = entry(p);
            let buf = &mut bytes[r.input];
            // Runs close together (a strip of each row of an expert) are read as one
            // span and cut (a read a run costs more than the bytes between them);
            // runs far apart (a few columns of a wide GPTQ weight) one by one.
            let need: u64 = r.runs.iter().map(|x| x.1).sum();
            let (first, last) = (r.runs[0], r.runs[r.runs.len() - 1]);
            let span = last.0 + last.1 - first.0;
            if r.runs.len() > 1 && span <= (8 * need).max(1 << 20) && span <= 4 * PIECE_BYTES as u64
            {
                let piece = shard
                    .source
                    .read(e.start + first.0, host_size(span)?)
                    .await
                    .map_err(|err| in_group(p, err))?;
                piece.read(|b| {
                    for &(off, len) in &r.runs {
                        let at = (off - first.0) as usize;
                        buf.extend_from_slice(&b[at..at + len as usize]);
                    }
                })?;
                continue;
            }
            for (off, len) in r.runs {
                let piece = shard
                    .source
                    .read(e.start + off, host_size(len)?)
                    .await
                    .map_err(|err| in_group(p, err))?;
                piece.read(|b| buf.extend_from_slice(b))?;
            }
        }
        let fail = |err: Error| in_group(&g.weight, err);
        // On a GPU, a band none of whose values may overflow: its tables here (each
        // code's value a scale, rounded as the host rounds it), gathered there.
        let lut = match device.kind() {
            RigKind::Host => None,
            _ => g.lut(band, &bytes, to, mode).map_err(fail)?,
        }
        .filter(|l| l.runs_on(device) && !overflow::may_overflow(l.peak, to));
        let out = match lut {
            Some(l) => {
                on_device += 1;
                l.run(device).await.map_err(fail)?
            }
            None => {
                let (mut out, peak) = g.dequantize(band, &bytes, to, mode).map_err(fail)?;
                // Counted only where a value may overflow (or become a NaN in an
                // unsigned dtype): most bands are well inside bfloat16's and float16's
                // range. A band written in its dtype already is counted from its
                // values rounded to odd.
                if overflow::may_overflow(peak, to) {
                    // float32 counted from float64's values (a float32 rounded to odd
                    // stops at float32's largest finite).
                    let odd = if to == DType::Float32 {
                        g.dequantize(band, &bytes, DType::Float64, CastMode::Default)
                            .map_err(fail)?
                            .0
                    } else if out.dtype() == to {
                        g.dequantize_odd(band, &bytes).map_err(fail)?.0
                    } else {
                        out.clone()
                    };
                    tally.add(overflow::tally(&odd, to, mode).map_err(fail)?);
                }
                if out.dtype() != to {
                    out = cast_on(out, device, to, mode).map_err(fail)?;
                }
                out
            }
        };
        // On a GPU its read back starts now, behind its work, and it is written after
        // the next band is read and its work submitted.
        let band = Band {
            landing: Landing::start(sink, out, to, queued).map_err(fail)?,
            share,
            last: b + 1 == bands.len(),
        };
        let ready = if queued {
            flight.replace(band)
        } else {
            Some(band)
        };
        if let Some(f) = ready {
            f.land(sink, to, at, progress, &g.name, file).await?;
        }
    }
    if let Some(f) = flight {
        f.land(sink, to, at, progress, &g.name, file).await?;
    }
    at.finished(
        &g.name,
        to,
        tally,
        on_device == mine && (mine > 0 || bands.is_empty()),
    );
    Ok(())
}
