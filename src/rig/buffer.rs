//! Buffers: a byte range of one memory. Seed: `Rig.Buffer`.

use std::sync::Arc;

use super::memory::{Access, Memory};
use super::Device;
use crate::error::Error;

/// A byte range of one memory on one device. `Clone` copies the handle, never the
/// bytes. Seed: `Rig.Buffer.t`.
#[derive(Clone, Debug)]
pub struct Buffer {
    memory: Arc<Memory>,
    start: usize,
    len: usize,
}

impl Buffer {
    /// A fresh buffer of `len` zeroed bytes on `device`. Seed: `Rig.Buffer.create`.
    ///
    /// # Errors
    /// [`Error::Invalid`] if the memory cannot be allocated.
    pub fn create(device: &Device, len: usize) -> Result<Buffer, Error> {
        match device {
            Device::Host => Ok(Buffer::of_memory(Memory::zeroed(len)?)),
        }
    }

    /// A buffer spanning `memory`.
    pub fn of_memory(memory: Memory) -> Buffer {
        let len = memory.len();
        Buffer {
            memory: Arc::new(memory),
            start: 0,
            len,
        }
    }

    /// The device the memory is on.
    pub fn device(&self) -> Device {
        Device::Host
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a buffer of no byte.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Byte offset of the buffer's first byte in its memory.
    pub fn start(&self) -> usize {
        self.start
    }

    /// What the buffer's memory admits.
    pub fn access(&self) -> Access {
        self.memory.access()
    }

    /// Address of the buffer's first byte on the host.
    pub fn addr(&self) -> usize {
        self.memory.addr() + self.start
    }

    /// True when the buffer covers its whole memory. Seed: `Rig.Buffer.spans`.
    pub fn spans(&self) -> bool {
        self.start == 0 && self.len == self.memory.len()
    }

    /// The buffer of bytes `start..start + len` of this one.
    ///
    /// # Errors
    /// [`Error::Invalid`] if the range is not inside the buffer.
    pub fn view(&self, start: usize, len: usize) -> Result<Buffer, Error> {
        match start.checked_add(len) {
            Some(end) if end <= self.len => Ok(Buffer {
                memory: self.memory.clone(),
                start: self.start + start,
                len,
            }),
            _ => Err(Error::Invalid {
                op: "Rig.Buffer.view",
                reason: format!(
                    "bytes {start}..{start}+{len} are not inside a buffer of {} bytes",
                    self.len
                ),
                operands: String::new(),
            }),
        }
    }

    /// `f` of the buffer's bytes, while no host write runs. Seed: `Rig.Buffer.read`.
    pub fn read<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        self.memory
            .read(|b| f(&b[self.start..self.start + self.len]))
    }

    /// `f` of the buffer's bytes, alone. Seed: `Rig.Buffer.write`.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `op` if the memory admits only reads.
    pub fn write<R>(&self, op: &'static str, f: impl FnOnce(&mut [u8]) -> R) -> Result<R, Error> {
        self.memory
            .write(op, |b| f(&mut b[self.start..self.start + self.len]))
    }

    /// True when the two buffers share a byte of one memory. Seed: `Rig.Buffer.overlaps`.
    pub fn overlaps(&self, other: &Buffer) -> bool {
        Arc::ptr_eq(&self.memory, &other.memory)
            && self.start < other.start + other.len
            && other.start < self.start + self.len
    }
}
