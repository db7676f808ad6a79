//! The dtype table: the element formats of the field and their facts.
//!
//! Widths are in bits (int4 and uint4 are 4, never a
//! 0-byte sentinel); alignment is in bytes. A dtype's names are parsed and suggested in
//! `names.rs`.

use crate::error::Error;

use super::format::FloatFormat;
use super::format::{
    BF16, E2M1, E2M3, E3M2, E3M4, E4M3, E4M3B11FNUZ, E4M3FNUZ, E4M3_IEEE, E5M2, E5M2FNUZ, E5M3FNU,
    E8M0, F16, F32, F64,
};

/// An element format: one of the dtypes of the field.
///
/// The discriminant is nxrig's dtype code (`nx_dtype.h`'s `NX_DTYPE_*`), stable across
/// releases.
///
/// ```
/// use nxrig::DType;
/// let d: DType = "float8_e4m3fn".parse()?;
/// assert_eq!((d, d.bits(), d.align(), d.dlpack()), (DType::Float8E4m3fn, 8, 1, Some((10, 8))));
/// assert_eq!(DType::Int4.bytes(5)?, 3); // two a byte
/// # Ok::<(), nxrig::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DType {
    /// IEEE binary16: 1 sign, 5 exponent, 10 fraction bits.
    Float16 = 0,
    /// bfloat16: 1 sign, 8 exponent, 7 fraction bits.
    Bfloat16 = 1,
    /// float8 e4m3fn (OCP's E4M3, safetensors' `F8_E4M3`): bias 7, no infinity, NaN only
    /// at S.1111.111, max 448.
    Float8E4m3fn = 2,
    /// float8 e5m2: bias 15, IEEE-like with infinities and NaNs.
    Float8E5m2 = 3,
    /// IEEE binary32.
    Float32 = 4,
    /// IEEE binary64.
    Float64 = 5,
    /// Signed 4-bit integer, two a byte, low nibble first.
    Int4 = 6,
    /// Unsigned 4-bit integer, two a byte, low nibble first.
    Uint4 = 7,
    /// Signed 8-bit integer.
    Int8 = 8,
    /// Unsigned 8-bit integer.
    Uint8 = 9,
    /// Signed 16-bit integer.
    Int16 = 10,
    /// Unsigned 16-bit integer.
    Uint16 = 11,
    /// Signed 32-bit integer.
    Int32 = 12,
    /// Unsigned 32-bit integer.
    Uint32 = 13,
    /// Signed 64-bit integer.
    Int64 = 14,
    /// Unsigned 64-bit integer.
    Uint64 = 15,
    /// Two float32: real, then imaginary.
    Complex64 = 16,
    /// Two float64: real, then imaginary.
    Complex128 = 17,
    /// One byte, 0 or 1.
    Bool = 18,
    /// float8 e4m3, IEEE-like: bias 7, infinities at S.1111.000, NaNs above, max 240
    /// (not OCP's E4M3, which is [`DType::Float8E4m3fn`]).
    Float8E4m3 = 19,
    /// float8 e3m4, IEEE-like: bias 3, infinities and NaNs, max 15.5.
    Float8E3m4 = 20,
    /// float8 e4m3fnuz (AMD's, safetensors' `F8_E4M3FNUZ`): bias 8, no infinity, no -0,
    /// NaN only at 0x80, max 240.
    Float8E4m3fnuz = 21,
    /// float8 e5m2fnuz (AMD's, safetensors' `F8_E5M2FNUZ`): bias 16, no infinity, no -0,
    /// NaN only at 0x80, max 57344.
    Float8E5m2fnuz = 22,
    /// float8 e4m3b11fnuz (Graphcore's): bias 11, no infinity, no -0, NaN only at 0x80,
    /// max 30.
    Float8E4m3b11fnuz = 23,
    /// float8 e8m0fnu (the OCP MX formats' scale, safetensors' `F8_E8M0`): no sign, 8
    /// exponent bits, bias 127; a power of two from 2^-127 (0x00) to 2^127 (0xfe), NaN
    /// at 0xff; no zero (see [`Specials::UnsignedNoZero`](super::Specials)).
    Float8E8m0fnu = 24,
    /// float8 e5m3fnu (ml_dtypes' `float8_e5m3fnu`): no sign, 5 exponent bits (bias 15),
    /// 3 fraction bits; subnormals from 2^-17 (0x01), a largest finite 114688 (0xfe), NaN
    /// at 0xff, no infinity; a negative value casts to the NaN, -0 to 0 (see
    /// [`Specials::Unsigned`](super::Specials)). No safetensors or DLPack code.
    Float8E5m3fnu = 25,
    /// float4 e2m1fn (the OCP MX formats' FP4, NVFP4's and MXFP4's element,
    /// safetensors' `F4`): 1 sign, 2 exponent bits (bias 1), 1 fraction bit; two a byte,
    /// low nibble first. Its 16 values are 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their
    /// negatives; no infinity and no NaN: a value past 6 (an infinity too) becomes 6 of
    /// its sign, a NaN a zero (see [`Specials::Finite`](super::Specials)).
    Float4E2m1fn = 26,
    /// float6 e2m3fn (the OCP MX formats' FP6 E2M3, safetensors' `F6_E2M3`): 1 sign, 2
    /// exponent bits (bias 1), 3 fraction bits; values from 0.125 (a subnormal) to 7.5,
    /// no infinity and no NaN (as [`DType::Float4E2m1fn`]). Held one a byte in memory,
    /// in its low six bits, the top two zero (ml_dtypes' layout), so views work at any
    /// element. nxrig writes the top bits zero; a byte with either set is no float6 (a
    /// cast reads its low six bits, where ml_dtypes reads them as the sign; another
    /// operation's result on it is unspecified). `.safetensors` files pack four in three
    /// bytes: nxrig unpacks them when it reads and packs them when it writes (see
    /// [`DType::packed_bits`]); a DLPack export is flagged padded.
    Float6E2m3fn = 27,
    /// float6 e3m2fn (the OCP MX formats' FP6 E3M2, safetensors' `F6_E3M2`): 1 sign, 3
    /// exponent bits (bias 3), 2 fraction bits; values from 0.0625 (a subnormal) to 28,
    /// no infinity and no NaN. Held one a byte as [`DType::Float6E2m3fn`].
    Float6E3m2fn = 28,
    /// Signed 2-bit integer (ml_dtypes' `int2`): -2 to 1. Held one a byte in memory, in
    /// its low two bits, the top six zero (ml_dtypes' layout), as the float6s are; a load
    /// reads the low two bits (sign-extended) and ignores the others. DLPack packs it four
    /// a byte ([`DType::packed_bits`] 2): an export is flagged padded. No safetensors code.
    Int2 = 29,
    /// Unsigned 2-bit integer (ml_dtypes' `uint2`): 0 to 3, held one a byte as
    /// [`DType::Int2`].
    Uint2 = 30,
    /// Signed 1-bit integer (ml_dtypes' `int1`): -1 or 0, held one a byte as
    /// [`DType::Int2`] (the low bit; DLPack packs it eight a byte).
    Int1 = 31,
    /// Unsigned 1-bit integer (ml_dtypes' `uint1`): 0 or 1, held one a byte as
    /// [`DType::Int1`]. Not bool: its arithmetic wraps (1 + 1 is 0).
    Uint1 = 32,
    /// Two float16 (ml_dtypes' `complex32`, PyTorch's `complex32`/`chalf`): real, then
    /// imaginary, 4 bytes. Its arithmetic is complex64's, each part then rounded once into
    /// float16 (as ml_dtypes computes it). DLPack's complex of 32 bits; no safetensors or
    /// NumPy code.
    Complex32 = 33,
    /// Two bfloat16 (ml_dtypes' `bcomplex32`): real, then imaginary, 4 bytes; arithmetic
    /// as [`DType::Complex32`]'s. No DLPack, safetensors or NumPy code.
    Bcomplex32 = 34,
}

