/*
 * A stand-in for the Windows SDK's windows.h, for CI's type check of nxrig for
 * x86_64-pc-windows-msvc on Linux (scripts/test.sh): `cargo check` runs the build
 * scripts of dependencies, and stacker's (through pest) compiles one C file that
 * asks windows.h for GetCurrentFiber. Nothing built with it is linked or run.
 */
#ifndef NXRIG_CHECK_WINDOWS_H
#define NXRIG_CHECK_WINDOWS_H
typedef void *PVOID;
PVOID GetCurrentFiber(void);
#endif
