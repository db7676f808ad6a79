/**
 * @file nx_dtype.h
 * @brief nxrig dtype facts and exact element conversion, in portable C99.
 *
 * This header is the single C-family description of nxrig's dtypes: their numeric codes,
 * storage sizes, alignments, DLPack codes and names, the packing of 4-bit integers, and a
 * one-element conversion routine (nx_convert) between any two dtypes.
 *
 * Portability: the header includes nothing but <stdint.h> (and nothing at all under Metal,
 * where it declares the fixed-width integer types itself). It compiles as C99, C++, CUDA,
 * HIP and (intended, not machine-tested here) Metal Shading Language. All conversions are
 * done in integer arithmetic on the bit patterns, so results never depend on the compiler's
 * floating-point rounding mode, flush-to-zero / denormals-are-zero settings, or on whether
 * the device has a float64 unit at all. No float or double variable appears anywhere.
 *
 * Storage conventions of the conversion API (nx_convert and the *_bits helpers):
 *  - Multi-byte elements are little-endian (the host is assumed little-endian; the loads
 *    and stores here assemble bytes explicitly, so they do not depend on alignment).
 *  - int4 / uint4 / float4_e2m1fn use ONE byte per element holding the value in the low
 *    nibble; on read the high nibble is ignored, on write it is 0. (In packed tensors they
 *    are two a byte, see nx_nibble_get / nx_nibble_set.)
 *  - bool is one byte, written as 0 or 1; on read any nonzero byte counts as true.
 *  - complex32 / bcomplex32 / complex64 / complex128 are the real component followed by
 *    the imaginary component, each a float16 / bfloat16 / float32 / float64.
 *
 * Conversion rules (exact; see nx_convert):
 *  1. float (or complex component) to float: the exact value rounded once to nearest, ties
 *     to even. Overflow gives +-inf where the target has inf; float8_e4m3fn (no inf) gives NaN
 *     with the sign kept (0x7F / 0xFF) for values that round beyond 448 and for +-inf; a
 *     "fnuz" float8 (no inf, no -0) gives its NaN, 0x80. Signed zeros keep their sign (+0
 *     in a "fnuz" float8); underflow gives a signed zero; subnormals are exact. Into
 *     float8_e8m0fnu (powers of two, no sign, no zero): the nearest power, a tie up; under
 *     2^-127, 2^-127 (0x00); zeros, negative values, infinities, NaNs and values rounding
 *     past 2^127 give its NaN, 0xFF. Into float8_e5m3fnu (no sign, a zero, subnormals):
 *     negative values (but zeros, which give +0), infinities, NaNs and values rounding
 *     past 114688 give its NaN, 0xFF. Into float4_e2m1fn (no inf, no NaN): values past 6
 *     and infinities give 6 of their sign; a NaN gives a zero of the other sign (0x8 for
 *     a positive NaN, 0x0 for a negative one, as ml_dtypes).
 *  2. NaN into a float target: sign kept, exponent all ones, fraction = the target's quiet
 *     bit OR the source fraction left-aligned to the target fraction width (truncated).
 *     Every NaN into float8_e4m3fn is 0x7F / 0xFF by sign, into a "fnuz" float8 0x80. A
 *     NaN source of those formats has no payload and reads as a canonical quiet NaN of its
 *     sign.
 *  3. float to integer: truncate toward zero, saturate to the target range, NaN gives 0,
 *     +-inf saturate.
 *  4. integer (and bool as 0/1) to integer: wrap modulo 2^bits (two's complement).
 *  5. integer to float: the exact integer rounded once, ties to even.
 *  6. anything to bool: 1 iff nonzero (NaN is nonzero, +-0 is zero, a complex is nonzero
 *     if either component is).
 *  7. complex to a real dtype: the real part converted. Real to complex: the value converted
 *     into the component format, imaginary +0.0. Complex to complex: each component.
 */
#ifndef NX_DTYPE_H
#define NX_DTYPE_H

/* ------------------------------------------------------------------------------------- */
/* Fixed-width integer types and qualifiers                                               */
/* ------------------------------------------------------------------------------------- */

#ifdef __METAL_VERSION__
/* Metal has no <stdint.h>; declare the fixed-width types over Metal's scalar types (a
 * typedef redeclaring the same type is harmless in Metal's C++ dialect). */
typedef signed char int8_t;     /**< 8-bit signed integer (Metal). */
typedef unsigned char uint8_t;  /**< 8-bit unsigned integer (Metal). */
typedef short int16_t;          /**< 16-bit signed integer (Metal). */
typedef unsigned short uint16_t;/**< 16-bit unsigned integer (Metal). */
typedef int int32_t;            /**< 32-bit signed integer (Metal). */
typedef unsigned int uint32_t;  /**< 32-bit unsigned integer (Metal). */
typedef long int64_t;           /**< 64-bit signed integer (Metal: long is 64-bit). */
typedef unsigned long uint64_t; /**< 64-bit unsigned integer (Metal: ulong is 64-bit). */
#elif defined(__CUDACC_RTC__)
/* NVRTC compiles without the system's headers: the fixed-width types over CUDA's
 * (LP64 on every CUDA host: long long is 64-bit). */
typedef signed char int8_t;            /**< 8-bit signed integer (NVRTC). */
typedef unsigned char uint8_t;         /**< 8-bit unsigned integer (NVRTC). */
typedef short int16_t;                 /**< 16-bit signed integer (NVRTC). */
typedef unsigned short uint16_t;       /**< 16-bit unsigned integer (NVRTC). */
typedef int int32_t;                   /**< 32-bit signed integer (NVRTC). */
typedef unsigned int uint32_t;         /**< 32-bit unsigned integer (NVRTC). */
typedef long long int64_t;             /**< 64-bit signed integer (NVRTC). */
typedef unsigned long long uint64_t;   /**< 64-bit unsigned integer (NVRTC). */
typedef unsigned long long uintptr_t;  /**< An address as an integer (NVRTC). */
#else
#include <stdint.h>
#endif

/**
 * @def NX_FN
 * Qualifiers of every function in this header: `static inline` in C and C++, plus
 * `__host__ __device__` under CUDA (__CUDACC__) and HIP (__HIPCC__), and plain `inline`
 * under Metal. Define it before including the header to override.
 */
#ifndef NX_FN
#if defined(__METAL_VERSION__)
#define NX_FN inline
#elif defined(__CUDACC__) || defined(__HIPCC__)
#define NX_FN static inline __host__ __device__
#else
#define NX_FN static inline
#endif
#endif

/**
 * @def NX_ADDR
 * Address-space qualifier put on the pointer parameters (nx_convert, nx_nibble_get,
 * nx_nibble_set, nx_load_le, nx_store_le): empty in C/C++/CUDA/HIP, `thread` under Metal
 * (Metal requires one on every pointer). Define it before including the header to override,
 * e.g. as `device` to convert straight out of a buffer.
 */
