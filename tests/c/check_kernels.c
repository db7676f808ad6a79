/*
 * check_kernels: runs nxrig's CUDA kernel sources (src/kernels/cuda/nx_kernels.cu),
 * compiled for the host as C99 through nx_launch.h, over nxrig's conversion vectors and
 * an add oracle, in three layouts each: contiguous; reversed (stride -1); and from odd
 * offsets with a stride of 2 into a destination whose other elements must keep their
 * bits (4-bit neighbours included).
 *
 * Usage:
 *   check_kernels cast SRC_CODE FILE
 *       FILE: raw vector records (the source element's storage bytes, then each of the
 *       19 targets' in code order). Checks nx_cast into every target, nx_transfer of
 *       the source dtype (every bit), and nx_fill with each record's target value.
 *   check_kernels add CODE FILE
 *       FILE: records of three elements of dtype CODE (storage bytes): x, y and the
 *       expected x + y. Checks nx_add.
 *   check_kernels op CODE OP FILE
 *       FILE: records of x and y (dtype CODE) and the expected result of NX_OP_<OP>
 *       (of CODE, or bool for a comparison). Checks nx_op2.
 *   check_kernels select CODE FILE
 *       FILE: records of a bool condition, x and y (dtype CODE) and the expected
 *       result. Checks nx_select.
 * Prints up to 20 mismatch lines and "<N> records, <M> mismatches"; exits 0 iff none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/kernels/cuda/nx_kernels.cu"
#include "../../src/kernels/cuda/nx_ops.cu"

static unsigned long long mismatches = 0;

static void mismatch(const char *what, int code, long long i, const uint8_t *got, const uint8_t *want)
{
    int w = nx_dtype_elem_bytes(code), k;
    const char *name = nx_dtype_name(code);
    if (mismatches++ >= 20) return;
    printf("%s %s element %lld: got ", what, name ? name : "?", i);
    for (k = w - 1; k >= 0; --k) printf("%02x", got[k]);
    printf(" want ");
    for (k = w - 1; k >= 0; --k) printf("%02x", want[k]);
    printf("\n");
}

/* A rank-1 walk: n elements from `offset` at `stride`. */
static nx_walk line(int64_t n, int64_t offset, int64_t stride)
{
    nx_walk w;
    memset(&w, 0, sizeof w);
    w.offset = offset;
    w.rank = 1;
    w.shape[0] = n;
    w.strides[0] = stride;
    return w;
}

/* Bytes of memory holding positions 0..count-1 of dtype code. */
static size_t mem_bytes(int code, int64_t count)
{
    if (nx_dtype_bits(code) < 8) return (size_t)(count + 1) / 2;
    return (size_t)count * (size_t)nx_dtype_elem_bytes(code);
}

/* The three layouts of n elements: (source walk, destination walk, memory positions). */
static void layout(int form, int64_t n, nx_walk *src, nx_walk *dst, int64_t *positions)
{
    if (form == 0) {
        *src = line(n, 0, 1);
        *dst = line(n, 0, 1);
        *positions = n;
    } else if (form == 1) {
        *src = line(n, n - 1, -1);
        *dst = line(n, n - 1, -1);
        *positions = n;
    } else {
        *src = line(n, 1, 2);
        *dst = line(n, 3, 2);
        *positions = 2 * n + 3;
    }
}

/* Checks every element of dst (dtype code, walk dw, `positions` positions) against
 * want[i] at index i, and every position the walk does not reach against the sentinel
 * memory `before`. */
static void check(const char *what, int code, const uint8_t *dst, const uint8_t *before, nx_walk dw,
                  int64_t n, int64_t positions, const uint8_t *want, size_t want_stride)
{
    int64_t i;
    int w = nx_dtype_elem_bytes(code);
    char *reached;
    if (w <= 0 || w > 16) return;
    reached = (char *)calloc((size_t)positions, 1);
    for (i = 0; i < n; ++i) {
        uint8_t got[16], exp[16];
        int64_t p = nx_walk_at(&dw, i);
        reached[p] = 1;
        nx_elem_load(dst, code, p, got);
        memcpy(exp, want + (size_t)i * want_stride, (size_t)w);
        if (nx_dtype_bits(code) < 8) exp[0] &= 0x0F;
        if (memcmp(got, exp, (size_t)w) != 0) mismatch(what, code, i, got, exp);
    }
    for (i = 0; i < positions; ++i) {
        uint8_t got[16], exp[16];
        if (reached[i]) continue;
        nx_elem_load(dst, code, i, got);
        nx_elem_load(before, code, i, exp);
        if (memcmp(got, exp, (size_t)w) != 0) mismatch("untouched", code, i, got, exp);
    }
    free(reached);
}

/* Memory of `positions` positions of dtype code holding elems (stride elem_stride) at
 * the walk's positions, and a sentinel pattern elsewhere. */
static uint8_t *place(int code, nx_walk w, int64_t n, int64_t positions, const uint8_t *elems, size_t elem_stride)
{
    size_t bytes = mem_bytes(code, positions) + 16;
    uint8_t *m = (uint8_t *)malloc(bytes);
    int64_t i;
    memset(m, 0xA5, bytes);
    for (i = 0; i < n; ++i) nx_elem_store(m, code, nx_walk_at(&w, i), elems + (size_t)i * elem_stride);
    return m;
}

