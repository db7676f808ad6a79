/*
 * nx_ops.cu: nxrig's elementwise operations besides add for CUDA devices, after
 * nx_kernels.cu (its walks, loads and stores, nx_add_float): nx_op2 (the operations
 * of src/dtype/operations/rows.rs, numbered as NX_OP_* in the table's order) and
 * nx_select. Each operation's C is its row's (the section below is written from the
 * table); the helpers its rows call are here. The rules are those of nxrig's host and
 * GPU kernels, bit for bit: floats through double and rounded once by nx_convert
 * (double's 53 bits are more than twice a narrower float's plus two, so its rounding
 * never changes theirs; float64's is double's own); a NaN operand gives that NaN
 * quieted (x's first), a NaN made of numbers the positive quiet NaN; integers wrap and
 * divide by floor (x // 0 is 0). tests/kernels_c.rs runs them on the host against
 * nxrig's host operations.
 */

/** The value of a real float element of dtype code (storage bytes), exactly. */
NX_FN double nx_float_value(int code, const uint8_t *a)
{
    uint8_t d[8];
    nx_convert(NX_DTYPE_FLOAT64, d, code, a);
    return nx_f64_of(d);
}

/** The float operations' NaN rule: where x or y (a's and b's values, of dtype code) is
 *  a NaN, stores that NaN quieted into out (a's first) and returns 1; else 0. */
NX_FN int nx_float_nan(int code, const uint8_t *a, const uint8_t *b, double x, double y, uint8_t *out)
{
    if (x != x) {
        nx_convert(code, out, code, a);
        return 1;
    }
    if (y != y) {
        nx_convert(code, out, code, b);
        return 1;
    }
    return 0;
}

/** Stores r rounded once into dtype code (a NaN, made of numbers: the positive quiet
 *  NaN). */
NX_FN void nx_float_put(int code, uint8_t *out, double r)
{
    uint8_t d[8];
    if (r != r) {
        nx_default_nan(code, out);
        return;
    }
    nx_f64_put(d, r);
    nx_convert(code, out, NX_DTYPE_FLOAT64, d);
}

/** A w-bit two's complement value's int64 (w <= 64). */
NX_FN int64_t nx_signed_of(uint64_t v, int w)
{
    uint64_t top = 1ull << (w - 1);
    return (int64_t)((v ^ top) - top);
}

/** The operands of an integer operation of dtype code (storage bytes a, b; a 4-bit
 *  one in a byte): w its bytes, m the mask of its bits, s whether signed, ua and ub
 *  the bits, sa and sb their signed values. */
#define NX_INT_OPERANDS(code, a, b)                                                      \
    int w = nx_dtype_elem_bytes(code), bits = nx_dtype_value_bits(code);                \
    int s = nx_dtype_is_signed_int(code);                                                \
    uint64_t m = nx_mask64(bits);                                                        \
    uint64_t ua = nx_load_le(a, w) & m, ub = nx_load_le(b, w) & m;                       \
    int64_t sa = nx_signed_of(ua, bits), sb = nx_signed_of(ub, bits);                    \
    (void)w;                                                                             \
    (void)s;                                                                             \
    (void)m;                                                                             \
    (void)ub;                                                                            \
    (void)sa;                                                                            \
    (void)sb

/** ua // ub as NumPy's floor division of w-bit integers (sa, sb their signed values,
 *  s whether signed): x // 0 is 0, MIN // -1 wraps to MIN. */
NX_FN uint64_t nx_floor_div(uint64_t ua, uint64_t ub, int64_t sa, int64_t sb, int s)
{
    int64_t q;
    if (ub == 0) return 0;
    if (!s) return ua / ub;
    if (sb == -1) return 0 - ua;
    q = sa / sb;
    if (sa % sb != 0 && ((sa < 0) != (sb < 0))) q -= 1;
    return (uint64_t)q;
}

/* BEGIN the operations: written by src/kernels/cuda_section.rs from src/dtype/operations/rows.rs. */

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

NX_FN void nx_complex_mul(int code, const uint8_t *a, const uint8_t *b, uint8_t *out);

/** sub of two real float elements of dtype code. */
NX_FN void nx_op_sub_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    double x = nx_float_value(code, a), y = nx_float_value(code, b);
    if (!nx_float_nan(code, a, b, x, y, out)) nx_float_put(code, out, x - y);
}

/** sub of two integer elements of dtype code. */
NX_FN void nx_op_sub_int(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    NX_INT_OPERANDS(code, a, b);
    nx_store_le(out, w, (uint64_t)(ua - ub) & m);
}

