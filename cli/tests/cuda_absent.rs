//! The CUDA backend where the machine's CUDA is missing or broken, through stand-in
//! libraries put first on the loader's path (`tests/c/cuda_stub.c`): a driver that
//! loads and finds no device, with and without an NVRTC beside it, and one that lacks
//! `cuInit`. `nxrig devices`
//! lists no CUDA device and says why in one line (status 0), `--device cuda0` exits 2
//! with one line, and nothing panics (cudarc's loader would, unprobed). The case of no
//! driver at all is this machine's, in `tests/cli.rs`.
#![cfg(all(feature = "cuda", target_os = "linux"))]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A stand-in library built from `tests/c/cuda_stub.c` as `dir/name`, with the
/// C macro `define` (`NVRTC`, `NO_INIT`) where given.
fn stub(dir: &Path, name: &str, define: Option<&str>) -> PathBuf {
    let target = env!("NXRIG_TARGET");
    let cc = cc::Build::new()
        .target(target)
        .host(target)
        .opt_level(0)
        .cargo_metadata(false)
        .get_compiler();
    let lib = dir.join(name);
    let mut cmd = cc.to_command();
    cmd.args(["-shared", "-fPIC", "-Wall", "-Werror"]);
    if let Some(d) = define {
        cmd.arg(format!("-D{d}"));
    }
    let out = cmd
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/cuda_stub.c"))
        .arg("-o")
        .arg(&lib)
        .output()
        .expect("run the C compiler");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    lib
}

/// A driver that fails to start is said before a missing NVRTC.
#[test]
fn a_broken_driver_is_said_before_a_missing_nvrtc() {
    let dir = tempfile::tempdir().unwrap();
    stub(dir.path(), "libcuda.so.1", None);
    let why = says_why(dir.path());
    assert!(
        why.starts_with("the CUDA driver failed to start: CUDA_ERROR_NO_DEVICE: "),
        "{why}"
    );
}

/// `nxrig args` with only `dir` on the loader's path: status, stdout, stderr.
fn nxrig(dir: &Path, args: &[&str]) -> (i32, String, String) {
    common::nxrig_env(args, &[("LD_LIBRARY_PATH", dir.as_os_str())])
}

/// The line of `nxrig devices` that says why no CUDA device is listed, after checking
/// that there is one such line, status 0 and no panic; and `--device cuda0`'s one line.
fn says_why(dir: &Path) -> String {
    let (code, stdout, stderr) = nxrig(dir, &["devices"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let why: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("no CUDA device: "))
        .collect();
    assert_eq!(why.len(), 1, "{stdout}");
    assert!(!stdout.lines().any(|l| l.contains(": cuda0: ")), "{stdout}");
    let (code, stdout, stderr) = nxrig(
        dir,
        &[
            "convert",
            "missing.safetensors",
            "out.safetensors",
            "--to",
            "float16",
            "--device",
            "cuda0",
        ],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    why[0].to_owned()
}

#[test]
fn a_driver_without_devices_is_said_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    stub(dir.path(), "libcuda.so.1", None);
    stub(dir.path(), "libnvrtc.so", Some("NVRTC"));
    let why = says_why(dir.path());
    assert!(
        why.starts_with("the CUDA driver failed to start: ")
            && why.contains("CUDA_ERROR_NO_DEVICE"),
        "{why}"
    );
}

#[test]
fn a_driver_without_nvrtc_is_said_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    stub(dir.path(), "libcuda.so.1", Some("ONE_DEVICE"));
    let why = says_why(dir.path());
    assert!(why.starts_with("no NVRTC"), "{why}");
}

/// cudarc's loader panics on a missing symbol: the panic is caught and its message
/// becomes the reason, printed by no panic hook, in the library (this test's child
/// process, below) as in the command line (which also holds the drivers' stderr
/// while devices open).
#[test]
fn a_driver_without_cu_init_is_said_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    stub(dir.path(), "libcuda.so.1", Some("NO_INIT"));
    stub(dir.path(), "libnvrtc.so", Some("NVRTC"));
    let why = says_why(dir.path());
    assert!(
        why.starts_with("the CUDA libraries failed to load: ") && why.contains("cuInit"),
        "{why}"
    );
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "probe_in_a_child", "--nocapture"])
        .env("LD_LIBRARY_PATH", dir.path())
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("why: the CUDA libraries failed to load: "),
        "{stdout}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// The library's probe, run by `a_driver_without_cu_init_is_said_in_one_line` in a
/// process of its own (its loader path set to the stand-ins).
#[test]
#[ignore = "a child process of a_driver_without_cu_init_is_said_in_one_line"]
fn probe_in_a_child() {
    println!(
        "why: {}",
        nxrig::Rig::cuda_unavailable().unwrap_or_default()
    );
}
