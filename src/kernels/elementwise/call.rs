//! The front door of an elementwise kernel: its declaration and the arrays checked
//! (counts, dtypes and type variables, one device, shapes broadcast), outputs made
//! (the broadcast shape, C order, on the inputs' device) or given, every operand
//! claimed through the door, then the body of the device's backend.

use std::collections::HashMap;

use super::{Compute, DTypeOrVar, Elementwise, HostBody};
use crate::array::{described, door_with, refused, AnyArray};
use crate::dtype::DType;
use crate::error::Error;
use crate::kernels::broadcast::{broadcast, broadcast_shape};
use crate::rig::backend::Backend;
use crate::wgsl::MAX_BOUND;

const CALL: &str = "Elementwise::call";

/// The arrays' dtypes.
pub(super) fn dtypes_of(arrays: &[&AnyArray]) -> Vec<DType> {
    arrays.iter().map(|a| a.dtype()).collect()
}
const CALL_INTO: &str = "Elementwise::call_into";
pub(super) const CALL_DONATED: &str = "Elementwise::call_donated";

/// WGSL's keywords and its scalar types' names, which no operand may take (the module
/// around the body names its values' types).
const KEYWORDS: [&str; 31] = [
    "alias",
    "bool",
    "break",
    "case",
    "const",
    "const_assert",
    "continue",
    "continuing",
    "default",
    "diagnostic",
    "discard",
    "else",
    "enable",
    "f16",
    "f32",
    "false",
    "fn",
    "for",
    "i32",
    "if",
    "let",
    "loop",
    "override",
    "requires",
    "return",
    "struct",
    "switch",
    "true",
    "u32",
    "var",
    "while",
];

impl<C: Compute> Elementwise<C> {
    /// Runs the kernel over `inputs` (in declaration order) into fresh outputs: C
    /// order, of the inputs' broadcast shape (NumPy's rule), on their device, each of
    /// its declared dtype. Returns the outputs in declaration order.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `Elementwise::call` and the kernel: a declaration that
    /// is not valid (an operand name that is not a WGSL identifier, starts `nx_` or is
    /// repeated; no output; more than 8 operands; an output's type variable no input
    /// binds), a count of inputs other than declared, an input of another dtype than
    /// declared or bound, inputs on two devices or whose shapes do not broadcast, no
    /// body for the device, a WGSL body that does not compile (the compiler's message
    /// and the body's line), the door's refusals; [`Error::Device`] for what the device
    /// reported of the work; what [`AnyArray::create`] returns.
    pub fn call(&self, inputs: &[&AnyArray]) -> Result<Vec<AnyArray>, Error> {
        let outs = self.made(CALL, inputs)?;
        self.run(CALL, inputs, &outs.iter().collect::<Vec<_>>())?;
        Ok(outs)
    }

    /// Runs the kernel over `inputs` into `outputs` (each in declaration order), written
    /// in place, whatever their layouts: the outputs of one shape, to which every input
    /// broadcasts. An output may be identical to an input (the kernel then reads each
    /// element before it writes it).
    ///
    /// # Errors
    /// As [`Elementwise::call`], naming `Elementwise::call_into`; an output of another
    /// shape or dtype than the others or than declared; the door's refusals (an output
    /// that admits only reads, reaches an element twice, or shares bytes with another
    /// operand without being identical to it).
    pub fn call_into(&self, inputs: &[&AnyArray], outputs: &[&AnyArray]) -> Result<(), Error> {
        self.checked_into(inputs, outputs)?;
        self.run(CALL_INTO, inputs, outputs)
    }

    /// `e` naming the kernel where it is [`Error::Invalid`].
    pub(super) fn named(&self, e: Error) -> Error {
        match e {
            Error::Invalid {
                op,
                reason,
                operands,
            } => Error::Invalid {
                op,
                reason: format!("kernel {:?}: {reason}", self.name),
                operands,
            },
            e => e,
        }
    }

