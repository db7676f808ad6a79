//! A kernel described as data: its operands (a [`Slot`] each, inputs then outputs),
//! the type its body computes in (or the operands' raw bits), the functions the body
//! calls, the body, and an optional cheaper first pass. The GPU runtime plans a job
//! from the layouts and asks for the module of each [`Form`] it chooses; every form is
//! generated here, from this one description (`elementwise.rs`, `walked.rs`,
//! `contiguous.rs`). nxrig's kernels (transfer, cast, add, the operations, the probe)
//! and users' elementwise kernels are each one.

use std::hash::{DefaultHasher, Hash, Hasher};

use super::contiguous::group_len;
use super::elementwise::{generate, Generated, Main};
use super::operands::{compute_type, Slot, Values};
use super::params::MAX_BOUND;
use super::walked::packed_per;
use crate::dtype::DType;

/// The form of a dispatch's `main`, which the runtime chooses from the layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Form {
    /// An invocation an element at walked positions, sub-word outputs stored with
    /// atomics; `one_axis`: the walk of one axis alone (the layouts merged into one).
    Walked { one_axis: bool },
    /// An invocation a whole word of C-contiguous sub-word outputs, the inputs walked.
    Packed { one_axis: bool },
    /// An invocation a group of [`Kernel::group_len`] elements of C-contiguous
    /// operands, no walk; `at_zero`: every operand starts its binding window.
    Contiguous { at_zero: bool },
    /// The contiguous form's cheaper first pass (its flag bound after the operands),
    /// where the kernel has one.
    First { at_zero: bool },
}

/// A cheaper first pass of a kernel's contiguous form: it computes every element
/// where it can and raises a flag (bound after the operands) where its answer may be
/// wrong; the kernel's own contiguous form then runs only over pieces whose flag is up.
#[derive(Clone, Debug, Hash)]
pub(crate) struct FirstPass {
    /// Its functions (the flag's binding among them).
    pub(crate) helpers: String,
    /// Its body (over the kernel's operands, as raw bits).
    pub(crate) body: &'static str,
    /// What an invocation does after its loop (raise the flag).
    pub(crate) end: &'static str,
}

/// A kernel described as data (see the module's docs).
#[derive(Clone, Debug, Hash)]
pub(crate) struct Kernel<'a> {
    slots: Vec<Slot<'a>>,
    compute: Option<DType>,
    enable: &'static str,
    helpers: String,
    body: &'a str,
    looped: bool,
    first: Option<FirstPass>,
}

impl<'a> Kernel<'a> {
    /// A kernel over `slots` (inputs, then outputs), its `body` computing in `compute`
    /// (float32, int32 or uint32: each operand loaded into it exactly and stored
    /// rounded once), or on each operand's raw bits (`None`: a `vec4<u32>`, lowest
    /// word first).
    ///
    /// # Errors
    /// A sentence for a compute dtype WGSL lacks, or other than 1 to [`MAX_BOUND`]
    /// operands.
    pub(crate) fn new(
        slots: Vec<Slot<'a>>,
        compute: Option<DType>,
        body: &'a str,
    ) -> Result<Kernel<'a>, String> {
        if let Some(c) = compute {
            compute_type(c)
                .ok_or_else(|| format!("no WGSL compute type is {c} (float32, int32, uint32)"))?;
        }
        if slots.is_empty() || slots.len() > MAX_BOUND {
            return Err(format!(
                "{} operands (1 to {MAX_BOUND} bind on WebGPU)",
                slots.len()
            ));
        }
        Ok(Kernel {
            slots,
            compute,
            enable: "",
            helpers: String::new(),
            body,
            looped: false,
            first: None,
        })
    }

    /// With `helpers`, functions the body calls, after the operands' conversions'.
    pub(crate) fn helpers(mut self, helpers: String) -> Self {
        self.helpers = helpers;
        self
    }

    /// With `enable`, the module's `enable` directives (its native types').
    pub(crate) fn enable(mut self, enable: &'static str) -> Self {
        self.enable = enable;
        self
    }

    /// With its contiguous form's elements in a loop, the body written once (for
    /// large bodies: a CPU adapter such as SwiftShader compiles each copy).
    pub(crate) fn looped(mut self) -> Self {
        self.looped = true;
        self
    }

    /// With `first`, its contiguous form's first pass.
    pub(crate) fn first(mut self, first: Option<FirstPass>) -> Self {
        self.first = first;
        self
    }

    /// The name its modules are compiled under: its operands' dtypes and a hash of
    /// the whole description (two kernels of one key have the same WGSL in every
    /// form).
    pub(crate) fn key(&self) -> String {
        let mut h = DefaultHasher::new();
        self.hash(&mut h);
        let dtypes: Vec<&str> = self.slots.iter().map(|s| s.dtype.name()).collect();
        format!("{:016x} {}", h.finish(), dtypes.join(" "))
    }

    /// Operands read (bound first).
    pub(crate) fn inputs(&self) -> usize {
        self.slots.iter().filter(|s| !s.output).count()
    }

    /// Elements a group of its contiguous form (and of its first pass): four words of
    /// the narrowest operand, at least four.
    pub(crate) fn group_len(&self) -> usize {
        group_len(&self.slots) as usize
    }

    /// Elements a word of its outputs in the packed form, where it has one (every
    /// output of one width under 32 bits).
    pub(crate) fn packed_len(&self) -> Option<usize> {
        packed_per(&self.slots).map(|p| p as usize)
    }

    /// Whether its contiguous form has a first pass.
    pub(crate) fn has_first(&self) -> bool {
        self.first.is_some()
    }

    /// The walked form's module, with the line of its body (the compiler's messages
    /// placed in the body).
    pub(crate) fn walked(&self) -> Generated {
        self.generated(Main::Walked)
    }

    /// The module of `form`.
    ///
    /// # Panics
    /// For [`Form::Packed`] of a kernel without it ([`Kernel::packed_len`]), or
    /// [`Form::First`] of one without a first pass: an nxrig bug.
    pub(crate) fn module(&self, form: Form) -> String {
        match form {
            Form::Walked { one_axis } => pick(self.generated(Main::Walked), one_axis),
            Form::Packed { one_axis } => {
                assert!(
                    self.packed_len().is_some(),
                    "nxrig bug: the packed form of a kernel without one"
                );
                pick(self.generated(Main::Packed), one_axis)
            }
            Form::Contiguous { at_zero } => {
                let main = Main::Contiguous {
                    at_zero,
                    looped: self.looped,
                };
                self.generated(main).module
            }
            Form::First { at_zero } => {
                let f = self
                    .first
                    .as_ref()
                    .expect("nxrig bug: the first pass of a kernel without one");
                let main = Main::Contiguous {
                    at_zero,
                    looped: false,
                };
                // One word a value: the first passes' dtypes are of 32 bits or fewer.
                generate(
                    &self.slots,
                    Values::Word,
                    self.enable,
                    &f.helpers,
                    f.body,
                    main,
                    f.end,
                )
                .expect("nxrig bug: a kernel checked when made")
                .module
            }
        }
    }

    /// Its module in the form `main`.
    fn generated(&self, main: Main) -> Generated {
        let values = self.compute.map_or(Values::Bits, Values::Compute);
        generate(
            &self.slots,
            values,
            self.enable,
            &self.helpers,
            self.body,
            main,
            "",
        )
        .expect("nxrig bug: a kernel checked when made")
    }
}

