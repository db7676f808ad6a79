//! Raw kernels: a whole WGSL module of the user's own over named operands, nxrig
//! making each operand's binding, its `load_<name>(i)` or `store_<name>(i, v)` (the
//! element `i` of its shape in C order, decoded from its dtype into the compute type
//! or rounded once into it) and `numel_<name>()`, the user giving the entry point
//! `main`, its workgroup size and the workgroups of a call. The declaration is an
//! elementwise kernel's (names, dtypes, type variables, a compute type), checked the
//! same way; the operands are claimed through the door.

use super::{Compute, DTypeOrVar, Elementwise};
use crate::array::{door_with, refused, AnyArray};
use crate::error::Error;
use crate::rig::backend::Backend;
use crate::rig::wgpu::Gpu;
use crate::wgsl::{compute_type, raw_module, raw_params, Generated, RAW_AXES};

const CALL: &str = "RawKernel::call";

/// A raw kernel: a whole WGSL module (its entry point `main` and workgroup size its
/// own) over named operands of a dtype or of a type variable they share, computing in
/// `C` (`f32`, `i32` or `u32`). Before the module nxrig puts, for each input `x`,
/// `fn load_x(i: u32) -> C` and, for each output `z`, `fn store_z(i: u32, v: C)`:
/// element `i` of the operand in C order of its own shape, through its layout
/// (strides, broadcast, flips, offsets, sub-byte elements at odd positions), decoded
/// exactly or rounded once into its dtype (sub-word stores never change a neighbour);
/// and `fn numel_x() -> u32`. An index at or past `numel` loads 0 and stores nothing.
/// Bindings are nxrig's (group 0: binding 0 the layouts, then each operand in order);
/// the module declares none of its own. GPUs through wgpu only.
///
/// ```no_run
/// use nxrig::kernels::RawKernel;
/// use nxrig::{AnyArray, DType, Rig};
///
/// // z[i] = x[n - 1 - i] * 2: a reversal, which no elementwise kernel is.
/// let k = RawKernel::<f32>::new("reverse2").input("x", "T").output("z", "T").wgsl(
///     "@compute @workgroup_size(64)
///      fn main(@builtin(global_invocation_id) id: vec3<u32>) {
///          store_z(id.x, load_x(numel_x() - 1u - id.x) * 2.0);
///      }",
/// );
/// let gpu = Rig::by_name("gpu")?;
/// let x = AnyArray::of_bits(DType::Bfloat16, &[1000], &[0x3f80; 1000])?.to_device(&gpu)?;
/// let z = AnyArray::create(&gpu, DType::Bfloat16, &[1000])?;
/// k.call(&[&x], &[&z], [1000u32.div_ceil(64), 1, 1])?;
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RawKernel<C: Compute> {
    decl: Elementwise<C>,
}

impl<C: Compute> RawKernel<C> {
    /// A raw kernel named `name` (in its errors and its pipelines' labels), computing
    /// in `C`, with no operand and no module yet.
    pub fn new(name: &str) -> RawKernel<C> {
        RawKernel {
            decl: Elementwise::new(name),
        }
    }

    /// An input named `name` (a WGSL identifier, not starting `nx_`) of `ty`.
    #[must_use]
    pub fn input(self, name: &str, ty: impl Into<DTypeOrVar>) -> Self {
        RawKernel {
            decl: self.decl.input(name, ty),
        }
    }

    /// An output named `name` of `ty` (a type variable an input binds).
    #[must_use]
    pub fn output(self, name: &str, ty: impl Into<DTypeOrVar>) -> Self {
        RawKernel {
            decl: self.decl.output(name, ty),
        }
    }

    /// The module: WGSL with a compute entry point `main`, calling the operands'
    /// `load_`, `store_` and `numel_` functions.
    #[must_use]
    pub fn wgsl(self, module: &str) -> Self {
        RawKernel {
            decl: self.decl.wgsl(module),
        }
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        self.decl.name()
    }

    /// Runs the module on `workgroups` (x, y, z) over `inputs` and `outputs` (each in
    /// declaration order, any shapes and layouts, on one GPU), the outputs written in
    /// place. An input sharing an output's memory is read as it was before the call.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `RawKernel::call` and the kernel: a declaration that
    /// is not valid (as [`Elementwise::call`] says), counts or dtypes other than
    /// declared, operands on two devices or on a device other than a GPU through wgpu,
    /// no module, a module that does not compile (the compiler's message and the
    /// module's line), more workgroups on an axis than the device dispatches, an
    /// operand that does not fit one binding of the device or has more than 16 axes
    /// that do not merge, the door's refusals (an output that admits only reads,
    /// reaches an element twice, or shares bytes with another operand);
    /// [`Error::Device`] for what the device reported of the work.
    pub fn call(
        &self,
        inputs: &[&AnyArray],
        outputs: &[&AnyArray],
        workgroups: [u32; 3],
    ) -> Result<(), Error> {
        let (g, p) = self.prepared(inputs, outputs)?;
        let written = self.written(inputs.len(), outputs.len());
        #[cfg(not(target_arch = "wasm32"))]
        let pipeline = g
            .pipeline_checked(&p.1, || p.0.module.clone(), Some(&written))
            .map_err(|said| self.not_compiled(&p.0, said))?;
        // In the browser the compiler's word comes later: call_async awaits it.
        #[cfg(target_arch = "wasm32")]
        let pipeline = g.pipeline_laid(&p.1, || p.0.module.clone(), Some(&written));
        self.through_door(g, &p.1, &pipeline, inputs, outputs, workgroups)
    }