    /// [`Elementwise::call`], awaiting the compiler's and the device's word: in the
    /// browser a WGSL body that does not compile, or work the device refuses, is this
    /// call's error (natively [`Elementwise::call`] says so too).
    ///
    /// # Errors
    /// As [`Elementwise::call`].
    pub async fn call_async(&self, inputs: &[&AnyArray]) -> Result<Vec<AnyArray>, Error> {
        let outs = self.made(CALL, inputs)?;
        self.run_async(CALL, inputs, &outs.iter().collect::<Vec<_>>())
            .await?;
        Ok(outs)
    }

    /// [`Elementwise::call_into`], awaiting the compiler's and the device's word.
    ///
    /// # Errors
    /// As [`Elementwise::call_into`].
    pub async fn call_into_async(
        &self,
        inputs: &[&AnyArray],
        outputs: &[&AnyArray],
    ) -> Result<(), Error> {
        self.checked_into(inputs, outputs)?;
        self.run_async(CALL_INTO, inputs, outputs).await
    }

    /// Fresh outputs for `inputs`, checked.
    pub(super) fn made(
        &self,
        op: &'static str,
        inputs: &[&AnyArray],
    ) -> Result<Vec<AnyArray>, Error> {
        let (dtypes, shape) = self.planned(op, inputs)?;
        let rig = inputs[0].rig();
        dtypes
            .iter()
            .map(|&d| AnyArray::create_to_fill(rig, d, &shape).map_err(|e| e.called(op)))
            .collect()
    }

    /// The outputs' dtypes and shape (the inputs' broadcast), the arrays checked.
    pub(super) fn planned(
        &self,
        op: &'static str,
        inputs: &[&AnyArray],
    ) -> Result<(Vec<DType>, Vec<usize>), Error> {
        let dtypes = self.checked(op, inputs, None)?;
        let shape = inputs
            .iter()
            .try_fold(Vec::new(), |s, a| broadcast_shape(&s, a.shape()))
            .ok_or_else(|| {
                self.refusal(op, "the inputs' shapes do not broadcast".into(), inputs)
            })?;
        Ok((dtypes, shape))
    }

    /// `Err` naming `op` and the kernel, `reason` with the arrays given.
    pub(super) fn refusal(&self, op: &'static str, reason: String, shown: &[&AnyArray]) -> Error {
        Error::Invalid {
            op,
            reason: format!("kernel {:?}: {reason}", self.name),
            operands: described(shown),
        }
    }

    /// The declaration and the arrays checked; the outputs' dtypes.
    pub(super) fn checked(
        &self,
        op: &'static str,
        inputs: &[&AnyArray],
        outputs: Option<&[&AnyArray]>,
    ) -> Result<Vec<DType>, Error> {
        let all: Vec<&AnyArray> = inputs
            .iter()
            .chain(outputs.unwrap_or(&[]))
            .copied()
            .collect();
        let no = |reason: String| self.refusal(op, reason, &all);
        self.declared().map_err(&no)?;
        if inputs.len() != self.inputs.len() {
            return Err(no(format!(
                "{} inputs given, {} declared",
                inputs.len(),
                self.inputs.len()
            )));
        }
        if let Some(o) = outputs {
            if o.len() != self.outputs.len() {
                return Err(no(format!(
                    "{} outputs given, {} declared",
                    o.len(),
                    self.outputs.len()
                )));
            }
        }
        let mut bound: HashMap<&str, DType> = HashMap::new();
        for ((name, ty), a) in self.inputs.iter().zip(inputs) {
            let want = match ty {
                DTypeOrVar::Of(d) => *d,
                DTypeOrVar::Var(v) => *bound.entry(v).or_insert(a.dtype()),
            };
            if a.dtype() != want {
                return Err(no(format!(
                    "input {name} is {}, declared {}",
                    a.dtype(),
                    shown(ty, want)
                )));
            }
        }
        let dtypes = self
            .outputs
            .iter()
            .map(|(_, ty)| match ty {
                DTypeOrVar::Of(d) => *d,
                DTypeOrVar::Var(v) => bound[v.as_str()],
            })
            .collect::<Vec<_>>();
        if all.is_empty() {
            return Err(no(
                "it reads no input, so its outputs must be given (their shape and device are the call's)"
                    .into(),
            ));
        }
        if let Some(reason) = crate::kernels::several_devices(&all) {
            return Err(no(reason));
        }
        if let Some(o) = outputs {
            for (((name, ty), a), &d) in self.outputs.iter().zip(o).zip(&dtypes) {
                if a.dtype() != d {
                    return Err(no(format!(
                        "output {name} is {}, declared {}",
                        a.dtype(),
                        shown(ty, d)
                    )));
                }
            }
        }
        Ok(dtypes)
    }

