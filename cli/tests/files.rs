//! Files as people have them: hostile input gets one line on stderr naming
//! the file (and the tensor), exit status 2, no output and no temporary left, nothing
//! allocated that the file does not justify, never a hang; files from other writers
//! that NumPy reads are read; conversions write the same bytes every run; `info` reads
//! headers only and ends quietly on a closed pipe. Each input is made here by hand
//! (the oracle: the format's definition and hand-computed values).
#![cfg(not(target_arch = "wasm32"))]

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{npy, nxrig, safetensors, BIN};

/// Bad input's outcome: exit 2, one line `nxrig: FILE...` holding `want`, and no file
/// in `dir` but `keep`.
fn refused(dir: &Path, args: &[&str], want: &str, keep: &[&str]) -> String {
    let (code, _, err) = nxrig(args);
    assert_eq!(code, 2, "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err:?}");
    assert!(err.starts_with("nxrig: "), "{err:?}");
    assert!(err.contains(want), "{err:?} lacks {want:?}");
    assert!(
        !err.trim_end().chars().any(char::is_control),
        "no control character reaches the terminal: {err:?}"
    );
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    err
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_fifo_is_refused_without_opening_it() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("in.npy");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    refused(
        dir.path(),
        &["info", s(&fifo)],
        "not a regular file",
        &["in.npy"],
    );
    let out = dir.path().join("out.npy");
    refused(
        dir.path(),
        &["convert", s(&fifo), s(&out), "--to", "float16"],
        "not a regular file",
        &["in.npy"],
    );
}

/// One file converted into a folder is told to name a file.
#[test]
fn one_file_into_a_folder_is_told_to_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let h = r#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
    let p = safetensors(dir.path(), "in.safetensors", h, &[0; 4]);
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    for o in [
        s(&out).to_owned(),
        format!("{}/", s(&out)),
        format!("{}/new/", s(dir.path())),
    ] {
        let err = refused(
            dir.path(),
            &["convert", s(&p), &o, "--to", "float16"],
            "a folder: one file converts into one file",
            &["in.safetensors", "out"],
        );
        assert!(err.contains("give its name"), "{err}");
    }
}

/// A file of another format, under any name, is read as `.safetensors` (the one
/// rule of every opener) and refused by its header, saying what it looks like.
#[test]
fn other_formats_are_named_by_their_first_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes, want) in [
        (
            "pytorch_model.bin",
            &b"PK\x03\x04\x14\x00\x00\x00\x08\x00"[..],
            "a zip archive",
        ),
        (
            "model.pt",
            &b"\x80\x02}q\x00(X\x05\x00\x00\x00"[..],
            "a Python pickle",
        ),
    ] {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let err = refused(
            dir.path(),
            &["info", s(&p)],
            "not a .safetensors file",
            &[name],
        );
        assert!(err.contains(want), "{err:?} lacks {want:?}");
        std::fs::remove_file(&p).unwrap();
    }
    // GGUF is read: one cut short in its header is refused as GGUF, whatever its name.
    for name in ["model.gguf", "model.safetensors"] {
        let p = dir.path().join(name);
        std::fs::write(&p, b"GGUF\x03\x00\x00\x00\x05\x00\x00\x00").unwrap();
        refused(
            dir.path(),
            &["info", s(&p)],
            "the tensor count (8 bytes at byte 8) runs past the file's end (12 bytes)",
            &[name],
        );
        std::fs::remove_file(&p).unwrap();
    }
}

#[test]
fn npy_headers_nested_deep_or_longer_than_the_file_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': {}{}, }}",
        "[".repeat(25),
        "]".repeat(25)
    );
    let p = npy(dir.path(), "deep.npy", &deep, &[]);
    refused(
        dir.path(),
        &["info", s(&p)],
        "nests brackets 26 deep",
        &["deep.npy"],
    );
    // Version 2.0, header length 0xFFFFFFFF, twelve bytes in all.
    let p = dir.path().join("long.npy");
    std::fs::write(&p, b"\x93NUMPY\x02\x00\xff\xff\xff\xff").unwrap();
    refused(
        dir.path(),
        &["info", s(&p)],
        "the header's length field says 4294967295 bytes, but the file has 0 after it",
        &["deep.npy", "long.npy"],
    );
}

