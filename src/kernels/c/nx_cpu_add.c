/* The C host add kernel: out = x + y over nx_array.h operands. nxrig calls it through
 * the door (src/kernels/c_add.rs), which has claimed and locked every operand. */
#include "nx_array.h"

#include <string.h>

/* Element position of the current index of `a`. */
static int64_t position(const nx_operand *a, const int64_t *index)
{
    int64_t p = a->offset;
    int k;
    for (k = 0; k < a->rank; ++k) p += index[k] * a->strides[k];
    return p;
}

/* Loads element p of `a` as storage bytes (a sub-byte element in one byte). */
static void load(const nx_operand *a, int64_t p, uint8_t *e)
{
    int w = nx_dtype_elem_bytes(a->dtype);
    if (nx_dtype_bits(a->dtype) < 8) {
        e[0] = nx_nibble_get(a->data, p);
    } else {
        memcpy(e, a->data + p * w, (size_t)w);
    }
}

static void store(const nx_operand *a, int64_t p, const uint8_t *e)
{
    int w = nx_dtype_elem_bytes(a->dtype);
    if (nx_dtype_bits(a->dtype) < 8) {
        nx_nibble_set(a->data, p, e[0]);
    } else {
        memcpy(a->data + p * w, e, (size_t)w);
    }
}

/* The sum of two real float elements of dtype `code`, through double. */
static void add_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    double x, y, s;
    nx_convert(NX_DTYPE_FLOAT64, &x, code, a);
    nx_convert(NX_DTYPE_FLOAT64, &y, code, b);
    s = x + y;
    nx_convert(code, out, NX_DTYPE_FLOAT64, &s);
}

static void add_element(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    int w = nx_dtype_elem_bytes(code);
    switch (nx_dtype_kind(code)) {
    case NX_KIND_FLOAT:
        add_float(code, a, b, out);
        break;
    case NX_KIND_COMPLEX: {
        int c = nx_complex_part(code);
        int h = w / 2;
        add_float(c, a, b, out);
        add_float(c, a + h, b + h, out + h);
        break;
    }
    case NX_KIND_BOOL:
        out[0] = (uint8_t)((a[0] | b[0]) != 0);
        break;
    default: {
        uint64_t s = nx_load_le(a, w) + nx_load_le(b, w);
        int bits = nx_dtype_value_bits(code);
        if (bits < 64) s &= (UINT64_C(1) << bits) - 1u;
        nx_store_le(out, w, s);
    }
    }
}

int nx_cpu_add(const nx_operand *out, const nx_operand *x, const nx_operand *y)
{
    int64_t index[NX_MAX_RANK];
    int64_t n = 1;
    int k, r = out->rank;
    if (x->dtype != out->dtype || y->dtype != out->dtype) return NX_WRONG_DTYPE;
    if (x->rank != r || y->rank != r) return NX_SHAPE_MISMATCH;
    for (k = 0; k < r; ++k) {
        if (x->shape[k] != out->shape[k] || y->shape[k] != out->shape[k]) return NX_SHAPE_MISMATCH;
        n *= out->shape[k];
        index[k] = 0;
    }
    while (n-- > 0) {
        uint8_t a[16], b[16], s[16];
        load(x, position(x, index), a);
        load(y, position(y, index), b);
        add_element(out->dtype, a, b, s);
        store(out, position(out, index), s);
        for (k = r - 1; k >= 0; --k) {
            if (++index[k] < out->shape[k]) break;
            index[k] = 0;
        }
    }
    return NX_DONE;
}