/** sub of two elements of dtype code. */
NX_FN void nx_op_sub(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    switch (nx_dtype_kind(code)) {
    case NX_KIND_FLOAT: nx_op_sub_float(code, a, b, out); break;
    case NX_KIND_INT: nx_op_sub_int(code, a, b, out); break;
    case NX_KIND_COMPLEX: {
        int c = nx_complex_part(code), h = nx_dtype_elem_bytes(code) / 2;
        nx_op_sub_float(c, a, b, out);
        nx_op_sub_float(c, a + h, b + h, out + h);
        break;
    }
    default: break;
    }
}

/** mul of two real float elements of dtype code. */
NX_FN void nx_op_mul_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    double x = nx_float_value(code, a), y = nx_float_value(code, b);
    if (!nx_float_nan(code, a, b, x, y, out)) nx_float_put(code, out, x * y);
}

/** mul of two integer elements of dtype code. */
NX_FN void nx_op_mul_int(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    NX_INT_OPERANDS(code, a, b);
    nx_store_le(out, w, (uint64_t)(ua * ub) & m);
}

/** mul of two elements of dtype code. */
NX_FN void nx_op_mul(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    switch (nx_dtype_kind(code)) {
    case NX_KIND_FLOAT: nx_op_mul_float(code, a, b, out); break;
    case NX_KIND_INT: nx_op_mul_int(code, a, b, out); break;
    case NX_KIND_BOOL: {
        int x = a[0] != 0, y = b[0] != 0;
        (void)y;
        out[0] = (uint8_t)((x && y) ? 1 : 0);
        break;
    }
    case NX_KIND_COMPLEX: nx_complex_mul(code, a, b, out); break;
    default: break;
    }
}

/** div of two real float elements of dtype code. */
NX_FN void nx_op_div_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    double x = nx_float_value(code, a), y = nx_float_value(code, b);
    if (!nx_float_nan(code, a, b, x, y, out)) nx_float_put(code, out, x / y);
}

/** div of two integer elements of dtype code. */
NX_FN void nx_op_div_int(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    NX_INT_OPERANDS(code, a, b);
    nx_store_le(out, w, (uint64_t)(nx_floor_div(ua, ub, sa, sb, s)) & m);
}

/** div of two elements of dtype code. */
NX_FN void nx_op_div(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    switch (nx_dtype_kind(code)) {
    case NX_KIND_FLOAT: nx_op_div_float(code, a, b, out); break;
    case NX_KIND_INT: nx_op_div_int(code, a, b, out); break;
    default: break;
    }
}

/** maximum of two real float elements of dtype code. */
NX_FN void nx_op_maximum_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    int w = nx_dtype_elem_bytes(code);
    uint64_t va = nx_load_le(a, w), vb = nx_load_le(b, w);
    double x = nx_float_value(code, a), y = nx_float_value(code, b);
    if (!nx_float_nan(code, a, b, x, y, out)) nx_store_le(out, w, x == y ? (va & vb) : x > y ? va : vb);
}

/** maximum of two integer elements of dtype code. */
NX_FN void nx_op_maximum_int(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    NX_INT_OPERANDS(code, a, b);
    nx_store_le(out, w, (uint64_t)((s ? sa > sb : ua > ub) ? ua : ub) & m);
}

/** maximum of two elements of dtype code. */
NX_FN void nx_op_maximum(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    switch (nx_dtype_kind(code)) {
    case NX_KIND_FLOAT: nx_op_maximum_float(code, a, b, out); break;
    case NX_KIND_INT: nx_op_maximum_int(code, a, b, out); break;
    case NX_KIND_BOOL: {
        int x = a[0] != 0, y = b[0] != 0;
        (void)y;
        out[0] = (uint8_t)((x || y) ? 1 : 0);
        break;
    }
    default: break;
    }
}

/** minimum of two real float elements of dtype code. */
NX_FN void nx_op_minimum_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    int w = nx_dtype_elem_bytes(code);
    uint64_t va = nx_load_le(a, w), vb = nx_load_le(b, w);
    double x = nx_float_value(code, a), y = nx_float_value(code, b);
    if (!nx_float_nan(code, a, b, x, y, out)) nx_store_le(out, w, x == y ? (va | vb) : x < y ? va : vb);
}

/** minimum of two integer elements of dtype code. */
NX_FN void nx_op_minimum_int(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    NX_INT_OPERANDS(code, a, b);
    nx_store_le(out, w, (uint64_t)((s ? sa < sb : ua < ub) ? ua : ub) & m);
}

