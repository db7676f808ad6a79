"""Each nxrig dtype's NumPy type (ml_dtypes' for the types NumPy lacks), by nxrig's
name: the one map the Python oracles, checks and benchmarks read. Import it with
the folder `tests` on the path:

    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from numpy_dtypes import NP_TYPE
"""

import ml_dtypes
import numpy as np

NP_TYPE = {
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
    "float8_e4m3fn": ml_dtypes.float8_e4m3fn,
    "float8_e5m2": ml_dtypes.float8_e5m2,
    "float32": np.float32,
    "float64": np.float64,
    "int4": ml_dtypes.int4,
    "uint4": ml_dtypes.uint4,
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "uint16": np.uint16,
    "int32": np.int32,
    "uint32": np.uint32,
    "int64": np.int64,
    "uint64": np.uint64,
    "complex64": np.complex64,
    "complex128": np.complex128,
    "bool": np.bool_,
    "float8_e4m3": ml_dtypes.float8_e4m3,
    "float8_e3m4": ml_dtypes.float8_e3m4,
    "float8_e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
    "float8_e5m2fnuz": ml_dtypes.float8_e5m2fnuz,
    "float8_e4m3b11fnuz": ml_dtypes.float8_e4m3b11fnuz,
    "float8_e8m0fnu": ml_dtypes.float8_e8m0fnu,
    "float8_e5m3fnu": ml_dtypes.float8_e5m3fnu,
    "float4_e2m1fn": ml_dtypes.float4_e2m1fn,
    "float6_e2m3fn": ml_dtypes.float6_e2m3fn,
    "float6_e3m2fn": ml_dtypes.float6_e3m2fn,
    "int2": ml_dtypes.int2,
    "uint2": ml_dtypes.uint2,
    "int1": ml_dtypes.int1,
    "uint1": ml_dtypes.uint1,
    "complex32": ml_dtypes.complex32,
    "bcomplex32": ml_dtypes.bcomplex32,
}
