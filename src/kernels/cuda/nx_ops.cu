/*
 * nx_ops.cu: nxrig's elementwise operations besides add for CUDA devices, after
 * nx_kernels.cu (its walks, loads and stores, nx_add_float): nx_op2 (sub, mul, div,
 * maximum, minimum, neg, abs and the comparisons, numbered as NX_OP_*) and nx_select.
 * The rules are those of nxrig's host and GPU kernels, bit for bit: floats through
 * double and rounded once by nx_convert (double's 53 bits are more than twice a
 * narrower float's plus two, so its rounding never changes theirs; float64's is
 * double's own); a NaN operand gives that NaN quieted (x's first), a NaN made of
 * numbers the positive quiet NaN; maximum and minimum order -0 below +0; integers wrap
 * and divide by floor (x // 0 is 0); complex sub, mul ((ac - bd) + (ad + bc)i, each
 * real operation rounded), neg, eq, ne by parts. tests/cuda_kernels.rs runs them on
 * the host against nxrig's host operations.
 */

#define NX_OP_SUB 0
#define NX_OP_MUL 1
#define NX_OP_DIV 2
#define NX_OP_MAXIMUM 3
#define NX_OP_MINIMUM 4
#define NX_OP_NEG 5
#define NX_OP_ABS 6
#define NX_OP_EQ 7
#define NX_OP_NE 8
#define NX_OP_LT 9
#define NX_OP_LE 10
#define NX_OP_GT 11
#define NX_OP_GE 12

/** 1 for the comparisons (their results are bool). */
NX_FN int nx_op_compares(int op)
{
    return op >= NX_OP_EQ;
}

/** The result of a comparison of a and b (doubles, or anything ordered). */
#define NX_COMPARE(op, a, b)                                                             \
    ((op) == NX_OP_EQ ? (a) == (b) : (op) == NX_OP_NE ? (a) != (b)                       \
     : (op) == NX_OP_LT ? (a) < (b) : (op) == NX_OP_LE ? (a) <= (b)                       \
     : (op) == NX_OP_GT ? (a) > (b) : (a) >= (b))

/** op on two real float elements of dtype code (storage bytes) into out. */
NX_FN void nx_float_op(int op, int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    uint8_t da[8], db[8], dr[8];
    int w = nx_dtype_elem_bytes(code);
    uint64_t sign = 1ull << (nx_dtype_bits(code) - 1);
    uint64_t va = nx_load_le(a, w), vb = nx_load_le(b, w);
    double x, y, r;
    if (op == NX_OP_NEG || op == NX_OP_ABS) {
        nx_store_le(out, w, op == NX_OP_NEG ? va ^ sign : va & ~sign);
        return;
    }
    nx_convert(NX_DTYPE_FLOAT64, da, code, a);
    nx_convert(NX_DTYPE_FLOAT64, db, code, b);
    x = nx_f64_of(da);
    y = nx_f64_of(db);
    if (nx_op_compares(op)) {
        out[0] = (uint8_t)(NX_COMPARE(op, x, y) ? 1 : 0);
        return;
    }
    if (x != x) {
        nx_convert(code, out, code, a);
        return;
    }
    if (y != y) {
        nx_convert(code, out, code, b);
        return;
    }
    if (op == NX_OP_MAXIMUM || op == NX_OP_MINIMUM) {
        int max = op == NX_OP_MAXIMUM;
        if (x == y) {
            /* One value, or two zeros: +0 unless both are -0 (maximum). */
            nx_store_le(out, w, max ? (va & vb) : (va | vb));
        } else {
            nx_store_le(out, w, (x > y) == max ? va : vb);
        }
        return;
    }
    r = op == NX_OP_SUB ? x - y : op == NX_OP_MUL ? x * y : x / y;
    if (r != r) {
        nx_default_nan(code, out);
        return;
    }
    nx_f64_put(dr, r);
    nx_convert(code, out, NX_DTYPE_FLOAT64, dr);
}

/** A w-bit two's complement value's int64 (w <= 64). */
NX_FN int64_t nx_signed_of(uint64_t v, int w)
{
    uint64_t top = 1ull << (w - 1);
    return (int64_t)((v ^ top) - top);
}

