//! Running a plan: file by file, tensor by tensor, read from the sources, cast on a
//! device, written to the sink; then commit, or abort and leave nothing.

use super::checkpoint::Checkpoint;
use super::overflow::Overflow;
use super::piece::PIECE_BYTES;
use super::plan::{Extra, Item, Plan};
use super::progress::{At, Progress};
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