/** minimum of two elements of dtype code. */
NX_FN void nx_op_minimum(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    switch (nx_dtype_kind(code)) {
    case NX_KIND_FLOAT: nx_op_minimum_float(code, a, b, out); break;
    case NX_KIND_INT: nx_op_minimum_int(code, a, b, out); break;
    case NX_KIND_BOOL: {
        int x = a[0] != 0, y = b[0] != 0;
        (void)y;
        out[0] = (uint8_t)((x && y) ? 1 : 0);
        break;
    }
    default: break;
    }
}

/** neg of two real float elements of dtype code. */
NX_FN void nx_op_neg_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    int w = nx_dtype_elem_bytes(code);
    uint64_t va = nx_load_le(a, w), sign = 1ull << (nx_float_ebits(code) + nx_float_mbits(code));
    (void)b;
    /* No sign to flip or clear at a zero magnitude without -0 ("fnuz"). */
    if (nx_float_specials(code) == NX_SPECIALS_NEG_ZERO_NAN && (va & (sign - 1u)) == 0) sign = 0;
    /* An unsigned format's "sign" is every bit va lacks: -x its NaN, |x| x; */
    /* none at a zero (float8_e5m3fnu's 0 stays). */
    if (nx_float_specials(code) == NX_SPECIALS_UNSIGNED_NO_ZERO || nx_float_specials(code) == NX_SPECIALS_UNSIGNED) sign = ~va & nx_mask64(nx_dtype_bits(code));
    if (nx_float_specials(code) == NX_SPECIALS_UNSIGNED && va == 0) sign = 0;
    nx_store_le(out, w, va ^ sign);
}

/** neg of two integer elements of dtype code. */
NX_FN void nx_op_neg_int(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    NX_INT_OPERANDS(code, a, b);
    nx_store_le(out, w, (uint64_t)(0 - ua) & m);
}

/** neg of two elements of dtype code. */
NX_FN void nx_op_neg(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    switch (nx_dtype_kind(code)) {
    case NX_KIND_FLOAT: nx_op_neg_float(code, a, b, out); break;
    case NX_KIND_INT: nx_op_neg_int(code, a, b, out); break;
    case NX_KIND_COMPLEX: {
        int c = nx_complex_part(code), h = nx_dtype_elem_bytes(code) / 2;
        nx_op_neg_float(c, a, b, out);
        nx_op_neg_float(c, a + h, b + h, out + h);
        break;
    }
    default: break;
    }
}

/** abs of two real float elements of dtype code. */
NX_FN void nx_op_abs_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    int w = nx_dtype_elem_bytes(code);
    uint64_t va = nx_load_le(a, w), sign = 1ull << (nx_float_ebits(code) + nx_float_mbits(code));
    (void)b;
    /* No sign to flip or clear at a zero magnitude without -0 ("fnuz"). */
    if (nx_float_specials(code) == NX_SPECIALS_NEG_ZERO_NAN && (va & (sign - 1u)) == 0) sign = 0;
    /* An unsigned format's "sign" is every bit va lacks: -x its NaN, |x| x; */
    /* none at a zero (float8_e5m3fnu's 0 stays). */
    if (nx_float_specials(code) == NX_SPECIALS_UNSIGNED_NO_ZERO || nx_float_specials(code) == NX_SPECIALS_UNSIGNED) sign = ~va & nx_mask64(nx_dtype_bits(code));
    if (nx_float_specials(code) == NX_SPECIALS_UNSIGNED && va == 0) sign = 0;
    nx_store_le(out, w, va & ~sign);
}

/** abs of two integer elements of dtype code. */
NX_FN void nx_op_abs_int(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    NX_INT_OPERANDS(code, a, b);
    nx_store_le(out, w, (uint64_t)((s && sa < 0) ? 0 - ua : ua) & m);
}

/** abs of two elements of dtype code. */
NX_FN void nx_op_abs(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    switch (nx_dtype_kind(code)) {
    case NX_KIND_FLOAT: nx_op_abs_float(code, a, b, out); break;
    case NX_KIND_INT: nx_op_abs_int(code, a, b, out); break;
    case NX_KIND_BOOL: {
        int x = a[0] != 0, y = b[0] != 0;
        (void)y;
        out[0] = (uint8_t)((x) ? 1 : 0);
        break;
    }
    default: break;
    }
}

/** eq of two real float elements of dtype code. */
NX_FN void nx_op_eq_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    double x = nx_float_value(code, a), y = nx_float_value(code, b);
    out[0] = (uint8_t)((x == y) ? 1 : 0);
}

/** eq of two integer elements of dtype code. */
NX_FN void nx_op_eq_int(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    NX_INT_OPERANDS(code, a, b);
    out[0] = (uint8_t)((ua == ub) ? 1 : 0);
}

