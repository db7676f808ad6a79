/*
 * cuda_stub.c: stand-ins for CUDA's libraries in tests/cuda_absent.rs, built as a
 * shared library and put first on the loader's path: a driver (libcuda.so.1) that
 * loads but finds no device (built with -DNO_INIT: one without cuInit at all; with
 * -DONE_DEVICE: one that starts and reports a device), and (built with -DNVRTC) an
 * NVRTC (libnvrtc.so) that loads. nxrig must then list no CUDA device and say why,
 * in one line, never panic.
 */
#ifdef NVRTC
const char *nvrtcGetErrorString(int result)
{
    (void)result;
    return "stub";
}
#else
#if defined(ONE_DEVICE)
int cuInit(unsigned int flags)
{
    (void)flags;
    return 0;
}

int cuDeviceGetCount(int *count)
{
    *count = 1;
    return 0;
}
#elif !defined(NO_INIT)
/* CUDA_ERROR_NO_DEVICE */
int cuInit(unsigned int flags)
{
    (void)flags;
    return 100;
}
#endif

int cuGetErrorString(int error, const char **s)
{
    (void)error;
    *s = "no CUDA-capable device is detected (a stand-in driver)";
    return 0;
}

int cuGetErrorName(int error, const char **s)
{
    (void)error;
    *s = "CUDA_ERROR_NO_DEVICE";
    return 0;
}
#endif
