//! The dtype section of `include/nx_dtype.h`, written from the dtype table: the codes
//! and the switches that give each dtype's facts in C (switches rather than arrays, so
//! that they work in CUDA device code and in Metal without global memory).

use nxrig::dtype::{dlpack, Class, Row, Specials};
use nxrig::DType;

/// The line that opens the section in the header.
pub const BEGIN: &str =
    "/* BEGIN the dtype table: written by tests/c_header.rs from src/dtype/table.rs. */";
/// The line that closes it.
pub const END: &str = "/* END the dtype table */";

/// `NX_DTYPE_FLOAT8_E5M2` for float8_e5m2.
fn code_name(d: DType) -> String {
    format!("NX_DTYPE_{}", d.name().to_ascii_uppercase())
}

/// The real dtype of a complex dtype's parts: the float of its format.
fn component(d: DType) -> DType {
    DType::ALL
        .into_iter()
        .find(|f| f.is_float() && f.float_format() == d.float_format())
        .expect("a complex dtype's parts are a float dtype's")
}

/// What a row's `#define` says of it.
fn described(r: &Row) -> String {
    let packed = "packed two a byte, low nibble first";
    match (r.class, r.format) {
        (Class::Float, Some(f)) => {
            let special = match f.specials {
                Specials::Ieee => "IEEE-like, with infinities and NaNs",
                Specials::AllOnesNan => {
                    "no infinity, NaN only where every exponent and fraction bit is 1"
                }
                Specials::NegZeroNan => {
                    "no infinity, no negative zero, NaN only at the negative-zero pattern"
                }
                Specials::UnsignedNoZero => {
                    "no zero, no infinity, NaN only where every bit is 1, every other pattern a power of two"
                }
                Specials::Unsigned => "no infinity, NaN only where every bit is 1",
                Specials::Finite => "no infinity and no NaN, every pattern a number",
                _ => "special values of a kind this header does not know",
            };
            let held = match r.bits {
                4 => format!("; {packed}"),
                b if b > f.bits() => {
                    "; one a byte, in its low bits (packed in files and DLPack)".into()
                }
                _ => String::new(),
            };
            format!(
                "{}: {} sign, {} exponent (bias {}), {} fraction bits; {special}{held}.",
                r.name,
                f.signed() as u32,
                f.exponent_bits,
                f.bias,
                f.fraction_bits
            )
        }
        (Class::Complex, Some(_)) => format!(
            "{}: two {} (real, then imaginary).",
            r.name,
            component(r.dtype).name()
        ),
        (Class::Signed, _) if r.packed_bits < 8 && r.bits == 8 => format!(
            "{}: {}-bit two's complement integer; one a byte, in its low bits (packed in DLPack).",
            r.name, r.packed_bits
        ),
        (Class::Unsigned, _) if r.packed_bits < 8 && r.bits == 8 => format!(
            "{}: {}-bit unsigned integer; one a byte, in its low bits (packed in DLPack).",
            r.name, r.packed_bits
        ),
        (Class::Signed, _) if r.bits < 8 => format!(
            "{}: {}-bit two's complement integer; {packed}.",
            r.name, r.bits
        ),
        (Class::Unsigned, _) if r.bits < 8 => {
            format!("{}: {}-bit unsigned integer; {packed}.", r.name, r.bits)
        }
        (Class::Signed, _) => format!("{}: {}-bit two's complement integer.", r.name, r.bits),
        (Class::Unsigned, _) => format!("{}: {}-bit unsigned integer.", r.name, r.bits),
        _ => format!("{}: one byte holding 0 or 1.", r.name),
    }
}

/// A C function of one `int code` argument: a switch returning `value(d)` for each
/// dtype that has one (grouped by value, in order of first appearance), `default` else.
fn switch<V: PartialEq + Copy>(
    out: &mut String,
    doc: &str,
    signature: &str,
    value: impl Fn(DType) -> Option<V>,
    show: impl Fn(V) -> String,
    default: &str,
) {
    out.push_str(&format!(
        "/** {doc} */\nNX_FN {signature}\n{{\n    switch (code) {{\n"
    ));
    let mut groups: Vec<(V, Vec<DType>)> = Vec::new();
    for d in DType::ALL {
        if let Some(v) = value(d) {
            match groups.iter_mut().find(|(w, _)| *w == v) {
                Some((_, ds)) => ds.push(d),
                None => groups.push((v, vec![d])),
            }
        }
    }
    for (v, ds) in groups {
        let mut line = String::from("   ");
        for d in ds {
            let case = format!(" case {}:", code_name(d));
            if line.len() + case.len() > 92 {
                out.push_str(&line);
                out.push('\n');
                line = String::from("   ");
            }
            line.push_str(&case);
        }
        out.push_str(&line);
        out.push_str(&format!("\n        return {};\n", show(v)));
    }
    out.push_str(&format!(
        "    default:\n        return {default};\n    }}\n}}\n\n"
    ));
}

