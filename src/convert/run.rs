//! Running a plan: tensor by tensor, a piece at a time, read from the sources, cast
//! on a device, written to the sink; then commit, or abort and leave nothing. And
//! loading one tensor onto a device, a piece at a time.

use super::checkpoint::{Checkpoint, Shard};
use super::overflow::{self, Overflow};
use super::piece::{
    block_bytes, byte_group, fuses, in_tensor, read_any, read_blocks, read_blocks_cast,
    read_blocks_on, read_piece, step_of, tally_on_device, PIECE_BYTES,
};
use super::plan::{Extra, Item, Plan};
use super::sink::Sink;
use super::source::Source;
use crate::array::AnyArray;
use crate::dtype::{CastMode, DType, Tally};
use crate::error::Error;
use crate::formats::{host_size, Entry};
use crate::quant::{Group, Part};
use crate::rig::{Rig, RigKind};

/// Where a conversion is: after each piece.
///
/// ```
/// # use nxrig::convert::{BufferSource, Checkpoint};
/// # use nxrig::formats::{self, Format, Tensor, TensorFile};
/// # use nxrig::{Array, DType};
/// # let w = Array::<f32>::of_array(&[2, 3], &[0.5; 6])?;
/// # let file = TensorFile { tensors: vec![Tensor { name: "w".into(), array: w.into() }], metadata: None };
/// # let bytes = formats::encode(Format::Safetensors, "model", &file)?;
/// # let source = BufferSource::new("model.safetensors", nxrig::rig::Buffer::of_vec(bytes));
/// # use nxrig::convert::{self, MemorySink, Pick, Plan};
/// let ck = pollster::block_on(Checkpoint::open(source, Format::Safetensors))?;
/// let plan = Plan::new(&ck, &Pick::floats(DType::Float16), "out.safetensors")?;
/// let mut seen = Vec::new();
/// pollster::block_on(convert::run(&ck, &plan, &mut MemorySink::default(), &nxrig::Rig::host(), &mut |p| {
///     seen.push((p.tensor.to_owned(), p.done, p.total, p.tensor_done));
/// }))?;
/// assert_eq!(seen, [("w".to_owned(), 24, 24, true)]);
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Progress<'a> {
    /// Input bytes converted so far.
    pub done: u64,
    /// Input bytes in all.
    pub total: u64,
    /// The tensor the piece belongs to.
    pub tensor: &'a str,
    /// The output file it is written to.
    pub file: &'a str,
    /// Whether the piece was the tensor's last.
    pub tensor_done: bool,
}

/// What a conversion did.
///
/// ```
/// # use nxrig::convert::{BufferSource, Checkpoint};
/// # use nxrig::formats::{self, Format, Tensor, TensorFile};
/// # use nxrig::{Array, DType};
/// # let w = Array::<f32>::of_array(&[2, 3], &[0.5; 6])?;
/// # let file = TensorFile { tensors: vec![Tensor { name: "w".into(), array: w.into() }], metadata: None };
/// # let bytes = formats::encode(Format::Safetensors, "model", &file)?;
/// # let source = BufferSource::new("model.safetensors", nxrig::rig::Buffer::of_vec(bytes));
/// # use nxrig::convert::{self, MemorySink, Pick, Plan, Report};
/// let ck = pollster::block_on(Checkpoint::open(source, Format::Safetensors))?;
/// let plan = Plan::new(&ck, &Pick::floats(DType::Float16), "out.safetensors")?;
/// let r = pollster::block_on(convert::run(&ck, &plan, &mut MemorySink::default(), &nxrig::Rig::host(), &mut |_| {}))?;
/// assert_eq!(r, Report { files: 1, tensors: 1, converted: 1, bytes_in: 24, bytes_out: 12, dequantized: 0, dequantized_on_device: 0, overflows: vec![] });
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The files of tensors written (the index not counted).
    pub files: usize,
    /// Every tensor.
    pub tensors: usize,
    /// The tensors whose dtype changed.
    pub converted: usize,
    /// Input bytes (tensors).
    pub bytes_in: u64,
    /// Output bytes (tensors; headers not counted).
    pub bytes_out: u64,
    /// The block-scaled weights dequantized.
    pub dequantized: usize,
    /// Those dequantized on the device wholly (on a wgpu device, every band gathered
    /// from its tables there; a band whose values may overflow is dequantized on the
    /// host, which counts them).
    pub dequantized_on_device: usize,
    /// The tensors some of whose values overflowed their new dtype or became an
    /// infinity or a NaN there, in the order written (see [`Overflow`]).
    pub overflows: Vec<Overflow>,
}

