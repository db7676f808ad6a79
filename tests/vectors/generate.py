#!/usr/bin/env python3
"""Generates nxrig's dtype-conversion test vectors (see README.md in this folder).

    python3 tests/vectors/generate.py

writes tests/vectors/<source>.bin.gz for every source dtype. The output is deterministic
(fixed seeds, Python's own Mersenne Twister, gzip with mtime 0).

The expected outputs are computed exactly with Python integers: every finite value is
decoded to sign * M * 2**E (integers M >= 0 and E) and rounded once to the target,
ties to even. NumPy / ml_dtypes `astype` is used only as an independent cross-check where
it is known to be exact; any disagreement aborts the script.
"""

import gzip
import math
import os
import random
import sys
import time
from fractions import Fraction

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from numpy_dtypes import NP_TYPE  # noqa: E402

OUT_DIR = os.path.dirname(os.path.abspath(__file__))
N_RANDOM = 100_000
N_RANDOM_COMPLEX = 20_000

# --------------------------------------------------------------------------------------
# Formats
# --------------------------------------------------------------------------------------


class FloatFmt:
    """A binary floating-point format. `fn` formats (float8_e4m3fn) have no infinity and a
    single NaN encoding per sign: all exponent and fraction bits set. `fnuz` formats
    (float8_e4m3fnuz, ...) have no infinity and no negative zero: their one NaN is the
    negative-zero pattern 0x80, every other pattern a number, and a zero result is +0.
    `unsigned` formats (float8_e5m3fnu: "fn" without a sign bit) have a zero and
    subnormals, NaN at all ones, no infinity; a negative value (but -0, which is 0), an
    infinity and a value past the largest finite become the NaN. `finite` formats (the
    OCP MX elements, float4_e2m1fn) have no infinity and no NaN: every pattern is a
    number; a value past the largest finite and an infinity become the largest finite of
    their sign, a NaN a zero of the other sign (ml_dtypes' conversion)."""

    def __init__(self, name, ebits, mbits, fn=False, bias=None, fnuz=False, unsigned=False,
                 finite=False):
        self.name, self.ebits, self.mbits, self.fn, self.fnuz = name, ebits, mbits, fn, fnuz
        self.unsigned, self.finite = unsigned, finite
        self.nbits = (0 if unsigned else 1) + ebits + mbits
        self.bias = (1 << (ebits - 1)) - 1 if bias is None else bias
        self.emin = 1 - self.bias  # exponent of the smallest normal
        self.emask = (1 << ebits) - 1
        self.fmask = (1 << mbits) - 1
        self.sign = 1 << (self.nbits - 1)
        self.quiet = 1 << (mbits - 1)
        if fnuz or finite:
            self.max_finite = (self.emask << mbits) | self.fmask
        elif fn:
            self.max_finite = (self.emask << mbits) | (self.fmask - 1)
        else:
            self.max_finite = (self.emask << mbits) - 1
        self.inf = None if (fn or fnuz or finite) else self.emask << mbits

    # exact value tuples: (0, sign, M, E) finite; (1, sign) infinity; (2, sign, frac, fbits) NaN
    def decode(self, bits):
        s = 0 if self.unsigned else bits >> (self.nbits - 1)
        e = (bits >> self.mbits) & self.emask
        f = bits & self.fmask
        if self.fnuz:
            if bits == self.sign:
                # no payload: the canonical quiet NaN, negative (as ml_dtypes reads it)
                return (2, 1, self.quiet, self.mbits)
        elif self.fn:
            if e == self.emask and f == self.fmask:
                # no payload: the canonical quiet NaN
                return (2, s, self.quiet, self.mbits)
        elif self.finite:
            pass  # every pattern a number
        elif e == self.emask:
            return (1, s) if f == 0 else (2, s, f, self.mbits)
        if e == 0:
            return (0, s, f, self.emin - self.mbits)
        return (0, s, f | (1 << self.mbits), e - self.bias - self.mbits)

    def overflow(self, s):
        if self.fnuz:
            return self.sign
        if self.unsigned:
            return (self.emask << self.mbits) | self.fmask
        if self.fn or self.finite:
            return (s << (self.nbits - 1)) | (self.emask << self.mbits) | self.fmask
        return (s << (self.nbits - 1)) | self.inf

    def round(self, s, M, E):
        """Bits of the value (-1)**s * M * 2**E rounded once to this format, ties to even."""
        if self.unsigned:  # a zero of either sign is 0; any other negative value the NaN
            return 0 if M == 0 else self.overflow(1) if s else self.round_magnitude(M, E)
        sbit = 0 if self.fnuz else s << (self.nbits - 1)  # a zero has no sign in fnuz
        if M == 0:
            return sbit
        mb = self.mbits
        e = E + M.bit_length() - 1  # M * 2**E lies in [2**e, 2**(e+1))
        q = (e if e > self.emin else self.emin) - mb  # exponent of the unit in the last place
        sh = q - E
        if sh <= 0:
            N = M << -sh
        else:
            N = M >> sh
            rem = M & ((1 << sh) - 1)
            half = 1 << (sh - 1)
            if rem > half or (rem == half and (N & 1)):
                N += 1
        if N == 0:
            return sbit  # underflow to signed zero
        sbit = 0 if self.unsigned else s << (self.nbits - 1)
        if N >> (mb + 1):  # rounding carried into the next binade
            N >>= 1
            q += 1
        if N >> mb:
            be = q + mb + self.bias
            bits = (be << mb) | (N & self.fmask)
            if bits > self.max_finite:
                return self.overflow(s)
            return sbit | bits
        return sbit | N  # subnormal (q == emin - mbits)

    def round_magnitude(self, M, E):
        """Bits of the positive value M * 2**E (M > 0) rounded once, ties to even."""
        saved, self.unsigned = self.unsigned, False
        try:
            return self.round(0, M, E)
        finally:
            self.unsigned = saved

    def from_exact(self, v):
        k = v[0]
        if k == 0:
            return self.round(v[1], v[2], v[3])
        s = v[1]
        if k == 1:
            return self.overflow(s)
        if self.finite:  # no NaN: a zero of the other sign
            return (1 - s) << (self.nbits - 1)
        if self.fn or self.fnuz or self.unsigned:
            return self.overflow(s)
        f, fb = v[2], v[3]
        top = f >> (fb - self.mbits) if fb >= self.mbits else f << (self.mbits - fb)
        return (s << (self.nbits - 1)) | (self.emask << self.mbits) | self.quiet | top

    def value(self, bits):
        """Exact Fraction of a finite encoding."""
        v = self.decode(bits)
        assert v[0] == 0
        x = Fraction(v[2]) * (Fraction(2) ** v[3])
        return -x if v[1] else x