/// What kind of number a dtype holds, which decides how it converts.
///
/// ```
/// use nxrig::dtype::Class;
/// use nxrig::DType;
///
/// assert_eq!(DType::Bfloat16.class(), Class::Float);
/// assert_eq!(DType::Int4.class(), Class::Signed);
/// assert_eq!(DType::Complex64.class(), Class::Complex);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// A binary floating-point format.
    Float,
    /// A two's complement signed integer.
    Signed,
    /// An unsigned integer.
    Unsigned,
    /// A pair of floats.
    Complex,
    /// A truth value.
    Bool,
}

/// DLPack's type codes (`DLDataTypeCode`) for the dtypes that DLPack has.
pub mod dlpack {
    /// `kDLInt`.
    pub const INT: u8 = 0;
    /// `kDLUInt`.
    pub const UINT: u8 = 1;
    /// `kDLFloat`.
    pub const FLOAT: u8 = 2;
    /// `kDLBfloat`.
    pub const BFLOAT: u8 = 4;
    /// `kDLComplex`.
    pub const COMPLEX: u8 = 5;
    /// `kDLBool`.
    pub const BOOL: u8 = 6;
    /// `kDLFloat8_e3m4`.
    pub const FLOAT8_E3M4: u8 = 7;
    /// `kDLFloat8_e4m3`.
    pub const FLOAT8_E4M3: u8 = 8;
    /// `kDLFloat8_e4m3b11fnuz`.
    pub const FLOAT8_E4M3B11FNUZ: u8 = 9;
    /// `kDLFloat8_e4m3fn`.
    pub const FLOAT8_E4M3FN: u8 = 10;
    /// `kDLFloat8_e4m3fnuz`.
    pub const FLOAT8_E4M3FNUZ: u8 = 11;
    /// `kDLFloat8_e5m2`.
    pub const FLOAT8_E5M2: u8 = 12;
    /// `kDLFloat8_e5m2fnuz`.
    pub const FLOAT8_E5M2FNUZ: u8 = 13;
    /// `kDLFloat8_e8m0fnu`.
    pub const FLOAT8_E8M0FNU: u8 = 14;
    /// `kDLFloat6_e2m3fn`.
    pub const FLOAT6_E2M3FN: u8 = 15;
    /// `kDLFloat6_e3m2fn`.
    pub const FLOAT6_E3M2FN: u8 = 16;
    /// `kDLFloat4_e2m1fn`.
    pub const FLOAT4_E2M1FN: u8 = 17;
}

