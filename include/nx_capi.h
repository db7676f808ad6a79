/*
 * nx_capi.h: nxrig's C API (the library's cargo feature `capi`; the shared library
 * `libnxrig_capi` of the crate `nxrig-capi`): arrays as opaque handles, their bytes
 * in and out, and DLPack both ways, without a copy.
 *
 * Every function but nx_last_error, nx_array_free and nx_dlpack_live_exports returns
 * NX_OK or NX_ERROR; after NX_ERROR, nx_last_error() says why, naming the function.
 * Pointers are checked: a null one is an error, never a crash. Dtype codes are
 * nx_dtype.h's NX_DTYPE_*; shapes are in elements; bytes "in C order" are the elements
 * in row-major order, int4/uint4 two a byte (element i in the low nibble of byte i/2
 * when i is even, the high one when odd), bool one byte.
 *
 * DLPack (https://dmlc.github.io/dlpack/): nxrig writes DLPack 1.1 tensors and reads
 * any 1.x. The structures are declared below, unless <dlpack/dlpack.h> was included
 * first: a file that uses both includes it before this header (the other order
 * declares the structures twice). The functions name the managed tensors by their
 * struct tags, which every dlpack.h declares. Host memory is kDLCPU, a CUDA device's memory
 * kDLCUDA (in a build with the feature `cuda`); strides are in elements and may be
 * negative or zero; int4/uint4 are kDLInt/kDLUInt of 4 bits, packed. Memory that
 * crosses is outside nxrig's claims for good (no donation writes it).
 *
 * C99 or later (nx_dtype.h's inline functions), or C++.
 */
#ifndef NX_CAPI_H
#define NX_CAPI_H

#include <stddef.h>
#include <stdint.h>

#include "nx_dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef DLPACK_DLPACK_H_
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 1
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

/* DLDeviceType's values nxrig reads: kDLCPU 1, kDLCUDA 2, kDLCUDAHost 3. */
typedef enum { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3 } DLDeviceType;

typedef struct {
    DLDeviceType device_type;
    int32_t device_id;
} DLDevice;

/* DLDataTypeCode's values nxrig reads and writes. */
typedef enum {
    kDLInt = 0U,
    kDLUInt = 1U,
    kDLFloat = 2U,
    kDLBfloat = 4U,
    kDLComplex = 5U,
    kDLBool = 6U,
    kDLFloat8_e4m3fn = 10U,
    kDLFloat8_e5m2 = 12U
} DLDataTypeCode;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;
#endif /* DLPACK_DLPACK_H_: dlpack.h not included first */

/** The call succeeded. */
#define NX_OK 0
/** The call failed: nx_last_error() says why. */
#define NX_ERROR 1

/** An nxrig array: its dtype, layout and buffer. Free it with nx_array_free. */
typedef struct nx_array nx_array;

/** The calling thread's last error message ("" before any), valid until the thread's
 *  next failing call. Never NULL. */
const char *nx_last_error(void);

/** *out = a fresh host array of `dtype` and `rank` extents `shape`, holding a copy of
 *  the `len` bytes at `bytes` (its elements in C order; `len` is exactly their size). */
int32_t nx_array_from_bytes(int32_t dtype, int32_t rank, const int64_t *shape,
                            const void *bytes, size_t len, nx_array **out);

/** a's dtype code, rank, extents (`shape` has room for 16) and the size
 *  of its elements in C order in bytes; any output may be NULL. */
int32_t nx_array_describe(const nx_array *a, int32_t *dtype, int32_t *rank, int64_t *shape,
                          size_t *nbytes);

/** Copies a's elements in C order into the `len` bytes at `dst` (len == nbytes). */
int32_t nx_array_read(const nx_array *a, void *dst, size_t len);

/** Stores the `len` bytes at `src` (C order, len == nbytes) into a's elements, whatever
 *  its layout, but one that reaches an element twice (a zero stride: refused); no other
 *  bit of its memory changes. */
int32_t nx_array_write(const nx_array *a, const void *src, size_t len);

/** Frees the handle (NULL: nothing); the memory goes once no other handle, view or
 *  exported tensor reaches it. */
void nx_array_free(nx_array *a);

/** *out = a DLPack 1.1 managed tensor over a's elements, without a copy (the device's
 *  work on them done first; data NULL for no elements). The consumer calls (*out)->deleter(*out) exactly once;
 *  until then the memory stays alive. Read-only memory carries
 *  DLPACK_FLAG_BITMASK_READ_ONLY. Fails for memory of a GPU through wgpu and for an
 *  int4/uint4 array starting on the high half of a byte. */
int32_t nx_array_to_dlpack(const nx_array *a, struct DLManagedTensorVersioned **out);

/** nx_array_to_dlpack as the legacy DLManagedTensor; fails for read-only memory, which
 *  it cannot mark. */
int32_t nx_array_to_dlpack_legacy(const nx_array *a, struct DLManagedTensor **out);

/** *out = an array over the tensor's memory, without a copy. nxrig calls t->deleter(t)
 *  exactly once: when the last handle, view or tensor over the memory goes, or before
 *  returning NX_ERROR (an unknown dtype or device type, a major version other than 1,
 *  a misaligned first element, ...). NULL `t` is an error with nothing to call. */
int32_t nx_array_from_dlpack(struct DLManagedTensorVersioned *t, nx_array **out);

/** nx_array_from_dlpack of a legacy DLManagedTensor (its memory taken as writable). */
int32_t nx_array_from_dlpack_legacy(struct DLManagedTensor *t, nx_array **out);

/** Tensors nx_array_to_dlpack and nx_array_to_dlpack_legacy gave whose deleter has not
 *  run: 0 once every consumer is done. */
size_t nx_dlpack_live_exports(void);

#ifdef __cplusplus
}
#endif

#endif /* NX_CAPI_H */
