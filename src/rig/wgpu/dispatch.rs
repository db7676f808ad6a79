//! One dispatch of a generated module: binding 0 the walk's parameters (a uniform),
//! then the caller's storage buffers, one invocation an element.

use wgpu::util::DeviceExt;

use super::Gpu;
use crate::error::Error;

/// Invocations a workgroup (the modules' `@workgroup_size`).
const GROUP: u32 = 256;

/// Workgroups on the x axis at most (WebGPU's default limit).
const MAX_X: u32 = 65535;

impl Gpu {
    /// Encodes and submits the module named `key` (compiled from `source()` once) over
    /// `n` elements, with `params` at binding 0 and `bindings` from binding 1 on, each
    /// bound whole. The caller submits through [`crate::rig::Rig::submit`], which
    /// stamps the work.
    ///
    /// # Errors
    /// [`Error::Invalid`] if the device reported an error.
    pub(crate) fn dispatch(
        &self,
        op: &'static str,
        key: &str,
        source: impl FnOnce() -> String,
        params: &[u8],
        bindings: &[&wgpu::Buffer],
        n: u32,
    ) -> Result<(), Error> {
        if n == 0 {
            return Ok(());
        }
        let pipeline = self.pipeline(key, source);
        let pbuf = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("nxrig params"),
                contents: params,
                usage: wgpu::BufferUsages::UNIFORM,
            });
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: pbuf.as_entire_binding(),
        }];
        for (k, b) in bindings.iter().enumerate() {
            entries.push(wgpu::BindGroupEntry {
                binding: k as u32 + 1,
                resource: b.as_entire_binding(),
            });
        }
        let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(key),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        let mut enc = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            let groups = n.div_ceil(GROUP);
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