/** op on two integer elements of dtype code (storage bytes; a 4-bit one in a byte). */
NX_FN void nx_int_op(int op, int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    int w = nx_dtype_elem_bytes(code), bits = nx_dtype_bits(code);
    int s = nx_dtype_is_signed_int(code);
    uint64_t m = nx_mask64(bits);
    uint64_t ua = nx_load_le(a, w) & m, ub = nx_load_le(b, w) & m, r = 0;
    int64_t sa = nx_signed_of(ua, bits), sb = nx_signed_of(ub, bits);
    if (nx_op_compares(op)) {
        out[0] = (uint8_t)((s ? NX_COMPARE(op, sa, sb) : NX_COMPARE(op, ua, ub)) ? 1 : 0);
        return;
    }
    switch (op) {
    case NX_OP_SUB: r = ua - ub; break;
    case NX_OP_MUL: r = ua * ub; break;
    case NX_OP_DIV:
        if (ub == 0) {
            r = 0;
        } else if (!s) {
            r = ua / ub;
        } else if (sb == -1) {
            r = 0 - ua; /* MIN // -1 wraps to MIN */
        } else {
            int64_t q = sa / sb;
            if (sa % sb != 0 && ((sa < 0) != (sb < 0))) q -= 1;
            r = (uint64_t)q;
        }
        break;
    case NX_OP_MAXIMUM: r = (s ? sa > sb : ua > ub) ? ua : ub; break;
    case NX_OP_MINIMUM: r = (s ? sa < sb : ua < ub) ? ua : ub; break;
    case NX_OP_NEG: r = 0 - ua; break;
    default: r = (s && sa < 0) ? 0 - ua : ua; break; /* abs */
    }
    nx_store_le(out, w, r & m);
}

/** op on two elements of dtype code (storage bytes) into out (bool for a comparison). */
NX_FN void nx_op_elem(int op, int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    int kind = nx_dtype_kind(code);
    if (kind == NX_KIND_FLOAT) {
        nx_float_op(op, code, a, b, out);
    } else if (kind == NX_KIND_INT) {
        nx_int_op(op, code, a, b, out);
    } else if (kind == NX_KIND_BOOL) {
        int x = a[0] != 0, y = b[0] != 0, t;
        switch (op) {
        case NX_OP_MAXIMUM: t = x || y; break;
        case NX_OP_MUL:
        case NX_OP_MINIMUM: t = x && y; break;
        case NX_OP_ABS: t = x; break;
        default: t = NX_COMPARE(op, x, y); break;
        }
        out[0] = (uint8_t)(t ? 1 : 0);
    } else {
        int c = code == NX_DTYPE_COMPLEX64 ? NX_DTYPE_FLOAT32 : NX_DTYPE_FLOAT64;
        int h = nx_dtype_elem_bytes(code) / 2;
        if (op == NX_OP_MUL) {
            uint8_t p[4][8];
            nx_float_op(NX_OP_MUL, c, a, b, p[0]);
            nx_float_op(NX_OP_MUL, c, a + h, b + h, p[1]);
            nx_float_op(NX_OP_MUL, c, a, b + h, p[2]);
            nx_float_op(NX_OP_MUL, c, a + h, b, p[3]);
            nx_float_op(NX_OP_SUB, c, p[0], p[1], out);
            nx_add_float(c, p[2], p[3], out + h);
        } else if (op == NX_OP_EQ || op == NX_OP_NE) {
            uint8_t re, im;
            nx_float_op(NX_OP_EQ, c, a, b, &re);
            nx_float_op(NX_OP_EQ, c, a + h, b + h, &im);
            out[0] = (uint8_t)((re && im) == (op == NX_OP_EQ));
        } else {
            nx_float_op(op, c, a, b, out);
            nx_float_op(op, c, a + h, b + h, out + h);
        }
    }
}

/** out = op(x, y) elementwise (x and y of dtype code, broadcast to out's shape
 *  already; out of code, or bool for a comparison). A unary op reads x alone. */
NX_KERNEL void nx_op2(const uint8_t *x, nx_walk xw, const uint8_t *y, nx_walk yw, uint8_t *out, nx_walk ow, int32_t code, int32_t op, int64_t n)
{
    int oc = nx_op_compares(op) ? NX_DTYPE_BOOL : code;
    NX_FOR_EACH(i, n) {
        uint8_t a[16], b[16], r[16] = {0};
        nx_elem_load(x, code, nx_walk_at(&xw, i), a);
        nx_elem_load(y, code, nx_walk_at(&yw, i), b);
        nx_op_elem(op, code, a, b, r);
        nx_elem_store(out, oc, nx_walk_at(&ow, i), r);
    }
}

/** out = cond ? x : y elementwise, x's or y's bits as they are (x, y and out of dtype
 *  code; cond bool, any nonzero byte true; all broadcast to out's shape already). */
NX_KERNEL void nx_select(const uint8_t *c, nx_walk cw, const uint8_t *x, nx_walk xw, const uint8_t *y, nx_walk yw, uint8_t *out, nx_walk ow, int32_t code, int64_t n)
{
    NX_FOR_EACH(i, n) {
        uint8_t t[16], e[16];
        nx_elem_load(c, NX_DTYPE_BOOL, nx_walk_at(&cw, i), t);
        if (t[0] != 0) {
            nx_elem_load(x, code, nx_walk_at(&xw, i), e);
        } else {
            nx_elem_load(y, code, nx_walk_at(&yw, i), e);
        }
        nx_elem_store(out, code, nx_walk_at(&ow, i), e);
    }
}
