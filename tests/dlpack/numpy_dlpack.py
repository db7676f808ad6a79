"""NumPy 2 and nxrig, both ways through DLPack, over nxrig's C API (libnxrig_capi).

    python3 tests/dlpack/numpy_dlpack.py target/release/libnxrig_capi.so

The shim below is what a Python user of the C API writes with ctypes: a producer
object with `__dlpack__` (a capsule around `nx_array_to_dlpack`'s tensor) for
`np.from_dlpack`, and a consumer of NumPy's `__dlpack__` capsules for
`nx_array_from_dlpack`. Checked: every dtype NumPy exchanges, values bit for bit,
writes through either side seen by the other (no copy), layouts (strided, flipped,
transposed) kept as strides, the read-only flag both ways, the legacy tensor both
ways, refusals with the C function's name, and every deleter run exactly once
(nxrig's by `nx_dlpack_live_exports`, NumPy's by the reference count of the array it
keeps alive). The dtypes NumPy cannot exchange (bfloat16, float8, int4) are read
from nxrig's tensors directly, against ml_dtypes and DLPack's codes.
"""

import ctypes as C
import gc
import sys

import ml_dtypes
import numpy as np

lib = C.CDLL(sys.argv[1])


class DLPackVersion(C.Structure):
    _fields_ = [("major", C.c_uint32), ("minor", C.c_uint32)]


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [
        ("data", C.c_void_p),
        ("device", DLDevice),
        ("ndim", C.c_int32),
        ("dtype", DLDataType),
        ("shape", C.POINTER(C.c_int64)),
        ("strides", C.POINTER(C.c_int64)),
        ("byte_offset", C.c_uint64),
    ]


class Versioned(C.Structure):
    pass


class Legacy(C.Structure):
    pass


Versioned._fields_ = [
    ("version", DLPackVersion),
    ("manager_ctx", C.c_void_p),
    ("deleter", C.CFUNCTYPE(None, C.POINTER(Versioned))),
    ("flags", C.c_uint64),
    ("dl_tensor", DLTensor),
]
Legacy._fields_ = [
    ("dl_tensor", DLTensor),
    ("manager_ctx", C.c_void_p),
    ("deleter", C.CFUNCTYPE(None, C.POINTER(Legacy))),
]

handle = C.c_void_p
lib.nx_last_error.restype = C.c_char_p
lib.nx_array_from_bytes.argtypes = [C.c_int32, C.c_int32, C.POINTER(C.c_int64), C.c_void_p, C.c_size_t, C.POINTER(handle)]
lib.nx_array_describe.argtypes = [handle, C.POINTER(C.c_int32), C.POINTER(C.c_int32), C.POINTER(C.c_int64), C.POINTER(C.c_size_t)]
lib.nx_array_read.argtypes = [handle, C.c_void_p, C.c_size_t]
lib.nx_array_write.argtypes = [handle, C.c_void_p, C.c_size_t]
lib.nx_array_free.argtypes = [handle]
lib.nx_array_to_dlpack.argtypes = [handle, C.POINTER(C.c_void_p)]
lib.nx_array_to_dlpack_legacy.argtypes = [handle, C.POINTER(C.c_void_p)]
lib.nx_array_from_dlpack.argtypes = [C.c_void_p, C.POINTER(handle)]
lib.nx_array_from_dlpack_legacy.argtypes = [C.c_void_p, C.POINTER(handle)]
lib.nx_dlpack_live_exports.restype = C.c_size_t

py = C.pythonapi
py.PyCapsule_New.restype = C.py_object
py.PyCapsule_New.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p]
py.PyCapsule_GetPointer.restype = C.c_void_p
py.PyCapsule_GetPointer.argtypes = [C.py_object, C.c_char_p]
py.PyCapsule_SetName.argtypes = [C.py_object, C.c_char_p]
py.PyCapsule_IsValid.argtypes = [C.c_void_p, C.c_char_p]
# The same C function for a capsule given as a bare pointer (in its destructor).
pointer_of = C.PYFUNCTYPE(C.c_void_p, C.c_void_p, C.c_char_p)(("PyCapsule_GetPointer", C.pythonapi))

