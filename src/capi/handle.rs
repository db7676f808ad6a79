//! Handles: an array made from C-order bytes, described, read and written in C order,
//! freed; the thread's last error.

use std::cell::RefCell;
use std::ffi::{c_char, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::Error;
use crate::layout::MAX_RANK;
use crate::{AnyArray, DType};

/// The call succeeded.
pub const NX_OK: i32 = 0;
/// The call failed: [`nx_last_error`] says why.
pub const NX_ERROR: i32 = 1;

/// An nxrig array as C holds it (`nx_array *`): made by `nx_array_from_bytes` or
/// `nx_array_from_dlpack`, freed by [`nx_array_free`].
pub struct NxArray(pub(crate) AnyArray);

thread_local! {
    static LAST: RefCell<CString> = RefCell::new(CString::default());
}

/// The calling thread's last error message (empty before any): valid until the
/// thread's next failing call. Never null.
#[unsafe(no_mangle)]
pub extern "C" fn nx_last_error() -> *const c_char {
    LAST.with(|l| l.borrow().as_ptr())
}

/// `f`'s outcome as a status: an error (or a panic, a bug of nxrig's) recorded as the
/// thread's last, naming `name`.
pub(crate) fn status(name: &'static str, f: impl FnOnce() -> Result<(), Error>) -> i32 {
    let said = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => return NX_OK,
        Ok(Err(e)) => e.called(name).to_string(),
        Err(_) => format!("{name}: nxrig bug: a panic (please report it)"),
    };
    let said = CString::new(said.replace('\0', " ")).unwrap_or_default();
    LAST.with(|l| *l.borrow_mut() = said);
    NX_ERROR
}

/// The error of a null pointer argument.
pub(crate) fn null(name: &'static str, what: &str) -> Error {
    Error::Invalid {
        op: name,
        reason: format!("{what} is a null pointer"),
        operands: String::new(),
    }
}

/// The array `a` points at.
///
/// # Safety
/// `a` is null or a live handle.
pub(crate) unsafe fn array<'a>(
    name: &'static str,
    a: *const NxArray,
) -> Result<&'a AnyArray, Error> {
    // SAFETY: as the caller promised.
    unsafe { a.as_ref() }
        .map(|h| &h.0)
        .ok_or_else(|| null(name, "the array"))
}

/// `out` set to a new handle of `a`.
///
/// # Safety
/// `out` is null or writable.
pub(crate) unsafe fn give(
    name: &'static str,
    a: AnyArray,
    out: *mut *mut NxArray,
) -> Result<(), Error> {
    if out.is_null() {
        return Err(null(name, "out"));
    }
    // SAFETY: as the caller promised.
    unsafe { *out = Box::into_raw(Box::new(NxArray(a))) };
    Ok(())
}

/// `Ok` where `len` is the size of `a`'s elements in C order.
fn sized(name: &'static str, a: &AnyArray, len: usize) -> Result<(), Error> {
    sized_as(name, a.dtype(), a.layout().numel(), len, || {
        crate::array::described(&[a])
    })
}

/// `Ok` where `len` is the size of `n` elements of `dtype` in C order; else the
/// refusal, with `operands()`.
fn sized_as(
    name: &'static str,
    dtype: DType,
    n: usize,
    len: usize,
    operands: impl FnOnce() -> String,
) -> Result<(), Error> {
    let want = dtype.bytes(n)?;
    if want == len {
        return Ok(());
    }
    Err(Error::Invalid {
        op: name,
        reason: format!("len is {len}; the elements are {want} bytes"),
        operands: operands(),
    })
}

