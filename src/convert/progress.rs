//! Where a conversion is: the progress told after each piece, and the bytes done.

use super::overflow::Overflow;
use super::share::Dealt;
use crate::dtype::{DType, Tally};
use crate::formats::Entry;

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

/// Where a conversion is: bytes done of all, and the overflows so far.
pub(super) struct At {
    pub(super) total: u64,
    pub(super) done: u64,
    pub(super) overflows: Vec<Overflow>,
    /// The block-scaled groups every band of which the device dequantized, and the
    /// GGUF tensors whose blocks it dequantized.
    pub(super) on_device: usize,
    /// Which pieces are this run's.
    pub(super) dealt: Dealt,
}

impl At {
    /// The output `tensor` (of `to`) written whole: counted as dequantized on the
    /// device where `on_device`, its tally kept where some value counted.
    pub(super) fn finished(&mut self, tensor: &str, to: DType, tally: Tally, on_device: bool) {
        if on_device {
            self.on_device += 1;
        }
        if tally.any() {
            self.overflows.push(Overflow {
                tensor: tensor.to_owned(),
                dtype: to,
                tally,
            });
        }
    }
}

/// `n` elements of `e` written (the tensor's last where `last`): `at` moved on and
/// `progress` told.
pub(super) fn told(
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
