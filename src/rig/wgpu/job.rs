//! A job of a module the runtime does not know: its pipeline compiled once a device
//! (its compiler's messages returned, not lost), its operands cut into pieces that fit
//! the device (`plan`), each piece's parameters made by the caller, its bindings (0 the
//! parameters, then each operand's window in order) and its grid (one invocation an
//! element, walked); and the device's errors of submitted work caught at its call
//! ([`Gpu::catch_errors`], natively; [`Gpu::caught_async`] everywhere).

use std::sync::Arc;

use super::dispatch::encode;
use super::gpu::lock;
use super::indirect::{Indirect, AGAIN};
use super::plan::{pieces, Operand};
use super::Gpu;
use crate::error::Error;
use crate::layout::Layout;
use crate::wgsl::{merged_rank, walk_params_n, Form, Kernel};

/// One dispatch of a piece of a job: the form of its module, the layouts its
/// parameters walk (the piece's, or those of a part of it, or of its groups of
/// elements), and the elements of those an invocation computes.
struct Dispatch {
    form: Form,
    layouts: Vec<Layout>,
    per: usize,
}

/// What the compiler said of a module: each message with its line (1-based) where it
/// gave one.
pub(crate) type Compiled = Vec<(Option<u32>, String)>;

impl Gpu {
    /// The compute pipeline of the module named `key` (entry point `main`), compiled
    /// from `source()` the first time, or what the compiler said of it; awaiting the
    /// device's word (in the browser too). `written`: its bindings laid out whether
    /// it uses them or not (binding 0 a uniform, then an operand each, written where
    /// true); `None`, as the module uses them.
    ///
    /// # Errors
    /// The compiler's messages for a module that does not compile.
    pub(crate) async fn pipeline_checked_async(
        &self,
        key: &str,
        source: impl FnOnce() -> String,
        written: Option<&[bool]>,
    ) -> Result<Arc<wgpu::ComputePipeline>, Compiled> {
        if let Some(p) = lock(&self.pipelines).get(key) {
            return Ok(p.clone());
        }
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let (module, p) = self.compiled(key, source(), written);
        if let Some(e) = scope.pop().await {
            let info = module.get_compilation_info().await;
            let mut said: Compiled = info
                .messages
                .iter()
                .filter(|m| m.message_type == wgpu::CompilationMessageType::Error)
                .map(|m| (m.location.map(|l| l.line_number), m.message.clone()))
                .collect();
            if said.is_empty() {
                said.push((None, e.to_string()));
            }
            return Err(said);
        }
        lock(&self.pipelines).insert(key.to_owned(), p.clone());
        Ok(p)
    }

    /// [`Gpu::pipeline_checked_async`], blocking (natively, where the device's word
    /// comes at once).
    ///
    /// # Errors
    /// As [`Gpu::pipeline_checked_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn pipeline_checked(
        &self,
        key: &str,
        source: impl FnOnce() -> String,
        written: Option<&[bool]>,
    ) -> Result<Arc<wgpu::ComputePipeline>, Compiled> {
        pollster::block_on(self.pipeline_checked_async(key, source, written))
    }

    /// Encodes and submits `kernel` over `ops` (its operands in order: bindings 1, 2,
    /// ...; binding 0 the walk's parameters, `wgsl::walk_params_n`): the operands
    /// cut into pieces that fit the device (`plan.rs`), each piece run in the forms
    /// its layouts allow ([`dispatches`]), each form's module compiled once a device
    /// (under [`Kernel::key`]), a contiguous form with a first pass in two passes
    /// (`indirect.rs`). The caller submits through [`crate::rig::Rig::submit`].
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `op` for more operands than the device binds, or a
    /// piece whose positions do not fit 32 bits; [`Error::Device`] for what the
    /// device reported (natively [`crate::rig::Rig::submit`] catches it at the
    /// call); [`Error::Lost`].
    pub(crate) fn run(
        &self,
        op: &'static str,
        kernel: &Kernel<'_>,
        ops: &[Operand<'_>],
    ) -> Result<(), Error> {
        let most = self.limits().max_storage_buffers_per_shader_stage as usize;
        if ops.len() > most {
            return Err(Error::Invalid {
                op,
                reason: format!(
                    "{} operands; the device binds at most {most} storage buffers a kernel",
                    ops.len()
                ),
                operands: String::new(),
            });
        }
        if ops[0].layout.numel() == 0 {
            return Ok(());
        }
        let key = kernel.key();
        let pieces = pieces(op, &self.fit(), ops)?;
        let mut enc = self.device.create_command_encoder(&Default::default());
        for piece in &pieces {
            for d in dispatches(kernel, &piece.layouts) {
                let walk: Vec<(&Layout, usize)> = d.layouts.iter().map(|l| (l, 0)).collect();
                let Some(p) = walk_params_n(&walk) else {
                    return Err(Error::Invalid {
                        op,
                        reason: "a piece's positions do not fit 32 bits".into(),
                        operands: String::new(),
                    });
                };
                let p = self.buffer_with("nxrig params", &p, wgpu::BufferUsages::UNIFORM);
                let pipeline = self.form_pipeline(&key, kernel, d.form);
                let group = self.bind(&key, &pipeline, &p, ops, piece, None);
                let contiguous = matches!(d.form, Form::Contiguous { .. });
                let grid = self.grid(d.layouts[0].numel() / d.per, contiguous);
                let (Form::Contiguous { at_zero }, true) = (d.form, kernel.has_first()) else {
                    encode(&mut enc, grid, &pipeline, &group);
                    continue;
                };
                let first = self.form_pipeline(&key, kernel, Form::First { at_zero });
                let ind = Indirect::of(&self.indirect, &self.device);
                let fg = self.bind(&key, &first, &p, ops, piece, Some(&ind.flag));
                encode(&mut enc, grid, &first, &fg);
                let again = self.pipeline("two passes: again", || AGAIN.to_owned());
                let xy = self.buffer_with(
                    "nxrig groups",
                    bytemuck::cast_slice(&[grid.0, grid.1, 0, 0]),
                    wgpu::BufferUsages::UNIFORM,
                );
                ind.encode_again(&self.device, &mut enc, (&again, &xy), &pipeline, &group);
            }
        }
        self.queue.submit([enc.finish()]);
        self.reported(op)
    }

    /// The pipeline of `kernel`'s `form`, compiled the first time.
    fn form_pipeline(
        &self,
        key: &str,
        kernel: &Kernel<'_>,
        form: Form,
    ) -> Arc<wgpu::ComputePipeline> {
        self.pipeline(&form_key(key, form), || kernel.module(form))
    }
}