/// One dtype's facts: its row of the table, the one place each is written.
///
/// Everything nxrig knows of a dtype follows from its row: the methods of [`DType`],
/// the names it parses, the codes of the files and protocols that carry it, the
/// message that lists every dtype, and (checked by tests against the table) the C
/// header `include/nx_dtype.h` and the TypeScript `DType` union.
///
/// ```
/// use nxrig::DType;
///
/// let r = DType::Float8E4m3fn.row();
/// assert_eq!((r.name, r.bits, r.safetensors, r.npy), ("float8_e4m3fn", 8, Some("F8_E4M3"), None));
/// assert!(r.aliases.contains(&"f8_e4m3"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Row {
    /// The dtype.
    pub dtype: DType,
    /// Its name: `"float16"`, `"bfloat16"`, ..., `"bool"`.
    pub name: &'static str,
    /// Other names it parses from (lowercase; parsed without regard to case): NumPy's
    /// and ml_dtypes' names, short names, safetensors' codes.
    pub aliases: &'static [&'static str],
    /// Width of one element in bits.
    pub bits: u32,
    /// What kind of number it holds.
    pub class: Class,
    /// The bit layout of a float, or of one component of a complex number.
    pub format: Option<FloatFormat>,
    /// DLPack's type code (`DLDataTypeCode`), `None` where DLPack has none
    /// (float8_e5m3fnu).
    pub dlpack: Option<u8>,
    /// The `dtype` a `.safetensors` header names it by, `None` where the format has none.
    pub safetensors: Option<&'static str>,
    /// NumPy's little-endian type string in a `.npy` header (`"<f4"`), `None` where
    /// NumPy has no such dtype.
    pub npy: Option<&'static str>,
    /// The JavaScript TypedArray its elements read as (`toTypedArray`): its values, or
    /// its raw bits where JavaScript has no such number (a `Float16Array` for float16,
    /// a `Uint16Array` of its bits where the engine has none).
    pub typed_array: &'static str,
    /// Width of an element's value in bits, as `.safetensors` files and DLPack pack it:
    /// [`Row::bits`], but for the dtypes held one a byte in fewer bits (the float6s' 6,
    /// int2's and uint2's 2, int1's and uint1's 1).
    pub packed_bits: u32,
}

/// A row, its facts in the order of [`Row`]'s fields.
#[allow(clippy::too_many_arguments)]
const fn row(
    dtype: DType,
    name: &'static str,
    aliases: &'static [&'static str],
    bits: u32,
    class: Class,
    format: Option<FloatFormat>,
    dlpack: Option<u8>,
    safetensors: Option<&'static str>,
    npy: Option<&'static str>,
    typed_array: &'static str,
) -> Row {
    Row {
        dtype,
        name,
        aliases,
        bits,
        class,
        format,
        dlpack,
        safetensors,
        npy,
        typed_array,
        packed_bits: bits,
    }
}

