/* Prints nx_capi.h's DLPack structures (sizes and field offsets) and constants, for
 * tests/c_header.rs to hold against the Rust structures of nxrig::array::dlpack. */
#include <stddef.h>
#include <stdio.h>

#include "nx_capi.h"

int main(void)
{
    printf("%zu %zu %zu %zu %zu %zu\n", sizeof(DLPackVersion), sizeof(DLDevice),
           sizeof(DLDataType), sizeof(DLTensor), sizeof(DLManagedTensor),
           sizeof(DLManagedTensorVersioned));
    printf("%zu %zu %zu %zu %zu %zu %zu\n", offsetof(DLTensor, device), offsetof(DLTensor, ndim),
           offsetof(DLTensor, dtype), offsetof(DLTensor, shape), offsetof(DLTensor, strides),
           offsetof(DLTensor, byte_offset), offsetof(DLManagedTensor, deleter));
    printf("%zu %zu %zu %zu\n", offsetof(DLManagedTensorVersioned, manager_ctx),
           offsetof(DLManagedTensorVersioned, deleter), offsetof(DLManagedTensorVersioned, flags),
           offsetof(DLManagedTensorVersioned, dl_tensor));
    printf("%d %d %lu %lu %lu %d %d %d\n", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION,
           DLPACK_FLAG_BITMASK_READ_ONLY, DLPACK_FLAG_BITMASK_IS_COPIED,
           DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED, kDLCPU, kDLCUDA, kDLCUDAHost);
    printf("%d %d %d %d %d %d %d %d %d %d\n", kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLComplex,
           kDLBool, kDLFloat8_e4m3fn, kDLFloat8_e5m2, NX_OK, NX_ERROR);
    return 0;
}