/// A fresh host array of dtype `dtype` (an `NX_DTYPE_*` code) and `rank` extents
/// `shape`, in C order, holding the `len` bytes at `bytes` (copied): its elements in C
/// order, int4/uint4 two a byte; `len` is exactly their size. `*out` is the new handle.
///
/// # Safety
/// `shape` holds `rank` values; `bytes` holds `len` bytes (either may be null for
/// none); `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_array_from_bytes(
    dtype: i32,
    rank: i32,
    shape: *const i64,
    bytes: *const c_void,
    len: usize,
    out: *mut *mut NxArray,
) -> i32 {
    const NAME: &str = "nx_array_from_bytes";
    status(NAME, || {
        let dtype = u8::try_from(dtype)
            .ok()
            .and_then(DType::of_code)
            .ok_or_else(|| Error::Invalid {
                op: NAME,
                reason: format!("no dtype has the code {dtype}"),
                operands: String::new(),
            })?;
        let rank = usize::try_from(rank)
            .ok()
            .filter(|&r| r <= MAX_RANK)
            .ok_or_else(|| Error::Layout {
                op: NAME,
                reason: format!("a rank of {rank} (0 to 16)"),
            })?;
        if rank > 0 && shape.is_null() {
            return Err(null(NAME, "shape"));
        }
        if len > 0 && bytes.is_null() {
            return Err(null(NAME, "bytes"));
        }
        // SAFETY: as the caller promised.
        let dims = if rank == 0 {
            &[][..]
        } else {
            unsafe { std::slice::from_raw_parts(shape, rank) }
        };
        let shape = dims
            .iter()
            .map(|&n| usize::try_from(n))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| Error::Layout {
                op: NAME,
                reason: format!("a shape of {dims:?}"),
            })?;
        // SAFETY: as the caller promised.
        let b = if len == 0 {
            Vec::new()
        } else {
            unsafe { std::slice::from_raw_parts(bytes.cast::<u8>(), len) }.to_vec()
        };
        sized_as(NAME, dtype, crate::layout::numel(&shape)?, len, String::new)?;
        let a = AnyArray::of_bytes(dtype, &shape, b)?;
        // SAFETY: as the caller promised.
        unsafe { give(NAME, a, out) }
    })
}

/// `a`'s dtype code, rank, extents (into `shape`, room for 16) and the size in bytes
/// of its elements in C order (what [`nx_array_read`] writes). Any output may be null.
///
/// # Safety
/// `a` is a live handle; each output is null or writable (`shape` for 16 values).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_array_describe(
    a: *const NxArray,
    dtype: *mut i32,
    rank: *mut i32,
    shape: *mut i64,
    nbytes: *mut usize,
) -> i32 {
    const NAME: &str = "nx_array_describe";
    status(NAME, || {
        // SAFETY: as the caller promised, for `a` and each output.
        unsafe {
            let a = array(NAME, a)?;
            if !dtype.is_null() {
                *dtype = i32::from(a.dtype().code());
            }
            if !rank.is_null() {
                *rank = a.shape().len() as i32;
            }
            if !shape.is_null() {
                for (k, &n) in a.shape().iter().enumerate() {
                    *shape.add(k) = n as i64;
                }
            }
            if !nbytes.is_null() {
                *nbytes = a.dtype().bytes(a.layout().numel())?;
            }
        }
        Ok(())
    })
}

/// Writes `a`'s elements, in C order (int4/uint4 two a byte), into the `len` bytes at
/// `dst`; `len` is exactly their size (`nbytes` of [`nx_array_describe`]). On a GPU
/// the elements are read back first, blocking.
///
/// # Safety
/// `a` is a live handle; `dst` is writable for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_array_read(a: *const NxArray, dst: *mut c_void, len: usize) -> i32 {
    const NAME: &str = "nx_array_read";
    status(NAME, || {
        // SAFETY: as the caller promised.
        let a = unsafe { array(NAME, a)? };
        sized(NAME, a, len)?;
        let b = a.to_bytes()?;
        if len > 0 {
            if dst.is_null() {
                return Err(null(NAME, "dst"));
            }
            // SAFETY: as the caller promised.
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), dst.cast::<u8>(), len) };
        }
        Ok(())
    })
}

/// Stores the `len` bytes at `src`, `a`'s elements in C order (int4/uint4 two a
/// byte), into `a`'s elements, whatever its layout: no other bit of its memory
/// changes. `len` is exactly their size.
///
/// # Safety
/// `a` is a live handle; `src` holds `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_array_write(a: *const NxArray, src: *const c_void, len: usize) -> i32 {
    const NAME: &str = "nx_array_write";
    status(NAME, || {
        // SAFETY: as the caller promised.
        let a = unsafe { array(NAME, a)? };
        sized(NAME, a, len)?;
        if len > 0 && src.is_null() {
            return Err(null(NAME, "src"));
        }
        // SAFETY: as the caller promised.
        let b = if len == 0 {
            Vec::new()
        } else {
            unsafe { std::slice::from_raw_parts(src.cast::<u8>(), len) }.to_vec()
        };
        let from = AnyArray::of_bytes(a.dtype(), a.shape(), b)?;
        AnyArray::transfer(&from, a)
    })
}

/// Frees the handle (null: nothing). The memory goes once no other handle, view or
/// exported tensor reaches it.
///
/// # Safety
/// `a` is null or a live handle, not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_array_free(a: *mut NxArray) {
    if !a.is_null() {
        // SAFETY: as the caller promised: a box `give` made.
        drop(unsafe { Box::from_raw(a) });
    }
}