#[test]
fn every_message_is_one_line_with_names_escaped() {
    let dir = tempfile::tempdir().unwrap();
    // A malformed .npy header: the parser's message, first line only.
    let p = npy(
        dir.path(),
        "bad.npy",
        "{'descr': '<f4', 'fortran_order': Nope, 'shape': (2,), }",
        &[0; 8],
    );
    refused(
        dir.path(),
        &["info", s(&p)],
        "tensor \"bad\": bad .npy header",
        &["bad.npy"],
    );
    // A tensor name and a dtype holding a newline and a terminal escape.
    let h = "{\"w\\n\\u001b[31mnxrig: fake\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"x\":{\"dtype\":\"F\\n9\",\"shape\":[1],\"data_offsets\":[4,8]}}";
    let p = safetensors(dir.path(), "names.safetensors", h, &[0; 8]);
    let err = refused(
        dir.path(),
        &["info", s(&p)],
        r#"tensor "x": dtype "F\n9" is not one nxrig reads"#,
        &["bad.npy", "names.safetensors"],
    );
    assert!(!err.contains('\u{1b}'));
    // A file name with a newline.
    let odd = dir.path().join("a\nb.safetensors");
    std::fs::write(&odd, b"12").unwrap();
    refused(
        dir.path(),
        &["info", s(&odd)],
        r"a\nb.safetensors",
        &["bad.npy", "names.safetensors", "a\nb.safetensors"],
    );
    // The good tensor's name, listed by info, escaped too.
    let h = "{\"w\\u001b[2J\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
    let p = safetensors(dir.path(), "esc.safetensors", h, &[0; 4]);
    let (code, out, _) = nxrig(&["info", s(&p)]);
    assert_eq!(code, 0);
    assert!(
        out.contains(r"w\u{1b}[2J") && !out.contains('\u{1b}'),
        "{out:?}"
    );
}

#[test]
fn errors_name_the_file_and_the_tensor_at_fault() {
    let dir = tempfile::tempdir().unwrap();
    // Rank 17 whose element count overflows.
    let shape = vec!["4294967296"; 17].join(", ");
    let p = npy(
        dir.path(),
        "huge.npy",
        &format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({shape}), }}"),
        &[],
    );
    refused(
        dir.path(),
        &["info", s(&p)],
        "huge.npy: tensor \"huge\": shape [",
        &["huge.npy"],
    );
    std::fs::remove_file(p).unwrap();
    let cases = [
        (
            r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,8]}}"#,
            r#"tensor "b": data_offsets [4, 8] hold 4 bytes; shape [2] of float32 needs 8"#,
        ),
        (
            r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}}"#,
            r#"tensor "b": its bytes from 2 overlap another tensor's"#,
        ),
        (
            r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}"#,
            r#"tensor "b": data_offsets [8, 12] end past the data (8 bytes): the file is 4 bytes short of them (truncated?)"#,
        ),
        (
            r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}}"#,
            r#"tensor "a": data_offsets [4, 0] end before they begin"#,
        ),
        (
            r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#,
            r#"tensor "a": 4 bytes of the data before it belong to no tensor"#,
        ),
        (
            r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
            r#"4 bytes of the data after the last tensor belong to no tensor"#,
        ),
        (
            r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}"#,
            r#"tensor "a": the header names it twice"#,
        ),
        (
            r#"{"a":{"dtype":"F32","shape":[1]}}"#,
            r#"tensor "a": bad entry: missing field `data_offsets`"#,
        ),
    ];
    for (i, (h, want)) in cases.iter().enumerate() {
        let name = format!("c{i}.safetensors");
        let p = safetensors(dir.path(), &name, h, &[0; 8]);
        refused(dir.path(), &["info", s(&p)], want, &[&name]);
        std::fs::remove_file(p).unwrap();
    }
}

