//! `nxrig convert INPUT OUTPUT --to DTYPE`: a file into a file, or a sharded
//! checkpoint's index into a folder (each shard converted, a new index written),
//! through the library's converter ([`nxrig::convert`]): the input's headers read and
//! checked and the output planned before a device opens or a byte is written; then
//! tensor by tensor, a piece at a time, into temporaries that go in place only once
//! all are whole. This file checks the paths, opens the device and shows progress.

use std::path::Path;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use nxrig::convert::{self, Checkpoint, FileSink, Overflow, Pick, Plan};
use nxrig::dtype::CastMode;
use nxrig::formats;
use nxrig::quant::Choice;
use nxrig::{Error, Rig};

use crate::process::{say, without_driver_chatter};

/// `nxrig convert`'s arguments.
pub struct Args<'a> {
    pub input: &'a Path,
    pub output: &'a Path,
    pub to: &'a str,
    pub tensors: Option<&'a str>,
    pub device: &'a str,
    pub npy_dtype: Option<&'a str>,
    pub saturate: bool,
    pub scheme: Option<&'a str>,
    pub nibbles: &'a str,
    pub keep_quantized: Option<&'a str>,
}

/// A device's error from `Rig::by_name` as the option's: `--device: no device named
/// "gpu7" (devices: ...)`, not the library's function.
fn as_option(e: Error) -> Error {
    match e {
        Error::Invalid {
            op: "Rig::by_name",
            reason,
            operands,
        } => Error::Invalid {
            op: "--device",
            reason,
            operands,
        },
        Error::NoDevice {
            op: "Rig::by_name",
            reason,
        } => Error::NoDevice {
            op: "--device",
            reason,
        },
        e => e,
    }
}

/// The scheme as `--scheme` and `--nibbles` settle it.
pub fn choice(scheme: Option<&str>, nibbles: &str) -> Result<Choice, Error> {
    let nibbles = nibbles.parse()?;
    Ok(Choice {
        scheme: scheme.map(str::to_owned),
        nibbles,
    })
}

pub fn convert(a: Args<'_>) -> Result<(), Error> {
    let Args {
        input,
        output,
        to,
        tensors,
        device,
        npy_dtype,
        saturate,
        scheme,
        nibbles,
        keep_quantized,
    } = a;
    let to = nxrig::convert::target_dtype(to)?;
    let npy_dtype = npy_dtype.map(str::parse).transpose()?;
    let mode = if saturate {
        CastMode::Saturate
    } else {
        CastMode::Default
    };
    let mut pick = Pick::new(to, tensors)?
        .with_mode(mode)
        .with_scheme(choice(scheme, nibbles)?);
    if let Some(k) = keep_quantized {
        pick = pick.keeping(k)?;
    }
    let start = Instant::now();
    let folder = input.is_dir();
    let checkpoint = if folder {
        if npy_dtype.is_some() {
            return Err(Error::Format {
                path: input.display().to_string(),
                tensor: None,
                reason:
                    "--npy-dtype is for a .npy file; this is a model's folder of .safetensors files"
                        .into(),
            });
        }
        Checkpoint::open_folder(input)?
    } else {
        Checkpoint::open_path_as(input, npy_dtype)?
    };
    let sharded = checkpoint.index.is_some() || folder;
    if folder {
        check_folder(&input.join("model.safetensors"), output)?;
    } else if sharded {
        check_folder(input, output)?;
    } else if same_file(input, output) {
        return Err(Error::Format {
            path: output.display().to_string(),
            tensor: None,
            reason: "the output is the input: write the conversion elsewhere".into(),
        });
    }
    let plan = Plan::new(&checkpoint, &pick, &output.display().to_string())
        .map_err(|e| beside_config(e, input, folder))?;
    if sharded {
        check_stale(&plan, output)?;
    }
    let device_name = device;
    let device = if device == "host" {
        Rig::host()
    } else {
        without_driver_chatter(|| Rig::by_name(device)).map_err(as_option)?
    };
    let bar = ProgressBar::new(plan.bytes_in());
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {binary_bytes_per_sec} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    if plan.bytes_in() < 64 << 20 {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let mut sink = if sharded {
        FileSink::folder(output)
    } else {
        FileSink::file(output)
    };
    let report = pollster::block_on(convert::run(
        &checkpoint,
        &plan,
        &mut sink,
        &device,
        &mut |p| {
            bar.set_message(formats::escaped(p.tensor));
            bar.set_position(p.done);
            if p.tensor_done {
                pause_for_tests();
            }
        },
    ))?;
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    say(&format!(
        "{}: {}{} tensor{} ({} converted to {}{}), {} bytes in, {} bytes out, {secs:.3} s, {:.2} GB/s in",
        formats::escaped(&output.display().to_string()),
        if sharded { format!("{} shard{}, ", report.files, if report.files == 1 { "" } else { "s" }) } else { String::new() },
        report.tensors,
        if report.tensors == 1 { "" } else { "s" },
        report.converted,
        pick.to,
        match (&plan.quantization, report.dequantized) {
            (_, 0) => String::new(),
            (q, n) => format!(
                ", {n} dequantized from {}{}",
                q.as_ref().map_or("GGUF blocks", |q| q.scheme.name),
                match report.dequantized_on_device {
                    0 => String::new(),
                    d if d == n => format!(" on {device_name}"),
                    d => format!(" ({d} on {device_name})"),
                }
            ),
        },
        report.bytes_in,
        report.bytes_out,
        report.bytes_in as f64 / secs / 1e9
    ));
    if let Some(w) = overflow_warning(&report.overflows, mode) {
        // Not eprintln!, which panics when standard error cannot be written (a pipe
        // whose reader is gone): the output is whole and in place by now.
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "{w}");
    }
    Ok(())
}

