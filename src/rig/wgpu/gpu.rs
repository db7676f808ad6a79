//! A GPU device through wgpu: its device and queue, its limits, its compiled pipelines,
//! and the wiring of queue completions and device loss into the [`Rig`](crate::rig::Rig)'s timeline.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use super::AdapterInfo;
use crate::error::Error;
use crate::rig::timeline::{Stamp, Timeline};
use crate::wgsl::Native;

/// The wgpu side of a GPU device (`crate::rig::Rig`): what nxrig submits its work and
/// memory through.
///
/// ```
/// use nxrig::Rig;
///
/// if let Ok(gpu) = Rig::by_name("gpu") {
///     let g = gpu.wgpu().expect("a wgpu device");
///     println!("{} (max buffer {} bytes)", gpu.name(), g.limits().max_buffer_size);
///     let _device: &nxrig::wgpu::Device = g.device(); // for kernels of your own
/// }
/// ```
pub struct Gpu {
    /// The device's name, as its [`Rig`](crate::rig::Rig) has it.
    pub(crate) name: String,
    /// The timeline of the device's [`Rig`](crate::rig::Rig): lost before the wgpu device goes.
    pub(crate) timeline: Arc<Timeline>,
    /// Taken by each submission from its stamp to its completion callback, so that
    /// stamps reach the queue in their order and complete in it.
    turn: Mutex<()>,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    info: AdapterInfo,
    limits: wgpu::Limits,
    native: Native,
    /// Set once the probe found native float32 sums exact (`Native::f32_exact`).
    f32_exact: std::sync::atomic::AtomicBool,
    /// Compiled kernels, by the name the caller gives a module.
    pub(super) pipelines: Mutex<HashMap<String, Arc<wgpu::ComputePipeline>>>,
    /// The first error the device reported outside an error scope.
    /// The first error the device reported outside an error scope since the last
    /// look: whether it was out of memory, and wgpu's message.
    error: Arc<Mutex<Option<(bool, String)>>>,
    /// Buffers freed memory gave back, for reuse.
    pub(crate) pool: super::pool::Shared,
    /// The flag and arguments of kernels in two passes, made when first needed.
    pub(crate) indirect: super::indirect::Lazy,
    /// The device is another library's ([`Options::adopted`]): never destroyed here.
    pub(crate) adopted: bool,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gpu({} ({}))", self.info.name, self.info.backend)
    }
}

/// How nxrig opens a GPU device.
///
/// ```
/// use nxrig::rig::wgpu::Options;
/// use nxrig::Rig;
///
/// // Every type through the 32-bit integer path, as on an adapter without f16 or f64.
/// let emulated = Options { emulate: true, ..Options::default() };
/// if let Ok(gpu) = Rig::gpu_with(&emulated) {
///     assert!(!gpu.wgpu().unwrap().native().f16);
/// }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Emulate every type in 32-bit integer arithmetic even where the adapter has
    /// native `f16`, `f64` or 64-bit integers (and use no native `f32` arithmetic): the
    /// path browsers take, forced, so that both paths are tested on one machine. The
    /// environment variable `NXRIG_EMULATE=1` sets it for `Rig::gpus`.
    pub emulate: bool,
    /// Skip the probe of native float32 addition and treat it as inexact on
    /// subnormals: `add` then keeps the exact fallback beside the native sum (tests use
    /// it to run that path on any device).
    pub skip_probe: bool,
    /// The largest allocation nxrig makes, in bytes (at most the adapter's
    /// `maxBufferSize`).
    pub max_buffer_size: Option<u64>,
    /// The largest binding a kernel uses, in bytes (at most the adapter's
    /// `maxStorageBufferBindingSize`).
    pub max_storage_buffer_binding_size: Option<u64>,
    /// The most bytes of freed buffers the device keeps for reuse (default 256 MiB; 0
    /// keeps none). See [`Gpu::empty_cache`].
    pub cache_bytes: Option<u64>,
    /// The adapter to ask for: the faster or the more frugal GPU where the platform
    /// has both, or its own choice (the default).
    pub power_preference: ::wgpu::PowerPreference,
    /// The device belongs to another library (in the browser, a `GPUDevice` that
    /// onnxruntime-web or TensorFlow.js made): [`Rig::destroy`](crate::rig::Rig::destroy)
    /// marks it lost for nxrig but leaves the device itself to its owner.
    pub adopted: bool,
}