/// The name `form`'s pipeline of the kernel of `key` is kept under.
pub(crate) fn form_key(key: &str, form: Form) -> String {
    format!("{key} {form:?}")
}

/// The dispatches of a piece whose operands have layouts `ls`: where every operand
/// is C-contiguous from a multiple of the contiguous form's group, its whole groups
/// in that form and the rest (fewer than a group) as any other piece; that, in the
/// packed form where every output is whole words of its own, else walked, each the
/// walk of one axis where the layouts merge into one.
fn dispatches(k: &Kernel<'_>, ls: &[Layout]) -> Vec<Dispatch> {
    let group = k.group_len();
    let n = ls[0].numel();
    let contiguous = n >= group
        && ls
            .iter()
            .all(|l| l.is_contiguous() && l.offset().is_multiple_of(group));
    if !contiguous {
        return vec![walked(k, ls.to_vec())];
    }
    let line = |len: usize, at: usize, div: usize| -> Vec<Layout> {
        ls.iter()
            .map(|l| {
                Layout::new(&[len], &[1], (l.offset() + at) / div)
                    .expect("a part of a contiguous layout")
            })
            .collect()
    };
    let layouts = line(n / group, 0, group);
    let at_zero = layouts.iter().all(|l| l.offset() == 0);
    let mut v = vec![Dispatch {
        form: Form::Contiguous { at_zero },
        layouts,
        per: 1,
    }];
    if !n.is_multiple_of(group) {
        v.push(walked(k, line(n % group, n - n % group, 1)));
    }
    v
}

/// The dispatch of layouts `ls` walked: packed where every output is whole words of
/// its own, on one axis where the layouts merge into one.
fn walked(k: &Kernel<'_>, ls: Vec<Layout>) -> Dispatch {
    let packed = k.packed_len().filter(|&per| {
        ls[k.inputs()..]
            .iter()
            .all(|l| l.is_contiguous() && l.offset() % per == 0 && l.numel() % per == 0)
    });
    let one_axis = merged_rank(&ls) <= 1;
    match packed {
        Some(per) => Dispatch {
            form: Form::Packed { one_axis },
            layouts: ls,
            per,
        },
        None => Dispatch {
            form: Form::Walked { one_axis },
            layouts: ls,
            per: 1,
        },
    }
}

impl Gpu {
    /// `work()`, with what the device reports of it (validation, out of memory,
    /// internal errors) returned as [`Error::Device`] naming `op` (natively, through
    /// error scopes; in the browser the device reports later, to its handler).
    ///
    /// # Errors
    /// `work`'s own error first; then the device's, or [`Error::Lost`] once it is lost.
    pub(crate) fn catch_errors(
        &self,
        op: &'static str,
        work: &mut dyn FnMut() -> Result<(), Error>,
    ) -> Result<(), Error> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            use wgpu::ErrorFilter as F;
            let v = self.device.push_error_scope(F::Validation);
            let m = self.device.push_error_scope(F::OutOfMemory);
            let i = self.device.push_error_scope(F::Internal);
            let r = work();
            // Innermost first.
            let said = [i.pop(), m.pop(), v.pop()].map(pollster::block_on);
            r?;
            if self.timeline.is_lost() {
                return Err(self.lost(op));
            }
            if let Some(e) = said.into_iter().flatten().next() {
                let oom = matches!(e, wgpu::Error::OutOfMemory { .. });
                return Err(self.device_error(op, oom, e.to_string()));
            }
            Ok(())
        }
        #[cfg(target_arch = "wasm32")]
        {
            let _ = op;
            work()
        }
    }
}

impl Gpu {
    /// `work()`, then what the device reported of it (validation and out-of-memory
    /// errors), awaited: in the browser too.
    ///
    /// # Errors
    /// `work`'s own error first; then [`Error::Device`] naming `op`, or
    /// [`Error::Lost`] once the device is lost.
    pub(crate) async fn caught_async<R>(
        &self,
        op: &'static str,
        work: impl FnOnce() -> Result<R, Error>,
    ) -> Result<R, Error> {
        use wgpu::ErrorFilter as F;
        let v = self.device.push_error_scope(F::Validation);
        let m = self.device.push_error_scope(F::OutOfMemory);
        let r = work();
        let (oom, invalid) = (m.pop().await, v.pop().await);
        let r = r?;
        if self.timeline.is_lost() {
            return Err(self.lost(op));
        }
        match (oom, invalid) {
            (Some(e), _) => Err(self.device_error(op, true, e.to_string())),
            (None, Some(e)) => Err(self.device_error(op, false, e.to_string())),
            (None, None) => Ok(r),
        }
    }
}