class PowerFmt:
    """A format of powers of two without sign or zero (float8_e8m0fnu, the OCP MX formats'
    scale), written from the OCP MX specification and ml_dtypes' documented behaviour:
    `ebits` exponent bits and no fraction; every pattern e but all ones (the NaN) is
    2**(e - bias). A value rounds to the nearest power, a tie (1.5 * 2**k) up; one under
    the least becomes the least; zeros, negative values, infinities, NaNs and values from
    the midpoint of the largest power and the next give the NaN."""

    def __init__(self, name, ebits, bias):
        self.name, self.ebits, self.mbits, self.bias = name, ebits, 0, bias
        self.nbits = ebits
        self.emask = (1 << ebits) - 1
        self.fmask = 0
        self.nan = self.emask
        self.max_finite = self.emask - 1
        self.inf = None

    def decode(self, bits):
        b = bits & self.emask
        if b == self.nan:
            return (2, 0, 1, 1)  # no payload: the canonical quiet NaN, positive
        return (0, 0, 1, b - self.bias)

    def overflow(self, s):
        return self.nan

    def round(self, s, M, E):
        if s or M == 0:
            return self.nan
        n = M.bit_length()
        e = E + n - 1
        if n >= 2 and (M >> (n - 2)) & 1:  # at or past the midpoint 1.5 * 2**e: up
            e += 1
        field = max(e + self.bias, 0)
        return self.nan if field >= self.nan else field

    def from_exact(self, v):
        return self.round(v[1], v[2], v[3]) if v[0] == 0 else self.nan

    def value(self, bits):
        return Fraction(2) ** ((bits & self.emask) - self.bias)


class IntFmt:
    def __init__(self, name, bits, signed):
        self.name, self.nbits, self.signed = name, bits, signed
        self.mask = (1 << bits) - 1
        self.lo = -(1 << (bits - 1)) if signed else 0
        self.hi = (1 << (bits - 1)) - 1 if signed else self.mask

    def decode(self, bits):
        if self.signed and bits >> (self.nbits - 1):
            return bits - (1 << self.nbits)
        return bits


F16 = FloatFmt("float16", 5, 10)
BF16 = FloatFmt("bfloat16", 8, 7)
E4M3 = FloatFmt("float8_e4m3fn", 4, 3, fn=True)
E5M2 = FloatFmt("float8_e5m2", 5, 2)
F32 = FloatFmt("float32", 8, 23)
F64 = FloatFmt("float64", 11, 52)
E4M3_IEEE = FloatFmt("float8_e4m3", 4, 3)
E3M4 = FloatFmt("float8_e3m4", 3, 4)
E4M3FNUZ = FloatFmt("float8_e4m3fnuz", 4, 3, bias=8, fnuz=True)
E5M2FNUZ = FloatFmt("float8_e5m2fnuz", 5, 2, bias=16, fnuz=True)
E4M3B11FNUZ = FloatFmt("float8_e4m3b11fnuz", 4, 3, bias=11, fnuz=True)
E8M0 = PowerFmt("float8_e8m0fnu", 8, 127)
E5M3FNU = FloatFmt("float8_e5m3fnu", 5, 3, fn=True, unsigned=True)
E2M1 = FloatFmt("float4_e2m1fn", 2, 1, finite=True)
E2M3 = FloatFmt("float6_e2m3fn", 2, 3, finite=True)
E3M2 = FloatFmt("float6_e3m2fn", 3, 2, finite=True)
# The float formats of 8 bits or fewer: every pair of their values is a tie tested.
FLOAT8S = [E4M3, E5M2, E4M3_IEEE, E3M4, E4M3FNUZ, E5M2FNUZ, E4M3B11FNUZ, E8M0, E5M3FNU, E2M1,
           E2M3, E3M2]

INTS = {
    "int4": IntFmt("int4", 4, True),
    "uint4": IntFmt("uint4", 4, False),
    "int8": IntFmt("int8", 8, True),
    "uint8": IntFmt("uint8", 8, False),
    "int16": IntFmt("int16", 16, True),
    "uint16": IntFmt("uint16", 16, False),
    "int32": IntFmt("int32", 32, True),
    "uint32": IntFmt("uint32", 32, False),
    "int64": IntFmt("int64", 64, True),
    "uint64": IntFmt("uint64", 64, False),
    "int2": IntFmt("int2", 2, True),
    "uint2": IntFmt("uint2", 2, False),
    "int1": IntFmt("int1", 1, True),
    "uint1": IntFmt("uint1", 1, False),
}
# The integers held one a byte in fewer bits, or packed two a byte: ml_dtypes' types of
# them cast to one another only through int8.
NARROW_INTS = ("int4", "uint4", "int2", "uint2", "int1", "uint1")

