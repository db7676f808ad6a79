//! The `nxrig` command line on good and bad files: bad input gets one line on stderr
//! naming the file (and the tensor), exit code 2, and no output file.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::path::{Path, PathBuf};

use common::{f32_bytes, nxrig, safetensors};

fn good(dir: &Path) -> PathBuf {
    let mut data = f32_bytes(&[1.0, 2.5, -3.0, 65520.0]);
    data.extend_from_slice(&7i64.to_le_bytes());
    let h = r#"{"__metadata__":{"k":"v"},"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"n":{"dtype":"I64","shape":[1],"data_offsets":[16,24]}}"#;
    safetensors(dir, "good.safetensors", h, &data)
}

/// `nxrig convert` of `good.safetensors` in `dir` into `out.safetensors` there, `to`
/// and then `rest`: the exit code, stdout, stderr and the output's path.
fn convert_good(dir: &Path, to: &str, rest: &[&str]) -> (i32, String, String, PathBuf) {
    let input = good(dir);
    let out = dir.join("out.safetensors");
    let mut args = vec![
        "convert",
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "--to",
        to,
    ];
    args.extend_from_slice(rest);
    let (code, stdout, stderr) = nxrig(&args);
    (code, stdout, stderr, out)
}

/// Files in `dir` other than `keep`.
fn leftovers(dir: &Path, keep: &[&str]) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect()
}

