//! A raw job: a module the user wrote whole, its operands each bound whole (binding
//! 0 their layouts, made by the caller), on the workgroups the caller gives; the
//! device's errors of it caught at its call, as a walked job's are (`job.rs`).

use super::dispatch::encode3;
use super::plan::{window, Operand, Piece};
use super::Gpu;
use crate::error::Error;
use crate::layout::Layout;

fn invalid(op: &'static str, reason: String) -> Error {
    Error::Invalid {
        op,
        reason,
        operands: String::new(),
    }
}

impl Gpu {
    /// Encodes and submits `pipeline` (its bindings laid out whatever it uses, see
    /// [`Gpu::pipeline_checked_async`]) over `ops`, each bound whole in its window
    /// (bindings 1, 2, ... in order), binding 0 `params` of their layouts counted from
    /// their windows' first elements, on `groups` workgroups (x, y, z). The caller
    /// submits through [`crate::rig::Rig::submit`].
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `op` for more operands than the device binds, more
    /// workgroups on an axis than it dispatches, an operand that does not fit one
    /// binding (it lies in two buffers of its memory, or past
    /// `maxStorageBufferBindingSize`), or `params`' reason; [`Error::Device`] for what
    /// the device reported (natively [`crate::rig::Rig::submit`] catches it at the
    /// call); [`Error::Lost`].
    pub(crate) fn run_raw(
        &self,
        op: &'static str,
        key: &str,
        pipeline: &wgpu::ComputePipeline,
        ops: &[Operand<'_>],
        params: impl Fn(&[Layout]) -> Result<Vec<u8>, String>,
        groups: [u32; 3],
    ) -> Result<(), Error> {
        let limits = self.limits();
        let most = limits.max_storage_buffers_per_shader_stage as usize;
        if ops.len() > most {
            return Err(invalid(
                op,
                format!(
                    "{} operands; the device binds at most {most} storage buffers a kernel",
                    ops.len()
                ),
            ));
        }
        let axis = limits.max_compute_workgroups_per_dimension;
        if groups.iter().any(|&g| g > axis) {
            return Err(invalid(
                op,
                format!("workgroups {groups:?}: the device dispatches at most {axis} an axis"),
            ));
        }
        let fit = self.fit();
        let mut piece = Piece {
            layouts: Vec::with_capacity(ops.len()),
            windows: Vec::with_capacity(ops.len()),
        };
        for (k, o) in ops.iter().enumerate() {
            let Some((l, w)) = window(&fit, o.mem, o.layout, o.base, o.bits) else {
                return Err(invalid(
                    op,
                    format!(
                        "operand {} does not fit one binding of this device ({} bytes at most, \
                         within one buffer of its memory): a raw kernel binds each operand whole",
                        k + 1,
                        fit.max_binding
                    ),
                ));
            };
            piece.layouts.push(l);
            piece.windows.push(w);
        }
        let p = params(&piece.layouts).map_err(|e| invalid(op, e))?;
        if groups.contains(&0) {
            return Ok(());
        }
        let p = self.buffer_with("nxrig params", &p, wgpu::BufferUsages::UNIFORM);
        let group = self.bind(key, pipeline, &p, ops, &piece, None);
        let mut enc = self.device.create_command_encoder(&Default::default());
        encode3(&mut enc, groups, pipeline, &group);
        self.queue.submit([enc.finish()]);
        self.reported(op)
    }
}
