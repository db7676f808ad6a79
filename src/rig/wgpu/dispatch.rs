//! Running a kernel over its operands, in named steps: plan the jobs (the pieces that
//! fit the device, `plan`, each in its form), choose each job's pipeline, bind its
//! parameters (binding 0, a uniform) and its operands' windows, size its grid (one
//! invocation an element, or four words' in the contiguous form), and encode it, in one pass
//! or, for a kernel with a first pass, in two with the indirect pass between
//! (`indirect`). All the jobs go in one submission.

use std::num::NonZeroU64;

use super::indirect::Indirect;
use super::plan::{pieces, Operand, Piece};
use super::program::{form_key, Form, Program};
use super::Gpu;
use crate::error::Error;
use crate::layout::Layout;
use crate::wgsl::{add_module_f32_again, walk_params, walk_params3};

/// Invocations a workgroup (the modules' `@workgroup_size`).
const GROUP: u32 = 256;

/// Elements an invocation handles (the modules loop over the grid's stride).
const PER: u32 = 8;

/// Workgroups a dispatch has at most on a CPU adapter where [`Gpu::cap_groups`]
/// says so: a few for each of its threads, which the grid-stride loops keep busy.
const CPU_GROUPS: u32 = 128;

/// Workgroups on the x axis at most (WebGPU's default limit).
const MAX_X: u32 = 65535;

/// One dispatch: a piece's layouts (in elements of the form), in a form.
struct Job<'p> {
    form: Form,
    layouts: Vec<Layout>,
    piece: &'p Piece,
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

    /// Encodes and submits `program` over `ops` (two: source, destination; or three:
    /// source, destination, second source, in the order of bindings 1, 2, 3), one
    /// invocation an element of their shared shape; each form's pipeline compiled once
    /// a device. The caller submits through [`crate::rig::Rig::submit`], which stamps
    /// the work.
    ///
    /// # Errors
    /// [`Error::Device`] if the device reported an error; [`Error::Lost`] once it is lost.
    pub(crate) fn run(
        &self,
        op: &'static str,
        program: &dyn Program,
        ops: &[Operand<'_>],
    ) -> Result<(), Error> {
        if ops[0].layout.numel() == 0 {
            return Ok(());
        }
        let pieces = pieces(op, &self.fit(), ops)?;
        let jobs = jobs(program, ops, &pieces)?;
        let key = program.key();
        let mut enc = self.device.create_command_encoder(&Default::default());
        for job in &jobs {
            let pipeline = self.pipeline(&form_key(program, job.form), || program.module(job.form));
            let params = params(&job.layouts);
            let params = self.buffer_with("nxrig params", &params, wgpu::BufferUsages::UNIFORM);
            let group = self.bind(&key, &pipeline, &params, ops, job.piece, None);
            let grid = self.grid(job.layouts[0].numel(), job.form);
            match program.first_pass(job.form) {
                Some((name, wgsl)) => {
                    let first = self.pipeline(&name, || wgsl);
                    let ind = Indirect::of(&self.indirect, &self.device);
                    let fg = self.bind(&key, &first, &params, ops, job.piece, Some(&ind.flag));
                    encode(&mut enc, grid, &first, &fg);
                    let again = self.pipeline("two passes: again", add_module_f32_again);
                    let xy = self.buffer_with(
                        "nxrig groups",
                        bytemuck::cast_slice(&[grid.0, grid.1, 0, 0]),
                        wgpu::BufferUsages::UNIFORM,
                    );
                    ind.encode_again(&self.device, &mut enc, (&again, &xy), &pipeline, &group);
                }
                None => encode(&mut enc, grid, &pipeline, &group),
            }
        }
        self.queue.submit([enc.finish()]);
        self.reported(op)
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

    /// The workgroups (x, y) of a job of `n` invocations' elements in `form`.
    pub(super) fn grid(&self, n: usize, form: Form) -> (u32, u32) {
        let mut groups = (n as u32).div_ceil(GROUP * PER);
        if self.cap_groups(matches!(form, Form::Flat4 { .. })) {
            groups = groups.min(CPU_GROUPS);
        }
        if groups > MAX_X {
            (MAX_X, groups.div_ceil(MAX_X))
        } else {
            (groups, 1)
        }
    }
}

/// The jobs of `program` over `pieces`: a piece whose operands are all of one width
/// of 8, 16 or 32 bits and C-contiguous from offsets that are multiples of a 16-byte
/// group's elements, of a program with the contiguous form, runs its whole groups in
/// that form and the rest (fewer than a group) walked; every other piece is walked.
fn jobs<'p>(
    program: &dyn Program,
    ops: &[Operand<'_>],
    pieces: &'p [Piece],
) -> Result<Vec<Job<'p>>, Error> {
    let bits = ops[0].bits;
    let words =
        program.has_flat4() && matches!(bits, 8 | 16 | 32) && ops.iter().all(|o| o.bits == bits);
    // Elements a group of 4 words.
    let per = (4 * 32 / bits.max(1)) as usize;
    let mut jobs = Vec::with_capacity(pieces.len());
    for p in pieces {
        let flat = words
            && p.layouts
                .iter()
                .all(|l| l.is_contiguous() && l.offset() % per == 0);
        if !flat {
            jobs.push(Job {
                form: Form::Walked,
                layouts: p.layouts.clone(),
                piece: p,
            });
            continue;
        }
        let n = p.layouts[0].numel();
        let line = |len: usize, at: usize, div: usize| -> Result<Vec<Layout>, Error> {
            p.layouts
                .iter()
                .map(|l| Layout::new(&[len], &[1], (l.offset() + at) / div))
                .collect()
        };
        if n >= per {
            let layouts = line(n / per, 0, per)?;
            let at_zero = layouts.iter().all(|x| x.offset() == 0);
            jobs.push(Job {
                form: Form::Flat4 { at_zero },
                layouts,
                piece: p,
            });
        }
        if n % per != 0 {
            jobs.push(Job {
                form: Form::Walked,
                layouts: line(n % per, n - n % per, 1)?,
                piece: p,
            });
        }
    }
    Ok(jobs)
}

/// The walk's parameters of a job's layouts (two or three).
fn params(l: &[Layout]) -> Vec<u8> {
    match l.len() {
        2 => walk_params((&l[0], 0), (&l[1], 0)),
        _ => walk_params3((&l[0], 0), (&l[1], 0), Some((&l[2], 0))),
    }
    .expect("nxrig bug: a piece's positions are past 32 bits")
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