#[test]
fn a_failed_write_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<u8> = (0..1 << 18)
        .flat_map(|i: u32| (i as f32).to_le_bytes())
        .collect();
    let h = format!(
        r#"{{"w":{{"dtype":"F32","shape":[{}],"data_offsets":[0,{}]}}}}"#,
        1 << 18,
        data.len()
    );
    let input = safetensors(dir.path(), "in.safetensors", &h, &data);
    let out = dir.path().join("out.safetensors");
    // A file size limit of 64 blocks: the write fails part way.
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -f 64 && exec '{BIN}' convert '{}' '{}' --to float64",
            s(&input),
            s(&out)
        ))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["in.safetensors"], "no output and no temporary");
}

#[test]
fn an_interrupt_removes_the_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let data = vec![0u8; 12];
    let h = r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},"c":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}"#;
    let input = safetensors(dir.path(), "in.safetensors", h, &data);
    let out = dir.path().join("out.safetensors");
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let mut child = Command::new(BIN)
            .args(["convert", s(&input), s(&out), "--to", "float16"])
            .env("NXRIG_TEST_TENSOR_DELAY_MS", "400")
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait for the temporary to appear, then interrupt.
        let start = Instant::now();
        while !std::fs::read_dir(dir.path())
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".tmp"))
        {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no temporary appeared"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        // SAFETY: a signal to the child this test made.
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = child.wait().unwrap();
        // As a shell reports a process the signal ended: 130, 143, 129.
        assert_eq!(status.code(), Some(128 + signal), "signal {signal}");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            left,
            ["in.safetensors"],
            "signal {signal}: no output and no temporary"
        );
    }
}

#[test]
fn conversions_write_the_same_bytes_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let h = r#"{"__metadata__":{"zeta":"1","alpha":"2","mid":"3","format":"pt"},"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    let input = safetensors(dir.path(), "in.safetensors", h, &[0; 8]);
    let mut outs = Vec::new();
    for k in 0..4 {
        let out = dir.path().join(format!("o{k}.safetensors"));
        assert_eq!(
            nxrig(&["convert", s(&input), s(&out), "--to", "float16"]).0,
            0
        );
        outs.push(std::fs::read(out).unwrap());
    }
    assert!(
        outs.windows(2).all(|w| w[0] == w[1]),
        "every run the same bytes"
    );
    let text = String::from_utf8_lossy(&outs[0]);
    assert!(
        text.contains(r#"{"__metadata__":{"alpha":"2","format":"pt","mid":"3","zeta":"1"},"w":"#),
        "metadata keys sorted: {text}"
    );
}

#[test]
fn the_input_is_checked_before_a_device_opens() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.safetensors");
    std::fs::write(&p, b"\x05\0\0\0\0\0\0\0{").unwrap();
    let out = dir.path().join("out.safetensors");
    // No device is named "nowhere": the input's error comes first.
    refused(
        dir.path(),
        &[
            "convert",
            s(&p),
            s(&out),
            "--to",
            "float16",
            "--device",
            "nowhere",
        ],
        "bad.safetensors: a header of 5 bytes in a file of 9 bytes",
        &["bad.safetensors"],
    );
}

#[test]
fn names_a_format_reserves_are_refused_when_writing() {
    let dir = tempfile::tempdir().unwrap();
    let p = npy(
        dir.path(),
        "__metadata__.npy",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
        &[0; 4],
    );
    let out = dir.path().join("out.safetensors");
    refused(
        dir.path(),
        &["convert", s(&p), s(&out), "--to", "float16"],
        "tensor \"__metadata__\": the .safetensors format reserves this name",
        &["__metadata__.npy"],
    );
}

