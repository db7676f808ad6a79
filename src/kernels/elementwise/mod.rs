//! Elementwise kernels of the user's own, declared once and run on every device:
//! named operands (inputs and outputs) of a dtype or of a type variable they share,
//! a compute type, and a body per device: WGSL statements (GPUs through wgpu), CUDA C
//! statements (CUDA devices) and a Rust closure over chunks (the host); and raw
//! kernels, a whole WGSL module over nxrig's loads and stores (`raw.rs`). nxrig
//! converts each input into the compute type as `cast` does (exactly where the
//! compute type holds its values), rounds each output once into its dtype, walks
//! every layout
//! (strides, broadcast, flips, offsets, sub-byte elements at odd positions), cuts the
//! work into pieces that fit the device, and claims the operands through the door.

mod call;
#[cfg(feature = "cuda")]
mod cuda;
mod cuda_source;
mod donate;
mod host;
mod host_flat;
mod host_tier;
mod raw;
pub(crate) mod wgpu;

use std::sync::Arc;

pub use raw::RawKernel;

use crate::dtype::{DType, Element};
use crate::wgsl::Slot;

/// A compute type of elementwise kernels: what the body computes in (`f32`, `i32` and
/// `u32` on every device; `f64` and `i64` on the host and CUDA devices).
pub trait Compute: Element + bytemuck::Pod + Send + Sync + 'static {}

impl Compute for f32 {}
impl Compute for f64 {}
impl Compute for i32 {}
impl Compute for u32 {}
impl Compute for i64 {}

/// An operand's declared dtype: one dtype, or a type variable that every operand
/// naming it shares (bound by the first input that names it). From a string, a
/// name starting with a capital letter is a type variable (`T`, `In`, `BF16`: a
/// capital letter, then letters, digits or `_`), and any other a dtype's name as
/// [`DType`] parses it (`float32`, `bf16`): a kernel declaring `"flaot32"` is refused
/// when called, not run with a type variable.
///
/// ```
/// use nxrig::kernels::DTypeOrVar;
/// use nxrig::DType;
/// assert_eq!(DTypeOrVar::from("T"), DTypeOrVar::Var("T".into()));
/// assert_eq!(DTypeOrVar::from("bfloat16"), DTypeOrVar::Of(DType::Bfloat16));
/// assert_eq!(DTypeOrVar::from("Float"), DTypeOrVar::Var("Float".into()));
/// assert_eq!(DTypeOrVar::from(DType::Bool), DTypeOrVar::Of(DType::Bool));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DTypeOrVar {
    /// This dtype.
    Of(DType),
    /// The dtype bound to this type variable.
    Var(String),
}

impl From<DType> for DTypeOrVar {
    fn from(d: DType) -> DTypeOrVar {
        DTypeOrVar::Of(d)
    }
}

impl From<&str> for DTypeOrVar {
    fn from(v: &str) -> DTypeOrVar {
        match v.parse() {
            Ok(d) if !v.starts_with(|c: char| c.is_ascii_uppercase()) => DTypeOrVar::Of(d),
            _ => DTypeOrVar::Var(v.to_owned()),
        }
    }
}

/// The host body: the inputs' chunks in the compute type, the outputs' chunks to
/// fill, all of one length.
pub type HostBody<C> = dyn Fn(&[&[C]], &mut [&mut [C]]) + Send + Sync;

/// An elementwise kernel, declared once: named operands (inputs and outputs) of a
/// dtype or of a type variable they share, a compute type `C`, and a body per device
/// (WGSL for GPUs through wgpu, CUDA C for CUDA devices, a closure over chunks for the
/// host). nxrig converts each input into `C` as `cast` does (exactly where `C` holds
/// its values), rounds each output once into its dtype, walks every layout, cuts the
/// work into pieces that fit the device, and claims the operands through the door.
///
/// ```
/// use nxrig::kernels::Elementwise;
/// use nxrig::{AnyArray, Array, DType};
/// use nxrig::half::bf16;
///
/// // z = x * y + 1, over any dtype T, computed in float32.
/// let k = Elementwise::<f32>::new("xy1")
///     .input("x", "T")
///     .input("y", "T")
///     .output("z", "T")
///     .wgsl("z = x * y + 1.0;")
///     .host(|i, o| {
///         for ((z, x), y) in o[0].iter_mut().zip(i[0]).zip(i[1]) {
///             *z = x * y + 1.0;
///         }
///     });
/// let x: AnyArray = Array::of_array(&[2, 2], &[1.0, 2.0, 3.0, 4.0].map(bf16::from_f32))?.into();
/// let y: AnyArray = Array::of_array(&[2], &[0.5, -1.0].map(bf16::from_f32))?.into(); // broadcast
/// let z = k.call(&[&x, &y])?.remove(0).expect::<bf16>()?;
/// assert_eq!(z.to_vec()?, [1.5, -1.0, 2.5, -3.0].map(bf16::from_f32));
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone)]
pub struct Elementwise<C: Compute> {
    name: String,
    inputs: Vec<(String, DTypeOrVar)>,
    outputs: Vec<(String, DTypeOrVar)>,
    /// Inputs whose memory an output may take ([`Elementwise::call_donated`]).
    donated: Vec<String>,
    wgsl: Option<String>,
    cuda: Option<String>,
    host: Option<Arc<HostBody<C>>>,
}