/* The bytes of the file at path, whole records of `rec` bytes; their count in *n.
 * Exits 2 if the file cannot be read or is not whole records. */
static uint8_t *load_records(const char *path, size_t rec, int64_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long size;
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (uint8_t *)malloc((size_t)size + 1);
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        perror(path);
        exit(2);
    }
    fclose(f);
    if ((size_t)size % rec != 0) {
        fprintf(stderr, "%s: not whole records\n", path);
        exit(2);
    }
    *n = (int64_t)((size_t)size / rec);
    return buf;
}

static int cmd_cast(int sd, const char *path)
{
    size_t rec = (size_t)nx_dtype_elem_bytes(sd), off[NX_DTYPE_COUNT];
    uint8_t *data;
    int64_t n;
    int t, form;
    for (t = 0; t < NX_DTYPE_COUNT; ++t) {
        off[t] = rec;
        rec += (size_t)nx_dtype_elem_bytes(t);
    }
    data = load_records(path, rec, &n);
    for (form = 0; form < 3; ++form) {
        nx_walk sw, dw;
        int64_t positions;
        uint8_t *src;
        layout(form, n, &sw, &dw, &positions);
        src = place(sd, sw, n, positions, data, rec);
        for (t = 0; t < NX_DTYPE_COUNT; ++t) {
            uint8_t *dst = place(t, dw, 0, positions, data, rec);
            uint8_t *before = place(t, dw, 0, positions, data, rec);
            nx_cast(src, sw, sd, dst, dw, t, n);
            check("cast", t, dst, before, dw, n, positions, data + off[t], rec);
            /* fill: every element the first record's target value */
            if (n > 0) {
                uint8_t *want = (uint8_t *)malloc((size_t)n * 16);
                int64_t i;
                for (i = 0; i < n; ++i) memcpy(want + i * 16, data + off[t], (size_t)nx_dtype_elem_bytes(t));
                memcpy(dst, before, mem_bytes(t, positions));
                nx_fill(dst, dw, t, data + off[t], n);
                check("fill", t, dst, before, dw, n, positions, want, 16);
                free(want);
            }
            free(dst);
            free(before);
        }
        {
            uint8_t *dst = place(sd, dw, 0, positions, data, rec);
            uint8_t *before = place(sd, dw, 0, positions, data, rec);
            nx_transfer(src, sw, dst, dw, sd, n);
            check("transfer", sd, dst, before, dw, n, positions, data, rec);
            free(dst);
            free(before);
        }
        free(src);
    }
    printf("%lld records, %llu mismatches\n", (long long)n, mismatches);
    free(data);
    return mismatches ? 1 : 0;
}

/* add (op < 0), an operation of nx_ops.cu (op its NX_OP_* number) or select (`sel`):
 * records of [a bool condition, for select] x, y and the expected result, run over
 * each form of layout() with the destination's other elements kept. */
static int cmd_elementwise(const char *what, int sel, int code, int op, const char *path)
{
    int oc = (op >= 0 && nx_op_compares(op)) ? NX_DTYPE_BOOL : code;
    size_t c0 = sel ? 1 : 0, w = (size_t)nx_dtype_elem_bytes(code);
    size_t rec = c0 + 2 * w + (size_t)nx_dtype_elem_bytes(oc);
    int64_t n;
    uint8_t *data = load_records(path, rec, &n);
    int form;
    for (form = 0; form < 3; ++form) {
        nx_walk sw, dw;
        int64_t positions;
        uint8_t *c = NULL, *x, *y, *out, *before;
        layout(form, n, &sw, &dw, &positions);
        if (sel) c = place(NX_DTYPE_BOOL, sw, n, positions, data, rec);
        x = place(code, sw, n, positions, data + c0, rec);
        y = place(code, sw, n, positions, data + c0 + w, rec);
        out = place(oc, dw, 0, positions, data + c0, rec);
        before = place(oc, dw, 0, positions, data + c0, rec);
        if (sel)
            nx_select(c, sw, x, sw, y, sw, out, dw, code, n);
        else if (op < 0)
            nx_add(x, sw, y, sw, out, dw, code, n);
        else
            nx_op2(x, sw, y, sw, out, dw, code, op, n);
        check(what, oc, out, before, dw, n, positions, data + c0 + 2 * w, rec);
        free(c);
        free(x);
        free(y);
        free(out);
        free(before);
    }
    printf("%lld records, %llu mismatches\n", (long long)n, mismatches);
    free(data);
    return mismatches ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "op") == 0) return cmd_elementwise("op", 0, atoi(argv[2]), atoi(argv[3]), argv[4]);
    if (argc == 4 && strcmp(argv[1], "select") == 0) return cmd_elementwise("select", 1, atoi(argv[2]), -1, argv[3]);
    if (argc == 4 && strcmp(argv[1], "cast") == 0) return cmd_cast(atoi(argv[2]), argv[3]);
    if (argc == 4 && strcmp(argv[1], "add") == 0) return cmd_elementwise("add", 0, atoi(argv[2]), -1, argv[3]);
    fprintf(stderr, "usage: check_kernels cast SRC_CODE FILE | add CODE FILE | op CODE OP FILE | select CODE FILE\n");
    return 2;
}