# (name, kind, storage bytes, format)
TABLE = [
    ("float16", "float", 2, F16),
    ("bfloat16", "float", 2, BF16),
    ("float8_e4m3fn", "float", 1, E4M3),
    ("float8_e5m2", "float", 1, E5M2),
    ("float32", "float", 4, F32),
    ("float64", "float", 8, F64),
    ("int4", "int", 1, INTS["int4"]),
    ("uint4", "int", 1, INTS["uint4"]),
    ("int8", "int", 1, INTS["int8"]),
    ("uint8", "int", 1, INTS["uint8"]),
    ("int16", "int", 2, INTS["int16"]),
    ("uint16", "int", 2, INTS["uint16"]),
    ("int32", "int", 4, INTS["int32"]),
    ("uint32", "int", 4, INTS["uint32"]),
    ("int64", "int", 8, INTS["int64"]),
    ("uint64", "int", 8, INTS["uint64"]),
    ("complex64", "complex", 8, F32),
    ("complex128", "complex", 16, F64),
    ("bool", "bool", 1, None),
    ("float8_e4m3", "float", 1, E4M3_IEEE),
    ("float8_e3m4", "float", 1, E3M4),
    ("float8_e4m3fnuz", "float", 1, E4M3FNUZ),
    ("float8_e5m2fnuz", "float", 1, E5M2FNUZ),
    ("float8_e4m3b11fnuz", "float", 1, E4M3B11FNUZ),
    ("float8_e8m0fnu", "float", 1, E8M0),
    ("float8_e5m3fnu", "float", 1, E5M3FNU),
    ("float4_e2m1fn", "float", 1, E2M1),
    # One a byte, in the low six bits (ml_dtypes' layout and nxrig's in memory).
    ("float6_e2m3fn", "float", 1, E2M3),
    ("float6_e3m2fn", "float", 1, E3M2),
    # One a byte, in the low bits (ml_dtypes' layout and nxrig's in memory).
    ("int2", "int", 1, INTS["int2"]),
    ("uint2", "int", 1, INTS["uint2"]),
    ("int1", "int", 1, INTS["int1"]),
    ("uint1", "int", 1, INTS["uint1"]),
    # Two float16 / two bfloat16 (ml_dtypes' complex32 and bcomplex32), real first.
    ("complex32", "complex", 4, F16),
    ("bcomplex32", "complex", 4, BF16),
]
# A complex dtype's part dtype, by its format.
PART = {"complex32": "float16", "bcomplex32": "bfloat16", "complex64": "float32",
        "complex128": "float64"}
TARGET_BYTES = sum(t[2] for t in TABLE)
BYNAME = {t[0]: t for t in TABLE}

UINT_OF_WIDTH = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def fail(msg):
    sys.exit("generate.py: CROSS-CHECK FAILED: " + msg)


# --------------------------------------------------------------------------------------
# Exact conversion of one source column into every target column
# --------------------------------------------------------------------------------------


def int_exact(v):
    return (0, 1 if v < 0 else 0, -v if v < 0 else v, 0)


def float_trunc(v):
    """Truncated integer of an exact value: int, +-inf for infinities, None for NaN."""
    k = v[0]
    if k == 0:
        M, E = v[2], v[3]
        mag = M << E if E >= 0 else M >> -E
        return -mag if v[1] else mag
    if k == 1:
        return -math.inf if v[1] else math.inf
    return None


def nonzero(v):
    return v[0] != 0 or v[2] != 0


def convert(src_kind, re_vals, im_vals=None):
    """Returns a dict target name -> list of output bit patterns (complex: (re, im) lists).

    src_kind 'int': re_vals are Python ints (bool sources are ints 0/1).
    src_kind 'float': re_vals are exact value tuples.
    src_kind 'complex': re_vals / im_vals are exact value tuples of the two parts.
    """
    out = {}
    if src_kind == "int":
        exact = [int_exact(v) for v in re_vals]
        trunc = None
        nz = [1 if v != 0 else 0 for v in re_vals]
    else:
        exact = re_vals
        trunc = [float_trunc(v) for v in re_vals]
        if src_kind == "complex":
            nz = [1 if (nonzero(a) or nonzero(b)) else 0 for a, b in zip(re_vals, im_vals)]
        else:
            nz = [1 if nonzero(v) else 0 for v in re_vals]
    for name, kind, _, fmt in TABLE:
        if kind == "float":
            out[name] = [fmt.from_exact(v) for v in exact]
        elif kind == "int":
            mask = fmt.mask
            if trunc is None:  # integer to integer: wrap modulo 2**bits
                out[name] = [v & mask for v in re_vals]
            else:  # float to integer: truncate, saturate, NaN -> 0
                lo, hi = fmt.lo, fmt.hi
                out[name] = [
                    0 if t is None else int(lo if t < lo else hi if t > hi else t) & mask
                    for t in trunc
                ]
        elif kind == "complex":
            re = out[PART[name]]  # the same conversion as the part's dtype
            if src_kind == "complex":
                im = [fmt.from_exact(v) for v in im_vals]
            else:
                im = [0] * len(re)  # +0.0
            out[name] = (re, im)
        else:
            out[name] = nz
    return out


# --------------------------------------------------------------------------------------
# Cross-checks against NumPy / ml_dtypes (only where those are exact)
# --------------------------------------------------------------------------------------


def bits_array(lst, width):
    return np.array(lst, dtype=np.uint64).astype(UINT_OF_WIDTH[width])


def np_cast(arr, tname):
    """arr.astype(target); falls back to a cast through a type that holds arr exactly."""
    t = NP_TYPE[tname]
    try:
        return arr.astype(t)
    except (TypeError, ValueError):
        # e.g. int4 <-> uint4 have no direct cast; int8 holds both exactly, float32 holds
        # every narrow float exactly
        narrow = [np.dtype(NP_TYPE[n]) for n in NARROW_INTS]
        via = np.int8 if arr.dtype in narrow else np.float32
        return arr.astype(via).astype(t)


def np_isnan_bits(bits, tname):
    return np.isnan(bits.view(NP_TYPE[tname]).astype(np.float32))


def compare(src, tname, src_bits, expect, got_bits, nan_aware):
    """Compare exact expected bits with NumPy's; if nan_aware, NaN outputs only need to
    agree on being NaN (payload and sign rules differ by design)."""
    width = BYNAME[tname][2]
    exp = bits_array(expect, width)
    got = got_bits.view(UINT_OF_WIDTH[width])
    if nan_aware:
        en, gn = np_isnan_bits(exp, tname), np_isnan_bits(got, tname)
        bad = (en != gn) | (~en & (exp != got))
    else:
        bad = exp != got
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        fail(
            f"{src} -> {tname}: {int(bad.sum())} disagreements; first at record {i}: "
            f"source bits 0x{int(src_bits[i]):x}, exact 0x{int(exp[i]):x}, "
            f"numpy/ml_dtypes 0x{int(got[i]):x}"
        )
    return int((~bad).sum())