/// `a` (on the host) cast into `to` in `mode` on `device`: the cast's output stays
/// there.
fn cast_on(a: AnyArray, device: &Rig, to: DType, mode: CastMode) -> Result<AnyArray, Error> {
    if a.dtype() == to {
        return Ok(a);
    }
    if a.rig() == device || device.host_addressable() {
        return a.cast_with(to, mode);
    }
    a.to_device(device)?.cast_with(to, mode)
}

/// Converts `checkpoint` as `plan` says into `sink`, casting on `device`: each file's
/// header, then its tensors a piece ([`PIECE_BYTES`]) at a time, then the index;
/// `progress` told after each piece. Every file is committed at the end; on any
/// error the sink is aborted (nothing is left) and the error returned.
///
/// # Errors
/// [`Error::Format`] naming the file and the tensor for a source that fails to read
/// or a cast that fails; the sink's errors; a lost device.
pub async fn run<S: Source, K: Sink>(
    checkpoint: &Checkpoint<S>,
    plan: &Plan,
    sink: &mut K,
    device: &Rig,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Report, Error> {
    let done = match write_all(checkpoint, plan, sink, device, progress).await {
        Ok(at) => sink.commit().await.map(|()| at),
        Err(e) => Err(e),
    };
    let at = match done {
        Ok(at) => at,
        Err(e) => {
            sink.abort().await;
            return Err(e);
        }
    };
    Ok(Report {
        files: plan.files.len(),
        tensors: plan.tensors,
        converted: plan.converted,
        bytes_in: plan.bytes_in(),
        bytes_out: plan.tensor_bytes_out(),
        dequantized: plan.groups.len(),
        dequantized_on_device: at.on_device,
        overflows: at.overflows,
    })
}

async fn write_all<S: Source, K: Sink>(
    checkpoint: &Checkpoint<S>,
    plan: &Plan,
    sink: &mut K,
    device: &Rig,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<At, Error> {
    let mut at = At {
        total: plan.bytes_in(),
        done: 0,
        overflows: Vec::new(),
        on_device: 0,
    };
    for g in &plan.groups {
        super::unpacked::check_unpacked_shape(checkpoint, g).await?;
    }
    for f in &plan.files {
        let shard = &checkpoint.shards[f.shard];
        sink.open(&f.name).await?;
        sink.write_bytes(&f.header).await?;
        for &(item, to) in &f.order {
            match item {
                Item::Tensor(i) => {
                    let e = &shard.header.entries[i];
                    write_tensor(
                        shard, e, to, plan.mode, &f.name, sink, device, &mut at, progress,
                    )
                    .await?
                }
                Item::Group(g) => {
                    let g = &plan.groups[g];
                    write_group(
                        checkpoint, g, to, plan.mode, &f.name, sink, device, &mut at, progress,
                    )
                    .await?
                }
            }
        }
        sink.close().await?;
    }
    if let Some((name, text)) = &plan.index {
        sink.open(name).await?;
        sink.write_bytes(text.as_bytes()).await?;
        sink.close().await?;
    }
    for (name, extra) in &plan.extras {
        sink.open(name).await?;
        match extra {
            Extra::Text(t) => sink.write_bytes(t.as_bytes()).await?,
            Extra::Copy(k) => {
                let folder = checkpoint.folder.as_ref().ok_or_else(|| Error::Format {
                    path: name.clone(),
                    tensor: None,
                    reason: "nxrig bug: a plan copies a file of no folder".into(),
                })?;
                let source = &folder.others[*k].1;
                let mut from = 0u64;
                while from < source.size() {
                    let n = (source.size() - from).min(PIECE_BYTES as u64);
                    let b = source.read(from, host_size(n)?).await?;
                    let bytes = b.read(|b| b.to_vec())?;
                    sink.write_bytes(&bytes).await?;
                    from += n;
                }
            }
        }
        sink.close().await?;
    }
    Ok(at)
}

/// `out` (of `to`) written to the open file of `sink`: packed where `to` is (every
/// output that holds a float6 packs it, `.safetensors`).
async fn write_out<K: Sink>(sink: &mut K, out: &AnyArray, to: DType) -> Result<(), Error> {
    if to.is_padded() {
        let b = super::sink::host_bytes(out).await?;
        let p = b.read(|b| crate::formats::packed::pack(to, b))?;
        sink.write_bytes(&p).await
    } else {
        sink.write_array(out).await
    }
}

/// A piece's output on its way to the sink: `n` elements, whether the tensor's last,
/// and for a piece dequantized on a GPU its float32 values and their peaks, tallied
/// when it lands.
struct Flying {
    out: AnyArray,
    n: u64,
    last: bool,
    check: Option<(AnyArray, AnyArray)>,
}

impl Flying {
    /// The output written to the open file of `sink` (its device's work done by then),
    /// and the values dequantized on the device tallied into `tally`.
    async fn land<K: Sink>(
        &self,
        sink: &mut K,
        to: DType,
        mode: CastMode,
        tally: &mut Tally,
    ) -> Result<(), Error> {
        write_out(sink, &self.out, to).await?;
        if let Some((values, peaks)) = &self.check {
            if values.dtype() != to {
                tally.add(tally_on_device(values, peaks, to, mode).await?);
            }
        }
        Ok(())
    }
}

/// Where a conversion is: bytes done of all, and the overflows so far.
struct At {
    total: u64,
    done: u64,
    overflows: Vec<Overflow>,
    /// The groups every band of which the device dequantized.
    on_device: usize,
}

/// The tensor `e` of `shard` cast into `to`, a piece at a time, into the open file
/// `file` of `sink`.
#[allow(clippy::too_many_arguments)]
async fn write_tensor<S: Source, K: Sink>(
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
    // On a GPU one piece's output is in flight: it is read back and written after the
    // next piece is read, uploaded and its cast submitted, so that the device casts
    // while the host reads. With it, a piece dequantized on the device keeps its
    // float32 values and their peaks until then, to be tallied.
    let mut flight: Option<Flying> = None;
    let queued = !device.host_addressable();
    while from < numel {
        let n = step.min(numel - from);
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
                if piece.dtype() != to {
                    tally.add(overflow::tally(&piece, to, mode).map_err(in_tensor)?);
                }
                piece
            }
        };
        let out = cast_on(piece, device, to, mode).map_err(in_tensor)?;
        from += n;
        let flying = Flying {
            out,
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
            f.land(sink, to, mode, &mut tally).await?;
            told(at, progress, e, file, f.n, f.last);
        }
    }
    if let Some(f) = flight {
        f.land(sink, to, mode, &mut tally).await?;
        told(at, progress, e, file, f.n, f.last);
    }
    if tally.any() {
        at.overflows.push(Overflow {
            tensor: e.name.clone(),
            dtype: to,
            tally,
        });
    }
    Ok(())
}

