//! Running a generated module over its operands: cut into pieces that fit the device
//! (`plan`), each piece one dispatch with binding 0 its walk's parameters (a uniform)
//! and then a window of each operand's memory, one invocation an element; all the
//! pieces in one submission.

use std::num::NonZeroU64;

use super::plan::{pieces, Fit, Operand};
use super::Gpu;
use crate::error::Error;
use crate::layout::Layout;
use crate::wgsl::{walk_params, walk_params3};

/// Invocations a workgroup (the modules' `@workgroup_size`).
const GROUP: u32 = 256;

/// Elements an invocation handles (the modules loop over the grid's stride).
const PER: u32 = 8;

/// Workgroups a dispatch has at most on a CPU adapter where [`Gpu::cap_groups`]
/// says so: a few for each of its threads, which the grid-stride loops keep busy.
const CPU_GROUPS: u32 = 128;

/// Workgroups on the x axis at most (WebGPU's default limit).
const MAX_X: u32 = 65535;

/// A kernel's contiguous form (`shaders/flat4.wgsl`): its module, by whether every
/// operand starts its binding window; and, for a kernel that has one, a cheaper first
/// pass (binding 4 a flag it raises where its answer may be wrong), after which the
/// module runs, dispatched indirectly, only over pieces whose flag is up
/// (`indirect`).
pub(crate) struct Flat4<'a> {
    pub(crate) module: &'a dyn Fn(bool) -> String,
    pub(crate) first: Option<&'a dyn Fn(bool) -> String>,
}

impl Gpu {
    /// Whether a dispatch of the walked form (or of the contiguous form, `flat`) is
    /// capped at [`CPU_GROUPS`] workgroups: on CPU adapters, whose cost grows with the
    /// count of workgroups, as measured on 64 MiB of float32 (`benches/web`,
    /// `examples/gpu_throughput.rs`). SwiftShader (the browser's CPU adapter): both
    /// forms gain (cast to int32 150 to 110 ms, add 210 to 185 ms, transpose too).
    /// lavapipe: the walked form gains (a transposed copy 0.93 to 1.48 GB/s), the
    /// contiguous one loses (cast to int32 7.6 to 2.2 GB/s), so it is left alone.
    fn cap_groups(&self, flat: bool) -> bool {
        let info = self.info();
        info.device_type == "Cpu" && (!flat || info.backend == "BrowserWebGpu")
    }

    /// Encodes and submits the module named `key` (compiled from `source()` once) over
    /// `ops` (two: source, destination; or three: source, destination, second source,
    /// in the order of bindings 1, 2, 3), one invocation an element of their shared
    /// shape. The caller submits through [`crate::rig::Rig::submit`], which stamps the
    /// work.
    ///
    /// # Errors
    /// [`Error::Device`] if the device reported an error; [`Error::Lost`] once it is lost.
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
        flat4: Option<&Flat4<'_>>,
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
        let (mut general, mut flat, mut flat0, mut firsts) = (None, None, None, [None, None]);
        let mut source = Some(source);
        let mut enc = self.device.create_command_encoder(&Default::default());
        for (is_flat, l, p) in &jobs {
            let at_zero = l.iter().all(|x| x.offset() == 0);
            let pipeline = if *is_flat {
                let f = flat4.expect("checked").module;
                if at_zero {
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
            let params = match l.len() {
                2 => walk_params((&l[0], 0), (&l[1], 0)),
                _ => walk_params3((&l[0], 0), (&l[1], 0), Some((&l[2], 0))),
            }
            .expect("nxrig bug: a piece's positions are past 32 bits");
            let pbuf = self.buffer_with("nxrig params", &params, wgpu::BufferUsages::UNIFORM);
            // Binding 0 the parameters, then the operands' windows, then `extra`.
            let bind = |pipeline: &wgpu::ComputePipeline, extra: Option<&wgpu::Buffer>| {
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
                if let Some(b) = extra {
                    entries.push(wgpu::BindGroupEntry {
                        binding: ops.len() as u32 + 1,
                        resource: b.as_entire_binding(),
                    });
                }
                self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(key),
                    layout: &pipeline.get_bind_group_layout(0),
                    entries: &entries,
                })
            };
            let group = bind(&pipeline, None);
            let mut groups = (l[0].numel() as u32).div_ceil(GROUP * PER);
            if self.cap_groups(*is_flat) {
                groups = groups.min(CPU_GROUPS);
            }
            let (x, y) = if groups > MAX_X {
                (MAX_X, groups.div_ceil(MAX_X))
            } else {
                (groups, 1)
            };
            let first = flat4.and_then(|f| f.first).filter(|_| *is_flat);
            if let Some(first) = first {
                let fp = firsts[at_zero as usize]
                    .get_or_insert_with(|| {
                        let name = format!("{key} first{}", if at_zero { " at 0" } else { "" });
                        self.pipeline(&name, || first(at_zero))
                    })
                    .clone();
                let fg = bind(&fp, Some(&self.indirect().flag));
                {
                    let mut pass = enc.begin_compute_pass(&Default::default());
                    pass.set_pipeline(&fp);
                    pass.set_bind_group(0, &fg, &[]);
                    pass.dispatch_workgroups(x, y, 1);
                }
                self.encode_again(&mut enc, (x, y), &pipeline, &group);
                continue;
            }
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        self.queue.submit([enc.finish()]);
        self.reported(op)
    }
}