# The capsule names live as long as the process (a capsule keeps the pointer).
VERSIONED, LEGACY = b"dltensor_versioned", b"dltensor"
USED_VERSIONED, USED_LEGACY = b"used_dltensor_versioned", b"used_dltensor"

# nx_dtype.h's codes.
NX = {
    "float16": 0, "bfloat16": 1, "float8_e4m3fn": 2, "float8_e5m2": 3, "float32": 4,
    "float64": 5, "int4": 6, "uint4": 7, "int8": 8, "uint8": 9, "int16": 10,
    "uint16": 11, "int32": 12, "uint32": 13, "int64": 14, "uint64": 15,
    "complex64": 16, "complex128": 17, "bool": 18, "float8_e4m3": 19, "float8_e3m4": 20,
    "float8_e4m3fnuz": 21, "float8_e5m2fnuz": 22, "float8_e4m3b11fnuz": 23,
    "float8_e8m0fnu": 24, "float8_e5m3fnu": 25, "float4_e2m1fn": 26, "float6_e2m3fn": 27,
    "float6_e3m2fn": 28, "int2": 29, "uint2": 30, "int1": 31, "uint1": 32,
    "complex32": 33, "bcomplex32": 34,
}
# DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (dlpack.h 1.1).
PADDED = 1 << 2


def check(status, name):
    if status != 0:
        raise RuntimeError(f"{name} failed: {lib.nx_last_error().decode()}")


def fails(status, says):
    assert status == 1, "expected NX_ERROR"
    said = lib.nx_last_error().decode()
    assert says in said, f"{says!r} not in {said!r}"
    return said


def nx_from(x, dtype=None):
    """An nxrig host array holding a copy of x's elements (C order)."""
    x = np.ascontiguousarray(x)
    shape = (C.c_int64 * max(1, x.ndim))(*x.shape)
    h = handle()
    raw = x.tobytes()
    check(lib.nx_array_from_bytes(NX[dtype or x.dtype.name], x.ndim, shape, raw, len(raw), C.byref(h)), "nx_array_from_bytes")
    return h


def nx_bytes(h):
    n = C.c_size_t()
    check(lib.nx_array_describe(h, None, None, None, C.byref(n)), "nx_array_describe")
    buf = C.create_string_buffer(n.value)
    check(lib.nx_array_read(h, buf, n.value), "nx_array_read")
    return buf.raw


def nx_write(h, raw):
    return lib.nx_array_write(h, raw, len(raw))


# Producer capsules: the destructor calls the tensor's deleter unless a consumer took
# the tensor (and renamed the capsule).
@C.CFUNCTYPE(None, C.c_void_p)
def capsule_gone(cap):
    for name, kind in ((VERSIONED, Versioned), (LEGACY, Legacy)):
        if py.PyCapsule_IsValid(cap, name):
            m = C.cast(pointer_of(cap, name), C.POINTER(kind))
            m.contents.deleter(m)


class Nx:
    """An nxrig array offered to DLPack consumers (np.from_dlpack)."""

    def __init__(self, h, legacy=False):
        self.h, self.legacy, self.asked = h, legacy, []

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.asked.append(max_version)
        if copy:
            raise BufferError("nxrig gives its own memory, not a copy")
        t = C.c_void_p()
        if max_version is not None and max_version[0] >= 1 and not self.legacy:
            check(lib.nx_array_to_dlpack(self.h, C.byref(t)), "nx_array_to_dlpack")
            return py.PyCapsule_New(t, VERSIONED, C.cast(capsule_gone, C.c_void_p))
        check(lib.nx_array_to_dlpack_legacy(self.h, C.byref(t)), "nx_array_to_dlpack_legacy")
        return py.PyCapsule_New(t, LEGACY, C.cast(capsule_gone, C.c_void_p))