#[test]
fn info_into_a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let entries: Vec<String> = (0..20000)
        .map(|i| format!(r#""t{i:05}":{{"dtype":"F32","shape":[0],"data_offsets":[0,0]}}"#))
        .collect();
    let p = safetensors(
        dir.path(),
        "many.safetensors",
        &format!("{{{}}}", entries.join(",")),
        &[],
    );
    let mut child = Command::new(BIN)
        .args(["info", s(&p)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert_eq!(err, "", "no panic, no message");
}

/// Peak resident memory of `nxrig args`, in KiB (the child's own, from `wait4`).
#[allow(clippy::zombie_processes)] // waited for by wait4
fn peak_kib(args: &[&str]) -> i64 {
    let child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let (mut status, mut r) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    // SAFETY: waits for this test's own child; fills the two values given.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut r) };
    assert_eq!(pid, child.id() as i32);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "nxrig {args:?} failed"
    );
    r.ru_maxrss
}

#[test]
fn info_reads_headers_only() {
    let dir = tempfile::tempdir().unwrap();
    // 256 MiB of float32 at an unaligned offset (a sparse file): info copies nothing.
    let n: u64 = 64 << 20;
    let h = format!(
        r#"{{"a":{{"dtype":"U8","shape":[1],"data_offsets":[0,1]}},"w":{{"dtype":"F32","shape":[{n}],"data_offsets":[1,{}]}}}}"#,
        1 + 4 * n
    );
    let mut head = (h.len() as u64).to_le_bytes().to_vec();
    head.extend_from_slice(h.as_bytes());
    let p = dir.path().join("big.safetensors");
    let f = std::fs::File::create(&p).unwrap();
    std::io::Write::write_all(&mut &f, &head).unwrap();
    f.set_len(head.len() as u64 + 1 + 4 * n).unwrap();
    drop(f);
    let kib = peak_kib(&["info", s(&p)]);
    assert!(
        kib < 64 << 10,
        "info's peak is {kib} KiB for a 256 MiB tensor"
    );
}

#[test]
fn one_byte_dtypes_with_a_byte_order_mark_are_read() {
    let dir = tempfile::tempdir().unwrap();
    for (descr, data, want) in [
        ("<u1", vec![7u8, 200], "uint8"),
        (">u1", vec![7, 200], "uint8"),
        ("<i1", vec![0xff, 3], "int8"),
        ("<b1", vec![1, 0], "bool"),
        ("|b1", vec![1, 0], "bool"),
    ] {
        let name = format!("x{}.npy", descr.replace(['<', '>', '|'], "_"));
        let p = npy(
            dir.path(),
            &name,
            &format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (2,), }}"),
            &data,
        );
        let (code, out, err) = nxrig(&["info", s(&p)]);
        assert_eq!(code, 0, "{descr}: {err}");
        assert!(out.contains(want), "{descr}: {out}");
        let back = dir.path().join("back.npy");
        assert_eq!(
            nxrig(&[
                "convert",
                s(&p),
                s(&back),
                "--to",
                "float32",
                "--tensors",
                "*"
            ])
            .0,
            0
        );
        let b = std::fs::read(&back).unwrap();
        let vals: Vec<f32> = b[b.len() - 8..]
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let expect: Vec<f32> = match want {
            "int8" => data.iter().map(|&x| x as i8 as f32).collect(),
            _ => data.iter().map(|&x| x as f32).collect(),
        };
        assert_eq!(vals, expect, "{descr}");
    }
}

#[test]
fn big_endian_npy_is_read_swapped_once() {
    let dir = tempfile::tempdir().unwrap();
    // Each case: big-endian bytes, and the float64 values they hold (by hand).
    let cases: [(&str, Vec<u8>, Vec<f64>); 4] = [
        (
            ">f4",
            [1.5f32, -2.25]
                .iter()
                .flat_map(|x| x.to_be_bytes())
                .collect(),
            vec![1.5, -2.25],
        ),
        (
            ">i2",
            [-2i16, 300].iter().flat_map(|x| x.to_be_bytes()).collect(),
            vec![-2.0, 300.0],
        ),
        (
            ">f8",
            [0.1f64, 1e300]
                .iter()
                .flat_map(|x| x.to_be_bytes())
                .collect(),
            vec![0.1, 1e300],
        ),
        (
            ">c8",
            [1.0f32, -3.0]
                .iter()
                .flat_map(|x| x.to_be_bytes())
                .collect(),
            vec![1.0],
        ),
    ];
    for (descr, data, want) in cases {
        let n = want.len();
        let p = npy(
            dir.path(),
            "be.npy",
            &format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({n},), }}"),
            &data,
        );
        let out = dir.path().join("le.npy");
        let (code, _, err) = nxrig(&[
            "convert",
            s(&p),
            s(&out),
            "--to",
            "float64",
            "--tensors",
            "*",
        ]);
        assert_eq!(code, 0, "{descr}: {err}");
        let b = std::fs::read(&out).unwrap();
        let got: Vec<f64> = b[b.len() - 8 * n..]
            .chunks(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, want, "{descr}");
    }
}