    /// [`Elementwise::checked`] for given outputs, which share one shape.
    fn checked_into(&self, inputs: &[&AnyArray], outputs: &[&AnyArray]) -> Result<(), Error> {
        self.checked(CALL_INTO, inputs, Some(outputs))?;
        if outputs.iter().any(|a| a.shape() != outputs[0].shape()) {
            let all: Vec<&AnyArray> = inputs.iter().chain(outputs).copied().collect();
            return Err(self.refusal(CALL_INTO, "the outputs' shapes differ".into(), &all));
        }
        Ok(())
    }

    /// `Err` with why where the declaration is not one nxrig runs.
    pub(crate) fn declared(&self) -> Result<(), String> {
        let names: Vec<&str> = self
            .inputs
            .iter()
            .chain(&self.outputs)
            .map(|(n, _)| n.as_str())
            .collect();
        if self.outputs.is_empty() {
            return Err("it declares no output".into());
        }
        if names.len() > MAX_BOUND {
            return Err(format!(
                "it declares {} operands; at most {MAX_BOUND}",
                names.len()
            ));
        }
        for (k, n) in names.iter().enumerate() {
            let ident = n
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && *n != "_";
            if !ident || n.starts_with("nx_") || KEYWORDS.contains(n) {
                return Err(format!("operand name {n:?} is not a WGSL identifier of the user's (letters, digits, _; not starting nx_; no keyword)"));
            }
            if names[..k].contains(n) {
                return Err(format!("operand name {n:?} is declared twice"));
            }
        }
        for n in &self.donated {
            if !self.inputs.iter().any(|(i, _)| i == n) {
                return Err(format!("it donates {n:?}, which it declares as no input"));
            }
        }
        for (n, ty) in self.inputs.iter().chain(&self.outputs) {
            if let DTypeOrVar::Var(v) = ty {
                let capital = v.chars().next().is_some_and(|c| c.is_ascii_uppercase());
                if !capital || !v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return Err(format!(
                        "operand {n}'s type {v:?} is neither a dtype nor a type variable (a capital letter, then letters, digits or _, as T)"
                    ));
                }
            }
        }
        for (n, ty) in &self.outputs {
            if let DTypeOrVar::Var(v) = ty {
                if !self.inputs.iter().any(|(_, t)| t == ty) {
                    return Err(format!(
                        "output {n}'s type variable {v} is bound by no input"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The inputs broadcast to the outputs' shape.
    pub(super) fn viewed(
        &self,
        op: &'static str,
        inputs: &[&AnyArray],
        shape: &[usize],
    ) -> Result<Vec<AnyArray>, Error> {
        let mut viewed = Vec::with_capacity(inputs.len());
        for (a, (name, _)) in inputs.iter().zip(&self.inputs) {
            match broadcast(a, shape)? {
                Some(b) => viewed.push(b),
                None => {
                    return Err(self.refusal(
                        op,
                        format!(
                            "input {name} of shape {:?} does not broadcast to {shape:?}",
                            a.shape()
                        ),
                        &[a],
                    ))
                }
            }
        }
        Ok(viewed)
    }

    /// The body of the operands' device, `Err` where the kernel has none.
    pub(super) fn body<'a>(
        &'a self,
        op: &'static str,
        rig: &'a crate::Rig,
    ) -> Result<Body<'a, C>, Error> {
        let missing = |body: &str| {
            self.refusal(
                op,
                format!(
                    "it has no {body} body, and its operands are on {}",
                    rig.name()
                ),
                &[],
            )
        };
        match rig.backend() {
            Backend::Host(_) => Ok(Body::Host(
                self.host.as_deref().ok_or_else(|| missing("host"))?,
            )),
            Backend::Wgpu(g) => Ok(Body::Wgpu(
                g,
                self.wgsl.as_deref().ok_or_else(|| missing("WGSL"))?,
            )),
            #[cfg(feature = "cuda")]
            Backend::Cuda(c) => Ok(Body::Cuda(
                &c.0,
                self.cuda.as_deref().ok_or_else(|| missing("CUDA"))?,
            )),
        }
    }

    /// The outputs written with the inputs broadcast to their shape, through the door:
    /// a GPU's pipeline compiled first.
    pub(super) fn run(
        &self,
        op: &'static str,
        inputs: &[&AnyArray],
        outputs: &[&AnyArray],
    ) -> Result<(), Error> {
        let viewed = self.viewed(op, inputs, outputs[0].shape())?;
        let body = self.body(op, outputs[0].rig())?;
        let compiled = match body {
            Body::Wgpu(g, wgsl) => {
                let p = super::wgpu::prepare(self, wgsl, &viewed, &dtypes_of(outputs), op)
                    .map_err(|e| self.named(e))?;
                super::wgpu::compile(g, &p, op).map_err(|e| self.named(e))?;
                Some(p)
            }
            _ => None,
        };
        self.through_door(op, inputs, &viewed, outputs, &body, compiled.as_ref())
    }

    /// [`Elementwise::run`], awaiting the compiler's and the device's word.
    pub(super) async fn run_async(
        &self,
        op: &'static str,
        inputs: &[&AnyArray],
        outputs: &[&AnyArray],
    ) -> Result<(), Error> {
        let viewed = self.viewed(op, inputs, outputs[0].shape())?;
        let body = self.body(op, outputs[0].rig())?;
        match body {
            Body::Wgpu(g, wgsl) => {
                let p = super::wgpu::prepare(self, wgsl, &viewed, &dtypes_of(outputs), op)
                    .map_err(|e| self.named(e))?;
                super::wgpu::compile_async(g, &p, op)
                    .await
                    .map_err(|e| self.named(e))?;
                let compiled = Some(p);
                g.caught_async(op, || {
                    self.through_door(op, inputs, &viewed, outputs, &body, compiled.as_ref())
                })
                .await
            }
            _ => self.through_door(op, inputs, &viewed, outputs, &body, None),
        }
    }

    /// The door around the body's work.
    fn through_door(
        &self,
        op: &'static str,
        inputs: &[&AnyArray],
        viewed: &[AnyArray],
        outputs: &[&AnyArray],
        body: &Body<'_, C>,
        compiled: Option<&Compiled<'_>>,
    ) -> Result<(), Error> {
        let read: Vec<&AnyArray> = viewed.iter().collect();
        let work = || match (body, compiled) {
            (Body::Host(f), _) => super::host::run(*f, viewed, outputs, op),
            (Body::Wgpu(g, _), Some(p)) => {
                super::wgpu::run(g, p, viewed, outputs, op).map_err(|e| self.named(e))
            }
            (Body::Wgpu(..), None) => unreachable!("nxrig bug: a GPU body run uncompiled"),
            #[cfg(feature = "cuda")]
            (Body::Cuda(c, body), _) => {
                super::cuda::run(self, c, body, viewed, outputs, op).map_err(|e| self.named(e))
            }
        };
        let shown: Vec<&AnyArray> = inputs.iter().chain(outputs).copied().collect();
        door_with(op, outputs, &read, work, |a| {
            self.named(refused(op, a, &shown))
        })
    }
}

/// A GPU body's modules, the walked form's compiled (the body checked).
type Compiled<'a> = super::wgpu::Prepared<'a>;

/// The body a kernel runs on a device.
pub(super) enum Body<'a, C: Compute> {
    Host(&'a HostBody<C>),
    Wgpu(&'a crate::rig::wgpu::Gpu, &'a str),
    #[cfg(feature = "cuda")]
    Cuda(&'a std::sync::Arc<crate::rig::cuda::Cuda>, &'a str),
}

/// A declared type as the user wrote it, with what it is.
fn shown(ty: &DTypeOrVar, d: DType) -> String {
    match ty {
        DTypeOrVar::Of(d) => d.to_string(),
        DTypeOrVar::Var(v) => format!("{v} = {d}"),
    }
}