def nx_take(x, legacy=False):
    """nxrig's array over NumPy array x's memory (x's __dlpack__ capsule taken)."""
    cap = x.__dlpack__() if legacy else x.__dlpack__(max_version=(1, 0))
    name, used, take = (LEGACY, USED_LEGACY, lib.nx_array_from_dlpack_legacy) if legacy else (
        VERSIONED, USED_VERSIONED, lib.nx_array_from_dlpack)
    ptr = py.PyCapsule_GetPointer(cap, name)
    h = handle()
    status = take(ptr, C.byref(h))
    py.PyCapsule_SetName(cap, used)  # nxrig owns the tensor now, on success or not
    return status, h


def live():
    gc.collect()
    return lib.nx_dlpack_live_exports()


rng = np.random.default_rng(7)


def sample(dtype, shape):
    n = int(np.prod(shape))
    raw = rng.integers(0, 256, size=n * np.dtype(dtype).itemsize, dtype=np.uint8)
    x = raw.view(dtype).reshape(shape).copy()
    if dtype == np.bool_:
        x = raw[:n].reshape(shape) % 2 == 1
    return x


NUMPY_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                np.uint32, np.uint64, np.float16, np.float32, np.float64, np.complex64,
                np.complex128]
checked = 0

for dt in NUMPY_DTYPES:
    # nxrig -> NumPy: the same bytes, writes seen both ways, the deleter once.
    x = sample(dt, (3, 4))
    h = nx_from(x)
    y = np.from_dlpack(Nx(h))
    assert y.dtype == x.dtype and y.shape == x.shape, (y.dtype, y.shape)
    assert y.tobytes() == x.tobytes(), dt
    assert y.flags.writeable
    assert live() == 1
    y[1, 2] = y[0, 0]
    assert nx_bytes(h) == y.tobytes(), "a NumPy write shows in nxrig"
    z = sample(dt, (3, 4))
    check(nx_write(h, z.tobytes()), "nx_array_write")
    assert y.tobytes() == z.tobytes(), "an nxrig write shows in NumPy"
    lib.nx_array_free(h)
    assert y.tobytes() == z.tobytes(), "the tensor keeps the memory alive"
    del y
    assert live() == 0, "the deleter ran once the consumer was done"

    # NumPy -> nxrig, a strided and flipped view: its layout kept, no copy.
    base = sample(dt, (4, 6))
    x = base[::-1, 1::2].T
    refs = sys.getrefcount(x)
    status, h = nx_take(x)
    check(status, "nx_array_from_dlpack")
    gc.collect()
    assert sys.getrefcount(x) == refs + 1, "NumPy's tensor holds x while nxrig does"
    assert nx_bytes(h) == np.ascontiguousarray(x).tobytes(), dt
    w = sample(dt, x.shape)
    check(nx_write(h, np.ascontiguousarray(w).tobytes()), "nx_array_write")
    assert x.tobytes() == np.ascontiguousarray(w).tobytes(), "an nxrig write shows in NumPy"
    # ... and back out again: NumPy sees its own memory, as the same strides.
    back = np.from_dlpack(Nx(h))
    assert back.strides == x.strides and np.shares_memory(back, base), (back.strides, x.strides)
    lib.nx_array_free(h)
    assert sys.getrefcount(x) == refs + 1, "nxrig's export still holds NumPy's tensor"
    del back
    gc.collect()
    assert live() == 0
    assert sys.getrefcount(x) == refs, "NumPy's deleter ran exactly once"
    checked += 1