def cross_check(src, src_bits, out, checks):
    """checks: list of (target names, nan_aware, mask or None). Returns #values compared."""
    width = BYNAME[src][2]
    sb = bits_array(src_bits, width)
    # int4 / uint4 bytes hold the value in the low nibble, as ml_dtypes stores them
    arr = sb.astype(np.bool_) if src == "bool" else sb.view(NP_TYPE[src])
    n = 0
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for targets, nan_aware, sel in checks:
                a, b = (arr, sb) if sel is None else (arr[sel], sb[sel])
                for t in targets:
                    exp = out[t]
                    if BYNAME[t][1] == "complex":
                        got = np_cast(a, t)
                        cw = BYNAME[t][2] // 2
                        re, im = parts_bits(got, cw)
                        comp = PART[t]
                        er, ei = exp
                        if sel is not None:
                            er = [er[i] for i in np.flatnonzero(sel)]
                            ei = [ei[i] for i in np.flatnonzero(sel)]
                        n += compare_named(src, t + ".real", comp, b, er, re, nan_aware)
                        n += compare_named(src, t + ".imag", comp, b, ei, im, nan_aware)
                        continue
                    if sel is not None:
                        exp = [exp[i] for i in np.flatnonzero(sel)]
                    got = np_cast(a, t)
                    width_t = BYNAME[t][2]
                    if t in ("int4", "uint4", "float4_e2m1fn"):
                        gb = got.view(np.uint8) & np.uint8(0xF)
                    elif t == "bool":
                        gb = got.view(np.uint8)
                    else:
                        gb = got.view(UINT_OF_WIDTH[width_t])
                    n += compare(src, t, b, exp, gb, nan_aware)
    return n


def parts_bits(c, cw):
    """The real and imaginary parts' bits of a complex array (ml_dtypes' complex32 and
    bcomplex32 through ml_dtypes.real/imag, which NumPy before 2.5 needs)."""
    re = np.ascontiguousarray(ml_dtypes.real(c) if cw == 2 else c.real)
    im = np.ascontiguousarray(ml_dtypes.imag(c) if cw == 2 else c.imag)
    return re.view(UINT_OF_WIDTH[cw]), im.view(UINT_OF_WIDTH[cw])


def compare_named(src, label, comp, src_bits, expect, got_bits, nan_aware):
    width = BYNAME[comp][2]
    exp = bits_array(expect, width)
    got = got_bits.view(UINT_OF_WIDTH[width])
    if nan_aware:
        en, gn = np_isnan_bits(exp, comp), np_isnan_bits(got, comp)
        bad = (en != gn) | (~en & (exp != got))
    else:
        bad = exp != got
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        fail(
            f"{src} -> {label}: {int(bad.sum())} disagreements; first at record {i}: "
            f"source 0x{int(src_bits[i]):x}, exact 0x{int(exp[i]):x}, numpy 0x{int(got[i]):x}"
        )
    return int((~bad).sum())


# A second, slower exact method (Fraction + bisection over the sorted finite values) for the
# 8- and 16-bit float targets, used on the wide sources where ml_dtypes is not exact (it
# double-rounds float64 and 32/64-bit integers through float32).
def sorted_values(fmt):
    # positive encodings 0 .. max_finite are in increasing order of value
    return [fmt.value(b) for b in range(fmt.max_finite + 1)], list(range(fmt.max_finite + 1))


def fraction_round(fmt, table, x, s):
    """Nearest finite value of |x| (Fraction) by bisection, ties to even; then overflow."""
    import bisect

    vals, bits = table
    if isinstance(fmt, PowerFmt):
        # A tie up; a zero or a negative value the NaN; under the least, the least.
        if s or x == 0 or x >= vals[-1] * Fraction(3, 2):
            return fmt.nan
        i = bisect.bisect_left(vals, x)
        if i < len(vals) and vals[i] == x:
            return bits[i]
        if i == 0:
            return bits[0]
        if i == len(vals):
            return bits[-1]
        return bits[i - 1] if x - vals[i - 1] < vals[i] - x else bits[i]
    ulp_top = fmt.value(fmt.max_finite) - fmt.value(fmt.max_finite - 1)
    limit = vals[-1] + ulp_top / 2  # rounding threshold to the (virtual) next binade
    if fmt.unsigned and s:  # an unsigned format's zero, or its NaN
        return 0 if x == 0 else fmt.overflow(1)
    def sb_of(b):  # the sign bit of a result of magnitude bits b (fnuz has no -0)
        return 0 if (fmt.fnuz and b == 0) or fmt.unsigned else s << (fmt.nbits - 1)
    if x > limit or (x == limit and (fmt.max_finite & 1)):
        return fmt.overflow(s)
    i = bisect.bisect_left(vals, x)
    if i < len(vals) and vals[i] == x:
        return sb_of(bits[i]) | bits[i]
    if i == len(vals):
        return sb_of(bits[-1]) | bits[-1]
    lo, hi = i - 1, i
    d_lo, d_hi = x - vals[lo], vals[hi] - x
    if d_lo < d_hi or (d_lo == d_hi and bits[lo] % 2 == 0):
        return sb_of(bits[lo]) | bits[lo]
    return sb_of(bits[hi]) | bits[hi]


def fraction_check(src, exact_vals, out, targets):
    tables = {f.name: sorted_values(f) for f in targets}
    xs = [Fraction(v[2]) * (Fraction(2) ** v[3]) if v[0] == 0 else None for v in exact_vals]
    n = 0
    for fmt in targets:
        col = out[fmt.name]
        for i, v in enumerate(exact_vals):
            if v[0] != 0:
                continue
            r = fraction_round(fmt, tables[fmt.name], xs[i], v[1])
            if r != col[i]:
                fail(f"{src} -> {fmt.name} (Fraction method): record {i}, {v}: "
                     f"integer method 0x{col[i]:x}, Fraction method 0x{r:x}")
            n += 1
    return n


# --------------------------------------------------------------------------------------
# Source value selection
# --------------------------------------------------------------------------------------


class Ordered:
    def __init__(self):
        self.seen, self.items = set(), []

    def add(self, x):
        if x not in self.seen:
            self.seen.add(x)
            self.items.append(x)


