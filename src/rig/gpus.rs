//! Opening GPU devices: one [`Rig`] a wgpu adapter (natively, once for the process),
//! or a device of the first adapter with options of its own; one a CUDA device (cargo
//! feature `cuda`), or why there is none.

use std::sync::Arc;

use super::backend::Backend;
#[cfg(feature = "cuda")]
use super::cuda;
use super::device::Rig;
use super::wgpu;
use crate::error::Error;

/// The device of `adapter`, opened as `options` say, named for its adapter.
async fn open_rig(adapter: &::wgpu::Adapter, options: &wgpu::Options) -> Result<Rig, Error> {
    let name = wgpu::name_of(adapter);
    let gpu = wgpu::open(adapter, &name, options).await?;
    let timeline = Arc::clone(&gpu.timeline);
    Ok(Rig::make(&name, Backend::Wgpu(gpu), timeline))
}

impl Rig {
    /// A GPU device of the first adapter the platform offers (the browser's
    /// `navigator.gpu`; natively wgpu's default choice), each call a new device with
    /// its own timeline, opened as `options` say. Never blocks.
    ///
    /// # Errors
    /// [`Error::NoDevice`] if there is no adapter or it refuses a device.
    pub async fn gpu_async(options: &wgpu::Options) -> Result<Rig, Error> {
        let adapter = wgpu::instance()
            .request_adapter(&::wgpu::RequestAdapterOptions {
                power_preference: options.power_preference,
                ..Default::default()
            })
            .await
            .map_err(|e| Error::NoDevice {
                op: "Rig::gpu_async",
                reason: if cfg!(target_arch = "wasm32") {
                    format!("the browser's WebGPU offers no adapter ({e}): its GPU may be blocklisted or WebGPU turned off; use Device.host()")
                } else {
                    format!("no GPU adapter ({e}): install a Vulkan driver such as mesa-vulkan-drivers (lavapipe)")
                },
            })?;
        let rig = open_rig(&adapter, options)
            .await
            .map_err(|e| e.called("Rig::gpu_async"))?;
        super::device::register(&rig);
        Ok(rig)
    }

    /// One device per adapter of wgpu's primary backends (Vulkan, Metal, DX12), in
    /// wgpu's order, with the default [`Options`](wgpu::Options) (emulating everything
    /// where the environment has `NXRIG_EMULATE=1`): opened on the first call and kept
    /// for the process, except that a device lost or destroyed is opened anew on its
    /// adapter by the next call (the lost one is never handed out again). Blocking;
    /// native only.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn gpus() -> Vec<Rig> {
        /// Each adapter, with its device (`None` where it failed to open: not retried).
        type Opened = Vec<(::wgpu::Adapter, Option<Rig>)>;
        static GPUS: std::sync::Mutex<Option<Opened>> = std::sync::Mutex::new(None);
        let options = wgpu::Options {
            emulate: std::env::var("NXRIG_EMULATE").is_ok_and(|v| v == "1"),
            ..wgpu::Options::default()
        };
        let open = |a: &::wgpu::Adapter| pollster::block_on(open_rig(a, &options)).ok();
        let mut g = GPUS.lock().unwrap_or_else(|e| e.into_inner());
        let list = g.get_or_insert_with(|| {
            wgpu::primary_adapters()
                .into_iter()
                .map(|a| {
                    let rig = open(&a);
                    (a, rig)
                })
                .collect()
        });
        for (a, rig) in list.iter_mut() {
            if rig.as_ref().is_some_and(Rig::is_lost) {
                *rig = open(a);
            }
        }
        list.iter().filter_map(|(_, r)| r.clone()).collect()
    }

    /// A new device of the first adapter of `Rig::gpus`, opened as `options` say: a
    /// separate device, for tests of emulation, splitting and loss. Blocking; native
    /// only.
    ///
    /// # Errors
    /// [`Error::NoDevice`] if there is no adapter or it refuses a device.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn gpu_with(options: &wgpu::Options) -> Result<Rig, Error> {
        let found = wgpu::primary_adapters();
        let a = found.first().ok_or_else(|| Error::NoDevice {
            op: "Rig::gpu_with",
            reason:
                "no GPU adapter: install a Vulkan driver such as mesa-vulkan-drivers (lavapipe)"
                    .into(),
        })?;
        pollster::block_on(open_rig(a, options)).map_err(|e| e.called("Rig::gpu_with"))
    }
}

impl Rig {
    /// One device per CUDA device, named `cuda0`, `cuda1`, ..., opened once for the
    /// process (blocking; native only). Empty without the cargo feature `cuda` and where
    /// the machine has no CUDA driver, no NVRTC or no device:
    /// [`Rig::cuda_unavailable`] says why.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn cudas() -> Vec<Rig> {
        #[cfg(feature = "cuda")]
        {
            static CUDAS: std::sync::OnceLock<Vec<Rig>> = std::sync::OnceLock::new();
            CUDAS
                .get_or_init(|| {
                    cuda::open_all()
                        .into_iter()
                        .map(|c| {
                            let (name, timeline) = (c.name.clone(), Arc::clone(&c.timeline));
                            Rig::make(&name, Backend::Cuda(cuda::CudaBackend(c)), timeline)
                        })
                        .collect()
                })
                .clone()
        }
        #[cfg(not(feature = "cuda"))]
        Vec::new()
    }

    /// Why [`Rig::all`] lists no CUDA device, in one line (no driver, a driver that
    /// fails to load or to start, no NVRTC, no device, every device failing to open,
    /// or a build without the cargo feature `cuda`); `None` where it lists one.
    pub fn cuda_unavailable() -> Option<String> {
        #[cfg(feature = "cuda")]
        return cuda::unavailable();
        #[cfg(not(feature = "cuda"))]
        Some("this nxrig was built without CUDA (the cargo feature `cuda`)".into())
    }

    /// Why CUDA device `ordinal` did not open, where the driver reports it and others
    /// opened.
    pub(crate) fn cuda_not_opened(ordinal: usize) -> Option<String> {
        #[cfg(feature = "cuda")]
        return cuda::not_opened(ordinal);
        #[cfg(not(feature = "cuda"))]
        {
            let _ = ordinal;
            None
        }
    }
}
