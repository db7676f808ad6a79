//! Running a plan: file by file, tensor by tensor, read from the sources, cast on a
//! device, written to the sink; then commit, or abort and leave nothing.

use super::checkpoint::Checkpoint;
use super::overflow::Overflow;
use super::piece::PIECE_BYTES;
use super::plan::{Extra, Item, Plan};
use super::progress::{At, Progress};
use super::share::{Dealt, Led, Share};
use super::sink::Sink;
use super::source::Source;
use super::write_group::write_group;
use super::write_tensor::write_tensor;
use crate::error::Error;
use crate::formats::host_size;
use crate::rig::Rig;

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
    /// The block-scaled weights dequantized: a block-scaled checkpoint's groups, and a
    /// GGUF file's block-quantized tensors.
    pub dequantized: usize,
    /// Those dequantized on the device wholly (on a wgpu device, every band gathered
    /// from its tables there, a band whose values may overflow dequantized on the
    /// host, which counts them; a GGUF tensor's blocks dequantized by a GPU's kernel).
    pub dequantized_on_device: usize,
    /// The tensors some of whose values overflowed their new dtype or became an
    /// infinity or a NaN there, in the order written (see [`Overflow`]).
    pub overflows: Vec<Overflow>,
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
    run_share(checkpoint, plan, sink, device, Share::WHOLE, progress).await
}

/// [`run`] doing the share `share` of the work, where several runs of `plan` (each
/// on a thread or a wasm instance of its own) share it: this run reads, casts and
/// writes its pieces only, and where it is not the first (`share.index() > 0`) it
/// opens, closes and commits no file; each step it leaves to another run is
/// [`Sink::skip`]ped, so that every run's sink sees the same steps in the same order
/// and a sink that merges them (JavaScript's Workers) puts the writes in place by it.
/// `progress` is told of this run's pieces; the report's `overflows` are of this
/// run's pieces (the runs' tallies of a tensor add up to the whole's), and
/// `dequantized_on_device` counts the groups and GGUF tensors of which this run
/// dequantized every piece it had on the device; its other fields are the whole's. The sink of a run other than the first is given its pieces'
/// writes with no file opened: a sink that hands them to the merge, not a
/// `FileSink` or a `MemorySink` of its own.
///
/// # Errors
/// As [`run`].
pub async fn run_share<S: Source, K: Sink>(
    checkpoint: &Checkpoint<S>,
    plan: &Plan,
    sink: &mut K,
    device: &Rig,
    share: Share,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Report, Error> {
    let done = match write_all(checkpoint, plan, sink, device, share, progress).await {
        Ok(at) => {
            let mut led = Led {
                sink: &mut *sink,
                leads: share.leads(),
            };
            led.commit().await.map(|()| at)
        }
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
        dequantized: plan.groups.len() + gguf_blocks(checkpoint, plan),
        dequantized_on_device: at.on_device,
        overflows: at.overflows,
    })
}

async fn write_all<S: Source, K: Sink>(
    checkpoint: &Checkpoint<S>,
    plan: &Plan,
    sink: &mut K,
    device: &Rig,
    share: Share,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<At, Error> {
    let mut at = At {
        total: plan.bytes_in(),
        done: 0,
        overflows: Vec::new(),
        on_device: 0,
        dealt: Dealt::new(share),
    };
    // The steps that are not pieces: the first run's.
    let leads = share.leads();
    for g in &plan.groups {
        super::unpacked::check_unpacked_shape(checkpoint, g).await?;
    }
    for f in &plan.files {
        let shard = &checkpoint.shards[f.shard];
        let mut led = Led {
            sink: &mut *sink,
            leads,
        };
        led.open(&f.name).await?;
        led.write_bytes(&f.header).await?;
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
        Led {
            sink: &mut *sink,
            leads,
        }
        .close()
        .await?;
    }
    let mut led = Led { sink, leads };
    if let Some((name, text)) = &plan.index {
        led.open(name).await?;
        led.write_bytes(text.as_bytes()).await?;
        led.close().await?;
    }
    for (name, extra) in &plan.extras {
        led.open(name).await?;
        match extra {
            Extra::Text(t) => led.write_bytes(t.as_bytes()).await?,
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
                    // Read by the run that writes it.
                    let bytes = match leads {
                        true => source
                            .read(from, host_size(n)?)
                            .await?
                            .read(|b| b.to_vec())?,
                        false => Vec::new(),
                    };
                    led.write_bytes(&bytes).await?;
                    from += n;
                }
            }
        }
        led.close().await?;
    }
    Ok(at)
}

/// The tensors of `plan` that are a GGUF file's block-quantized tensors.
fn gguf_blocks<S: Source>(checkpoint: &Checkpoint<S>, plan: &Plan) -> usize {
    plan.files
        .iter()
        .flat_map(|f| f.order.iter().map(move |(item, _)| (f.shard, item)))
        .filter(|&(k, item)| match *item {
            Item::Tensor(i) => checkpoint.shards[k].header.entries[i].ggml.is_some(),
            Item::Group(_) => false,
        })
        .count()
}
