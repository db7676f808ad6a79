/*
 * nx_array.h: the C view of nxrig's arrays for host kernels.
 *
 * A kernel receives one nx_operand per array, made by nxrig after the door claimed
 * every operand (seed: Nx_array, section Kernels), and answers an nx_answer. The
 * answer codes are the seed's `answer` constructors, in order; NX_MAX_OPERANDS is the
 * seed's `max_operands`.
 *
 * An operand's elements: element position p = offset + sum(index[k] * strides[k]),
 * in elements; for dtypes of a byte or more its bytes start at data + p * width, for
 * int4/uint4 it is nibble p of data (nx_nibble_get). Shapes, strides and offsets are
 * in elements; strides may be negative or zero.
 */
#ifndef NX_ARRAY_H
#define NX_ARRAY_H

#include "nx_dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The most operands of one kernel call (seed: Nx_array.max_operands). */
#define NX_MAX_OPERANDS 18
/** The most axes of an array (seed: Layout.max_rank). */
#define NX_MAX_RANK 16

/** What a kernel answers, in the seed's order (Nx_array.answer). */
typedef enum nx_answer {
    NX_DONE = 0,              /**< The work is done. */
    NX_DECLINED = 1,          /**< The kernel does not compute this case. */
    NX_WRONG_DTYPE = 2,       /**< An operand's dtype is not the one the kernel loads. */
    NX_DEAD_BUFFER = 3,       /**< An operand's buffer is dead. */
    NX_OFF_HOST = 4,          /**< The host does not address an operand's memory. */
    NX_HELD_EXCLUSIVE = 5,    /**< An operand's memory is held exclusive. */
    NX_READ_ONLY = 6,         /**< A written operand's memory admits only reads. */
    NX_REPEATED_ELEMENTS = 7, /**< A written operand reaches an element twice. */
    NX_OVERLAPPING = 8,       /**< A written operand shares bytes with another operand. */
    NX_SHAPE_MISMATCH = 9     /**< The operands do not fit the operation. */
} nx_answer;

/** One array as a kernel sees it. */
typedef struct nx_operand {
    /** Address of element position 0 (the buffer's first byte). */
    NX_ADDR uint8_t *data;
    /** Dtype code (NX_DTYPE_*). */
    int32_t dtype;
    /** Number of axes, 0 to NX_MAX_RANK. */
    int32_t rank;
    /** Extent of each axis (elements). */
    int64_t shape[NX_MAX_RANK];
    /** Stride of each axis (elements; may be negative or zero). */
    int64_t strides[NX_MAX_RANK];
    /** Element position of index 0. */
    int64_t offset;
} nx_operand;

/** out = x + y elementwise over any layouts of one shape and one dtype: floats add
 *  exactly in double and round once into their dtype, integers wrap, bool is `or`,
 *  complex adds each component. Answers NX_WRONG_DTYPE or NX_SHAPE_MISMATCH before
 *  any write, else NX_DONE. Defined in nxrig's src/kernels/c/nx_cpu_add.c. */
int nx_cpu_add(const nx_operand *out, const nx_operand *x, const nx_operand *y);

#ifdef __cplusplus
}
#endif

#endif /* NX_ARRAY_H */
