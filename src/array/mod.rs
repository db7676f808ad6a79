//! Arrays: a dtype, a layout and a buffer; views, elements, placement, the door.

mod any;
mod bitcast;
mod compact;
#[cfg(feature = "cuda")]
mod cuda;
#[cfg(feature = "cuda")]
pub(crate) mod cuda_source;
pub mod dlpack;
mod door;
mod interop;
mod overlap;
mod placement;
mod read_async;
mod strided;
mod text;
mod transpose;
mod typed;
#[cfg(nx_vectors)]
mod vec128;
mod views;
mod wgpu;

pub(crate) use any::described;
pub use any::AnyArray;
#[cfg(feature = "cuda")]
pub(crate) use cuda::transfer as cuda_transfer;
pub(crate) use door::door_with;
pub use door::{door, refused, Answer, MAX_OPERANDS};
pub use interop::Exported;
pub(crate) use overlap::identical;
pub use placement::PositionIter;
#[cfg(target_arch = "wasm32")]
pub(crate) use text::text;
pub use typed::Array;
pub(crate) use wgpu::transfer as wgpu_transfer;
