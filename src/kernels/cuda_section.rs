//! The section of `src/kernels/cuda/nx_ops.cu` written from the operations' table
//! (`dtype::operations`): `NX_OP_*` in the table's order, a function an operation and
//! class (`nx_op_sub_float`, `nx_op_sub_int`, ...), a function an operation over every
//! class (`nx_op_sub`), `nx_op_compares` and `nx_op_elem`, which `nx_op2` calls. The
//! file is C that NVRTC and the host's C compiler (`tests/kernels_c.rs`) read as it
//! is, so the section is kept in it: the test below fails while it differs from the
//! table, and with `NX_BLESS` set writes it.

use std::fmt::Write;

use crate::dtype::operations::{CudaComplex, CudaFloat};
use crate::kernels::Operation;

/// The section's first line.
const BEGIN: &str = "/* BEGIN the operations: written by src/kernels/cuda_section.rs from src/dtype/operations/rows.rs. */";
/// The section's last line.
const END: &str = "/* END the operations */";

/// The parameters of every function of one operation.
const PARAMS: &str = "int code, const uint8_t *a, const uint8_t *b, uint8_t *out";

/// The section, from `BEGIN` to `END`.
fn section() -> String {
    let mut s = format!("{BEGIN}\n\n");
    for &o in Operation::ALL {
        let _ = writeln!(
            s,
            "#define NX_OP_{} {}",
            o.name().to_uppercase(),
            o as usize
        );
    }
    for &o in Operation::ALL {
        if let CudaComplex::Call(f) = o.row().cuda_complex {
            let _ = write!(s, "\nNX_FN void {f}({PARAMS});\n");
        }
    }
    for &o in Operation::ALL {
        classes(&mut s, o);
        over_every_class(&mut s, o);
    }
    let compares: Vec<String> = Operation::ALL
        .iter()
        .filter(|o| o.compares())
        .map(|o| format!("op == NX_OP_{}", o.name().to_uppercase()))
        .collect();
    let _ = write!(
        s,
        "\n/** 1 for the comparisons (their results are bool). */\n\
         NX_FN int nx_op_compares(int op)\n{{\n    return {};\n}}\n",
        compares.join(" || ")
    );
    let _ = write!(
        s,
        "\n/** op on two elements of dtype code (storage bytes; a unary op reads a alone)\n \
         *  into out (bool for a comparison). */\n\
         NX_FN void nx_op_elem(int op, {PARAMS})\n{{\n    switch (op) {{\n"
    );
    for &o in Operation::ALL {
        let _ = writeln!(
            s,
            "    case NX_OP_{}: nx_op_{}(code, a, b, out); break;",
            o.name().to_uppercase(),
            o.name()
        );
    }
    s.push_str("    default: break;\n    }\n}\n\n");
    s.push_str(END);
    s
}