def midpoint_pairs(fmt, first, last, nrand, rng, sub_first=None, sub_rand=None,
                   min_ulp_exp=None, max_value_exp=None):
    """Positive consecutive pairs (b, b+1) of `fmt` grouped by binade; yields the exact
    midpoint as (M, E) meaning M * 2**E. The pair after max_finite is the overflow
    threshold (max_finite + ulp/2). Selection: all pairs of small binades, else the first
    `first`, the last `last` and `nrand` random pairs of each binade. Binades whose ulp is
    below 2**min_ulp_exp or whose values reach 2**max_value_exp are skipped."""
    mids = []
    for e in range(0, fmt.emask + 1):
        start = e << fmt.mbits
        end = min(start | fmt.fmask, fmt.max_finite)
        if start > fmt.max_finite:
            break
        ulp_exp = fmt.decode(start)[3]
        if min_ulp_exp is not None and ulp_exp < min_ulp_exp:
            continue
        if max_value_exp is not None and ulp_exp + fmt.mbits >= max_value_exp:
            continue
        count = end - start + 1
        f, r = first, nrand
        if e == 0 and sub_first is not None:
            f, r = sub_first, sub_rand
        if count > 2 * f + r:
            chosen = [start + i for i in range(f)] + [end - i for i in range(f)]
            chosen += [start + f + i for i in rng.sample(range(count - 2 * f), r)]
        else:
            chosen = list(range(start, end + 1))
        for b in sorted(chosen):
            v = fmt.decode(b)
            M, E = v[2], v[3]  # b's value; its ulp is 2**E (same binade)
            mids.append((2 * M + 1, E - 1))
    return mids


def near_float(src, M, E, out, neg=True):
    """Adds the source encodings nearest to +-M*2**E and their neighbours."""
    r = src.round(0, M, E)
    cands = [r - 1, r, r + 1] if r > 0 else [r, r + 1]
    top = src.inf if src.inf is not None else src.max_finite + 1  # +inf / the NaN
    for c in cands:
        if 0 <= c <= top:
            out.add(c)
            if neg:
                out.add(c | src.sign)


def frac_to_ME(x):
    """Positive Fraction whose denominator is a power of two -> (M, E)."""
    n, d = x.numerator, x.denominator
    assert d & (d - 1) == 0
    return n, -(d.bit_length() - 1)


INTERESTING = [
    0.5, 1.5, 2.5, 3.5, 0.25, 0.75, 0.99, 1.01, 0.1, 1 / 3, math.pi, 255.5, 256, 254.5,
    127.5, 128.5, 7.5, 8.5, 15.5, 16.5, 9.5, 65504, 65519, 65520, 65535.5, 65536, 448, 464,
    480, 57344, 61440, 1e5, 1e10, 1e20, 1e30, 1e38, 3.4028234663852886e38, 1e-5, 1e-8,
    1e-20, 1e-38, 1e-40, 1e-45, 1e-300, 1e300, 1.7976931348623157e308, 5e-324,
    2.2250738585072014e-308, 1.1754943508222875e-38, 6e-8, 5.960464477539063e-08,
    6.103515625e-05, 9.183549615799121e-41, 2.0 ** -133, 2.0 ** -134, 2.0 ** -149,
    2.0 ** -150, 2.0 ** -24, 2.0 ** -25, 2.0 ** -9, 2.0 ** -10, 2.0 ** -16, 2.0 ** -17,
]


def float_specials(src):
    """Zeros, infinities, NaNs with many payloads, subnormal/normal edges (with
    neighbours), integer-range edges with fractions, assorted values."""
    o = Ordered()
    s = src.sign
    exp_all = src.emask << src.mbits
    base = [0, 1, 2, src.fmask - 1, src.fmask, 1 << src.mbits, (1 << src.mbits) + 1,
            src.max_finite - 1, src.max_finite, src.bias << src.mbits,
            (src.bias << src.mbits) + 1, (src.bias << src.mbits) - 1]
    for b in base:
        o.add(b)
        o.add(b | s)
    o.add(exp_all)  # +inf
    o.add(exp_all | s)  # -inf
    # NaNs: single payload bit i, signalling (quiet bit clear) and quiet; all-ones; etc.
    for i in range(src.mbits):
        for extra in (0, src.quiet):
            f = (1 << i) | extra
            o.add(exp_all | f)
            o.add(exp_all | f | s)
    for f in (src.quiet, src.fmask, src.quiet | 1, src.fmask >> 1, src.fmask ^ src.quiet,
              src.quiet | (src.quiet >> 1), 0x5555555555555 & src.fmask,
              0xAAAAAAAAAAAAA & src.fmask):
        if f:
            o.add(exp_all | f)
            o.add(exp_all | f | s)
    if src is F32:
        for b in (0x7F802000, 0xFFC00001, 0x7FC00001, 0x7F800001, 0x7FBFFFFF, 0x7FC02000):
            o.add(b)
    if src is F64:
        for b in (0x7FF0000000000001, 0xFFF8000000000001, 0x7FF8000020000000,
                  0x7FF0000020000000, 0x7FF0000000002000, 0x7FF4000000000000):
            o.add(b)
    # Integer-range edges (every 2**k and 2**k - 1, both signs, up to 2**65) with
    # fractions around them, and the source neighbours of each.
    for k in range(0, 66):
        for B in (1 << k, (1 << k) - 1, (1 << k) + 1):
            for d in range(-4, 5):
                x = Fraction(B) + Fraction(d, 4)
                if x > 0:
                    M, E = frac_to_ME(x)
                    near_float(src, M, E, o)
    for k in range(-30, 0):
        near_float(src, 1, k, o)
    for x in range(0, 40):
        for d in (0, 1, 2, 3):
            y = Fraction(x) + Fraction(d, 4)
            if y > 0:
                near_float(src, *frac_to_ME(y), o)
    for x in INTERESTING:
        near_float(src, *frac_to_ME(Fraction(x)), o)
    return o


