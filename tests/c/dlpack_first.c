/* nx_capi.h after a released <dlpack/dlpack.h> (v1.0, v1.1), which declares
 * `struct DLManagedTensorVersioned` without a typedef: its own structures stand, and
 * nx_capi.h's functions take them. The stand-in below declares what such a header
 * declares, under its include guard. For tests/c_header.rs. */
#include <stdint.h>
#include <stdio.h>

#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_
typedef struct { uint32_t major; uint32_t minor; } DLPackVersion;
typedef enum { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLOpenCL = 4 } DLDeviceType;
typedef struct { DLDeviceType device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
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
struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
};
#endif

#include "nx_capi.h"

int main(void)
{
    /* The functions' types, with the first header's structures. */
    int32_t (*to)(const nx_array *, struct DLManagedTensorVersioned **) = nx_array_to_dlpack;
    int32_t (*from)(DLManagedTensor *, nx_array **) = nx_array_from_dlpack_legacy;
    printf("%d %d\n", to != 0, from != 0);
    return 0;
}
