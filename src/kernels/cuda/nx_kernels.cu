/*
 * nx_kernels.cu: nxrig's kernels for CUDA devices, over include/nx_dtype.h and
 * include/nx_array.h: transfer (every dtype, any layouts, 4-bit elements at any
 * position), fill, cast (every pair, the header's nx_convert: one rounding) and add.
 * CUDA C++ for NVRTC, and C99 for the host through nx_launch.h, where nxrig's tests run
 * them over the full conversion vectors and the add oracle (tests/kernels_c.rs).
 *
 * Every kernel takes n, the elements of the shape its operands share, and one nx_walk a
 * operand: position p of index i (C order) is offset + sum(index[k] * strides[k]), in
 * elements; a 4-bit element is nibble p of the memory, a wider one its bytes from
 * p * width. Seed: Nx_array, section Kernels.
 */
#include "nx_launch.h"

/** An operand's layout as a kernel walks it (elements). */
typedef struct nx_walk {
    int64_t offset;
    int32_t rank;
    int32_t pad;
    int64_t shape[NX_MAX_RANK];
    int64_t strides[NX_MAX_RANK];
} nx_walk;

/** The position of index i (C order) of w. */
NX_FN int64_t nx_walk_at(const nx_walk *w, int64_t i)
{
    int64_t p = w->offset;
    int k;
    for (k = w->rank - 1; k >= 0; --k) {
        int64_t n = w->shape[k];
        p += (i % n) * w->strides[k];
        i /= n;
    }
    return p;
}

/** Element p of dtype code in mem, as its storage bytes (a 4-bit one in one byte). */
NX_FN void nx_elem_load(const uint8_t *mem, int code, int64_t p, uint8_t *e)
{
    int w = nx_dtype_elem_bytes(code), k;
    if (nx_dtype_bits(code) < 8) {
        e[0] = nx_nibble_get(mem, p);
        return;
    }
    for (k = 0; k < w; ++k) e[k] = mem[p * w + k];
}

/** Stores storage bytes e as element p of dtype code in mem. */
NX_FN void nx_elem_store(uint8_t *mem, int code, int64_t p, const uint8_t *e)
{
    int w = nx_dtype_elem_bytes(code), k;
    if (nx_dtype_bits(code) < 8) {
        nx_nibble_put(mem, p, e[0]);
        return;
    }
    for (k = 0; k < w; ++k) mem[p * w + k] = e[k];
}

/** dst's elements = src's, bit for bit (one dtype). */
NX_KERNEL void nx_transfer(const uint8_t *src, nx_walk sw, uint8_t *dst, nx_walk dw, int32_t code, int64_t n)
{
    NX_FOR_EACH(i, n) {
        uint8_t e[16];
        nx_elem_load(src, code, nx_walk_at(&sw, i), e);
        nx_elem_store(dst, code, nx_walk_at(&dw, i), e);
    }
}

/** Every element of dst = the storage bytes `bits` (of dtype code). */
NX_KERNEL void nx_fill(uint8_t *dst, nx_walk dw, int32_t code, const uint8_t *bits, int64_t n)
{
    NX_FOR_EACH(i, n) {
        nx_elem_store(dst, code, nx_walk_at(&dw, i), bits);
    }
}

/** dst's elements = src's converted from dtype sd into dd by nx_convert. */
NX_KERNEL void nx_cast(const uint8_t *src, nx_walk sw, int32_t sd, uint8_t *dst, nx_walk dw, int32_t dd, int64_t n)
{
    NX_FOR_EACH(i, n) {
        uint8_t e[16], o[16] = {0};
        nx_elem_load(src, sd, nx_walk_at(&sw, i), e);
        nx_convert(dd, o, sd, e);
        nx_elem_store(dst, dd, nx_walk_at(&dw, i), o);
    }
}

