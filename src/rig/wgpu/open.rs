//! Opening a GPU device: the device with its features and limits (`gpu.rs`), then the
//! probe of its float32 sums (`probe.rs`), which runs kernels on it.

use std::sync::Arc;

use super::gpu::{open_unprobed, Gpu, Options};
use crate::error::Error;

/// Opens `adapter` as a device named `name`, as `options` say: its shader features
/// where it has them and its own limits, then, unless `options.skip_probe`, the probe
/// of whether its native float32 sums are exact (`Native::f32_exact`).
///
/// # Errors
/// [`Error::NoDevice`] where the adapter refuses a device.
pub(crate) async fn open(
    adapter: &wgpu::Adapter,
    name: &str,
    options: &Options,
) -> Result<Arc<Gpu>, Error> {
    let gpu = open_unprobed(adapter, name, options).await?;
    if gpu.native().f32 && !options.skip_probe && super::probe::f32_add_is_exact(&gpu).await {
        gpu.set_f32_exact();
    }
    Ok(gpu)
}
