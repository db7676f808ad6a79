//! wgpu as a device backend: what [`crate::rig::Rig`] asks of a GPU through wgpu, and
//! the accessors of wgpu's own objects for work of a caller's own. Seed: `Rig.t`.

use super::{Gpu, GpuMemory};
use crate::error::Error;
use crate::rig::backend::{Backend, DeviceBackend, On, Store};
use crate::rig::buffer::Buffer;
use crate::rig::timeline::{Stamp, Timeline};
use crate::rig::{Rig, RigKind};

impl DeviceBackend for Gpu {
    fn kind(&self) -> RigKind {
        RigKind::Wgpu
    }

    fn host_addressable(&self) -> bool {
        false
    }

    fn allocate(
        &self,
        _rig: &Rig,
        op: &'static str,
        len: usize,
        clear: bool,
    ) -> Result<Store, Error> {
        Ok(Store::Wgpu(self.create(op, len, clear)?))
    }

    fn queues_work(&self) -> bool {
        true
    }

    fn turn(&self) -> Option<std::sync::MutexGuard<'_, ()>> {
        Some(Gpu::turn(self))
    }

    fn finish(&self, _timeline: &Timeline, stamp: Stamp) {
        self.stamp_when_done(stamp)
    }

    fn block(&self) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        {
            Gpu::block(self);
            true
        }
        #[cfg(target_arch = "wasm32")]
        false
    }

    fn destroy(&self) {
        self.close_cache();
        self.device.destroy();
    }

    fn empty_cache(&self) {
        Gpu::empty_cache(self)
    }

    fn cached_bytes(&self) -> u64 {
        Gpu::cached_bytes(self)
    }

    fn describe(&self) -> Option<String> {
        Some(self.info().describe())
    }
}

impl Gpu {
    /// Bytes `start..start + len` of `mem`, copied back, blocking. Native only (the
    /// browser cannot block); the caller holds a read claim.
    pub(crate) fn read_blocking(
        &self,
        rig: &Rig,
        op: &'static str,
        mem: &GpuMemory,
        start: usize,
        len: usize,
    ) -> Result<Vec<u8>, Error> {
        rig.check(op)?;
        #[cfg(target_arch = "wasm32")]
        {
            let _ = (mem, start, len);
            Err(Error::Unsupported {
                op,
                device: rig.name().to_owned(),
                what:
                    "be read blocking in the browser: use read_async (or the array's async forms)"
                        .into(),
            })
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            use super::io::Out;
            pollster::block_on(self.readback(rig, mem, start, len, Out::bytes(len)))
                .map(Out::into_vec)
        }
    }
}

impl Rig {
    /// The wgpu device and queue of a GPU device through wgpu, for work of the
    /// caller's own (submitted through [`Rig::submit`]) and for what only wgpu has
    /// (its adapter's info and limits, the native types nxrig's WGSL uses); `None` for
    /// a device of another backend.
    pub fn wgpu(&self) -> Option<&Gpu> {
        match self.backend() {
            Backend::Wgpu(g) => Some(g),
            Backend::Host(_) => None,
        }
    }
}

impl Buffer {
    /// The wgpu buffers of the memory and the buffer's first byte in them, for memory
    /// of a GPU through wgpu; `None` for memory of another backend. For kernels of the
    /// caller's own, which bind the buffers and submit through [`Rig::submit`].
    pub fn wgpu_memory(&self) -> Option<(&GpuMemory, usize)> {
        match self.memory.on() {
            On::Wgpu(_, m) => Some((m, self.start())),
            On::Host => None,
        }
    }
}
