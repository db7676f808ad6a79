//! nxrig's one error type.
//!
//! Every failure of bad input is one of these, never a panic; the message says the
//! function the user called, the reason, and each operand's dtype and shape. A panic
//! is a bug in nxrig, never a user's mistake.

/// Everything that can go wrong in nxrig.
///
/// ```
/// use nxrig::{Array, Error};
///
/// let a = Array::<f32>::of_array(&[2], &[1.0, 2.0])?;
/// match a.get(&[5]) {
///     Err(e @ Error::Invalid { op, .. }) => {
///         assert_eq!(op, "Array::get"); // the function called
///         println!("{e}");
///     }
///     other => panic!("expected an index error, got {other:?}"),
/// }
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A dtype name that names no dtype.
    #[error("unknown dtype {name:?} (expected one of {expected}){}", crate::dtype::meant(.name))]
    UnknownDtype {
        /// The name given.
        name: String,
        /// Every dtype's name, from the dtype table (`DType::names`).
        expected: &'static str,
    },
    /// A size that overflows the address space.
    #[error("{op}: {what} overflows for {dtype}")]
    TooLarge {
        /// The function called.
        op: &'static str,
        /// What overflowed.
        what: &'static str,
        /// The dtype involved, by name (`"uint8"` for a size in bytes).
        dtype: &'static str,
    },
    /// A layout or movement argument that is not valid.
    #[error("{op}: {reason}")]
    Layout {
        /// The function called, as `"Layout::new"` or `"Move::Reshape"`.
        op: &'static str,
        /// Why.
        reason: String,
    },
    /// An argument that is not valid for an array function.
    #[error("{op}: {reason}{}", operands_of(.operands))]
    Invalid {
        /// The function the user called, as `"Array::get"`.
        op: &'static str,
        /// Why.
        reason: String,
        /// Each operand's dtype and shape, as `float32 [3], int8 [2, 2]`.
        operands: String,
    },
    /// An array's dtype is not the one asked for.
    #[error("{op}: expected {expected}, found {found}")]
    WrongDtype {
        /// The function called.
        op: &'static str,
        /// The dtype asked for, by name (`DType::from_str` gives it back).
        expected: &'static str,
        /// The array's dtype, by name.
        found: &'static str,
    },
    /// A buffer whose memory was consumed.
    #[error("{op}: the buffer is dead: {why}")]
    Dead {
        /// The function called.
        op: &'static str,
        /// The reason its consumer gave, as `"donated to add"`.
        why: String,
    },
    /// Memory that a `Claim::with` holds exclusive for a donation: nothing else may
    /// touch it until the donor consumes it.
    #[error("{op}: the memory is held exclusive by a donation")]
    HeldExclusive {
        /// The function called.
        op: &'static str,
    },
    /// A write to memory or a buffer that admits only reads.
    #[error("{op}: the memory admits only reads")]
    ReadOnly {
        /// The function called.
        op: &'static str,
    },
    /// A use of claims the protocol refuses (`Claims::consume` outside its `with`, of
    /// memory it does not claim, of a held memory, ...).
    #[error("{op}: {reason}")]
    Claim {
        /// The function called.
        op: &'static str,
        /// Why.
        reason: String,
    },
    /// A device could not make memory of the size asked for (the host's allocator, or
    /// a GPU that reported itself out of memory).
    #[error("{op}: {device} has no room for {bytes} more bytes")]
    OutOfMemory {
        /// The function called.
        op: &'static str,
        /// The device's name.
        device: String,
        /// The bytes asked for.
        bytes: usize,
    },
    /// No device could be opened: no adapter, or the adapter refused a device.
    #[error("{op}: {reason}")]
    NoDevice {
        /// The function called, as `"Rig::by_name"`.
        op: &'static str,
        /// Why, with what to do about it.
        reason: String,
    },
    /// An error a device reported of an operation (a GPU's validation or internal
    /// error, a failed mapping), other than running out of memory or being lost.
    #[error("{op}: {device} reported: {reason}")]
    Device {
        /// The function called.
        op: &'static str,
        /// The device's name.
        device: String,
        /// The device's (its driver's, wgpu's) message.
        reason: String,
    },
    /// Something the device, or the environment it runs in, cannot do: an element
    /// no binding of this GPU reaches, a blocking read in the browser.
    #[error("{op}: {device} cannot {what}")]
    Unsupported {
        /// The function called.
        op: &'static str,
        /// The device's name.
        device: String,
        /// What it cannot do, with what to use instead where there is a way.
        what: String,
    },
    /// A device was lost.
    #[error("{op}: device {device} was lost")]
    Lost {
        /// The function called.
        op: &'static str,
        /// The device's name.
        device: String,
    },
    /// A file could not be read or written.
    #[error("{}: {source}", escaped(.path))]
    Io {
        /// The file.
        path: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A file's contents are not valid for its format.
    #[error("{}: {tensor}{}", escaped(.path), escaped(.reason), tensor = .tensor.as_deref().map(|t| format!("tensor {t:?}: ")).unwrap_or_default())]
    Format {
        /// The file.
        path: String,
        /// The tensor concerned, if one is.
        tensor: Option<String>,
        /// What is wrong.
        reason: String,
    },
}