/// The shader features nxrig asks for where the adapter has them.
fn wanted_features() -> wgpu::Features {
    wgpu::Features::SHADER_F16 | wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_F64
}

impl Gpu {
    /// What the adapter is and offers.
    pub fn info(&self) -> &AdapterInfo {
        &self.info
    }

    /// The device's limits as nxrig uses them (bytes for the buffer and binding
    /// sizes): the adapter's, capped by [`Options`].
    pub fn limits(&self) -> &wgpu::Limits {
        &self.limits
    }

    /// The native WGSL types nxrig's kernels use on this device.
    pub fn native(&self) -> Native {
        Native {
            f32_exact: self.f32_exact.load(std::sync::atomic::Ordering::Relaxed),
            ..self.native
        }
    }

    /// The wgpu device, for work of the caller's own (submitted through [`Rig::submit`](crate::rig::Rig::submit)).
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The wgpu queue, for work of the caller's own (submitted through [`Rig::submit`](crate::rig::Rig::submit)).
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// The compute pipeline of the module named `key`, compiled from `source()` the
    /// first time it is asked for (entry point `main`, layout from the module).
    pub(crate) fn pipeline(
        &self,
        key: &str,
        source: impl FnOnce() -> String,
    ) -> Arc<wgpu::ComputePipeline> {
        self.pipeline_laid(key, source, None)
    }

    /// [`Gpu::pipeline`], its bindings laid out as `written` says where it is given
    /// (binding 0 a uniform, then an operand each, written where true, whether the
    /// module uses them or not).
    pub(crate) fn pipeline_laid(
        &self,
        key: &str,
        source: impl FnOnce() -> String,
        written: Option<&[bool]>,
    ) -> Arc<wgpu::ComputePipeline> {
        if let Some(p) = lock(&self.pipelines).get(key) {
            return p.clone();
        }
        let (_, p) = self.compiled(key, source(), written);
        lock(&self.pipelines).insert(key.to_owned(), p.clone());
        p
    }