/// The one line that names the tensors some of whose values overflowed their new
/// dtype or became an infinity or a NaN there (at most five by name, each quoted and
/// escaped), with the counts; `None` where none did.
fn overflow_warning(overflows: &[Overflow], mode: CastMode) -> Option<String> {
    let first = overflows.first()?;
    let sum = |f: fn(&Overflow) -> u64| overflows.iter().map(f).sum::<u64>();
    let (over, inf, nan) = (
        sum(|o| o.tally.overflowed),
        sum(|o| o.tally.infinities),
        sum(|o| o.tally.nans),
    );
    let mut names: Vec<String> = overflows
        .iter()
        .take(5)
        .map(|o| format!("\"{}\"", formats::escaped(&o.tensor)))
        .collect();
    if overflows.len() > 5 {
        names.push(format!("and {} more", overflows.len() - 5));
    }
    let mut what = Vec::new();
    if over > 0 {
        let sat = if mode == CastMode::Saturate {
            " (saturated to it)"
        } else {
            ""
        };
        what.push(format!(
            "{over} finite values past {}'s largest finite{sat}",
            first.dtype
        ));
    }
    if inf > 0 {
        what.push(format!("{inf} became infinities"));
    }
    if nan > 0 {
        what.push(format!("{nan} became NaN"));
    }
    let hint = if mode == CastMode::Default && inf + nan > 0 {
        "; --saturate keeps them finite"
    } else {
        ""
    };
    Some(format!(
        "nxrig: warning: {} tensor{} ({}): {}{hint}",
        overflows.len(),
        if overflows.len() == 1 { "" } else { "s" },
        names.join(", "),
        what.join(", "),
    ))
}

/// The folder a sharded checkpoint at `input` converts into, checked: not a file's
/// name, not the input's own folder, not an existing file.
fn check_folder(input: &Path, output: &Path) -> Result<(), Error> {
    let refuse = |reason: &str| {
        Err(Error::Format {
            path: output.display().to_string(),
            tensor: None,
            reason: reason.into(),
        })
    };
    let ext = output.extension().and_then(|e| e.to_str());
    if !output.is_dir() && matches!(ext, Some("safetensors" | "npy" | "json")) {
        return refuse(
            "a sharded checkpoint converts into a folder (its shards and index), not a file",
        );
    }
    if input.parent().map(|p| p.canonicalize().ok()) == Some(output.canonicalize().ok())
        && output.exists()
    {
        return refuse("the output folder is the input's: the shards would overwrite themselves");
    }
    if output.exists() && !output.is_dir() {
        return refuse("the output exists and is not a folder");
    }
    Ok(())
}

/// A refusal for want of a configuration, of a file (or index) whose folder holds a
/// `config.json`: it says to give the folder, which reads it.
fn beside_config(e: Error, input: &Path, folder: bool) -> Error {
    let dir = input
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match e {
        Error::Format {
            path,
            tensor,
            reason,
        } if !folder
            && reason.contains("no config.json or hf_quant_config.json says how")
            && (dir.join("config.json").is_file()
                || dir.join("hf_quant_config.json").is_file()) =>
        {
            Error::Format {
                path,
                tensor,
                reason: format!(
                    "{reason} (its folder {} holds a config.json: give the folder to read it)",
                    dir.display()
                ),
            }
        }
        e => e,
    }
}

/// An existing output folder holding weights or an index this conversion does not
/// write (an earlier conversion's shards, its index): refused, naming the first, for a
/// loader would find both.
fn check_stale(plan: &Plan, output: &Path) -> Result<(), Error> {
    let Ok(entries) = std::fs::read_dir(output) else {
        return Ok(());
    };
    let written: std::collections::BTreeSet<&str> = plan
        .files
        .iter()
        .map(|f| f.name.as_str())
        .chain(plan.index.as_ref().map(|(n, _)| n.as_str()))
        .collect();
    let mut stale: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| {
            (n.ends_with(".safetensors") || n.ends_with(".npy") || n.ends_with(".index.json"))
                && !written.contains(n.as_str())
        })
        .collect();
    stale.sort();
    match stale.first() {
        None => Ok(()),
        Some(first) => Err(Error::Format {
            path: output.display().to_string(),
            tensor: None,
            reason: format!(
                "the folder holds {first}{} that this conversion does not write (a loader would read both): remove {} or name another folder",
                if stale.len() > 1 { format!(" and {} more weights or index files", stale.len() - 1) } else { String::new() },
                if stale.len() > 1 { "them" } else { "it" }
            ),
        }),
    }
}

/// Whether `a` and `b` are the same file (through links too); false where `b` does
/// not exist.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        #[cfg(unix)]
        (Ok(x), Ok(y)) => {
            use std::os::unix::fs::MetadataExt;
            x.dev() == y.dev() && x.ino() == y.ino()
        }
        #[cfg(not(unix))]
        (Ok(_), Ok(_)) => a.canonicalize().ok() == b.canonicalize().ok(),
        _ => false,
    }
}

/// Sleeps `NXRIG_TEST_TENSOR_DELAY_MS` after each tensor, where the variable is set:
/// the tests' way to interrupt a conversion part way (tests/files.rs).
fn pause_for_tests() {
    if let Some(ms) = std::env::var("NXRIG_TEST_TENSOR_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}
