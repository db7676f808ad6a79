//! The C API (cargo feature `capi`; declared in `include/nx_capi.h`): nxrig's arrays
//! as opaque handles for C and for Python's `ctypes`, their bytes in and out, and
//! DLPack both ways.
//!
//! Every function checks its pointers and returns [`NX_OK`] or [`NX_ERROR`], the
//! message then in [`nx_last_error`] (naming the function called); no panic crosses
//! into C. A handle is an [`AnyArray`](crate::AnyArray) (a view of its buffer: freeing the handle frees
//! the memory once no other handle or tensor reaches it).

mod dlpack;
mod handle;

pub use dlpack::{
    nx_array_from_dlpack, nx_array_from_dlpack_legacy, nx_array_to_dlpack,
    nx_array_to_dlpack_legacy, nx_dlpack_live_exports,
};
pub use handle::{
    nx_array_describe, nx_array_free, nx_array_from_bytes, nx_array_read, nx_array_write,
    nx_last_error, NxArray, NX_ERROR, NX_OK,
};