    /// The module of `source` and its compute pipeline (entry point `main`, layout
    /// from the module, or from `written` as [`Gpu::pipeline_laid`] says), both
    /// labelled `key`; not kept.
    pub(crate) fn compiled(
        &self,
        key: &str,
        source: String,
        written: Option<&[bool]>,
    ) -> (wgpu::ShaderModule, Arc<wgpu::ComputePipeline>) {
        let layout = written.map(|w| self.bound_layout(key, w));
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(key),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
        let p = Arc::new(
            self.device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(key),
                    layout: layout.as_ref(),
                    module: &module,
                    entry_point: Some("main"),
                    compilation_options: Default::default(),
                    cache: None,
                }),
        );
        (module, p)
    }

    /// The pipeline layout of a module's bindings whatever it uses of them: binding
    /// 0 a uniform, then one storage buffer an operand, read-write where `written`
    /// says so. (A layout wgpu infers leaves out the bindings a module never touches.)
    fn bound_layout(&self, key: &str, written: &[bool]) -> wgpu::PipelineLayout {
        let entry = |binding: u32, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let mut entries = vec![entry(0, wgpu::BufferBindingType::Uniform)];
        for (k, &w) in written.iter().enumerate() {
            let ty = wgpu::BufferBindingType::Storage { read_only: !w };
            entries.push(entry(k as u32 + 1, ty));
        }
        let group = self
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(key),
                entries: &entries,
            });
        self.device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(key),
                bind_group_layouts: &[Some(&group)],
                immediate_size: 0,
            })
    }

    /// What decides the pieces of work on this device (`plan`).
    pub(crate) fn fit(&self) -> super::plan::Fit {
        super::plan::Fit {
            max_binding: self.limits().max_storage_buffer_binding_size,
            offset_align: self.limits().min_storage_buffer_offset_alignment as u64,
        }
    }

    /// The error of `op` whose work the device reported `said` of (`oom`: out of memory).
    pub(crate) fn device_error(&self, op: &'static str, oom: bool, said: String) -> Error {
        Error::Device {
            op,
            device: self.name.clone(),
            reason: if oom {
                format!("being out of memory: {said}")
            } else {
                said
            },
        }
    }

    /// `Err` naming `op` if the device reported an error outside an error scope since
    /// the last call: [`Error::Lost`] once the device is lost (whatever wgpu said of
    /// the objects it invalidated), else [`Error::Device`] with wgpu's message.
    pub(crate) fn reported(&self, op: &'static str) -> Result<(), Error> {
        let e = lock(&self.error).take();
        if self.timeline.is_lost() {
            return Err(self.lost(op));
        }
        match e {
            None => Ok(()),
            Some((oom, e)) => Err(self.device_error(op, oom, e)),
        }
    }

    /// Whether the error the device reported, not yet looked at, is out of memory
    /// (the error stays for [`Gpu::reported`]).
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn out_of_memory(&self) -> bool {
        lock(&self.error).as_ref().is_some_and(|e| e.0)
    }

    /// The error of an operation `op` on this device once it is lost.
    pub(crate) fn lost(&self, op: &'static str) -> Error {
        Error::Lost {
            op,
            device: match self.timeline.why() {
                Some(why) => format!("{} ({why})", self.name),
                None => self.name.clone(),
            },
        }
    }

    /// Marks the device's native float32 sums exact (the probe found them so).
    pub(crate) fn set_f32_exact(&self) {
        self.f32_exact
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// The submission turn: held from a stamp's taking until its completion is
    /// registered (see [`Rig::submit`](crate::rig::Rig::submit)).
    pub(crate) fn turn(&self) -> std::sync::MutexGuard<'_, ()> {
        lock(&self.turn)
    }

    /// A buffer of `usage` (and `COPY_DST`) holding `data`, written through the queue:
    /// never mapped at creation, whose helper panics on a lost device.
    pub(crate) fn buffer_with(
        &self,
        label: &'static str,
        data: &[u8],
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        let b = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: data.len() as u64,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.queue.write_buffer(&b, 0, data);
        b
    }

    /// Drops the buffers that freed memory gave back for reuse (see
    /// [`Options::cache_bytes`]), so that the driver can free them.
    pub fn empty_cache(&self) {
        super::pool::lock(&self.pool).clear();
    }

    /// Empties the pool for good: the device is being destroyed.
    pub(crate) fn close_cache(&self) {
        super::pool::lock(&self.pool).close();
    }

    /// Bytes of freed buffers the device keeps for reuse now.
    pub fn cached_bytes(&self) -> u64 {
        super::pool::lock(&self.pool).bytes()
    }

    /// Completes `stamp` on the device's timeline once the work submitted to the
    /// queue so far is done.
    pub(crate) fn stamp_when_done(&self, stamp: Stamp) {
        let t: Weak<Timeline> = Arc::downgrade(&self.timeline);
        self.queue.on_submitted_work_done(move || {
            if let Some(t) = t.upgrade() {
                t.complete(stamp);
            }
        });
    }

    /// Blocks until the queue's work is done and its callbacks have run (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn block(&self) {
        // A destroyed device answers at once; a device the driver lost may make wgpu
        // panic (its poll treats a lost device as fatal): that is the device lost.
        let poll = || self.device.poll(wgpu::PollType::wait_indefinitely());
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(poll)).is_err() {
            self.timeline.lose();
        }
    }
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Opens `adapter` as a device named `name`: its shader features where it has them and
/// its own limits (the largest buffers and bindings it allows), as `options` say; not
/// yet probed (`open::open` probes it).
pub(crate) async fn open_unprobed(
    adapter: &wgpu::Adapter,
    name: &str,
    options: &Options,
) -> Result<Arc<Gpu>, Error> {
    // The device enforces the capped limits too, so a piece that would not fit fails
    // loudly in the tests of splitting rather than passing on a roomy adapter.
    let mut limits = adapter.limits();
    if let Some(c) = options.max_buffer_size {
        limits.max_buffer_size = limits.max_buffer_size.min(c);
    }
    if let Some(c) = options.max_storage_buffer_binding_size {
        limits.max_storage_buffer_binding_size = limits.max_storage_buffer_binding_size.min(c);
    }
    let desc = wgpu::DeviceDescriptor {
        label: Some(name),
        required_features: adapter.features() & wanted_features(),
        required_limits: limits.clone(),
        ..Default::default()
    };
    let (device, queue) = adapter
        .request_device(&desc)
        .await
        .map_err(|e| Error::NoDevice {
            op: "Rig::by_name",
            reason: format!("{name}: the adapter refused a device: {e}"),
        })?;
    let limits = device.limits();
    // A device another library made may have been asked for less than nxrig's
    // kernels need (WebGPU's defaults are enough).
    if limits.max_compute_workgroup_size_x < 256
        || limits.max_compute_invocations_per_workgroup < 256
        || limits.max_storage_buffers_per_shader_stage < 4
    {
        return Err(Error::NoDevice {
            op: "Rig::gpu_async",
            reason: format!(
                "{name}: its limits are below what nxrig's kernels need (workgroups of 256 \
                 invocations, 4 storage buffers a stage; it has {}, {} and {})",
                limits.max_compute_workgroup_size_x,
                limits.max_compute_invocations_per_workgroup,
                limits.max_storage_buffers_per_shader_stage
            ),
        });
    }
    let f = device.features();
    let native = if options.emulate {
        Native::NONE
    } else {
        Native {
            f32: true,
            f16: f.contains(wgpu::Features::SHADER_F16),
            f64: f.contains(wgpu::Features::SHADER_F64),
            int64: f.contains(wgpu::Features::SHADER_INT64),
            f32_exact: false,
        }
    };
    let error = Arc::new(Mutex::new(None));
    let seen = error.clone();
    let timeline = Arc::new(Timeline::new());
    let t = Arc::downgrade(&timeline);
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        // Out of memory, the device's memory may hold buffers that were never made
        // (the browser reports it only here, after the fact): no array on it can be
        // trusted, so the device is lost, and every later operation says so.
        let oom = matches!(e, wgpu::Error::OutOfMemory { .. });
        // Natively the error comes inside the call that made the buffer, which sees it
        // and retries; the browser reports it later, unattributed.
        if oom && cfg!(target_arch = "wasm32") {
            if let Some(t) = t.upgrade() {
                t.lose_because("it ran out of memory");
            }
        }
        lock(&seen).get_or_insert_with(|| (oom, e.to_string()));
    }));
    let gpu = Gpu {
        name: name.to_owned(),
        timeline: timeline.clone(),
        turn: Mutex::new(()),
        device,
        queue,
        info: AdapterInfo::of(adapter),
        limits,
        native,
        f32_exact: std::sync::atomic::AtomicBool::new(false),
        pipelines: Mutex::new(HashMap::new()),
        error,
        indirect: Default::default(),
        adopted: options.adopted,
        pool: super::pool::Pool::shared(options.cache_bytes.unwrap_or(super::pool::DEFAULT_CAP)),
    };
    let gpu = Arc::new(gpu);
    let t = Arc::downgrade(&timeline);
    gpu.device.set_device_lost_callback(move |_, _| {
        if let Some(t) = t.upgrade() {
            t.lose();
        }
    });
    Ok(gpu)
}

/// The name of the device of `adapter`: its name and backend, as `nxrig devices` prints.
pub(crate) fn name_of(adapter: &wgpu::Adapter) -> String {
    let i = adapter.get_info();
    // Browsers keep the adapter's name to themselves.
    let name = if i.name.is_empty() {
        "WebGPU adapter"
    } else {
        &i.name
    };
    format!("{name} ({:?})", i.backend)
}

pub(crate) fn instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle())
}

/// The adapters of wgpu's primary backends (Vulkan, Metal, DX12), in wgpu's order.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn primary_adapters() -> Vec<wgpu::Adapter> {
    pollster::block_on(instance().enumerate_adapters(wgpu::Backends::PRIMARY))
}
