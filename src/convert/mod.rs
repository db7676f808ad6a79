//! Checkpoint conversion, one converter for the command line and for JavaScript.
//!
//! A conversion goes in three steps:
//!
//! 1. **Open** ([`Checkpoint::open`], [`Checkpoint::open_sharded`]): every header read
//!    from its [`Source`] (byte ranges on demand) and checked, no tensor's bytes read;
//!    a sharded checkpoint's index checked against its shards.
//! 2. **Plan** ([`Plan::new`]): the output's files (one, or a shard for each shard
//!    and the new index), their formats, names and dtypes, every header's bytes, all
//!    checked before a byte is written.
//! 3. **Run** ([`run`]): tensor by tensor, a piece of at most [`PIECE_BYTES`] at a
//!    time, read, cast on any device and written to a [`Sink`] (bytes in order); then
//!    the sink commits every file, or on any error aborts and leaves nothing.
//!
//! Memory is bounded by a piece, never by a file or a tensor: natively the source is
//! a memory map ([`BufferSource`]) and the sink a temporary renamed once whole
//! (`FileSink`, native only); in the browser the source is a `File`, a `Blob`, a URL read with
//! HTTP Range requests or a Node file handle, and the sink a `WritableStream`
//! (`src/web/js_io.rs`). The output's bytes do not depend on the source, the
//! sink, the device or the piece size.
//!
//! Sits above [`crate::formats`] (headers, the index) and [`crate::kernels`] (cast).
//!
//! ```
//! use nxrig::convert::{self, BufferSource, Checkpoint, MemorySink, Pick, Plan};
//! use nxrig::formats::{self, Tensor, TensorFile};
//! use nxrig::{AnyArray, Array, DType, Rig};
//!
//! // A checkpoint of one float32 tensor, in memory.
//! let w = Array::<f32>::of_array(&[2, 2], &[1.0, 0.1, -2.5, 3e38])?;
//! let file = TensorFile {
//!     tensors: vec![Tensor { name: "w".into(), array: AnyArray::from(w) }],
//!     metadata: None,
//! };
//! let bytes = formats::encode(formats::Format::Safetensors, "in", &file)?;
//! let source = BufferSource::new("in.safetensors", nxrig::rig::Buffer::of_vec(bytes));
//!
//! let checkpoint = pollster::block_on(Checkpoint::open(source, formats::Format::Safetensors))?;
//! let pick = Pick::floats(DType::Bfloat16);
//! let plan = Plan::new(&checkpoint, &pick, "out.safetensors")?;
//! let mut sink = MemorySink::default();
//! let host = Rig::host();
//! let report = pollster::block_on(convert::run(&checkpoint, &plan, &mut sink, &host, &mut |_| {}))?;
//! assert_eq!(report.converted, 1);
//! let out = formats::read_safetensors_bytes("out", nxrig::rig::Buffer::of_vec(sink.files.remove(0).1))?;
//! assert_eq!(out.tensors[0].array.dtype(), DType::Bfloat16);
//! # Ok::<(), nxrig::Error>(())
//! ```

mod ahead;
mod checkpoint;
#[cfg(not(target_arch = "wasm32"))]
mod file_sink;
mod folder;
mod load;
#[cfg(not(target_arch = "wasm32"))]
mod open_folder;
mod overflow;
mod piece;
mod plan;
mod progress;
mod run;
mod share;
mod sink;
mod source;
mod target;
mod unpacked;
mod write_group;
mod write_tensor;

#[cfg(target_arch = "wasm32")]
pub(crate) use ahead::bytes_of;
pub use ahead::{Ahead, Landed};
pub use checkpoint::{gguf_split, Checkpoint, Shard};
#[cfg(not(target_arch = "wasm32"))]
pub use file_sink::FileSink;
pub use folder::{parse_config, rewrite_config, Folder};
pub use load::{load, load_range};
pub use overflow::Overflow;
pub use piece::PIECE_BYTES;
pub use plan::{Extra, Item, OutFile, Pick, Plan};
pub use progress::Progress;
pub use run::{run, run_share, Report};
pub use share::Share;
pub use sink::{MemorySink, Sink};
pub use source::{BufferSource, Source};
pub use target::target_dtype;