/// The overflow warning written into a standard error whose reader is gone (`2>&1 |
/// head -1` once head has its line): no panic, the conversion's success.
#[test]
fn a_warning_into_a_closed_standard_error_is_no_panic() {
    let dir = tempfile::tempdir().unwrap();
    let input = good(dir.path());
    let out = dir.path().join("out.safetensors");
    let mut child = std::process::Command::new(common::BIN)
        .args(["convert", input.to_str().unwrap(), out.to_str().unwrap()])
        .args(["--to", "float16"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reader gone before the conversion (65520 past float16's largest) warns.
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status}");
    assert!(out.exists(), "the output is in place");
}

#[test]
fn convert_converts_floats_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr, out) = convert_good(dir.path(), "float16", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("2 tensors (1 converted to float16)"),
        "{stdout}"
    );
    let bytes = std::fs::read(&out).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header = std::str::from_utf8(&bytes[8..8 + n]).unwrap();
    assert!(
        header.contains(r#""w":{"dtype":"F16","shape":[2,2],"data_offsets":[8,16]}"#),
        "{header}"
    );
    assert!(header.contains(r#""k":"v""#), "metadata kept: {header}");
    let data = &bytes[8 + n..];
    // n (int64 7) sorts first, then w: 1.0, 2.5, -3.0, 65520 (rounds to inf) in float16.
    assert_eq!(&data[..8], &7i64.to_le_bytes());
    let w: Vec<u16> = data[8..16]
        .chunks(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(w, [0x3c00, 0x4100, 0xc200, 0x7c00]);
    // info lists both tensors.
    let (code, stdout, _) = nxrig(&["info", out.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        stdout.contains("float16")
            && stdout.contains("int64")
            && stdout.contains("2 tensors, 16 bytes"),
        "{stdout}"
    );
}

#[test]
fn tensors_glob_converts_matching_tensors_whatever_their_dtype() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr, out) = convert_good(dir.path(), "int8", &["--tensors", "n*"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("(1 converted to int8)"), "{stdout}");
    let (_, info, _) = nxrig(&["info", out.to_str().unwrap()]);
    assert!(info.contains("int8") && info.contains("float32"), "{info}");
}

#[test]
fn a_tensors_glob_that_matches_nothing_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr, out) = convert_good(dir.path(), "int8", &["--tensors", "zzz*"]);
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stderr.contains("--tensors: the pattern \"zzz*\" matches no tensor of the checkpoint"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!out.exists());
    assert!(leftovers(dir.path(), &["good.safetensors"]).is_empty());
}

#[test]
fn npy_in_and_out() {
    let dir = tempfile::tempdir().unwrap();
    // A Fortran-order float64 2x3 array: [[1,2,3],[4,5,6]] stored column by column.
    let h = "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }";
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    let pad = 64 - (10 + h.len() + 1) % 64;
    let hdr = format!("{h}{}\n", " ".repeat(pad));
    b.extend_from_slice(&(hdr.len() as u16).to_le_bytes());
    b.extend_from_slice(hdr.as_bytes());
    for x in [1.0f64, 4.0, 2.0, 5.0, 3.0, 6.0] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    let input = dir.path().join("a.npy");
    std::fs::write(&input, b).unwrap();
    let out = dir.path().join("b.npy");
    let (code, _, stderr) = nxrig(&[
        "convert",
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "--to",
        "float32",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let o = std::fs::read(&out).unwrap();
    let hl = u16::from_le_bytes([o[8], o[9]]) as usize;
    assert_eq!((10 + hl) % 64, 0);
    let header = std::str::from_utf8(&o[10..10 + hl]).unwrap();
    assert!(
        header.contains("'<f4'") && header.contains("(2, 3)") && header.contains("False"),
        "{header}"
    );
    let data: Vec<f32> = o[10 + hl..]
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(
        data,
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "C order out of a Fortran-order file"
    );
    // .npy into .safetensors.
    let st = dir.path().join("c.safetensors");
    let (code, _, stderr) = nxrig(&[
        "convert",
        input.to_str().unwrap(),
        st.to_str().unwrap(),
        "--to",
        "bfloat16",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let (_, info, _) = nxrig(&["info", st.to_str().unwrap()]);
    assert!(
        info.contains("a ") && info.contains("bfloat16") && info.contains("[2, 3]"),
        "{info}"
    );
}

/// Runs a conversion expected to fail: exit 2, one line naming `names`, no output.
fn fails(dir: &Path, input: &Path, out: &str, to: &str, names: &[&str]) {
    let outp = dir.join(out);
    let (code, _, stderr) = nxrig(&[
        "convert",
        input.to_str().unwrap(),
        outp.to_str().unwrap(),
        "--to",
        to,
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    for n in names {
        assert!(stderr.contains(n), "{stderr:?} should name {n}");
    }
    assert!(!outp.exists(), "no output file");
    let input_name = input.file_name().unwrap().to_str().unwrap();
    assert!(
        leftovers(dir, &[input_name]).is_empty(),
        "temporary files left: {:?}",
        leftovers(dir, &[input_name])
    );
}

#[test]
fn bad_input_exits_2_with_one_line_and_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let data = f32_bytes(&[1.0, 2.0, 3.0, 4.0]);
    let w = |h: &str| format!(r#"{{"w":{{"dtype":"F32","shape":[2,2],"data_offsets":{h}}}}}"#);

    // Truncated header: the length says more than the file has.
    let p = d.join("trunc.safetensors");
    let mut b = 1000u64.to_le_bytes().to_vec();
    b.extend_from_slice(b"{\"w\":");
    std::fs::write(&p, b).unwrap();
    fails(d, &p, "o.safetensors", "float16", &["trunc.safetensors"]);
    std::fs::remove_file(&p).unwrap();

    // Shorter than the 8-byte length.
    let p = d.join("tiny.safetensors");
    std::fs::write(&p, [1u8, 2]).unwrap();
    fails(d, &p, "o.safetensors", "float16", &["tiny.safetensors"]);
    std::fs::remove_file(&p).unwrap();

    // Corrupt JSON.
    let p = safetensors(d, "json.safetensors", r#"{"w":{"dtype":"F32","#, &data);
    fails(d, &p, "o.safetensors", "float16", &["json.safetensors"]);
    std::fs::remove_file(&p).unwrap();

    // Data offsets out of the file.
    let p = safetensors(d, "oob.safetensors", &w("[0,32]"), &data);
    fails(d, &p, "o.safetensors", "float16", &["oob.safetensors"]);
    std::fs::remove_file(&p).unwrap();

    // Overlapping tensors.
    let h = r#"{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}"#;
    let p = safetensors(d, "overlap.safetensors", h, &data);
    fails(d, &p, "o.safetensors", "float16", &["overlap.safetensors"]);
    std::fs::remove_file(&p).unwrap();

    // A byte count that does not match the shape.
    let p = safetensors(d, "count.safetensors", &w("[0,12]"), &data[..12]);
    fails(d, &p, "o.safetensors", "float16", &["count.safetensors"]);
    std::fs::remove_file(&p).unwrap();

    // A 4-bit tensor of an odd count (a half byte) is neither read (F4's three values in
    // two bytes) nor written (three float32 values into float4_e2m1fn), nor a float6 one
    // of a count not a multiple of four (F6_E2M3's two values in two bytes; three float32
    // values into float6_e3m2fn): refused, naming the file and the tensor.
    for (file, h, len, to, names) in [
        (
            "six.safetensors",
            r#"{"q":{"dtype":"F6_E2M3","shape":[2],"data_offsets":[0,2]}}"#,
            2,
            "float16",
            ["six.safetensors", "\"q\""],
        ),
        (
            "three6.safetensors",
            r#"{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}}"#,
            12,
            "float6_e3m2fn",
            ["o.safetensors", "\"w\""],
        ),
        (
            "half.safetensors",
            r#"{"q":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}}"#,
            2,
            "float16",
            ["half.safetensors", "\"q\""],
        ),
        (
            "three.safetensors",
            r#"{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}}"#,
            12,
            "float4_e2m1fn",
            ["o.safetensors", "\"w\""],
        ),
    ] {
        let p = safetensors(d, file, h, &data[..len]);
        let [n0, n1] = names;
        fails(
            d,
            &p,
            "o.safetensors",
            to,
            &[n0, n1, "not a whole number of bytes"],
        );
        std::fs::remove_file(&p).unwrap();
    }

    // An unknown dtype name, and a dtype the output cannot hold (naming the tensor).
    let p = safetensors(d, "ok.safetensors", &w("[0,16]"), &data);
    fails(d, &p, "o.safetensors", "float7", &["float7"]);
    // A typo: the dtype meant is named.
    fails(
        d,
        &p,
        "o.safetensors",
        "flaot16",
        &["unknown dtype \"flaot16\"", "did you mean \"float16\"?"],
    );
    fails(
        d,
        &p,
        "o.safetensors",
        "int4",
        &["o.safetensors", "\"w\"", "int4"],
    );
    // The IEEE-like float8_e4m3 has no code: refused, naming OCP's E4M3 (F8_E4M3),
    // float8_e4m3fn, so no file changes meaning silently.
    fails(
        d,
        &p,
        "o.safetensors",
        "float8_e4m3",
        &[
            "\"w\"",
            "no code for float8_e4m3",
            "F8_E4M3 is float8_e4m3fn",
        ],
    );
    // float8_e5m3fnu has no code, nor a twin of its widths that has one.
    fails(
        d,
        &p,
        "o.safetensors",
        "float8_e5m3fnu",
        &["\"w\"", "cannot hold float8_e5m3fnu"],
    );
    // "f4" names float32 in NumPy and float4_e2m1fn in safetensors: refused, naming both.
    fails(d, &p, "o.safetensors", "f4", &["float32", "float4_e2m1fn"]);
    fails(d, &p, "o.npy", "bfloat16", &["o.npy", "\"w\"", "bfloat16"]);
    fails(d, &p, "o.txt", "float16", &["o.txt"]);
    // An output in a folder that is not there: named, not the temporary beside it.
    fails(
        d,
        &p,
        "gone/o.safetensors",
        "float16",
        &["gone/o.safetensors: its folder", "does not exist"],
    );
    assert!(!d.join("gone").exists());
    std::fs::remove_file(&p).unwrap();
    // A missing input.
    fails(
        d,
        &d.join("missing.safetensors"),
        "o.safetensors",
        "float16",
        &["missing.safetensors"],
    );
}

/// `nxrig devices` lists the host and a GPU device per adapter with its shader
/// features and limits; this machine must have one (lavapipe in CI): a missing
/// adapter fails.
#[test]
fn devices_lists_the_host_and_the_gpu_devices() {
    let (code, stdout, stderr) = nxrig(&["devices"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().next(), Some("host"));
    let gpus: Vec<&str> = stdout.lines().filter(|l| l.starts_with("gpu")).collect();
    assert!(
        gpus.first().is_some_and(|g| g.starts_with("gpu0: ")),
        "no GPU device found (install mesa-vulkan-drivers):\n{stdout}"
    );
    for g in gpus.iter().filter(|g| !g.contains(": cuda")) {
        assert!(
            g.contains("shader-f16") && g.contains("max storage binding"),
            "{g}"
        );
    }
    // Where no CUDA device is listed, one line says why.
    let cuda_listed = gpus.iter().any(|g| g.contains(": cuda0: "));
    let why: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("no CUDA device: "))
        .collect();
    assert_eq!(why.len(), usize::from(!cuda_listed), "{stdout}");
}

/// Where the machine (or the build) has no CUDA, `--device cuda0` exits 2 with one
/// line that says why, as `nxrig devices` does.
#[test]
fn a_cuda_device_that_is_not_there_is_one_line_and_status_2() {
    let (_, devices, _) = nxrig(&["devices"]);
    let Some(why) = devices
        .lines()
        .find_map(|l| l.strip_prefix("no CUDA device: "))
    else {
        return; // a CUDA device is listed: tests/*::cuda use it
    };
    let dir = tempfile::tempdir().unwrap();
    let h = r#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#;
    let input = safetensors(dir.path(), "in.safetensors", h, &f32_bytes(&[1.0]));
    let out = dir.path().join("out.safetensors");
    let (code, stdout, stderr) = nxrig(&[
        "convert",
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "--to",
        "float16",
        "--device",
        "cuda0",
    ]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("no device named \"cuda0\"") && stderr.contains(why),
        "{stderr}"
    );
    assert!(!out.exists());
}

/// `convert --device gpu` casts on the GPU: the file equals the host's byte for byte,
/// every source kind (a float, a packed 4-bit, an odd-sized byte tensor) included.
#[test]
fn convert_on_the_gpu_writes_the_hosts_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = f32_bytes(&[1.0, 2.5, -3.0, 65520.0, 1e-8, f32::NAN, -0.0]);
    data.extend_from_slice(&[0x12, 0x34, 0x56]);
    data.extend_from_slice(&[7, 8, 9]);
    let h = r#"{"w":{"dtype":"F32","shape":[7],"data_offsets":[0,28]},"q":{"dtype":"U8","shape":[3],"data_offsets":[28,31]},"b":{"dtype":"I8","shape":[3],"data_offsets":[31,34]}}"#;
    let input = safetensors(dir.path(), "in.safetensors", h, &data);
    for to in ["bfloat16", "float8_e4m3fn", "int4"] {
        let mut outs = Vec::new();
        for dev in ["host", "gpu"] {
            let out = dir.path().join(format!("{dev}-{to}.safetensors"));
            let (code, stdout, stderr) = nxrig(&[
                "convert",
                input.to_str().unwrap(),
                out.to_str().unwrap(),
                "--to",
                to,
                "--tensors",
                "*",
                "--device",
                dev,
            ]);
            if to == "int4" {
                // safetensors has no int4: refused before converting, on both devices.
                assert_eq!(code, 2, "{stdout}");
                continue;
            }
            assert_eq!(code, 0, "{dev} {to}: {stderr}");
            outs.push(std::fs::read(&out).unwrap());
        }
        if to != "int4" {
            assert_eq!(
                outs[0], outs[1],
                "{to}: the GPU's file differs from the host's"
            );
        }
    }
    let (code, _, stderr) = nxrig(&[
        "convert",
        input.to_str().unwrap(),
        "x.safetensors",
        "--to",
        "float16",
        "--device",
        "nope",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no device named \"nope\""), "{stderr}");
    // Said as the option's, each device by a name that opens it.
    assert!(
        stderr.starts_with("nxrig: --device: no device named"),
        "{stderr}"
    );
    assert!(stderr.contains("(devices: host"), "{stderr}");
    assert!(!stderr.contains("Rig::by_name"), "{stderr}");
}

/// A `.json` output for one file: the message says what each input converts into (it
/// named `.json` among the extensions it takes); `info` of one tensor says "1 tensor".
#[test]
fn a_json_output_and_one_tensor_are_said_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let input = good(dir.path());
    let out = dir.path().join("out.json");
    let (code, _, stderr) = nxrig(&[
        "convert",
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "--to",
        "bfloat16",
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains(
            "out.json: a .json output: one file converts into a .safetensors or .npy file"
        ),
        "{stderr}"
    );
    assert_eq!(
        leftovers(dir.path(), &["good.safetensors"]),
        Vec::<String>::new()
    );
    let one = safetensors(
        dir.path(),
        "one.safetensors",
        r#"{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
        &f32_bytes(&[1.0]),
    );
    let (code, stdout, _) = nxrig(&["info", one.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(stdout.contains("1 tensor, 4 bytes"), "{stdout}");
}