/// The operands `a` (read) and `z` (written), or `a`, `b` and `z`, of dtypes `ds`.
pub(crate) fn abz(ds: &[DType]) -> Vec<Slot<'static>> {
    let names = if ds.len() == 2 {
        ["a", "z", ""]
    } else {
        ["a", "b", "z"]
    };
    ds.iter()
        .zip(names)
        .enumerate()
        .map(|(j, (&dtype, name))| Slot {
            name,
            dtype,
            output: j == ds.len() - 1,
        })
        .collect()
}

/// The module of a walked form: of one axis, or of any.
fn pick(g: Generated, one_axis: bool) -> String {
    if one_axis {
        g.one_axis
    } else {
        g.module
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn validate(src: &str) -> Result<(), String> {
        let module = naga::front::wgsl::parse_str(src).map_err(|e| e.emit_to_string(src))?;
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        )
        .validate(&module)
        .map(|_| ())
        .map_err(|e| format!("{e:?}"))
    }

    /// The kernel of `body` over `slots` computing in `c`.
    fn kernel<'a>(slots: &[Slot<'a>], c: DType, body: &'a str) -> Kernel<'a> {
        Kernel::new(slots.to_vec(), Some(c), body).unwrap()
    }

    #[test]
    fn every_dtype_loads_and_stores_in_every_compute_type() {
        for c in [DType::Float32, DType::Int32, DType::Uint32] {
            for d in DType::ALL {
                let slots = [
                    Slot::input("x", d),
                    Slot::input("y", DType::Int4),
                    Slot::output("z", d),
                ];
                let k = kernel(&slots, c, "z = x + y;");
                for one_axis in [false, true] {
                    let m = k.module(Form::Walked { one_axis });
                    assert!(!m.contains("{{"), "{c} {d}");
                    validate(&m).unwrap_or_else(|e| panic!("{c} {d} {one_axis}: {e}\n{m}"));
                }
                assert_eq!(k.group_len(), 32, "four words of int4");
                for at_zero in [false, true] {
                    let m = k.module(Form::Contiguous { at_zero });
                    assert!(
                        !m.contains("atomicOr"),
                        "{c} {d}: the contiguous form stores words whole"
                    );
                    assert_eq!(m.contains("nx_walk.offsets"), !at_zero, "{c} {d}");
                    validate(&m).unwrap_or_else(|e| panic!("{c} {d} contiguous: {e}\n{m}"));
                    let m = k.clone().looped().module(Form::Contiguous { at_zero });
                    validate(&m).unwrap_or_else(|e| panic!("{c} {d} looped: {e}\n{m}"));
                }
                assert_eq!(k.packed_len().is_some(), d.bits() < 32, "{c} {d}");
                if k.packed_len().is_some() {
                    for one_axis in [false, true] {
                        let m = k.module(Form::Packed { one_axis });
                        assert!(!m.contains("atomicOr"), "{c} {d}: stored whole");
                        validate(&m).unwrap_or_else(|e| panic!("{c} {d} packed: {e}\n{m}"));
                    }
                }
            }
        }
    }

    #[test]
    fn the_body_line_is_where_the_body_is_and_its_errors_are_there() {
        let slots = [
            Slot::input("x", DType::Float32),
            Slot::output("z", DType::Float32),
        ];
        let g = kernel(&slots, DType::Float32, "let t = x * 2.0;\nz = t +;").walked();
        let lines: Vec<&str> = g.module.lines().collect();
        assert_eq!(lines[g.body_line as usize], "z = t +;");
        assert!(validate(&g.module).is_err());
        assert!(Kernel::new(slots.to_vec(), Some(DType::Float16), "").is_err());
    }
}