/** The double whose bits are the 8 little-endian bytes at p. */
NX_FN double nx_f64_of(const uint8_t *p)
{
    union {
        uint64_t u;
        double d;
    } v;
    v.u = nx_load_le(p, 8);
    return v.d;
}

/** Stores d's bits at p, little-endian. */
NX_FN void nx_f64_put(uint8_t *p, double d)
{
    union {
        uint64_t u;
        double d;
    } v;
    v.d = d;
    nx_store_le(p, 8, v.u);
}

/** The quiet NaN of positive sign and no payload, in dtype code (a float). */
NX_FN void nx_default_nan(int code, uint8_t *out)
{
    uint8_t q[8];
    nx_store_le(q, 8, 0x7ff8000000000000ull);
    nx_convert(code, out, NX_DTYPE_FLOAT64, q);
}

/** The sum of two real float elements a, b of dtype code: a NaN operand gives that NaN
 *  quieted (its sign and payload kept; a's first), infinities of opposite signs the
 *  positive quiet NaN, else the exact sum rounded once into code (through double:
 *  float64's sum is double's; for the narrower ones double's 53 bits are more than
 *  twice theirs plus two, so its rounding never changes theirs). */
NX_FN void nx_add_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    uint8_t da[8], db[8], ds[8];
    uint64_t xa, xb;
    int nan_a, nan_b, inf_a, inf_b;
    double x, y, s;
    nx_convert(NX_DTYPE_FLOAT64, da, code, a);
    nx_convert(NX_DTYPE_FLOAT64, db, code, b);
    xa = nx_load_le(da, 8);
    xb = nx_load_le(db, 8);
    nan_a = (xa & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
    nan_b = (xb & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
    inf_a = (xa & 0x7fffffffffffffffull) == 0x7ff0000000000000ull;
    inf_b = (xb & 0x7fffffffffffffffull) == 0x7ff0000000000000ull;
    if (nan_a) {
        nx_convert(code, out, code, a);
        return;
    }
    if (nan_b) {
        nx_convert(code, out, code, b);
        return;
    }
    if (inf_a && inf_b && xa != xb) {
        nx_default_nan(code, out);
        return;
    }
    x = nx_f64_of(da);
    y = nx_f64_of(db);
    s = x + y;
    nx_f64_put(ds, s);
    nx_convert(code, out, NX_DTYPE_FLOAT64, ds);
}

/** The sum of two elements of dtype code (storage bytes): floats as nx_add_float,
 *  complex per component, integers wrapping, bool as `or`. */
NX_FN void nx_add_elem(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    int w = nx_dtype_elem_bytes(code);
    int kind = nx_dtype_kind(code);
    if (kind == NX_KIND_FLOAT) {
        nx_add_float(code, a, b, out);
    } else if (kind == NX_KIND_COMPLEX) {
        int c = nx_complex_part(code);
        int h = w / 2;
        nx_add_float(c, a, b, out);
        nx_add_float(c, a + h, b + h, out + h);
    } else if (kind == NX_KIND_BOOL) {
        out[0] = (uint8_t)((a[0] | b[0]) != 0);
    } else {
        uint64_t s = nx_load_le(a, w) + nx_load_le(b, w);
        nx_store_le(out, w, s & nx_mask64(nx_dtype_value_bits(code)));
    }
}

/** out = x + y elementwise (one dtype; x and y broadcast to out's shape already). */
NX_KERNEL void nx_add(const uint8_t *x, nx_walk xw, const uint8_t *y, nx_walk yw, uint8_t *out, nx_walk ow, int32_t code, int64_t n)
{
    NX_FOR_EACH(i, n) {
        uint8_t a[16], b[16], s[16] = {0};
        nx_elem_load(x, code, nx_walk_at(&xw, i), a);
        nx_elem_load(y, code, nx_walk_at(&yw, i), b);
        nx_add_elem(code, a, b, s);
        nx_elem_store(out, code, nx_walk_at(&ow, i), s);
    }
}