/** eq of two elements of dtype code. */
NX_FN void nx_op_eq(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    switch (nx_dtype_kind(code)) {
    case NX_KIND_FLOAT: nx_op_eq_float(code, a, b, out); break;
    case NX_KIND_INT: nx_op_eq_int(code, a, b, out); break;
    case NX_KIND_BOOL: {
        int x = a[0] != 0, y = b[0] != 0;
        (void)y;
        out[0] = (uint8_t)((x == y) ? 1 : 0);
        break;
    }
    case NX_KIND_COMPLEX: {
        int c = nx_complex_part(code), h = nx_dtype_elem_bytes(code) / 2;
        uint8_t re, im;
        nx_op_eq_float(c, a, b, &re);
        nx_op_eq_float(c, a + h, b + h, &im);
        out[0] = (uint8_t)((re && im) ? 1 : 0);
        break;
    }
    default: break;
    }
}

/** ne of two real float elements of dtype code. */
NX_FN void nx_op_ne_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    double x = nx_float_value(code, a), y = nx_float_value(code, b);
    out[0] = (uint8_t)((x != y) ? 1 : 0);
}

/** ne of two integer elements of dtype code. */
NX_FN void nx_op_ne_int(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    NX_INT_OPERANDS(code, a, b);
    out[0] = (uint8_t)((ua != ub) ? 1 : 0);
}

/** ne of two elements of dtype code. */
NX_FN void nx_op_ne(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    switch (nx_dtype_kind(code)) {
    case NX_KIND_FLOAT: nx_op_ne_float(code, a, b, out); break;
    case NX_KIND_INT: nx_op_ne_int(code, a, b, out); break;
    case NX_KIND_BOOL: {
        int x = a[0] != 0, y = b[0] != 0;
        (void)y;
        out[0] = (uint8_t)((x != y) ? 1 : 0);
        break;
    }
    case NX_KIND_COMPLEX: {
        int c = nx_complex_part(code), h = nx_dtype_elem_bytes(code) / 2;
        uint8_t re, im;
        nx_op_ne_float(c, a, b, &re);
        nx_op_ne_float(c, a + h, b + h, &im);
        out[0] = (uint8_t)((re || im) ? 1 : 0);
        break;
    }
    default: break;
    }
}

/** lt of two real float elements of dtype code. */
NX_FN void nx_op_lt_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    double x = nx_float_value(code, a), y = nx_float_value(code, b);
    out[0] = (uint8_t)((x < y) ? 1 : 0);
}

/** lt of two integer elements of dtype code. */
NX_FN void nx_op_lt_int(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    NX_INT_OPERANDS(code, a, b);
    out[0] = (uint8_t)((s ? sa < sb : ua < ub) ? 1 : 0);
}

/** lt of two elements of dtype code. */
NX_FN void nx_op_lt(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    switch (nx_dtype_kind(code)) {
    case NX_KIND_FLOAT: nx_op_lt_float(code, a, b, out); break;
    case NX_KIND_INT: nx_op_lt_int(code, a, b, out); break;
    case NX_KIND_BOOL: {
        int x = a[0] != 0, y = b[0] != 0;
        (void)y;
        out[0] = (uint8_t)((!x && y) ? 1 : 0);
        break;
    }
    default: break;
    }
}

/** le of two real float elements of dtype code. */
NX_FN void nx_op_le_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    double x = nx_float_value(code, a), y = nx_float_value(code, b);
    out[0] = (uint8_t)((x <= y) ? 1 : 0);
}

/** le of two integer elements of dtype code. */
NX_FN void nx_op_le_int(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    NX_INT_OPERANDS(code, a, b);
    out[0] = (uint8_t)((s ? sa <= sb : ua <= ub) ? 1 : 0);
}

/** le of two elements of dtype code. */
NX_FN void nx_op_le(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    switch (nx_dtype_kind(code)) {
    case NX_KIND_FLOAT: nx_op_le_float(code, a, b, out); break;
    case NX_KIND_INT: nx_op_le_int(code, a, b, out); break;
    case NX_KIND_BOOL: {
        int x = a[0] != 0, y = b[0] != 0;
        (void)y;
        out[0] = (uint8_t)((!x || y) ? 1 : 0);
        break;
    }
    default: break;
    }
}

/** gt of two real float elements of dtype code. */
NX_FN void nx_op_gt_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    double x = nx_float_value(code, a), y = nx_float_value(code, b);
    out[0] = (uint8_t)((x > y) ? 1 : 0);
}