#ifndef NX_ADDR
#if defined(__METAL_VERSION__)
#define NX_ADDR thread
#else
#define NX_ADDR
#endif
#endif

#if defined(__cplusplus) && !defined(__METAL_VERSION__)
extern "C" {
#endif

/* ------------------------------------------------------------------------------------- */
/* Dtype codes and facts                                                                  */
/* ------------------------------------------------------------------------------------- */
/* Written from the dtype table (src/dtype/table.rs) by tests/c_header.rs, which fails
 * while this section differs from the table (NX_BLESS=1 cargo test --test c_header
 * writes it). Switches rather than arrays, so that the functions work in CUDA/HIP device
 * code and in Metal without any global memory. */

/** Dtype class returned by nx_dtype_kind for an unknown code. */
#define NX_KIND_INVALID 0
/** Dtype class: real floating point (float16, bfloat16, float8_*, float32, float64). */
#define NX_KIND_FLOAT 1
/** Dtype class: integer, signed or unsigned (int4 .. uint64). */
#define NX_KIND_INT 2
/** Dtype class: complex (complex64, complex128). */
#define NX_KIND_COMPLEX 3
/** Dtype class: bool. */
#define NX_KIND_BOOL 4

/* BEGIN the dtype table: written by tests/c_header.rs from src/dtype/table.rs. */

/** float16: 1 sign, 5 exponent (bias 15), 10 fraction bits; IEEE-like, with infinities and NaNs. */
#define NX_DTYPE_FLOAT16 0
/** bfloat16: 1 sign, 8 exponent (bias 127), 7 fraction bits; IEEE-like, with infinities and NaNs. */
#define NX_DTYPE_BFLOAT16 1
/** float8_e4m3fn: 1 sign, 4 exponent (bias 7), 3 fraction bits; no infinity, NaN only where every exponent and fraction bit is 1. */
#define NX_DTYPE_FLOAT8_E4M3FN 2
/** float8_e5m2: 1 sign, 5 exponent (bias 15), 2 fraction bits; IEEE-like, with infinities and NaNs. */
#define NX_DTYPE_FLOAT8_E5M2 3
/** float32: 1 sign, 8 exponent (bias 127), 23 fraction bits; IEEE-like, with infinities and NaNs. */
#define NX_DTYPE_FLOAT32 4
/** float64: 1 sign, 11 exponent (bias 1023), 52 fraction bits; IEEE-like, with infinities and NaNs. */
#define NX_DTYPE_FLOAT64 5
/** int4: 4-bit two's complement integer; packed two a byte, low nibble first. */
#define NX_DTYPE_INT4 6
/** uint4: 4-bit unsigned integer; packed two a byte, low nibble first. */
#define NX_DTYPE_UINT4 7
/** int8: 8-bit two's complement integer. */
#define NX_DTYPE_INT8 8
/** uint8: 8-bit unsigned integer. */
#define NX_DTYPE_UINT8 9
/** int16: 16-bit two's complement integer. */
#define NX_DTYPE_INT16 10
/** uint16: 16-bit unsigned integer. */
#define NX_DTYPE_UINT16 11
/** int32: 32-bit two's complement integer. */
#define NX_DTYPE_INT32 12
/** uint32: 32-bit unsigned integer. */
#define NX_DTYPE_UINT32 13
/** int64: 64-bit two's complement integer. */
#define NX_DTYPE_INT64 14
/** uint64: 64-bit unsigned integer. */
#define NX_DTYPE_UINT64 15
/** complex64: two float32 (real, then imaginary). */
#define NX_DTYPE_COMPLEX64 16
/** complex128: two float64 (real, then imaginary). */
#define NX_DTYPE_COMPLEX128 17
/** bool: one byte holding 0 or 1. */
#define NX_DTYPE_BOOL 18
/** float8_e4m3: 1 sign, 4 exponent (bias 7), 3 fraction bits; IEEE-like, with infinities and NaNs. */
#define NX_DTYPE_FLOAT8_E4M3 19
/** float8_e3m4: 1 sign, 3 exponent (bias 3), 4 fraction bits; IEEE-like, with infinities and NaNs. */
#define NX_DTYPE_FLOAT8_E3M4 20
/** float8_e4m3fnuz: 1 sign, 4 exponent (bias 8), 3 fraction bits; no infinity, no negative zero, NaN only at the negative-zero pattern. */
#define NX_DTYPE_FLOAT8_E4M3FNUZ 21
/** float8_e5m2fnuz: 1 sign, 5 exponent (bias 16), 2 fraction bits; no infinity, no negative zero, NaN only at the negative-zero pattern. */
#define NX_DTYPE_FLOAT8_E5M2FNUZ 22
/** float8_e4m3b11fnuz: 1 sign, 4 exponent (bias 11), 3 fraction bits; no infinity, no negative zero, NaN only at the negative-zero pattern. */
#define NX_DTYPE_FLOAT8_E4M3B11FNUZ 23
/** float8_e8m0fnu: 0 sign, 8 exponent (bias 127), 0 fraction bits; no zero, no infinity, NaN only where every bit is 1, every other pattern a power of two. */
#define NX_DTYPE_FLOAT8_E8M0FNU 24
/** float8_e5m3fnu: 0 sign, 5 exponent (bias 15), 3 fraction bits; no infinity, NaN only where every bit is 1. */
#define NX_DTYPE_FLOAT8_E5M3FNU 25
/** float4_e2m1fn: 1 sign, 2 exponent (bias 1), 1 fraction bits; no infinity and no NaN, every pattern a number; packed two a byte, low nibble first. */
#define NX_DTYPE_FLOAT4_E2M1FN 26
/** float6_e2m3fn: 1 sign, 2 exponent (bias 1), 3 fraction bits; no infinity and no NaN, every pattern a number; one a byte, in its low bits (packed in files and DLPack). */
#define NX_DTYPE_FLOAT6_E2M3FN 27
/** float6_e3m2fn: 1 sign, 3 exponent (bias 3), 2 fraction bits; no infinity and no NaN, every pattern a number; one a byte, in its low bits (packed in files and DLPack). */
#define NX_DTYPE_FLOAT6_E3M2FN 28
/** int2: 2-bit two's complement integer; one a byte, in its low bits (packed in DLPack). */
#define NX_DTYPE_INT2 29
/** uint2: 2-bit unsigned integer; one a byte, in its low bits (packed in DLPack). */
#define NX_DTYPE_UINT2 30
/** int1: 1-bit two's complement integer; one a byte, in its low bits (packed in DLPack). */
#define NX_DTYPE_INT1 31
/** uint1: 1-bit unsigned integer; one a byte, in its low bits (packed in DLPack). */
#define NX_DTYPE_UINT1 32
/** complex32: two float16 (real, then imaginary). */
#define NX_DTYPE_COMPLEX32 33
/** bcomplex32: two bfloat16 (real, then imaginary). */
#define NX_DTYPE_BCOMPLEX32 34
/** Number of dtype codes; valid codes are 0 .. NX_DTYPE_COUNT - 1. */
#define NX_DTYPE_COUNT 35

/** Storage size of one element in bits (4 for int4/uint4), or -1 for an unknown code. */
NX_FN int nx_dtype_bits(int code)
{
    switch (code) {
    case NX_DTYPE_FLOAT16: case NX_DTYPE_BFLOAT16: case NX_DTYPE_INT16:
    case NX_DTYPE_UINT16:
        return 16;
    case NX_DTYPE_FLOAT8_E4M3FN: case NX_DTYPE_FLOAT8_E5M2: case NX_DTYPE_INT8:
    case NX_DTYPE_UINT8: case NX_DTYPE_BOOL: case NX_DTYPE_FLOAT8_E4M3:
    case NX_DTYPE_FLOAT8_E3M4: case NX_DTYPE_FLOAT8_E4M3FNUZ: case NX_DTYPE_FLOAT8_E5M2FNUZ:
    case NX_DTYPE_FLOAT8_E4M3B11FNUZ: case NX_DTYPE_FLOAT8_E8M0FNU:
    case NX_DTYPE_FLOAT8_E5M3FNU: case NX_DTYPE_FLOAT6_E2M3FN: case NX_DTYPE_FLOAT6_E3M2FN:
    case NX_DTYPE_INT2: case NX_DTYPE_UINT2: case NX_DTYPE_INT1: case NX_DTYPE_UINT1:
        return 8;
    case NX_DTYPE_FLOAT32: case NX_DTYPE_INT32: case NX_DTYPE_UINT32:
    case NX_DTYPE_COMPLEX32: case NX_DTYPE_BCOMPLEX32:
        return 32;
    case NX_DTYPE_FLOAT64: case NX_DTYPE_INT64: case NX_DTYPE_UINT64:
    case NX_DTYPE_COMPLEX64:
        return 64;
    case NX_DTYPE_INT4: case NX_DTYPE_UINT4: case NX_DTYPE_FLOAT4_E2M1FN:
        return 4;
    case NX_DTYPE_COMPLEX128:
        return 128;
    default:
        return -1;
    }
}

/** Width of an element's value in bits: nx_dtype_bits, but for the dtypes held one a
 *  byte in their low bits (the float6s 6, int2 and uint2 2, int1 and uint1 1), or -1 for
 *  an unknown code. An integer's range and wrapping are of this width. */
NX_FN int nx_dtype_value_bits(int code)
{
    switch (code) {
    case NX_DTYPE_FLOAT6_E2M3FN: case NX_DTYPE_FLOAT6_E3M2FN:
        return 6;
    case NX_DTYPE_INT2: case NX_DTYPE_UINT2:
        return 2;
    case NX_DTYPE_INT1: case NX_DTYPE_UINT1:
        return 1;
    default:
        return nx_dtype_bits(code);
    }
}

/** Required alignment of an element in bytes (complex: that of its component; sub-byte
 *  dtypes: 1), or -1 for an unknown code. */
NX_FN int nx_dtype_align(int code)
{
    switch (code) {
    case NX_DTYPE_FLOAT16: case NX_DTYPE_BFLOAT16: case NX_DTYPE_INT16:
    case NX_DTYPE_UINT16: case NX_DTYPE_COMPLEX32: case NX_DTYPE_BCOMPLEX32:
        return 2;
    case NX_DTYPE_FLOAT8_E4M3FN: case NX_DTYPE_FLOAT8_E5M2: case NX_DTYPE_INT4:
    case NX_DTYPE_UINT4: case NX_DTYPE_INT8: case NX_DTYPE_UINT8: case NX_DTYPE_BOOL:
    case NX_DTYPE_FLOAT8_E4M3: case NX_DTYPE_FLOAT8_E3M4: case NX_DTYPE_FLOAT8_E4M3FNUZ:
    case NX_DTYPE_FLOAT8_E5M2FNUZ: case NX_DTYPE_FLOAT8_E4M3B11FNUZ:
    case NX_DTYPE_FLOAT8_E8M0FNU: case NX_DTYPE_FLOAT8_E5M3FNU: case NX_DTYPE_FLOAT4_E2M1FN:
    case NX_DTYPE_FLOAT6_E2M3FN: case NX_DTYPE_FLOAT6_E3M2FN: case NX_DTYPE_INT2:
    case NX_DTYPE_UINT2: case NX_DTYPE_INT1: case NX_DTYPE_UINT1:
        return 1;
    case NX_DTYPE_FLOAT32: case NX_DTYPE_INT32: case NX_DTYPE_UINT32:
    case NX_DTYPE_COMPLEX64:
        return 4;
    case NX_DTYPE_FLOAT64: case NX_DTYPE_INT64: case NX_DTYPE_UINT64:
    case NX_DTYPE_COMPLEX128:
        return 8;
    default:
        return -1;
    }
}

/** DLPack type code (kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLComplex 5,
 *  kDLBool 6, kDLFloat8_*: see DLPack 1.1), or -1 for an unknown code and for a dtype
 *  DLPack has no code for (float8_e5m3fnu). */
NX_FN int nx_dtype_dlpack_code(int code)
{
    switch (code) {
    case NX_DTYPE_FLOAT16: case NX_DTYPE_FLOAT32: case NX_DTYPE_FLOAT64:
        return 2;
    case NX_DTYPE_BFLOAT16:
        return 4;
    case NX_DTYPE_FLOAT8_E4M3FN:
        return 10;
    case NX_DTYPE_FLOAT8_E5M2:
        return 12;
    case NX_DTYPE_INT4: case NX_DTYPE_INT8: case NX_DTYPE_INT16: case NX_DTYPE_INT32:
    case NX_DTYPE_INT64: case NX_DTYPE_INT2: case NX_DTYPE_INT1:
        return 0;
    case NX_DTYPE_UINT4: case NX_DTYPE_UINT8: case NX_DTYPE_UINT16: case NX_DTYPE_UINT32:
    case NX_DTYPE_UINT64: case NX_DTYPE_UINT2: case NX_DTYPE_UINT1:
        return 1;
    case NX_DTYPE_COMPLEX64: case NX_DTYPE_COMPLEX128: case NX_DTYPE_COMPLEX32:
        return 5;
    case NX_DTYPE_BOOL:
        return 6;
    case NX_DTYPE_FLOAT8_E4M3:
        return 8;
    case NX_DTYPE_FLOAT8_E3M4:
        return 7;
    case NX_DTYPE_FLOAT8_E4M3FNUZ:
        return 11;
    case NX_DTYPE_FLOAT8_E5M2FNUZ:
        return 13;
    case NX_DTYPE_FLOAT8_E4M3B11FNUZ:
        return 9;
    case NX_DTYPE_FLOAT8_E8M0FNU:
        return 14;
    case NX_DTYPE_FLOAT4_E2M1FN:
        return 17;
    case NX_DTYPE_FLOAT6_E2M3FN:
        return 15;
    case NX_DTYPE_FLOAT6_E3M2FN:
        return 16;
    default:
        return -1;
    }
}

/** Class of a dtype: NX_KIND_FLOAT, NX_KIND_INT, NX_KIND_COMPLEX, NX_KIND_BOOL, or
 *  NX_KIND_INVALID for an unknown code. */
NX_FN int nx_dtype_kind(int code)
{
    switch (code) {
    case NX_DTYPE_FLOAT16: case NX_DTYPE_BFLOAT16: case NX_DTYPE_FLOAT8_E4M3FN:
    case NX_DTYPE_FLOAT8_E5M2: case NX_DTYPE_FLOAT32: case NX_DTYPE_FLOAT64:
    case NX_DTYPE_FLOAT8_E4M3: case NX_DTYPE_FLOAT8_E3M4: case NX_DTYPE_FLOAT8_E4M3FNUZ:
    case NX_DTYPE_FLOAT8_E5M2FNUZ: case NX_DTYPE_FLOAT8_E4M3B11FNUZ:
    case NX_DTYPE_FLOAT8_E8M0FNU: case NX_DTYPE_FLOAT8_E5M3FNU: case NX_DTYPE_FLOAT4_E2M1FN:
    case NX_DTYPE_FLOAT6_E2M3FN: case NX_DTYPE_FLOAT6_E3M2FN:
        return NX_KIND_FLOAT;
    case NX_DTYPE_INT4: case NX_DTYPE_UINT4: case NX_DTYPE_INT8: case NX_DTYPE_UINT8:
    case NX_DTYPE_INT16: case NX_DTYPE_UINT16: case NX_DTYPE_INT32: case NX_DTYPE_UINT32:
    case NX_DTYPE_INT64: case NX_DTYPE_UINT64: case NX_DTYPE_INT2: case NX_DTYPE_UINT2:
    case NX_DTYPE_INT1: case NX_DTYPE_UINT1:
        return NX_KIND_INT;
    case NX_DTYPE_COMPLEX64: case NX_DTYPE_COMPLEX128: case NX_DTYPE_COMPLEX32:
    case NX_DTYPE_BCOMPLEX32:
        return NX_KIND_COMPLEX;
    case NX_DTYPE_BOOL:
        return NX_KIND_BOOL;
    default:
        return NX_KIND_INVALID;
    }
}

/** The dtype of a complex dtype's real and imaginary parts (NX_DTYPE_FLOAT16 for
 *  complex32, NX_DTYPE_BFLOAT16 for bcomplex32, ...), or -1 if code is not complex. */
NX_FN int nx_complex_part(int code)
{
    switch (code) {
    case NX_DTYPE_COMPLEX64:
        return 4;
    case NX_DTYPE_COMPLEX128:
        return 5;
    case NX_DTYPE_COMPLEX32:
        return 0;
    case NX_DTYPE_BCOMPLEX32:
        return 1;
    default:
        return -1;
    }
}

/** 1 for the signed integer dtypes, else 0. */
NX_FN int nx_dtype_is_signed_int(int code)
{
    switch (code) {
    case NX_DTYPE_INT4: case NX_DTYPE_INT8: case NX_DTYPE_INT16: case NX_DTYPE_INT32:
    case NX_DTYPE_INT64: case NX_DTYPE_INT2: case NX_DTYPE_INT1:
        return 1;
    default:
        return 0;
    }
}

#ifndef __METAL_VERSION__
/** Name of a dtype ("float16", "bfloat16", ...), or NULL (0) for an unknown code.
 *  Not available under Metal. */
NX_FN const char *nx_dtype_name(int code)
{
    switch (code) {
    case NX_DTYPE_FLOAT16:
        return "float16";
    case NX_DTYPE_BFLOAT16:
        return "bfloat16";
    case NX_DTYPE_FLOAT8_E4M3FN:
        return "float8_e4m3fn";
    case NX_DTYPE_FLOAT8_E5M2:
        return "float8_e5m2";
    case NX_DTYPE_FLOAT32:
        return "float32";
    case NX_DTYPE_FLOAT64:
        return "float64";
    case NX_DTYPE_INT4:
        return "int4";
    case NX_DTYPE_UINT4:
        return "uint4";
    case NX_DTYPE_INT8:
        return "int8";
    case NX_DTYPE_UINT8:
        return "uint8";
    case NX_DTYPE_INT16:
        return "int16";
    case NX_DTYPE_UINT16:
        return "uint16";
    case NX_DTYPE_INT32:
        return "int32";
    case NX_DTYPE_UINT32:
        return "uint32";
    case NX_DTYPE_INT64:
        return "int64";
    case NX_DTYPE_UINT64:
        return "uint64";
    case NX_DTYPE_COMPLEX64:
        return "complex64";
    case NX_DTYPE_COMPLEX128:
        return "complex128";
    case NX_DTYPE_BOOL:
        return "bool";
    case NX_DTYPE_FLOAT8_E4M3:
        return "float8_e4m3";
    case NX_DTYPE_FLOAT8_E3M4:
        return "float8_e3m4";
    case NX_DTYPE_FLOAT8_E4M3FNUZ:
        return "float8_e4m3fnuz";
    case NX_DTYPE_FLOAT8_E5M2FNUZ:
        return "float8_e5m2fnuz";
    case NX_DTYPE_FLOAT8_E4M3B11FNUZ:
        return "float8_e4m3b11fnuz";
    case NX_DTYPE_FLOAT8_E8M0FNU:
        return "float8_e8m0fnu";
    case NX_DTYPE_FLOAT8_E5M3FNU:
        return "float8_e5m3fnu";
    case NX_DTYPE_FLOAT4_E2M1FN:
        return "float4_e2m1fn";
    case NX_DTYPE_FLOAT6_E2M3FN:
        return "float6_e2m3fn";
    case NX_DTYPE_FLOAT6_E3M2FN:
        return "float6_e3m2fn";
    case NX_DTYPE_INT2:
        return "int2";
    case NX_DTYPE_UINT2:
        return "uint2";
    case NX_DTYPE_INT1:
        return "int1";
    case NX_DTYPE_UINT1:
        return "uint1";
    case NX_DTYPE_COMPLEX32:
        return "complex32";
    case NX_DTYPE_BCOMPLEX32:
        return "bcomplex32";
    default:
        return 0;
    }
}

#endif

/** Exponent field width of a real float dtype, or 0 if code is not one. */
NX_FN int nx_float_ebits(int code)
{
    switch (code) {
    case NX_DTYPE_FLOAT16: case NX_DTYPE_FLOAT8_E5M2: case NX_DTYPE_FLOAT8_E5M2FNUZ:
    case NX_DTYPE_FLOAT8_E5M3FNU:
        return 5;
    case NX_DTYPE_BFLOAT16: case NX_DTYPE_FLOAT32: case NX_DTYPE_FLOAT8_E8M0FNU:
        return 8;
    case NX_DTYPE_FLOAT8_E4M3FN: case NX_DTYPE_FLOAT8_E4M3: case NX_DTYPE_FLOAT8_E4M3FNUZ:
    case NX_DTYPE_FLOAT8_E4M3B11FNUZ:
        return 4;
    case NX_DTYPE_FLOAT64:
        return 11;
    case NX_DTYPE_FLOAT8_E3M4: case NX_DTYPE_FLOAT6_E3M2FN:
        return 3;
    case NX_DTYPE_FLOAT4_E2M1FN: case NX_DTYPE_FLOAT6_E2M3FN:
        return 2;
    default:
        return 0;
    }
}

/** Fraction field width of a real float dtype, or 0 if code is not one. */
NX_FN int nx_float_mbits(int code)
{
    switch (code) {
    case NX_DTYPE_FLOAT16:
        return 10;
    case NX_DTYPE_BFLOAT16:
        return 7;
    case NX_DTYPE_FLOAT8_E4M3FN: case NX_DTYPE_FLOAT8_E4M3: case NX_DTYPE_FLOAT8_E4M3FNUZ:
    case NX_DTYPE_FLOAT8_E4M3B11FNUZ: case NX_DTYPE_FLOAT8_E5M3FNU:
    case NX_DTYPE_FLOAT6_E2M3FN:
        return 3;
    case NX_DTYPE_FLOAT8_E5M2: case NX_DTYPE_FLOAT8_E5M2FNUZ: case NX_DTYPE_FLOAT6_E3M2FN:
        return 2;
    case NX_DTYPE_FLOAT32:
        return 23;
    case NX_DTYPE_FLOAT64:
        return 52;
    case NX_DTYPE_FLOAT8_E3M4:
        return 4;
    case NX_DTYPE_FLOAT8_E8M0FNU:
        return 0;
    case NX_DTYPE_FLOAT4_E2M1FN:
        return 1;
    default:
        return 0;
    }
}

/** Exponent bias of a real float dtype, or 0 if code is not one. */
NX_FN int nx_float_bias(int code)
{
    switch (code) {
    case NX_DTYPE_FLOAT16: case NX_DTYPE_FLOAT8_E5M2: case NX_DTYPE_FLOAT8_E5M3FNU:
        return 15;
    case NX_DTYPE_BFLOAT16: case NX_DTYPE_FLOAT32: case NX_DTYPE_FLOAT8_E8M0FNU:
        return 127;
    case NX_DTYPE_FLOAT8_E4M3FN: case NX_DTYPE_FLOAT8_E4M3:
        return 7;
    case NX_DTYPE_FLOAT64:
        return 1023;
    case NX_DTYPE_FLOAT8_E3M4: case NX_DTYPE_FLOAT6_E3M2FN:
        return 3;
    case NX_DTYPE_FLOAT8_E4M3FNUZ:
        return 8;
    case NX_DTYPE_FLOAT8_E5M2FNUZ:
        return 16;
    case NX_DTYPE_FLOAT8_E4M3B11FNUZ:
        return 11;
    case NX_DTYPE_FLOAT4_E2M1FN: case NX_DTYPE_FLOAT6_E2M3FN:
        return 1;
    default:
        return 0;
    }
}

/** A real float dtype's special values (nx_float_specials): IEEE's infinities and NaNs
 *  at the all-ones exponent; NaN only where every bit but the sign is 1, no infinity
 *  (float8_e4m3fn); NaN only at the negative-zero pattern, no infinity, no -0 ("fnuz");
 *  no sign, no zero, no infinity, NaN only where every bit is 1, every other pattern the
 *  power of two 2^(e - bias) (fraction width 0: float8_e8m0fnu); no sign, NaN only where
 *  every bit is 1, no infinity, a negative value the NaN (float8_e5m3fnu); no infinity and
 *  no NaN, every pattern a number (float4_e2m1fn, the float6s). */
#define NX_SPECIALS_IEEE 0
#define NX_SPECIALS_ALL_ONES_NAN 1
#define NX_SPECIALS_NEG_ZERO_NAN 2
#define NX_SPECIALS_UNSIGNED_NO_ZERO 3
#define NX_SPECIALS_UNSIGNED 4
#define NX_SPECIALS_FINITE 5

/** A real float dtype's NX_SPECIALS_*, or -1 if code is not one. */
NX_FN int nx_float_specials(int code)
{
    switch (code) {
    case NX_DTYPE_FLOAT16: case NX_DTYPE_BFLOAT16: case NX_DTYPE_FLOAT8_E5M2:
    case NX_DTYPE_FLOAT32: case NX_DTYPE_FLOAT64: case NX_DTYPE_FLOAT8_E4M3:
    case NX_DTYPE_FLOAT8_E3M4:
        return 0;
    case NX_DTYPE_FLOAT8_E4M3FN:
        return 1;
    case NX_DTYPE_FLOAT8_E4M3FNUZ: case NX_DTYPE_FLOAT8_E5M2FNUZ:
    case NX_DTYPE_FLOAT8_E4M3B11FNUZ:
        return 2;
    case NX_DTYPE_FLOAT8_E8M0FNU:
        return 3;
    case NX_DTYPE_FLOAT8_E5M3FNU:
        return 4;
    case NX_DTYPE_FLOAT4_E2M1FN: case NX_DTYPE_FLOAT6_E2M3FN: case NX_DTYPE_FLOAT6_E3M2FN:
        return 5;
    default:
        return -1;
    }
}

/* END the dtype table */

/** Bytes one element occupies in the conversion API: nx_dtype_bits / 8, except 1 for
 *  int4/uint4 (value in the low nibble of one byte); -1 for an unknown code. */
NX_FN int nx_dtype_elem_bytes(int code)
{
    int b = nx_dtype_bits(code);
    if (b < 0) return -1;
    return b < 8 ? 1 : b / 8;
}

/** DLPack bits field (nx_dtype_value_bits: a dtype held one a byte in fewer bits, the
 *  float6s, int2, uint2, int1 and uint1, travels with DLPack's IS_SUBBYTE_TYPE_PADDED
 *  flag), or -1 for an unknown code and for a dtype DLPack has no code for. */
NX_FN int nx_dtype_dlpack_bits(int code)
{
    return nx_dtype_dlpack_code(code) < 0 ? -1 : nx_dtype_value_bits(code);
}

/* ------------------------------------------------------------------------------------- */
/* 4-bit packing and byte access                                                          */
/* ------------------------------------------------------------------------------------- */

/** Raw nibble (0..15) of element i (i >= 0) of a packed int4/uint4 run starting at base:
 *  byte i/2, low nibble when i%2 == 0, high nibble when i%2 == 1. Pass the result to
 *  nx_convert as a one-byte int4/uint4 element, or sign-extend with nx_int4_value. */
NX_FN uint8_t nx_nibble_get(const NX_ADDR uint8_t *base, int64_t i)
{
    uint64_t u = (uint64_t)i;
    return (uint8_t)((base[u >> 1] >> ((u & 1u) * 4u)) & 0x0Fu);
}

/** Store the low nibble of v as element i (i >= 0) of a packed int4/uint4 run at base,
 *  leaving the other nibble of that byte unchanged. */
NX_FN void nx_nibble_set(NX_ADDR uint8_t *base, int64_t i, uint8_t v)
{
    uint64_t u = (uint64_t)i;
    uint32_t sh = (uint32_t)(u & 1u) * 4u;
    uint32_t b = base[u >> 1];
    b = (b & ~(0x0Fu << sh)) | (((uint32_t)v & 0x0Fu) << sh);
    base[u >> 1] = (uint8_t)b;
}

/** Value (-8..7) of an int4 whose bits are the low nibble of v (high nibble ignored). */
NX_FN int nx_int4_value(uint8_t v)
{
    int n = (int)(v & 0x0Fu);
    return n >= 8 ? n - 16 : n;
}

/** Little-endian load of n bytes (1..8) from p, zero-extended to 64 bits. */
NX_FN uint64_t nx_load_le(const NX_ADDR uint8_t *p, int n)
{
    uint64_t v = 0;
    int k;
    for (k = n - 1; k >= 0; --k) v = (v << 8) | (uint64_t)p[k];
    return v;
}

/** Little-endian store of the low n bytes (1..8) of v to p. */
NX_FN void nx_store_le(NX_ADDR uint8_t *p, int n, uint64_t v)
{
    int k;
    for (k = 0; k < n; ++k) {
        p[k] = (uint8_t)(v & 0xFFu);
        v >>= 8;
    }
}

/* ------------------------------------------------------------------------------------- */
/* Exact intermediate value                                                               */
/* ------------------------------------------------------------------------------------- */

/** nx_xval.kind: a finite number (zero included). */
#define NX_XVAL_FINITE 0
/** nx_xval.kind: an infinity. */
#define NX_XVAL_INF 1
/** nx_xval.kind: a NaN. */
#define NX_XVAL_NAN 2

/**
 * Exact, format-independent form of one real value, the pivot of every conversion.
 *  - NX_XVAL_FINITE: value = (-1)^sign * mant * 2^exp exactly (mant == 0 is a signed zero).
 *  - NX_XVAL_INF: (-1)^sign * infinity; mant and exp are 0.
 *  - NX_XVAL_NAN: a NaN of that sign; mant is the source fraction left-aligned to bit 63
 *    (quiet bit included, so a quiet NaN has bit 63 set); exp is 0.
 */
typedef struct nx_xval {
    uint64_t mant; /**< Magnitude significand (finite) or left-aligned NaN fraction. */
    int32_t exp;   /**< Binary exponent of mant's unit bit (finite only). */
    uint8_t sign;  /**< 1 if negative (sign bit set), else 0. */
    uint8_t kind;  /**< NX_XVAL_FINITE, NX_XVAL_INF or NX_XVAL_NAN. */
} nx_xval;

/** Build an nx_xval from its parts (kind, sign 0/1, mant, exp). */
NX_FN nx_xval nx_xval_make(int kind, int sign, uint64_t mant, int32_t exp)
{
    nx_xval v;
    v.mant = mant;
    v.exp = exp;
    v.sign = (uint8_t)(sign ? 1 : 0);
    v.kind = (uint8_t)kind;
    return v;
}

/** 1 unless v is a (signed) zero: NaN and inf count as nonzero. */
NX_FN int nx_xval_nonzero(nx_xval v)
{
    return v.kind != NX_XVAL_FINITE || v.mant != 0;
}

/** Number of significant bits of x (0 for 0, 64 for values >= 2^63). */
NX_FN int nx_bitlen64(uint64_t x)
{
    int n = 0;
    if (x >> 32) { n += 32; x >>= 32; }
    if (x >> 16) { n += 16; x >>= 16; }
    if (x >> 8) { n += 8; x >>= 8; }
    if (x >> 4) { n += 4; x >>= 4; }
    if (x >> 2) { n += 2; x >>= 2; }
    if (x >> 1) { n += 1; x >>= 1; }
    return n + (int)x;
}

/** m / 2^s rounded to nearest, ties to even, for any s >= 1 (also s >= 64); for s <= 0,
 *  m * 2^-s (the caller guarantees it fits). */
NX_FN uint64_t nx_shr_rne(uint64_t m, int32_t s)
{
    uint64_t q, rem, half;
    if (s <= 0) return m << (uint32_t)(-s);
    if (s > 64) return 0; /* m < 2^64 <= half of 2^s: below the halfway point */
    if (s == 64) return m > ((uint64_t)1 << 63) ? 1u : 0u; /* exactly half ties to 0 */
    q = m >> (uint32_t)s;
    rem = m & ((((uint64_t)1) << (uint32_t)s) - 1u);
    half = ((uint64_t)1) << (uint32_t)(s - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return q;
}

/* ------------------------------------------------------------------------------------- */
/* Floating-point formats                                                                 */
/* ------------------------------------------------------------------------------------- */

/** Decode the bit pattern of a real float dtype (in the low bits of `bits`; higher bits are
 *  ignored) into its exact nx_xval. A NaN of a format of one NaN (float8_e4m3fn's S.1111.111,
 *  a "fnuz" format's 0x80) decodes as a canonical quiet NaN of its sign (mant = 2^63). An
 *  unknown code decodes as +0. */
NX_FN nx_xval nx_float_decode(int code, uint64_t bits)
{
    int eb = nx_float_ebits(code), mb = nx_float_mbits(code);
    int specials = nx_float_specials(code);
    uint64_t emask, fmask, e, f;
    int32_t bias;
    int sign;
    if (eb == 0) return nx_xval_make(NX_XVAL_FINITE, 0, 0, 0);
    emask = (((uint64_t)1) << (uint32_t)eb) - 1u;
    fmask = (((uint64_t)1) << (uint32_t)mb) - 1u;
    bias = (int32_t)nx_float_bias(code);
    /* An unsigned format has no sign bit: the bit above it is ignored too. */
    sign = (specials == NX_SPECIALS_UNSIGNED_NO_ZERO || specials == NX_SPECIALS_UNSIGNED)
               ? 0 : (int)((bits >> (uint32_t)(eb + mb)) & 1u);
    e = (bits >> (uint32_t)mb) & emask;
    f = bits & fmask;
    switch (specials) {
    case NX_SPECIALS_IEEE:
        if (e == emask) {
            if (f == 0) return nx_xval_make(NX_XVAL_INF, sign, 0, 0);
            return nx_xval_make(NX_XVAL_NAN, sign, f << (uint32_t)(64 - mb), 0);
        }
        break;
    case NX_SPECIALS_ALL_ONES_NAN:
    case NX_SPECIALS_UNSIGNED: /* no sign: the sign above is 0 */
        if (e == emask && f == fmask) return nx_xval_make(NX_XVAL_NAN, sign, ((uint64_t)1) << 63, 0);
        break;
    case NX_SPECIALS_UNSIGNED_NO_ZERO: /* every other pattern a power of two, 0 too */
        if (e == emask && f == fmask) return nx_xval_make(NX_XVAL_NAN, 0, ((uint64_t)1) << 63, 0);
        return nx_xval_make(NX_XVAL_FINITE, 0, f | (((uint64_t)1) << (uint32_t)mb),
                            (int32_t)e - bias - mb);
    case NX_SPECIALS_FINITE: /* every pattern a number */
        break;
    default: /* NX_SPECIALS_NEG_ZERO_NAN */
        if (sign && e == 0 && f == 0) return nx_xval_make(NX_XVAL_NAN, 1, ((uint64_t)1) << 63, 0);
        break;
    }
    if (e == 0) return nx_xval_make(NX_XVAL_FINITE, sign, f, 1 - bias - mb);
    return nx_xval_make(NX_XVAL_FINITE, sign, f | (((uint64_t)1) << (uint32_t)mb),
                        (int32_t)e - bias - mb);
}

/** Encode v into the bit pattern of a real float dtype (in the low bits of the result):
 *  finite values rounded once to nearest, ties to even, with overflow / NaN / signed-zero
 *  handling as in rules 1 and 2 of the file comment. Returns 0 for an unknown code. */
NX_FN uint64_t nx_float_encode(int code, nx_xval v)
{
    int eb = nx_float_ebits(code), mb = nx_float_mbits(code);
    int specials = nx_float_specials(code);
    int fnuz = specials == NX_SPECIALS_NEG_ZERO_NAN;
    uint64_t emask, fmask, sbit, sig, over, max;
    int32_t bias, emin, E, q;
    if (eb == 0) return 0;
    emask = (((uint64_t)1) << (uint32_t)eb) - 1u;
    fmask = (((uint64_t)1) << (uint32_t)mb) - 1u;
    bias = (int32_t)nx_float_bias(code);
    sbit = ((uint64_t)(v.sign & 1u)) << (uint32_t)(eb + mb);
    /* What overflow and infinities become (the infinity, or the NaN), and the largest
     * finite pattern, sign clear. */
    if (specials == NX_SPECIALS_IEEE) {
        over = sbit | (emask << (uint32_t)mb);
        max = (emask << (uint32_t)mb) - 1u;
    } else if (fnuz) {
        over = ((uint64_t)1) << (uint32_t)(eb + mb);
        max = (emask << (uint32_t)mb) | fmask;
    } else if (specials == NX_SPECIALS_FINITE) {
        /* No infinity or NaN: the largest finite of the sign. */
        over = sbit | (emask << (uint32_t)mb) | fmask;
        max = (emask << (uint32_t)mb) | fmask;
    } else {
        over = sbit | (emask << (uint32_t)mb) | fmask;
        max = ((emask << (uint32_t)mb) | fmask) - 1u;
    }
    if (specials == NX_SPECIALS_UNSIGNED_NO_ZERO) {
        /* Powers of two (fraction width 0): the nearest, a tie up (the bit under the
         * leading one decides); under the least, the least; the NaN (all ones) for a
         * zero, a negative value, an infinity, a NaN, and past the largest. */
        int32_t len, ef;
        if (v.kind != NX_XVAL_FINITE || v.sign || v.mant == 0) return emask;
        len = nx_bitlen64(v.mant);
        ef = v.exp + len - 1 + bias;
        if (len >= 2 && ((v.mant >> (uint32_t)(len - 2)) & 1u)) ++ef;
        if (ef < 0) ef = 0;
        return ef >= (int32_t)emask ? emask : (uint64_t)ef;
    }
    if (specials == NX_SPECIALS_UNSIGNED) {
        /* No sign: a negative value (one that would round to zero too) the NaN, -0 +0. */
        if (v.sign && v.kind == NX_XVAL_FINITE && v.mant == 0) return 0u;
        if (v.sign) return over & ~sbit;
        sbit = 0u;
    }
    if (v.kind == NX_XVAL_NAN) {
        /* No NaN: a zero of the other sign (ml_dtypes'). */
        if (specials == NX_SPECIALS_FINITE) return sbit ^ (((uint64_t)1) << (uint32_t)(eb + mb));
        if (specials != NX_SPECIALS_IEEE) return over;
        return sbit | (emask << (uint32_t)mb) | (((uint64_t)1) << (uint32_t)(mb - 1)) |
               (v.mant >> (uint32_t)(64 - mb));
    }
    if (v.kind == NX_XVAL_INF) return over;
    if (v.mant == 0) return fnuz ? 0u : sbit;
    E = v.exp + nx_bitlen64(v.mant) - 1; /* exponent of the leading bit */
    emin = 1 - bias;
    if (E >= emin) {
        int32_t ef;
        uint64_t bits;
        q = E - mb; /* exponent of the target ulp */
        sig = nx_shr_rne(v.mant, q - v.exp);
        if (sig >> (uint32_t)(mb + 1)) { /* rounded up to the next binade */
            sig >>= 1;
            ++E;
        }
        ef = E + bias;
        if (ef > (int32_t)emask) return over;
        bits = ((uint64_t)ef << (uint32_t)mb) | (sig & fmask);
        return bits > max ? over : sbit | bits;
    }
    /* Subnormal range: ulp is 2^(emin - mb); a result of 2^mb is the smallest normal,
     * which this same encoding (exponent field 1, fraction 0) represents. */
    q = emin - mb;
    sig = nx_shr_rne(v.mant, q - v.exp);
    return (sig == 0 && fnuz) ? 0u : sbit | sig;
}

/** Convert the bit pattern of one real float dtype into another (rules 1 and 2): rounded
 *  once to nearest, ties to even, from any source (float64 into float16 never through
 *  float32); widening exact. E.g. float32 bits into bfloat16 bits:
 *  (uint16_t)nx_float_bits_convert(NX_DTYPE_BFLOAT16, NX_DTYPE_FLOAT32, x). */
NX_FN uint64_t nx_float_bits_convert(int dst_code, int src_code, uint64_t bits)
{
    return nx_float_encode(dst_code, nx_float_decode(src_code, bits));
}

/* ------------------------------------------------------------------------------------- */
/* Integers                                                                               */
/* ------------------------------------------------------------------------------------- */

/** All-ones mask of the low `bits` bits (bits in 1..64). */
NX_FN uint64_t nx_mask64(int bits)
{
    return bits >= 64 ? ~(uint64_t)0 : ((((uint64_t)1) << (uint32_t)bits) - 1u);
}

/** Decode an integer dtype's bit pattern (low nx_dtype_value_bits(code) bits of `bits`;
 *  higher bits ignored, so an int4 byte's high nibble is ignored) into its exact nx_xval (exp 0).
 *  bool decodes as 1 iff any bit is set. An unknown code decodes as +0. */
NX_FN nx_xval nx_int_decode(int code, uint64_t bits)
{
    int nb;
    uint64_t m;
    if (code == NX_DTYPE_BOOL) return nx_xval_make(NX_XVAL_FINITE, 0, (bits & 0xFFu) ? 1u : 0u, 0);
    if (nx_dtype_kind(code) != NX_KIND_INT) return nx_xval_make(NX_XVAL_FINITE, 0, 0, 0);
    nb = nx_dtype_value_bits(code);
    m = bits & nx_mask64(nb);
    if (nx_dtype_is_signed_int(code) && ((m >> (uint32_t)(nb - 1)) & 1u))
        return nx_xval_make(NX_XVAL_FINITE, 1, (0 - m) & nx_mask64(nb), 0);
    return nx_xval_make(NX_XVAL_FINITE, 0, m, 0);
}

/** Integer dtype bit pattern of v truncated toward zero and saturated to the dtype's range
 *  (NaN -> 0, +-inf -> max/min): rule 3, the float-to-integer conversion. Returns the low
 *  nx_dtype_value_bits(code) bits (two's complement); 0 for a non-integer code. */
NX_FN uint64_t nx_int_encode_saturate(int code, nx_xval v)
{
    int nb, sgn, big = 0;
    uint64_t mask, maxpos, maxneg, mag = 0;
    if (nx_dtype_kind(code) != NX_KIND_INT) return 0;
    nb = nx_dtype_value_bits(code);
    sgn = nx_dtype_is_signed_int(code);
    mask = nx_mask64(nb);
    maxpos = sgn ? (mask >> 1) : mask;
    maxneg = sgn ? (((uint64_t)1) << (uint32_t)(nb - 1)) : 0; /* magnitude of the minimum */
    if (v.kind == NX_XVAL_NAN) return 0;
    if (v.kind == NX_XVAL_INF) {
        big = 1;
    } else if (v.mant != 0) {
        if (v.exp >= 0) {
            if (nx_bitlen64(v.mant) + v.exp > 64) big = 1;
            else mag = v.mant << (uint32_t)v.exp;
        } else if (v.exp > -64) {
            mag = v.mant >> (uint32_t)(-v.exp);
        }
    }
    if (v.sign) {
        if (big || mag > maxneg) mag = maxneg;
        return (0 - mag) & mask;
    }
    if (big || mag > maxpos) mag = maxpos;
    return mag & mask;
}

/** Integer dtype bit pattern of v reduced modulo 2^bits (two's complement wrap-around):
 *  rule 4, the integer-to-integer conversion. A non-integral finite v is first truncated
 *  toward zero; NaN and inf give 0. Returns 0 for a non-integer code. */
NX_FN uint64_t nx_int_encode_wrap(int code, nx_xval v)
{
    uint64_t mag = 0;
    if (nx_dtype_kind(code) != NX_KIND_INT) return 0;
    if (v.kind != NX_XVAL_FINITE) return 0;
    if (v.exp >= 0) {
        if (v.exp < 64) mag = v.mant << (uint32_t)v.exp;
    } else if (v.exp > -64) {
        mag = v.mant >> (uint32_t)(-v.exp);
    }
    if (v.sign) mag = 0 - mag;
    return mag & nx_mask64(nx_dtype_value_bits(code));
}

/* ------------------------------------------------------------------------------------- */
/* One-element conversion                                                                 */
/* ------------------------------------------------------------------------------------- */

/**
 * Convert ONE element from dtype src_code at src into dtype dst_code at dst, following
 * rules 1-7 of the file comment. src and dst point at the element's storage bytes
 * (nx_dtype_elem_bytes of each: little-endian; int4/uint4 one byte with the value in the
 * low nibble, written with a zero high nibble; bool one byte 0/1; complex = real then
 * imaginary). dst may be the same pointer as src (the source is fully read first). If
 * either code is unknown nothing is written.
 */
NX_FN void nx_convert(int dst_code, NX_ADDR void *dst, int src_code, const NX_ADDR void *src)
{
    const NX_ADDR uint8_t *s = (const NX_ADDR uint8_t *)src;
    NX_ADDR uint8_t *d = (NX_ADDR uint8_t *)dst;
    int sk = nx_dtype_kind(src_code), dk = nx_dtype_kind(dst_code);
    int from_float = 0;
    nx_xval re, im;
    if (sk == NX_KIND_INVALID || dk == NX_KIND_INVALID) return;
    im = nx_xval_make(NX_XVAL_FINITE, 0, 0, 0);
    if (sk == NX_KIND_FLOAT) {
        re = nx_float_decode(src_code, nx_load_le(s, nx_dtype_elem_bytes(src_code)));
        from_float = 1;
    } else if (sk == NX_KIND_COMPLEX) {
        int comp = nx_complex_part(src_code);
        int cb = nx_dtype_elem_bytes(comp);
        re = nx_float_decode(comp, nx_load_le(s, cb));
        im = nx_float_decode(comp, nx_load_le(s + cb, cb));
        from_float = 1;
    } else {
        re = nx_int_decode(src_code, nx_load_le(s, nx_dtype_elem_bytes(src_code)));
    }
    if (dk == NX_KIND_FLOAT) {
        nx_store_le(d, nx_dtype_elem_bytes(dst_code), nx_float_encode(dst_code, re));
    } else if (dk == NX_KIND_COMPLEX) {
        int comp = nx_complex_part(dst_code);
        int cb = nx_dtype_elem_bytes(comp);
        uint64_t rb = nx_float_encode(comp, re), ib = nx_float_encode(comp, im);
        nx_store_le(d, cb, rb);
        nx_store_le(d + cb, cb, ib);
    } else if (dk == NX_KIND_INT) {
        uint64_t r = from_float ? nx_int_encode_saturate(dst_code, re) : nx_int_encode_wrap(dst_code, re);
        nx_store_le(d, nx_dtype_elem_bytes(dst_code), r);
    } else {
        d[0] = (uint8_t)((nx_xval_nonzero(re) || nx_xval_nonzero(im)) ? 1u : 0u);
    }
}

#if defined(__cplusplus) && !defined(__METAL_VERSION__)
} /* extern "C" */
#endif

#endif /* NX_DTYPE_H */
