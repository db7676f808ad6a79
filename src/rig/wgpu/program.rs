//! A GPU job's program, as the runtime sees it: a name its pipelines are kept under,
//! and the WGSL of each form it has. The runtime runs it without knowing what it
//! computes ([`Gpu::run`](super::Gpu::run) compiles each form once per device and
//! picks one a piece); the kernels above the runtime say what they are (`Cast`, `Add`
//! in `kernels/wgpu_program.rs`), as the runtime's own transfer does (`blit.rs`).

/// The forms a piece runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// The general form: any layouts, walked (entry point `main`, one invocation an
    /// element, binding 0 the walk's parameters, then each operand's window).
    Walked,
    /// The contiguous form (`shaders/flat4.wgsl`): operands of one width of 8, 16 or
    /// 32 bits, C-contiguous, four words an invocation; `at_zero` where every operand
    /// starts its window.
    Flat4 { at_zero: bool },
}

/// A module (entry point `main`) over two operands (source, destination) or three
/// (source, destination, second source), in the forms it has.
pub(crate) trait Program {
    /// The name its compiled forms are kept under (per form, see [`form_key`]); two
    /// programs of one name have the same WGSL.
    fn key(&self) -> String;

    /// True where it has the contiguous form (for operands of one width of 8, 16 or
    /// 32 bits; the runtime uses it only there).
    fn has_flat4(&self) -> bool {
        false
    }

    /// The WGSL of `form`.
    ///
    /// # Panics
    /// For [`Form::Flat4`] of a program without it (see [`Program::has_flat4`]): an
    /// nxrig bug.
    fn module(&self, form: Form) -> String;

    /// The cheaper first pass of `form` where the program has one: it raises a flag
    /// where its answer may be wrong, and the full form then runs only over pieces
    /// whose flag is up (`indirect.rs`). Its pipeline's name and WGSL.
    fn first_pass(&self, form: Form) -> Option<(String, String)> {
        let _ = form;
        None
    }
}

/// The name of `form`'s pipeline of `p`.
pub(crate) fn form_key(p: &dyn Program, form: Form) -> String {
    match form {
        Form::Walked => p.key(),
        Form::Flat4 { at_zero: true } => format!("{} flat4 at 0", p.key()),
        Form::Flat4 { at_zero: false } => format!("{} flat4", p.key()),
    }
}

/// The panic of a contiguous form asked of a program without one.
pub(crate) fn no_flat4(key: &str) -> ! {
    panic!("nxrig bug: the contiguous form of {key}, which has none")
}