    /// [`RawKernel::call`], awaiting the compiler's and the device's word: in the
    /// browser a module that does not compile, or work the device refuses, is this
    /// call's error (natively [`RawKernel::call`] says so too).
    ///
    /// # Errors
    /// As [`RawKernel::call`].
    pub async fn call_async(
        &self,
        inputs: &[&AnyArray],
        outputs: &[&AnyArray],
        workgroups: [u32; 3],
    ) -> Result<(), Error> {
        let (g, p) = self.prepared(inputs, outputs)?;
        let written = self.written(inputs.len(), outputs.len());
        let pipeline = g
            .pipeline_checked_async(&p.1, || p.0.module.clone(), Some(&written))
            .await
            .map_err(|said| self.not_compiled(&p.0, said))?;
        g.caught_async(CALL, || {
            self.through_door(g, &p.1, &pipeline, inputs, outputs, workgroups)
        })
        .await
    }

    /// Which operands are written: the outputs, after the inputs.
    fn written(&self, inputs: usize, outputs: usize) -> Vec<bool> {
        (0..inputs + outputs).map(|k| k >= inputs).collect()
    }

    /// The operands checked, their GPU, and the module for their dtypes with its
    /// pipeline's name.
    fn prepared<'a>(
        &self,
        inputs: &[&AnyArray],
        outputs: &[&'a AnyArray],
    ) -> Result<(&'a Gpu, (Generated, String)), Error> {
        let d = &self.decl;
        let dtypes = d.checked(CALL, inputs, Some(outputs))?;
        let rig = outputs[0].rig();
        let Backend::Wgpu(g) = rig.backend() else {
            let on = rig.name();
            return Err(d.refusal(
                CALL,
                format!("a raw kernel runs on GPUs through wgpu, and its operands are on {on}"),
                &[],
            ));
        };
        let Some(module) = d.wgsl.as_deref() else {
            return Err(d.refusal(CALL, "it has no WGSL module".into(), &[]));
        };
        if compute_type(C::DTYPE).is_none() {
            return Err(d.refusal(
                CALL,
                format!(
                    "it computes in {}, which WGSL cannot (f32, i32 or u32)",
                    C::DTYPE
                ),
                &[],
            ));
        }
        let slots = d.slots(inputs.iter().map(|a| a.dtype()).chain(dtypes));
        let generated =
            raw_module(&slots, C::DTYPE, module).map_err(|e| d.refusal(CALL, e, &[]))?;
        let key = d.key("raw", &generated.module);
        Ok((g, (generated, key)))
    }

    /// The refusal of a module that does not compile: each message at the module's
    /// line.
    fn not_compiled(&self, g: &Generated, said: Vec<(Option<u32>, String)>) -> Error {
        let lines: Vec<String> = said
            .iter()
            .map(
                |(line, m)| match line.and_then(|l| l.checked_sub(g.body_line)) {
                    Some(l) => format!("line {} of the WGSL module: {m}", l + 1),
                    None => format!("in the code nxrig made before the WGSL module: {m}"),
                },
            )
            .collect();
        self.decl.refusal(
            CALL,
            format!("its WGSL does not compile: {}", lines.join("; ")),
            &[],
        )
    }

    /// The door around the module's work.
    fn through_door(
        &self,
        g: &Gpu,
        key: &str,
        pipeline: &wgpu::ComputePipeline,
        inputs: &[&AnyArray],
        outputs: &[&AnyArray],
        groups: [u32; 3],
    ) -> Result<(), Error> {
        let work = || -> Result<(), Error> {
            let rig = outputs[0].rig();
            // An input over an output's memory is read from a copy.
            let read = inputs
                .iter()
                .map(|a| crate::kernels::wgpu::apart(a, outputs))
                .collect::<Result<Vec<_>, _>>()?;
            let ops = crate::kernels::wgpu::operands(&read, outputs, CALL)?;
            let reads: Vec<_> = read.iter().map(|a| a.buffer()).collect();
            let writes: Vec<_> = outputs.iter().map(|a| a.buffer()).collect();
            rig.submit_as(CALL, &reads, &writes, || {
                let params = |ls: &[crate::layout::Layout]| {
                    raw_params(ls).ok_or_else(|| {
                        format!(
                            "an operand has more than {RAW_AXES} axes that do not merge, or \
                             positions past 32 bits"
                        )
                    })
                };
                g.run_raw(CALL, key, pipeline, &ops, params, groups)
            })?;
            Ok(())
        };
        let shown: Vec<&AnyArray> = inputs.iter().chain(outputs).copied().collect();
        door_with(CALL, outputs, inputs, work, |a| refused(CALL, a, &shown))
            .map_err(|e| self.decl.named(e))
    }
}
