//! The rows of the operations' table (the fields are described in the parent
//! module's documentation): the one place each operation is written.

/// Hands every row of the table to the macro `$m`, each as one group of its fields
/// (see [`super::parsed`]).
macro_rules! with_operations {
    ($m:ident) => {
        $crate::dtype::operations::parsed! { $m;
            /// `x - y` in a fresh C-contiguous array on `x`'s device, of the broadcast shape.
            ///
            /// ```
            /// use nxrig::kernels::sub;
            /// use nxrig::{AnyArray, Array};
            /// let x: AnyArray = Array::<u8>::of_array(&[3], &[5, 0, 255])?.into();
            /// let y: AnyArray = Array::<u8>::of_array(&[1], &[1])?.into();
            /// assert_eq!(sub(&x, &y)?.expect::<u8>()?.to_vec()?, [4, 255, 254]); // wraps
            /// # Ok::<(), nxrig::Error>(())
            /// ```
            Sub sub sub_into (x, y) -> same {
                what: "`x - y`",
                verb: "subtraction",
                js: "`x - y`.",
                float: [values { difference(x, y) }],
                int: [{ x.wrapping_sub(y) }],
                bool: [none],
                complex: [parts],
                wgsl_float: "sub_float(a, b, f)",
                wgsl_int: "sub_int(a, b, w)",
                wgsl_bool: none,
                wgsl_complex: parts,
                cuda_float: (values "x - y"),
                cuda_int: "ua - ub",
                cuda_bool: none,
                cuda_complex: parts,
                first: "-",
            }
            /// `x * y` in a fresh C-contiguous array on `x`'s device, of the broadcast shape
            /// (bool: and; complex: `(ac - bd) + (ad + bc)i`, each real operation rounded).
            ///
            /// ```
            /// use nxrig::kernels::mul;
            /// use nxrig::{AnyArray, Array};
            /// use nxrig::half::bf16;
            /// let x: AnyArray = Array::from_vec(&[2], vec![bf16::from_f32(1.5), bf16::from_f32(-3.0)])?.into();
            /// let z = mul(&x, &x)?.expect::<bf16>()?.to_vec()?;
            /// assert_eq!(z, [bf16::from_f32(2.25), bf16::from_f32(9.0)]);
            /// # Ok::<(), nxrig::Error>(())
            /// ```
            Mul mul mul_into (x, y) -> same {
                what: "`x * y`",
                verb: "multiplication",
                js: "`x * y` (bool: and).",
                float: [values { product(x, y) }],
                int: [{ x.wrapping_mul(y) }],
                bool: [{ x && y }],
                complex: [{
                    [
                        difference(product(x[0], y[0]), product(x[1], y[1])),
                        sum(product(x[0], y[1]), product(x[1], y[0])),
                    ]
                }],
                wgsl_float: "mul_float(a, b, f)",
                wgsl_int: "mul_int(a, b, w)",
                wgsl_bool: "x && y",
                wgsl_complex: (
                    "sub_float(mul_float(ar, br, f), mul_float(ai, bi, f), f)",
                    "add_float(mul_float(ar, bi, f), mul_float(ai, br, f), f)"
                ),
                cuda_float: (values "x * y"),
                cuda_int: "ua * ub",
                cuda_bool: "x && y",
                cuda_complex: (call "nx_complex_mul"),
                first: "*",
            }
            /// `x / y` in a fresh C-contiguous array on `x`'s device, of the broadcast shape:
            /// floats correctly rounded; integers floor-divided as NumPy's `//` (`x // 0` is
            /// 0).
            ///
            /// ```
            /// use nxrig::kernels::div;
            /// use nxrig::{AnyArray, Array};
            /// let x: AnyArray = Array::<i32>::of_array(&[3], &[7, -7, 7])?.into();
            /// let y: AnyArray = Array::<i32>::of_array(&[3], &[2, 2, 0])?.into();
            /// assert_eq!(div(&x, &y)?.expect::<i32>()?.to_vec()?, [3, -4, 0]);
            /// # Ok::<(), nxrig::Error>(())
            /// ```
            Div div div_into (x, y) -> same {
                what: "`x / y`",
                verb: "division",
                js: "`x / y`: floats rounded once; integers floor-divide as NumPy's `//` (`x / 0` is 0).",
                float: [values { quotient(x, y) }],
                int: [{ floor_div(x, y) }],
                bool: [none],
                complex: [none],
                wgsl_float: "div_float(a, b, f)",
                wgsl_int: "div_int(a, b, w, signed)",
                wgsl_bool: none,
                wgsl_complex: none,
                cuda_float: (values "x / y"),
                cuda_int: "nx_floor_div(ua, ub, sa, sb, s)",
                cuda_bool: none,
                cuda_complex: none,
                first: "/",
            }
            /// The greater of `x` and `y`, elementwise (a NaN first; `+0` over `-0`), in a
            /// fresh array of the broadcast shape (bool: or).
            Maximum maximum maximum_into (x, y) -> same {
                what: "the greater of `x` and `y`",
                verb: "extrema (maximum, minimum)",
                js: "The greater of `x` and `y` (a NaN first; `+0` over `-0`).",
                float: [values { maximum(x, y) }],
                int: [{ x.max(y) }],
                bool: [{ x || y }],
                complex: [none],
                wgsl_float: "maximum_float(a, b, f)",
                wgsl_int: "maximum_int(a, b, w, signed)",
                wgsl_bool: "x || y",
                wgsl_complex: none,
                cuda_float: (picks "x == y ? (va & vb) : x > y ? va : vb"),
                cuda_int: "(s ? sa > sb : ua > ub) ? ua : ub",
                cuda_bool: "x || y",
                cuda_complex: none,
                first: none,
            }
            /// The lesser of `x` and `y`, elementwise (a NaN first; `-0` under `+0`), in a
            /// fresh array of the broadcast shape (bool: and).
            Minimum minimum minimum_into (x, y) -> same {
                what: "the lesser of `x` and `y`",
                verb: "extrema (maximum, minimum)",
                js: "The lesser of `x` and `y` (a NaN first; `-0` under `+0`).",
                float: [values { minimum(x, y) }],
                int: [{ x.min(y) }],
                bool: [{ x && y }],
                complex: [none],
                wgsl_float: "minimum_float(a, b, f)",
                wgsl_int: "minimum_int(a, b, w, signed)",
                wgsl_bool: "x && y",
                wgsl_complex: none,
                cuda_float: (picks "x == y ? (va | vb) : x < y ? va : vb"),
                cuda_int: "(s ? sa < sb : ua < ub) ? ua : ub",
                cuda_bool: "x && y",
                cuda_complex: none,
                first: none,
            }
            /// `-x` in a fresh C-contiguous array on `x`'s device (floats: the sign bit
            /// flipped, NaNs too; integers wrap; complex: both parts).
            ///
            /// ```
            /// use nxrig::kernels::neg;
            /// use nxrig::{AnyArray, Array};
            /// let x: AnyArray = Array::<i8>::of_array(&[2], &[5, -128])?.into();
            /// assert_eq!(neg(&x)?.expect::<i8>()?.to_vec()?, [-5, -128]);
            /// # Ok::<(), nxrig::Error>(())
            /// ```
            Neg neg neg_into (x) -> same {
                what: "`-x`",
                verb: "negation",
                js: "`-x` (floats: the sign flipped; integers wrap).",
                float: [bits(sign) { x ^ sign }],
                int: [{ x.wrapping_neg() }],
                bool: [none],
                complex: [parts],
                wgsl_float: "neg_float(a, f)",
                wgsl_int: "neg_int(a, w)",
                wgsl_bool: none,
                wgsl_complex: parts,
                cuda_float: (bits "va ^ sign"),
                cuda_int: "0 - ua",
                cuda_bool: none,
                cuda_complex: parts,
                first: none,
            }
            /// `|x|` in a fresh C-contiguous array on `x`'s device (floats: the sign bit
            /// cleared; signed integers wrap: `abs(MIN)` is `MIN`; bool: itself).
            Abs abs abs_into (x) -> same {
                what: "`|x|`",
                verb: "abs",
                js: "`|x|` (floats: the sign cleared; integers wrap).",
                float: [bits(sign) { x & !sign }],
                int: [{ if below_zero(x) { x.wrapping_neg() } else { x } }],
                bool: [{ x }],
                complex: [none],
                wgsl_float: "abs_float(a, f)",
                wgsl_int: "abs_int(a, w, signed)",
                wgsl_bool: "x",
                wgsl_complex: none,
                cuda_float: (bits "va & ~sign"),
                cuda_int: "(s && sa < 0) ? 0 - ua : ua",
                cuda_bool: "x",
                cuda_complex: none,
                first: none,
            }
            /// `x == y` in a fresh bool array of the broadcast shape (a NaN equals nothing;
            /// `-0 == +0`; complex: both parts).
            ///
            /// ```
            /// use nxrig::kernels::eq;
            /// use nxrig::{AnyArray, Array};
            /// let x: AnyArray = Array::<f32>::of_array(&[3], &[0.0, f32::NAN, 1.0])?.into();
            /// let y: AnyArray = Array::<f32>::of_array(&[3], &[-0.0, f32::NAN, 2.0])?.into();
            /// assert_eq!(eq(&x, &y)?.expect::<bool>()?.to_vec()?, [true, false, false]);
            /// # Ok::<(), nxrig::Error>(())
            /// ```
            Eq eq eq_into (x, y) -> bool {
                what: "`x == y`",
                verb: "equality",
                js: "`x == y` into bool (a NaN equals nothing; `-0 == +0`).",
                float: [values { x == y }],
                int: [{ x == y }],
                bool: [{ x == y }],
                complex: [{ x[0] == y[0] && x[1] == y[1] }],
                wgsl_float: "eq_float(a, b, f)",
                wgsl_int: "eq_int(a, b, w)",
                wgsl_bool: "x == y",
                wgsl_complex: "eq_float(ar, br, f) && eq_float(ai, bi, f)",
                cuda_float: (values "x == y"),
                cuda_int: "ua == ub",
                cuda_bool: "x == y",
                cuda_complex: (compare "re && im"),
                first: none,
            }
            /// `x != y` in a fresh bool array of the broadcast shape (true where either is a
            /// NaN).
            Ne ne ne_into (x, y) -> bool {
                what: "`x != y`",
                verb: "equality",
                js: "`x != y` into bool.",
                float: [values { x != y }],
                int: [{ x != y }],
                bool: [{ x != y }],
                complex: [{ x[0] != y[0] || x[1] != y[1] }],
                wgsl_float: "!eq_float(a, b, f)",
                wgsl_int: "!eq_int(a, b, w)",
                wgsl_bool: "x != y",
                wgsl_complex: "!(eq_float(ar, br, f) && eq_float(ai, bi, f))",
                cuda_float: (values "x != y"),
                cuda_int: "ua != ub",
                cuda_bool: "x != y",
                cuda_complex: (compare "re || im"),
                first: none,
            }
            /// `x < y` in a fresh bool array of the broadcast shape (false where either is a
            /// NaN; bool: false < true).
            Lt lt lt_into (x, y) -> bool {
                what: "`x < y`",
                verb: "ordering",
                js: "`x < y` into bool (false where either is a NaN).",
                float: [values { x < y }],
                int: [{ x < y }],
                bool: [{ !x && y }],
                complex: [none],
                wgsl_float: "lt_float(a, b, f)",
                wgsl_int: "lt_int(a, b, w, signed)",
                wgsl_bool: "!x && y",
                wgsl_complex: none,
                cuda_float: (values "x < y"),
                cuda_int: "s ? sa < sb : ua < ub",
                cuda_bool: "!x && y",
                cuda_complex: none,
                first: none,
            }
            /// `x <= y` in a fresh bool array of the broadcast shape.
            Le le le_into (x, y) -> bool {
                what: "`x <= y`",
                verb: "ordering",
                js: "`x <= y` into bool.",
                float: [values { x <= y }],
                int: [{ x <= y }],
                bool: [{ !x || y }],
                complex: [none],
                wgsl_float: "le_float(a, b, f)",
                wgsl_int: "!lt_int(b, a, w, signed)",
                wgsl_bool: "!x || y",
                wgsl_complex: none,
                cuda_float: (values "x <= y"),
                cuda_int: "s ? sa <= sb : ua <= ub",
                cuda_bool: "!x || y",
                cuda_complex: none,
                first: none,
            }
            /// `x > y` in a fresh bool array of the broadcast shape.
            Gt gt gt_into (x, y) -> bool {
                what: "`x > y`",
                verb: "ordering",
                js: "`x > y` into bool.",
                float: [values { x > y }],
                int: [{ x > y }],
                bool: [{ x && !y }],
                complex: [none],
                wgsl_float: "lt_float(b, a, f)",
                wgsl_int: "lt_int(b, a, w, signed)",
                wgsl_bool: "x && !y",
                wgsl_complex: none,
                cuda_float: (values "x > y"),
                cuda_int: "s ? sa > sb : ua > ub",
                cuda_bool: "x && !y",
                cuda_complex: none,
                first: none,
            }
            /// `x >= y` in a fresh bool array of the broadcast shape.
            Ge ge ge_into (x, y) -> bool {
                what: "`x >= y`",
                verb: "ordering",
                js: "`x >= y` into bool.",
                float: [values { x >= y }],
                int: [{ x >= y }],
                bool: [{ x || !y }],
                complex: [none],
                wgsl_float: "le_float(b, a, f)",
                wgsl_int: "!lt_int(a, b, w, signed)",
                wgsl_bool: "x || !y",
                wgsl_complex: none,
                cuda_float: (values "x >= y"),
                cuda_int: "s ? sa >= sb : ua >= ub",
                cuda_bool: "x || !y",
                cuda_complex: none,
                first: none,
            }
        }
    };
}
pub(crate) use with_operations;