/// The section, from its `BEGIN` line to its `END` line inclusive.
pub fn section() -> String {
    let mut s = String::from(BEGIN);
    s.push_str("\n\n");
    for d in DType::ALL {
        s.push_str(&format!(
            "/** {} */\n#define {} {}\n",
            described(d.row()),
            code_name(d),
            d.code()
        ));
    }
    s.push_str(&format!(
        "/** Number of dtype codes; valid codes are 0 .. NX_DTYPE_COUNT - 1. */\n#define NX_DTYPE_COUNT {}\n\n",
        DType::ALL.len()
    ));
    let float = |d: DType| d.is_float().then(|| d.float_format().unwrap());
    let int = |v: i64| v.to_string();
    switch(
        &mut s,
        "Storage size of one element in bits (4 for int4/uint4), or -1 for an unknown code.",
        "int nx_dtype_bits(int code)",
        |d| Some(d.bits() as i64),
        int,
        "-1",
    );
    switch(
        &mut s,
        "Width of an element's value in bits: nx_dtype_bits, but for the dtypes held one a\n *  byte in their low bits (the float6s 6, int2 and uint2 2, int1 and uint1 1), or -1 for\n *  an unknown code. An integer's range and wrapping are of this width.",
        "int nx_dtype_value_bits(int code)",
        |d| d.is_padded().then_some(d.packed_bits() as i64),
        int,
        "nx_dtype_bits(code)",
    );
    switch(
        &mut s,
        "Required alignment of an element in bytes (complex: that of its component; sub-byte\n *  dtypes: 1), or -1 for an unknown code.",
        "int nx_dtype_align(int code)",
        |d| Some(d.align() as i64),
        int,
        "-1",
    );
    switch(
        &mut s,
        &format!(
            "DLPack type code (kDLInt {}, kDLUInt {}, kDLFloat {}, kDLBfloat {}, kDLComplex {},\n *  kDLBool {}, kDLFloat8_*: see DLPack 1.1), or -1 for an unknown code and for a dtype\n *  DLPack has no code for (float8_e5m3fnu).",
            dlpack::INT,
            dlpack::UINT,
            dlpack::FLOAT,
            dlpack::BFLOAT,
            dlpack::COMPLEX,
            dlpack::BOOL
        ),
        "int nx_dtype_dlpack_code(int code)",
        |d| d.dlpack().map(|(code, _)| code as i64),
        int,
        "-1",
    );
    switch(
        &mut s,
        "Class of a dtype: NX_KIND_FLOAT, NX_KIND_INT, NX_KIND_COMPLEX, NX_KIND_BOOL, or\n *  NX_KIND_INVALID for an unknown code.",
        "int nx_dtype_kind(int code)",
        |d| {
            Some(match d.class() {
                Class::Float => "NX_KIND_FLOAT",
                Class::Signed | Class::Unsigned => "NX_KIND_INT",
                Class::Complex => "NX_KIND_COMPLEX",
                Class::Bool => "NX_KIND_BOOL",
            })
        },
        |v: &str| v.to_owned(),
        "NX_KIND_INVALID",
    );
    switch(
        &mut s,
        "The dtype of a complex dtype's real and imaginary parts (NX_DTYPE_FLOAT16 for\n *  complex32, NX_DTYPE_BFLOAT16 for bcomplex32, ...), or -1 if code is not complex.",
        "int nx_complex_part(int code)",
        |d| (d.class() == Class::Complex).then(|| component(d).code() as i64),
        int,
        "-1",
    );
    switch(
        &mut s,
        "1 for the signed integer dtypes, else 0.",
        "int nx_dtype_is_signed_int(int code)",
        |d| (d.class() == Class::Signed).then_some(1i64),
        int,
        "0",
    );
    s.push_str("#ifndef __METAL_VERSION__\n");
    switch(
        &mut s,
        "Name of a dtype (\"float16\", \"bfloat16\", ...), or NULL (0) for an unknown code.\n *  Not available under Metal.",
        "const char *nx_dtype_name(int code)",
        |d| Some(d.name()),
        |v: &str| format!("\"{v}\""),
        "0",
    );
    s.push_str("#endif\n\n");
    switch(
        &mut s,
        "Exponent field width of a real float dtype, or 0 if code is not one.",
        "int nx_float_ebits(int code)",
        |d| float(d).map(|f| f.exponent_bits as i64),
        int,
        "0",
    );
    switch(
        &mut s,
        "Fraction field width of a real float dtype, or 0 if code is not one.",
        "int nx_float_mbits(int code)",
        |d| float(d).map(|f| f.fraction_bits as i64),
        int,
        "0",
    );
    switch(
        &mut s,
        "Exponent bias of a real float dtype, or 0 if code is not one.",
        "int nx_float_bias(int code)",
        |d| float(d).map(|f| f.bias as i64),
        int,
        "0",
    );
    s.push_str(
        "/** A real float dtype's special values (nx_float_specials): IEEE's infinities and NaNs\n *  at the all-ones exponent; NaN only where every bit but the sign is 1, no infinity\n *  (float8_e4m3fn); NaN only at the negative-zero pattern, no infinity, no -0 (\"fnuz\");\n *  no sign, no zero, no infinity, NaN only where every bit is 1, every other pattern the\n *  power of two 2^(e - bias) (fraction width 0: float8_e8m0fnu); no sign, NaN only where\n *  every bit is 1, no infinity, a negative value the NaN (float8_e5m3fnu); no infinity and\n *  no NaN, every pattern a number (float4_e2m1fn, the float6s). */\n\
         #define NX_SPECIALS_IEEE 0\n#define NX_SPECIALS_ALL_ONES_NAN 1\n#define NX_SPECIALS_NEG_ZERO_NAN 2\n#define NX_SPECIALS_UNSIGNED_NO_ZERO 3\n#define NX_SPECIALS_UNSIGNED 4\n#define NX_SPECIALS_FINITE 5\n\n",
    );
    switch(
        &mut s,
        "A real float dtype's NX_SPECIALS_*, or -1 if code is not one.",
        "int nx_float_specials(int code)",
        |d| {
            float(d).map(|f| match f.specials {
                Specials::Ieee => 0,
                Specials::AllOnesNan => 1,
                Specials::NegZeroNan => 2,
                Specials::UnsignedNoZero => 3,
                Specials::Unsigned => 4,
                Specials::Finite => 5,
                _ => -1,
            })
        },
        int,
        "-1",
    );
    s.push_str(END);
    s
}