#[test]
fn info_json_gives_every_tensor_and_the_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let h = r#"{"__metadata__":{"format":"pt"},"w":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]},"b":{"dtype":"I64","shape":[1],"data_offsets":[8,16]}}"#;
    let p = safetensors(dir.path(), "m.safetensors", h, &[0; 16]);
    let (code, out, err) = nxrig(&["info", "--json", s(&p)]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let start = 8 + h.len();
    assert_eq!(v["metadata"], serde_json::json!({"format": "pt"}));
    assert_eq!(v["total_bytes"], 16);
    assert_eq!(
        v["tensors"],
        serde_json::json!([
            {"name": "w", "dtype": "float16", "shape": [2, 2], "bytes": 8, "offset": start},
            {"name": "b", "dtype": "int64", "shape": [1], "bytes": 8, "offset": start + 8},
        ])
    );
}

#[test]
fn the_output_may_not_be_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<u8> = [1.5f32, 2.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    let h = r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
    let p = safetensors(dir.path(), "a.safetensors", h, &data);
    let before = std::fs::read(&p).unwrap();
    refused(
        dir.path(),
        &["convert", s(&p), s(&p), "--to", "float16"],
        "the output is the input",
        &["a.safetensors"],
    );
    let link = dir.path().join("l.safetensors");
    std::os::unix::fs::symlink(&p, &link).unwrap();
    refused(
        dir.path(),
        &["convert", s(&link), s(&p), "--to", "float16"],
        "the output is the input",
        &["a.safetensors", "l.safetensors"],
    );
    assert_eq!(std::fs::read(&p).unwrap(), before, "the input untouched");
}

#[test]
fn npy_headers_longer_than_numpy_reads_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dict = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': ({},), }}",
        "9".repeat(20_000)
    );
    let mut h = dict;
    h.push('\n');
    let mut b = b"\x93NUMPY\x02\x00".to_vec();
    b.extend_from_slice(&(h.len() as u32).to_le_bytes());
    b.extend_from_slice(h.as_bytes());
    let p = dir.path().join("long.npy");
    std::fs::write(&p, b).unwrap();
    refused(
        dir.path(),
        &["info", s(&p)],
        "more than NumPy reads (10000)",
        &["long.npy"],
    );
}