impl Row {
    /// The row of a dtype held one a byte (`bits` 8) whose value is `bits` wide.
    const fn packed(self, bits: u32) -> Row {
        Row {
            packed_bits: bits,
            ..self
        }
    }
}

use Class::{Bool as B, Complex as C, Float as F, Signed as S, Unsigned as U};

/// How many dtypes the table has.
const N: usize = 35;

/// The table: a row a dtype, in code order.
#[rustfmt::skip]
const TABLE: [Row; N] = [
    row(DType::Float16, "float16", &["f16", "half"], 16, F, Some(F16), Some(dlpack::FLOAT), Some("F16"), Some("<f2"), "Float16Array"),
    row(DType::Bfloat16, "bfloat16", &["bf16"], 16, F, Some(BF16), Some(dlpack::BFLOAT), Some("BF16"), None, "Uint16Array"),
    row(DType::Float8E4m3fn, "float8_e4m3fn", &["f8_e4m3", "f8e4m3fn", "e4m3fn"], 8, F, Some(E4M3), Some(dlpack::FLOAT8_E4M3FN), Some("F8_E4M3"), None, "Uint8Array"),
    row(DType::Float8E5m2, "float8_e5m2", &["f8_e5m2", "f8e5m2", "e5m2"], 8, F, Some(E5M2), Some(dlpack::FLOAT8_E5M2), Some("F8_E5M2"), None, "Uint8Array"),
    row(DType::Float32, "float32", &["f32", "float"], 32, F, Some(F32), Some(dlpack::FLOAT), Some("F32"), Some("<f4"), "Float32Array"),
    row(DType::Float64, "float64", &["f64", "double"], 64, F, Some(F64), Some(dlpack::FLOAT), Some("F64"), Some("<f8"), "Float64Array"),
    row(DType::Int4, "int4", &["i4"], 4, S, None, Some(dlpack::INT), None, None, "Int8Array"),
    row(DType::Uint4, "uint4", &["u4"], 4, U, None, Some(dlpack::UINT), None, None, "Uint8Array"),
    row(DType::Int8, "int8", &["i8"], 8, S, None, Some(dlpack::INT), Some("I8"), Some("|i1"), "Int8Array"),
    row(DType::Uint8, "uint8", &["u8"], 8, U, None, Some(dlpack::UINT), Some("U8"), Some("|u1"), "Uint8Array"),
    row(DType::Int16, "int16", &["i16"], 16, S, None, Some(dlpack::INT), Some("I16"), Some("<i2"), "Int16Array"),
    row(DType::Uint16, "uint16", &["u16"], 16, U, None, Some(dlpack::UINT), Some("U16"), Some("<u2"), "Uint16Array"),
    row(DType::Int32, "int32", &["i32"], 32, S, None, Some(dlpack::INT), Some("I32"), Some("<i4"), "Int32Array"),
    row(DType::Uint32, "uint32", &["u32"], 32, U, None, Some(dlpack::UINT), Some("U32"), Some("<u4"), "Uint32Array"),
    row(DType::Int64, "int64", &["i64"], 64, S, None, Some(dlpack::INT), Some("I64"), Some("<i8"), "BigInt64Array"),
    row(DType::Uint64, "uint64", &["u64"], 64, U, None, Some(dlpack::UINT), Some("U64"), Some("<u8"), "BigUint64Array"),
    row(DType::Complex64, "complex64", &["c64"], 64, C, Some(F32), Some(dlpack::COMPLEX), Some("C64"), Some("<c8"), "Float32Array"),
    row(DType::Complex128, "complex128", &["c128"], 128, C, Some(F64), Some(dlpack::COMPLEX), None, Some("<c16"), "Float64Array"),
    row(DType::Bool, "bool", &["bool_"], 8, B, None, Some(dlpack::BOOL), Some("BOOL"), Some("|b1"), "Uint8Array"),
    row(DType::Float8E4m3, "float8_e4m3", &["f8e4m3"], 8, F, Some(E4M3_IEEE), Some(dlpack::FLOAT8_E4M3), None, None, "Uint8Array"),
    row(DType::Float8E3m4, "float8_e3m4", &["f8e3m4", "e3m4"], 8, F, Some(E3M4), Some(dlpack::FLOAT8_E3M4), None, None, "Uint8Array"),
    row(DType::Float8E4m3fnuz, "float8_e4m3fnuz", &["f8_e4m3fnuz", "f8e4m3fnuz", "e4m3fnuz"], 8, F, Some(E4M3FNUZ), Some(dlpack::FLOAT8_E4M3FNUZ), Some("F8_E4M3FNUZ"), None, "Uint8Array"),
    row(DType::Float8E5m2fnuz, "float8_e5m2fnuz", &["f8_e5m2fnuz", "f8e5m2fnuz", "e5m2fnuz"], 8, F, Some(E5M2FNUZ), Some(dlpack::FLOAT8_E5M2FNUZ), Some("F8_E5M2FNUZ"), None, "Uint8Array"),
    row(DType::Float8E4m3b11fnuz, "float8_e4m3b11fnuz", &["f8e4m3b11fnuz", "e4m3b11fnuz"], 8, F, Some(E4M3B11FNUZ), Some(dlpack::FLOAT8_E4M3B11FNUZ), None, None, "Uint8Array"),
    row(DType::Float8E8m0fnu, "float8_e8m0fnu", &["f8_e8m0", "f8e8m0fnu", "e8m0fnu", "e8m0"], 8, F, Some(E8M0), Some(dlpack::FLOAT8_E8M0FNU), Some("F8_E8M0"), None, "Uint8Array"),
    row(DType::Float8E5m3fnu, "float8_e5m3fnu", &["f8e5m3fnu", "e5m3fnu"], 8, F, Some(E5M3FNU), None, None, None, "Uint8Array"),
    // Not "f4", safetensors' code, which NumPy reads as float32 (`from_str` refuses it).
    row(DType::Float4E2m1fn, "float4_e2m1fn", &["f4e2m1fn", "e2m1fn", "e2m1"], 4, F, Some(E2M1), Some(dlpack::FLOAT4_E2M1FN), Some("F4"), None, "Uint8Array"),
    // One a byte in memory (`bits` 8); six bits packed in files and DLPack (`packed_bits`).
    row(DType::Float6E2m3fn, "float6_e2m3fn", &["f6_e2m3", "f6e2m3fn", "e2m3fn", "e2m3"], 8, F, Some(E2M3), Some(dlpack::FLOAT6_E2M3FN), Some("F6_E2M3"), None, "Uint8Array").packed(6),
    row(DType::Float6E3m2fn, "float6_e3m2fn", &["f6_e3m2", "f6e3m2fn", "e3m2fn", "e3m2"], 8, F, Some(E3M2), Some(dlpack::FLOAT6_E3M2FN), Some("F6_E3M2"), None, "Uint8Array").packed(6),
    // One a byte in memory, in the low bits (ml_dtypes' layout); packed in DLPack.
    row(DType::Int2, "int2", &[], 8, S, None, Some(dlpack::INT), None, None, "Uint8Array").packed(2),
    row(DType::Uint2, "uint2", &[], 8, U, None, Some(dlpack::UINT), None, None, "Uint8Array").packed(2),
    row(DType::Int1, "int1", &[], 8, S, None, Some(dlpack::INT), None, None, "Uint8Array").packed(1),
    row(DType::Uint1, "uint1", &[], 8, U, None, Some(dlpack::UINT), None, None, "Uint8Array").packed(1),
    row(DType::Complex32, "complex32", &["chalf"], 32, C, Some(F16), Some(dlpack::COMPLEX), None, None, "Float16Array"),
    row(DType::Bcomplex32, "bcomplex32", &[], 32, C, Some(BF16), None, None, None, "Uint16Array"),
];

