//! Running a generated module over its operands: cut into pieces that fit the device
//! (`plan`), each piece one dispatch with binding 0 its walk's parameters (a uniform)
//! and then a window of each operand's memory, one invocation an element; all the
//! pieces in one submission.

use std::num::NonZeroU64;

use wgpu::util::DeviceExt;

use super::plan::{pieces, Fit, Operand};
use super::Gpu;
use crate::error::Error;
use crate::layout::Layout;
use crate::wgsl::{walk_params, walk_params3};

/// Invocations a workgroup (the modules' `@workgroup_size`).
const GROUP: u32 = 256;

/// Elements an invocation handles (the modules loop over the grid's stride).
const PER: u32 = 8;

/// Workgroups a dispatch has at most on a CPU adapter (SwiftShader, lavapipe), whose
/// cost grows with the count of workgroups: a few for each of its threads, which the
/// grid-stride loops keep busy.
const CPU_GROUPS: u32 = 128;

/// Workgroups on the x axis at most (WebGPU's default limit).
const MAX_X: u32 = 65535;

impl Gpu {
    /// Encodes and submits the module named `key` (compiled from `source()` once) over
    /// `ops` (two: source, destination; or three: source, destination, second source,
    /// in the order of bindings 1, 2, 3), one invocation an element of their shared
    /// shape. The caller submits through [`crate::rig::Rig::submit`], which stamps the
    /// work.
    ///
    /// # Errors
    /// [`Error::Invalid`] if the device reported an error.
    pub(crate) fn run(
        &self,
        op: &'static str,
        key: &str,
        source: impl FnOnce() -> String,
        ops: &[Operand<'_>],
    ) -> Result<(), Error> {
        self.run_with(op, key, source, None, ops)
    }

    /// [`Gpu::run`] with the kernel's contiguous form (`shaders/flat4.wgsl`), used for
    /// each piece whose operands are all 32-bit, C-contiguous from offsets that are
    /// multiples of 4 elements, over a multiple of 4 elements.
    ///
    /// # Errors
    /// As [`Gpu::run`].
    pub(crate) fn run_with(
        &self,
        op: &'static str,
        key: &str,
        source: impl FnOnce() -> String,
        flat4: Option<&dyn Fn(bool) -> String>,
        ops: &[Operand<'_>],
    ) -> Result<(), Error> {
        if ops[0].layout.numel() == 0 {
            return Ok(());
        }
        let fit = Fit {
            max_binding: self.limits().max_storage_buffer_binding_size,
            offset_align: self.limits().min_storage_buffer_offset_alignment as u64,
        };
        let pieces = pieces(op, &fit, ops)?;
        // Jobs: (contiguous form, layouts, piece). A piece whose operands are all 32-bit
        // and C-contiguous from offsets that are multiples of 4 runs its whole groups of
        // 4 elements in the contiguous form and the rest (fewer than 4) walked.
        let words = flat4.is_some() && ops.iter().all(|o| o.bits == 32);
        let mut jobs: Vec<(bool, Vec<Layout>, &super::plan::Piece)> =
            Vec::with_capacity(pieces.len());
        for p in &pieces {
            if words
                && p.layouts
                    .iter()
                    .all(|l| l.is_contiguous() && l.offset() % 4 == 0)
            {
                let n = p.layouts[0].numel();
                let line = |len: usize, at: usize, div: usize| -> Result<Vec<Layout>, Error> {
                    p.layouts
                        .iter()
                        .map(|l| Layout::new(&[len], &[1], (l.offset() + at) / div))
                        .collect()
                };
                if n >= 4 {
                    jobs.push((true, line(n / 4, 0, 4)?, p));
                }
                if n % 4 != 0 {
                    jobs.push((false, line(n % 4, n - n % 4, 1)?, p));
                }
            } else {
                jobs.push((false, p.layouts.clone(), p));
            }
        }
        let (mut general, mut flat, mut flat0) = (None, None, None);
        let mut source = Some(source);
        let mut enc = self.device.create_command_encoder(&Default::default());
        for (is_flat, l, p) in &jobs {
            let pipeline = if *is_flat {
                let f = flat4.expect("checked");
                if l.iter().all(|x| x.offset() == 0) {
                    flat0
                        .get_or_insert_with(|| {
                            self.pipeline(&format!("{key} flat4 at 0"), || f(true))
                        })
                        .clone()
                } else {
                    flat.get_or_insert_with(|| self.pipeline(&format!("{key} flat4"), || f(false)))
                        .clone()
                }
            } else {
                general
                    .get_or_insert_with(|| {
                        self.pipeline(key, source.take().expect("compiled once"))
                    })
                    .clone()
            };
            let layout = pipeline.get_bind_group_layout(0);
            let params = match l.len() {
                2 => walk_params((&l[0], 0), (&l[1], 0)),
                _ => walk_params3((&l[0], 0), (&l[1], 0), Some((&l[2], 0))),
            }
            .expect("nxrig bug: a piece's positions are past 32 bits");
            let pbuf = self
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("nxrig params"),
                    contents: &params,
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            let mut entries = vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: pbuf.as_entire_binding(),
            }];
            for (k, (o, &(c, off, size))) in ops.iter().zip(&p.windows).enumerate() {
                entries.push(wgpu::BindGroupEntry {
                    binding: k as u32 + 1,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &o.mem.buffers()[c],
                        offset: off,
                        size: NonZeroU64::new(size),
                    }),
                });
            }
            let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(key),
                layout: &layout,
                entries: &entries,
            });
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            let mut groups = (l[0].numel() as u32).div_ceil(GROUP * PER);
            if self.cpu {
                groups = groups.min(CPU_GROUPS);
            }
            let (x, y) = if groups > MAX_X {
                (MAX_X, groups.div_ceil(MAX_X))
            } else {
                (groups, 1)
            };
            pass.dispatch_workgroups(x, y, 1);
        }
        self.queue.submit([enc.finish()]);
        self.reported(op)
    }
}