def float_ties(src, o, rng, targets):
    """Rounding boundaries: midpoints between consecutive values of each target and the
    source values just below and above them (or the midpoint itself)."""
    params = {
        **{f.name: (100, 100, 0) for f in FLOAT8S},  # every pair
        "float16": (16, 16, 64),
        "bfloat16": (4, 4, 8),
        "float32": (4, 4, 8),
    }
    for t in targets:
        first, last, nr = params[t.name]
        subf, subr = (32, 192) if t is F16 else (None, None)
        for M, E in midpoint_pairs(t, first, last, nr, rng, subf, subr):
            near_float(src, M, E, o)


def int_specials(fmt):
    o = Ordered()
    vals = []
    for k in range(0, 66):
        for B in ((1 << k) - 1, 1 << k, (1 << k) + 1):
            vals += [B, -B]
    vals += list(range(-40, 41))
    vals += [fmt.lo, fmt.lo + 1, fmt.hi, fmt.hi - 1, 255, 256, 65535, 65536, 65504, 65519,
             65520, 65521, 2049, 2047, 4097, 4098, 4099, 448, 464, 465, 480, 57344, 61439,
             61440, 61441]
    for v in vals:
        for w in (v, -v):
            if fmt.lo <= w <= fmt.hi:
                o.add(w & fmt.mask)
    return o


def int_ties(fmt, o, rng, targets):
    """Integer midpoints between consecutive target values (targets whose ulp >= 2 there)
    and the integers around them, in range; plus the two neighbouring target values."""
    for t in targets:
        # only binades with ulp >= 2 (integer midpoints) below the source's range
        kw = dict(min_ulp_exp=1, max_value_exp=fmt.nbits + 1)
        if t.name.startswith("float8"):
            mids = midpoint_pairs(t, 100, 100, 0, rng, **kw)
        else:
            mids = midpoint_pairs(t, 16, 16, 64, rng, **kw)
        for M, E in mids:
            if E < 0:
                continue  # midpoint is not an integer: the conversion is exact there
            m = M << E
            if m - 1 > max(-fmt.lo, fmt.hi):
                continue
            h = 1 << E  # half an ulp
            for v in (m - h, m - 1, m, m + 1, m + h):
                for w in (v, -v):
                    if fmt.lo <= w <= fmt.hi:
                        o.add(w & fmt.mask)


# --------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------


def column_bytes(lst, width):
    if width == 16:  # complex128 source: two float64 words, real first
        lo = [x & 0xFFFFFFFFFFFFFFFF for x in lst]
        hi = [x >> 64 for x in lst]
        return np.concatenate([column_bytes(lo, 8), column_bytes(hi, 8)], axis=1)
    a = np.array(lst, dtype=np.uint64).astype(f"<u{width}")
    return a.view(np.uint8).reshape(len(lst), width)