/// `o`'s functions for its float and integer dtypes.
fn classes(s: &mut String, o: Operation) {
    let r = o.row();
    let name = o.name();
    let stored = |e: &str, w: &str| {
        if o.compares() {
            format!("out[0] = (uint8_t)(({e}) ? 1 : 0);")
        } else {
            format!("nx_store_le(out, {w}, {e});")
        }
    };
    if let Some(f) = r.cuda_float {
        let body = match f {
            CudaFloat::Values(e) if o.compares() => format!(
                "    double x = nx_float_value(code, a), y = nx_float_value(code, b);\n    {}\n",
                stored(e, "")
            ),
            CudaFloat::Values(e) => format!(
                "    double x = nx_float_value(code, a), y = nx_float_value(code, b);\n    \
                 if (!nx_float_nan(code, a, b, x, y, out)) nx_float_put(code, out, {e});\n"
            ),
            CudaFloat::Picks(e) => format!(
                "    int w = nx_dtype_elem_bytes(code);\n    \
                 uint64_t va = nx_load_le(a, w), vb = nx_load_le(b, w);\n    \
                 double x = nx_float_value(code, a), y = nx_float_value(code, b);\n    \
                 if (!nx_float_nan(code, a, b, x, y, out)) {}\n",
                stored(e, "w")
            ),
            CudaFloat::Bits(e) => format!(
                "    int w = nx_dtype_elem_bytes(code);\n    \
                 uint64_t va = nx_load_le(a, w), sign = 1ull << (nx_float_ebits(code) + nx_float_mbits(code));\n    \
                 (void)b;\n    \
                 /* No sign to flip or clear at a zero magnitude without -0 (\"fnuz\"). */\n    \
                 if (nx_float_specials(code) == NX_SPECIALS_NEG_ZERO_NAN && (va & (sign - 1u)) == 0) sign = 0;\n    \
                 /* An unsigned format's \"sign\" is every bit va lacks: -x its NaN, |x| x; */\n    \
                 /* none at a zero (float8_e5m3fnu's 0 stays). */\n    \
                 if (nx_float_specials(code) == NX_SPECIALS_UNSIGNED_NO_ZERO || nx_float_specials(code) == NX_SPECIALS_UNSIGNED) sign = ~va & nx_mask64(nx_dtype_bits(code));\n    \
                 if (nx_float_specials(code) == NX_SPECIALS_UNSIGNED && va == 0) sign = 0;\n    \
                 {}\n",
                stored(e, "w")
            ),
        };
        let _ = write!(
            s,
            "\n/** {name} of two real float elements of dtype code. */\n\
             NX_FN void nx_op_{name}_float({PARAMS})\n{{\n{body}}}\n"
        );
    }
    if let Some(e) = r.cuda_int {
        let e = if o.compares() {
            e.to_owned()
        } else {
            format!("(uint64_t)({e}) & m")
        };
        let _ = write!(
            s,
            "\n/** {name} of two integer elements of dtype code. */\n\
             NX_FN void nx_op_{name}_int({PARAMS})\n{{\n    \
             NX_INT_OPERANDS(code, a, b);\n    {}\n}}\n",
            stored(&e, "w")
        );
    }
}

/// `nx_op_<name>`: `o` on two elements of any dtype that takes it.
fn over_every_class(s: &mut String, o: Operation) {
    let r = o.row();
    let name = o.name();
    let _ = write!(
        s,
        "\n/** {name} of two elements of dtype code. */\n\
         NX_FN void nx_op_{name}({PARAMS})\n{{\n    switch (nx_dtype_kind(code)) {{\n"
    );
    if r.cuda_float.is_some() {
        let _ = writeln!(
            s,
            "    case NX_KIND_FLOAT: nx_op_{name}_float(code, a, b, out); break;"
        );
    }
    if r.cuda_int.is_some() {
        let _ = writeln!(
            s,
            "    case NX_KIND_INT: nx_op_{name}_int(code, a, b, out); break;"
        );
    }
    if let Some(e) = r.cuda_bool {
        let _ = write!(
            s,
            "    case NX_KIND_BOOL: {{\n        int x = a[0] != 0, y = b[0] != 0;\n        \
             (void)y;\n        out[0] = (uint8_t)(({e}) ? 1 : 0);\n        break;\n    }}\n"
        );
    }
    let parts = "        int c = nx_complex_part(code), h = nx_dtype_elem_bytes(code) / 2;\n";
    match r.cuda_complex {
        CudaComplex::None => {}
        CudaComplex::Parts => {
            let _ = write!(
                s,
                "    case NX_KIND_COMPLEX: {{\n{parts}        \
                 nx_op_{name}_float(c, a, b, out);\n        \
                 nx_op_{name}_float(c, a + h, b + h, out + h);\n        break;\n    }}\n"
            );
        }
        CudaComplex::Compare(e) => {
            let _ = write!(
                s,
                "    case NX_KIND_COMPLEX: {{\n{parts}        uint8_t re, im;\n        \
                 nx_op_{name}_float(c, a, b, &re);\n        \
                 nx_op_{name}_float(c, a + h, b + h, &im);\n        \
                 out[0] = (uint8_t)(({e}) ? 1 : 0);\n        break;\n    }}\n"
            );
        }
        CudaComplex::Call(f) => {
            let _ = writeln!(s, "    case NX_KIND_COMPLEX: {f}(code, a, b, out); break;");
        }
    }
    s.push_str("    default: break;\n    }\n}\n");
}

#[path = "../../tests/common/sections.rs"]
mod sections;

#[test]
fn nx_ops_cu_section_is_written_from_the_table() {
    sections::written(
        "src/kernels/cuda/nx_ops.cu",
        BEGIN,
        END,
        &section(),
        "--lib cuda_section",
    );
}
