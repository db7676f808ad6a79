//! wgpu as a device backend: what a device (`crate::rig::Rig`) asks of a GPU through
//! wgpu.

use super::{Gpu, GpuMemory};
use std::sync::Arc;

use crate::error::Error;
use crate::rig::kind::RigKind;
use crate::rig::seam::{DeviceBackend, Store};
use crate::rig::timeline::{Stamp, Timeline};

impl DeviceBackend for Gpu {
    fn kind(&self) -> RigKind {
        RigKind::Wgpu
    }

    fn host_addressable(&self) -> bool {
        false
    }

    fn allocate(
        &self,
        _device: &str,
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

    fn caught(
        &self,
        op: &'static str,
        work: &mut dyn FnMut() -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.catch_errors(op, work)
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
        if !self.adopted {
            self.device.destroy();
        }
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
        self: &Arc<Self>,
        op: &'static str,
        mem: &GpuMemory,
        start: usize,
        len: usize,
    ) -> Result<Vec<u8>, Error> {
        let mut out = vec![0u8; len];
        self.read_blocking_into(op, mem, start, &mut out)?;
        Ok(out)
    }

    /// Bytes `start..start + out.len()` of `mem`, copied back into `out` (from the
    /// mapped staging memory straight into it), blocking. Native only (the browser
    /// cannot block); the caller holds a read claim.
    pub(crate) fn read_blocking_into(
        self: &Arc<Self>,
        op: &'static str,
        mem: &GpuMemory,
        start: usize,
        out: &mut [u8],
    ) -> Result<(), Error> {
        if self.timeline.is_lost() {
            return Err(self.lost(op));
        }
        #[cfg(target_arch = "wasm32")]
        {
            let _ = (mem, start, out);
            Err(Error::Unsupported {
                op,
                device: self.name.clone(),
                what:
                    "be read blocking in the browser: use read_async (or the array's async forms)"
                        .into(),
            })
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            use super::io::Out;
            let len = out.len();
            pollster::block_on(self.readback(mem, start, len, Out::Slice(out))).map(drop)
        }
    }
}