# Read-only both ways; the legacy tensor cannot carry the flag.
x = sample(np.float32, (2, 3))
x.flags.writeable = False
status, h = nx_take(x)
check(status, "nx_array_from_dlpack")
fails(nx_write(h, bytes(24)), "only reads")
back = np.from_dlpack(Nx(h))
assert not back.flags.writeable and np.shares_memory(back, x)
t = C.c_void_p()
fails(lib.nx_array_to_dlpack_legacy(h, C.byref(t)), "nx_array_to_dlpack_legacy")
lib.nx_array_free(h)
del back
assert live() == 0

# The legacy tensor both ways.
x = sample(np.int32, (5,))
refs = sys.getrefcount(x)
status, h = nx_take(x, legacy=True)
check(status, "nx_array_from_dlpack_legacy")
assert nx_bytes(h) == x.tobytes()
producer = Nx(h, legacy=True)
y = np.from_dlpack(producer)
assert np.shares_memory(y, x) and (y == x).all()
lib.nx_array_free(h)
del y
gc.collect()
assert live() == 0 and sys.getrefcount(x) == refs

# Refusals name the C function; a refused tensor's deleter still runs once.
h = handle()
fails(lib.nx_array_from_dlpack(None, C.byref(h)), "nx_array_from_dlpack: the tensor is a null pointer")
fails(lib.nx_array_read(None, None, 0), "nx_array_read: the array is a null pointer")
x = np.arange(3.0)
refs = sys.getrefcount(x)
cap = x.__dlpack__(max_version=(1, 0))
ptr = py.PyCapsule_GetPointer(cap, VERSIONED)
C.cast(ptr, C.POINTER(Versioned)).contents.dl_tensor.dtype.lanes = 4
fails(lib.nx_array_from_dlpack(ptr, C.byref(h)), "4 lanes")
py.PyCapsule_SetName(cap, USED_VERSIONED)
del cap
gc.collect()
assert sys.getrefcount(x) == refs, "the refused tensor's deleter ran once"
h = nx_from(np.arange(4, dtype=np.int8))
fails(nx_write(h, bytes(3)), "nx_array_write: len is 3; the elements are 4 bytes")
h2 = handle()
shape = (C.c_int64 * 1)(4)
fails(lib.nx_array_from_bytes(NX["int8"], 1, shape, bytes(5), 5, C.byref(h2)), "nx_array_from_bytes: len is 5; the elements are 4 bytes")
lib.nx_array_free(h)

