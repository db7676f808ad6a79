//! The steps every dispatch of a job takes (`job.rs` for a kernel, `raw.rs` for a
//! raw one): bind its parameters (binding 0, a uniform) and its operands' windows,
//! size its grid (an invocation an element, or a group of them, in a grid-stride
//! loop), and encode it.

use std::num::NonZeroU64;

use super::plan::{Operand, Piece};
use super::Gpu;

/// Invocations a workgroup (the modules' `@workgroup_size`).
const GROUP: u32 = 256;

/// Elements an invocation handles (the modules loop over the grid's stride).
const PER: u32 = 8;

/// Workgroups a dispatch has at most on a CPU adapter where [`Gpu::cap_groups`]
/// says so: a few for each of its threads, which the grid-stride loops keep busy.
const CPU_GROUPS: u32 = 128;

/// Workgroups on the x axis at most (WebGPU's default limit).
const MAX_X: u32 = 65535;

impl Gpu {
    /// Whether a dispatch of the walked form (or of the contiguous form, `flat`) is
    /// capped at [`CPU_GROUPS`] workgroups: on CPU adapters, whose cost grows with the
    /// count of workgroups: on SwiftShader (the browser's CPU adapter) both forms gain,
    /// on lavapipe the walked form gains and the contiguous one loses, so it is left
    /// alone (BENCHMARKS.md, "Choices the measurements made").
    fn cap_groups(&self, flat: bool) -> bool {
        let info = self.info();
        info.device_type == "Cpu" && (!flat || info.backend == "BrowserWebGpu")
    }

    /// The bind group of a job: binding 0 the parameters, then each operand's window
    /// of the piece, then `extra` (a first pass's flag).
    pub(super) fn bind(
        &self,
        key: &str,
        pipeline: &wgpu::ComputePipeline,
        params: &wgpu::Buffer,
        ops: &[Operand<'_>],
        piece: &Piece,
        extra: Option<&wgpu::Buffer>,
    ) -> wgpu::BindGroup {
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: params.as_entire_binding(),
        }];
        for (k, (o, &(c, off, size))) in ops.iter().zip(&piece.windows).enumerate() {
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
    }

    /// The workgroups (x, y) of a job of `n` invocations' elements, in the contiguous
    /// form or not.
    pub(super) fn grid(&self, n: usize, contiguous: bool) -> (u32, u32) {
        let mut groups = (n as u32).div_ceil(GROUP * PER);
        if self.cap_groups(contiguous) {
            groups = groups.min(CPU_GROUPS);
        }
        if groups > MAX_X {
            (MAX_X, groups.div_ceil(MAX_X))
        } else {
            (groups, 1)
        }
    }
}

/// One compute pass: `pipeline` over `group` on `(x, y)` workgroups.
pub(super) fn encode(
    enc: &mut wgpu::CommandEncoder,
    (x, y): (u32, u32),
    pipeline: &wgpu::ComputePipeline,
    group: &wgpu::BindGroup,
) {
    encode3(enc, [x, y, 1], pipeline, group);
}

/// One compute pass: `pipeline` over `group` on `[x, y, z]` workgroups.
pub(super) fn encode3(
    enc: &mut wgpu::CommandEncoder,
    [x, y, z]: [u32; 3],
    pipeline: &wgpu::ComputePipeline,
    group: &wgpu::BindGroup,
) {
    let mut pass = enc.begin_compute_pass(&Default::default());
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, group, &[]);
    pass.dispatch_workgroups(x, y, z);
}
