//! CUDA as a device backend: what a device (`crate::rig::Rig`) asks of a CUDA device.

use std::sync::Arc;

use super::Cuda;
use crate::error::Error;
use crate::rig::kind::RigKind;
use crate::rig::seam::{DeviceBackend, Store};
use crate::rig::timeline::{Stamp, Timeline};

/// The backend of a CUDA device: the device's state, shared with its memories.
pub(crate) struct CudaBackend(pub(crate) Arc<Cuda>);

impl DeviceBackend for CudaBackend {
    fn kind(&self) -> RigKind {
        RigKind::Cuda
    }

    fn host_addressable(&self) -> bool {
        false
    }

    fn allocate(
        &self,
        device: &str,
        op: &'static str,
        len: usize,
        clear: bool,
    ) -> Result<Store, Error> {
        Ok(Store::Cuda(self.0.allocate(device, op, len, clear)?))
    }

    fn queues_work(&self) -> bool {
        true
    }

    fn turn(&self) -> Option<std::sync::MutexGuard<'_, ()>> {
        Some(self.0.turn())
    }

    fn finish(&self, _timeline: &Timeline, stamp: Stamp) {
        self.0.stamp_when_done(stamp)
    }

    fn block(&self) -> bool {
        self.0.block();
        true
    }

    fn destroy(&self) {
        // The primary context stays (other users of the process may share it); the
        // device is marked lost, so nothing more runs on it.
        self.0.trim();
    }

    fn empty_cache(&self) {
        self.0.trim()
    }

    fn cached_bytes(&self) -> u64 {
        self.0.pooled_bytes()
    }

    fn describe(&self) -> Option<String> {
        Some(self.0.about().to_owned())
    }
}