/** gt of two integer elements of dtype code. */
NX_FN void nx_op_gt_int(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    NX_INT_OPERANDS(code, a, b);
    out[0] = (uint8_t)((s ? sa > sb : ua > ub) ? 1 : 0);
}

/** gt of two elements of dtype code. */
NX_FN void nx_op_gt(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    switch (nx_dtype_kind(code)) {
    case NX_KIND_FLOAT: nx_op_gt_float(code, a, b, out); break;
    case NX_KIND_INT: nx_op_gt_int(code, a, b, out); break;
    case NX_KIND_BOOL: {
        int x = a[0] != 0, y = b[0] != 0;
        (void)y;
        out[0] = (uint8_t)((x && !y) ? 1 : 0);
        break;
    }
    default: break;
    }
}

/** ge of two real float elements of dtype code. */
NX_FN void nx_op_ge_float(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    double x = nx_float_value(code, a), y = nx_float_value(code, b);
    out[0] = (uint8_t)((x >= y) ? 1 : 0);
}

/** ge of two integer elements of dtype code. */
NX_FN void nx_op_ge_int(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    NX_INT_OPERANDS(code, a, b);
    out[0] = (uint8_t)((s ? sa >= sb : ua >= ub) ? 1 : 0);
}

/** ge of two elements of dtype code. */
NX_FN void nx_op_ge(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    switch (nx_dtype_kind(code)) {
    case NX_KIND_FLOAT: nx_op_ge_float(code, a, b, out); break;
    case NX_KIND_INT: nx_op_ge_int(code, a, b, out); break;
    case NX_KIND_BOOL: {
        int x = a[0] != 0, y = b[0] != 0;
        (void)y;
        out[0] = (uint8_t)((x || !y) ? 1 : 0);
        break;
    }
    default: break;
    }
}

/** 1 for the comparisons (their results are bool). */
NX_FN int nx_op_compares(int op)
{
    return op == NX_OP_EQ || op == NX_OP_NE || op == NX_OP_LT || op == NX_OP_LE || op == NX_OP_GT || op == NX_OP_GE;
}

/** op on two elements of dtype code (storage bytes; a unary op reads a alone)
 *  into out (bool for a comparison). */
NX_FN void nx_op_elem(int op, int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    switch (op) {
    case NX_OP_SUB: nx_op_sub(code, a, b, out); break;
    case NX_OP_MUL: nx_op_mul(code, a, b, out); break;
    case NX_OP_DIV: nx_op_div(code, a, b, out); break;
    case NX_OP_MAXIMUM: nx_op_maximum(code, a, b, out); break;
    case NX_OP_MINIMUM: nx_op_minimum(code, a, b, out); break;
    case NX_OP_NEG: nx_op_neg(code, a, b, out); break;
    case NX_OP_ABS: nx_op_abs(code, a, b, out); break;
    case NX_OP_EQ: nx_op_eq(code, a, b, out); break;
    case NX_OP_NE: nx_op_ne(code, a, b, out); break;
    case NX_OP_LT: nx_op_lt(code, a, b, out); break;
    case NX_OP_LE: nx_op_le(code, a, b, out); break;
    case NX_OP_GT: nx_op_gt(code, a, b, out); break;
    case NX_OP_GE: nx_op_ge(code, a, b, out); break;
    default: break;
    }
}

/* END the operations */

/** The product of two complex elements of dtype code: (ac - bd) + (ad + bc)i, each
 *  real operation rounded; complex32's and bcomplex32's computed as complex64's, each
 *  part then rounded once (as ml_dtypes computes them). */
NX_FN void nx_complex_mul(int code, const uint8_t *a, const uint8_t *b, uint8_t *out)
{
    int c = nx_complex_part(code), h = nx_dtype_elem_bytes(code) / 2;
    uint8_t p[4][8], wa[8], wb[8], wo[8];
    const uint8_t *x = a, *y = b;
    uint8_t *z = out;
    if (nx_dtype_bits(c) < 32) {
        nx_convert(NX_DTYPE_COMPLEX64, wa, code, a);
        nx_convert(NX_DTYPE_COMPLEX64, wb, code, b);
        x = wa;
        y = wb;
        z = wo;
        c = NX_DTYPE_FLOAT32;
        h = 4;
    }
    nx_op_mul_float(c, x, y, p[0]);
    nx_op_mul_float(c, x + h, y + h, p[1]);
    nx_op_mul_float(c, x, y + h, p[2]);
    nx_op_mul_float(c, x + h, y, p[3]);
    nx_op_sub_float(c, p[0], p[1], z);
    nx_add_float(c, p[2], p[3], z + h);
    if (z != out) nx_convert(code, out, NX_DTYPE_COMPLEX64, wo);
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