# The dtypes NumPy does not exchange, read straight from nxrig's tensors: DLPack's
# codes, and the values ml_dtypes gives (int4, uint4 and float4_e2m1fn packed two a
# byte, low nibble first, as DLPack packs sub-byte types by default; the float6s one a
# byte, as ml_dtypes holds them, 6 bits flagged padded; int2, uint2, int1 and uint1 one a
# byte too, 2 or 1 bits flagged padded).
for name, mt, code in (("bfloat16", ml_dtypes.bfloat16, (4, 16)),
                       ("float8_e4m3fn", ml_dtypes.float8_e4m3fn, (10, 8)),
                       ("float8_e5m2", ml_dtypes.float8_e5m2, (12, 8)),
                       ("float8_e4m3", ml_dtypes.float8_e4m3, (8, 8)),
                       ("float8_e3m4", ml_dtypes.float8_e3m4, (7, 8)),
                       ("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, (11, 8)),
                       ("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, (13, 8)),
                       ("float8_e4m3b11fnuz", ml_dtypes.float8_e4m3b11fnuz, (9, 8)),
                       ("float8_e8m0fnu", ml_dtypes.float8_e8m0fnu, (14, 8)),
                       ("float4_e2m1fn", ml_dtypes.float4_e2m1fn, (17, 4)),
                       ("float6_e2m3fn", ml_dtypes.float6_e2m3fn, (15, 6)),
                       ("float6_e3m2fn", ml_dtypes.float6_e3m2fn, (16, 6)),
                       ("int4", ml_dtypes.int4, (0, 4)), ("uint4", ml_dtypes.uint4, (1, 4)),
                       ("int2", ml_dtypes.int2, (0, 2)), ("uint2", ml_dtypes.uint2, (1, 2)),
                       ("int1", ml_dtypes.int1, (0, 1)), ("uint1", ml_dtypes.uint1, (1, 1))):
    packed = name in ("int4", "uint4", "float4_e2m1fn")
    vals = np.array([1.5, -2.0, 3.0, 0.25, -0.5, 7.0], dtype=np.float32)
    if name == "float8_e8m0fnu":  # unsigned powers of two (a negative value is its NaN)
        vals = np.array([1.0, 2.0, 4.0, 0.25, 0.5, 2.0 ** -127], dtype=np.float32)
    if "int" in name:
        vals = {"int4": [1, -2, 3, 7, -8, 0], "uint4": [1, 2, 3, 15, 8, 0],
                "int2": [1, -2, -1, 0, 1, -2], "uint2": [1, 2, 3, 0, 3, 2],
                "int1": [-1, 0, -1, -1, 0, 0], "uint1": [1, 0, 1, 1, 0, 1]}[name]
        vals = np.array(vals)
    x = vals.astype(mt).reshape(2, 3)
    if packed:
        nib = (x.astype(np.int8) if "int" in name else x).reshape(-1).view(np.uint8) & 0xF
        raw = (nib[0::2] | (nib[1::2] << 4)).astype(np.uint8).tobytes()
    else:
        raw = x.tobytes()
    h = handle()
    shape = (C.c_int64 * 2)(2, 3)
    check(lib.nx_array_from_bytes(NX[name], 2, shape, raw, len(raw), C.byref(h)), "nx_array_from_bytes")
    t = C.c_void_p()
    check(lib.nx_array_to_dlpack(h, C.byref(t)), "nx_array_to_dlpack")
    m = C.cast(t, C.POINTER(Versioned)).contents
    d = m.dl_tensor
    assert (m.version.major, d.device.device_type, d.ndim) == (1, 1, 2)
    assert (d.dtype.code, d.dtype.bits, d.dtype.lanes) == (*code, 1), (name, d.dtype.code, d.dtype.bits)
    assert m.flags == (PADDED if code[1] in (6, 2, 1) else 0), (name, m.flags)
    assert [d.shape[0], d.shape[1]] == [2, 3] and [d.strides[0], d.strides[1]] == [3, 1]
    got = C.string_at(d.data + d.byte_offset, len(raw))
    if packed:
        b = np.frombuffer(got, dtype=np.uint8)
        lo, hi = b & 0xF, b >> 4
        un = np.stack([lo, hi], axis=1).reshape(-1)
        back = un.view(mt) if name == "float4_e2m1fn" else (((un ^ 8) - 8) if name == "int4" else un).astype(mt)
    else:
        back = np.frombuffer(got, dtype=mt)
    assert (back.reshape(2, 3) == x).all(), (name, back, x)
    lib.nx_array_free(h)
    assert live() == 1
    m.deleter(C.cast(t, C.POINTER(Versioned)))
    assert live() == 0
    checked += 1

print(f"DLPack with NumPy {np.__version__}: {checked} dtypes both ways or read, every deleter once")

# A dtype DLPack has no code for (float8_e5m3fnu): the export is refused with a sentence,
# nothing is exported, the array stays usable.
raw = np.array([1.0, 2.0, 0.0, 114688.0], np.float32).astype(ml_dtypes.float8_e5m3fnu).tobytes()
h = handle()
shape = (C.c_int64 * 1)(4)
check(lib.nx_array_from_bytes(NX["float8_e5m3fnu"], 1, shape, raw, len(raw), C.byref(h)), "nx_array_from_bytes")
t = C.c_void_p()
fails(lib.nx_array_to_dlpack(h, C.byref(t)), "DLPack 1.1 has no type code for float8_e5m3fnu")
assert live() == 0 and nx_bytes(h) == raw
lib.nx_array_free(h)