/// `$body` with `$op` bound to the `op` field of `$e`'s variant (by reference, as the
/// match binds it), or `$none` for the variants that name no function.
macro_rules! with_op {
    ($e:expr, $op:ident => $body:expr, $none:expr) => {
        match $e {
            Error::TooLarge { $op, .. }
            | Error::Layout { $op, .. }
            | Error::Invalid { $op, .. }
            | Error::WrongDtype { $op, .. }
            | Error::Dead { $op, .. }
            | Error::HeldExclusive { $op, .. }
            | Error::ReadOnly { $op, .. }
            | Error::Claim { $op, .. }
            | Error::OutOfMemory { $op, .. }
            | Error::NoDevice { $op, .. }
            | Error::Device { $op, .. }
            | Error::Unsupported { $op, .. }
            | Error::Lost { $op, .. } => $body,
            Error::UnknownDtype { .. } | Error::Io { .. } | Error::Format { .. } => $none,
        }
    };
}

impl Error {
    /// The op of the error, the function it names: `None` for the errors that name
    /// a file or a dtype instead ([`Error::UnknownDtype`], [`Error::Io`],
    /// [`Error::Format`]).
    pub fn op(&self) -> Option<&'static str> {
        with_op!(self, op => Some(*op), None)
    }

    /// The error as the function `op` gives it: the same error, naming `op` (a
    /// function that calls another names itself in what the other refused, so that
    /// the error names the function the user called). Errors without an op are as
    /// they were.
    ///
    /// ```
    /// use nxrig::{AnyArray, DType, Error, Rig};
    ///
    /// let e = AnyArray::create(&Rig::host(), DType::Float32, &[usize::MAX]).unwrap_err();
    /// assert!(e.to_string().starts_with("AnyArray::create: "), "{e}");
    /// assert!(e.called("NxArray.zeros").to_string().starts_with("NxArray.zeros: "));
    /// ```
    #[must_use]
    pub fn called(mut self, name: &'static str) -> Error {
        with_op!(&mut self, op => *op = name, ());
        self
    }

    /// The message without the function it names (`the operands' shapes ...` of
    /// `add: the operands' shapes ...`): for a caller that names the function in its
    /// own words (JavaScript's names).
    pub fn detail(&self) -> String {
        let text = self.to_string();
        match self.op() {
            Some(op) => text
                .strip_prefix(op)
                .and_then(|t| t.strip_prefix(": "))
                .map_or_else(|| text.clone(), str::to_owned),
            None => text,
        }
    }
}

/// `s` on one line with nothing a terminal acts on: control characters (newlines,
/// escapes, C1), line separators and direction overrides written as Rust escapes them
/// (`\n`, `\u{1b}`, `\u{202e}`). Strings from files (names,
/// paths, a parser's message) go through this before they reach a message, so that a
/// file cannot write a line of its own into nxrig's output.
pub fn escaped(s: &str) -> String {
    // Control characters (C0, DEL, C1), and the separators and direction marks that
    // move or reorder what a terminal shows after them.
    let odd = |c: char| {
        c.is_control()
            || matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
            )
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    if !s.chars().any(odd) {
        return s.to_owned();
    }
    s.chars()
        .map(|c| {
            if odd(c) {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// ` (operands)`, or nothing where there are none.
fn operands_of(operands: &str) -> String {
    if operands.is_empty() {
        String::new()
    } else {
        format!(" ({operands})")
    }
}

/// nxrig's result type.
///
/// ```
/// fn first(a: &nxrig::Array<f32>) -> nxrig::Result<f32> {
///     a.get(&[0])
/// }
/// assert_eq!(first(&nxrig::Array::of_array(&[1], &[2.5])?)?, 2.5);
/// # Ok::<(), nxrig::Error>(())
/// ```
pub type Result<T, E = Error> = core::result::Result<T, E>;