// The table is in code order: row i is the dtype of code i.
const _: () = {
    let mut i = 0;
    while i < TABLE.len() {
        assert!(TABLE[i].dtype as usize == i);
        i += 1;
    }
};

impl DType {
    /// Every dtype, in code order.
    pub const ALL: [DType; N] = {
        let mut all = [DType::Float16; N];
        let mut i = 0;
        while i < TABLE.len() {
            all[i] = TABLE[i].dtype;
            i += 1;
        }
        all
    };

    /// The dtype's row of the table: every fact nxrig has of it.
    #[inline]
    pub const fn row(self) -> &'static Row {
        &TABLE[self as usize]
    }

    /// nxrig's code for the dtype: its index in [`DType::ALL`], `NX_DTYPE_*` in C.
    #[inline]
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The dtype of `code`, or `None` for a code of no dtype.
    pub const fn of_code(code: u8) -> Option<DType> {
        if (code as usize) < TABLE.len() {
            Some(TABLE[code as usize].dtype)
        } else {
            None
        }
    }

    /// The dtype's name: `"float16"`, `"bfloat16"`, `"float8_e4m3fn"`, ..., `"bool"`.
    #[inline]
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// Width of one element in memory in bits: 4 for int4, uint4 and float4_e2m1fn
    /// (two a byte), 8 for bool, the float6s, int2, uint2, int1 and uint1 (one a byte).
    #[inline]
    pub const fn bits(self) -> u32 {
        self.row().bits
    }

    /// Width of one element's value in bits, as `.safetensors` files and DLPack pack
    /// it (element `i` at bits `bits * i..` of the little-endian bytes): 6 for the
    /// float6s (four in three bytes), 2 for int2 and uint2, 1 for int1 and uint1, all
    /// held one a byte in memory; [`DType::bits`] for every other dtype. An integer's
    /// range and wrapping are of this width.
    ///
    /// ```
    /// use nxrig::DType;
    /// assert_eq!((DType::Float6E2m3fn.bits(), DType::Float6E2m3fn.packed_bits()), (8, 6));
    /// assert_eq!((DType::Int2.bits(), DType::Int2.packed_bits()), (8, 2));
    /// assert_eq!(DType::Int4.packed_bits(), 4);
    /// ```
    #[inline]
    pub const fn packed_bits(self) -> u32 {
        self.row().packed_bits
    }

    /// True where memory holds the dtype wider than files pack it (the float6s, int2,
    /// uint2, int1 and uint1, one a byte): its file bytes are unpacked when read and
    /// packed when written.
    #[inline]
    pub const fn is_padded(self) -> bool {
        self.packed_bits() != self.bits()
    }

    /// Alignment in bytes of an element's storage: its width for dtypes of a byte or
    /// more, 1 for sub-byte dtypes, one component's width for complex dtypes.
    pub const fn align(self) -> usize {
        match self.class() {
            _ if self.bits() < 8 => 1,
            Class::Complex => (self.bits() / 16) as usize,
            _ => (self.bits() / 8) as usize,
        }
    }

    /// Bytes that `n` elements occupy, packed: `ceil(n * bits / 8)`.
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the byte count overflows `usize`. The bit count is
    /// reckoned in 128-bit arithmetic, so on wasm32 every byte count below 4 GiB is
    /// found (a 32-bit bit count would overflow from 512 MiB).
    pub fn bytes(self, n: usize) -> Result<usize, Error> {
        let bits = n as u128 * self.bits() as u128;
        usize::try_from(bits.div_ceil(8)).map_err(|_| Error::TooLarge {
            op: "DType::bytes",
            what: "byte count",
            dtype: self.name(),
        })
    }

    /// Bytes of one element's storage in a byte-addressed record: 1 for sub-byte dtypes.
    #[inline]
    pub const fn storage_bytes(self) -> usize {
        let b = self.bits() as usize;
        if b < 8 {
            1
        } else {
            b / 8
        }
    }

    /// True for int4, uint4 and float4_e2m1fn, whose elements are narrower than a byte
    /// in memory (not the float6s, held one a byte).
    #[inline]
    pub const fn is_sub_byte(self) -> bool {
        self.bits() < 8
    }

    /// What kind of number the dtype holds.
    #[inline]
    pub const fn class(self) -> Class {
        self.row().class
    }

    /// True for the float dtypes (not complex).
    #[inline]
    pub const fn is_float(self) -> bool {
        matches!(self.class(), Class::Float)
    }

    /// The bit layout of a float dtype, or of one component of a complex dtype.
    #[inline]
    pub const fn float_format(self) -> Option<FloatFormat> {
        self.row().format
    }

    /// DLPack's `(code, bits)` for the dtype (`DLDataType` with one lane), `None` where
    /// DLPack has no code for it (float8_e5m3fnu: an array of it is not exported). The
    /// bits are [`DType::packed_bits`]: a float6's 6 (nxrig's one a byte travels with
    /// DLPack's flag `IS_SUBBYTE_TYPE_PADDED`).
    ///
    /// ```
    /// use nxrig::DType;
    /// assert_eq!(DType::Float8E8m0fnu.dlpack(), Some((14, 8)));
    /// assert_eq!(DType::Float6E3m2fn.dlpack(), Some((16, 6)));
    /// assert_eq!(DType::Float8E5m3fnu.dlpack(), None);
    /// ```
    #[inline]
    pub const fn dlpack(self) -> Option<(u8, u8)> {
        match self.row().dlpack {
            Some(code) => Some((code, self.packed_bits() as u8)),
            None => None,
        }
    }
}
