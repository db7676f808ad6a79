//! Kernels in two passes where a device runs every branch (a CPU adapter such as
//! SwiftShader): a cheap first pass that raises a flag where its answer may be wrong,
//! and the full kernel dispatched indirectly, over the whole piece where the flag is
//! up and over no workgroup otherwise ([`AGAIN`] sets the dispatch's workgroups from
//! the flag). The flag and the dispatch's arguments live in two small buffers of the
//! device; passes run in submission order, and the middle pass lowers the flag, so
//! pieces and submissions after each other share them.

use std::sync::OnceLock;

/// The module between the two passes: binding 0 the full pass's workgroups (a uniform
/// `vec4<u32>`: x, y), binding 1 the first pass's flag, binding 2 the indirect
/// dispatch's arguments it writes, the piece's workgroups where the flag is up and
/// none otherwise; the flag lowered for the next piece.
pub(crate) const AGAIN: &str = "struct Groups {
    xy: vec4<u32>,
}

@group(0) @binding(0) var<uniform> groups: Groups;
@group(0) @binding(1) var<storage, read_write> flag: u32;
@group(0) @binding(2) var<storage, read_write> args: array<u32, 4>;

@compute @workgroup_size(1)
fn main() {
    args[0] = select(0u, groups.xy.x, flag != 0u);
    args[1] = groups.xy.y;
    args[2] = 1u;
    flag = 0u;
}
";

/// The device's flag and indirect-dispatch buffers.
#[derive(Debug)]
pub(crate) struct Indirect {
    /// The first pass's flag (a `u32`, 0 between pieces).
    pub(crate) flag: wgpu::Buffer,
    /// The full pass's workgroups (x, y, z).
    args: wgpu::Buffer,
}

/// The [`Indirect`] of a device, made once.
pub(crate) type Lazy = OnceLock<Indirect>;

impl Indirect {
    /// The buffers of `lazy`, made on `device` the first time.
    pub(crate) fn of<'a>(lazy: &'a Lazy, device: &wgpu::Device) -> &'a Indirect {
        lazy.get_or_init(|| {
            let make = |label, usage| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: 16,
                    usage: wgpu::BufferUsages::STORAGE | usage,
                    mapped_at_creation: false,
                })
            };
            Indirect {
                flag: make("nxrig flag", wgpu::BufferUsages::empty()),
                args: make("nxrig indirect", wgpu::BufferUsages::INDIRECT),
            }
        })
    }

    /// Encodes, after a first pass over a piece, the pass that sets the full pass's
    /// workgroups from the flag (`x` by `y` where it is up, none otherwise, as the
    /// uniform `xy` holds them: `[x, y, 0, 0]`) and lowers it, `again` (the module
    /// [`AGAIN`]), then the full pass: `pipeline` over `group`, dispatched indirectly.
    pub(crate) fn encode_again(
        &self,
        device: &wgpu::Device,
        enc: &mut wgpu::CommandEncoder,
        (again, xy): (&wgpu::ComputePipeline, &wgpu::Buffer),
        pipeline: &wgpu::ComputePipeline,
        group: &wgpu::BindGroup,
    ) {
        let set = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("nxrig again"),
            layout: &again.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: xy.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: self.flag.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: self.args.as_entire_binding(),
                },
            ],
        });
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(again);
            pass.set_bind_group(0, &set, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, group, &[]);
        pass.dispatch_workgroups_indirect(&self.args, 0);
    }
}