impl<C: Compute> std::fmt::Debug for Elementwise<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Elementwise")
            .field("name", &self.name)
            .field("compute", &C::DTYPE)
            .field("inputs", &self.inputs)
            .field("outputs", &self.outputs)
            .field("donated", &self.donated)
            .field("wgsl", &self.wgsl)
            .field("cuda", &self.cuda)
            .field("host", &self.host.is_some())
            .finish()
    }
}

impl<C: Compute> Elementwise<C> {
    /// A kernel named `name` (in its errors and its pipelines' labels), computing in
    /// `C`, with no operand and no body yet.
    pub fn new(name: &str) -> Elementwise<C> {
        Elementwise {
            name: name.to_owned(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            donated: Vec::new(),
            wgsl: None,
            cuda: None,
            host: None,
        }
    }

    /// An input named `name` (a WGSL identifier, not starting `nx_`) of `ty`.
    #[must_use]
    pub fn input(mut self, name: &str, ty: impl Into<DTypeOrVar>) -> Self {
        self.inputs.push((name.to_owned(), ty.into()));
        self
    }

    /// An output named `name` of `ty` (a type variable an input binds).
    #[must_use]
    pub fn output(mut self, name: &str, ty: impl Into<DTypeOrVar>) -> Self {
        self.outputs.push((name.to_owned(), ty.into()));
        self
    }

    /// The body on GPUs through wgpu: WGSL statements that set every output (a `var`
    /// of the compute type, `f32`, `i32` or `u32`) from the inputs (values of it), run
    /// as the body of a function of their own, once an element (no `return`).
    #[must_use]
    pub fn wgsl(mut self, body: &str) -> Self {
        self.wgsl = Some(body.to_owned());
        self
    }

    /// The body on CUDA devices: C statements that set every output (a variable of
    /// the compute type: `float`, `double`, `int32_t`, `uint32_t`, `int64_t`) from the
    /// inputs (`const`s of it), compiled by NVRTC in the source
    /// [`Elementwise::cuda_source`] gives, over `include/nx_dtype.h`'s conversions.
    #[must_use]
    pub fn cuda(mut self, body: &str) -> Self {
        self.cuda = Some(body.to_owned());
        self
    }

    /// The CUDA C source nxrig compiles for operands of `dtypes` (the inputs', then
    /// the outputs', in declaration order): the kernel `nx_user`, its parameters each
    /// operand's address and `nx_walk` in order, then the count of elements; it
    /// includes `nx_kernels.cu` (NVRTC gets it inlined). For reading, and for
    /// compiling it elsewhere (as C99 for the host through `nx_launch.h`).
    ///
    /// ```
    /// use nxrig::kernels::Elementwise;
    /// use nxrig::DType;
    /// let k = Elementwise::<f32>::new("xy1").input("x", "T").input("y", "T").output("z", "T")
    ///     .cuda("z = x * y + 1.0f;");
    /// let s = k.cuda_source(&[DType::Bfloat16; 3])?;
    /// assert!(s.contains("NX_KERNEL void nx_user(const uint8_t *nx_at_x, nx_walk nx_w_x,"));
    /// # Ok::<(), nxrig::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::Invalid`] naming `Elementwise::cuda_source` and the kernel: no CUDA
    /// body, a declaration that is not valid, a count of dtypes other than the
    /// operands', a compute type C lacks here.
    pub fn cuda_source(&self, dtypes: &[DType]) -> Result<String, crate::Error> {
        const OP: &str = "Elementwise::cuda_source";
        let no = |reason: String| self.refusal(OP, reason, &[]);
        self.declared().map_err(no)?;
        let body = self
            .cuda
            .as_deref()
            .ok_or_else(|| no("it has no CUDA body".into()))?;
        let count = self.inputs.len() + self.outputs.len();
        if dtypes.len() != count {
            return Err(no(format!(
                "{} dtypes given for {count} operands",
                dtypes.len()
            )));
        }
        let operands = self.slots(dtypes.iter().copied());
        cuda_source::source(&self.name, &operands, C::DTYPE, body).map_err(no)
    }

    /// The body on the host: `f(inputs, outputs)` over chunks of one length, the
    /// inputs decoded into `C`, the outputs rounded once into their dtypes after; on
    /// the host's threads, chunk by chunk. On x86_64 `f` is also compiled for AVX2
    /// and AVX-512, and the widest the CPU has runs it (the same bits: Rust contracts
    /// no float operations), so its loops vectorize as NumPy's do; write them over
    /// iterators (`zip`) rather than indices, which keep bounds checks in the loop.
    #[must_use]
    pub fn host(mut self, f: impl Fn(&[&[C]], &mut [&mut [C]]) + Send + Sync + 'static) -> Self {
        self.host = Some(host_tier::tiered(f));
        self
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The operands as a generated module binds them (inputs, then outputs), of
    /// `dtypes` in that order.
    pub(crate) fn slots(&self, dtypes: impl IntoIterator<Item = DType>) -> Vec<Slot<'_>> {
        let inputs = self.inputs.len();
        self.inputs
            .iter()
            .chain(&self.outputs)
            .zip(dtypes)
            .enumerate()
            .map(|(j, ((name, _), dtype))| Slot {
                name,
                dtype,
                output: j >= inputs,
            })
            .collect()
    }

    /// The name `source`'s compiled form is kept under: `what` (`elementwise`, `raw`),
    /// the kernel's name and a hash of the source.
    pub(crate) fn key(&self, what: &str, source: &str) -> String {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        source.hash(&mut h);
        format!("{what} {} {:016x}", self.name, h.finish())
    }
}
