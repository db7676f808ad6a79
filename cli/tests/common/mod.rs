//! Shared by the command line's tests: running `nxrig` (a hang fails the test) and
//! files made by hand from their formats' definitions.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_nxrig");

/// `nxrig args`: exit status, stdout, stderr; killed after 60 s (a hang fails the
/// test).
pub fn nxrig(args: &[&str]) -> (i32, String, String) {
    nxrig_env(args, &[])
}

/// [`nxrig`] with `env` set in the child's environment.
pub fn nxrig_env(args: &[&str], env: &[(&str, &OsStr)]) -> (i32, String, String) {
    let child = Command::new(BIN)
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(o) => {
            let o = o.unwrap();
            (
                o.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&o.stdout).into(),
                String::from_utf8_lossy(&o.stderr).into(),
            )
        }
        Err(_) => {
            // SAFETY: a signal to the child this test made.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("nxrig {args:?} hung");
        }
    }
}

/// A `.safetensors` file from a JSON header and data, by hand (8-byte length, header,
/// data).
pub fn safetensors(dir: &Path, name: &str, header: &str, data: &[u8]) -> PathBuf {
    let mut b = (header.len() as u64).to_le_bytes().to_vec();
    b.extend_from_slice(header.as_bytes());
    b.extend_from_slice(data);
    let p = dir.join(name);
    std::fs::write(&p, b).unwrap();
    p
}

/// A `.npy` file of version 1.0 with the dict `dict` and `data`.
pub fn npy(dir: &Path, name: &str, dict: &str, data: &[u8]) -> PathBuf {
    let mut h = dict.to_owned();
    let pad = (64 - (10 + h.len() + 1) % 64) % 64;
    h.push_str(&" ".repeat(pad));
    h.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend_from_slice(&(h.len() as u16).to_le_bytes());
    b.extend_from_slice(h.as_bytes());
    b.extend_from_slice(data);
    let p = dir.join(name);
    std::fs::write(&p, b).unwrap();
    p
}

/// Little-endian bytes of float32 values.
pub fn f32_bytes(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}
