//! DLPack through C: a handle's array out as a managed tensor, a managed tensor in as
//! a handle.

use std::ptr::NonNull;

use super::handle::{array, give, null, status, NxArray};
use crate::array::dlpack::{live_exports, DLManagedTensor, DLManagedTensorVersioned};
use crate::error::Error;
use crate::AnyArray;

/// `*out` set to `export` of `a`'s array, for the C function `name`.
///
/// # Safety
/// `a` is null or a live handle; `out` is null or writable.
unsafe fn exported<M>(
    name: &'static str,
    a: *const NxArray,
    out: *mut *mut M,
    export: impl FnOnce(&AnyArray) -> Result<NonNull<M>, Error>,
) -> i32 {
    status(name, || {
        if out.is_null() {
            return Err(null(name, "out"));
        }
        // SAFETY: as the caller promised.
        let t = export(unsafe { array(name, a)? })?;
        // SAFETY: as the caller promised.
        unsafe { *out = t.as_ptr() };
        Ok(())
    })
}

/// `*out` set to a handle of `import` of `t`, for the C function `name`.
///
/// # Safety
/// As `import` for `t`; `out` is null or writable.
unsafe fn imported<M>(
    name: &'static str,
    t: *mut M,
    out: *mut *mut NxArray,
    import: unsafe fn(*mut M) -> Result<AnyArray, Error>,
) -> i32 {
    status(name, || {
        // SAFETY: as the caller promised.
        let a = unsafe { import(t)? };
        // SAFETY: as the caller promised.
        unsafe { give(name, a, out) }
    })
}

/// `*out`: a DLPack 1.x managed tensor over `a`'s elements, without a copy (as
/// [`AnyArray::to_dlpack`]); the consumer calls its deleter once.
///
/// # Safety
/// `a` is a live handle; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_array_to_dlpack(
    a: *const NxArray,
    out: *mut *mut DLManagedTensorVersioned,
) -> i32 {
    // SAFETY: as the caller promised.
    unsafe { exported("nx_array_to_dlpack", a, out, AnyArray::to_dlpack) }
}

/// [`nx_array_to_dlpack`] as the legacy `DLManagedTensor` (as
/// [`AnyArray::to_dlpack_legacy`]).
///
/// # Safety
/// As [`nx_array_to_dlpack`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_array_to_dlpack_legacy(
    a: *const NxArray,
    out: *mut *mut DLManagedTensor,
) -> i32 {
    // SAFETY: as the caller promised.
    unsafe {
        exported(
            "nx_array_to_dlpack_legacy",
            a,
            out,
            AnyArray::to_dlpack_legacy,
        )
    }
}

/// `*out`: a handle of the array over a DLPack 1.x managed tensor, without a copy
/// (as [`AnyArray::from_dlpack`]): its deleter runs once, when the last handle, view
/// or tensor over the memory goes, or before an error returns.
///
/// # Safety
/// As [`AnyArray::from_dlpack`] for `t`; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_array_from_dlpack(
    t: *mut DLManagedTensorVersioned,
    out: *mut *mut NxArray,
) -> i32 {
    // SAFETY: as the caller promised.
    unsafe { imported("nx_array_from_dlpack", t, out, AnyArray::from_dlpack) }
}

/// [`nx_array_from_dlpack`] of a legacy `DLManagedTensor` (as
/// [`AnyArray::from_dlpack_legacy`]).
///
/// # Safety
/// As [`nx_array_from_dlpack`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nx_array_from_dlpack_legacy(
    t: *mut DLManagedTensor,
    out: *mut *mut NxArray,
) -> i32 {
    // SAFETY: as the caller promised.
    unsafe {
        imported(
            "nx_array_from_dlpack_legacy",
            t,
            out,
            AnyArray::from_dlpack_legacy,
        )
    }
}

/// Exported tensors whose deleter has not run (as
/// [`crate::array::dlpack::live_exports`]).
#[unsafe(no_mangle)]
pub extern "C" fn nx_dlpack_live_exports() -> usize {
    live_exports()
}
