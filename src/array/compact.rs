//! The compact form of an array: the few bytes that hold its elements, on its own
//! device, and their layout in them. Placement computes it once and then moves those
//! bytes, blocking ([`AnyArray::to_device`]) or not ([`AnyArray::to_device_async`]),
//! so both forms give the same layout and the same bits.

use super::any::AnyArray;
use super::placement::transfer;
use crate::error::Error;
use crate::layout::Layout;
use crate::rig::{Buffer, Kind, Rig};

/// An array's elements as placement moves them: `bytes` (on the array's own device)
/// hold every element at `layout`'s positions. `bytes` is `None` for an array with no
/// element.
pub(crate) struct Compact {
    pub(crate) bytes: Option<Buffer>,
    pub(crate) layout: Layout,
    /// True when `bytes` is a fresh buffer that no other array views (a packed copy),
    /// which placement onto its own device hands out as it is.
    pub(crate) fresh: bool,
}

impl AnyArray {
    /// The array's compact form, by `to_device`'s rule: where the bytes from its first
    /// to its last position are at most [`crate::DType::bytes`] of one element per
    /// index (an axis of stride 0 counted once), a view of those bytes and the layout
    /// shifted to them; otherwise a packed copy on the array's own device (a kernel on
    /// a GPU, never a wait) whose axes go by decreasing magnitude of stride, an axis of
    /// stride 0 keeping 0. The copy writes each element once: axes of stride 0 are
    /// taken at extent 1 by the transfer and expanded again after it.
    ///
    /// # Errors
    /// [`Error::Dead`], [`Error::HeldExclusive`], [`Error::Lost`] naming `op`; what
    /// [`Buffer::create`] returns.
    pub(crate) fn compact(&self, op: &'static str) -> Result<Compact, Error> {
        self.buffer.check(op)?;
        self.rig().check(op)?;
        let (l, d) = (&self.layout, self.dtype);
        let Some((lo, hi)) = l.bounds() else {
            let layout = Layout::new(l.shape(), &vec![0; l.rank()], 0)?;
            return Ok(Compact {
                bytes: None,
                layout,
                fresh: true,
            });
        };
        let once: Vec<usize> = l
            .shape()
            .iter()
            .zip(l.strides())
            .map(|(&n, &s)| if s == 0 { 1 } else { n })
            .collect();
        let budget = d.bytes(once.iter().product())?;
        let (b0, b1) = if d.is_sub_byte() {
            (lo / 2, hi / 2 + 1)
        } else {
            (lo * d.storage_bytes(), (hi + 1) * d.storage_bytes())
        };
        if b1 - b0 <= budget {
            let shift = if d.is_sub_byte() {
                2 * b0
            } else {
                b0 / d.storage_bytes()
            };
            return Ok(Compact {
                bytes: Some(self.buffer.view(b0, b1 - b0)?),
                layout: Layout::new(l.shape(), l.strides(), l.offset() - shift)?,
                fresh: false,
            });
        }
        let layout = packed_layout(l)?;
        // Sub-byte: zeroed, so that a nibble past an odd count reads 0.
        let buffer = if d.is_sub_byte() {
            Buffer::create(self.rig(), budget, Kind::Device)?
        } else {
            Buffer::create_to_fill(self.rig(), budget, Kind::Device)?
        };
        let src = AnyArray {
            layout: Layout::new(&once, l.strides(), l.offset())?,
            ..self.clone()
        };
        let dst = AnyArray::v(
            d,
            Layout::new(&once, layout.strides(), layout.offset())?,
            buffer,
        )?;
        transfer(&src, &dst, op)?;
        Ok(Compact {
            bytes: Some(dst.buffer),
            layout,
            fresh: true,
        })
    }
}

impl Compact {
    /// The array of dtype `d` over a fresh buffer on `rig` holding these bytes, copied
    /// by [`Buffer::blit`] (blocking where they come off a GPU: native only).
    ///
    /// # Errors
    /// What [`Buffer::create`] and [`Buffer::blit`] return.
    pub(crate) fn place(self, d: crate::DType, rig: &Rig) -> Result<AnyArray, Error> {
        let buffer = match self.bytes {
            None => Buffer::create(rig, 0, Kind::Device)?,
            Some(b) if self.fresh && b.rig() == rig => b,
            Some(b) => {
                let out = Buffer::create_to_fill(rig, b.len(), Kind::Device)?;
                Buffer::copy(&b, &out)?;
                out
            }
        };
        AnyArray::v(d, self.layout, buffer)
    }

    /// The array of dtype `d` on `host`, a device the host addresses, over `bytes`
    /// (these bytes, read back by the caller), adopted without a copy.
    ///
    /// # Errors
    /// What [`AnyArray::v`] returns.
    pub(crate) fn on_host(
        self,
        d: crate::DType,
        host: &Rig,
        bytes: Vec<u8>,
    ) -> Result<AnyArray, Error> {
        AnyArray::v(d, self.layout, Buffer::adopting(host, bytes))
    }
}

/// The layout `to_device` gives a copy that cannot keep the source's: axes by
/// decreasing stride magnitude (ties in axis order) packed C-contiguously, signs kept,
/// stride-0 axes at 0, the least position at 0.
fn packed_layout(l: &Layout) -> Result<Layout, Error> {
    let r = l.rank();
    let mut order: Vec<usize> = (0..r).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(l.strides()[k].unsigned_abs()));
    let mut strides = vec![0isize; r];
    let mut acc = 1isize;
    for &k in order.iter().rev() {
        if l.strides()[k] == 0 {
            continue;
        }
        strides[k] = acc * l.strides()[k].signum();
        acc *= l.shape()[k] as isize;
    }
    let offset: isize = (0..r)
        .filter(|&k| strides[k] < 0)
        .map(|k| -(l.shape()[k] as isize - 1) * strides[k])
        .sum();
    Layout::new(l.shape(), &strides, offset as usize)
}
