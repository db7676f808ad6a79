//! The async form of placement that the browser needs to bring GPU memory back, and
//! an array's own bytes.

use super::any::AnyArray;
use crate::error::Error;
use crate::rig::{Buffer, Rig};

impl AnyArray {
    /// The bytes of a C-contiguous array whose first element starts on a byte: a view
    /// of just them, `numel` elements' bytes from the first element's byte. `None` for
    /// other layouts.
    ///
    /// # Errors
    /// [`Error::Dead`] for a dead buffer.
    pub(crate) fn own_bytes(&self) -> Option<Result<Buffer, Error>> {
        let (start, len) = self.own_byte_range()?;
        Some(self.buffer.view(start, len))
    }

    /// Where [`AnyArray::own_bytes`] lie in the array's buffer: the first byte and the
    /// count. `None` for other layouts.
    pub(crate) fn own_byte_range(&self) -> Option<(usize, usize)> {
        let (d, l) = (self.dtype, &self.layout);
        let first_bits = l.offset() as u64 * d.bits() as u64;
        if !l.is_contiguous() || !first_bits.is_multiple_of(8) {
            return None;
        }
        let len = d.bytes(l.numel()).ok()?;
        Some(((first_bits / 8) as usize, len))
    }

    /// [`AnyArray::to_device`] that never blocks: GPU memory comes back through an
    /// async read. In the browser, the way to bring a GPU array to the host. The same
    /// placement as the blocking form (one compact form computed once, its bytes then
    /// read back without blocking): the same layout and the same bits, for every view.
    ///
    /// # Errors
    /// As [`AnyArray::to_device`].
    pub async fn to_device_async(&self, rig: &Rig) -> Result<AnyArray, Error> {
        const OP: &str = "AnyArray::to_device_async";
        if self.rig().host_addressable() || self.rig() == rig {
            return self.to_device(rig);
        }
        // Compact on its own GPU (a kernel, not a wait), then read its bytes back.
        let c = self.compact(OP)?;
        // Host memory is every host device's: straight onto `rig` where it is one.
        let on = if rig.host_addressable() {
            rig.clone()
        } else {
            Rig::host()
        };
        let host = match &c.bytes {
            None => c.place(self.dtype, &on),
            Some(b) => {
                let bytes = b.read_async().await.map_err(|e| e.called(OP))?;
                c.on_host(self.dtype, &on, bytes)
            }
        }?;
        if on == *rig {
            Ok(host)
        } else {
            host.to_device(rig)
        }
    }
}