#[test]
fn info_lists_names_of_any_length() {
    let dir = tempfile::tempdir().unwrap();
    let name = "\u{1b}".repeat(20_000);
    let h = format!(
        r#"{{"{}":{{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}}}"#,
        name.replace('\u{1b}', "\\u001b")
    );
    let p = safetensors(dir.path(), "n.safetensors", &h, &[0; 4]);
    let (code, out, err) = nxrig(&["info", s(&p)]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(out.contains(r"\u{1b}\u{1b}") && !out.contains('\u{1b}'));
    // JSON escapes what a terminal would act on, C1 and direction overrides too.
    let h = "{\"x\\u009b31m\\u202e\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
    let p = safetensors(dir.path(), "c1.safetensors", h, &[0; 4]);
    let (code, out, _) = nxrig(&["info", "--json", s(&p)]);
    assert_eq!(code, 0);
    assert!(
        !out.chars().any(|c| c == '\u{9b}' || c == '\u{202e}'),
        "{out:?}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["tensors"][0]["name"], "x\u{9b}31m\u{202e}");
}

#[test]
fn tensors_of_any_rank_and_size_convert_a_piece_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    // Rank 17 (past the arrays' max rank 16), and a rank-21 int tensor kept as it is.
    let shape: Vec<usize> = [vec![1; 16], vec![3]].concat();
    let vals = [1.5f32, -2.0, 65520.0];
    let mut data: Vec<u8> = vals.iter().flat_map(|x| x.to_le_bytes()).collect();
    data.extend_from_slice(&[7, 0, 0, 0]);
    let h = format!(
        r#"{{"w":{{"dtype":"F32","shape":{shape:?},"data_offsets":[0,12]}},"i":{{"dtype":"I32","shape":{:?},"data_offsets":[12,16]}}}}"#,
        vec![1; 21]
    );
    let p = safetensors(dir.path(), "r.safetensors", &h, &data);
    let out = dir.path().join("o.safetensors");
    let (code, _, err) = nxrig(&["convert", s(&p), s(&out), "--to", "float16"]);
    assert_eq!(code, 0, "{err}");
    let b = std::fs::read(&out).unwrap();
    // float16 of 1.5, -2, 65520 (to infinity): 0x3e00, 0xc000, 0x7c00; then int32 7.
    assert_eq!(
        &b[b.len() - 10..],
        &[7, 0, 0, 0, 0x00, 0x3e, 0x00, 0xc0, 0x00, 0x7c]
    );
}

#[test]
fn an_input_cut_short_while_read_ends_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let n = 1 << 20;
    let h = format!(
        r#"{{"a":{{"dtype":"F32","shape":[{n}],"data_offsets":[0,{}]}},"b":{{"dtype":"F32","shape":[{n}],"data_offsets":[{},{}]}}}}"#,
        4 * n,
        4 * n,
        8 * n
    );
    let p = safetensors(dir.path(), "t.safetensors", &h, &vec![0u8; 8 * n]);
    let out = dir.path().join("o.safetensors");
    let child = Command::new(BIN)
        .args(["convert", s(&p), s(&out), "--to", "float16"])
        .env("NXRIG_TEST_TENSOR_DELAY_MS", "500")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(250));
    std::fs::OpenOptions::new()
        .write(true)
        .open(&p)
        .unwrap()
        .set_len(1000)
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(
        err,
        "nxrig: an input file changed size while it was read; no output written\n"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["t.safetensors"]);
}

#[test]
fn a_sharded_conversion_that_fails_part_way_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let good = r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
    safetensors(dir.path(), "s1.safetensors", good, &[0; 4]);
    safetensors(
        dir.path(),
        "s2.safetensors",
        &good.replace("\"a\"", "\"b\""),
        &[0; 4],
    );
    let index = dir.path().join("model.safetensors.index.json");
    std::fs::write(
        &index,
        r#"{"metadata":{"total_size":8},"weight_map":{"a":"s1.safetensors","b":"s2.safetensors"}}"#,
    )
    .unwrap();
    let keep = [
        "s1.safetensors",
        "s2.safetensors",
        "model.safetensors.index.json",
    ];
    // A file name as the output of an index: refused.
    let file = dir.path().join("merged.safetensors");
    refused(
        dir.path(),
        &["convert", s(&index), s(&file), "--to", "bfloat16"],
        "converts into a folder",
        &keep,
    );
    // Interrupted after the first shard's tensor: no shard, no index, no folder.
    let out = dir.path().join("out");
    let mut child = Command::new(BIN)
        .args(["convert", s(&index), s(&out), "--to", "bfloat16"])
        .env("NXRIG_TEST_TENSOR_DELAY_MS", "600")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(900));
    // SAFETY: a signal to the child this test made.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert_eq!(child.wait().unwrap().code(), Some(130));
    assert!(!out.exists(), "no output folder left");
    // Whole: every shard and the index.
    assert_eq!(
        nxrig(&["convert", s(&index), s(&out), "--to", "bfloat16"]).0,
        0
    );
    let mut got: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            "model.safetensors.index.json",
            "s1.safetensors",
            "s2.safetensors"
        ]
    );
}