def write_records(src, src_bits, out):
    sw = BYNAME[src][2]
    n = len(src_bits)
    cols = [column_bytes(src_bits, sw)]
    for name, kind, width, fmt in TABLE:
        if kind == "complex":
            re, im = out[name]
            cols.append(column_bytes(re, width // 2))
            cols.append(column_bytes(im, width // 2))
        else:
            cols.append(column_bytes(out[name], width))
    rec = np.concatenate(cols, axis=1)
    assert rec.shape == (n, sw + TARGET_BYTES)
    raw = rec.tobytes()
    path = os.path.join(OUT_DIR, f"{src}.bin.gz")
    with open(path, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=9, mtime=0) as g:
            g.write(raw)
    return n, len(raw), os.path.getsize(path)


# --------------------------------------------------------------------------------------
# Self-test of the rules' worked examples
# --------------------------------------------------------------------------------------


def self_test():
    def f2f(sf, tf, b):
        return tf.from_exact(sf.decode(b))

    assert f2f(F64, F16, 0x7FF0000000000001) == 0x7E00
    assert f2f(F32, F16, 0x7F802000) == 0x7E01
    assert f2f(F32, F64, 0xFFC00001) == 0xFFF8000020000000
    assert f2f(E4M3, F16, 0xFF) == 0xFE00
    assert f2f(E4M3, F16, 0x7F) == 0x7E00
    assert f2f(F32, E4M3, 0x7FC00000) == 0x7F and f2f(F32, E4M3, 0xFF800000) == 0xFF
    assert f2f(F32, E4M3, 0x7F800000) == 0x7F
    # 464 is the tie between 448 and (virtual) 480 -> 448; just above -> NaN
    assert E4M3.round(0, 464, 0) == 0x7E and E4M3.round(0, 465, 0) == 0x7F
    assert E4M3.round(1, 465, 0) == 0xFF
    assert F16.round(0, 65519, 0) == 0x7BFF and F16.round(0, 65520, 0) == 0x7C00
    assert F16.round(0, 2049, 0) == 0x6800 and F16.round(0, 2051, 0) == 0x6802
    assert F32.round(0, (1 << 24) + 1, 0) == 0x4B800000
    assert F64.round(0, (1 << 53) + 1, 0) == 0x4340000000000000
    assert F64.round(0, (1 << 53) + 3, 0) == 0x4340000000000002
    assert E5M2.round(0, 61440, 0) == 0x7C and E5M2.round(0, 61439, 0) == 0x7B
    # fnuz: 240 + 8 is the tie past the largest finite, odd: the NaN; no -0
    assert E4M3FNUZ.round(0, 248, 0) == 0x80 and E4M3FNUZ.round(0, 247, 0) == 0x7F
    assert E4M3FNUZ.round(1, 1, -30) == 0 and E4M3FNUZ.round(1, 0, 0) == 0
    assert f2f(E4M3FNUZ, F16, 0x80) == 0xFE00 and f2f(F32, E4M3FNUZ, 0xFF800000) == 0x80
    # e8m0: ties up, no zero (the NaN), under the least the least, 1.5 * 2**127 the NaN
    assert E8M0.round(0, 3, -1) == 0x80 and E8M0.round(0, 3, 0) == 0x81
    assert E8M0.round(0, 3, -2) == 0x7F and E8M0.round(0, 5, -2) == 0x7F
    assert E8M0.round(0, 1, -200) == 0 and E8M0.round(0, 0, 0) == 0xFF
    assert E8M0.round(1, 1, 0) == 0xFF and E8M0.round(0, 3, 126) == 0xFF
    assert E8M0.round(0, 1, 127) == 0xFE and f2f(E8M0, F32, 0) == 0x00400000
    assert f2f(E8M0, F16, 0xFF) == 0x7E00 and f2f(F32, E8M0, 0x80000000) == 0xFF
    # e5m3fnu: no sign; -0 is 0, any other negative value (one under half the least
    # too) the NaN; 118784, the tie past 114688, even: 114688; 122880 the NaN
    assert E5M3FNU.round(1, 0, 0) == 0 and E5M3FNU.round(1, 1, -100) == 0xFF
    assert E5M3FNU.round(0, 118784, 0) == 0xFE and E5M3FNU.round(0, 118785, 0) == 0xFF
    assert E5M3FNU.round(0, 1, -17) == 0x01 and E5M3FNU.round(0, 1, -18) == 0
    assert f2f(E5M3FNU, F32, 0xFF) == 0x7FC00000 and f2f(F32, E5M3FNU, 0x7F800000) == 0xFF
    assert f2f(F32, E5M3FNU, 0x80000000) == 0 and f2f(E5M3FNU, F16, 0x80) == 0x4000
    # float4_e2m1fn: no infinity, no NaN; past 6 (and infinities) 6 of the sign; a NaN a
    # zero of the other sign; 5 (the tie of 4 and 6) 4, 0.25 (of 0 and 0.5) 0
    assert E2M1.round(0, 7, 0) == 0x7 and E2M1.round(1, 100, 0) == 0xF
    assert E2M1.round(0, 5, 0) == 0x6 and E2M1.round(0, 1, -2) == 0 and E2M1.round(1, 1, -2) == 0x8
    assert E2M1.round(0, 3, -2) == 0x2 and E2M1.round(0, 5, -1) == 0x4
    assert f2f(F32, E2M1, 0x7FC00000) == 0x8 and f2f(F32, E2M1, 0xFFC00000) == 0
    assert f2f(F32, E2M1, 0xFF800000) == 0xF and f2f(E2M1, F32, 0xF) == 0xC0C00000
    # The float6s: as float4, six bits (the sign at 0x20); 7.5 and 28 their largest.
    assert f2f(E2M3, F32, 0x1F) == 0x40F00000 and f2f(E3M2, F32, 0x1F) == 0x41E00000
    assert f2f(F32, E2M3, 0x41000000) == 0x1F and f2f(F32, E3M2, 0xC2000000) == 0x3F
    assert f2f(F32, E2M3, 0x7FC00000) == 0x20 and f2f(F32, E3M2, 0xFFC00000) == 0
    assert f2f(E2M3, F32, 0x01) == 0x3E000000 and f2f(E3M2, F32, 0x21) == 0xBD800000
    assert F16.round(1, 1, -25) == 0x8000 and F16.round(0, 3, -26) == 0x0001
    assert float_trunc(F32.decode(0xBFC00000)) == -1  # -1.5 -> -1
    # double rounding trap: f64 just above an f16 tie must round up
    assert F16.round(0, (1 << 52) + (1 << 41) + 1, -52) == 0x3C01


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------


def main():
    t_start = time.time()
    self_test()
    total_c = 0
    report = []

    def finish(src, bits, out, checked, t0):
        nonlocal total_c
        n, raw, comp = write_records(src, bits, out)
        total_c += comp
        line = (f"{src:12s} {n:7d} records  {raw / 1e6:7.2f} MB raw  {comp / 1e6:6.2f} MB gz  "
                f"{checked:8d} values cross-checked  {time.time() - t0:5.1f}s")
        print(line, flush=True)
        report.append(line)

    float_targets = [t[0] for t in TABLE if t[1] in ("float", "complex")]
    int_targets = [t[0] for t in TABLE if t[1] == "int"]

    # ---- exhaustive narrow floats ----
    for fmt in [F16, BF16] + FLOAT8S:
        t0 = time.time()
        bits = list(range(1 << fmt.nbits))
        exact = [fmt.decode(b) for b in bits]
        out = convert("float", exact)
        n = cross_check(fmt.name, bits, out, [(float_targets, True, None), (["bool"], False, None)])
        n += check_float_to_int(fmt.name, bits, exact, out)
        finish(fmt.name, bits, out, n, t0)

    # ---- exhaustive narrow ints and bool ----
    for name in ("int4", "uint4", "int8", "uint8", "int16", "uint16", "bool", "int2", "uint2",
                 "int1", "uint1"):
        t0 = time.time()
        nb = 1 if name == "bool" else INTS[name].nbits
        bits = list(range(2 if name == "bool" else 1 << nb))
        vals = bits if name == "bool" else [INTS[name].decode(b) for b in bits]
        out = convert("int", vals)
        checks = [(int_targets + ["bool"], False, None)]
        checks.append((float_targets, True, None))
        n = cross_check(name, bits, out, checks)
        finish(name, bits, out, n, t0)

    # ---- wide floats ----
    for fmt, seed in ((F32, 32), (F64, 64)):
        t0 = time.time()
        rng = random.Random(f"nxrig-{fmt.name}-{seed}")
        o = float_specials(fmt)
        ties = FLOAT8S + [F16, BF16] + ([F32] if fmt is F64 else [])
        float_ties(fmt, o, rng, ties)
        bits = list(o.items)
        nstruct = len(bits)
        bits += [rng.getrandbits(fmt.nbits) for _ in range(N_RANDOM)]
        exact = [fmt.decode(b) for b in bits]
        out = convert("float", exact)
        if fmt is F32:
            n = cross_check(fmt.name, bits, out, [(float_targets, True, None), (["bool"], False, None)])
        else:
            # NumPy's float64 -> float32 / float16 conversions round once (ml_dtypes'
            # float64 -> bfloat16 / float8 go through float32: not checked with them)
            n = cross_check(fmt.name, bits, out,
                            [(["float16", "float32", "float64", "complex64", "complex128"], True, None),
                             (["bool"], False, None)])
            n += fraction_check(fmt.name, exact, out, FLOAT8S + [BF16])
        n += check_float_to_int(fmt.name, bits, exact, out)
        print(f"  {fmt.name}: {nstruct} structured + {N_RANDOM} random", flush=True)
        finish(fmt.name, bits, out, n, t0)

    # ---- wide ints ----
    for name in ("int32", "uint32", "int64", "uint64"):
        t0 = time.time()
        fmt = INTS[name]
        rng = random.Random(f"nxrig-{name}")
        o = int_specials(fmt)
        targets = FLOAT8S + [F16, BF16, F32] + ([F64] if fmt.nbits == 64 else [])
        int_ties(fmt, o, rng, targets)
        bits = list(o.items)
        nstruct = len(bits)
        bits += [rng.getrandbits(fmt.nbits) for _ in range(N_RANDOM)]
        vals = [fmt.decode(b) for b in bits]
        out = convert("int", vals)
        # int -> int wrap and bool with NumPy; int -> float32/float64 with NumPy (one
        # hardware rounding); the 8- and 16-bit float targets with the Fraction method.
        n = cross_check(name, bits, out, [(int_targets + ["bool"], False, None),
                                         (["float32", "float64", "complex64", "complex128"], True, None)])
        n += fraction_check(name, [int_exact(v) for v in vals], out, FLOAT8S + [F16, BF16])
        print(f"  {name}: {nstruct} structured + {N_RANDOM} random", flush=True)
        finish(name, bits, out, n, t0)

    # ---- complex ----
    for name, fmt in (("complex64", F32), ("complex128", F64), ("complex32", F16),
                      ("bcomplex32", BF16)):
        t0 = time.time()
        rng = random.Random(f"nxrig-{name}")
        comp = complex_specials(fmt)
        pairs = [(a, b) for a in comp for b in comp]
        pairs += [(rng.getrandbits(fmt.nbits), rng.getrandbits(fmt.nbits))
                  for _ in range(N_RANDOM_COMPLEX)]
        re = [fmt.decode(a) for a, _ in pairs]
        im = [fmt.decode(b) for _, b in pairs]
        out = convert("complex", re, im)
        bits = [a | (b << fmt.nbits) for a, b in pairs]
        n = check_complex(name, fmt, pairs, out)
        finish(name, bits, out, n, t0)

    print(f"total compressed: {total_c / 1e6:.2f} MB; {time.time() - t_start:.1f}s", flush=True)


def check_float_to_int(src, bits, exact, out):
    """NumPy truncation check on values whose truncation is inside the target range
    (outside it NumPy's result is undefined)."""
    width = BYNAME[src][2]
    with np.errstate(all="ignore"):
        arr = bits_array(bits, width).view(NP_TYPE[src]).astype(np.float64)
    n = 0
    for t in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"):
        fmt = INTS[t]
        idx = []
        for i, v in enumerate(exact):
            tr = float_trunc(v)
            if tr is not None and not math.isinf(tr) and fmt.lo <= tr <= fmt.hi and v[0] == 0:
                idx.append(i)
        idx = np.array(idx, dtype=np.int64)
        if src == "float64" or src == "float32":
            a = bits_array(bits, width).view(NP_TYPE[src])[idx]
        else:
            a = arr[idx]
        got = a.astype(NP_TYPE[t]).view(UINT_OF_WIDTH[BYNAME[t][2]])
        exp = [out[t][i] for i in idx]
        n += compare(src, t, bits_array(bits, width)[idx], exp, got, False)
    return n


def complex_specials(fmt):
    s = fmt.sign
    ea = fmt.emask << fmt.mbits
    one = fmt.bias << fmt.mbits
    vals = [0, s, one, one | s, one - (1 << fmt.mbits), ea, ea | s, ea | fmt.quiet,
            ea | fmt.quiet | s, ea | 1, ea | (1 << max(fmt.mbits - 10, 0)) | s, 1,
            fmt.max_finite | s,
            fmt.round(0, 65520, 0), fmt.round(0, 464, 0) | s, fmt.round(0, 5, -1) | s,
            fmt.round(0, 1, 63), fmt.round(1, 1, 63), fmt.round(0, 3_000_000_001, 0),
            fmt.round(0, 1 << 64, 0)]
    return vals


def check_complex(name, fmt, pairs, out):
    """Component conversions against NumPy and ml_dtypes: between the complex dtypes
    (exact hardware conversions into wider parts; ml_dtypes' single rounding into
    complex32 and bcomplex32 from complex64's float32 parts), the real part into float16,
    float32, float64 (and bfloat16 from bcomplex32), bool."""
    w = fmt.nbits // 8
    re = bits_array([a for a, _ in pairs], w).view(NP_TYPE[fmt.name])
    im = bits_array([b for _, b in pairs], w).view(NP_TYPE[fmt.name])
    if w == 2:
        words = [a | (b << 16) for a, b in pairs]
        c = bits_array(words, 4).view(NP_TYPE[name])
    else:
        c = np.empty(len(pairs), dtype=NP_TYPE[name])
        c.real, c.imag = re, im
    src_bits = np.arange(len(pairs))
    n = 0
    import warnings

    targets = ["complex64", "complex128"]
    if fmt is not F64:
        # ml_dtypes rounds complex128 into them through complex64: twice.
        targets += ["complex32", "bcomplex32"]
    reals = ["float16", "float32", "float64"] + (["bfloat16"] if name == "bcomplex32" else [])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for t in targets:
            got = c.astype(NP_TYPE[t])
            cw = BYNAME[t][2] // 2
            er, ei = out[t]
            gr, gi = parts_bits(got, cw)
            n += compare_named(name, t + ".real", PART[t], src_bits, er, gr, True)
            n += compare_named(name, t + ".imag", PART[t], src_bits, ei, gi, True)
        for t in reals:
            if fmt is F64 and t == "bfloat16":
                continue
            got = re.astype(NP_TYPE[t]).view(UINT_OF_WIDTH[BYNAME[t][2]])
            n += compare(name, t, src_bits, out[t], got, True)
        got = c.astype(np.bool_).view(np.uint8)
        n += compare(name, "bool", src_bits, out["bool"], got, False)
    return n


if __name__ == "__main__":
    main()