/// `n` elements of `e` written (the tensor's last where `last`): `at` moved on and
/// `progress` told.
fn told(
    at: &mut At,
    progress: &mut dyn FnMut(Progress<'_>),
    e: &Entry,
    file: &str,
    n: u64,
    last: bool,
) {
    at.done += match e.ggml {
        Some(q) => n / q.block as u64 * q.block_bytes as u64,
        None => (n * e.file_bits as u64).div_ceil(8),
    };
    progress(Progress {
        done: at.done,
        total: at.total,
        tensor: &e.name,
        file,
        tensor_done: last,
    });
}

/// The group `g` dequantized into `to`, a band of rows at a time (each input's bytes
/// for the band read from whichever file holds it), into the open file `file` of
/// `sink`.
#[allow(clippy::too_many_arguments)]
async fn write_group<S: Source, K: Sink>(
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
    for (b, band) in bands.iter().enumerate() {
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
        write_out(sink, &out, to).await?;
        let share = if b + 1 == bands.len() {
            group_bytes - counted
        } else {
            group_bytes * band.end as u64 / rows.max(1) as u64 - counted
        };
        counted += share;
        at.done += share;
        progress(Progress {
            done: at.done,
            total: at.total,
            tensor: &g.name,
            file,
            tensor_done: b + 1 == bands.len(),
        });
    }
    if on_device == bands.len() {
        at.on_device += 1;
    }
    if tally.any() {
        at.overflows.push(Overflow {
            tensor: g.name.clone(),
            dtype: to,
            tally,
        });
    }
    Ok(())
}

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
        let piece = read_any(shard, e, from, n).await?;
        let at = (from * e.dtype.bits() as u64 / 8) as usize;
        let bytes = super::sink::host_bytes(&piece).await?;
        bytes.read(|b| out.buffer().write_bytes(at, b))??;
        // A GPU's queue takes writes faster than it does them (the browser keeps each in
        // shared memory until then): after each piece, wait until it has done it.
        queued += bytes.len();
        if !device.host_addressable() && queued >= PIECE_BYTES {
            queued = 0;
            out.buffer()
                .view(at, bytes.len().min(4))?
                .read_async()
                .await?;
        }
        from += n;
    }
    Ok(out)
}
